//! Structural summaries: a terse line per folder, file and community — what it holds, its
//! most-called symbols, what it calls and what calls it — derived from the graph alone.

use rustc_hash::FxHashMap as HashMap;

use super::graph::{EdgeKind, Graph, NodeKind};

/// Central symbols and neighbours named in a summary.
pub const SUMMARY_ITEMS: usize = 3;
/// Calls at least this sure count (the tools' default floor).
const MIN_CONFIDENCE: f32 = 0.5;

/// Counts of what calls and is called, keyed by the neighbour's display name.
#[derive(Default)]
struct Links {
    calls: HashMap<String, usize>,
    called_by: HashMap<String, usize>,
}

/// Writes each folder's, file's and community's summary as its `doc` (docs index nothing: the
/// graph stays built).
pub fn summarize(mut graph: Graph) -> Graph {
    let callers = caller_counts(&graph);
    let summaries: Vec<(u32, String)> = [file_summaries, folder_summaries, community_summaries]
        .into_iter()
        .flat_map(|f| f(&graph, &callers))
        .collect();
    // Exactly the room they take: the built graph's strings would double for a few summaries.
    graph.reserve_strings(
        summaries.len(),
        summaries.iter().map(|(_, text)| text.len()).sum(),
    );
    for (node, text) in &summaries {
        graph.set_doc(*node, text);
    }
    graph
}

/// Gives the folders and files of `to` (a graph of edges, whose summaries are not written yet)
/// the summaries their namesakes have in `from` (the graph before a change), so that texts the
/// change did not touch stay as search indexed them; `Layers::add_to` writes them afresh.
pub fn carry_summaries(from: &Graph, to: &mut Graph) {
    let carried: Vec<(u32, &str)> = to
        .nodes()
        .filter(|n| matches!(n.kind(), NodeKind::File | NodeKind::Folder) && n.doc().is_empty())
        .filter_map(|n| {
            let old = from.find_at(n.kind(), n.file(), n.file())?;
            let doc = from.node(old)?.doc();
            (!doc.is_empty()).then_some((n.id, doc))
        })
        .collect();
    // Room for them at once: set one by one, the strings' text and index grew (and copied or
    // rehashed every string) several times.
    to.reserve_strings(
        carried.len(),
        carried.iter().map(|(_, doc)| doc.len()).sum(),
    );
    for (node, doc) in carried {
        to.set_doc(node, doc);
    }
}

/// Calls into each node from other symbols, at or above [`MIN_CONFIDENCE`].
fn caller_counts(graph: &Graph) -> Vec<usize> {
    let mut callers = vec![0usize; graph.node_count()];
    for e in graph.edges() {
        if e.kind == EdgeKind::Calls
            && e.confidence >= MIN_CONFIDENCE
            && e.from != e.to
            && let Some(c) = callers.get_mut(e.to as usize)
        {
            *c += 1;
        }
    }
    callers
}

/// The sure calls between two different files, as (caller, callee).
fn cross_file_calls(graph: &Graph) -> impl Iterator<Item = (u32, u32)> + '_ {
    graph
        .edges()
        .iter()
        .filter(|e| e.kind == EdgeKind::Calls && e.confidence >= MIN_CONFIDENCE)
        .filter(move |e| {
            let file = |n| graph.node(n).map(|x| x.data.file);
            file(e.from) != file(e.to)
        })
        .map(|e| (e.from, e.to))
}

/// The folder a path is in (`.` for the root).
fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or(".", |(dir, _)| dir)
}

/// True when `path` is `folder` or lies under it.
fn is_under(path: &str, folder: &str) -> bool {
    path.strip_prefix(folder)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The `SUMMARY_ITEMS` largest entries, most first, ties by name.
fn top(counts: &HashMap<String, usize>) -> Vec<&str> {
    let mut ranked: Vec<(&String, &usize)> = counts.iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    ranked
        .into_iter()
        .take(SUMMARY_ITEMS)
        .map(|(k, _)| k.as_str())
        .collect()
}

/// The most-called of `members` by qualified name (only symbols someone calls).
fn central(graph: &Graph, callers: &[usize], members: &[u32]) -> Vec<String> {
    let mut ranked: Vec<(usize, u32)> = members
        .iter()
        .filter(|&&m| graph.node(m).is_some_and(|n| n.kind().is_symbol()))
        .map(|&m| (callers.get(m as usize).copied().unwrap_or(0), m))
        .filter(|&(c, _)| c > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked
        .into_iter()
        .take(SUMMARY_ITEMS)
        .filter_map(|(_, m)| graph.node(m).map(|n| n.qualified().to_owned()))
        .collect()
}

/// "2 classes, 5 functions" for the symbols in `members`.
fn contents(graph: &Graph, members: &[u32]) -> String {
    let mut counts: Vec<(NodeKind, usize)> = Vec::new();
    for node in members.iter().filter_map(|&m| graph.node(m)) {
        let kind = match node.kind() {
            NodeKind::Method => NodeKind::Function,
            k if k.is_symbol() => k,
            _ => continue,
        };
        match counts.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((kind, 1)),
        }
    }
    counts.sort_by_key(|(k, _)| *k as usize);
    counts
        .iter()
        .map(|(k, n)| count(*n, &k.as_str().to_lowercase()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "1 file", "3 files", "2 classes".
fn count(n: usize, word: &str) -> String {
    match (n, word.ends_with('s')) {
        (1, _) => format!("1 {word}"),
        (_, true) => format!("{n} {word}es"),
        _ => format!("{n} {word}s"),
    }
}

/// A summary without its head (what it holds): the central symbols and neighbours, for answers
/// that state the counts themselves.
pub fn summary_tail(summary: &str) -> &str {
    summary.split_once(" · ").map_or("", |(_, tail)| tail)
}

/// Longest description written over a structural summary, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 600;

/// Puts `description` (the configured LLM's words, asked for by the user) on the line before the
/// structural summary of the folder, file or community with stable id `node`, in place of an
/// earlier description; returns the node's new doc. The description is made one line (markdown
/// emphasis and wrapping quotes dropped, cut at [`MAX_DESCRIPTION_CHARS`]).
pub fn describe(graph: &mut Graph, node: &str, description: &str) -> Result<String, String> {
    let id = graph
        .find_id(node)
        .ok_or_else(|| format!("no node {node} in this graph"))?;
    let (kind, doc) = match graph.node(id) {
        Some(n) => (n.kind(), n.doc().to_owned()),
        None => return Err(format!("no node {node} in this graph")),
    };
    if !matches!(
        kind,
        NodeKind::Folder | NodeKind::File | NodeKind::Community
    ) {
        return Err(format!(
            "{node} is a {}: only folders, files and communities have summaries to describe",
            kind.as_str()
        ));
    }
    let line = one_line(description);
    if line.is_empty() {
        return Err("the description is empty".into());
    }
    let structural = doc.split_once('\n').map_or(doc.as_str(), |(_, rest)| rest);
    let written = format!("{line}\n{structural}");
    graph.set_doc(id, &written);
    Ok(written)
}

/// `text` as one line of at most [`MAX_DESCRIPTION_CHARS`] characters, cut after a word.
fn one_line(text: &str) -> String {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '*' || c == '`'))
        .filter(|w| !w.is_empty() && *w != "·")
        .collect();
    let line = words.join(" ");
    let line = line.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
    if line.chars().count() <= MAX_DESCRIPTION_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(MAX_DESCRIPTION_CHARS).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{cut} …")
}

/// One summary line from its parts; empty parts are left out.
fn line(head: String, central: &[String], links: &Links) -> String {
    let mut parts = vec![head];
    if !central.is_empty() {
        parts.push(format!("central: {}", central.join(", ")));
    }
    for (label, counts) in [("calls", &links.calls), ("called by", &links.called_by)] {
        let names = top(counts);
        if !names.is_empty() {
            parts.push(format!("{label}: {}", names.join(", ")));
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join(" · ")
}

fn file_summaries(graph: &Graph, callers: &[usize]) -> Vec<(u32, String)> {
    let mut links: HashMap<&str, Links> = HashMap::default();
    for (from, to) in cross_file_calls(graph) {
        let (Some(a), Some(b)) = (graph.node(from), graph.node(to)) else {
            continue;
        };
        let bump =
            |m: &mut HashMap<String, usize>, k: &str| *m.entry(k.to_owned()).or_insert(0) += 1;
        bump(&mut links.entry(a.file()).or_default().calls, b.file());
        bump(&mut links.entry(b.file()).or_default().called_by, a.file());
    }
    graph
        .nodes_of_kind(NodeKind::File)
        .iter()
        .filter_map(|&f| graph.node(f))
        .map(|file| {
            let members = graph.nodes_in_file(file.file());
            let text = line(
                contents(graph, members),
                &central(graph, callers, members),
                links.get(file.file()).unwrap_or(&Links::default()),
            );
            (file.id, text)
        })
        .collect()
}

/// The branch of `path` directly below the deepest folder it shares with `inside`: how a
/// folder names what lies outside it (`a/b/c.py` seen from `a/x` is `a/b`).
fn branch<'p>(path: &'p str, inside: &str) -> &'p str {
    let mut end = 0;
    for (at, _) in path.match_indices('/') {
        let prefix = &path[..at];
        end = at;
        if !is_under(inside, prefix) {
            break;
        }
    }
    if end == 0 {
        folder_of(path)
    } else {
        &path[..end]
    }
}

/// The folders holding `path`, innermost first, with their paths.
fn ancestors<'p>(index: &HashMap<&str, u32>, path: &'p str) -> Vec<(u32, &'p str)> {
    let mut out = Vec::new();
    let mut dir = path;
    while let Some((parent, _)) = dir.rsplit_once('/') {
        dir = parent;
        if let Some(&id) = index.get(dir) {
            out.push((id, dir));
        }
    }
    out
}

fn folder_summaries(graph: &Graph, callers: &[usize]) -> Vec<(u32, String)> {
    let folders: Vec<(u32, &str)> = graph
        .nodes_of_kind(NodeKind::Folder)
        .iter()
        .filter_map(|&f| graph.node(f).map(|n| (f, n.file())))
        .collect();
    let index: HashMap<&str, u32> = folders.iter().map(|&(id, path)| (path, id)).collect();
    let ancestors = |path| ancestors(&index, path);
    let mut links: HashMap<u32, Links> = HashMap::default();
    for (from, to) in cross_file_calls(graph) {
        let (Some(a), Some(b)) = (graph.node(from), graph.node(to)) else {
            continue;
        };
        let (fa, fb) = (a.file(), b.file());
        for (folder, path) in ancestors(fa) {
            if !is_under(fb, path) {
                let m = &mut links.entry(folder).or_default().calls;
                *m.entry(branch(fb, path).to_owned()).or_insert(0) += 1;
            }
        }
        for (folder, path) in ancestors(fb) {
            if !is_under(fa, path) {
                let m = &mut links.entry(folder).or_default().called_by;
                *m.entry(branch(fa, path).to_owned()).or_insert(0) += 1;
            }
        }
    }
    let mut members: HashMap<u32, (usize, Vec<u32>)> = HashMap::default();
    for &file in graph.nodes_of_kind(NodeKind::File) {
        let Some(node) = graph.node(file) else {
            continue;
        };
        for (folder, _) in ancestors(node.file()) {
            let entry = members.entry(folder).or_default();
            entry.0 += 1;
            entry.1.extend_from_slice(graph.nodes_in_file(node.file()));
        }
    }
    folders
        .iter()
        .map(|&(id, _)| {
            let (files, symbols) = members.get(&id).map_or((0, &[][..]), |(n, s)| (*n, &s[..]));
            let what = contents(graph, symbols);
            let files = count(files, "file");
            let head = if what.is_empty() {
                files
            } else {
                format!("{files}; {what}")
            };
            let text = line(
                head,
                &central(graph, callers, symbols),
                links.get(&id).unwrap_or(&Links::default()),
            );
            (id, text)
        })
        .collect()
}

fn community_summaries(graph: &Graph, callers: &[usize]) -> Vec<(u32, String)> {
    let mut community_of: HashMap<u32, u32> = HashMap::default();
    for c in &graph.communities {
        for &m in &c.members {
            community_of.insert(m, c.node);
        }
    }
    let name = |c: u32| {
        graph
            .node(c)
            .map(|n| n.name().to_owned())
            .unwrap_or_default()
    };
    let mut links: HashMap<u32, Links> = HashMap::default();
    for e in graph.edges() {
        if e.kind != EdgeKind::Calls || e.confidence < MIN_CONFIDENCE {
            continue;
        }
        let (Some(&ca), Some(&cb)) = (community_of.get(&e.from), community_of.get(&e.to)) else {
            continue;
        };
        if ca != cb {
            *links
                .entry(ca)
                .or_default()
                .calls
                .entry(name(cb))
                .or_insert(0) += 1;
            *links
                .entry(cb)
                .or_default()
                .called_by
                .entry(name(ca))
                .or_insert(0) += 1;
        }
    }
    graph
        .communities
        .iter()
        .map(|c| {
            let mut folders: HashMap<String, usize> = HashMap::default();
            for node in c.members.iter().filter_map(|&m| graph.node(m)) {
                *folders
                    .entry(folder_of(node.file()).to_owned())
                    .or_insert(0) += 1;
            }
            let main = top(&folders)
                .first()
                .map_or(String::new(), |f| format!(", mostly in {f}/"));
            let head = format!("{} symbols{main}", c.members.len());
            let text = line(
                head,
                &central(graph, callers, &c.members),
                links.get(&c.node).unwrap_or(&Links::default()),
            );
            (c.node, text)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::fixture_graph;

    fn graph() -> Graph {
        let files = [
            (
                "shop/cart.py",
                "from shop.payment import charge\n\nclass Cart:\n    def total(self):\n        return 1\n    def checkout(self):\n        charge(self.total())\n",
            ),
            (
                "shop/payment.py",
                "def charge(amount):\n    return amount\n\ndef refund(amount):\n    return charge(-amount)\n",
            ),
            (
                "api/views.py",
                "from shop.cart import Cart\nfrom shop.payment import charge\n\ndef buy():\n    Cart().checkout()\n    charge(1)\n",
            ),
        ];
        fixture_graph(&files)
    }

    fn doc(g: &Graph, id: &str) -> String {
        let node = g.find_id(id).and_then(|n| g.node(n)).unwrap();
        node.doc().to_owned()
    }

    #[test]
    fn files_name_their_contents_central_symbols_and_neighbours() {
        let g = graph();
        assert_eq!(
            doc(&g, "File:shop/payment.py"),
            "2 functions · central: charge · called by: api/views.py, shop/cart.py"
        );
        assert_eq!(
            doc(&g, "File:shop/cart.py"),
            "1 class, 2 functions · central: Cart, Cart.total, Cart.checkout · calls: shop/payment.py · called by: api/views.py"
        );
    }

    #[test]
    fn folders_sum_up_what_lies_under_them_and_name_outside_branches() {
        let g = graph();
        assert_eq!(
            doc(&g, "Folder:shop"),
            "2 files; 1 class, 4 functions · central: charge, Cart, Cart.total · called by: api"
        );
        assert_eq!(doc(&g, "Folder:api"), "1 file; 1 function · calls: shop");
        assert_eq!(branch("a/b/c.py", "a/x"), "a/b");
        assert_eq!(branch("b/c.py", "a"), "b");
        assert_eq!(branch("c.py", "a"), ".");
    }

    #[test]
    fn communities_say_where_they_live_and_summaries_are_deterministic() {
        let (g, again) = (graph(), graph());
        for c in &g.communities {
            let text = g.node(c.node).unwrap().doc().to_owned();
            assert!(text.contains(" symbols, mostly in "), "{text}");
            assert_eq!(again.node(c.node).unwrap().doc(), text);
        }
    }

    #[test]
    fn a_description_goes_before_the_structure_and_replaces_an_earlier_one() {
        let mut g = graph();
        let structure = doc(&g, "Folder:shop");
        let written = describe(
            &mut g,
            "Folder:shop",
            "  \"The **shopping cart** and\n its payments · charges and refunds.\"  ",
        );
        assert_eq!(
            written.as_deref(),
            Ok(
                format!("The shopping cart and its payments charges and refunds.\n{structure}")
                    .as_str()
            )
        );
        assert_eq!(
            summary_tail(&doc(&g, "Folder:shop")),
            summary_tail(&structure)
        );
        describe(&mut g, "Folder:shop", "Cart and payments.").unwrap();
        assert_eq!(
            doc(&g, "Folder:shop"),
            format!("Cart and payments.\n{structure}")
        );
        let long = "word ".repeat(400);
        let written = describe(&mut g, "File:shop/cart.py", &long).unwrap();
        let (line, _) = written.split_once('\n').unwrap();
        assert!(
            line.ends_with(" …") && line.chars().count() <= MAX_DESCRIPTION_CHARS + 2,
            "{line}"
        );
    }

    #[test]
    fn only_folders_files_and_communities_are_described_and_never_with_nothing() {
        let mut g = graph();
        let before = doc(&g, "Folder:shop");
        assert!(describe(&mut g, "Function:shop/payment.py:charge", "Charges.").is_err());
        assert!(describe(&mut g, "Folder:nowhere", "Nothing.").is_err());
        assert!(describe(&mut g, "Folder:shop", " ** `` ").is_err());
        assert_eq!(doc(&g, "Folder:shop"), before);
    }
}
