//! Native ingest benchmark: indexes a real repository folder and prints per-phase times,
//! throughput, graph size and memory. Usage: `cargo bench -p nexus-web --bench ingest -- DIR...`
//! (folders from `../shared/corpora/fetch.sh django|effect|tokio`).

use std::path::Path;
use std::time::Instant;

use nexus_web::engine::graph::{EdgeKind, NodeKind};
use nexus_web::engine::ingest::{SourceFile, index};

fn read_tree(root: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && let Ok(bytes) = std::fs::read(&path)
                && let Ok(relative) = path.strip_prefix(root)
            {
                files.push(SourceFile {
                    path: relative.to_string_lossy().replace('\\', "/"),
                    bytes,
                });
            }
        }
    }
    files
}

fn main() {
    let dirs: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if dirs.is_empty() {
        eprintln!("usage: cargo bench -p nexus-web --bench ingest -- DIR [DIR...]");
        std::process::exit(2);
    }
    for dir in dirs {
        let root = Path::new(&dir);
        let read_start = Instant::now();
        let files = read_tree(root);
        let read_ms = read_start.elapsed().as_secs_f64() * 1000.0;
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let clock_start = Instant::now();
        let clock = || clock_start.elapsed().as_secs_f64() * 1000.0;
        let started = Instant::now();
        let Ok((graph, stats)) = index(&name, files, &clock, &mut |_, _, _| true) else {
            eprintln!("{name}: cancelled");
            continue;
        };
        let total_ms = started.elapsed().as_secs_f64() * 1000.0;
        let items = graph.node_count() + graph.edge_count();
        println!("== {name} ({dir})");
        println!("read from disk: {read_ms:.0} ms (not part of the pipeline)");
        for (phase, ms) in &stats.phase_ms {
            println!("phase {:<8} {ms:>8.1} ms", phase.as_str());
        }
        println!("total          {total_ms:>8.1} ms");
        println!(
            "files: {} seen, {} parsed ({:.1} MB), {:.0} files/s; skipped: {} excluded, {} ignored, {} secret, {} binary, {} too large, {} not source; {} with syntax errors",
            stats.files_seen,
            stats.files_parsed,
            stats.bytes_parsed as f64 / 1e6,
            stats.files_parsed as f64 / (total_ms / 1000.0),
            stats.skipped_excluded,
            stats.skipped_ignored,
            stats.skipped_secret,
            stats.skipped_binary,
            stats.skipped_large,
            stats.skipped_not_source,
            stats.files_with_syntax_errors,
        );
        let kinds: Vec<String> = NodeKind::ALL
            .iter()
            .map(|k| (k, graph.count_nodes(*k)))
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let edges: Vec<String> = EdgeKind::ALL
            .iter()
            .map(|k| (k, graph.count_edges(*k)))
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        println!("nodes: {} ({})", graph.node_count(), kinds.join(", "));
        println!("edges: {} ({})", graph.edge_count(), edges.join(", "));
        let bands = [(0.9, 1.01), (0.8, 0.9), (0.5, 0.8), (0.0, 0.5)];
        let calls: Vec<f32> = graph
            .edges()
            .iter()
            .filter(|e| e.kind == EdgeKind::Calls)
            .map(|e| e.confidence)
            .collect();
        let band_text: Vec<String> = bands
            .iter()
            .map(|(lo, hi): &(f64, f64)| {
                format!(
                    "[{lo:.1},{:.1}) {}",
                    hi.min(1.0),
                    calls
                        .iter()
                        .filter(|c| **c as f64 >= *lo && (**c as f64) < *hi)
                        .count()
                )
            })
            .collect();
        println!("CALLS by confidence: {}", band_text.join(" · "));
        println!(
            "call sites: {} ({} resolved, {:.1}%); imports: {} ({} resolved)",
            stats.resolve.call_sites,
            stats.resolve.calls_resolved,
            100.0 * stats.resolve.calls_resolved as f64 / stats.resolve.call_sites.max(1) as f64,
            stats.resolve.imports,
            stats.resolve.imports_resolved,
        );
        let bytes = graph.heap_bytes();
        println!(
            "graph memory: {:.1} MB, {:.0} bytes per node+edge",
            bytes as f64 / 1e6,
            bytes as f64 / items.max(1) as f64
        );
    }
}
