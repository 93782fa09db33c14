//! Tests of the rules language: parsing, errors with line and column, joins, recursion,
//! negation across strata, and that no text makes the parser or the evaluator panic.

use super::*;

fn eval(text: &str, facts: &[(&str, Vec<Value>)]) -> Database {
    let program = match Program::parse(text) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let mut db = program.database();
    for (p, row) in facts {
        db.insert(p, row.clone());
    }
    program.evaluate(&mut db);
    db
}

fn s(x: &str) -> Value {
    Value::str(x)
}

#[test]
fn rules_join_facts_and_negate() {
    let db = eval(
        r#"
        # a table and a rule over it
        wants("calls", code_graph).
        boost(T, 40, "intent") :- intent(I), wants(I, C), category(T, C), !offline(T).
        skeleton(T) :- configured_skeleton(T), tool(T).
        "#,
        &[
            ("intent", vec![s("calls")]),
            ("category", vec![s("nexus:impact"), s("code_graph")]),
            ("category", vec![s("fs:read"), s("filesystem")]),
            ("category", vec![s("old:x"), s("code_graph")]),
            ("offline", vec![s("old:x")]),
            ("tool", vec![s("nexus:read")]),
            ("configured_skeleton", vec![s("nexus:read")]),
            ("configured_skeleton", vec![s("nexus:gone")]),
        ],
    );
    assert_eq!(
        db.rows("boost"),
        [vec![s("nexus:impact"), Value::Int(40), s("intent")]]
    );
    assert_eq!(db.rows("skeleton"), [vec![s("nexus:read")]]);
}

#[test]
fn recursion_reaches_a_fixpoint_and_comparisons_filter() {
    let db = eval(
        "path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\nloop(X) :- path(X, Y), X = Y.\nout(X, Y) :- path(X, Y), X != Y.",
        &[
            ("edge", vec![s("a"), s("b")]),
            ("edge", vec![s("b"), s("c")]),
            ("edge", vec![s("c"), s("a")]),
        ],
    );
    assert_eq!(db.rows("path").len(), 9);
    assert_eq!(db.rows("loop").len(), 3);
    assert_eq!(db.rows("out").len(), 6);
}

#[test]
fn negation_waits_for_the_lower_stratum() {
    // `lonely` is written before `linked` is derived; strata still order them.
    let db = eval(
        "lonely(T) :- tool(T), !linked(T).\nlinked(T) :- used(T).",
        &[
            ("tool", vec![s("a")]),
            ("tool", vec![s("b")]),
            ("used", vec![s("a")]),
        ],
    );
    assert_eq!(db.rows("lonely"), [vec![s("b")]]);
}

#[test]
fn errors_name_line_and_column() {
    let cases = [
        (
            "boost(T, 1, \"x\") :- tool(T)\n",
            2,
            1,
            "expected ',' or '.'",
        ),
        (
            "ok(X) :- tool(X).\nbad(X) :- tool(Y).",
            2,
            1,
            "variable X of the head",
        ),
        ("a(X) :- tool(X), !b(X, Z).", 1, 18, "variable Z"),
        (
            "tool(X, Y) :- word(X), word(Y).",
            1,
            1,
            "'tool' takes 1 argument(s) elsewhere",
        ),
        ("a(X) :- word(X), X ? 1.", 1, 20, "unexpected character '?'"),
        ("a(\"open", 1, 3, "string not closed"),
        ("p(X) :- tool(X), !p(X).", 1, 1, "its own negation"),
        ("a(_) :- tool(_).", 1, 1, "a head cannot hold '_'"),
    ];
    for (text, line, column, message) in cases {
        match Program::parse(text) {
            Ok(_) => panic!("{text:?} parsed"),
            Err(e) => {
                assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
                assert!(e.message.contains(message), "{text:?}: {e}");
            }
        }
    }
}

#[test]
fn the_default_rules_parse() {
    let program = Program::parse(DEFAULT_RULES);
    assert!(program.as_ref().is_ok_and(|p| !p.is_empty()), "{program:?}");
}

proptest::proptest! {
    #[test]
    fn the_parser_never_panics(text in "\\PC{0,120}") {
        let _ = Program::parse(&text);
    }

    #[test]
    fn near_valid_text_never_panics(text in "[a-zA-Z_(),.:!= \"0-9\\-\n#%]{0,120}") {
        if let Ok(program) = Program::parse(&text) {
            let mut db = program.database();
            db.insert("tool", vec![Value::str("a")]);
            program.evaluate(&mut db);
        }
    }
}
