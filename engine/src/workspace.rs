//! A project's indexed files kept between indexings, so that a change to some files re-parses
//! only those and rebuilds the edges from every file's facts, equal to a full index of the tree;
//! the layers computed from the edges (communities, processes) can follow later.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::extract::Extractor;
use super::facts::FileFacts;
use super::filter::{DEFAULT_MAX_FILE_BYTES, Filter, Skip};
use super::graph::Graph;
use super::ingest::{
    self, Cancelled, Clock, IndexStats, Layers, Parsed, Phase, Progress, SourceFile, Sources,
};
use super::lang::Lang;
use super::resolve::ResolveMemo;

/// One change to a project's files, as a watcher or a rescan reports it.
#[derive(Debug, Clone)]
pub enum FileChange {
    /// The file was written (new or changed) with these contents.
    Write(SourceFile),
    /// The file is gone (deleted, renamed away, now ignored or a secret).
    Remove(String),
}

impl FileChange {
    /// The path the change is about.
    pub fn path(&self) -> &str {
        match self {
            FileChange::Write(file) => &file.path,
            FileChange::Remove(path) => path,
        }
    }
}

/// What applying a set of changes did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    /// Source files parsed again (new or changed).
    pub parsed: Vec<String>,
    /// Files whose contents were the same as before (nothing to do).
    pub unchanged: usize,
    /// Files taken out (source or other).
    pub removed: Vec<String>,
    /// Other text files (docs, configs) written or taken out: `read` and `grep` see them, the
    /// graph does not change for them.
    pub texts: usize,
    /// The graph was rebuilt (some source file's facts changed).
    pub rebuilt: bool,
    /// Source files whose calls and references were resolved again (the others kept theirs).
    pub resolved: usize,
    /// (phase, milliseconds) of the work done.
    pub phase_ms: Vec<(Phase, f64)>,
    /// (part, milliseconds) of the resolve phase: marking stand-ins, then the resolution's parts
    /// (tables, scopes, imports, … the graph), for live-update figures.
    pub resolve_parts: Vec<(&'static str, f64)>,
}

/// A graph of edges after a change, its statistics, and its layers still to add.
pub type Edges = (Graph, IndexStats, Layers);

/// Why a received file is not in the graph: kept out by the rules, or a text that is not code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Kept {
    /// Parsed into facts.
    Parsed,
    /// Kept as text for `read` and `grep` only.
    Text,
    /// Left out (`Skip` as a small number, for the stats).
    Out(u8),
}

fn skip_code(skip: Skip) -> u8 {
    match skip {
        Skip::Excluded => 0,
        Skip::Ignored => 1,
        Skip::Secret => 2,
        Skip::Binary => 3,
        Skip::TooLarge => 4,
        Skip::NotSource => 5,
    }
}

/// What is known of one file the project received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// xxh3 of its bytes, to tell a real change from a save of the same contents.
    hash: u64,
    kept: Kept,
    utf8: bool,
}

/// The hash a file's contents are compared by (also what a bridge's manifest lists).
pub fn content_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The files of one project as the engine last indexed them: each source file's facts (as
/// extracted, before project-wide marking), every kept text, and what every received file
/// hashed to. Rebuilding the graph from it gives what a full index of the same files gives.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    project: String,
    /// Facts of the parsed files, in path order (the resolver's input order), as marked for
    /// the project's stand-in macros.
    facts: Vec<FileFacts>,
    /// Facts as extracted, for files the marking changed.
    pristine: HashMap<String, FileFacts>,
    sources: Sources,
    entries: BTreeMap<String, Entry>,
    /// Secret files received: named only, for the stats (no hash of a secret is ever kept).
    secrets: std::collections::BTreeSet<String>,
    /// Every `.gitignore` received, kept or not (a full index applies them all), by path.
    gitignores: BTreeMap<String, String>,
    /// Paths changed since the last full snapshot ([`Workspace::mark_saved`]): what a log of
    /// changes after it holds.
    changed_since_saved: std::collections::BTreeSet<String>,
    /// What the resolution of the facts as they are kept for the next one (none after a
    /// restore or a cancelled change: the next change resolves every file).
    resolution: Option<ResolveMemo>,
}

/// Everything a workspace holds of one path, for a log of changes since a snapshot: `None`s and
/// `false` for a path it no longer holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FileRecord {
    entry: Option<Entry>,
    text: Option<String>,
    /// Facts as extracted (before project-wide marking).
    facts: Option<FileFacts>,
    secret: bool,
    gitignore: Option<String>,
}

/// What a snapshot keeps of a workspace besides the texts (which it keeps anyway).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WorkspaceParts {
    facts: Vec<FileFacts>,
    entries: BTreeMap<String, Entry>,
    gitignores: BTreeMap<String, String>,
    /// The resolution of these facts, kept for the first change after a restore.
    resolution: Option<ResolveMemo>,
}

/// A borrowed [`WorkspaceParts`], for encoding without a copy.
#[derive(Serialize)]
pub struct WorkspacePartsRef<'a> {
    facts: Vec<&'a FileFacts>,
    entries: &'a BTreeMap<String, Entry>,
    gitignores: &'a BTreeMap<String, String>,
    resolution: Option<&'a ResolveMemo>,
}

impl Workspace {
    /// The project's name.
    pub fn project(&self) -> &str {
        &self.project
    }

    /// The text of every kept file, by path.
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    /// Gives up the texts (for callers that keep nothing else).
    pub fn into_sources(self) -> Sources {
        self.sources
    }

    /// Every file received (kept or not) with the hash of its contents, by path.
    pub fn hashes(&self) -> impl Iterator<Item = (&str, u64)> {
        self.entries.iter().map(|(p, e)| (p.as_str(), e.hash))
    }

    /// Compares a listing of the files as they are now (path, 16 hex digits of
    /// [`content_hash`]) with what this workspace was built from: the paths that are new or
    /// differ, and the paths it holds that the listing lacks. A hash that is not hex counts as
    /// changed.
    pub fn stale(&self, listing: &[(String, String)]) -> (Vec<String>, Vec<String>) {
        let listed: std::collections::HashSet<&str> =
            listing.iter().map(|(p, _)| p.as_str()).collect();
        let changed = listing
            .iter()
            .filter(|(path, hash)| {
                u64::from_str_radix(hash, 16).map_or(true, |hash| !self.holds(path, hash))
            })
            .map(|(path, _)| path.clone())
            .collect();
        let removed = self
            .entries
            .keys()
            .filter(|p| !listed.contains(p.as_str()))
            .cloned()
            .collect();
        (changed, removed)
    }

    /// The parsed files' facts, in path order, as the resolver reads them.
    pub(crate) fn facts(&self) -> &[FileFacts] {
        &self.facts
    }

    /// A workspace from a filter's verdicts and the parsed files (the full index's path).
    pub(crate) fn from_index(
        project: &str,
        sources: Sources,
        verdicts: BTreeMap<String, Entry>,
        secrets: std::collections::BTreeSet<String>,
        gitignores: BTreeMap<String, String>,
        mut facts: Vec<FileFacts>,
    ) -> Workspace {
        facts.sort_by(|a, b| a.path.cmp(&b.path));
        let mut ws = Workspace {
            project: project.to_owned(),
            facts,
            pristine: HashMap::new(),
            sources,
            entries: verdicts,
            secrets,
            gitignores,
            changed_since_saved: Default::default(),
            resolution: None,
        };
        ws.mark();
        ws
    }

    /// The parts a snapshot stores (facts as extracted, the received files' hashes).
    pub fn parts(&self) -> WorkspacePartsRef<'_> {
        WorkspacePartsRef {
            facts: self
                .facts
                .iter()
                .map(|f| self.pristine.get(&f.path).unwrap_or(f))
                .collect(),
            entries: &self.entries,
            gitignores: &self.gitignores,
            resolution: self.resolution.as_ref(),
        }
    }

    /// A workspace back from a snapshot's parts and texts; `None` when they do not agree (a
    /// parsed file without its text, facts out of order).
    pub fn from_parts(project: &str, parts: WorkspaceParts, sources: Sources) -> Option<Workspace> {
        let ordered = parts.facts.windows(2).all(|w| w[0].path < w[1].path);
        let agree = parts.facts.iter().all(|f| {
            sources.contains_key(&f.path)
                && parts
                    .entries
                    .get(&f.path)
                    .is_some_and(|e| e.kept == Kept::Parsed)
        });
        let texts_known = sources.keys().all(|p| parts.entries.contains_key(p));
        if !(ordered && agree && texts_known) {
            return None;
        }
        // A snapshot from before texts were settled is read in path order like any other.
        let mut sources = sources;
        sources.settle();
        let mut ws = Workspace {
            project: project.to_owned(),
            facts: parts.facts,
            pristine: HashMap::new(),
            sources,
            entries: parts.entries,
            secrets: Default::default(),
            gitignores: parts.gitignores,
            changed_since_saved: Default::default(),
            resolution: parts.resolution,
        };
        ws.mark();
        Some(ws)
    }

    /// The paths changed since the last full snapshot, each as this workspace now holds it.
    pub(crate) fn records_since_saved(&self) -> Vec<(&str, FileRecord)> {
        self.changed_since_saved
            .iter()
            .map(|path| (path.as_str(), self.record(path)))
            .collect()
    }

    /// The graph of the files as they are now (resolution, then the layers), as a full index of
    /// them gives, after the `changed` paths changed since the kept resolution (which resolves
    /// again only what they touched); the resolution is kept for the next change. Also gives
    /// how many files were resolved.
    pub(crate) fn graph(&mut self, changed: &[String]) -> (Graph, usize) {
        let earlier = self.resolution.take();
        let edges = ingest::resolve_edges(&self.project, &self.facts, earlier, changed, &|| 0.0);
        self.resolution = Some(edges.memo);
        (edges.layers.add_to(edges.graph, &|| 0.0).0, edges.resolved)
    }

    /// How many paths changed since the last full snapshot.
    pub fn changed_since_saved(&self) -> usize {
        self.changed_since_saved.len()
    }

    /// Notes that a full snapshot of this workspace was saved: a log after it starts empty.
    pub fn mark_saved(&mut self) {
        self.changed_since_saved.clear();
    }

    fn record(&self, path: &str) -> FileRecord {
        let facts = self
            .pristine
            .get(path)
            .or_else(|| {
                self.facts
                    .binary_search_by(|f| f.path.as_str().cmp(path))
                    .ok()
                    .and_then(|i| self.facts.get(i))
            })
            .filter(|_| {
                self.entries
                    .get(path)
                    .is_some_and(|e| e.kept == Kept::Parsed)
            });
        FileRecord {
            entry: self.entries.get(path).copied(),
            text: self.sources.get(path).map(|t| t.to_string()),
            facts: facts.cloned(),
            secret: self.secrets.contains(path),
            gitignore: self.gitignores.get(path).cloned(),
        }
    }

    /// Puts back paths as a log of changes recorded them (then marks stand-ins project-wide);
    /// the paths count as changed since the snapshot. `false` when a record is inconsistent (a
    /// parsed file without its text or facts, facts of another path): the workspace is then
    /// not to be used. The kept resolution stays usable for [`Workspace::graph`] of the paths
    /// restored, unless the project's stand-in macros changed (marking then changes files no
    /// record names).
    pub(crate) fn restore_records(&mut self, records: Vec<(String, FileRecord)>) -> bool {
        let macros_before = self.stand_in_macros_owned();
        for (path, record) in records {
            self.take_out(&path);
            self.gitignores.remove(&path);
            let parsed = record.entry.is_some_and(|e| e.kept == Kept::Parsed);
            let consistent = match &record.facts {
                Some(facts) => parsed && facts.path == path && record.text.is_some(),
                None => !parsed,
            };
            if !consistent {
                return false;
            }
            if record.secret {
                self.secrets.insert(path.clone());
            }
            if let Some(entry) = record.entry {
                self.entries.insert(path.clone(), entry);
            }
            if let Some(text) = record.text {
                self.sources.insert(path.clone(), text);
            }
            if let Some(gitignore) = record.gitignore {
                self.gitignores.insert(path.clone(), gitignore);
            }
            if let Some(facts) = record.facts {
                let at = self
                    .facts
                    .binary_search_by(|f| f.path.cmp(&path))
                    .unwrap_or_else(|i| i);
                self.facts.insert(at, facts);
            }
            self.changed_since_saved.insert(path);
        }
        self.mark();
        if self.stand_in_macros_owned() != macros_before {
            self.resolution = None;
        }
        true
    }

    /// Marks stand-in macro items project-wide, keeping each changed file's facts as they were.
    fn mark(&mut self) {
        for f in self.facts.iter_mut() {
            if let Some(original) = self.pristine.remove(&f.path) {
                *f = original;
            }
        }
        let pristine = &mut self.pristine;
        super::resolve::mark_stand_ins(&mut self.facts, &mut |f| {
            pristine.insert(f.path.clone(), f.clone());
        });
    }

    /// Keeps a text as it is, past the rules (a snapshot saved under older rules, in tests).
    #[cfg(test)]
    pub(crate) fn insert_text(&mut self, path: &str, text: &str) {
        self.sources.insert(path.to_owned(), text.to_owned());
        self.entries.insert(
            path.to_owned(),
            Entry::new(content_hash(text.as_bytes()), Some(Skip::NotSource)),
        );
    }

    /// Statistics of the files as they are now (what a full index of them would report, without
    /// its timings).
    pub fn stats(&self) -> IndexStats {
        let mut stats = IndexStats {
            files_seen: self.entries.len() + self.secrets.len(),
            files_parsed: self.facts.len(),
            skipped_secret: self.secrets.len(),
            ..IndexStats::default()
        };
        for (path, entry) in &self.entries {
            match entry.kept {
                Kept::Parsed => {
                    stats.bytes_parsed += self.sources.len_of(path).unwrap_or(0);
                }
                Kept::Text | Kept::Out(5) => stats.skipped_not_source += 1,
                Kept::Out(0) => stats.skipped_excluded += 1,
                Kept::Out(1) => stats.skipped_ignored += 1,
                Kept::Out(2) => stats.skipped_secret += 1,
                Kept::Out(3) => stats.skipped_binary += 1,
                Kept::Out(_) => stats.skipped_large += 1,
            }
            if !entry.utf8 {
                stats.non_utf8_files += 1;
            }
        }
        stats.files_with_syntax_errors = self.facts.iter().filter(|f| f.syntax_errors > 0).count();
        stats
    }

    /// The filter of the files as they are now (their `.gitignore` files).
    fn filter(&self) -> Filter {
        let gitignores: Vec<(&str, &[u8])> = self
            .gitignores
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_bytes()))
            .collect();
        Filter::new(gitignores.into_iter(), DEFAULT_MAX_FILE_BYTES)
    }

    /// Whether the file at `path` with contents `hash` is already held as it would be now: the
    /// same bytes, judged by what they are (parsed, text, binary, too large) rather than by rules
    /// that may have changed since (ignored, excluded).
    fn holds(&self, path: &str, hash: u64) -> bool {
        self.entries.get(path).is_some_and(|e| {
            e.hash == hash
                && !matches!(e.kept, Kept::Out(code) if code == skip_code(Skip::Ignored) || code == skip_code(Skip::Excluded))
        })
    }

    /// Takes a file out of every table; says whether its facts were in the graph.
    fn take_out(&mut self, path: &str) -> bool {
        self.secrets.remove(path);
        let Some(entry) = self.entries.remove(path) else {
            return false;
        };
        self.sources.remove(path);
        self.pristine.remove(path);
        if entry.kept == Kept::Parsed
            && let Ok(i) = self.facts.binary_search_by(|f| f.path.as_str().cmp(path))
        {
            self.facts.remove(i);
            return true;
        }
        false
    }

    /// Keeps what the resolution of these facts (a full index's) keeps for the next one.
    pub(crate) fn keep_resolution(&mut self, memo: ResolveMemo) {
        self.resolution = Some(memo);
    }

    /// Every stand-in macro the files define (marking depends on them project-wide).
    fn stand_in_macros(&self) -> std::collections::BTreeSet<&str> {
        self.facts
            .iter()
            .flat_map(|f| f.stand_in_macros.iter().map(String::as_str))
            .collect()
    }

    /// [`Workspace::stand_in_macros`] as owned names, to compare across a change.
    fn stand_in_macros_owned(&self) -> std::collections::BTreeSet<String> {
        self.stand_in_macros()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Applies changes: files whose contents are unchanged are left alone, changed and new
    /// source files are parsed again, removed ones taken out; when any file's facts changed the
    /// graph is rebuilt from every file's facts (the same pipeline as a full index, so the result
    /// equals a full index of the files as they now are). A `.gitignore` change takes out what
    /// the new rules ignore; what they no longer ignore must be written again (a watcher's rescan
    /// reports such files as changed; ignored contents are never kept). Returns the new graph, if
    /// any.
    pub fn apply(
        &mut self,
        changes: Vec<FileChange>,
        clock: Clock,
        progress: Progress,
    ) -> Result<(Option<(Graph, IndexStats)>, Applied), Cancelled> {
        let (edges, mut applied) = self.apply_edges(changes, clock, progress)?;
        let Some((graph, mut stats, layers)) = edges else {
            return Ok((None, applied));
        };
        let (graph, layer_ms) = layers.add_to(graph, clock);
        for &(phase, _) in &layer_ms {
            if !progress(phase, 1, 1) {
                return Err(Cancelled);
            }
        }
        applied.phase_ms.extend(layer_ms);
        stats.phase_ms = applied.phase_ms.clone();
        Ok((Some((graph, stats)), applied))
    }

    /// [`Workspace::apply`] up to the edges: the new graph has every folder, file, symbol and
    /// edge of a full index but no communities, processes or summaries yet; [`Layers::add_to`]
    /// adds them (a live update answers tools in between).
    pub fn apply_edges(
        &mut self,
        changes: Vec<FileChange>,
        clock: Clock,
        progress: Progress,
    ) -> Result<(Option<Edges>, Applied), Cancelled> {
        let started = clock();
        let mut applied = Applied::default();
        let mut facts_changed = false;
        // The last change to a path wins.
        let mut latest: BTreeMap<String, FileChange> = BTreeMap::new();
        for change in changes {
            latest.insert(change.path().to_owned(), change);
        }
        self.changed_since_saved.extend(latest.keys().cloned());
        let mut changed: Vec<String> = latest.keys().cloned().collect();
        let macros_before = self.stand_in_macros_owned();
        let earlier = self.resolution.take();
        let gitignore_changed = latest.iter().any(|(path, change)| {
            ingest::is_gitignore(path)
                && match change {
                    FileChange::Remove(_) => self.gitignores.contains_key(path),
                    FileChange::Write(file) => {
                        self.gitignores.get(path).map(String::as_bytes)
                            != Some(String::from_utf8_lossy(&file.bytes).as_bytes())
                    }
                }
        });
        // `.gitignore` files first, so the filter that judges the others is the new one.
        let (ignores, others): (Vec<_>, Vec<_>) = latest
            .into_values()
            .partition(|c| ingest::is_gitignore(c.path()));
        let mut filter = None;
        let mut to_parse: Vec<(Lang, SourceFile, u64)> = Vec::new();
        for change in ignores.into_iter().chain(others) {
            match change {
                FileChange::Remove(path) => {
                    if self.gitignores.remove(&path).is_some() {
                        filter = None;
                    }
                    if self.entries.contains_key(&path) || self.secrets.contains(&path) {
                        facts_changed |= self.take_out(&path);
                        applied.removed.push(path);
                    }
                }
                FileChange::Write(file) => {
                    let hash = content_hash(&file.bytes);
                    if self.holds(&file.path, hash) && !gitignore_changed {
                        applied.unchanged += 1;
                        continue;
                    }
                    facts_changed |= self.take_out(&file.path);
                    // A `.gitignore` judges the files after it with its new rules.
                    if ingest::is_gitignore(&file.path) {
                        self.gitignores.insert(
                            file.path.clone(),
                            String::from_utf8_lossy(&file.bytes).into_owned(),
                        );
                        filter = None;
                    }
                    let verdict = filter
                        .get_or_insert_with(|| self.filter())
                        .check(&file.path, &file.bytes)
                        .and_then(|_| {
                            Lang::of_source(&file.path, &String::from_utf8_lossy(&file.bytes))
                                .ok_or(Skip::NotSource)
                        });
                    match verdict {
                        Ok(lang) => to_parse.push((lang, file, hash)),
                        Err(Skip::NotSource) => {
                            let (text, utf8) = ingest::decode(file.bytes);
                            self.sources.insert(file.path.clone(), text);
                            self.entries.insert(
                                file.path,
                                Entry {
                                    hash,
                                    kept: Kept::Text,
                                    utf8,
                                },
                            );
                            applied.texts += 1;
                        }
                        Err(Skip::Secret) => {
                            self.secrets.insert(file.path);
                        }
                        Err(skip) => {
                            self.entries.insert(
                                file.path,
                                Entry {
                                    hash,
                                    kept: Kept::Out(skip_code(skip)),
                                    utf8: true,
                                },
                            );
                        }
                    }
                }
            }
        }
        let total = to_parse.len();
        let mut extractor = Extractor::default();
        for (done, (lang, file, hash)) in to_parse.into_iter().enumerate() {
            let path = file.path.clone();
            let Parsed { facts, text, utf8 } = ingest::extract_one(&mut extractor, lang, file);
            let at = self
                .facts
                .binary_search_by(|f| f.path.cmp(&path))
                .unwrap_or_else(|i| i);
            self.facts.insert(at, facts);
            self.sources.insert(path.clone(), text);
            self.entries.insert(
                path.clone(),
                Entry {
                    hash,
                    kept: Kept::Parsed,
                    utf8,
                },
            );
            applied.parsed.push(path);
            facts_changed = true;
            if !progress(Phase::Parse, done + 1, total) {
                return Err(Cancelled);
            }
        }
        if gitignore_changed {
            // Files the new rules ignore leave the project (those just parsed too).
            let filter = self.filter();
            let now_ignored: Vec<String> = self
                .entries
                .iter()
                .filter(|(path, e)| {
                    e.kept != Kept::Out(skip_code(Skip::Ignored))
                        && filter.check_path(path) == Err(Skip::Ignored)
                })
                .map(|(path, _)| path.clone())
                .collect();
            for path in now_ignored {
                self.changed_since_saved.insert(path.clone());
                changed.push(path.clone());
                let hash = self.entries.get(&path).map(|e| e.hash);
                facts_changed |= self.take_out(&path);
                if let Some(hash) = hash {
                    self.entries
                        .insert(path.clone(), Entry::new(hash, Some(Skip::Ignored)));
                }
                applied.removed.push(path);
            }
        }
        let parsed_at = clock();
        applied.phase_ms.push((Phase::Parse, parsed_at - started));
        if !facts_changed {
            self.resolution = earlier;
            return Ok((None, applied));
        }
        self.mark();
        // Marking depends on every file's stand-in macros: when they change, so may the facts
        // of files no change names.
        let same_macros = self
            .stand_in_macros()
            .into_iter()
            .eq(macros_before.iter().map(String::as_str));
        let earlier = earlier.filter(|_| same_macros);
        applied.resolve_parts.push(("mark", clock() - parsed_at));
        let edges = ingest::resolve_edges(&self.project, &self.facts, earlier, &changed, clock);
        self.resolution = Some(edges.memo);
        applied.resolved = edges.resolved;
        applied.resolve_parts.extend(edges.parts);
        applied.phase_ms.push((Phase::Resolve, clock() - parsed_at));
        if !progress(Phase::Resolve, 1, 1) {
            return Err(Cancelled);
        }
        applied.rebuilt = true;
        let mut stats = self.stats();
        stats.resolve = edges.stats;
        stats.phase_ms = applied.phase_ms.clone();
        Ok((Some((edges.graph, stats, edges.layers)), applied))
    }
}

impl FileRecord {
    /// Whether the path's text is kept (parsed, or text for `read` and `grep`).
    pub(crate) fn holds_text(&self) -> bool {
        self.text.is_some()
    }
}

impl Entry {
    /// What a full index's filter decided for a file: parsed (`None`), kept as text, or left out.
    pub(crate) fn new(hash: u64, verdict: Option<Skip>) -> Entry {
        Entry {
            hash,
            kept: match verdict {
                None => Kept::Parsed,
                Some(Skip::NotSource) => Kept::Text,
                Some(skip) => Kept::Out(skip_code(skip)),
            },
            utf8: true,
        }
    }

    /// Records whether the file's bytes were valid UTF-8.
    pub(crate) fn set_utf8(&mut self, utf8: bool) {
        self.utf8 = utf8;
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
