//! A batch of files changed on disk as the engine applies it: the bridge's archive of the new
//! contents, the paths announced as changed (absent from the archive: gone) and those removed.

use js_sys::ArrayBuffer;
use nexus_engine::{FileChange, ZipPaths, read_zip_from};

use super::js_reader::JsBufferReader;

/// The changes of one batch: every announced file the archive holds is written, an announced
/// file it lacks (gone again, now a secret or over the cap) and every removed one are taken out.
/// Files in the archive that were not announced are ignored.
pub fn changes_from_zip(
    zip: &ArrayBuffer,
    changed: &[String],
    removed: &[String],
) -> Result<Vec<FileChange>, String> {
    let written = if zip.byte_length() == 0 {
        Vec::new()
    } else {
        read_zip_from(JsBufferReader::new(zip), ZipPaths::AsWritten)
            .map_err(|err| format!("the changed files did not arrive whole: {err}"))?
            .0
    };
    let wanted: std::collections::HashSet<&str> = changed.iter().map(String::as_str).collect();
    let mut arrived = std::collections::HashSet::new();
    let mut changes: Vec<FileChange> = Vec::with_capacity(changed.len() + removed.len());
    for file in written {
        if wanted.contains(file.path.as_str()) {
            arrived.insert(file.path.clone());
            changes.push(FileChange::Write(file));
        }
    }
    changes.extend(
        changed
            .iter()
            .filter(|p| !arrived.contains(*p))
            .chain(removed)
            .map(|p| FileChange::Remove(p.clone())),
    );
    Ok(changes)
}

#[cfg(all(test, target_arch = "wasm32"))]
mod wasm_tests;
