//! The indexing pipeline: filter → parse and extract → resolve → graph, timing each phase and
//! reporting progress. Sources (folder, ZIP, bridge) hand it plain (path, bytes) pairs.

use serde::{Deserialize, Serialize};

use super::extract::Extractor;
use super::facts::FileFacts;
use super::filter::{DEFAULT_MAX_FILE_BYTES, Filter, Skip};
use super::graph::{Graph, NodeKind};
use super::lang::Lang;
use super::resolve::{ResolveMemo, ResolveParts, ResolveStats, build_graph_kept};
use super::workspace::{Entry, Workspace, content_hash};
use super::{community, process, summary};

/// One file handed to the engine, path relative to the repository root with `/` separators.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path relative to the project root, `/`-separated.
    pub path: String,
    /// The file's contents.
    pub bytes: Vec<u8>,
}

/// (path, text) pairs as source files, for tests.
#[cfg(test)]
pub(crate) fn source_files(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(path, text)| SourceFile {
            path: (*path).into(),
            bytes: text.as_bytes().to_vec(),
        })
        .collect()
}

/// The facts of (path, text) pairs in a language Nexus reads, as extracted, for tests.
#[cfg(test)]
pub(crate) fn parsed_facts(files: &[(&str, &str)]) -> Vec<crate::facts::FileFacts> {
    let batch = source_files(files)
        .into_iter()
        .filter_map(|f| Lang::of_path(&f.path).map(|lang| (lang, f)))
        .collect();
    parse_files(batch).into_iter().map(|p| p.facts).collect()
}

/// The graph of (path, text) pairs, empty when indexing fails, for tests.
#[cfg(test)]
pub(crate) fn fixture_graph(files: &[(&str, &str)]) -> Graph {
    index("fixture", source_files(files), &|| 0.0, &mut |_, _, _| true)
        .map(|(g, _)| g)
        .unwrap_or_default()
}

/// A phase of indexing, for progress reports and timings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Ignore rules, secrets, binary and size checks.
    Filter,
    /// Tree-sitter parsing into per-file facts.
    Parse,
    /// Cross-file resolution into the graph.
    Resolve,
    /// Community detection.
    Communities,
    /// Process (execution flow) detection, then the structural summaries of folders, files and
    /// communities.
    Processes,
}

impl Phase {
    /// The phase's name in progress reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Filter => "filter",
            Phase::Parse => "parse",
            Phase::Resolve => "resolve",
            Phase::Communities => "communities",
            Phase::Processes => "processes",
        }
    }
}

/// What indexing saw and how long each phase took.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexStats {
    /// Files handed to indexing.
    pub files_seen: usize,
    /// Source files parsed into the graph.
    pub files_parsed: usize,
    /// Their bytes.
    pub bytes_parsed: usize,
    /// Left out: in an excluded folder.
    pub skipped_excluded: usize,
    /// Left out: named by a `.gitignore`.
    pub skipped_ignored: usize,
    /// Left out: a secret.
    pub skipped_secret: usize,
    /// Left out: binary.
    pub skipped_binary: usize,
    /// Left out: over the size cap.
    pub skipped_large: usize,
    /// Kept as text only (docs, configs).
    pub skipped_not_source: usize,
    /// Parsed with syntax errors (used partially).
    pub files_with_syntax_errors: usize,
    /// Not valid UTF-8 (decoded lossily).
    pub non_utf8_files: usize,
    /// Resolution's counts.
    pub resolve: ResolveStats,
    /// (phase, milliseconds).
    pub phase_ms: Vec<(Phase, f64)>,
}

/// Clock for phase timing; the browser and native builds pass their own.
pub type Clock<'a> = &'a dyn Fn() -> f64;

/// Progress callback: (phase, done, total). Returning `false` cancels indexing.
pub type Progress<'a> = &'a mut dyn FnMut(Phase, usize, usize) -> bool;

/// Indexing stopped because the caller cancelled it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cancelled;

/// Files parsed between two progress reports.
const PARSE_BATCH: usize = 512;

/// Threads used to parse: all cores natively, one in the browser (workers split work there).
fn parse_threads(files: usize) -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        cores.min(files.div_ceil(64)).max(1)
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = files;
        1
    }
}

/// The text of every indexed file (source and other text such as docs and configs), by path;
/// `read`, `grep` and `review_file` answer from it. Secrets, binaries and ignored files are absent.
pub use super::texts::Sources;

/// Decodes UTF-8, replacing invalid sequences; says whether the bytes were valid.
/// The text is kept as long as the project is open: a buffer read with room to spare (a file
/// read whole, a string built up) gives the room back.
pub(crate) fn decode(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            s.shrink_to_fit();
            (s, true)
        }
        Err(err) => (String::from_utf8_lossy(err.as_bytes()).into_owned(), false),
    }
}

/// One parsed file: its facts, its text, and whether its bytes were valid UTF-8. Parse workers in
/// the browser send these back to the engine worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Parsed {
    /// The file's extracted facts.
    pub facts: FileFacts,
    /// Its text (lossily decoded when not UTF-8).
    pub text: String,
    /// Whether its bytes were valid UTF-8.
    pub utf8: bool,
}

pub(crate) fn extract_one(extractor: &mut Extractor, lang: Lang, file: SourceFile) -> Parsed {
    let (text, utf8) = decode(file.bytes);
    let mut facts = extractor.extract(&file.path, lang, &text);
    facts.shrink_to_fit();
    Parsed { facts, text, utf8 }
}

/// A file parsed elsewhere: its facts, with its text decoded here from the same bytes.
pub fn parsed_from(bytes: Vec<u8>, mut facts: FileFacts) -> Parsed {
    let (text, utf8) = decode(bytes);
    facts.shrink_to_fit();
    Parsed { facts, text, utf8 }
}

/// Parses files in order on this thread.
pub fn parse_files(batch: Vec<(Lang, SourceFile)>) -> Vec<Parsed> {
    let mut extractor = Extractor::default();
    batch
        .into_iter()
        .map(|(lang, file)| extract_one(&mut extractor, lang, file))
        .collect()
}

/// Parses files on up to `threads` threads (this one among them), each taking the next file as
/// it finishes one, so a run of large files does not leave a thread idle. Progress is reported
/// from this thread; `None` when it asked to stop. The result is in the files' order.
fn parse_shared(
    files: Vec<(Lang, SourceFile)>,
    threads: usize,
    progress: Progress,
) -> Option<Vec<Parsed>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    let total = files.len();
    let queue = Mutex::new(files.into_iter().enumerate());
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let next = || queue.lock().ok().and_then(|mut q| q.next());
    let work = |report: &mut dyn FnMut(usize) -> bool| {
        let mut extractor = Extractor::default();
        let mut out = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let Some((i, (lang, file))) = next() else {
                break;
            };
            out.push((i, extract_one(&mut extractor, lang, file)));
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            if !report(finished) {
                stop.store(true, Ordering::Relaxed);
            }
        }
        out
    };
    let mut reported = 0;
    let mut report = |finished: usize| {
        if finished - reported < PARSE_BATCH && finished != total {
            return true;
        }
        reported = finished;
        progress(Phase::Parse, finished, total)
    };
    let mut parsed: Vec<(usize, Parsed)> =
        in_parallel(threads, || work(&mut |_| true), || work(&mut report))
            .into_iter()
            .flatten()
            .collect();
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let finished = done.load(Ordering::Relaxed);
    if reported != finished && !progress(Phase::Parse, finished, total) {
        return None;
    }
    parsed.sort_unstable_by_key(|(i, _)| *i);
    Some(parsed.into_iter().map(|(_, p)| p).collect())
}

/// Runs `main` here and `helper` on `threads - 1` more threads meanwhile (none in the browser,
/// where workers split the work), and gathers what they return.
#[cfg(not(target_arch = "wasm32"))]
fn in_parallel<T: Send>(
    threads: usize,
    helper: impl Fn() -> T + Sync,
    main: impl FnOnce() -> T,
) -> Vec<T> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads).map(|_| scope.spawn(&helper)).collect();
        let mut out = vec![main()];
        out.extend(handles.into_iter().filter_map(|h| h.join().ok()));
        out
    })
}

#[cfg(target_arch = "wasm32")]
fn in_parallel<T>(_threads: usize, _helper: impl Fn() -> T, main: impl FnOnce() -> T) -> Vec<T> {
    vec![main()]
}

/// Indexes a set of files into a graph.
pub fn index(
    project: &str,
    files: Vec<SourceFile>,
    clock: Clock,
    progress: Progress,
) -> Result<(Graph, IndexStats), Cancelled> {
    index_with_sources(project, files, clock, progress).map(|(graph, stats, _)| (graph, stats))
}

/// The files that passed the filter: those to parse (sorted by path) and the other texts, kept
/// for `read` and `grep`; with the counts so far.
pub struct Filtered {
    /// The files to parse (those [`filter_files`] kept; empty while streaming).
    pub to_parse: Vec<(Lang, SourceFile)>,
    texts: Sources,
    /// Every file received but the secrets: its hash and the filter's verdict.
    entries: std::collections::BTreeMap<String, Entry>,
    /// The secrets received, by name only.
    secrets: std::collections::BTreeSet<String>,
    /// Every `.gitignore` received, by path.
    gitignores: std::collections::BTreeMap<String, String>,
    /// The rules of those `.gitignore` files.
    filter: Filter,
    /// Facts of the files parsed so far ([`Filtered::take_parsed`]; their texts are in `texts`).
    parsed: Vec<FileFacts>,
    stats: IndexStats,
    filtered_at: f64,
}

/// The filter phase: `.gitignore` files, default excludes, secrets, binaries, size cap.
pub fn filter_files(files: Vec<SourceFile>, clock: Clock) -> Filtered {
    let started = clock();
    let gitignores: Vec<(&str, &[u8])> = files
        .iter()
        .filter(|f| is_gitignore(&f.path))
        .map(|f| (f.path.as_str(), f.bytes.as_slice()))
        .collect();
    let mut filtered = Filtered::streaming();
    filtered.filter = Filter::new(gitignores.iter().copied(), DEFAULT_MAX_FILE_BYTES);
    filtered.gitignores = gitignores
        .into_iter()
        .map(|(p, b)| (p.to_owned(), String::from_utf8_lossy(b).into_owned()))
        .collect();
    filtered.stats.files_seen = files.len();
    for file in files {
        if let Some(kept) = filtered.take(file) {
            filtered.to_parse.push(kept);
        }
    }
    filtered.to_parse.sort_by(|a, b| a.1.path.cmp(&b.1.path));
    let filtered_at = clock();
    filtered.close(filtered_at - started, filtered_at);
    filtered
}

impl Filtered {
    /// Nothing filtered yet: feed it batches of files as they arrive ([`Filtered::add`]), then
    /// [`Filtered::close`] it.
    pub fn streaming() -> Filtered {
        Filtered {
            to_parse: Vec::new(),
            texts: Sources::new(),
            entries: std::collections::BTreeMap::new(),
            secrets: std::collections::BTreeSet::new(),
            gitignores: std::collections::BTreeMap::new(),
            filter: Filter::new(std::iter::empty(), DEFAULT_MAX_FILE_BYTES),
            parsed: Vec::new(),
            stats: IndexStats::default(),
            filtered_at: 0.0,
        }
    }

    /// Filters one batch of files and returns those to parse (in path order). The `.gitignore`
    /// files of a batch apply to it and to every later batch, so a source sends them first.
    pub fn add(&mut self, files: Vec<SourceFile>) -> Vec<(Lang, SourceFile)> {
        self.stats.files_seen += files.len();
        for file in files.iter().filter(|f| is_gitignore(&f.path)) {
            self.filter.add_gitignore(&file.path, &file.bytes);
            self.gitignores.insert(
                file.path.clone(),
                String::from_utf8_lossy(&file.bytes).into_owned(),
            );
        }
        let mut kept: Vec<(Lang, SourceFile)> = files
            .into_iter()
            .filter_map(|file| self.take(file))
            .collect();
        kept.sort_by(|a, b| a.1.path.cmp(&b.1.path));
        kept
    }

    /// Ends the filter phase, which took `filter_ms` in all and ended at `at` (the clock's time).
    pub fn close(&mut self, filter_ms: f64, at: f64) {
        self.stats.phase_ms.push((Phase::Filter, filter_ms));
        self.filtered_at = at;
    }

    /// Takes one parsed file as it comes: its text is kept (compressed with the others at once,
    /// so a load never holds every text raw) and its facts wait for resolution.
    pub fn take_parsed(&mut self, parsed: Parsed) {
        let Parsed { facts, text, utf8 } = parsed;
        self.stats.bytes_parsed += text.len();
        if facts.syntax_errors > 0 {
            self.stats.files_with_syntax_errors += 1;
        }
        if !utf8 {
            self.stats.non_utf8_files += 1;
        }
        if let Some(entry) = self.entries.get_mut(&facts.path) {
            entry.set_utf8(utf8);
        }
        self.texts.insert(facts.path.clone(), text);
        self.parsed.push(facts);
    }

    /// Files received so far.
    pub fn files_seen(&self) -> usize {
        self.stats.files_seen
    }

    /// One file's verdict, counted: returned when it is to be parsed; a text that is not code
    /// is kept for `read` and `grep`, a secret only by name.
    fn take(&mut self, file: SourceFile) -> Option<(Lang, SourceFile)> {
        let stats = &mut self.stats;
        let verdict = self.filter.check(&file.path, &file.bytes).and_then(|_| {
            Lang::of_source(&file.path, &String::from_utf8_lossy(&file.bytes))
                .ok_or(Skip::NotSource)
        });
        if verdict == Err(Skip::Secret) {
            self.secrets.insert(file.path.clone());
        } else {
            self.entries.insert(
                file.path.clone(),
                Entry::new(content_hash(&file.bytes), verdict.err()),
            );
        }
        match verdict {
            Ok(lang) => return Some((lang, file)),
            Err(Skip::Excluded) => stats.skipped_excluded += 1,
            Err(Skip::Ignored) => stats.skipped_ignored += 1,
            Err(Skip::Secret) => stats.skipped_secret += 1,
            Err(Skip::Binary) => stats.skipped_binary += 1,
            Err(Skip::TooLarge) => stats.skipped_large += 1,
            Err(Skip::NotSource) => {
                // Text that is not parsed (docs, configs) is still kept for `read` and `grep`.
                stats.skipped_not_source += 1;
                let (text, utf8) = decode(file.bytes);
                if let Some(entry) = self.entries.get_mut(&file.path) {
                    entry.set_utf8(utf8);
                }
                self.texts.insert(file.path, text);
            }
        }
        None
    }
}

/// Whether a path names a `.gitignore` file.
pub(crate) fn is_gitignore(path: &str) -> bool {
    path == ".gitignore" || path.ends_with("/.gitignore")
}

/// Indexes a set of files into a graph and keeps the text of the files that passed the filter.
pub fn index_with_sources(
    project: &str,
    files: Vec<SourceFile>,
    clock: Clock,
    progress: Progress,
) -> Result<(Graph, IndexStats, Sources), Cancelled> {
    index_workspace(project, files, clock, progress)
        .map(|(graph, stats, ws)| (graph, stats, ws.into_sources()))
}

/// Indexes a set of files into a graph and keeps them in a [`Workspace`] for later changes.
pub fn index_workspace(
    project: &str,
    files: Vec<SourceFile>,
    clock: Clock,
    progress: Progress,
) -> Result<(Graph, IndexStats, Workspace), Cancelled> {
    let mut filtered = filter_files(files, clock);
    let kept = std::mem::take(&mut filtered.to_parse);
    let total = kept.len();
    if !progress(Phase::Filter, total, total) {
        return Err(Cancelled);
    }
    let parsed = parse_shared(kept, parse_threads(total), progress).ok_or(Cancelled)?;
    finish_workspace(project, filtered, parsed, clock, progress)
}

/// Everything after parsing: resolution, communities, processes. `parsed` may come in any order
/// (from several workers); it is put in path order first so the graph does not depend on it.
pub fn finish(
    project: &str,
    filtered: Filtered,
    parsed: Vec<Parsed>,
    clock: Clock,
    progress: Progress,
) -> Result<(Graph, IndexStats, Sources), Cancelled> {
    finish_workspace(project, filtered, parsed, clock, progress)
        .map(|(graph, stats, ws)| (graph, stats, ws.into_sources()))
}

/// [`finish`], keeping the files' facts in a [`Workspace`] so that later changes to some files
/// need only those parsed again.
pub fn finish_workspace(
    project: &str,
    filtered: Filtered,
    parsed: Vec<Parsed>,
    clock: Clock,
    progress: Progress,
) -> Result<(Graph, IndexStats, Workspace), Cancelled> {
    let mut filtered = filtered;
    let mut parsed = parsed;
    parsed.sort_by(|a, b| a.facts.path.cmp(&b.facts.path));
    for one in parsed {
        filtered.take_parsed(one);
    }
    let Filtered {
        texts: mut sources,
        entries,
        secrets,
        gitignores,
        parsed: facts,
        mut stats,
        filtered_at,
        ..
    } = filtered;
    stats.files_parsed = facts.len();
    sources.settle();
    let parsed = clock();
    stats.phase_ms.push((Phase::Parse, parsed - filtered_at));
    if !progress(Phase::Parse, facts.len(), facts.len()) {
        return Err(Cancelled);
    }
    let mut ws = Workspace::from_index(project, sources, entries, secrets, gitignores, facts);
    let (graph, resolve, phase_ms, memo) = build(project, ws.facts(), clock, progress)?;
    ws.keep_resolution(memo);
    stats.resolve = resolve;
    stats.phase_ms.extend(phase_ms);
    Ok((graph, stats, ws))
}

/// A graph built from facts, with resolution's counts, each phase's milliseconds and what the
/// next resolution of these files keeps.
pub(crate) type Built = (Graph, ResolveStats, Vec<(Phase, f64)>, ResolveMemo);

/// The graph of a project from its files' facts (in path order, stand-ins marked): resolution,
/// communities, processes and summaries, timing each phase.
pub(crate) fn build(
    project: &str,
    facts: &[FileFacts],
    clock: Clock,
    progress: Progress,
) -> Result<Built, Cancelled> {
    let started = clock();
    let ResolvedEdges {
        graph,
        stats: resolve,
        layers,
        memo,
        ..
    } = resolve_edges(project, facts, None, &[], clock);
    let resolved = clock();
    if !progress(Phase::Resolve, 1, 1) {
        return Err(Cancelled);
    }
    let mut phase_ms = vec![(Phase::Resolve, resolved - started)];
    let (graph, layer_ms) = layers.add_to(graph, clock);
    for &(phase, _) in &layer_ms {
        if !progress(phase, 1, 1) {
            return Err(Cancelled);
        }
    }
    phase_ms.extend(layer_ms);
    Ok((graph, resolve, phase_ms, memo))
}

/// Resolution alone: the graph's folders, files, symbols and edges, without the layers computed
/// from them (communities, processes, summaries), which [`Layers::add_to`] adds. From an earlier
/// resolution of the same project before the `changed` paths changed (`None`: every file), files
/// whose calls and references read nothing that changed keep their edges (equal to a full
/// resolution). Also gives what the next resolution keeps and how many files were resolved.
pub(crate) fn resolve_edges(
    project: &str,
    facts: &[FileFacts],
    earlier: Option<ResolveMemo>,
    changed: &[String],
    clock: Clock,
) -> ResolvedEdges {
    let (graph, stats, memo, resolved, decorated, parts) =
        build_graph_kept(project, facts, earlier, changed, clock);
    ResolvedEdges {
        graph,
        stats,
        layers: Layers { decorated },
        memo,
        resolved,
        parts,
    }
}

/// A graph of edges ([`resolve_edges`]) with what came with it.
pub(crate) struct ResolvedEdges {
    pub(crate) graph: Graph,
    pub(crate) stats: ResolveStats,
    /// What is left to add.
    pub(crate) layers: Layers,
    /// What the next resolution keeps.
    pub(crate) memo: ResolveMemo,
    /// How many files were resolved.
    pub(crate) resolved: usize,
    /// The time each part of the resolution took.
    pub(crate) parts: ResolveParts,
}

/// What is left to compute on a graph of edges (see [`resolve_edges`]): its communities, its
/// processes and the structural summaries. A live update answers tools from the edges first and
/// adds these afterwards; the result equals a full index of the same files.
#[derive(Debug, Clone, Default)]
pub struct Layers {
    /// Definitions carrying a framework decorator (process entry points), by node id.
    decorated: std::collections::HashSet<u32>,
}

impl Layers {
    /// Adds communities, then processes and summaries, to the graph of edges they were made
    /// with, timing each. Nodes are only added: every node of `graph` keeps its id. Summaries
    /// carried from an earlier graph ([`summary::carry_summaries`]) are written afresh.
    pub fn add_to(self, mut graph: Graph, clock: Clock) -> (Graph, Vec<(Phase, f64)>) {
        let started = clock();
        let carried: Vec<u32> = graph
            .nodes()
            .filter(|n| matches!(n.kind(), NodeKind::File | NodeKind::Folder))
            .filter(|n| !n.doc().is_empty())
            .map(|n| n.id)
            .collect();
        for node in carried {
            graph.set_doc(node, "");
        }
        let graph = community::detect(graph);
        let grouped = clock();
        let graph = summary::summarize(process::detect(graph, &self.decorated));
        let done = clock();
        (
            graph,
            vec![
                (Phase::Communities, grouped - started),
                (Phase::Processes, done - grouped),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{EdgeKind, NodeKind};

    fn file(path: &str, text: &str) -> SourceFile {
        source_files(&[(path, text)]).remove(0)
    }

    fn run(files: Vec<SourceFile>) -> (Graph, IndexStats) {
        index("t", files, &|| 0.0, &mut |_, _, _| true).unwrap()
    }

    #[test]
    fn a_full_index_and_the_passes_after_it_decompress_each_text_page_about_once() {
        // Small to parse, large to keep: a little code and a long comment.
        let body = |i: usize| {
            format!("class Service{i}:\n    def run(self, x):\n        return helper_{i}(x)\n\n")
                + &format!("def helper_{i}(x):\n    return x * {i}\n")
                + &format!("# {}\n", "the same comment line, over and over ").repeat(100)
        };
        let mut files: Vec<SourceFile> = (0..900)
            .map(|i| file(&format!("app/p{}/m{i:04}.py", i / 100), &body(i)))
            .collect();
        files.extend((0..300).map(|i| file(&format!("app/p{}/n{i:04}.md", i / 30), &body(i))));
        files.extend((0..10).map(|p| file(&format!("app/p{p}/__init__.py"), "")));
        let mut filtered = filter_files(files, &|| 0.0);
        let kept = std::mem::take(&mut filtered.to_parse);
        // Parse workers hand files back in their own order, not the path order.
        let mut parsed = parse_files(kept);
        let n = parsed.len();
        let mut shuffled: Vec<Option<Parsed>> = parsed.drain(..).map(Some).collect();
        for i in 0..n {
            if let Some(one) = shuffled.get_mut(i * 7919 % n).and_then(Option::take) {
                filtered.take_parsed(one);
            }
        }
        let (graph, _, ws) =
            finish_workspace("t", filtered, Vec::new(), &|| 0.0, &mut |_, _, _| true).unwrap();
        let sources = ws.sources();
        let pages = sources.page_count();
        assert!(pages > 30, "{pages} pages");
        let indexing = sources.pages_decompressed();
        assert!(
            indexing <= pages,
            "the index decompressed {indexing} of {pages} pages"
        );
        assert_eq!(sources.len(), 1200 + 10);
        for i in 0..900 {
            let text = sources.get(&format!("app/p{}/m{i:04}.py", i / 100));
            assert_eq!(text.as_deref(), Some(body(i).as_str()));
        }
        let passes: [(&str, &dyn Fn()); 2] = [
            ("fingerprint", &|| {
                crate::fingerprint::Fingerprint::of(&graph, sources, 0.0);
            }),
            ("embedding texts", &|| {
                for node in graph.nodes() {
                    crate::embed::node_text(&graph, &node, sources);
                }
            }),
        ];
        for (name, pass) in passes {
            let before = sources.pages_decompressed();
            pass();
            let read = sources.pages_decompressed() - before;
            assert!(
                read <= 2 * pages,
                "{name} decompressed {read} of {pages} pages"
            );
        }
    }

    #[test]
    fn a_kept_text_holds_no_spare_room() {
        let mut bytes = Vec::with_capacity(4096);
        bytes.extend_from_slice(b"def f():\n    return 1\n");
        let (text, utf8) = decode(bytes);
        assert!(utf8);
        assert_eq!(text, "def f():\n    return 1\n");
        assert!(
            text.capacity() < 64,
            "{} bytes of room kept",
            text.capacity()
        );
    }

    #[test]
    fn kept_facts_hold_no_spare_room() {
        let body: String = (0..100).map(|i| format!("    g{i}(x)\n")).collect();
        let text = format!("def f(x):\n{body}");
        let parsed = parse_files(vec![(Lang::Python, file("a.py", &text))]);
        let facts = &parsed[0].facts;
        assert_eq!(facts.calls.len(), 100);
        assert_eq!(facts.calls.capacity(), facts.calls.len());
        assert_eq!(facts.defs.capacity(), facts.defs.len());
        let mut sent = facts.clone();
        sent.calls.reserve(1000);
        let received = parsed_from(text.into_bytes(), sent);
        assert_eq!(received.facts.calls.capacity(), 100);
    }

    #[test]
    fn skips_are_counted_by_reason() {
        let (graph, stats) = run(vec![
            file(".gitignore", "gen/\n"),
            file("gen/x.py", "def a(): pass"),
            file("node_modules/y.js", "function b() {}"),
            file(".env", "SECRET=1"),
            file("img.py", "\0\0"),
            file("README.md", "# hi"),
            file("ok.py", "def ok():\n    return 1\n"),
            file("broken.py", "def broken(:\n"),
            SourceFile {
                path: "latin.py".into(),
                bytes: b"def caf\xe9(): pass\n".to_vec(),
            },
        ]);
        assert_eq!(stats.files_seen, 9);
        assert_eq!(stats.files_parsed, 3);
        assert_eq!(
            (
                stats.skipped_ignored,
                stats.skipped_excluded,
                stats.skipped_secret,
                stats.skipped_binary
            ),
            (1, 1, 1, 1)
        );
        assert_eq!(stats.skipped_not_source, 2);
        assert_eq!(stats.files_with_syntax_errors, 2);
        assert_eq!(stats.non_utf8_files, 1);
        assert_eq!(graph.file_count(), 3);
        assert!(graph.find_id("Function:ok.py:ok").is_some());
    }

    #[test]
    fn batches_filtered_as_they_arrive_give_the_graph_and_counts_of_one_pass() {
        let files = vec![
            file(".gitignore", "gen/\n"),
            file("sub/.gitignore", "*.tmp.py\n"),
            file("a.py", "from b import g\n\ndef f():\n    return g()\n"),
            file("b.py", "def g():\n    return 1\n"),
            file("gen/x.py", "def x(): pass"),
            file("sub/y.tmp.py", "def y(): pass"),
            file("sub/z.py", "from a import f\n\ndef z():\n    return f()\n"),
            file(".env", "SECRET=1"),
            file("README.md", "# hi"),
        ];
        let (whole, whole_stats, whole_ws) =
            index_workspace("t", files.clone(), &|| 0.0, &mut |_, _, _| true).unwrap();
        let mut streamed = Filtered::streaming();
        let mut parsed = Vec::new();
        // Rules first, then the rest in batches of two, out of path order.
        let mut rest: Vec<SourceFile> = files[2..].to_vec();
        rest.reverse();
        let mut batches = vec![files[..2].to_vec()];
        batches.extend(rest.chunks(2).map(<[SourceFile]>::to_vec));
        for batch in batches {
            parsed.extend(parse_files(streamed.add(batch)));
        }
        assert_eq!(streamed.files_seen(), 9);
        streamed.close(0.0, 0.0);
        let (graph, stats, ws) =
            finish_workspace("t", streamed, parsed, &|| 0.0, &mut |_, _, _| true).unwrap();
        assert_eq!(graph.canonical_dump(), whole.canonical_dump());
        assert_eq!(
            (
                stats.files_seen,
                stats.files_parsed,
                stats.skipped_ignored,
                stats.skipped_secret
            ),
            (
                whole_stats.files_seen,
                whole_stats.files_parsed,
                whole_stats.skipped_ignored,
                whole_stats.skipped_secret
            )
        );
        assert_eq!((stats.files_parsed, stats.skipped_ignored), (3, 2));
        assert_eq!(ws.sources().len(), whole_ws.sources().len());
    }

    #[test]
    fn every_language_in_one_repository_parses_with_its_own_grammar() {
        let (g, stats) = run(vec![
            file(
                "a.py",
                "class A:\n    def f(self):\n        return g()\n\ndef g():\n    pass\n",
            ),
            file(
                "b.js",
                "class B {\n  f() { return h(); }\n}\nfunction h() {}\n",
            ),
            file(
                "c.ts",
                "class C {\n  f(): number { return k(); }\n}\nfunction k(): number { return 1; }\n",
            ),
            file(
                "d.go",
                "package d\n\ntype D struct{}\n\nfunc (d D) F() int { return G() }\n\nfunc G() int { return 1 }\n",
            ),
            file(
                "e.rs",
                "struct E;\nimpl E {\n    fn f(&self) -> u8 { g() }\n}\nfn g() -> u8 { 1 }\n",
            ),
            file(
                "F.java",
                "class F {\n  int f() { return g(); }\n  static int g() { return 1; }\n}\n",
            ),
            file("a2.py", "def again():\n    return 1\n"),
        ]);
        assert_eq!(stats.files_with_syntax_errors, 0);
        for id in [
            "Method:a.py:A.f",
            "Function:a.py:g",
            "Method:b.js:B.f",
            "Function:b.js:h",
            "Method:c.ts:C.f",
            "Function:c.ts:k",
            "Method:d.go:D.F",
            "Function:d.go:G",
            "Method:e.rs:E.f",
            "Function:e.rs:g",
            "Method:F.java:F.f",
            "Function:a2.py:again",
        ] {
            assert!(g.find_id(id).is_some(), "{id} missing");
        }
    }

    #[test]
    fn empty_repository_gives_an_empty_graph() {
        let (graph, stats) = run(Vec::new());
        assert_eq!((graph.node_count(), stats.files_parsed), (0, 0));
    }

    fn many_files(n: usize) -> Vec<(Lang, SourceFile)> {
        (0..n)
            .map(|i| {
                let body = "    x = 1\n".repeat(i % 37);
                let text = format!("def f{i}():\n{body}    return g{i}()\n");
                (Lang::Python, file(&format!("p/m{i:04}.py"), &text))
            })
            .collect()
    }

    #[test]
    fn shared_parsing_keeps_file_order_and_reports_progress_up_to_the_total() {
        let files = many_files(1300);
        let alone: Vec<String> = parse_files(files.clone())
            .into_iter()
            .map(|p| p.facts.path)
            .collect();
        let mut reports = Vec::new();
        let shared = parse_shared(files, 3, &mut |phase, done, total| {
            reports.push((phase, done, total));
            true
        })
        .unwrap();
        let paths: Vec<String> = shared.into_iter().map(|p| p.facts.path).collect();
        assert_eq!(paths, alone);
        assert!(reports.windows(2).all(|w| w[0].1 < w[1].1), "{reports:?}");
        assert_eq!(reports.last(), Some(&(Phase::Parse, 1300, 1300)));
        assert!(reports.len() >= 2);
    }

    #[test]
    fn shared_parsing_stops_when_asked() {
        let mut reports = 0;
        let result = parse_shared(many_files(3000), 2, &mut |_, _, _| {
            reports += 1;
            false
        });
        assert!(result.is_none());
        assert_eq!(reports, 1);
    }

    #[test]
    fn cancelling_stops_indexing() {
        let files = vec![file("a.py", "def a(): pass")];
        let result = index("t", files, &|| 0.0, &mut |phase, _, _| {
            phase != Phase::Parse
        });
        assert_eq!(result.err(), Some(Cancelled));
    }

    #[test]
    fn folders_contain_files_and_files_define_symbols() {
        let (g, _) = run(vec![file(
            "pkg/sub/m.py",
            "class A:\n    def f(self): pass\n",
        )]);
        let folder = g.find_id("Folder:pkg/sub").unwrap();
        let file = g.find_id("File:pkg/sub/m.py").unwrap();
        let root = g.find_id("Folder:pkg").unwrap();
        let contains: Vec<(u32, u32)> = g
            .edges()
            .iter()
            .filter(|e| e.kind == EdgeKind::Contains)
            .map(|e| (e.from, e.to))
            .collect();
        assert!(contains.contains(&(root, folder)) && contains.contains(&(folder, file)));
        let method = g.find_id("Method:pkg/sub/m.py:A.f").unwrap();
        assert_eq!(g.node(method).unwrap().kind(), NodeKind::Method);
        assert!(g.outgoing(method).any(|e| e.kind == EdgeKind::MemberOf));
    }
}
