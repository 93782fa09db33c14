//! The selected node's details: kind, place, signature, callers, callees, cluster, processes and
//! impact, from the `deep_dive` tool; names in it select, places open the code view.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::describe::{DescribeButton, describable};
use super::state::{now_ms, use_app};

/// One caller or callee line of the answer.
#[derive(Debug, Clone, PartialEq)]
struct Link {
    id: String,
    location: String,
    confidence: f64,
    reason: String,
}

fn links(answer: &Value, key: &str) -> Vec<Link> {
    answer[key]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|item| Link {
                    id: item["id"].as_str().unwrap_or_default().to_owned(),
                    location: item["location"].as_str().unwrap_or_default().to_owned(),
                    confidence: item["confidence"].as_f64().unwrap_or_default(),
                    reason: item["reason"].as_str().unwrap_or_default().to_owned(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `Kind:path:Qualified.name` → `Qualified.name` (the path for files).
pub fn short_id(id: &str) -> &str {
    let mut parts = id.splitn(3, ':');
    let (_, path, rest) = (parts.next(), parts.next(), parts.next());
    rest.filter(|r| !r.is_empty()).or(path).unwrap_or(id)
}

#[component]
pub fn Details() -> impl IntoView {
    let app = use_app();
    let answer = RwSignal::new(None::<Result<Value, String>>);
    let shown_ms = RwSignal::new(None::<f64>);
    Effect::new(move |_| {
        app.describing.written.track();
        let Some(index) = app.selected.get() else {
            answer.set(None);
            return;
        };
        let Some(id) = app
            .picture
            .with_untracked(|p| p.as_ref().and_then(|p| p.node(index)).map(|n| n.id.clone()))
        else {
            return;
        };
        let asked_at = now_ms();
        app.call_json("deep_dive", json!({"name": id}), move |result| {
            answer.set(Some(result));
            shown_ms.set(Some(now_ms() - asked_at));
        });
    });
    let node = move || {
        let index = app.selected.get()?;
        app.picture
            .with(|p| p.as_ref().and_then(|p| p.node(index)).cloned())
    };
    let select = move |id: String| {
        if !app.select_id(&id) {
            app.call_json("deep_dive", json!({"name": id}), move |r| {
                answer.set(Some(r))
            });
        }
    };
    let link_list = move |items: Vec<Link>| {
        view! {
            <ul class="links">
                {items.into_iter().map(|l| {
                    let id = l.id.clone();
                    view! {
                        <li>
                            <a class="symbol" on:click=move |_| select(id.clone())>{short_id(&l.id).to_owned()}</a>
                            <span class="muted">" " {l.location} " · " {format!("{:.2}", l.confidence)} " " {l.reason}</span>
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
    };
    view! {
        <div class="details" data-testid="details" data-ms=move || shown_ms.get().map(|ms| format!("{ms:.1}"))>
            {move || match node() {
                None => view! { <p class="muted empty">"Click a node in the graph, or search with /, to see its details."</p> }.into_any(),
                Some(n) => {
                    let index = app.selected.get_untracked().unwrap_or_default();
                    view! {
                        <h3 data-testid="details-name">{n.label.clone()}</h3>
                        <p class="muted"><span class="kind" data-testid="details-kind">{n.kind.as_str()}</span> " · "
                            <a data-testid="details-location" on:click=move |_| app.open_code_of(index)>
                                {move || app.picture.with(|p| p.as_ref().and_then(|p| p.path_of(index)).map(str::to_owned)).unwrap_or_default()}
                                {format!(":{}", n.start_line)}
                            </a>
                        </p>
                    }.into_any()
                }
            }}
            {move || answer.get().map(|a| match a {
                Err(message) => view! { <p class="error">{message}</p> }.into_any(),
                Ok(a) => {
                    let callers = links(&a, "callers");
                    let callees = links(&a, "callees");
                    let processes: Vec<String> = a["processes"].as_array().map(|p| p.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()).unwrap_or_default();
                    let impact = &a["impact"];
                    view! {
                        {a["signature"].as_str().filter(|s| !s.is_empty()).map(|s| view! { <pre class="signature">{s.to_owned()}</pre> })}
                        {a["doc"].as_str().filter(|s| !s.is_empty()).map(|s| view! { <p class="doc">{s.to_owned()}</p> })}
                        <dl class="facts">
                            {a["owner"].as_str().map(|o| view! { <dt>"Owner"</dt><dd>{short_id(o).to_owned()}</dd> })}
                            {a["community"].as_str().map(|c| view! { <dt>"Cluster"</dt><dd data-testid="details-cluster">{c.to_owned()}</dd> })}
                            {(!processes.is_empty()).then(|| view! { <dt>"Processes"</dt><dd>{processes.join(" · ")}</dd> })}
                            {impact.is_object().then(|| view! {
                                <dt>"Impact"</dt>
                                <dd data-testid="details-impact">
                                    {format!("{} risk · {} dependents in {} files",
                                        impact["risk"].as_str().unwrap_or("?"),
                                        impact["total"].as_u64().unwrap_or_default(),
                                        impact["files"].as_u64().unwrap_or_default())}
                                    {impact["lower_bound"].as_str().map(|why| format!(" (at least: {why})"))}
                                </dd>
                            })}
                        </dl>
                        {node().filter(|n| describable(n.kind)).map(|n| view! {
                            <p><DescribeButton id=n.id.clone() kind=n.kind /></p>
                        })}
                        <h4 data-testid="details-callers">{format!("Callers ({})", a["callers_total"].as_u64().unwrap_or(callers.len() as u64))}</h4>
                        {link_list(callers)}
                        <h4 data-testid="details-callees">{format!("Callees ({})", a["callees_total"].as_u64().unwrap_or(callees.len() as u64))}</h4>
                        {link_list(callees)}
                    }.into_any()
                }
            })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_drop_the_kind_and_path() {
        assert_eq!(short_id("Method:shop/cart.py:Cart.add"), "Cart.add");
        assert_eq!(short_id("File:shop/cart.py"), "shop/cart.py");
        assert_eq!(short_id("plain"), "plain");
    }

    #[test]
    fn links_read_callers_and_tolerate_missing_fields() {
        let answer = json!({"callers": [{"id": "Function:a.py:f", "location": "a.py:3", "confidence": 0.9, "reason": "same-file"}, {}]});
        let callers = links(&answer, "callers");
        assert_eq!(callers.len(), 2);
        assert_eq!(callers[0].location, "a.py:3");
        assert_eq!(callers[1].id, "");
        assert!(links(&answer, "callees").is_empty());
    }
}
