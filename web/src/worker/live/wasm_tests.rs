//! Browser tests of applying changes as the worker does: the bridge's archive read from a JS
//! buffer, the engine's workspace updated in wasm, the result equal to a full index.

use std::io::Write;

use js_sys::{ArrayBuffer, Uint8Array};
use nexus_engine::{FileChange, Graph, SourceFile, Workspace, index_workspace};
use wasm_bindgen_test::*;

use super::changes_from_zip;

wasm_bindgen_test_configure!(run_in_browser);

fn file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: path.to_owned(),
        bytes: text.as_bytes().to_vec(),
    }
}

fn index(files: &[(&str, &str)]) -> (Graph, Workspace) {
    let files = files.iter().map(|(p, t)| file(p, t)).collect();
    let (graph, _, ws) = index_workspace("p", files, &js_sys::Date::now, &mut |_, _, _| true)
        .expect("never cancelled");
    (graph, ws)
}

/// A stored ZIP of `files` in a JS buffer, as the bridge sends changed files.
fn zip_buffer(files: &[(&str, &str)]) -> ArrayBuffer {
    let mut bytes = Vec::new();
    {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        for (path, text) in files {
            writer.start_file(*path, options).expect("entry");
            writer.write_all(text.as_bytes()).expect("write");
        }
        writer.finish().expect("finish");
    }
    Uint8Array::from(bytes.as_slice()).buffer()
}

#[wasm_bindgen_test]
fn a_batch_from_the_bridge_gives_the_graph_of_a_full_index() {
    let (_, mut ws) = index(&[
        ("app/util.py", "def helper():\n    return 1\n"),
        (
            "app/main.py",
            "from app.util import helper\n\ndef main():\n    return helper()\n",
        ),
        ("app/old.py", "def doomed():\n    return 0\n"),
    ]);
    // util.py changed, extra.py is new, gone.py was announced but is gone again, old.py removed.
    let zip = zip_buffer(&[
        (
            "app/util.py",
            "def helper():\n    return 2\n\ndef later():\n    return helper()\n",
        ),
        (
            "app/extra.py",
            "from app.util import later\n\ndef extra():\n    return later()\n",
        ),
        ("app/unasked.py", "def unasked():\n    pass\n"),
    ]);
    let changed = ["app/util.py", "app/extra.py", "app/gone.py"].map(String::from);
    let changes = changes_from_zip(&zip, &changed, &["app/old.py".to_owned()]).expect("reads");
    let writes: Vec<&str> = changes
        .iter()
        .filter(|c| matches!(c, FileChange::Write(_)))
        .map(FileChange::path)
        .collect();
    assert_eq!(
        writes,
        ["app/util.py", "app/extra.py"],
        "paths as written, unasked left out"
    );
    let (graph, applied) = ws
        .apply(changes, &js_sys::Date::now, &mut |_, _, _| true)
        .expect("never cancelled");
    let graph = graph.expect("the graph changed").0;
    assert_eq!(applied.parsed, ["app/extra.py", "app/util.py"]);
    let (full, _) = index(&[
        (
            "app/util.py",
            "def helper():\n    return 2\n\ndef later():\n    return helper()\n",
        ),
        (
            "app/main.py",
            "from app.util import helper\n\ndef main():\n    return helper()\n",
        ),
        (
            "app/extra.py",
            "from app.util import later\n\ndef extra():\n    return later()\n",
        ),
    ]);
    assert_eq!(graph.canonical_dump(), full.canonical_dump());
    assert!(graph.find_id("Function:app/extra.py:extra").is_some());
}

#[wasm_bindgen_test]
fn a_broken_archive_is_a_clear_error_and_an_empty_one_only_removes() {
    let broken = Uint8Array::from(&b"PK\x03\x04 not really"[..]).buffer();
    let err = changes_from_zip(&broken, &["a.py".to_owned()], &[]).unwrap_err();
    assert!(err.contains("did not arrive whole"), "{err}");
    let changes = changes_from_zip(&ArrayBuffer::new(0), &["a.py".to_owned()], &[]).expect("empty");
    assert!(matches!(&changes[..], [FileChange::Remove(p)] if p == "a.py"));
}

#[wasm_bindgen_test]
fn a_one_file_edit_resolves_only_what_reads_it_in_wasm() {
    let before = [
        ("app/util.py", "def helper():\n    return 1\n"),
        (
            "app/main.py",
            "from app.util import helper\n\ndef main():\n    return helper()\n",
        ),
        ("app/other.py", "def alone():\n    return 0\n"),
    ];
    let (_, mut ws) = index(&before);
    let edited = "def alone():\n    return 0\n\ndef added():\n    return alone()\n";
    let (graph, applied) = ws
        .apply(
            vec![FileChange::Write(file("app/other.py", edited))],
            &js_sys::Date::now,
            &mut |_, _, _| true,
        )
        .expect("never cancelled");
    let graph = graph.expect("the graph changed").0;
    assert_eq!(
        applied.resolved, 1,
        "only the edited file is resolved again"
    );
    let (full, _) = index(&[before[0], before[1], ("app/other.py", edited)]);
    assert_eq!(graph.canonical_dump(), full.canonical_dump());
}
