//! Execution tests: exact rows for each supported feature on the sample shop graph, a small
//! hand-built graph and a few indexed Python files; and the errors agents see.

use serde_json::{Map, json};

use super::{CypherError, QueryResult, Value, run, run_with_budget};
use crate::graph::{EdgeKind, Graph, GraphBuilder, NewNode, NodeKind, Reason};
use crate::ingest::{SourceFile, index};
use crate::sample::sample_graph;

fn params(value: serde_json::Value) -> Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn query(graph: &Graph, text: &str) -> QueryResult {
    run(graph, text, &Map::new(), 1000).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Rows rendered as JSON, for compact expectations.
fn rows(graph: &Graph, text: &str) -> serde_json::Value {
    rows_with(graph, text, json!({}))
}

fn rows_with(graph: &Graph, text: &str, p: serde_json::Value) -> serde_json::Value {
    let result = run(graph, text, &params(p), 1000).unwrap_or_else(|e| panic!("{text}: {e}"));
    serde_json::Value::Array(
        result
            .rows
            .iter()
            .map(|r| serde_json::Value::Array(r.iter().map(Value::to_json).collect()))
            .collect(),
    )
}

fn error(graph: &Graph, text: &str) -> CypherError {
    error_with(graph, text, json!({}))
}

fn error_with(graph: &Graph, text: &str, p: serde_json::Value) -> CypherError {
    match run(graph, text, &params(p), 1000) {
        Ok(result) => panic!("{text}: expected an error, got {result:?}"),
        Err(e) => e,
    }
}

/// Two functions in one file, one calling itself, one with a signature and a doc line.
fn loop_graph() -> Graph {
    let mut b = GraphBuilder::new("loops");
    let mut add = |name: &str, signature: &str, doc: &str| {
        b.add_node(NewNode {
            kind: NodeKind::Function,
            name,
            qualified: name,
            file: "x.py",
            start_line: 1,
            end_line: 2,
            signature,
            doc,
            exported: name == "f",
        })
    };
    let f = add("f", "def f(n)", "Recurses.");
    let g = add("g", "", "");
    b.add_edge(f, f, EdgeKind::Calls, 0.85, Reason::SameFile);
    b.add_edge(g, f, EdgeKind::Calls, 0.3, Reason::Ambiguous);
    b.build()
}

#[test]
fn one_hop_in_each_direction() {
    let g = sample_graph();
    assert_eq!(
        rows(&g, "MATCH (a)-[:CALLS]->(b {name:'charge'}) RETURN a.id"),
        json!([["Method:shop/cart.py:Cart.checkout"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (b:Function {name:'charge'})<-[:CALLS]-(a) RETURN a.name"
        ),
        json!([["checkout"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (a {name:'charge'})-[:CALLS]-(b) RETURN b.name ORDER BY b.name"
        ),
        json!([["checkout"], ["validate_card"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (m {name:'main'})-->(x) RETURN x.name ORDER BY x.name"
        ),
        json!([["Cart"], ["add"], ["checkout"]])
    );
    assert_eq!(
        rows(&g, "MATCH (m {name:'main'})-[r]->(x:Class) RETURN r, x"),
        json!([["CALLS", "Class:shop/cart.py:Cart"]])
    );
}

#[test]
fn type_alternation_and_label_alternation() {
    let g = sample_graph();
    assert_eq!(
        rows(
            &g,
            "MATCH (f:File {name:'cart.py'})-[r:IMPORTS|DEFINES]->(x) RETURN type(r), x.name ORDER BY x.name"
        ),
        json!([
            ["DEFINES", "Cart"],
            ["DEFINES", "add"],
            ["DEFINES", "checkout"],
            ["IMPORTS", "payment.py"],
            ["DEFINES", "total"]
        ])
    );
    assert_eq!(
        rows(&g, "MATCH (n:Class|Folder) RETURN n.name ORDER BY n.name"),
        json!([["Cart"], ["shop"]])
    );
    assert_eq!(
        rows(&g, "MATCH (n:Class|:Folder) RETURN count(*)"),
        json!([[2]])
    );
}

#[test]
fn variable_length_paths() {
    let g = sample_graph();
    let reach = |len: &str| {
        rows(
            &g,
            &format!("MATCH (m {{name:'main'}})-[:CALLS{len}]->(x) RETURN x.name ORDER BY x.name"),
        )
    };
    assert_eq!(
        reach("*1..3"),
        json!([
            ["Cart"],
            ["add"],
            ["charge"],
            ["checkout"],
            ["total"],
            ["validate_card"]
        ])
    );
    assert_eq!(reach("*2"), json!([["charge"], ["total"]]));
    assert_eq!(
        reach("*..2"),
        json!([["Cart"], ["add"], ["charge"], ["checkout"], ["total"]])
    );
    assert_eq!(
        reach("*0..1"),
        json!([["Cart"], ["add"], ["checkout"], ["main"]])
    );
    let unbounded = query(&g, "MATCH (m {name:'main'})-[:CALLS*]->(x) RETURN count(*)");
    assert_eq!(unbounded.rows, [[Value::Int(6)]]);
    assert_eq!(unbounded.notes.len(), 1, "{:?}", unbounded.notes);
    assert_eq!(
        rows(
            &g,
            "MATCH (x)-[:CALLS*2..3]->(v {name:'validate_card'}) RETURN x.name ORDER BY x.name"
        ),
        json!([["checkout"], ["main"]])
    );
    // Walked from x back to f; the path still lists relationships in pattern order.
    assert_eq!(
        rows(
            &g,
            "MATCH (f:File)-[r:DEFINES|CALLS*2]->(x {name:'checkout'}) RETURN f.name, r"
        ),
        json!([["app.py", ["DEFINES", "CALLS"]]])
    );
}

#[test]
fn gitnexus_relation_style_and_relationship_properties() {
    let g = sample_graph();
    assert_eq!(
        rows(
            &g,
            "MATCH (a)-[r:CodeRelation {type:'CALLS'}]->(b {name:'total'}) RETURN a.name, r.type, r.confidence, r.reason"
        ),
        json!([["checkout", "CALLS", 0.95, "self-method"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (a)-[:CodeRelation {type:'CALLS', confidence: 0.85}]->(b) RETURN a.name, b.name"
        ),
        json!([["charge", "validate_card"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (a)-[r:CALLS]->(b) WHERE r.confidence >= 0.9 AND r.reason <> 'constructor' RETURN b.name ORDER BY r.confidence DESC, b.name"
        ),
        json!([["total"], ["add"], ["charge"], ["checkout"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (a)-[r:CodeRelation]->(b {name:'Cart'}) RETURN type(r) ORDER BY type(r)"
        ),
        json!([
            ["CALLS"],
            ["DEFINES"],
            ["MEMBER_OF"],
            ["MEMBER_OF"],
            ["MEMBER_OF"]
        ])
    );
}

#[test]
fn where_operators() {
    let g = sample_graph();
    let names = |condition: &str| {
        rows(
            &g,
            &format!("MATCH (n) WHERE {condition} RETURN n.name ORDER BY n.name"),
        )
    };
    assert_eq!(
        names("n:Function AND n.start_line >= 4 AND n.end_line <= 20"),
        json!([["charge"], ["main"]])
    );
    assert_eq!(
        names("n:Method AND (n.name = 'add' OR NOT n.start_line > 20)"),
        json!([["add"], ["total"]])
    );
    assert_eq!(
        names("n:Method AND (n.name = 'add' XOR n.start_line < 20)"),
        json!([["total"]])
    );
    assert_eq!(
        names("n.file ENDS WITH 'payment.py' AND n.name STARTS WITH 'va'"),
        json!([["validate_card"]])
    );
    assert_eq!(
        names("n.name CONTAINS 'art'"),
        json!([["Cart"], ["cart.py"]])
    );
    assert_eq!(
        names("n.name IN ['main', 'charge', 'nope']"),
        json!([["charge"], ["main"]])
    );
    assert_eq!(
        names("n:Method|Function AND n.name =~ 'c.*'"),
        json!([["charge"], ["checkout"]])
    );
    assert_eq!(
        names("n.name =~ '(?i)cart.*'"),
        json!([["Cart"], ["cart.py"]])
    );
    assert_eq!(names("n.name =~ 'har'"), json!([]));
    assert_eq!(
        names("n:Class|Function"),
        json!([["Cart"], ["charge"], ["main"], ["validate_card"]])
    );
    assert_eq!(names("n.name <> n.name"), json!([]));
    assert_eq!(names("n.kind = 'Folder'"), json!([["shop"]]));
    assert_eq!(names("n.start_line < 'x'"), json!([]));
}

#[test]
fn null_handling() {
    let g = loop_graph();
    assert_eq!(
        rows(&g, "MATCH (n) WHERE n.signature IS NULL RETURN n.name"),
        json!([["g"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (n) WHERE n.doc IS NOT NULL RETURN n.name, n.doc, n.signature, n.exported"
        ),
        json!([["f", "Recurses.", "def f(n)", true]])
    );
    assert_eq!(
        rows(&g, "MATCH (n) WHERE n.doc = null RETURN n.name"),
        json!([])
    );
    assert_eq!(
        rows(&g, "MATCH (n) WHERE NOT (n.doc = null) RETURN n.name"),
        json!([])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (n) WHERE n.doc IS NULL OR n.name = 'f' RETURN n.name"
        ),
        json!([["f"], ["g"]])
    );
    assert_eq!(
        rows(
            &g,
            "RETURN null IN [1], 1 IN [null, 1], 2 IN [null], 2 IN []"
        ),
        json!([[null, true, null, false]])
    );
}

#[test]
fn self_loops_and_relationship_uniqueness() {
    let g = loop_graph();
    assert_eq!(
        rows(&g, "MATCH (a)-[:CALLS]->(a) RETURN a.name"),
        json!([["f"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (a {name:'f'})-[:CALLS]-(b) RETURN b.name ORDER BY b.name"
        ),
        json!([["f"], ["g"]])
    );
    let s = sample_graph();
    assert_eq!(
        rows(
            &s,
            "MATCH (a {name:'charge'})-[:CALLS]-(b)-[:CALLS]-(c) RETURN c.name ORDER BY c.name"
        ),
        json!([["main"], ["total"]])
    );
}

#[test]
fn node_properties_and_functions() {
    let g = sample_graph();
    let result = query(
        &g,
        "MATCH (n {name:'add'}) RETURN n.id, n.name, n.kind, n.label, n.qualified_name, n.qualifiedName, \
         n.file, n.filePath, n.path, n.start_line, n.startLine, n.end_line, n.endLine, n.signature, n.doc, n.exported, \
         labels(n), id(n), toUpper(n.name), toLower('AbC'), size(n.name), size([1, 2])",
    );
    assert_eq!(
        serde_json::Value::Array(result.rows[0].iter().map(Value::to_json).collect()),
        json!([
            "Method:shop/cart.py:Cart.add",
            "add",
            "Method",
            "Method",
            "Cart.add",
            "Cart.add",
            "shop/cart.py",
            "shop/cart.py",
            "shop/cart.py",
            8,
            8,
            15,
            15,
            null,
            null,
            true,
            ["Method"],
            "Method:shop/cart.py:Cart.add",
            "ADD",
            "abc",
            3,
            2
        ])
    );
    assert_eq!(result.columns[0], "n.id");
    assert_eq!(result.columns[16], "labels(n)");
    assert_eq!(
        rows(&g, "MATCH (n {id:'Class:shop/cart.py:Cart'}) RETURN n.name"),
        json!([["Cart"]])
    );
    assert_eq!(
        rows(&g, "MATCH (n {id:'File:shop/app.py'}) RETURN n.name"),
        json!([["app.py"]])
    );
    assert_eq!(
        rows(&g, "MATCH (n {file:'shop/payment.py'}) RETURN n.name"),
        json!([["payment.py"], ["charge"], ["validate_card"]])
    );
}

#[test]
fn return_shapes() {
    let g = sample_graph();
    let result = query(&g, "MATCH (n:Class) RETURN n AS node, n.name AS name");
    assert_eq!(result.columns, ["node", "name"]);
    assert_eq!(
        result.rows,
        [[
            Value::Str("Class:shop/cart.py:Cart".into()),
            Value::Str("Cart".into())
        ]]
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (f:File)-[:DEFINES]->(s) RETURN DISTINCT f.name ORDER BY f.name DESC"
        ),
        json!([["payment.py"], ["cart.py"], ["app.py"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (f:File)-[:DEFINES]->(s) RETURN DISTINCT f.name LIMIT 2"
        ),
        json!([["app.py"], ["cart.py"]])
    );
    let star = query(
        &g,
        "MATCH (c:Class)<-[r:MEMBER_OF]-(m {name:'add'}) RETURN *",
    );
    assert_eq!(star.columns, ["c", "r", "m"]);
    assert_eq!(
        rows(
            &g,
            "MATCH (n:Method) RETURN n.name ORDER BY n.start_line DESC SKIP 1 LIMIT 1"
        ),
        json!([["total"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (n:Method) RETURN n.name ORDER BY n.file, n.name DESC"
        ),
        json!([["total"], ["checkout"], ["add"]])
    );
    assert_eq!(
        rows_with(
            &g,
            "MATCH (n:Method) RETURN n.name SKIP $s LIMIT $l",
            json!({"s": 1, "l": 1})
        ),
        json!([["total"]])
    );
    assert_eq!(
        rows_with(
            &g,
            "RETURN 1, -2, 2.5, 'x', true, null, [1, 'a'], $p",
            json!({"p": ["q", 1.5]})
        ),
        json!([[1, -2, 2.5, "x", true, null, [1, "a"], ["q", 1.5]]])
    );
}

#[test]
fn aggregation_and_grouping() {
    let g = sample_graph();
    assert_eq!(rows(&g, "MATCH (n:Method) RETURN count(*)"), json!([[3]]));
    assert_eq!(
        rows(&g, "MATCH (n:Process) RETURN count(*), collect(n.name)"),
        json!([[0, []]])
    );
    assert_eq!(
        rows(&g, "MATCH (n:Process) RETURN n.name, count(*)"),
        json!([])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (a)-[:CALLS]->(b) RETURN count(DISTINCT a) AS callers, count(*) AS calls, count(b)"
        ),
        json!([[3, 6, 6]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (c:Class)<-[:MEMBER_OF]-(m) RETURN c.name, collect(m.name)"
        ),
        json!([["Cart", ["add", "total", "checkout"]]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (a)-[:CALLS]->(b) RETURN a.name AS caller, count(*) AS n ORDER BY n DESC, caller"
        ),
        json!([["main", 3], ["checkout", 2], ["charge", 1]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (a)-[:CALLS]->(b) RETURN a.name, count(*) ORDER BY count(*) LIMIT 1"
        ),
        json!([["charge", 1]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (n:Method) RETURN min(n.start_line), max(n.end_line), sum(n.start_line), avg(n.start_line), collect(DISTINCT n.file)"
        ),
        json!([[8, 38, 51, 17.0, ["shop/cart.py"]]])
    );
    let sum = query(&g, "MATCH (a)-[r:CALLS]->(b) RETURN sum(r.confidence)");
    assert!(
        matches!(sum.rows[0][0], Value::Float(x) if (x - 5.4).abs() < 1e-9),
        "{sum:?}"
    );
}

#[test]
fn multiple_patterns_and_clauses() {
    let g = sample_graph();
    assert_eq!(
        rows(
            &g,
            "MATCH (a:Function {name:'main'})-[:CALLS]->(m:Method), (m)-[:MEMBER_OF]->(c:Class) RETURN m.name, c.name ORDER BY m.name"
        ),
        json!([["add", "Cart"], ["checkout", "Cart"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (f:File {name:'cart.py'}) MATCH (f)-[:IMPORTS]->(g) RETURN g.name"
        ),
        json!([["payment.py"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (f:Function) OPTIONAL MATCH (f)<-[:CALLS]-(c) RETURN f.name, c.name ORDER BY f.name"
        ),
        json!([
            ["charge", "checkout"],
            ["main", null],
            ["validate_card", "charge"]
        ])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (f:Function) OPTIONAL MATCH (f)<-[:CALLS]-(c) WHERE c.name = 'nobody' RETURN f.name, count(c) ORDER BY f.name"
        ),
        json!([["charge", 0], ["main", 0], ["validate_card", 0]])
    );
    assert_eq!(
        rows(&g, "OPTIONAL MATCH (n:Process) RETURN n"),
        json!([[null]])
    );
    assert_eq!(
        rows(&g, "MATCH (a:Class), (b:Folder) RETURN a.name, b.name"),
        json!([["Cart", "shop"]])
    );
}

#[test]
fn parameters_feed_patterns_and_conditions() {
    let g = sample_graph();
    assert_eq!(
        rows_with(
            &g,
            "MATCH (a)-[:CALLS]->(b {name: $name}) WHERE a.file = $file RETURN a.name",
            json!({"name": "charge", "file": "shop/cart.py"})
        ),
        json!([["checkout"]])
    );
    assert_eq!(
        rows_with(
            &g,
            "MATCH (n) WHERE n.id IN $ids RETURN n.name ORDER BY n.name",
            json!({"ids": ["Function:shop/app.py:main", "File:shop/cart.py", "Nope:x"]})
        ),
        json!([["cart.py"], ["main"]])
    );
}

#[test]
fn row_cap_and_limit() {
    let g = sample_graph();
    let capped = run(&g, "MATCH (n) RETURN n.name", &Map::new(), 3).unwrap();
    assert_eq!(capped.rows.len(), 3);
    assert_eq!(capped.total_rows, 11);
    assert!(capped.truncated);
    let limited = run(&g, "MATCH (n) RETURN n.name LIMIT 2", &Map::new(), 3).unwrap();
    assert_eq!(
        (limited.rows.len(), limited.total_rows, limited.truncated),
        (2, 2, false)
    );
    let ordered = run(
        &g,
        "MATCH (n) RETURN n.name ORDER BY n.name LIMIT 5",
        &Map::new(),
        2,
    )
    .unwrap();
    assert_eq!(
        (ordered.rows.len(), ordered.total_rows, ordered.truncated),
        (2, 5, true)
    );
    assert_eq!(ordered.rows[0], [Value::Str("Cart".into())]);
    let none = run(&g, "MATCH (n) RETURN n.name LIMIT 0", &Map::new(), 3).unwrap();
    assert_eq!((none.rows.len(), none.total_rows), (0, 0));
}

#[test]
fn planner_starts_at_the_selective_node() {
    let g = sample_graph();
    // From `b` (found by name) the match costs 4 units; a scan from `a` would cost more than 11.
    let cheap = |text: &str| run_with_budget(&g, text, &Map::new(), 10, 5, &|| false);
    assert!(cheap("MATCH (a)-[:CALLS]->(b {name:'charge'}) RETURN a.id").is_ok());
    assert!(cheap("MATCH (a)-[:CALLS]->(b) WHERE b.name = 'charge' RETURN a.id").is_ok());
    assert!(
        cheap("MATCH (a)-[:CALLS]->(b {id:'Function:shop/payment.py:charge'}) RETURN a.id").is_ok()
    );
    assert!(cheap("MATCH (a)-[:CALLS]->(b) WHERE b.name IN ['charge'] RETURN a.id").is_ok());
    let scan = cheap("MATCH (a)-[:CALLS]->(b) RETURN a.id").unwrap_err();
    assert!(scan.message.contains("budget"), "{}", scan.message);
}

#[test]
fn work_budget_stops_runaway_queries() {
    let g = sample_graph();
    let err = run_with_budget(
        &g,
        "MATCH (a)--(b)--(c)--(d) RETURN count(*)",
        &Map::new(),
        10,
        50,
        &|| false,
    )
    .unwrap_err();
    assert!(err.message.contains("50 units of work"), "{}", err.message);
    assert!(err.message.contains("LIMIT"));
}

#[test]
fn a_stop_ends_a_long_query_early() {
    let g = sample_graph();
    let query = "MATCH (a)--(b)--(c)--(d)--(e)--(f)--(g) RETURN count(*)";
    let asked = std::cell::Cell::new(0u32);
    let stop = || {
        asked.set(asked.get() + 1);
        true
    };
    let err = run_with_budget(&g, query, &Map::new(), 10, u64::MAX, &stop).unwrap_err();
    assert!(
        err.message.contains("cancelled after 4096 units"),
        "{}",
        err.message
    );
    assert_eq!(asked.get(), 1);
    assert!(run_with_budget(&g, query, &Map::new(), 10, u64::MAX, &|| false).is_ok());
}

#[test]
fn real_python_code() {
    let files = [
        (
            "pkg/models.py",
            "class Base:\n    def save(self):\n        return self.validate()\n\n    def validate(self):\n        return True\n\n\nclass User(Base):\n    def greet(self):\n        return helper(self)\n\n\ndef helper(user):\n    return user.save()\n",
        ),
        (
            "pkg/views.py",
            "from pkg.models import User, helper\n\n\ndef show():\n    u = User()\n    return helper(u)\n",
        ),
    ]
    .iter()
    .map(|(path, text)| SourceFile {
        path: (*path).into(),
        bytes: text.as_bytes().to_vec(),
    })
    .collect();
    let (g, _) = index("py", files, &|| 0.0, &mut |_, _, _| true).unwrap();
    assert_eq!(
        rows(
            &g,
            "MATCH (a)-[:CALLS]->(b {name:'helper'}) RETURN a.id ORDER BY a.id"
        ),
        json!([
            ["Function:pkg/views.py:show"],
            ["Method:pkg/models.py:User.greet"]
        ])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (c:Class)-[:EXTENDS]->(p:Class) RETURN c.name, p.name"
        ),
        json!([["User", "Base"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (s {name:'show'})-[:CALLS*1..3]->(x:Method) RETURN DISTINCT x.qualified_name ORDER BY x.qualified_name"
        ),
        json!([["Base.save"], ["Base.validate"]])
    );
    assert_eq!(
        rows(
            &g,
            "MATCH (f:File)-[:IMPORTS]->(t:File) RETURN f.path, t.path"
        ),
        json!([["pkg/views.py", "pkg/models.py"]])
    );
}

#[test]
fn errors_name_the_problem_and_the_choices() {
    let g = sample_graph();
    for (text, needles) in [
        (
            "MATCH (a:Funtion) RETURN a",
            &["unknown label Funtion", "Function, Method"][..],
        ),
        (
            "MATCH (a)-[:CALL]->(b) RETURN a",
            &["unknown relationship type CALL", "CALLS", "CodeRelation"],
        ),
        (
            "MATCH (a)-[:CodeRelation {type:'CALL'}]->(b) RETURN a",
            &["unknown relationship type CALL"],
        ),
        (
            "MATCH (a) RETURN a.size",
            &["unknown node property size", "qualified_name", "start_line"],
        ),
        (
            "MATCH (a)-[r]->(b) RETURN r.weight",
            &["unknown relationship property weight", "confidence"],
        ),
        (
            "MATCH (a) WHERE a.name =~ '(' RETURN a",
            &["invalid regular expression '('"],
        ),
        (
            "MATCH (a) WHERE a.name =~ a.file RETURN a",
            &["=~ takes a string literal or parameter"],
        ),
        (
            "MATCH (a {name: $n}) RETURN a",
            &["missing parameter $n", "no parameters were supplied"],
        ),
        (
            "MATCH (a) RETURN b",
            &["unknown variable b", "variables: a"],
        ),
        (
            "RETURN x",
            &["unknown variable x", "no variables are defined"],
        ),
        (
            "MATCH (a)-[r]->(b)-[r]->(c) RETURN a",
            &["r is already defined"],
        ),
        (
            "MATCH (a)-[r]->(r) RETURN a",
            &["r is a relationship variable"],
        ),
        ("MATCH (a)-[*1..20]->(b) RETURN a", &["at most 10 hops"]),
        ("MATCH (a)-[*11..]->(b) RETURN a", &["at most 10 hops"]),
        (
            "MATCH (a)-[*3..2]->(b) RETURN a",
            &["minimum is above the maximum"],
        ),
        (
            "MATCH (a) WHERE count(*) > 1 RETURN a",
            &["count() must be a whole RETURN item"],
        ),
        (
            "MATCH (a) RETURN size(collect(a))",
            &["collect() must be a whole RETURN item"],
        ),
        (
            "MATCH (a) RETURN DISTINCT a.name ORDER BY a.file",
            &["ORDER BY must name a returned column: a.name"],
        ),
        (
            "MATCH (a) RETURN a.name, a.name",
            &["column a.name appears twice"],
        ),
        (
            "MATCH (a)-[r*1..2]->(b) RETURN r.confidence",
            &["variable-length relationship", "RETURN r"],
        ),
        (
            "MATCH (a)-[r*1..2]->(b) RETURN type(r)",
            &["type() does not apply here"],
        ),
        (
            "MATCH (a)-[r]->(b) RETURN labels(r)",
            &["labels() does not apply here"],
        ),
        (
            "MATCH (a)-[r]->(b) WHERE r:Function RETURN a",
            &["label tests apply to nodes"],
        ),
        (
            "MATCH (a) RETURN coalesce(a.name)",
            &["unknown function coalesce", "toLower"],
        ),
        (
            "MATCH (a) RETURN toLower(DISTINCT a.name)",
            &["DISTINCT is allowed only inside aggregate"],
        ),
        (
            "MATCH (a) RETURN toLower(a.name, 1)",
            &["toLower() takes one argument"],
        ),
        (
            "MATCH (a) RETURN count(a, a)",
            &["count() takes one argument"],
        ),
        (
            "MATCH (a) RETURN a LIMIT -1",
            &["LIMIT takes a non-negative integer"],
        ),
        (
            "MATCH (a) RETURN a SKIP 'x'",
            &["SKIP takes a non-negative integer"],
        ),
        (
            "MATCH (a)-[{type: 1}]->(b) RETURN a",
            &["type property takes a string"],
        ),
        (
            "MATCH (a)-[{confidence: a.name}]->(b) RETURN a",
            &["literals or parameters"],
        ),
        ("MATCH (a) RETURN *, a", &["column a appears twice"]),
        (
            "MATCH () RETURN *",
            &["RETURN * needs at least one named variable"],
        ),
        (
            "CREATE (a:Function {name: 'x'})",
            &["Nexus's Cypher is read-only", "CREATE", "supported: MATCH"],
        ),
        ("MATCH (a) DELETE a", &["read-only", "DELETE"]),
        (
            "MATCH (a) RETURN a UNION MATCH (b) RETURN b",
            &[
                "unsupported clause UNION",
                "supported: MATCH, OPTIONAL MATCH, WHERE, RETURN, ORDER BY, SKIP, LIMIT",
            ],
        ),
    ] {
        let e = error(&g, text);
        for needle in needles {
            assert!(e.message.contains(needle), "{text}: {}", e.message);
        }
    }
    let map = error_with(&g, "RETURN $m", json!({"m": {"a": 1}}));
    assert!(
        map.message.contains("parameter $m: map values"),
        "{}",
        map.message
    );
    let other = error_with(&g, "RETURN $m", json!({"x": 1}));
    assert!(other.message.contains("supplied: x"), "{}", other.message);
    let long = error(&g, &format!("RETURN '{}'", "x".repeat(70_000)));
    assert!(long.message.contains("longer than"));
}

#[test]
fn error_positions_count_characters() {
    let g = sample_graph();
    let e = error(&g, "MATCH (é:Funtion) RETURN é");
    assert_eq!(e.position, Some(9));
    assert_eq!(e.to_string(), format!("{} (at character 9)", e.message));
}
