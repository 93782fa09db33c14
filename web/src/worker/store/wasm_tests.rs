//! Browser tests of the snapshot store: real IndexedDB in headless Chromium, the rotation of
//! current and previous snapshots, the log's lifetime and Blob reads in steps.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::Blob;

use super::{READ_STEP, Slot, SnapshotStore, bytes_of};

wasm_bindgen_test_configure!(run_in_browser);

fn blob(bytes: &[u8]) -> Blob {
    let parts = Array::of1(&Uint8Array::from(bytes));
    Blob::new_with_u8_array_sequence(&parts).expect("a Blob from bytes")
}

/// A project name no other test uses, so tests sharing the one database stay apart.
fn project(test: &str) -> String {
    format!("{test}-{}", js_sys::Math::random())
}

#[wasm_bindgen_test]
async fn a_save_keeps_the_replaced_snapshot_as_previous_and_drops_the_log() {
    let store = SnapshotStore::open().await.expect("open");
    let p = project("rotate");
    assert_eq!(store.load(Slot::Current, &p).await.expect("load"), None);

    assert!(
        store
            .save(&p, &blob(b"first"))
            .await
            .expect("save")
            .is_none()
    );
    store.save_log(&p, b"log of first").await.expect("log");
    assert_eq!(
        store.load(Slot::Log, &p).await.expect("load").as_deref(),
        Some(&b"log of first"[..])
    );

    let replaced = store.save(&p, &blob(b"second")).await.expect("save");
    let replaced = replaced.expect("the first snapshot is handed back");
    assert_eq!(bytes_of(&replaced).await.expect("read"), b"first");
    assert_eq!(
        store
            .load(Slot::Current, &p)
            .await
            .expect("load")
            .as_deref(),
        Some(&b"second"[..])
    );
    assert_eq!(
        store
            .load(Slot::Previous, &p)
            .await
            .expect("load")
            .as_deref(),
        Some(&b"first"[..])
    );
    assert_eq!(
        store.load(Slot::Log, &p).await.expect("load"),
        None,
        "a log belongs to the snapshot it followed"
    );
    assert_eq!(store.last_project().await.expect("last"), Some(p));
}

#[wasm_bindgen_test]
async fn slots_and_projects_do_not_mix_and_survive_a_reopen() {
    let (a, b) = (project("mix-a"), project("mix-b"));
    {
        let store = SnapshotStore::open().await.expect("open");
        store.save(&a, &blob(b"graph a")).await.expect("save a");
        store
            .save_previous_print(&a, b"print a")
            .await
            .expect("print");
        store
            .save_vectors(&a, &blob(b"vectors a"))
            .await
            .expect("vectors");
        store.save(&b, &blob(b"graph b")).await.expect("save b");
    }
    // A reload opens the database again.
    let store = SnapshotStore::open().await.expect("reopen");
    let load = |slot, p: &str| {
        let p = p.to_owned();
        let store = &store;
        async move { store.load(slot, &p).await.expect("load") }
    };
    assert_eq!(
        load(Slot::Current, &a).await.as_deref(),
        Some(&b"graph a"[..])
    );
    assert_eq!(
        load(Slot::PreviousPrint, &a).await.as_deref(),
        Some(&b"print a"[..])
    );
    assert_eq!(
        load(Slot::Vectors, &a).await.as_deref(),
        Some(&b"vectors a"[..])
    );
    assert_eq!(
        load(Slot::Current, &b).await.as_deref(),
        Some(&b"graph b"[..])
    );
    assert_eq!(load(Slot::Vectors, &b).await, None);
    assert_eq!(load(Slot::Previous, &b).await, None);
    assert_eq!(store.last_project().await.expect("last"), Some(b));
}

#[wasm_bindgen_test]
async fn a_blob_larger_than_one_read_step_comes_back_whole() {
    let size = (READ_STEP as usize) * 2 + 12_345;
    let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    assert_eq!(bytes_of(&blob(&bytes).into()).await.expect("read"), bytes);

    let store = SnapshotStore::open().await.expect("open");
    let p = project("large");
    store.save(&p, &blob(&bytes)).await.expect("save");
    let loaded = store.load(Slot::Current, &p).await.expect("load");
    assert_eq!(loaded.map(|l| l.len()), Some(size));
}

#[wasm_bindgen_test]
async fn stored_bytes_read_back_and_other_values_are_refused() {
    let bytes = JsValue::from(Uint8Array::from(&b"older snapshots were bytes"[..]));
    assert_eq!(
        bytes_of(&bytes).await.expect("read"),
        b"older snapshots were bytes"
    );
    let err = bytes_of(&JsValue::from_str("not a snapshot"))
        .await
        .expect_err("a string is no snapshot");
    assert!(err.contains("neither a Blob nor bytes"), "{err}");
}
