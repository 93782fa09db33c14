//! Communities: Leiden (modularity) over the symbol graph — calls, heritage and membership,
//! undirected — labelled from the members' folders and names, with a cohesion score.

use rustc_hash::FxHashMap as HashMap;

use leiden_rs::{GraphDataBuilder, Leiden, LeidenConfig};

use super::graph::{CommunityInfo, EdgeKind, Graph, GraphBuilder, NewNode, NodeKind, Reason};

/// Communities smaller than this are not materialised as nodes.
const MIN_MEMBERS: usize = 3;
/// Above this many symbol units, Leiden clusters files instead (its cost grows with the square
/// of the node count; Django has about 16,000 units).
const MAX_SYMBOL_UNITS: usize = 60_000;
/// Fixed seed: the same graph always gets the same communities.
const SEED: u64 = 42;

/// Detects communities and adds them to the graph as Community nodes with MEMBER_OF edges.
pub fn detect(graph: Graph) -> Graph {
    let symbols: Vec<u32> = graph
        .nodes()
        .filter(|n| n.kind().is_symbol() && n.kind() != NodeKind::Module)
        .map(|n| n.id)
        .collect();
    let (unit_of, unit_count) = units(&graph, &symbols);
    let weight = |kind: EdgeKind| match kind {
        EdgeKind::Calls => Some(1.0),
        EdgeKind::Extends | EdgeKind::Implements => Some(2.0),
        EdgeKind::MemberOf => Some(3.0),
        _ => None,
    };
    let mut pairs: HashMap<(usize, usize), f64> = HashMap::default();
    for edge in graph.edges() {
        let (Some(w), Some(&a), Some(&b)) = (
            weight(edge.kind),
            unit_of.get(&edge.from),
            unit_of.get(&edge.to),
        ) else {
            continue;
        };
        if a != b {
            *pairs.entry((a.min(b), a.max(b))).or_insert(0.0) += w * edge.confidence as f64;
        }
    }
    if pairs.is_empty() {
        return graph;
    }
    let mut builder = GraphDataBuilder::new(unit_count);
    for (&(a, b), &w) in &pairs {
        if builder.add_edge(a, b, w).is_err() {
            return graph;
        }
    }
    let Ok(data) = builder.build() else {
        return graph;
    };
    let config = LeidenConfig::builder()
        .seed(SEED)
        .max_iterations(10)
        .build();
    let Ok(output) = Leiden::new(config).run(&data) else {
        return graph;
    };
    let membership = output.partition.as_slice();

    let mut groups: HashMap<usize, Vec<u32>> = HashMap::default();
    for &symbol in &symbols {
        if let Some(&c) = unit_of.get(&symbol).and_then(|&u| membership.get(u)) {
            groups.entry(c).or_default().push(symbol);
        }
    }
    let mut groups: Vec<Vec<u32>> = groups
        .into_values()
        .filter(|g| g.len() >= MIN_MEMBERS)
        .collect();
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));

    let mut internal = vec![0.0f64; groups.len()];
    let mut total = vec![0.0f64; groups.len()];
    let mut group_of_unit: Vec<Option<usize>> = vec![None; unit_count];
    for (g, members) in groups.iter().enumerate() {
        for m in members {
            if let Some(slot) = unit_of.get(m).and_then(|&u| group_of_unit.get_mut(u)) {
                *slot = Some(g);
            }
        }
    }
    for (&(a, b), &w) in &pairs {
        let group = |u: usize| group_of_unit.get(u).copied().flatten();
        let (ga, gb) = (group(a), group(b));
        for g in [ga, gb].into_iter().flatten() {
            total[g] += w;
        }
        if let (Some(x), Some(y)) = (ga, gb)
            && x == y
        {
            internal[x] += 2.0 * w;
        }
    }

    let labels: Vec<String> = groups
        .iter()
        .map(|members| label(&graph, members))
        .collect();
    // What the clustering used goes before the graph's tables grow for the new nodes.
    drop((pairs, unit_of, group_of_unit, output, data));
    let mut used: HashMap<String, usize> = HashMap::default();
    let named: Vec<(String, f32, String)> = groups
        .iter()
        .enumerate()
        .map(|(g, members)| {
            let count = used.entry(labels[g].clone()).or_insert(0);
            *count += 1;
            let name = if *count == 1 {
                labels[g].clone()
            } else {
                format!("{} ({})", labels[g], count)
            };
            let cohesion = if total[g] > 0.0 {
                (internal[g] / total[g]).min(1.0) as f32
            } else {
                0.0
            };
            let doc = format!("{} symbols · cohesion {cohesion:.2}", members.len());
            (name, cohesion, doc)
        })
        .collect();
    let mut b = GraphBuilder::extend(graph);
    b.reserve_exact(
        named.len(),
        groups.iter().map(Vec::len).sum(),
        2 * named.len(),
        named
            .iter()
            .map(|(name, _, doc)| name.len() + doc.len())
            .sum(),
    );
    let mut infos = Vec::with_capacity(groups.len());
    for (members, (name, cohesion, doc)) in groups.into_iter().zip(named) {
        let node = b.add_node(NewNode {
            kind: NodeKind::Community,
            name: &name,
            qualified: &name,
            file: "",
            start_line: 0,
            end_line: 0,
            signature: "",
            doc: &doc,
            exported: true,
        });
        for &m in &members {
            b.add_edge(m, node, EdgeKind::MemberOf, 1.0, Reason::Community);
        }
        infos.push(CommunityInfo {
            node,
            members,
            cohesion,
        });
    }
    b.set_communities(infos);
    b.build()
}

/// The units Leiden clusters: every symbol is one, except methods, which join the type that owns
/// them (they always land together); on very large graphs, files. Fewer nodes matter: leiden-rs's refinement clears buffers
/// sized to the node count for each community, so its cost grows with the square of that count.
/// Returns symbol → unit index, and the number of units.
fn units(graph: &Graph, symbols: &[u32]) -> (HashMap<u32, usize>, usize) {
    let owner = |n: u32| {
        graph
            .outgoing(n)
            .find(|e| {
                e.kind == EdgeKind::MemberOf && graph.node(e.to).is_some_and(|t| t.kind().is_type())
            })
            .map(|e| e.to)
    };
    let is_owned_method =
        |n: u32| graph.node(n).is_some_and(|x| x.kind() == NodeKind::Method) && owner(n).is_some();
    let mut unit_of: HashMap<u32, usize> =
        HashMap::with_capacity_and_hasher(symbols.len(), Default::default());
    let mut count = 0;
    for &s in symbols.iter().filter(|&&s| !is_owned_method(s)) {
        unit_of.insert(s, count);
        count += 1;
    }
    for &s in symbols.iter().filter(|&&s| is_owned_method(s)) {
        let unit = owner(s).and_then(|o| unit_of.get(&o).copied());
        let unit = unit.unwrap_or_else(|| {
            count += 1;
            count - 1
        });
        unit_of.insert(s, unit);
    }
    if count <= MAX_SYMBOL_UNITS {
        return (unit_of, count);
    }
    // Very large graphs: one unit per file.
    let mut file_unit: HashMap<&str, usize> = HashMap::default();
    for &s in symbols {
        let file = graph.node(s).map_or("", |n| n.file());
        let next = file_unit.len();
        let unit = *file_unit.entry(file).or_insert(next);
        unit_of.insert(s, unit);
    }
    (unit_of, file_unit.len())
}

/// "folder · Token": the members' most common folder and most common name part.
fn label(graph: &Graph, members: &[u32]) -> String {
    let mut folders: HashMap<&str, usize> = HashMap::default();
    let mut tokens: HashMap<String, usize> = HashMap::default();
    for node in members.iter().filter_map(|&m| graph.node(m)) {
        let dir = node.file().rsplit_once('/').map_or("", |(d, _)| d);
        let folder = dir.rsplit('/').next().unwrap_or(dir);
        *folders.entry(folder).or_insert(0) += 1;
        for token in name_tokens(node.name()) {
            *tokens.entry(token).or_insert(0) += 1;
        }
    }
    let top = |map: HashMap<String, usize>| {
        map.into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(k, _)| k)
    };
    let folder = top(folders
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect())
    .filter(|f| !f.is_empty());
    let token = top(tokens);
    match (folder, token) {
        (Some(f), Some(t)) => format!("{f} · {t}"),
        (Some(f), None) => f,
        (None, Some(t)) => t,
        (None, None) => "root".into(),
    }
}

/// Meaningful parts of an identifier: `get_user_by_id` → user; `CartTotals` → cart, totals.
fn name_tokens(name: &str) -> Vec<String> {
    const STOP: &[&str] = &[
        "get", "set", "is", "has", "to", "from", "the", "init", "new", "self", "test", "by", "of",
        "and", "for", "with",
    ];
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if (c == '_' || c == '-' || (c.is_uppercase() && prev_lower)) && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if c != '_' && c != '-' {
            current.push(c.to_ascii_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !current.is_empty() {
        out.push(current);
    }
    out.retain(|t| t.len() > 2 && !STOP.contains(&t.as_str()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{SourceFile, index};

    #[test]
    fn methods_join_the_unit_of_their_class() {
        let files = vec![SourceFile {
            path: "shop.py".into(),
            bytes: b"class Cart:\n    def add(self):\n        pass\n\n    def total(self):\n        pass\n\ndef helper():\n    pass\n".to_vec(),
        }];
        let (g, _) = index("t", files, &|| 0.0, &mut |_, _, _| true).unwrap();
        let id = |s: &str| g.find_id(s).unwrap();
        let symbols = [
            id("Class:shop.py:Cart"),
            id("Method:shop.py:Cart.add"),
            id("Method:shop.py:Cart.total"),
            id("Function:shop.py:helper"),
        ];
        let (unit_of, count) = units(&g, &symbols);
        assert_eq!(count, 2);
        assert_eq!(unit_of[&symbols[1]], unit_of[&symbols[0]]);
        assert_eq!(unit_of[&symbols[2]], unit_of[&symbols[0]]);
        assert_ne!(unit_of[&symbols[3]], unit_of[&symbols[0]]);
    }

    #[test]
    fn tokens_split_camel_and_snake_case() {
        assert_eq!(name_tokens("get_user_by_id"), ["user"]);
        assert_eq!(name_tokens("CartTotals"), ["cart", "totals"]);
    }

    #[test]
    fn two_clusters_of_calls_become_two_communities() {
        let mut files = Vec::new();
        for (dir, prefix) in [("billing", "invoice"), ("search", "query")] {
            let mut text = String::new();
            for i in 0..5 {
                text.push_str(&format!("def {prefix}_{i}():\n"));
                for j in 0..5 {
                    if i != j {
                        text.push_str(&format!("    {prefix}_{j}()\n"));
                    }
                }
            }
            files.push(SourceFile {
                path: format!("{dir}/{prefix}.py"),
                bytes: text.into_bytes(),
            });
        }
        let (g, _) = index("t", files, &|| 0.0, &mut |_, _, _| true).unwrap();
        assert_eq!(g.communities.len(), 2, "{:?}", g.communities);
        let mut labels: Vec<String> = g
            .communities
            .iter()
            .map(|c| g.node(c.node).unwrap().name().to_owned())
            .collect();
        labels.sort();
        assert_eq!(labels, ["billing · invoice", "search · query"]);
        for c in &g.communities {
            assert_eq!(c.members.len(), 5);
            assert!((c.cohesion - 1.0).abs() < 1e-6);
            assert_eq!(
                g.incoming(c.node)
                    .filter(|e| e.kind == EdgeKind::MemberOf)
                    .count(),
                5
            );
        }
    }
}
