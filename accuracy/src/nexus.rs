//! Nexus's side: indexes a folder with the engine and exports its CALLS edges between functions
//! and methods as (path, line of the name) sites, with each edge's confidence and reason.

use std::collections::HashMap;

use nexus_engine::Sources;
use nexus_engine::{EdgeKind, Graph};

use crate::reference::{Extents, Reference, Site};

/// One CALLS edge of the engine's graph.
#[derive(Debug, Clone, PartialEq)]
pub struct NexusEdge {
    pub caller: Site,
    pub callee: Site,
    pub callee_name: String,
    pub confidence: f32,
    pub reason: &'static str,
}

/// The engine's call graph in benchmark terms, with the function bodies it parsed.
#[derive(Debug, Default)]
pub struct Exported {
    pub edges: Vec<NexusEdge>,
    pub extents: Extents,
    /// Each function's qualified name within its file, `.`-separated.
    pub qualified: HashMap<Site, String>,
    /// CALLS edges left out because one end is not a function or method (module code,
    /// constructions of a class).
    pub other_edges: usize,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Whether `name` occurs in `line` as a whole identifier.
fn has_word(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + name.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The line of a definition's name: the first line of its span that holds the name as a word
/// (decorators and annotations come before it), else its first line.
pub fn name_line(lines: &[impl AsRef<str>], start: u32, end: u32, name: &str) -> u32 {
    (start..=end)
        .find(|&l| {
            l >= 1
                && lines
                    .get(l as usize - 1)
                    .is_some_and(|text| has_word(text.as_ref(), name))
        })
        .unwrap_or(start)
}

/// The explicit constructor of a class, which a reference indexer names as the target of
/// `new C(…)`: its `constructor` method (JavaScript, TypeScript) or a method named as the class
/// (Java).
fn constructor_of(graph: &Graph, node: u32) -> Option<u32> {
    let class = graph.node(node)?;
    if !class.kind().is_type() {
        return None;
    }
    graph
        .incoming(node)
        .filter(|e| e.kind == EdgeKind::MemberOf)
        .map(|e| e.from)
        .find(|&m| {
            graph.node(m).is_some_and(|n| {
                n.kind().is_callable() && (n.name() == "constructor" || n.name() == class.name())
            })
        })
}

fn callee_name(graph: &Graph, node: u32) -> String {
    let target = constructor_of(graph, node).unwrap_or(node);
    graph
        .node(target)
        .map(|n| n.name().to_owned())
        .unwrap_or_default()
}

/// Exports the graph's CALLS edges between functions and methods, one per (caller, callee) pair
/// with the highest confidence seen.
pub fn export(graph: &Graph, sources: &Sources) -> Exported {
    let mut lines_of: HashMap<&str, Vec<String>> = HashMap::new();
    let mut site_of: HashMap<u32, Site> = HashMap::new();
    let mut exported = Exported::default();
    for node in graph.nodes() {
        if !node.kind().is_callable() {
            continue;
        }
        let path = node.file();
        let lines = lines_of.entry(path).or_insert_with(|| {
            sources
                .get(path)
                .map_or_else(Vec::new, |t| t.lines().map(str::to_owned).collect())
        });
        let line = name_line(lines, node.start_line(), node.end_line(), node.name());
        let site = Site::new(path, line);
        exported
            .extents
            .insert(site.clone(), node.start_line(), node.end_line());
        exported
            .qualified
            .insert(site.clone(), node.qualified().replace("::", "."));
        site_of.insert(node.id, site);
    }
    let mut all = Vec::new();
    for edge in graph.edges() {
        if edge.kind != EdgeKind::Calls {
            continue;
        }
        let callee = site_of
            .get(&edge.to)
            .or_else(|| constructor_of(graph, edge.to).and_then(|c| site_of.get(&c)));
        let (Some(caller), Some(callee)) = (site_of.get(&edge.from), callee) else {
            exported.other_edges += 1;
            continue;
        };
        all.push(NexusEdge {
            caller: caller.clone(),
            callee: callee.clone(),
            callee_name: callee_name(graph, edge.to),
            confidence: edge.confidence,
            reason: edge.reason.as_str(),
        });
    }
    exported.edges = most_confident(all);
    exported
}

/// Names each edge's caller as the reference names it (`Reference::caller_at`): a call inside a
/// local function that the reference does not count as a function belongs to the function around
/// it, and a call to such a local function is left out. One edge per (caller, callee) is kept,
/// the most confident.
pub fn attribute_callers(edges: Vec<NexusEdge>, reference: &Reference) -> Attributed {
    let mut moved = 0;
    let mut to_locals = 0;
    let mut kept = Vec::with_capacity(edges.len());
    for mut edge in edges {
        // A call to such a local function: the reference has no edge to it, right or wrong.
        if reference
            .caller_at(&edge.callee)
            .is_some_and(|around| *around != edge.callee)
        {
            to_locals += 1;
            continue;
        }
        if let Some(caller) = reference.caller_at(&edge.caller)
            && *caller != edge.caller
        {
            edge.caller = caller.clone();
            moved += 1;
        }
        kept.push(edge);
    }
    Attributed {
        edges: most_confident(kept),
        moved,
        to_locals,
    }
}

/// Names each edge's ends by the identity rule both sides share, (file, qualified name): the
/// reference's site for that function when it has one, else the first of the engine's own
/// definitions of that name in that file. One edge per pair is kept, the most confident.
pub fn identify(
    edges: Vec<NexusEdge>,
    qualified: &HashMap<Site, String>,
    reference: &Reference,
) -> Vec<NexusEdge> {
    let mut first_of: HashMap<(&str, &str), &Site> = HashMap::new();
    for (site, name) in qualified {
        first_of
            .entry((site.path.as_str(), name.as_str()))
            .and_modify(|kept| {
                if site.line < kept.line {
                    *kept = site;
                }
            })
            .or_insert(site);
    }
    let canonical = |site: &Site| -> Site {
        let Some(name) = qualified.get(site) else {
            return reference.canonical.get(site).unwrap_or(site).clone();
        };
        reference
            .identify(site, name)
            .or_else(|| first_of.get(&(site.path.as_str(), name.as_str())).copied())
            .unwrap_or(site)
            .clone()
    };
    most_confident(edges.into_iter().map(|mut edge| {
        edge.caller = canonical(&edge.caller);
        edge.callee = canonical(&edge.callee);
        edge
    }))
}

/// One edge per (caller, callee), the most confident, in (caller, callee) order.
fn most_confident(edges: impl IntoIterator<Item = NexusEdge>) -> Vec<NexusEdge> {
    let mut best: HashMap<(Site, Site), NexusEdge> = HashMap::new();
    for edge in edges {
        best.entry((edge.caller.clone(), edge.callee.clone()))
            .and_modify(|kept| {
                if edge.confidence > kept.confidence {
                    *kept = edge.clone();
                }
            })
            .or_insert(edge);
    }
    let mut edges: Vec<NexusEdge> = best.into_values().collect();
    edges.sort_by(|a, b| (&a.caller, &a.callee).cmp(&(&b.caller, &b.callee)));
    edges
}

/// Edges named as the reference names functions.
pub struct Attributed {
    pub edges: Vec<NexusEdge>,
    /// Edges whose caller moved to the function around it.
    pub moved: usize,
    /// Edges left out because they call a local function the reference does not count.
    pub to_locals: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_line_skips_decorators_and_partial_words() {
        let lines = ["@cached(run_once)", "def running():", "def run(self):"];
        assert_eq!(name_line(&lines, 1, 3, "run"), 3);
        assert_eq!(name_line(&lines, 1, 3, "absent"), 1);
        assert_eq!(name_line(&lines, 0, 9, "running"), 2);
    }
    #[test]
    fn calls_in_and_to_local_functions_are_named_as_the_reference_names_them() {
        use crate::reference::Callable;
        let mut reference = Reference::default();
        for line in [1, 10] {
            reference.callables.insert(
                Site::new("m.ts", line),
                Callable {
                    name: format!("f{line}"),
                    owner: None,
                    qualified: format!("f{line}"),
                },
            );
        }
        reference.bodies.insert(Site::new("m.ts", 1), 1, 8);
        reference.bodies.insert(Site::new("m.ts", 10), 10, 12);
        let edge = |from: u32, to: u32, confidence: f32| NexusEdge {
            caller: Site::new("m.ts", from),
            callee: Site::new("m.ts", to),
            callee_name: "x".into(),
            confidence,
            reason: "test",
        };
        // A local function on line 3 inside f1 calls f10, as f1 itself does; f1 calls the local
        // function on line 5.
        let attributed = attribute_callers(
            vec![edge(3, 10, 0.5), edge(1, 10, 0.9), edge(1, 5, 0.95)],
            &reference,
        );
        assert_eq!(attributed.moved, 1);
        assert_eq!(attributed.to_locals, 1);
        assert_eq!(attributed.edges, vec![edge(1, 10, 0.9)]);
    }

    #[test]
    fn both_sides_name_a_function_by_its_qualified_name_in_its_file() {
        use crate::reference::Callable;
        let mut reference = Reference::default();
        let callable = |name: &str| Callable {
            name: name.into(),
            owner: None,
            qualified: name.into(),
        };
        reference
            .callables
            .insert(Site::new("m.py", 1), callable("a"));
        reference
            .callables
            .insert(Site::new("m.py", 5), callable("b"));
        reference
            .callables
            .insert(Site::new("m.py", 9), callable("b"));
        for line in [1, 5, 9] {
            let stands_for = if line == 9 { 5 } else { line };
            reference
                .canonical
                .insert(Site::new("m.py", line), Site::new("m.py", stands_for));
        }
        reference
            .by_name
            .insert(("m.py".into(), "b".into()), Site::new("m.py", 5));
        let qualified: HashMap<Site, String> = [(1, "a"), (9, "b"), (20, "c"), (30, "c")]
            .into_iter()
            .map(|(line, name)| (Site::new("m.py", line), name.to_owned()))
            .collect();
        let edge = |from: u32, to: u32, confidence: f32| NexusEdge {
            caller: Site::new("m.py", from),
            callee: Site::new("m.py", to),
            callee_name: "x".into(),
            confidence,
            reason: "test",
        };
        // The engine's second `def b` is the reference's first; its two `def c` are one.
        let named = identify(
            vec![
                edge(1, 9, 0.9),
                edge(1, 5, 0.5),
                edge(1, 30, 0.3),
                edge(1, 20, 0.8),
            ],
            &qualified,
            &reference,
        );
        assert_eq!(named, vec![edge(1, 5, 0.9), edge(1, 20, 0.8)]);
    }
}
