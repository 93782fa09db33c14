//! Browser tests of the compressed text store as the worker uses it: files parsed into a
//! `Filtered`, their texts read back by `read` and `grep`, and through a snapshot in wasm.

use nexus_engine::{
    Filtered, PAGE_BYTES, SearchIndex, SourceFile, filter_files, finish_workspace, snapshot,
};
use nexus_shared::Outcome;
use nexus_tools::{ToolContext, ToolMemory, dispatch};
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A C-like file whose lines differ from every other file's: a few functions under a long
/// comment (texts of kernel-like size at little parsing, which a debug build in the page's main
/// thread must finish within the test driver's 10 s per request).
fn c_file(n: usize) -> SourceFile {
    let mut text = format!("#include \"common.h\"\n\nstatic int counter_{n};\n\n/*\n");
    for k in 0..40 {
        text.push_str(&format!(
            " * counter_{n}, line {k}: what the steps below add up and when it is reset.\n"
        ));
    }
    text.push_str(" */\n\n");
    for k in 0..8 {
        text.push_str(&format!(
            "int step_{n}_{k}(int value)\n{{\n\tcounter_{n} += value * {k};\n\treturn counter_{n};\n}}\n\n"
        ));
    }
    SourceFile {
        path: format!("drivers/part{}/file{n}.c", n % 17),
        bytes: text.into_bytes(),
    }
}

fn parsed_project(files: usize) -> Filtered {
    let mut filtered = filter_files((0..files).map(c_file).collect(), &js_sys::Date::now);
    let to_parse = std::mem::take(&mut filtered.to_parse);
    for parsed in nexus_engine::parse_files(to_parse) {
        filtered.take_parsed(parsed);
    }
    filtered
}

fn text_of(outcome: Outcome) -> String {
    match outcome {
        Outcome::Ok(out) => out.text,
        Outcome::Err(err) => panic!("tool error: {err:?}"),
    }
}

#[wasm_bindgen_test]
fn parsed_texts_are_kept_compressed_and_read_back_whole() {
    let (graph, _, ws) = finish_workspace(
        "kernelish",
        parsed_project(400),
        Vec::new(),
        &js_sys::Date::now,
        &mut |_, _, _| true,
    )
    .expect("never cancelled");
    let sources = ws.sources();
    assert_eq!(sources.len(), 400);
    assert!(
        sources.raw_bytes() > 4 * PAGE_BYTES,
        "{}",
        sources.raw_bytes()
    );
    assert!(
        sources.packed_bytes() * 3 < sources.raw_bytes(),
        "{} packed of {}",
        sources.packed_bytes(),
        sources.raw_bytes()
    );
    for n in [0, 7, 199, 399] {
        let file = c_file(n);
        let text = sources.get(&file.path).expect("kept");
        assert_eq!(text.as_bytes(), file.bytes.as_slice());
    }

    let search = SearchIndex::build(&graph);
    let memory = ToolMemory::default();
    let ctx = ToolContext {
        graph: &graph,
        search: &search,
        sources,
        previous: None,
        working_changes: None,
        changed_ms: None,
        memory: &memory,
        now_ms: 0.0,
        clock: js_sys::Date::now,
        session: None,
        cancelled: || false,
    };
    let read = text_of(dispatch(
        Some(&ctx),
        "read",
        json!({"path": "drivers/part3/file3.c"}),
    ));
    assert!(read.contains("counter_3 += value * 7;"), "{read}");
    let found = text_of(dispatch(
        Some(&ctx),
        "grep",
        json!({"pattern": "counter_251 \\+= value \\* 5;"}),
    ));
    assert!(found.contains("1 matches in 1 files"), "{found}");
    assert!(found.contains("drivers/part13/file251.c:"), "{found}");
}

#[wasm_bindgen_test]
fn a_snapshot_keeps_the_pages_and_reads_back_the_same_texts() {
    let (graph, _, ws) = finish_workspace(
        "kernelish",
        parsed_project(120),
        Vec::new(),
        &js_sys::Date::now,
        &mut |_, _, _| true,
    )
    .expect("never cancelled");
    let blob = snapshot::encode(&graph, &ws, 1.0).expect("encodes");
    let back = snapshot::decode(&blob).expect("decodes");
    let restored = back.workspace.sources();
    assert_eq!(restored, ws.sources());
    assert_eq!(restored.packed_bytes(), ws.sources().packed_bytes());
    let file = c_file(77);
    let text = restored.get(&file.path).expect("kept");
    assert_eq!(text.as_bytes(), file.bytes.as_slice());
}
