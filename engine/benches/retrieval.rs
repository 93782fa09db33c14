//! Retrieval benchmark for search by meaning: functions with a docstring, the docstring's first
//! sentence as the query, docstrings removed from what is indexed; prints hit@10 and MRR@10 for
//! keyword, semantic and hybrid search, embedding time, hybrid query p50 and snapshot growth.
//!
//! Usage: `cargo bench -p nexus-engine --bench retrieval -- MODEL [--questions FILE] DIR...`
//! (MODEL from `scripts/setup.sh`, `model/static-minilm.nxse`; folders of Python code, e.g. Django
//! 5.1.4). `--questions` also asks the next DIR, indexed with its docstrings, the plain-words
//! questions of FILE (`question<TAB>name|name…` per line, `#` comments; a hit is a result with
//! one of those names).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use nexus_engine::embed::{StaticModel, VectorIndex};
use nexus_engine::snapshot;
use nexus_engine::{Mode, SearchIndex, SourceFile, index_with_sources, index_workspace, is_test};

/// Hits looked at.
const TOP: usize = 10;
/// Queries with fewer words say too little to be a description.
const MIN_QUERY_WORDS: usize = 3;

/// The first sentence of a doc line.
fn first_sentence(doc: &str) -> &str {
    let doc = doc.trim();
    doc.find(". ")
        .map_or(doc.trim_end_matches('.'), |end| &doc[..end])
}

/// The triple quote a stripped line opens a docstring with.
fn opens_docstring(line: &str) -> Option<&'static str> {
    let rest = line.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B']);
    ["\"\"\"", "'''"].into_iter().find(|q| rest.starts_with(q))
}

/// Python source with every docstring (module, class, function) replaced by `...` on its first
/// line and blank lines after, so the code parses the same and line numbers hold.
fn without_docstrings(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    let mut expect_doc = true;
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        if let (true, Some(quote)) = (expect_doc, opens_docstring(trimmed)) {
            let indent = &lines[i][..lines[i].len() - lines[i].trim_start().len()];
            let after_open = trimmed.find(quote).map_or("", |at| &trimmed[at + 3..]);
            let mut end = i;
            if !after_open.contains(quote) {
                while end + 1 < lines.len() && !lines[end + 1].contains(quote) {
                    end += 1;
                }
                end = (end + 1).min(lines.len() - 1);
            }
            out[i] = format!("{indent}...");
            for line in out.iter_mut().take(end + 1).skip(i + 1) {
                line.clear();
            }
            i = end + 1;
            expect_doc = false;
            continue;
        }
        let is_def = ["def ", "async def ", "class "]
            .iter()
            .any(|k| trimmed.starts_with(k));
        expect_doc = is_def && ends_block(trimmed);
        if is_def && !ends_block(trimmed) {
            // A signature over several lines: the docstring may follow the line that closes it.
            while i + 1 < lines.len() && !ends_block(lines[i]) {
                i += 1;
            }
            expect_doc = true;
        }
        i += 1;
    }
    out.join("\n")
}

/// True when a line's code (before a trailing `#` comment) ends with `:`.
fn ends_block(line: &str) -> bool {
    line.find(" #")
        .map_or(line, |at| &line[..at])
        .trim_end()
        .ends_with(':')
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or(0.0)
}

/// Asks `questions` of the code as it is (docstrings kept) in every mode; prints hit@10 and
/// MRR@10, and the questions hybrid search missed.
fn ask(
    model: &Arc<StaticModel>,
    name: &str,
    files: Vec<SourceFile>,
    questions: &[(String, Vec<String>)],
) {
    let Ok((graph, _, sources)) = index_with_sources(name, files, &|| 0.0, &mut |_, _, _| true)
    else {
        return eprintln!("{name}: indexing failed");
    };
    let mut search = SearchIndex::build(&graph);
    let (vectors, _) = VectorIndex::build(&graph, &sources, model, None, &mut |_, _| true);
    search.attach_embeddings(model.clone(), vectors);
    println!(
        "{name}: {} plain-words questions, docstrings kept",
        questions.len()
    );
    for (question, names) in questions {
        if names.iter().all(|n| graph.nodes_named(n).is_empty()) {
            println!("  no symbol is named as {question:?} expects: {names:?}");
        }
    }
    for (label, mode) in [
        ("keyword", Mode::Keyword),
        ("semantic", Mode::Semantic),
        ("hybrid", Mode::Hybrid),
    ] {
        let (mut hits, mut rr, mut missed) = (0usize, 0f64, Vec::new());
        for (question, names) in questions {
            let ranked = search.ranked(question, mode, &|_| true).unwrap_or_default();
            let rank = ranked.iter().take(TOP).position(|h| {
                graph
                    .node(h.node)
                    .is_some_and(|n| names.iter().any(|x| x == n.name()))
            });
            match rank {
                Some(rank) => {
                    hits += 1;
                    rr += 1.0 / (rank as f64 + 1.0);
                }
                None => missed.push(question.as_str()),
            }
        }
        let n = questions.len().max(1) as f64;
        println!(
            "  {label:8} hit@10 {:.3}  MRR@10 {:.3}",
            hits as f64 / n,
            rr / n
        );
        if mode == Mode::Hybrid {
            for question in missed {
                println!("    missed: {question}");
            }
        }
    }
}

/// The questions of a `--questions` file.
fn read_questions(path: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (question, names) = line
                .split_once('\t')
                .ok_or_else(|| format!("{path}: no tab in {line:?}"))?;
            Ok((
                question.to_owned(),
                names.split('|').map(|n| n.trim().to_owned()).collect(),
            ))
        })
        .collect()
}

fn run(model: &Arc<StaticModel>, dir: &Path, questions: &[(String, Vec<String>)]) {
    let name = dir
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into());
    let files = nexus_engine::read_tree(dir);
    if !questions.is_empty() {
        ask(model, &name, files.clone(), questions);
    }
    let Ok((with_docs, _, _)) =
        index_with_sources(&name, files.clone(), &|| 0.0, &mut |_, _, _| true)
    else {
        return eprintln!("{name}: indexing failed");
    };
    let mut queries: Vec<(String, String)> = with_docs
        .nodes()
        .filter(|n| n.kind().is_callable() && !is_test(n))
        .filter_map(|n| {
            let q = first_sentence(n.doc());
            (q.split_whitespace().count() >= MIN_QUERY_WORDS).then(|| (n.stable_id(), q.to_owned()))
        })
        .collect();
    queries.sort();
    let stripped: Vec<SourceFile> = files
        .into_iter()
        .map(|f| {
            if f.path.ends_with(".py") {
                let text = String::from_utf8_lossy(&f.bytes);
                SourceFile {
                    path: f.path,
                    bytes: without_docstrings(&text).into_bytes(),
                }
            } else {
                f
            }
        })
        .collect();
    let Ok((graph, _, files)) = index_workspace(&name, stripped, &|| 0.0, &mut |_, _, _| true)
    else {
        return eprintln!("{name}: indexing failed");
    };
    let docs_left = graph
        .nodes()
        .filter(|n| n.kind().is_symbol() && !n.doc().is_empty())
        .count();
    let mut search = SearchIndex::build(&graph);
    let t = Instant::now();
    let (vectors, stats) =
        VectorIndex::build(&graph, files.sources(), model, None, &mut |_, _| true);
    let embed_s = t.elapsed().as_secs_f64();
    let vector_bytes = postcard::to_allocvec(&vectors).map_or(0, |b| b.len());
    let snapshot_bytes = snapshot::encoded_len(&graph, &files, 0.0).unwrap_or(1);
    search.attach_embeddings(model.clone(), vectors);
    println!(
        "{name}: {} symbols and files embedded in {embed_s:.2} s; vectors {:.1} MB = +{:.1} % of the {:.1} MB snapshot; {} queries ({docs_left} docs left after stripping)",
        stats.embedded,
        vector_bytes as f64 / 1e6,
        100.0 * vector_bytes as f64 / snapshot_bytes as f64,
        snapshot_bytes as f64 / 1e6,
        queries.len()
    );
    for (label, mode) in [
        ("keyword", Mode::Keyword),
        ("semantic", Mode::Semantic),
        ("hybrid", Mode::Hybrid),
    ] {
        let (mut hits, mut rr) = (0usize, 0f64);
        let mut times = Vec::with_capacity(queries.len());
        let mut asked = 0usize;
        for (id, query) in &queries {
            let Some(target) = graph.find_id(id) else {
                continue;
            };
            asked += 1;
            let t = Instant::now();
            let ranked = search.ranked(query, mode, &|_| true).unwrap_or_default();
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            if let Some(rank) = ranked.iter().take(TOP).position(|h| h.node == target) {
                hits += 1;
                rr += 1.0 / (rank as f64 + 1.0);
            }
        }
        times.sort_by(f64::total_cmp);
        let n = asked.max(1) as f64;
        println!(
            "  {label:8} hit@10 {:.3}  MRR@10 {:.3}  query p50 {:.2} ms  p95 {:.2} ms  ({asked} queries)",
            hits as f64 / n,
            rr / n,
            percentile(&times, 0.5),
            percentile(&times, 0.95)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let Some((model_path, rest)) = args.split_first() else {
        return eprintln!("usage: retrieval MODEL [--questions FILE] DIR...");
    };
    let t = Instant::now();
    let model = match std::fs::read(model_path)
        .map_err(|e| e.to_string())
        .and_then(|b| StaticModel::from_bytes(&b))
    {
        Ok(model) => Arc::new(model),
        Err(err) => return eprintln!("{model_path}: {err}"),
    };
    println!(
        "model {model_path}: {} tokens x {} dims, loaded in {:.0} ms",
        model.tokens(),
        model.dims(),
        t.elapsed().as_secs_f64() * 1000.0
    );
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        if arg != "--questions" {
            run(&model, Path::new(arg), &[]);
            continue;
        }
        let questions = match rest.next().map(|path| read_questions(path)) {
            Some(Ok(questions)) => questions,
            Some(Err(err)) => return eprintln!("{err}"),
            None => return eprintln!("--questions needs a file"),
        };
        match rest.next() {
            Some(dir) => run(&model, Path::new(dir), &questions),
            None => return eprintln!("--questions needs a folder after its file"),
        }
    }
}
