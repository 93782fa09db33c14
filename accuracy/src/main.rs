//! `nexus-accuracy`: compares Nexus's CALLS edges with reference call edges derived from a SCIP
//! index (scip-python, scip-typescript) of the same folder; prints recall, precision and misses.

mod misses;
mod nexus;
mod reference;
mod score;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use nexus_engine::index_with_sources;
use protobuf::Message;
use scip::types::Index;

use self::misses::{Cause, Miss, classify};
use self::reference::derive;
use self::score::{bands, ratio};

/// Minimum confidences the figures are given for: type- or scope-resolved edges (≥ 0.92),
/// plus guesses tools follow (a name unique project-wide, the only candidate near the caller;
/// ≥ 0.5), plus ambiguous candidates (below 0.5).
const BANDS: [f32; 3] = [0.92, 0.5, 0.0];

struct Args {
    scip: PathBuf,
    root: PathBuf,
    /// Prepended to the index's document paths to make them relative to `root`.
    prefix: String,
    examples: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut scip = None;
    let mut root = None;
    let mut prefix = String::new();
    let mut examples = 3;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--scip" => scip = Some(PathBuf::from(value()?)),
            "--root" => root = Some(PathBuf::from(value()?)),
            "--prefix" => prefix = value()?,
            "--examples" => {
                examples = value()?
                    .parse()
                    .map_err(|_| "--examples needs a number".to_owned())?;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Args {
        scip: scip.ok_or("--scip FILE is required")?,
        root: root.ok_or("--root DIR is required")?,
        prefix,
        examples,
    })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!(
                "{message}\nusage: nexus-accuracy --scip INDEX.scip --root DIR [--prefix PATH/] [--examples N]"
            );
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("nexus-accuracy: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let bytes = std::fs::read(&args.scip)
        .map_err(|e| format!("cannot read {}: {e}", args.scip.display()))?;
    let mut index = Index::parse_from_bytes(&bytes)
        .map_err(|e| format!("{} is not a SCIP index: {e}", args.scip.display()))?;
    for doc in &mut index.documents {
        doc.relative_path = format!("{}{}", args.prefix, doc.relative_path);
    }

    let files = nexus_engine::read_tree(&args.root);
    let project = args
        .root
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let started = Instant::now();
    let clock = || started.elapsed().as_secs_f64() * 1000.0;
    let (graph, _, sources) = index_with_sources(&project, files, &clock, &mut |_, _, _| true)
        .map_err(|_| "indexing was cancelled".to_owned())?;
    let ingest_ms = clock();
    let exported = nexus::export(&graph, &sources);

    let mut doc_texts: HashMap<String, String> = HashMap::new();
    for doc in &index.documents {
        let text = match sources.get(&doc.relative_path) {
            Some(text) => Some(text.to_string()),
            None => std::fs::read_to_string(args.root.join(&doc.relative_path)).ok(),
        };
        if let Some(text) = text {
            doc_texts.insert(doc.relative_path.clone(), text);
        }
    }
    let texts = |path: &str| doc_texts.get(path).map(String::as_str);
    let (reference, own_bodies) = derive(&index, &texts, &exported.extents);

    println!(
        "corpus: {} ({} documents in the SCIP index)",
        args.root.display(),
        index.documents.len()
    );
    println!(
        "reference: {} call edges between {} functions and methods (bodies from {}); {} definitions are one function with another of the same qualified name in the same file",
        reference.edges.len(),
        reference.callables.len(),
        if own_bodies {
            "the index's enclosing ranges"
        } else {
            "the engine's syntax trees"
        },
        reference.merged
    );
    let attributed = nexus::attribute_callers(exported.edges, &reference);
    let in_scope: Vec<_> = nexus::identify(attributed.edges, &exported.qualified, &reference)
        .into_iter()
        .filter(|e| reference.paths.contains(&e.caller.path))
        .collect();
    println!(
        "nexus: ingest {ingest_ms:.0} ms, {} CALLS edges between functions and methods from callers in those documents ({} CALLS edges elsewhere: module code or class construction)",
        in_scope.len(),
        exported.other_edges
    );
    println!(
        "       {} edges from local functions the reference does not count as functions are attributed to the function around them; {} edges to such local functions are left out",
        attributed.moved, attributed.to_locals
    );
    println!();
    println!(
        "{:<18} {:>7} {:>7} {:>6} {:>9} {:>9} {:>7}",
        "confidence", "edges", "right", "wrong", "undecided", "precision", "recall"
    );
    for (min, band) in bands(&reference, &in_scope, &BANDS) {
        println!(
            "{:<18} {:>7} {:>7} {:>6} {:>9} {:>9.4} {:>7.4}",
            format!(">= {min:.2}"),
            band.edges,
            band.right,
            band.wrong,
            band.undecided,
            band.precision(),
            ratio(band.found, reference.edges.len())
        );
    }
    println!();
    print_calibration(&reference, &in_scope);
    print_misses(&reference, &in_scope, &texts, args.examples);
    print_wrong(&reference, &in_scope, args.examples);
    Ok(())
}

/// Precision per confidence value: how often an edge of that confidence is right, to set
/// against the confidence itself.
fn print_calibration(reference: &reference::Reference, edges: &[nexus::NexusEdge]) {
    let judge = score::Judge::new(reference);
    /// The edges of one confidence value by verdict, and their reasons (edges, right, wrong).
    #[derive(Default)]
    struct Value<'e> {
        right: usize,
        wrong: usize,
        undecided: usize,
        reasons: BTreeMap<&'e str, (usize, usize, usize)>,
    }
    // Keyed by confidence in hundredths.
    let mut by_value: BTreeMap<u32, Value<'_>> = BTreeMap::new();
    for e in edges {
        let slot = by_value
            .entry((e.confidence * 100.0).round() as u32)
            .or_default();
        let reason = slot.reasons.entry(e.reason).or_default();
        reason.0 += 1;
        match judge.verdict(e) {
            score::Verdict::Right => {
                slot.right += 1;
                reason.1 += 1;
            }
            score::Verdict::Wrong => {
                slot.wrong += 1;
                reason.2 += 1;
            }
            score::Verdict::Undecided => slot.undecided += 1,
        }
    }
    println!(
        "{:<11} {:>7} {:>7} {:>6} {:>9} {:>9}  reasons: edges (right/wrong)",
        "confidence", "edges", "right", "wrong", "undecided", "precision"
    );
    for (value, v) in by_value.iter().rev() {
        let reasons: Vec<String> = v
            .reasons
            .iter()
            .map(|(r, (n, right, wrong))| format!("{r} {n} ({right}/{wrong})"))
            .collect();
        println!(
            "{:<11} {:>7} {:>7} {:>6} {:>9} {:>9.4}  {}",
            format!("= {:.2}", f64::from(*value) / 100.0),
            v.right + v.wrong + v.undecided,
            v.right,
            v.wrong,
            v.undecided,
            ratio(v.right, v.right + v.wrong),
            reasons.join(", ")
        );
    }
    println!();
}

fn print_misses(
    reference: &reference::Reference,
    edges: &[nexus::NexusEdge],
    texts: &reference::Texts<'_>,
    examples: usize,
) {
    let found: HashSet<(&reference::Site, &reference::Site)> =
        edges.iter().map(|e| (&e.caller, &e.callee)).collect();
    let mut names_at: HashMap<&reference::Site, HashSet<&str>> = HashMap::new();
    for e in edges {
        names_at
            .entry(&e.caller)
            .or_default()
            .insert(e.callee_name.as_str());
    }
    let empty = HashSet::new();
    let mut by_cause: BTreeMap<Cause, Vec<String>> = BTreeMap::new();
    for ((caller, callee), place) in &reference.edges {
        if found.contains(&(caller, callee)) {
            continue;
        }
        let (Some(caller_def), Some(callee_def)) = (
            reference.callables.get(caller),
            reference.callables.get(callee),
        ) else {
            continue;
        };
        let line_of = |path: &str, line: u32| {
            texts(path)
                .and_then(|t| t.lines().nth((line as usize).checked_sub(1)?))
                .unwrap_or("")
        };
        let line = line_of(&place.path, place.line);
        let miss = Miss {
            caller: caller_def,
            callee_site: callee,
            callee: callee_def,
            place,
            line,
            callee_previous_line: line_of(&callee.path, callee.line.saturating_sub(1)),
        };
        let cause = classify(&miss, names_at.get(caller).unwrap_or(&empty));
        by_cause.entry(cause).or_default().push(format!(
            "{}:{}  {}  → {}",
            place.path,
            place.line,
            line.trim(),
            callee
        ));
    }
    let total: usize = by_cause.values().map(Vec::len).sum();
    println!("misses: {total}");
    let mut causes: Vec<_> = by_cause.into_iter().collect();
    causes.sort_by_key(|(cause, list)| (std::cmp::Reverse(list.len()), *cause));
    for (cause, list) in causes {
        println!("  {:>5}  {}", list.len(), cause.describe());
        for example in list.iter().take(examples) {
            println!("           {example}");
        }
    }
    println!();
}

fn print_wrong(reference: &reference::Reference, edges: &[nexus::NexusEdge], examples: usize) {
    let judge = score::Judge::new(reference);
    let wrong: Vec<_> = edges
        .iter()
        .filter(|e| judge.verdict(e) == score::Verdict::Wrong)
        .collect();
    let mut by_reason: BTreeMap<&str, Vec<&nexus::NexusEdge>> = BTreeMap::new();
    for e in &wrong {
        by_reason.entry(e.reason).or_default().push(e);
    }
    println!("wrong edges: {} (by Nexus's reason)", wrong.len());
    for (reason, list) in by_reason {
        println!("  {:>5}  {reason}", list.len());
        for e in list.iter().take(examples) {
            let expected: Vec<String> = reference
                .edges
                .keys()
                .filter(|(caller, callee)| {
                    *caller == e.caller
                        && reference
                            .callables
                            .get(callee)
                            .is_some_and(|c| c.name == e.callee_name)
                })
                .map(|(_, callee)| callee.to_string())
                .collect();
            println!(
                "           {} → {} {} ({:.2}); the reference: {}",
                e.caller,
                e.callee_name,
                e.callee,
                e.confidence,
                expected.join(", ")
            );
        }
    }
}
