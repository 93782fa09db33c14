//! Native Cypher benchmark: indexes a corpus folder, then prints the median and p99 latency of
//! representative queries. Usage: `cargo bench -p nexus-engine --bench cypher -- DIR`.

use std::path::Path;
use std::time::Instant;

use nexus_engine::Graph;
use nexus_engine::cypher::{self, QueryResult};
use nexus_engine::index;
use serde_json::Map;

const RUNS: usize = 200;

const QUERIES: [(&str, &str); 6] = [
    (
        "one-hop",
        "MATCH (a)-[:CALLS]->(b {name:'get_object'}) RETURN a.id",
    ),
    (
        "one-hop CodeRelation",
        "MATCH (a)-[r:CodeRelation {type:'CALLS'}]->(b {name:'get_object'}) WHERE r.confidence >= 0.5 RETURN a.id, r.confidence",
    ),
    (
        "two-hop + WHERE",
        "MATCH (a:Function|Method)-[:CALLS]->(b)-[:CALLS]->(c) WHERE b.name = 'get_object' AND c.file STARTS WITH 'django/' RETURN DISTINCT a.name, c.name",
    ),
    (
        "count by class",
        "MATCH (c:Class)<-[:MEMBER_OF]-(m:Method) RETURN c.name, count(m) AS methods ORDER BY methods DESC LIMIT 10",
    ),
    (
        "var-length *1..3",
        "MATCH (a {name:'get_object'})<-[:CALLS*1..3]-(b) RETURN count(DISTINCT b)",
    ),
    (
        "scan + CONTAINS",
        "MATCH (f:Function) WHERE f.name CONTAINS 'cache' RETURN f.id ORDER BY f.id LIMIT 20",
    ),
];

fn run(graph: &Graph, query: &str) -> QueryResult {
    match cypher::run(graph, query, &Map::new(), 100) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("{query}: {e}");
            std::process::exit(1);
        }
    }
}

/// The value at quantile `q` of sorted samples.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(at).copied().unwrap_or(0.0)
}

fn main() {
    let Some(dir) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench -p nexus-engine --bench cypher -- DIR");
        std::process::exit(2);
    };
    let root = Path::new(&dir);
    let files = nexus_engine::read_tree(root);
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok((graph, _)) = index(&name, files, &|| 0.0, &mut |_, _, _| true) else {
        eprintln!("{name}: indexing was cancelled");
        std::process::exit(1);
    };
    println!(
        "== {name}: {} nodes, {} edges; {RUNS} runs per query",
        graph.node_count(),
        graph.edge_count()
    );
    let cold = Instant::now();
    graph.nodes_named("");
    println!(
        "lookup index build (first query only): {:.2} ms",
        cold.elapsed().as_secs_f64() * 1000.0
    );
    for (label, query) in QUERIES {
        let result = run(&graph, query);
        let mut samples: Vec<f64> = (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                let result = run(&graph, query);
                let elapsed = started.elapsed().as_secs_f64() * 1000.0;
                std::hint::black_box(result);
                elapsed
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        println!(
            "{label:<22} median {:>8.3} ms   p99 {:>8.3} ms   rows {:>5}   {}",
            quantile(&samples, 0.5),
            quantile(&samples, 0.99),
            result.total_rows,
            query
        );
    }
}
