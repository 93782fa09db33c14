//! Loading a repository: pick or drop a ZIP or a folder, take the bridge's `--repo` (served as a
//! ZIP), or the built-in sample. Every source ends as source files handed to the engine.

use std::rc::Rc;

use js_sys::Array;
use js_sys::ArrayBuffer;
use js_sys::Uint8Array;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    DragEvent, File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry,
    HtmlInputElement,
};

use nexus_engine::Filter;

/// A repository read by the page, ready for the engine worker. Contents stay in JS buffers
/// (moved to the worker, never copied into the page's wasm memory, which could not shrink after).
pub enum Source {
    Zip(String, ArrayBuffer),
    /// The bridge's archive of the repository it serves: paths as written.
    Served(String, ArrayBuffer),
    /// (path, content) pairs.
    Files(String, Vec<(String, ArrayBuffer)>),
    /// The bridge's repository, too large for one archive: the worker fetches it in batches of
    /// this many files.
    Batches(String, usize),
}

/// Receives a source to index.
pub type FilesHandler = Rc<dyn Fn(Source)>;

/// Reports a failure to load, in words for the user.
pub type ErrorHandler = Rc<dyn Fn(String)>;

async fn file_bytes(file: &File) -> Result<ArrayBuffer, String> {
    JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("cannot read {}: {e:?}", file.name()))?
        .dyn_into::<ArrayBuffer>()
        .map_err(|_| format!("cannot read {}: not a buffer", file.name()))
}

fn stem(name: &str) -> String {
    name.rsplit_once('.').map_or(name, |(s, _)| s).to_owned()
}

/// Reads a ZIP file the user picked or dropped; the worker unpacks it.
pub async fn load_zip(file: File, on_files: FilesHandler, on_error: ErrorHandler) {
    match file_bytes(&file).await {
        Ok(bytes) => on_files(Source::Zip(stem(&file.name()), bytes)),
        Err(err) => on_error(err),
    }
}

/// Reads the files of a picked folder, skipping excluded folders, secrets and what its
/// `.gitignore` files name before reading them.
pub async fn load_folder(list: Vec<File>, on_files: FilesHandler, on_error: ErrorHandler) {
    let listed = list
        .into_iter()
        .map(|file| {
            let relative = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_else(|| file.name());
            (relative, file)
        })
        .collect();
    load_listed(listed, on_files, on_error).await;
}

fn is_gitignore(path: &str) -> bool {
    path == ".gitignore" || path.ends_with("/.gitignore")
}

/// The part of a listed path below the project's folder (its first part).
fn below_root(listed: &str) -> &str {
    listed.split_once('/').map_or(listed, |(_, path)| path)
}

/// Calls a callback-style browser API and waits for its success or error callback.
async fn promised(
    call: impl FnOnce(&js_sys::Function, &js_sys::Function),
) -> Result<JsValue, String> {
    let mut call = Some(call);
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        if let Some(call) = call.take() {
            call(&resolve, &reject);
        }
    });
    JsFuture::from(promise)
        .await
        .map_err(|e| format!("cannot read the dropped folder: {e:?}"))
}

/// Every entry of a dropped folder (the entries API hands them out in batches).
async fn entries_of(folder: &FileSystemDirectoryEntry) -> Result<Vec<FileSystemEntry>, String> {
    let reader = folder.create_reader();
    let mut entries = Vec::new();
    loop {
        let batch = promised(|ok, err| {
            let _ = reader.read_entries_with_callback_and_callback(ok, err);
        })
        .await?;
        let batch: Array = batch.dyn_into().unwrap_or_default();
        if batch.length() == 0 {
            return Ok(entries);
        }
        entries.extend(
            batch
                .iter()
                .filter_map(|entry| entry.dyn_into::<FileSystemEntry>().ok()),
        );
    }
}

async fn entry_file(entry: FileSystemEntry) -> Result<Option<File>, String> {
    let Ok(file) = entry.dyn_into::<FileSystemFileEntry>() else {
        return Ok(None);
    };
    let file = promised(|ok, err| file.file_with_callback_and_callback(ok, err))
        .await?
        .dyn_into::<File>()
        .map_err(|_| "a dropped entry is not a file".to_owned())?;
    Ok(Some(file))
}

/// Reads a dropped folder through the file system entries API. Each folder's `.gitignore` is
/// read before the rest of it, so ignored and excluded folders are never entered and ignored
/// files never listed; then like a picked folder.
pub async fn load_dropped_folder(
    root: FileSystemDirectoryEntry,
    on_files: FilesHandler,
    on_error: ErrorHandler,
) {
    let result = async {
        let mut filter = Filter::new(std::iter::empty(), usize::MAX);
        let mut folders = vec![root];
        let mut listed = Vec::new();
        while let Some(folder) = folders.pop() {
            let entries = entries_of(&folder).await?;
            let (rules, rest): (Vec<_>, Vec<_>) = entries
                .into_iter()
                .partition(|e| e.is_file() && e.name() == ".gitignore");
            for entry in rules.into_iter().chain(rest) {
                let path = entry.full_path().trim_start_matches('/').to_owned();
                let relative = below_root(&path);
                if entry.is_directory() {
                    if filter.check_dir(relative).is_ok()
                        && let Ok(dir) = entry.dyn_into::<FileSystemDirectoryEntry>()
                    {
                        folders.push(dir);
                    }
                } else if filter.check_path(relative).is_ok()
                    && let Some(file) = entry_file(entry).await?
                {
                    if is_gitignore(relative) {
                        let bytes = file_bytes(&file).await?;
                        filter.add_gitignore(relative, &Uint8Array::new(&bytes).to_vec());
                    }
                    listed.push((path, file));
                }
            }
        }
        Ok::<_, String>(listed)
    }
    .await;
    match result {
        Ok(listed) => load_listed(listed, on_files, on_error).await,
        Err(err) => on_error(err),
    }
}

/// Loads what was dropped on the page: a folder or a ZIP archive.
pub fn dropped(event: DragEvent, ok: FilesHandler, err: ErrorHandler) {
    event.prevent_default();
    let item = event
        .data_transfer()
        .map(|d| d.items())
        .and_then(|items| items.get(0));
    let entry = item
        .as_ref()
        .and_then(|i| i.webkit_get_as_entry().ok().flatten());
    if let Some(folder) = entry
        .filter(FileSystemEntry::is_directory)
        .and_then(|e| e.dyn_into::<FileSystemDirectoryEntry>().ok())
    {
        return wasm_bindgen_futures::spawn_local(load_dropped_folder(folder, ok, err));
    }
    match item.and_then(|i| i.get_as_file().ok().flatten()) {
        Some(file) if file.name().to_ascii_lowercase().ends_with(".zip") => {
            wasm_bindgen_futures::spawn_local(load_zip(file, ok, err));
        }
        _ => err("drop a folder or a ZIP archive here".into()),
    }
}

/// Reads (path, file) pairs whose first path part is the project's folder. The `.gitignore`
/// files are read first: nothing they name, no secret and nothing in an excluded folder is read.
async fn load_listed(list: Vec<(String, File)>, on_files: FilesHandler, on_error: ErrorHandler) {
    let project = list
        .first()
        .and_then(|(listed, _)| listed.split_once('/'))
        .map_or_else(|| "folder".to_owned(), |(root, _)| root.to_owned());
    let mut filter = Filter::new(std::iter::empty(), usize::MAX);
    let mut files = Vec::new();
    // Shallow rules first, so a `.gitignore` inside an ignored folder is never read.
    let (mut rules, rest): (Vec<_>, Vec<_>) = list
        .into_iter()
        .partition(|(listed, _)| is_gitignore(below_root(listed)));
    rules.sort_by_key(|(listed, _)| listed.matches('/').count());
    for (listed, file) in rules {
        let path = below_root(&listed);
        if filter.check_path(path).is_err() {
            continue;
        }
        match file_bytes(&file).await {
            Ok(bytes) => {
                filter.add_gitignore(path, &Uint8Array::new(&bytes).to_vec());
                files.push((path.to_owned(), bytes));
            }
            Err(err) => return on_error(err),
        }
    }
    for (listed, file) in rest {
        let path = below_root(&listed);
        if filter.check_path(path).is_err() {
            continue;
        }
        match file_bytes(&file).await {
            Ok(bytes) => files.push((path.to_owned(), bytes)),
            Err(err) => return on_error(err),
        }
    }
    if files.is_empty() {
        return on_error("the folder has no files Nexus can read".into());
    }
    on_files(Source::Files(project, files));
}

/// Asks the bridge whether it serves a repository: its name and what `/api/repo` says of it
/// (file count and bytes, which [`load_bridge_repo`] can reuse: each answer is a listing of the
/// whole repository); `Ok(None)` when it serves none.
pub async fn bridge_repo_info() -> Result<Option<(String, serde_json::Value)>, String> {
    let Some(value) = fetch_json("/api/repo").await? else {
        return Ok(None);
    };
    Ok(value
        .get("name")
        .and_then(|n| n.as_str())
        .map(str::to_owned)
        .map(|name| (name, value)))
}

/// Files per batch when a repository streams: a tenth of the threshold (2,000 by default), so a
/// test that lowers the threshold gets several batches too.
fn batch_files(threshold: u64) -> usize {
    (threshold / 10).clamp(1, 2_000) as usize
}

/// Whether the bridge's repository goes in batches: more files than its threshold or more bytes
/// than one archive may carry; and the batch size. `known` is an answer of `/api/repo` just
/// received, else it is asked.
async fn streamed_batches(known: Option<serde_json::Value>) -> Result<Option<usize>, String> {
    let info = match known {
        Some(info) => info,
        None => match fetch_json("/api/repo").await? {
            Some(info) => info,
            None => return Ok(None),
        },
    };
    let number = |key: &str| info.get(key).and_then(serde_json::Value::as_u64);
    let (Some(files), Some(threshold)) = (number("files"), number("stream_threshold")) else {
        return Ok(None);
    };
    let too_big = number("bytes")
        .zip(number("archive_cap"))
        .is_some_and(|(bytes, cap)| bytes > cap);
    Ok((files > threshold || too_big).then(|| batch_files(threshold)))
}

/// Loads the repository the bridge serves: as one ZIP the worker unpacks, or, when it is large,
/// in batches the worker fetches and parses as they arrive. `known`: an answer of `/api/repo`
/// just received (spares the bridge listing the repository once more).
pub async fn load_bridge_repo(
    name: String,
    known: Option<serde_json::Value>,
    on_files: FilesHandler,
    on_error: ErrorHandler,
) {
    match streamed_batches(known).await {
        Ok(Some(batch)) => return on_files(Source::Batches(name, batch)),
        Ok(None) => {}
        Err(err) => return on_error(err),
    }
    let result = async {
        let response = fetch("/api/repo.zip").await?;
        if !response.ok() {
            return Err(format!(
                "the bridge answered {} for its repository",
                response.status()
            ));
        }
        JsFuture::from(response.array_buffer().map_err(|e| format!("{e:?}"))?)
            .await
            .map_err(|e| format!("{e:?}"))?
            .dyn_into::<ArrayBuffer>()
            .map_err(|_| "the repository download is not a buffer".to_owned())
    }
    .await;
    match result {
        Ok(bytes) => on_files(Source::Served(name, bytes)),
        Err(err) => on_error(err),
    }
}

/// A JSON answer of the bridge; `Ok(None)` for 404.
pub async fn fetch_json(url: &str) -> Result<Option<serde_json::Value>, String> {
    let response = fetch(url).await?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.ok() {
        return Err(format!(
            "the bridge answered {} for {url}",
            response.status()
        ));
    }
    let text = JsFuture::from(response.text().map_err(|e| format!("{e:?}"))?)
        .await
        .map_err(|e| format!("{e:?}"))?
        .as_string()
        .unwrap_or_default();
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("bad {url} answer: {e}"))
}

/// Downloads exactly these files of the bridge's repository (a ZIP; a file it no longer serves
/// is absent from it).
pub async fn fetch_files(paths: &[String]) -> Result<ArrayBuffer, String> {
    let body = serde_json::json!({ "paths": paths }).to_string();
    let response = request("/api/repo/files", Some(&body)).await?;
    if !response.ok() {
        return Err(format!(
            "the bridge answered {} for the changed files",
            response.status()
        ));
    }
    JsFuture::from(response.array_buffer().map_err(|e| format!("{e:?}"))?)
        .await
        .map_err(|e| format!("{e:?}"))?
        .dyn_into::<ArrayBuffer>()
        .map_err(|_| "the changed files are not a buffer".to_owned())
}

/// Longest a request waits for the api token (it comes with the link's Welcome).
const API_TOKEN_WAIT_MS: u32 = 20_000;
const API_TOKEN_POLL_MS: u32 = 50;

/// GET `url` from the hub with this hub run's api token.
async fn fetch(url: &str) -> Result<web_sys::Response, String> {
    request(url, None).await
}

/// The api token of the hub run the link proved, waiting for the link's Welcome if needed.
async fn api_token() -> Result<String, String> {
    for _ in 0..API_TOKEN_WAIT_MS / API_TOKEN_POLL_MS {
        if let Some(token) = crate::link::secret::api_token() {
            return Ok(token);
        }
        gloo_timers::future::TimeoutFuture::new(API_TOKEN_POLL_MS).await;
    }
    Err("the link to the bridge is not up, so the page has no api token for it".into())
}

/// GET `url` from the hub with this hub run's api token, or POST `body` (JSON) to it.
async fn request(url: &str, body: Option<&str>) -> Result<web_sys::Response, String> {
    let window = web_sys::window().ok_or("no window")?;
    let init = web_sys::RequestInit::new();
    let headers = web_sys::Headers::new().map_err(|e| format!("{e:?}"))?;
    headers
        .set(crate::link::secret::HEADER, &api_token().await?)
        .map_err(|e| format!("{e:?}"))?;
    if let Some(body) = body {
        init.set_method("POST");
        headers
            .set("Content-Type", "application/json")
            .map_err(|e| format!("{e:?}"))?;
        init.set_body(&JsValue::from_str(body));
    }
    init.set_headers(&headers);
    let value = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|e| format!("cannot reach the bridge: {e:?}"))?;
    value
        .dyn_into::<web_sys::Response>()
        .map_err(|_| "not a response".into())
}

fn input_files(event: &leptos::ev::Event) -> Vec<File> {
    let Some(input) = event
        .target()
        .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
    else {
        return Vec::new();
    };
    let Some(list) = input.files() else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.item(i)).collect()
}

#[component]
pub fn LoadPanel(
    on_files: StoredValue<FilesHandler, LocalStorage>,
    on_error: StoredValue<ErrorHandler, LocalStorage>,
    bridge_repo: ReadSignal<Option<String>>,
    on_sample: StoredValue<Rc<dyn Fn()>, LocalStorage>,
) -> impl IntoView {
    let handlers = move || (on_files.get_value(), on_error.get_value());
    let pick_zip = move |event: leptos::ev::Event| {
        if let Some(file) = input_files(&event).into_iter().next() {
            let (ok, err) = handlers();
            wasm_bindgen_futures::spawn_local(load_zip(file, ok, err));
        }
    };
    let pick_folder = move |event: leptos::ev::Event| {
        let files = input_files(&event);
        if !files.is_empty() {
            let (ok, err) = handlers();
            wasm_bindgen_futures::spawn_local(load_folder(files, ok, err));
        }
    };
    let open_bridge = move |_| {
        if let Some(name) = bridge_repo.get_untracked() {
            let (ok, err) = handlers();
            wasm_bindgen_futures::spawn_local(load_bridge_repo(name, None, ok, err));
        }
    };
    // `webkitdirectory` has no typed attribute in Leptos; set it on the element once mounted.
    let folder_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder_input.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    view! {
        <div class="load" data-testid="load">
            <span class="muted">"Drop a folder or a ZIP anywhere, or"</span>
            <label class="button">"Pick ZIP"<input type="file" accept=".zip" data-testid="pick-zip" on:change=pick_zip /></label>
            <label class="button">"Pick folder"<input type="file" multiple=true node_ref=folder_input data-testid="pick-folder" on:change=pick_folder /></label>
            <button data-testid="open-bridge-repo" disabled=move || bridge_repo.get().is_none() on:click=open_bridge>
                {move || bridge_repo.get().map_or_else(|| "No bridge repository".to_owned(), |n| format!("Open {n} (bridge)"))}
            </button>
            <button data-testid="load-sample" on:click=move |_| on_sample.with_value(|f| f())>"Load the sample"</button>
        </div>
    }
}
