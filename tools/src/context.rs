//! `context`: what the loaded project is — counts, hotspots, folder outline (with each folder's
//! structural summary) and the graph schema.
//! The first call an agent makes; compact Markdown by default, JSON text on request.

use std::collections::BTreeMap;
use std::fmt::Write;

use nexus_shared::params::{ContextFocus, ContextParams, Format};
use serde_json::json;

use nexus_engine::{EdgeKind, Graph, NodeKind, summary_tail};

const HOTSPOTS: usize = 5;
/// Folders listed in the structure outline.
const OUTLINE_FOLDERS: usize = 25;
/// Folders listed in a session's outline unless `focus` asks for the structure: the largest
/// few, the rest one `focus` away.
const SESSION_FOLDERS: usize = 8;

/// How long ago something happened, in a few characters.
fn ago(ms: f64) -> String {
    let s = (ms / 1000.0).max(0.0);
    match s {
        s if s < 90.0 => format!("{s:.0} s ago"),
        s if s < 5400.0 => format!("{:.0} min ago", s / 60.0),
        s if s < 172_800.0 => format!("{:.0} h ago", s / 3600.0),
        s => format!("{:.0} days ago", s / 86_400.0),
    }
}

/// `age_ms`: how long ago the graph last changed (indexed or updated from disk), when known.
/// `given_before(section, text)`: whether the session was given this section with this text
/// before (and it remembers it now); such a section shrinks to one line unless `focus` asks for
/// it. Without a session it is always false. `in_session`: the call has a session, so the
/// outline lists the largest few folders unless `focus` asks for the structure.
pub fn run(
    graph: &Graph,
    params: &ContextParams,
    age_ms: Option<f64>,
    breadcrumb: Option<String>,
    in_session: bool,
    given_before: &mut dyn FnMut(&str, &str) -> bool,
) -> String {
    let show = |focus: ContextFocus| params.focus.is_none_or(|f| f == focus);
    if params.format == Some(Format::Json) {
        let mut answer = json_answer(graph, &show);
        if let Some(age) = age_ms {
            answer["changed_ms_ago"] = json!(age.max(0.0).round() as u64);
        }
        if let Some(trail) = breadcrumb {
            answer["session"] = json!(trail);
        }
        return answer.to_string();
    }
    let mut out = String::new();
    let _ = writeln!(out, "# {}", graph.project);
    if let Some(trail) = breadcrumb {
        let _ = writeln!(out, "{trail}");
    }
    if show(ContextFocus::Stats) {
        let changed = age_ms.map_or_else(String::new, |age| format!(" · updated {}", ago(age)));
        let _ = writeln!(
            out,
            "{} files · {} nodes · {} edges{changed}",
            graph.file_count(),
            graph.node_count(),
            graph.edge_count()
        );
        let _ = writeln!(out, "Nodes: {}", counts(kind_counts(graph)));
        let _ = writeln!(out, "Edges: {}", counts(edge_counts(graph)));
    }
    let folders = if in_session && params.focus.is_none() {
        SESSION_FOLDERS
    } else {
        OUTLINE_FOLDERS
    };
    let sections = [
        (
            ContextFocus::Hotspots,
            "hotspots",
            "Hotspots (most callers)",
        ),
        (
            ContextFocus::Structure,
            "structure",
            "Structure (files per folder, grouped two levels deep)",
        ),
        (ContextFocus::Schema, "schema", "Schema"),
    ];
    for (focus, name, title) in sections {
        if !show(focus) {
            continue;
        }
        let text = match focus {
            ContextFocus::Structure => structure_section(graph, folders),
            ContextFocus::Schema => schema_section(graph),
            _ => hotspots_section(graph),
        };
        let known = given_before(name, &text);
        if known && params.focus.is_none() {
            let _ = writeln!(
                out,
                "\n## {title}: as given before (focus=\"{name}\" repeats it)"
            );
        } else {
            let _ = write!(out, "\n## {title}\n{text}");
        }
    }
    out
}

fn hotspots_section(graph: &Graph) -> String {
    let mut out = String::new();
    for (id, callers, location) in hotspots(graph) {
        let _ = writeln!(out, "- {id} — {callers} callers · {location}");
    }
    out
}

fn structure_section(graph: &Graph, folders: usize) -> String {
    let mut out = String::new();
    let (shown, more) = outline(graph, folders);
    for (folder, files) in shown {
        let tail = folder_summary(graph, &folder);
        let _ = match summary_tail(&tail) {
            "" => writeln!(out, "- {folder}/ ({files} files)"),
            tail => writeln!(out, "- {folder}/ ({files} files) — {tail}"),
        };
    }
    if more > 0 && folders < OUTLINE_FOLDERS {
        let _ = writeln!(
            out,
            "- … {more} smaller folders (focus=\"structure\" lists {OUTLINE_FOLDERS})"
        );
    } else if more > 0 {
        let _ = writeln!(
            out,
            "- … {more} smaller folders (`overview` or `cypher` for more)"
        );
    }
    out
}

fn schema_section(graph: &Graph) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Node labels: {}", label_list(graph));
    let _ = writeln!(
        out,
        "Edge types: {} (each with confidence 0..1 and reason)",
        EdgeKind::ALL.map(EdgeKind::as_str).join(", ")
    );
    let _ = writeln!(
        out,
        "Example: MATCH (a)-[:CALLS]->(b {{name:'checkout'}}) RETURN a.id, b.id"
    );
    out
}

fn json_answer(graph: &Graph, show: &dyn Fn(ContextFocus) -> bool) -> serde_json::Value {
    let mut answer = json!({ "project": graph.project });
    if show(ContextFocus::Stats) {
        answer["stats"] = json!({
            "files": graph.file_count(),
            "nodes": graph.node_count(),
            "edges": graph.edge_count(),
            "node_kinds": kind_counts(graph),
            "edge_types": edge_counts(graph),
        });
    }
    if show(ContextFocus::Hotspots) {
        answer["hotspots"] = hotspots(graph)
            .into_iter()
            .map(|(id, callers, location)| json!({"id": id, "callers": callers, "location": location}))
            .collect();
    }
    if show(ContextFocus::Structure) {
        let (shown, more) = outline(graph, OUTLINE_FOLDERS);
        let summaries: BTreeMap<&String, String> = shown
            .keys()
            .map(|folder| (folder, folder_summary(graph, folder)))
            .filter(|(_, s)| !s.is_empty())
            .collect();
        answer["folder_summaries"] = json!(summaries);
        answer["folders"] = json!(shown);
        answer["more_folders"] = json!(more);
    }
    if show(ContextFocus::Schema) {
        answer["schema"] = json!({
            "node_labels": label_list(graph),
            "edge_types": EdgeKind::ALL.map(EdgeKind::as_str),
        });
    }
    answer
}

fn kind_counts(graph: &Graph) -> BTreeMap<&'static str, usize> {
    NodeKind::ALL
        .iter()
        .map(|k| (k.as_str(), graph.count_nodes(*k)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

fn edge_counts(graph: &Graph) -> BTreeMap<&'static str, usize> {
    EdgeKind::ALL
        .iter()
        .map(|k| (k.as_str(), graph.count_edges(*k)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

fn counts(map: BTreeMap<&'static str, usize>) -> String {
    map.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

fn label_list(graph: &Graph) -> String {
    kind_counts(graph)
        .into_keys()
        .collect::<Vec<_>>()
        .join(", ")
}

/// Symbols with the most callers: (id, callers, file:line).
fn hotspots(graph: &Graph) -> Vec<(String, usize, String)> {
    graph
        .tally()
        .most_called
        .iter()
        .take(HOTSPOTS)
        .filter_map(|&(id, n)| {
            graph
                .node(id)
                .map(|node| (node.stable_id(), n, node.location()))
        })
        .collect()
}

/// The structural summary of the folder at `path` (empty for the root or an unknown folder).
fn folder_summary(graph: &Graph, path: &str) -> String {
    graph
        .find_id(&format!("Folder:{path}"))
        .and_then(|id| graph.node(id))
        .map(|n| n.doc().to_owned())
        .unwrap_or_default()
}

/// The folders at most two levels deep with the files anywhere under them; the largest
/// `folders` by path, and how many more there are.
fn outline(graph: &Graph, folders: usize) -> (BTreeMap<String, usize>, usize) {
    let mut under: BTreeMap<String, usize> = BTreeMap::new();
    for (folder, files) in &graph.tally().folders {
        let top: Vec<&str> = folder.split('/').take(2).collect();
        *under.entry(top.join("/")).or_insert(0) += files;
    }
    let mut ranked: Vec<(String, usize)> = under.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let more = ranked.len().saturating_sub(folders);
    ranked.truncate(folders);
    (ranked.into_iter().collect(), more)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_engine::sample::sample_graph;

    #[test]
    fn the_stats_line_says_how_fresh_the_graph_is() {
        let graph = sample_graph();
        let params = ContextParams::default();
        let fresh = run(&graph, &params, Some(12_000.0), None, false, &mut |_, _| {
            false
        });
        assert!(
            fresh
                .lines()
                .nth(1)
                .is_some_and(|l| l.ends_with(" · updated 12 s ago")),
            "{fresh}"
        );
        assert!(
            run(
                &graph,
                &params,
                Some(3.0 * 3_600_000.0),
                None,
                false,
                &mut |_, _| false
            )
            .contains("updated 3 h ago")
        );
        assert!(!run(&graph, &params, None, None, false, &mut |_, _| false).contains("updated"));
    }
    #[test]
    fn markdown_covers_stats_hotspots_structure_and_schema() {
        let text = run(
            &sample_graph(),
            &ContextParams::default(),
            None,
            None,
            false,
            &mut |_, _| false,
        );
        assert!(
            text.starts_with("# sample-shop\n3 files · 11 nodes · 21 edges"),
            "{text}"
        );
        assert!(
            text.contains("- Class:shop/cart.py:Cart — 1 callers · shop/cart.py:3"),
            "{text}"
        );
        assert!(text.contains("- shop/ (3 files)"), "{text}");
        assert!(
            text.contains("Edge types: CONTAINS, DEFINES, IMPORTS, CALLS"),
            "{text}"
        );
    }

    #[test]
    fn a_session_outlines_the_largest_folders_and_focus_lists_more() {
        let files = (0..12)
            .flat_map(|folder| {
                (0..=folder).map(move |file| nexus_engine::SourceFile {
                    path: format!("d{folder:02}/f{file}.py"),
                    bytes: b"x = 1\n".to_vec(),
                })
            })
            .collect();
        let graph = nexus_engine::index("p", files, &|| 0.0, &mut |_, _, _| true)
            .map(|(g, _)| g)
            .unwrap_or_default();
        let structure = |text: &str| text.lines().filter(|l| l.starts_with("- d")).count();
        let plain = run(
            &graph,
            &ContextParams::default(),
            None,
            None,
            false,
            &mut |_, _| false,
        );
        assert_eq!(structure(&plain), 12, "{plain}");
        let brief = run(
            &graph,
            &ContextParams::default(),
            None,
            None,
            true,
            &mut |_, _| false,
        );
        assert!(
            structure(&brief) == SESSION_FOLDERS
                && brief.contains("- d11/ (12 files)")
                && !brief.contains("- d00/")
                && brief.contains("- … 4 smaller folders (focus=\"structure\" lists 25)"),
            "{brief}"
        );
        let params = ContextParams {
            focus: Some(ContextFocus::Structure),
            format: None,
        };
        let focused = run(&graph, &params, None, None, true, &mut |_, _| false);
        assert_eq!(structure(&focused), 12, "{focused}");
    }

    #[test]
    fn focus_limits_the_answer() {
        let params = ContextParams {
            focus: Some(ContextFocus::Structure),
            format: None,
        };
        let text = run(&sample_graph(), &params, None, None, false, &mut |_, _| {
            false
        });
        assert!(text.contains("## Structure"));
        assert!(!text.contains("## Schema") && !text.contains("nodes ·"));
    }

    #[test]
    fn json_format_is_parseable() {
        let params = ContextParams {
            focus: None,
            format: Some(Format::Json),
        };
        let value: serde_json::Value = serde_json::from_str(&run(
            &sample_graph(),
            &params,
            None,
            None,
            false,
            &mut |_, _| false,
        ))
        .unwrap();
        assert_eq!(value["stats"]["files"], 3);
        assert_eq!(value["stats"]["edge_types"]["CALLS"], 6);
        assert_eq!(value["folders"]["shop"], 3);
    }
}
