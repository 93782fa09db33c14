//! Processes (execution flows): entry points scored by shape (few callers, many callees),
//! visibility, names and framework decorators — tests excluded — traced breadth-first along
//! CALLS with depth and branching caps, deduplicated, labelled "Entry → Terminal".

use std::collections::{HashMap, HashSet, VecDeque};

use super::graph::{EdgeKind, Graph, GraphBuilder, NewNode, NodeRef, ProcessInfo, Reason};

const MAX_DEPTH: u32 = 8;
const MAX_BRANCHING: usize = 4;
const MAX_STEPS: usize = 30;
const MAX_PROCESSES: usize = 300;
/// Calls below this confidence are not followed.
const MIN_CONFIDENCE: f32 = 0.5;
/// A trace sharing this much of its steps with a kept one is a duplicate.
const DUPLICATE_OVERLAP: f64 = 0.8;

const ENTRY_NAMES: &[&str] = &[
    "main",
    "run",
    "start",
    "serve",
    "handle",
    "handler",
    "execute",
    "dispatch",
    "process",
    "cli",
    "command",
    "listen",
    "bootstrap",
    "setup",
    "init_app",
    "create_app",
];
const ENTRY_DECORATORS: &[&str] = &[
    "route",
    "get",
    "post",
    "put",
    "delete",
    "patch",
    "command",
    "task",
    "receiver",
    "api_view",
    "app",
    "click",
    "GetMapping",
    "PostMapping",
    "RequestMapping",
];

/// True when a decorator or annotation name marks a framework entry point (`app.route`, `Command`).
pub fn is_entry_decorator(decorator: &str) -> bool {
    let last = decorator.rsplit('.').next().unwrap_or(decorator);
    ENTRY_DECORATORS
        .iter()
        .any(|d| last.eq_ignore_ascii_case(d))
}

/// True for code under test folders or named like a test.
pub fn is_test(node: &NodeRef) -> bool {
    let file = node.file();
    let name = node.name();
    file.split('/')
        .any(|p| matches!(p, "test" | "tests" | "__tests__" | "testing" | "spec"))
        || file.ends_with("_test.go")
        || file.ends_with("_test.py")
        || file.contains(".test.")
        || file.contains(".spec.")
        || file
            .rsplit('/')
            .next()
            .is_some_and(|f| f.starts_with("test_"))
        || name.starts_with("test_")
        || name.starts_with("Test")
}

fn calls_out<'g>(graph: &'g Graph, node: u32) -> impl Iterator<Item = u32> + 'g {
    graph
        .outgoing(node)
        .filter(|e| e.kind == EdgeKind::Calls && e.confidence >= MIN_CONFIDENCE)
        .map(|e| e.to)
}

fn score(graph: &Graph, node: &NodeRef, decorators: &HashSet<u32>) -> Option<f64> {
    if !node.kind().is_callable() || is_test(node) {
        return None;
    }
    let callees = calls_out(graph, node.id).count();
    if callees < 2 {
        return None;
    }
    let callers = graph
        .incoming(node.id)
        .filter(|e| e.kind == EdgeKind::Calls && e.confidence >= MIN_CONFIDENCE)
        .count();
    let mut score = callees as f64 / (1.0 + callers as f64 * 2.0);
    if node.data.exported {
        score *= 1.5;
    }
    let lower = node.name().to_ascii_lowercase();
    if ENTRY_NAMES
        .iter()
        .any(|n| lower == *n || lower.starts_with(&format!("{n}_")) || lower.starts_with("on_"))
    {
        score *= 2.0;
    }
    if decorators.contains(&node.id) {
        score *= 2.5;
    }
    Some(score)
}

/// Finds processes and adds them as Process nodes with STEP_IN_PROCESS edges.
pub fn detect(graph: Graph, decorated_entries: &HashSet<u32>) -> Graph {
    let mut candidates: Vec<(f64, u32)> = graph
        .nodes()
        .filter_map(|n| score(&graph, &n, decorated_entries).map(|s| (s, n.id)))
        .collect();
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));

    let mut kept: Vec<ProcessInfo> = Vec::new();
    let mut kept_sets: Vec<HashSet<u32>> = Vec::new();
    for (_, entry) in candidates {
        if kept.len() >= MAX_PROCESSES {
            break;
        }
        let (steps, depth, terminal) = trace(&graph, entry);
        if steps.len() < 3 {
            continue;
        }
        let set: HashSet<u32> = steps.iter().copied().collect();
        let duplicate = kept_sets.iter().any(|k| {
            let shared = set.intersection(k).count() as f64;
            shared / set.len().min(k.len()).max(1) as f64 >= DUPLICATE_OVERLAP
        });
        if duplicate {
            continue;
        }
        kept_sets.push(set);
        kept.push(ProcessInfo {
            node: 0,
            entry,
            terminal,
            steps,
            depth,
        });
    }

    let names: Vec<(String, String)> = kept
        .iter()
        .map(|p| {
            let name = |n: u32| {
                graph
                    .node(n)
                    .map_or_else(String::new, |x| x.name().to_owned())
            };
            let file = graph
                .node(p.entry)
                .map_or_else(String::new, |x| x.file().to_owned());
            (format!("{} → {}", name(p.entry), name(p.terminal)), file)
        })
        .collect();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let named: Vec<(String, String, String)> = kept
        .iter()
        .zip(names)
        .map(|(p, (label, file))| {
            let count = seen.entry(label.clone()).or_insert(0);
            *count += 1;
            let label = if *count == 1 {
                label
            } else {
                format!("{label} ({count})")
            };
            let doc = format!("{} steps · depth {}", p.steps.len(), p.depth);
            (label, file, doc)
        })
        .collect();
    let mut b = GraphBuilder::extend(graph);
    b.reserve_exact(
        named.len(),
        kept.iter().map(|p| p.steps.len()).sum(),
        3 * named.len(),
        named
            .iter()
            .map(|(label, file, doc)| label.len() + file.len() + doc.len())
            .sum(),
    );
    for (p, (label, file, doc)) in kept.iter_mut().zip(named) {
        p.node = b.add_node(NewNode {
            kind: super::graph::NodeKind::Process,
            name: &label,
            qualified: &label,
            file: &file,
            start_line: 0,
            end_line: 0,
            signature: "",
            doc: &doc,
            exported: true,
        });
        for (order, &step) in p.steps.iter().enumerate() {
            // Confidence falls with distance from the entry: later steps are reached through more guesses.
            let confidence = 1.0 - (order as f32 / (MAX_STEPS as f32 * 2.0));
            b.add_edge(
                step,
                p.node,
                EdgeKind::StepInProcess,
                confidence,
                Reason::ProcessStep,
            );
        }
    }
    b.set_processes(kept);
    b.build()
}

/// Breadth-first trace: (steps in visiting order, depth reached, terminal step).
fn trace(graph: &Graph, entry: u32) -> (Vec<u32>, u32, u32) {
    let mut steps = vec![entry];
    let mut seen: HashSet<u32> = HashSet::from([entry]);
    let mut queue = VecDeque::from([(entry, 0u32)]);
    let (mut depth, mut terminal) = (0, entry);
    while let Some((node, d)) = queue.pop_front() {
        if d >= MAX_DEPTH || steps.len() >= MAX_STEPS {
            continue;
        }
        let mut next: Vec<u32> = calls_out(graph, node)
            .filter(|n| {
                !seen.contains(n)
                    && graph
                        .node(*n)
                        .is_some_and(|x| x.kind().is_callable() && !is_test(&x))
            })
            .collect();
        // Prefer callees that lead further (more callees of their own).
        next.sort_by_key(|&n| std::cmp::Reverse(calls_out(graph, n).count()));
        next.dedup();
        for n in next.into_iter().take(MAX_BRANCHING) {
            if steps.len() >= MAX_STEPS {
                break;
            }
            seen.insert(n);
            steps.push(n);
            queue.push_back((n, d + 1));
            if d + 1 > depth {
                depth = d + 1;
                terminal = n;
            }
        }
    }
    (steps, depth, terminal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::fixture_graph as graph;

    #[test]
    fn entry_is_traced_to_its_deepest_call_and_tests_are_excluded() {
        let g = graph(&[
            (
                "app/cli.py",
                "def main():\n    load()\n    save()\n\ndef load():\n    parse()\n    check()\n\ndef parse():\n    tokenize()\n\ndef tokenize():\n    return 1\n\ndef check():\n    return 2\n\ndef save():\n    return 3\n",
            ),
            (
                "tests/test_cli.py",
                "from app.cli import main, load\n\ndef test_main():\n    main()\n    load()\n",
            ),
        ]);
        assert_eq!(g.processes.len(), 1, "{:?}", g.processes);
        let p = &g.processes[0];
        let name = |n: u32| g.node(n).unwrap().name().to_owned();
        assert_eq!(g.node(p.node).unwrap().name(), "main → tokenize");
        let steps: Vec<String> = p.steps.iter().map(|&s| name(s)).collect();
        assert_eq!(
            steps,
            ["main", "load", "save", "parse", "check", "tokenize"]
        );
        assert_eq!(p.depth, 3);
        assert_eq!(
            g.incoming(p.node)
                .filter(|e| e.kind == EdgeKind::StepInProcess)
                .count(),
            6
        );
    }
}
