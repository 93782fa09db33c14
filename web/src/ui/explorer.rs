//! The explorer on the left: the file tree, the clusters with their members, and the processes
//! with their steps in order. Everything in it selects nodes in the graph.

use std::collections::BTreeMap;

use leptos::prelude::*;
use serde_json::{Value, json};

use super::describe::DescribeButton;
use super::details::short_id;
use super::state::{Picture, use_app};
use nexus_engine::NodeKind;

/// Colour of a followed process's steps.
const PROCESS_COLOR: &str = "#f59e0b";
/// Members listed under an opened cluster.
const CLUSTER_MEMBERS: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pane {
    Files,
    Clusters,
    Processes,
}

/// A folder of the file tree: sub-folders and (name, drawn index) files, both sorted by name.
#[derive(Debug, Clone, Default, PartialEq)]
struct Folder {
    folders: BTreeMap<String, Folder>,
    files: Vec<(String, u32)>,
}

fn file_tree(picture: &Picture) -> Folder {
    let mut root = Folder::default();
    for (i, node) in picture.view.nodes.iter().enumerate() {
        if node.kind != NodeKind::File {
            continue;
        }
        let path = node.id.trim_start_matches("File:");
        let mut folder = &mut root;
        let mut parts: Vec<&str> = path.split('/').collect();
        let name = parts.pop().unwrap_or_default();
        for part in parts {
            folder = folder.folders.entry(part.to_owned()).or_default();
        }
        folder.files.push((name.to_owned(), i as u32));
    }
    fn sort(folder: &mut Folder) {
        folder.files.sort();
        folder.folders.values_mut().for_each(sort);
    }
    sort(&mut root);
    root
}

/// A folder of the tree; its contents are built only while it is open (large trees stay cheap).
fn folder_view(path: String, name: String, folder: Folder, depth: usize) -> AnyView {
    let app = use_app();
    let count = count_files(&folder);
    let open = RwSignal::new(depth < 1);
    let contents = StoredValue::new_local(folder);
    let body = move || {
        if !open.get() {
            return None;
        }
        let folder = contents.get_value();
        let children = folder
            .folders
            .into_iter()
            .map(|(n, f)| folder_view(format!("{path}/{n}"), n, f, depth + 1))
            .collect_view();
        let files = folder
                .files
                .into_iter()
                .map(|(n, i)| {
                    view! {
                        <li><a class="file" on:click=move |_| { app.select(i); app.open_code_of(i); }>{n}</a></li>
                    }
                })
                .collect_view();
        let id = format!("Folder:{path}");
        Some(view! {
            <ul class="tree">
                <li><DescribeButton id=id kind=NodeKind::Folder /></li>
                {children}{files}
            </ul>
        })
    };
    view! {
        <details prop:open=move || open.get()>
            <summary on:click=move |e| { e.prevent_default(); open.update(|o| *o = !*o); }>
                {name}<span class="muted">{format!(" {count}")}</span>
            </summary>
            {body}
        </details>
    }
    .into_any()
}

fn count_files(folder: &Folder) -> usize {
    folder.files.len() + folder.folders.values().map(count_files).sum::<usize>()
}

#[component]
pub fn Explorer() -> impl IntoView {
    let pane = RwSignal::new(Pane::Files);
    let tab = move |p: Pane, label: &'static str, key: &'static str| {
        view! {
            <button class="tab" class:active=move || pane.get() == p data-testid=format!("pane-{key}") on:click=move |_| pane.set(p)>{label}</button>
        }
    };
    view! {
        <nav class="tabs">
            {tab(Pane::Files, "Files", "files")}
            {tab(Pane::Clusters, "Clusters", "clusters")}
            {tab(Pane::Processes, "Processes", "processes")}
        </nav>
        <div class="pane" class:hidden=move || pane.get() != Pane::Files><Files /></div>
        <div class="pane" class:hidden=move || pane.get() != Pane::Clusters>
            // Built only while shown: hundreds of clusters cost nothing until asked for.
            {move || (pane.get() == Pane::Clusters).then(|| view! { <Clusters /> })}
        </div>
        <div class="pane" class:hidden=move || pane.get() != Pane::Processes><Processes /></div>
    }
}

#[component]
fn Files() -> impl IntoView {
    let app = use_app();
    view! {
        <div data-testid="files">
            {move || app.picture.with(|p| p.as_ref().map(|p| {
                let tree = file_tree(p);
                let total = count_files(&tree);
                view! {
                    <p class="muted">{format!("{total} files")}</p>
                    {tree.folders.into_iter().map(|(n, f)| folder_view(n.clone(), n, f, 0)).collect_view()}
                    <ul class="tree">{tree.files.into_iter().map(|(n, i)| view! {
                        <li><a class="file" on:click=move |_| { app.select(i); app.open_code_of(i); }>{n}</a></li>
                    }).collect_view()}</ul>
                }
            }))}
        </div>
    }
}

#[component]
fn Clusters() -> impl IntoView {
    let app = use_app();
    let open = RwSignal::new(None::<u32>);
    let members = move |group: u32| {
        app.picture.with_untracked(|p| {
            let Some(p) = p.as_ref() else {
                return Vec::new();
            };
            let mut list: Vec<u32> = (0..p.view.nodes.len() as u32)
                .filter(|i| p.node(*i).is_some_and(|n| n.group == group))
                .collect();
            list.sort_by(|a, b| {
                let w = |i: &u32| p.node(*i).map_or(0.0, |n| n.weight);
                w(b).total_cmp(&w(a))
            });
            list.truncate(CLUSTER_MEMBERS);
            list.into_iter()
                .filter_map(|i| p.node(i).map(|n| (i, n.label.clone(), n.kind)))
                .collect()
        })
    };
    view! {
        <ul class="list" data-testid="clusters">
            {move || app.picture.with(|p| p.as_ref().map(|p| {
                let mut groups: Vec<(u32, String, u32, String)> = p.view.groups.iter().enumerate()
                    .map(|(i, g)| (i as u32, g.label.clone(), g.size, g.id.clone())).collect();
                groups.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
                groups.into_iter().map(|(g, label, size, id)| view! {
                    <li>
                        <a class="cluster" on:click=move |_| {
                            let list = members(g);
                            open.set(if open.get_untracked() == Some(g) { None } else { Some(g) });
                            if let Some((first, _, _)) = list.first() { app.select(*first) }
                        }>{label}</a>
                        <span class="muted">{format!(" {size}")}</span>
                        {move || (open.get() == Some(g)).then(|| view! {
                            <ul class="members">
                            {(!id.is_empty()).then(|| view! { <li><DescribeButton id=id.clone() kind=NodeKind::Community /></li> })}
                            {members(g).into_iter().map(|(i, label, kind)| view! {
                                <li><a class="symbol" on:click=move |_| app.select(i)>{label}</a><span class="muted">{format!(" {kind}")}</span></li>
                            }).collect_view()}
                            </ul>
                        })}
                    </li>
                }).collect_view()
            }))}
        </ul>
    }
}

/// One process from `overview`.
#[derive(Debug, Clone, PartialEq)]
struct ProcessRow {
    id: String,
    name: String,
    steps: u64,
}

fn process_rows(overview: &Value) -> Vec<ProcessRow> {
    overview["processes"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|p| ProcessRow {
                    id: p["id"].as_str().unwrap_or_default().to_owned(),
                    name: p["name"].as_str().unwrap_or_default().to_owned(),
                    steps: p["steps"].as_u64().unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[component]
fn Processes() -> impl IntoView {
    let app = use_app();
    let rows = RwSignal::new(None::<Result<Vec<ProcessRow>, String>>);
    let open = RwSignal::new(None::<(String, Result<Value, String>)>);
    Effect::new(move |_| {
        if app.picture.with(Option::is_none) {
            return;
        }
        open.set(None);
        app.call_json(
            "overview",
            json!({"show_clusters": false, "limit": 100}),
            move |r| rows.set(Some(r.map(|v| process_rows(&v)))),
        );
    });
    let follow = move |id: String| {
        let key = id.clone();
        app.call_json(
            "explore",
            json!({"id": id, "type": "process", "limit": 200}),
            move |result| {
                if let Ok(answer) = &result {
                    let steps: Vec<u32> = answer["steps"]
                        .as_array()
                        .map(|s| {
                            app.picture.with_untracked(|p| {
                                s.iter()
                                    .filter_map(|step| {
                                        p.as_ref()?.find(step["id"].as_str().unwrap_or_default())
                                    })
                                    .collect()
                            })
                        })
                        .unwrap_or_default();
                    app.light(steps.iter().copied(), PROCESS_COLOR);
                    if let Some(first) = steps.first() {
                        app.select(*first);
                    }
                }
                open.set(Some((key, result)));
            },
        );
    };
    view! {
        <div data-testid="processes">
            {move || match rows.get() {
                None => view! { <p class="muted">"…"</p> }.into_any(),
                Some(Err(message)) => view! { <p class="error">{message}</p> }.into_any(),
                Some(Ok(list)) if list.is_empty() => view! { <p class="muted empty">"No processes found: no entry point calls far enough."</p> }.into_any(),
                Some(Ok(list)) => view! {
                    <ul class="list">{list.into_iter().map(|row| {
                        let id = row.id.clone();
                        let this = row.id.clone();
                        view! {
                            <li>
                                <a class="process" on:click=move |_| follow(id.clone())>{row.name}</a>
                                <span class="muted">{format!(" {} steps", row.steps)}</span>
                                {move || open.with(|o| o.as_ref().filter(|(k, _)| *k == this).map(|(_, r)| match r {
                                    Err(message) => view! { <p class="error">{message.clone()}</p> }.into_any(),
                                    Ok(answer) => view! {
                                        <ol class="steps" data-testid="process-steps">{answer["steps"].as_array().cloned().unwrap_or_default().into_iter().map(|step| {
                                            let id = step["id"].as_str().unwrap_or_default().to_owned();
                                            let label = short_id(&id).to_owned();
                                            view! {
                                                <li><a class="symbol" on:click=move |_| { app.select_id(&id); }>{label}</a>
                                                <span class="muted">{format!(" {}", step["location"].as_str().unwrap_or_default())}</span></li>
                                            }
                                        }).collect_view()}</ol>
                                    }.into_any(),
                                }))}
                            </li>
                        }
                    }).collect_view()}</ul>
                }.into_any(),
            }}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_engine::layout::layout;
    use nexus_engine::sample::sample_graph;

    #[test]
    fn the_file_tree_holds_every_file_once_by_folder() {
        let picture = Picture::new(layout(&sample_graph()));
        let tree = file_tree(&picture);
        let files = picture
            .view
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::File)
            .count();
        assert_eq!(count_files(&tree), files);
        let shop = &tree.folders["shop"];
        let names: Vec<&str> = shop.files.iter().map(|(n, _)| n.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(names.contains(&"cart.py"));
    }

    #[test]
    fn process_rows_come_from_the_overview() {
        let rows = process_rows(
            &json!({"processes": [{"id": "Process:a:main → b", "name": "main → b", "steps": 4}]}),
        );
        assert_eq!(
            rows,
            vec![ProcessRow {
                id: "Process:a:main → b".into(),
                name: "main → b".into(),
                steps: 4
            }]
        );
        assert!(process_rows(&json!({})).is_empty());
    }
}
