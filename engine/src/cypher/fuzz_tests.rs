//! Property tests: arbitrary text and random soups of Cypher tokens never panic the engine, and
//! every run ends (by answer, error or work budget) on the sample graph.

use proptest::prelude::*;
use serde_json::{Map, json};

use super::run_with_budget;
use crate::sample::sample_graph;

const TOKENS: [&str; 74] = [
    "MATCH",
    "OPTIONAL",
    "WHERE",
    "RETURN",
    "DISTINCT",
    "ORDER",
    "BY",
    "DESC",
    "SKIP",
    "LIMIT",
    "AND",
    "OR",
    "NOT",
    "XOR",
    "IN",
    "IS",
    "NULL",
    "CONTAINS",
    "STARTS",
    "ENDS",
    "WITH",
    "AS",
    "count",
    "collect",
    "labels",
    "type",
    "id",
    "size",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ".",
    "..",
    "|",
    "*",
    "=",
    "<>",
    "<",
    ">",
    "<=",
    ">=",
    "=~",
    "-",
    "->",
    "<-",
    "-->",
    "a",
    "b",
    "r",
    "n",
    "name",
    "file",
    "confidence",
    "Function",
    "Method",
    "CALLS",
    "CodeRelation",
    "type",
    "'charge'",
    "'c.*'",
    "'('",
    "1",
    "3",
    "2.5",
    "$p",
    "true",
    "null",
    "CREATE",
    "UNION",
];

fn check(query: &str) {
    let params = match json!({"p": "x"}) {
        serde_json::Value::Object(map) => map,
        _ => Map::new(),
    };
    let graph = sample_graph();
    if let Err(e) = run_with_budget(&graph, query, &params, 50, 20_000, &|| false) {
        assert!(!e.message.is_empty());
        assert!(e.position.is_none_or(|p| p <= query.chars().count()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(query in "\\PC{0,120}") {
        check(&query);
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(&TOKENS[..]), 0..40)) {
        check(&tokens.join(" "));
    }

    #[test]
    fn mutated_queries_never_panic(
        cut in 0usize..80,
        insert in prop::sample::select(&TOKENS[..]),
        base in prop::sample::select(&[
            "MATCH (a)-[:CALLS]->(b {name:'charge'}) RETURN a.id",
            "MATCH (a:Function)-[r:CodeRelation {type:'CALLS'}]->(b) WHERE r.confidence >= 0.8 RETURN a.name, count(*) ORDER BY a.name LIMIT 3",
            "MATCH (m {name:'main'})-[:CALLS*1..3]->(x) OPTIONAL MATCH (x)<-[:DEFINES]-(f) RETURN DISTINCT x.name, f.file",
        ][..]),
    ) {
        let at = base.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(base.len());
        check(&format!("{} {insert} {}", &base[..at], &base[at..]));
    }
}

#[test]
fn deep_and_long_inputs_end_cleanly() {
    for query in [
        format!("RETURN {}1{}", "(".repeat(50_000), ")".repeat(50_000)),
        format!("RETURN {}", "NOT ".repeat(10_000)),
        format!("MATCH {}", "(a)-->".repeat(5_000)),
        format!("RETURN [{}]", "1,".repeat(20_000)),
        "MATCH (a)-[*]-(b)-[*]-(c) RETURN count(*)".to_owned(),
    ] {
        check(&query);
    }
}
