//! Messages between the page and the engine worker. Each message is a JS array whose first item
//! is this JSON and whose other items are transferred `ArrayBuffer`s (file contents).

use nexus_shared::Outcome;
use serde::{Deserialize, Serialize};

/// Page → worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Index a ZIP archive (the first buffer); `served` when it is the bridge's archive of its
    /// repository, whose entry names are the paths as they are.
    LoadZip {
        name: String,
        #[serde(default)]
        served: bool,
    },
    /// Index the bridge's repository in batches: the worker reads its manifest, fetches
    /// `batch_files` files at a time (`POST /api/repo/files`) one batch ahead, and parses each
    /// batch as it arrives.
    LoadServedBatches { name: String, batch_files: usize },
    /// Index files: `paths[i]` is the content of buffer `i`.
    LoadFiles { name: String, paths: Vec<String> },
    /// Index the built-in sample project.
    LoadSample,
    /// A file's lines with syntax classes, for the code view (answered as a `Result` whose text
    /// is a JSON [`CodeView`]).
    Code { id: u64, path: String },
    /// The shared cancel flags (the message's second item, a `SharedArrayBuffer`); sent first
    /// to every worker of a cross-origin isolated page.
    CancelBoard,
    /// The api token of the hub run the page's link proved, for the worker's requests to the
    /// bridge's `/api/*`; sent after each Welcome (and right after the board to a new worker).
    Bridge { token: Option<String> },
    /// Put the LLM's `text` before the structural summary of folder, file or community `node`
    /// (answered as a `Result` whose text is the new summary); the node is embedded again and
    /// the snapshot saved.
    Describe { id: u64, node: String, text: String },
    /// Answer one tool call; `session` is the caller's tools session, if it has one.
    Call {
        id: u64,
        tool: String,
        args: serde_json::Value,
        #[serde(default)]
        session: Option<String>,
    },
    /// These files of `project` changed on disk and their contents are on the way: answers
    /// say so until they are applied.
    ChangesPending { project: String, paths: Vec<String> },
    /// Apply changes to `project`'s files: the first buffer is a ZIP holding the new contents of
    /// `changed` (a path missing from it is gone), and `removed` are gone. Answered by `Applied`
    /// with the same `seq`.
    ApplyChanges {
        seq: u64,
        project: String,
        changed: Vec<String>,
        removed: Vec<String>,
    },
    /// Which of these files (path, 16 hex digits of xxh3 of the contents) differ from what the
    /// graph of `project` was built from: answered by `Stale`.
    Compare {
        project: String,
        files: Vec<(String, String)>,
        /// The hub's batch this comparison stands for (a rescan), 0 for the tab's own.
        #[serde(default)]
        seq: u64,
    },
}

/// A file the repository has that indexing did not get, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeftOut {
    pub path: String,
    pub why: String,
}

/// A file for the code view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeView {
    pub path: String,
    pub lines: Vec<nexus_engine::syntax::Line>,
}

/// Graph figures shown in the UI and announced to the hub.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphSummary {
    pub project: String,
    pub sample: bool,
    pub files: u32,
    pub nodes: u32,
    pub edges: u32,
    pub communities: u32,
    pub processes: u32,
}

/// How the worker's graph came back from browser storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Restored {
    /// Read, decode and index rebuild, in milliseconds.
    pub ms: f64,
    /// When the snapshot was saved, in milliseconds since the Unix epoch.
    pub saved_ms: f64,
    pub bytes: u64,
}

/// Worker → page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker started and holds this graph: the one saved last in browser storage, or the
    /// built-in sample.
    Ready {
        graph: GraphSummary,
        restored: Option<Restored>,
        /// Why the saved graph was not restored (damaged, an older format, or holding a file
        /// Nexus now keeps out), for the page to say so.
        ignored: Option<String>,
    },
    Progress {
        phase: String,
        done: u64,
        total: u64,
    },
    Loaded {
        graph: GraphSummary,
        ms: f64,
        files_parsed: u64,
        skipped: u64,
        /// (phase, milliseconds), in pipeline order.
        phases: Vec<(String, f64)>,
        /// The engine worker's wasm memory (its high-water mark: wasm memory never shrinks).
        memory_bytes: u64,
        /// Files the source had that are not in the graph although no rule keeps them out
        /// (over the size cap, changed while sent, …), each with why.
        #[serde(default)]
        left_out: Vec<LeftOut>,
        /// Too large for incremental resolution (its memo outgrew the budget): the first change
        /// resolves every file.
        #[serde(default)]
        resolves_fully: bool,
    },
    Failed {
        message: String,
    },
    /// The loaded graph was saved to browser storage (`saved: false` says why not).
    Saved {
        saved: bool,
        bytes: u64,
        ms: f64,
        message: String,
    },
    /// The graph picture's layout: a postcard `ViewGraph` in the message's buffer, which the
    /// page's client moves into `bytes`.
    View {
        /// Layout and encoding time in the worker.
        ms: f64,
        #[serde(skip)]
        bytes: Vec<u8>,
    },
    /// The graph's embeddings are done (search by meaning works); `message` says why there are
    /// none when `nodes` is 0.
    Embedded {
        nodes: u64,
        reused: u64,
        ms: f64,
        message: String,
        /// The vectors saved with the snapshot were used as they are (nothing was embedded).
        #[serde(default)]
        restored: bool,
        /// Size of the vectors saved beside the snapshot (0 when none were saved).
        #[serde(default)]
        bytes: u64,
        /// What made them: the built-in model's name or `provider:MODEL`.
        #[serde(default)]
        source: String,
    },
    /// An agent asked the UI to light up these nodes (stable ids).
    Highlight {
        ids: Vec<String>,
        color: String,
    },
    Result {
        id: u64,
        outcome: Outcome,
    },
    /// Changes were applied (`ApplyChanges` with this `seq`): the graph now follows the files.
    Applied {
        seq: u64,
        /// Source files parsed again.
        parsed: Vec<String>,
        /// Files taken out.
        removed: Vec<String>,
        /// Files written with the contents they had.
        unchanged: u64,
        /// Whether the graph was rebuilt (a source file's facts changed).
        rebuilt: bool,
        /// From the message's arrival to the new graph answering, in milliseconds.
        ms: f64,
        /// (phase, milliseconds).
        phases: Vec<(String, f64)>,
        graph: GraphSummary,
        /// Why nothing was applied (another project, a broken archive).
        error: Option<String>,
    },
    /// The answer to `Compare`: files that differ or are new, and files the graph holds that are
    /// gone.
    Stale {
        project: String,
        changed: Vec<String>,
        removed: Vec<String>,
        /// As in the `Compare` it answers.
        #[serde(default)]
        seq: u64,
    },
}
