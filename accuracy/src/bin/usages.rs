//! Usages for `scripts/oracle/usages_score.py`: the engine's references (not calls) to functions,
//! methods and types as TSV, and a SCIP index's references that are not calls, in the same terms.
//!
//! Usage: `nexus-usages --root DIR --out FILE [--scip INDEX --prefix P --reference FILE]`.
//! Both files hold `target_path target_line usage_path usage_line kind confidence` rows (the
//! reference also `#target path line` and `#files path…` lines: what it covers); a target
//! is the (file, line of its name) of its definition, a usage the (file, line) it is written at.
//! A SCIP occurrence counts as a call, and is left out, when `(` follows its name.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nexus_engine::index_with_sources;
use protobuf::Message;
use scip::types::{Index, SymbolRole};

struct Args {
    root: PathBuf,
    out: PathBuf,
    scip: Option<(PathBuf, String, PathBuf)>,
}

fn parse_args() -> Result<Args, String> {
    let (mut root, mut out, mut scip, mut prefix, mut reference) =
        (None, None, None, String::new(), None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--root" => root = Some(PathBuf::from(value)),
            "--out" => out = Some(PathBuf::from(value)),
            "--scip" => scip = Some(PathBuf::from(value)),
            "--prefix" => prefix = value,
            "--reference" => reference = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(Args {
        root: root.ok_or("--root DIR is required")?,
        out: out.ok_or("--out FILE is required")?,
        scip: match (scip, reference) {
            (Some(s), Some(r)) => Some((s, prefix, r)),
            (None, None) => None,
            _ => return Err("--scip and --reference go together".into()),
        },
    })
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The line of a definition's name: the first line of its span holding the name as a word.
fn name_line(lines: &[&str], start: u32, end: u32, name: &str) -> u32 {
    (start..=end)
        .find(|&l| {
            lines.get((l as usize).wrapping_sub(1)).is_some_and(|text| {
                text.match_indices(name).any(|(i, _)| {
                    !text[..i].chars().next_back().is_some_and(is_ident)
                        && !text[i + name.len()..].chars().next().is_some_and(is_ident)
                })
            })
        })
        .unwrap_or(start)
}

fn engine_usages(root: &Path) -> Result<String, String> {
    let files = nexus_engine::read_tree(root);
    let (graph, _, sources) = index_with_sources("corpus", files, &|| 0.0, &mut |_, _, _| true)
        .map_err(|_| "indexing was cancelled".to_owned())?;
    let mut site: HashMap<u32, (String, u32)> = HashMap::new();
    for node in graph.nodes() {
        if !(node.kind().is_callable() || node.kind().is_type()) {
            continue;
        }
        let text = sources.get(node.file());
        let lines: Vec<&str> = text
            .as_deref()
            .map_or_else(Vec::new, |t| t.lines().collect());
        let line = name_line(&lines, node.start_line(), node.end_line(), node.name());
        site.insert(node.id, (node.file().to_owned(), line));
    }
    let mut out = String::new();
    for r in graph.references() {
        let (Some((tp, tl)), Some(from)) = (site.get(&r.to), graph.node(r.from)) else {
            continue;
        };
        let _ = writeln!(
            out,
            "{tp}\t{tl}\t{}\t{}\t{}\t{:.3}",
            from.file(),
            r.line,
            r.kind.as_str(),
            r.confidence
        );
    }
    Ok(out)
}

fn scip_usages(index: &Path, prefix: &str, root: &Path) -> Result<String, String> {
    let bytes =
        std::fs::read(index).map_err(|e| format!("cannot read {}: {e}", index.display()))?;
    let index = Index::parse_from_bytes(&bytes).map_err(|e| format!("not a SCIP index: {e}"))?;
    let definition = SymbolRole::Definition as i32;
    // A function, method or type: SCIP's method `().` and type `#` descriptors.
    let wanted = |s: &str| !s.starts_with("local ") && (s.ends_with(").") || s.ends_with('#'));
    let mut defined: HashMap<&str, (String, u32)> = HashMap::new();
    for doc in &index.documents {
        for occ in &doc.occurrences {
            if occ.symbol_roles & definition != 0
                && wanted(&occ.symbol)
                && let Some(&line) = occ.range.first()
            {
                defined
                    .entry(occ.symbol.as_str())
                    .or_insert((format!("{prefix}{}", doc.relative_path), line as u32 + 1));
            }
        }
    }
    // Every target and file the index covers, so that a usage of a target it never references, or
    // in a file where it finds none, still counts against the engine.
    let mut out = String::new();
    for (path, line) in defined.values() {
        let _ = writeln!(out, "#target\t{path}\t{line}");
    }
    let files: Vec<String> = index
        .documents
        .iter()
        .map(|d| format!("{prefix}{}", d.relative_path))
        .collect();
    let _ = writeln!(out, "#files\t{}", files.join("\t"));
    for doc in &index.documents {
        let path = format!("{prefix}{}", doc.relative_path);
        let text = std::fs::read_to_string(root.join(&doc.relative_path)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for occ in &doc.occurrences {
            if occ.symbol_roles & definition != 0 {
                continue;
            }
            let Some(target) = defined.get(occ.symbol.as_str()) else {
                continue;
            };
            let (line, end_col) = match occ.range.as_slice() {
                [l, _, e] => (*l as usize, *e as usize),
                [l, _, _, e] => (*l as usize, *e as usize),
                _ => continue,
            };
            let after = lines.get(line).and_then(|t| t.get(end_col..)).unwrap_or("");
            if after.trim_start().starts_with('(') {
                continue;
            }
            let _ = writeln!(
                out,
                "{}\t{}\t{path}\t{}\treference\t1",
                target.0,
                target.1,
                line + 1
            );
        }
    }
    Ok(out)
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let write = |path: &PathBuf, text: String| {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(&args.out, engine_usages(&args.root)?)?;
    if let Some((index, prefix, reference)) = &args.scip {
        write(reference, scip_usages(index, prefix, &args.root)?)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!(
                "{message}\nusage: nexus-usages --root DIR --out FILE [--scip INDEX --prefix P --reference FILE]"
            );
            ExitCode::FAILURE
        }
    }
}
