//! Sessions: calls of one session share a memory (30 minutes idle at most), so symbols already
//! returned shrink to a one-line reference, source lines already shown to a line range, sections
//! of `context`/`overview` already given to one line, file paths to the alias given with their
//! first mention, lists to the best few; code near the recent focus ranks first,
//! `context` and `overview` recall the trail. Emptied with each new graph; carried over (by
//! stable id) when the same project's graph follows a change on disk.

use std::collections::{HashMap, HashSet, VecDeque};

use nexus_engine::Graph;

/// Sessions kept at once; the least recently used goes first.
const MAX_SESSIONS: usize = 64;
/// File aliases per session; later files are named in full.
const MAX_PATHS: usize = 2_000;
/// Symbols remembered per session.
const MAX_SEEN: usize = 20_000;
/// Recent focus nodes per session.
const MAX_FOCUS: usize = 16;
/// Score factor for hits in a file the session focused on recently.
pub const FOCUS_BOOST: f64 = 1.25;
/// A session idle this long (milliseconds) is forgotten: the agent's context has likely moved on.
pub const SESSION_TTL_MS: f64 = 30.0 * 60.0 * 1000.0;
/// Calls a session remembers for its breadcrumb.
const MAX_HISTORY: usize = 4;
/// Focus symbols a breadcrumb names.
const TRAIL: usize = 4;

/// A list's length when the call sets none: `plain` without a session, the shorter `in_session`
/// within one — the session remembers the query, so the rest is one `offset`/`limit` call away,
/// and an agent paying per token rarely reads past the best few.
pub fn by_default(session: Option<&str>, plain: u32, in_session: u32) -> u32 {
    if session.is_some() { in_session } else { plain }
}

#[derive(Debug, Default)]
struct Session {
    seen: HashSet<u32>,
    /// Symbols whose full card (`deep_dive`) was returned.
    cards: HashSet<u32>,
    focus: VecDeque<u32>,
    last_use: u64,
    /// When it was last used, milliseconds since the Unix epoch.
    last_ms: f64,
    /// Its latest calls, newest first, as `tool {arguments}`.
    history: VecDeque<String>,
    /// Advice already given (how to widen a list, lower a threshold): said once per session.
    hints: HashSet<&'static str>,
    /// Source lines shown (by `deep_dive` or `read`), per file: sorted, disjoint, inclusive spans.
    shown: HashMap<String, Vec<(u32, u32)>>,
    /// Sections of `context` and `overview` given, by name: a hash of their text.
    sections: HashMap<String, u64>,
    /// File paths given, in order: the one at index `i` is called `f{i+1}` after its first mention.
    paths: Vec<String>,
    /// How many aliases were defined when the current call began.
    paths_before_call: usize,
    /// Calls begun and not yet settled: a `route` runs its steps as calls within its own.
    open_calls: u32,
}

/// Every session's memory.
#[derive(Debug, Default)]
pub struct Sessions {
    map: HashMap<String, Session>,
    uses: u64,
}

impl Sessions {
    /// Whether `node` was already returned in `session`.
    pub fn seen(&self, session: Option<&str>, node: u32) -> bool {
        session
            .and_then(|s| self.map.get(s))
            .is_some_and(|s| s.seen.contains(&node))
    }

    /// The sessions for `new`, the next version of `old` after files changed: each node is
    /// found again by its stable id; a node that is gone, or whose place or signature changed,
    /// counts as not returned yet (the agent has not seen this version of it).
    pub fn renumbered(self, old: &Graph, new: &Graph) -> Sessions {
        let same = |n: u32| -> Option<u32> {
            let before = old.node(n)?;
            let id = new.find_id(&before.stable_id())?;
            let after = new.node(id)?;
            let unchanged = (before.start_line(), before.end_line(), before.signature())
                == (after.start_line(), after.end_line(), after.signature());
            unchanged.then_some(id)
        };
        let found = |n: u32| -> Option<u32> { new.find_id(&old.node(n)?.stable_id()) };
        let map = self
            .map
            .into_iter()
            .map(|(name, s)| {
                let session = Session {
                    seen: s.seen.into_iter().filter_map(same).collect(),
                    cards: s.cards.into_iter().filter_map(same).collect(),
                    focus: s.focus.into_iter().filter_map(found).collect(),
                    last_use: s.last_use,
                    last_ms: s.last_ms,
                    history: s.history,
                    hints: s.hints,
                    // Files may have changed: their lines are shown afresh.
                    shown: HashMap::new(),
                    sections: s.sections,
                    paths: s.paths,
                    paths_before_call: 0,
                    open_calls: 0,
                };
                (name, session)
            })
            .collect();
        Sessions {
            map,
            uses: self.uses,
        }
    }

    /// Whether `node`'s full card was returned in `session` before.
    pub fn card_returned(&self, session: Option<&str>, node: u32) -> bool {
        session
            .and_then(|s| self.map.get(s))
            .is_some_and(|s| s.cards.contains(&node))
    }

    /// Remembers that `node`'s full card was returned in `session`.
    pub fn mark_card(&mut self, session: Option<&str>, node: u32) {
        if let Some(s) = session.and_then(|s| self.map.get_mut(s)) {
            s.cards.insert(node);
        }
    }

    /// The files of the session's recent focus nodes.
    pub fn focus_files<'g>(&self, session: Option<&str>, graph: &'g Graph) -> HashSet<&'g str> {
        session
            .and_then(|s| self.map.get(s))
            .map(|s| {
                s.focus
                    .iter()
                    .filter_map(|&n| graph.node(n).map(|x| x.file()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Opens `session` for a call at `now_ms` (a session idle past [`SESSION_TTL_MS`] starts
    /// afresh) and notes the call in its history.
    pub fn begin(&mut self, session: Option<&str>, now_ms: f64, call: String) {
        let Some(name) = session else { return };
        self.map
            .retain(|_, s| now_ms - s.last_ms <= SESSION_TTL_MS || s.last_ms > now_ms);
        let s = self.entry(name);
        s.last_ms = now_ms;
        if s.open_calls == 0 {
            s.paths_before_call = s.paths.len();
        }
        s.open_calls += 1;
        if s.history.front() != Some(&call) {
            s.history.push_front(call);
            s.history.truncate(MAX_HISTORY);
        }
    }

    /// The session's trail for `context` and `overview`: the symbols it focused on last (most
    /// recent first) and its latest calls before this one that are not about one of them (a
    /// search, a read); `None` for a session with neither.
    /// `label` names a node as the answer refers to it.
    pub fn breadcrumb(
        &self,
        session: Option<&str>,
        label: impl Fn(u32) -> Option<String>,
    ) -> Option<String> {
        let name = session?;
        let s = self.map.get(name)?;
        let labels: Vec<String> = s
            .focus
            .iter()
            .take(TRAIL)
            .filter_map(|&n| label(n))
            .collect();
        let focus: Vec<String> = labels.iter().map(|x| format!("`{x}`")).collect();
        // A call about a symbol of the trail adds nothing to it.
        let about_trail = |call: &&str| {
            let subject = call.split_once(' ').map_or("", |(_, rest)| rest);
            labels
                .iter()
                .any(|l| subject == l || subject.starts_with(&format!("{l} ")))
        };
        let calls: Vec<&str> = s
            .history
            .iter()
            .skip(1)
            .map(String::as_str)
            .filter(|c| !about_trail(c))
            .collect();
        if focus.is_empty() && calls.is_empty() {
            return None;
        }
        let mut line = format!("Session `{name}`");
        if !focus.is_empty() {
            line.push_str(&format!(" — looking at {}", focus.join(" ← ")));
        }
        if !calls.is_empty() {
            line.push_str(&format!(" — recent calls: {}", calls.join(" · ")));
        }
        line.push('.');
        Some(line)
    }

    /// Whether to give `hint` in this answer: always without a session, the first time within
    /// one — an agent told once how to widen a list need not read it again.
    pub fn hint_once(&mut self, session: Option<&str>, hint: &'static str) -> bool {
        match session {
            None => true,
            Some(name) => self.entry(name).hints.insert(hint),
        }
    }

    /// The parts of lines `start..=end` of `file` that `session` was shown before, as inclusive
    /// spans in line order.
    pub fn shown_lines(
        &self,
        session: Option<&str>,
        file: &str,
        start: u32,
        end: u32,
    ) -> Vec<(u32, u32)> {
        session
            .and_then(|s| self.map.get(s))
            .and_then(|s| s.shown.get(file))
            .map(|spans| {
                spans
                    .iter()
                    .filter(|&&(a, b)| a <= end && b >= start)
                    .map(|&(a, b)| (a.max(start), b.min(end)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Remembers that lines `start..=end` of `file` were shown in `session`.
    pub fn mark_lines(&mut self, session: Option<&str>, file: &str, start: u32, end: u32) {
        let Some(s) = session.and_then(|s| self.map.get_mut(s)) else {
            return;
        };
        if end < start {
            return;
        }
        let spans = s.shown.entry(file.to_owned()).or_default();
        spans.push((start, end));
        spans.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(spans.len());
        for &(a, b) in spans.iter() {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        *spans = merged;
    }

    /// Whether `session` was given the section `name` with this very `text` before; remembers
    /// it as given either way. Always false without a session.
    pub fn given_before(&mut self, session: Option<&str>, name: &str, text: &str) -> bool {
        let Some(s) = session.and_then(|s| self.map.get_mut(s)) else {
            return false;
        };
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(text, &mut hasher);
        let hash = std::hash::Hasher::finish(&hasher);
        s.sections.insert(name.to_owned(), hash) == Some(hash)
    }

    /// How an answer of `session` names `path`: the path itself without a session; in one, the
    /// first mention defines a short alias (`f3=django/db/models/query.py`) and later ones use
    /// it (`f3`), which [`Sessions::expand_path`] turns back into the path.
    pub fn path_ref(&mut self, session: Option<&str>, path: &str) -> String {
        let Some(s) = session.and_then(|s| self.map.get_mut(s)) else {
            return path.to_owned();
        };
        if let Some(i) = s.paths.iter().position(|p| p == path) {
            return format!("f{}", i + 1);
        }
        if s.paths.len() >= MAX_PATHS {
            return path.to_owned();
        }
        s.paths.push(path.to_owned());
        format!("f{}={path}", s.paths.len())
    }

    /// The path a session's alias (`f3`) stands for; `None` when `alias` is not one of its aliases.
    pub fn expand_path(&self, session: Option<&str>, alias: &str) -> Option<String> {
        let index: usize = alias.strip_prefix('f')?.parse().ok()?;
        let s = self.map.get(session?)?;
        s.paths
            .get(index.checked_sub(1)?)
            .filter(|p| !p.is_empty())
            .cloned()
    }

    /// Ends a call begun by [`Sessions::begin`]. When it is the outermost (a `route` step ends
    /// within its route), forgets the aliases defined since that the `answer` does not contain
    /// (their line was cut by a budget): their number is not given again, their file gets a new
    /// one.
    pub fn settle_paths(&mut self, session: Option<&str>, answer: &str) {
        let Some(s) = session.and_then(|s| self.map.get_mut(s)) else {
            return;
        };
        s.open_calls = s.open_calls.saturating_sub(1);
        if s.open_calls > 0 {
            return;
        }
        let from = s.paths_before_call.min(s.paths.len());
        for (i, path) in s.paths.iter_mut().enumerate().skip(from) {
            if !answer.contains(&format!("f{}={path}", i + 1)) {
                path.clear();
            }
        }
        s.paths_before_call = s.paths.len();
    }

    /// Remembers what a call of `session` returned and what it was about.
    pub fn record(
        &mut self,
        session: Option<&str>,
        returned: impl IntoIterator<Item = u32>,
        focus: Option<u32>,
    ) {
        let Some(name) = session else { return };
        let session = self.entry(name);
        for node in returned {
            if session.seen.len() >= MAX_SEEN {
                break;
            }
            session.seen.insert(node);
        }
        if let Some(node) = focus {
            session.focus.retain(|&n| n != node);
            session.focus.push_front(node);
            session.focus.truncate(MAX_FOCUS);
        }
    }

    /// The session called `name`, made (dropping the least recently used one past
    /// [`MAX_SESSIONS`]) if new, marked as just used.
    fn entry(&mut self, name: &str) -> &mut Session {
        self.uses += 1;
        if !self.map.contains_key(name) && self.map.len() >= MAX_SESSIONS {
            let oldest = self
                .map
                .iter()
                .min_by_key(|(_, s)| s.last_use)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                self.map.remove(&oldest);
            }
        }
        let session = self.map.entry(name.to_owned()).or_default();
        session.last_use = self.uses;
        session
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_follow_nodes_across_a_change_and_forget_changed_ones() {
        let old = nexus_engine::index(
            "p",
            vec![nexus_engine::SourceFile {
                path: "b.py".into(),
                bytes: b"def g():\n    return 1\n\ndef h():\n    return 2\n".to_vec(),
            }],
            &|| 0.0,
            &mut |_, _, _| true,
        )
        .map(|(g, _)| g)
        .unwrap_or_default();
        let new = nexus_engine::index(
            "p",
            vec![
                nexus_engine::SourceFile {
                    path: "a.py".into(),
                    bytes: b"def f():\n    pass\n".to_vec(),
                },
                nexus_engine::SourceFile {
                    path: "b.py".into(),
                    bytes: b"def g():\n    return 1\n\ndef h(x):\n    return x\n".to_vec(),
                },
            ],
            &|| 0.0,
            &mut |_, _, _| true,
        )
        .map(|(g, _)| g)
        .unwrap_or_default();
        let (Some(g_old), Some(h_old), Some(g_new), Some(h_new)) = (
            old.find_id("Function:b.py:g"),
            old.find_id("Function:b.py:h"),
            new.find_id("Function:b.py:g"),
            new.find_id("Function:b.py:h"),
        ) else {
            panic!("fixture symbols missing");
        };
        assert_ne!(
            g_old, g_new,
            "a new file earlier in path order shifts the dense ids"
        );
        let mut s = Sessions::default();
        s.record(Some("a"), [g_old, h_old], Some(h_old));
        s.mark_lines(Some("a"), "b.py", 1, 2);
        let s = s.renumbered(&old, &new);
        assert!(
            s.shown_lines(Some("a"), "b.py", 1, 5).is_empty(),
            "files may have changed: their lines are shown afresh"
        );
        assert!(
            s.seen(Some("a"), g_new),
            "an unchanged symbol stays seen under its new id"
        );
        assert!(
            !s.seen(Some("a"), h_new),
            "a changed signature is news to the agent"
        );
        assert_eq!(
            s.map.get("a").and_then(|x| x.focus.front().copied()),
            Some(h_new)
        );
    }

    #[test]
    fn shown_lines_merge_per_file_and_sections_are_given_once() {
        let mut s = Sessions::default();
        s.begin(Some("a"), 0.0, "read f".into());
        s.mark_lines(Some("a"), "f.py", 10, 20);
        s.mark_lines(Some("a"), "f.py", 21, 25);
        s.mark_lines(Some("a"), "f.py", 40, 41);
        s.mark_lines(None, "f.py", 1, 100);
        assert_eq!(
            s.shown_lines(Some("a"), "f.py", 5, 50),
            [(10, 25), (40, 41)]
        );
        assert_eq!(s.shown_lines(Some("a"), "f.py", 12, 14), [(12, 14)]);
        assert!(s.shown_lines(Some("a"), "g.py", 1, 50).is_empty());
        assert!(s.shown_lines(None, "f.py", 1, 50).is_empty());
        assert!(!s.given_before(Some("a"), "context schema", "x"));
        assert!(s.given_before(Some("a"), "context schema", "x"));
        assert!(
            !s.given_before(Some("a"), "context schema", "y"),
            "a changed section is given again"
        );
        assert!(!s.given_before(None, "context schema", "y"));
        assert!(!s.given_before(None, "context schema", "y"));
    }

    #[test]
    fn an_alias_cut_from_its_answer_is_forgotten_and_never_reused() {
        let mut s = Sessions::default();
        assert_eq!(s.path_ref(Some("a"), "x.py"), "x.py", "no such session yet");
        s.begin(Some("a"), 0.0, "search".into());
        assert_eq!(s.path_ref(Some("a"), "x.py"), "f1=x.py");
        assert_eq!(s.path_ref(Some("a"), "y.py"), "f2=y.py");
        assert_eq!(s.path_ref(Some("a"), "x.py"), "f1");
        // The budget cut the line that defined f2.
        s.settle_paths(Some("a"), "- `g` — f1=x.py:3\n- `h` — f1:9\n");
        assert_eq!(s.expand_path(Some("a"), "f1").as_deref(), Some("x.py"));
        assert_eq!(s.expand_path(Some("a"), "f2"), None);
        s.begin(Some("a"), 1.0, "read".into());
        assert_eq!(
            s.path_ref(Some("a"), "y.py"),
            "f3=y.py",
            "a new number, never f2 again"
        );
        assert_eq!(s.path_ref(None, "y.py"), "y.py");
        assert_eq!(
            s.expand_path(Some("b"), "f1"),
            None,
            "aliases belong to their session"
        );
        assert_eq!(s.expand_path(Some("a"), "f0"), None);
        assert_eq!(s.expand_path(Some("a"), "fx"), None);
        // A route's step ends inside the route: its aliases are checked against the route's
        // answer, which may leave the step out.
        s.settle_paths(Some("a"), "f3=y.py");
        s.begin(Some("a"), 2.0, "route".into());
        s.begin(Some("a"), 2.0, "impact".into());
        assert_eq!(s.path_ref(Some("a"), "z.py"), "f4=z.py");
        s.settle_paths(Some("a"), "- `k` — f4=z.py:1");
        assert_eq!(s.expand_path(Some("a"), "f4").as_deref(), Some("z.py"));
        s.settle_paths(Some("a"), "## impact\ntruncated: 1 more items not shown");
        assert_eq!(s.expand_path(Some("a"), "f4"), None);
        assert_eq!(by_default(None, 10, 5), 10);
        assert_eq!(by_default(Some("a"), 10, 5), 5);
    }

    #[test]
    fn sessions_remember_apart_and_the_oldest_goes_first() {
        let mut s = Sessions::default();
        s.record(Some("a"), [1, 2], Some(7));
        s.record(None, [3], Some(3));
        assert!(s.seen(Some("a"), 1) && !s.seen(Some("b"), 1) && !s.seen(None, 1));
        s.mark_card(Some("a"), 7);
        assert!(s.card_returned(Some("a"), 7) && !s.card_returned(Some("a"), 1));
        assert_eq!(
            s.map.get("a").map(|x| x.focus.front().copied()),
            Some(Some(7))
        );
        for i in 0..MAX_SESSIONS {
            s.record(Some(&format!("s{i}")), [i as u32], None);
        }
        assert!(
            !s.seen(Some("a"), 1),
            "the least recently used session was dropped"
        );
        assert!(s.seen(Some("s0"), 0));
        assert_eq!(s.map.len(), MAX_SESSIONS);
    }
}
