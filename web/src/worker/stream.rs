//! The bridge's repository in batches: its manifest names every file, batches of them are fetched
//! (`POST /api/repo/files`) one ahead of the parser, and each is filtered and parsed as it arrives.

use std::collections::HashSet;

use js_sys::{ArrayBuffer, Promise};
use serde::Deserialize;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Headers, RequestInit, Response};

use super::js_reader::JsBufferReader;
use super::parse_pool::ParsePool;
use super::protocol::LeftOut;
use super::provider::{bridge_request, to_json, token};
use nexus_engine::{Filtered, ZipPaths, read_zip_from};

/// Bytes of file contents in one batch at most, whatever its file count.
const BATCH_BYTES: u64 = 16 * 1024 * 1024;
/// Chunks this worker leaves queued for the helpers while the next batch arrives.
const LEAVE_FOR_HELPERS: usize = 4;
/// Why a file the manifest named is not in its batch's archive.
const NOT_SENT: &str = "changed, removed or grown past the cap while being sent";

#[derive(Deserialize)]
struct ManifestFile {
    path: String,
    size: u64,
}

#[derive(Deserialize)]
struct Manifest {
    files: Vec<ManifestFile>,
    #[serde(default)]
    left_out: Vec<LeftOut>,
}

/// What the batches brought: the filter's result with every file parsed, what was left out
/// (named by the bridge, or missing from its batch), and each phase's milliseconds.
pub struct Streamed {
    pub filtered: Filtered,
    pub left_out: Vec<LeftOut>,
    pub phases: Vec<(String, f64)>,
}

/// The manifest's paths in sending order (`.gitignore` files first, shallow ones first, so their
/// rules apply to every later batch; then by path), cut into batches of at most `batch_files`
/// files and `BATCH_BYTES` bytes.
fn batches(mut files: Vec<ManifestFile>, batch_files: usize) -> Vec<Vec<String>> {
    let is_rules = |p: &str| p == ".gitignore" || p.ends_with("/.gitignore");
    let key = |f: &ManifestFile| match is_rules(&f.path) {
        true => (0, f.path.matches('/').count()),
        false => (1, 0),
    };
    files.sort_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.path.cmp(&b.path)));
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut bytes = 0u64;
    for file in files {
        let full = out
            .last()
            .is_none_or(|b| b.len() >= batch_files.max(1) || bytes + file.size > BATCH_BYTES);
        if full {
            out.push(Vec::new());
            bytes = 0;
        }
        bytes += file.size;
        if let Some(batch) = out.last_mut() {
            batch.push(file.path);
        }
    }
    out
}

/// Starts fetching one batch (the request runs while the caller parses the one before).
fn start_fetch(token: &str, paths: &[String]) -> Result<Promise, String> {
    let scope = super::runtime::scope().ok_or("not in a worker")?;
    let failed = |e: wasm_bindgen::JsValue| format!("asking the bridge for files: {e:?}");
    let headers = Headers::new().map_err(failed)?;
    headers.set("X-Nexus-Token", token).map_err(failed)?;
    headers
        .set("Content-Type", "application/json")
        .map_err(failed)?;
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    let body = serde_json::json!({ "paths": paths }).to_string();
    init.set_body(&wasm_bindgen::JsValue::from_str(&body));
    Ok(scope.fetch_with_str_and_init("/api/repo/files", &init))
}

/// The archive a started fetch brings.
async fn fetched(request: Promise) -> Result<ArrayBuffer, String> {
    let failed = |e: wasm_bindgen::JsValue| format!("fetching files from the bridge: {e:?}");
    let response: Response = JsFuture::from(request)
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(failed)?;
    if !response.ok() {
        return Err(format!(
            "the bridge answered {} for a batch of files",
            response.status()
        ));
    }
    JsFuture::from(response.array_buffer().map_err(failed)?)
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(failed)
}

/// Fetches the bridge's repository in batches and parses each as it arrives. `progress(phase,
/// done, total)`: `manifest` first, then `transfer and parse` counting files through the filter
/// and, for source files, through parsing, of all the manifest names.
pub async fn fetch_and_parse(
    batch_files: usize,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<Streamed, String> {
    let now = js_sys::Date::now;
    let started = now();
    // The helpers start while the bridge lists the files. The page streams only more files than
    // its threshold and makes batches a tenth of it at most: ten batches' worth is a lower bound.
    let mut parser = ParsePool::start(batch_files.saturating_mul(10), Filtered::streaming());
    progress("manifest", 0, 0);
    // Paths and sizes are all batching needs; the bridge hashes files as it sends them.
    let (status, body) = bridge_request("/api/repo/manifest?hashes=false", None).await?;
    if status != 200 {
        return Err(format!("the bridge answered {status} for its manifest"));
    }
    let manifest: Manifest = serde_json::from_value(to_json(&body))
        .map_err(|err| format!("the bridge's manifest is malformed: {err}"))?;
    let manifest_ms = now() - started;
    let total = manifest.files.len() as u64;
    let mut left_out = manifest.left_out;
    let token = token()
        .await
        .ok_or("no api token to ask the bridge with (the link to the hub is not up)")?;
    let batches = batches(manifest.files, batch_files);
    let (mut wait_ms, mut unzip_ms, mut filter_ms) = (0.0, 0.0, 0.0);
    let mut next = match batches.first() {
        Some(first) => Some(start_fetch(&token, first)?),
        None => None,
    };
    for (i, asked) in batches.iter().enumerate() {
        let Some(request) = next.take() else { break };
        let waited = now();
        let zip = fetched(request).await?;
        wait_ms += now() - waited;
        if let Some(following) = batches.get(i + 1) {
            next = Some(start_fetch(&token, following)?);
        }
        let unzipping = now();
        let (files, _) = read_zip_from(JsBufferReader::new(&zip), ZipPaths::AsWritten)
            .map_err(|err| format!("a batch of files from the bridge: {err}"))?;
        drop(zip);
        unzip_ms += now() - unzipping;
        let received: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
        left_out.extend(
            asked
                .iter()
                .filter(|p| !received.contains(p.as_str()))
                .map(|p| LeftOut {
                    path: p.clone(),
                    why: NOT_SENT.to_owned(),
                }),
        );
        let filtering = now();
        let to_parse = parser.filter(files);
        filter_ms += now() - filtering;
        parser.add(to_parse);
        let seen = parser.files_seen() as u64;
        let mut report = |parsed: usize, queued: usize| {
            let waiting = queued.saturating_sub(parsed) as u64;
            progress("transfer and parse", seen.saturating_sub(waiting), total);
        };
        let (parsed, queued) = parser.counts();
        report(parsed, queued);
        parser.work(LEAVE_FOR_HELPERS, &mut report).await;
    }
    let seen = parser.files_seen() as u64;
    let mut filtered = parser
        .finish(&mut |parsed, queued| {
            let waiting = queued.saturating_sub(parsed) as u64;
            progress("transfer and parse", seen.saturating_sub(waiting), total);
        })
        .await;
    let ended = now();
    filtered.close(filter_ms, ended);
    let phases = vec![
        ("manifest".to_owned(), manifest_ms),
        (
            format!("transfer and parse of {} batches", batches.len()),
            ended - started - manifest_ms,
        ),
        ("waiting for batches".to_owned(), wait_ms),
        ("unzip".to_owned(), unzip_ms),
    ];
    Ok(Streamed {
        filtered,
        left_out,
        phases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, size: u64) -> ManifestFile {
        ManifestFile {
            path: path.to_owned(),
            size,
        }
    }

    #[test]
    fn rules_go_first_and_batches_keep_to_their_count_and_bytes() {
        let files = vec![
            file("b.c", 10),
            file("sub/.gitignore", 1),
            file("a.c", 10),
            file(".gitignore", 1),
            file("big.h", BATCH_BYTES),
            file("c.c", 10),
        ];
        let got = batches(files, 3);
        assert_eq!(
            got,
            [
                vec![".gitignore", "sub/.gitignore", "a.c"],
                vec!["b.c"],
                vec!["big.h"],
                vec!["c.c"],
            ]
        );
        assert_eq!(batches(Vec::new(), 3), Vec::<Vec<String>>::new());
        assert_eq!(batches(vec![file("a", 1), file("b", 1)], 0).len(), 2);
    }
}
