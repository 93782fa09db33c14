//! Health of this bridge for the `nexus://health` MCP resource and `nexus-bridge status`:
//! the mode, the tab and its graph, the peers, the watched `--repo` folder, every tool's circuit.

use std::time::Instant;

use nexus_shared::Role;
use serde_json::{Value, json};

use crate::hub::HubView;
use crate::peer::{self, JoinError};
use crate::relay::{Relay, Route};
use crate::token;

/// The URI of the health resource.
pub const HEALTH_URI: &str = "nexus://health";

/// The health report of this process, as JSON.
pub fn report(relay: &Relay) -> Value {
    let route = relay.route();
    let view = match &route {
        Route::Hub => relay.hub().view(),
        Route::Peer(link) => link.view(),
        Route::Joining(_) | Route::Unreachable(_) => HubView::default(),
    };
    let mut report = view_json(relay.port(), route.mode(), &view);
    let circuits: serde_json::Map<String, Value> = relay
        .breakers()
        .states(Instant::now())
        .into_iter()
        .map(|(tool, state)| (tool.as_str().to_owned(), state.as_str().into()))
        .collect();
    report["circuits"] = Value::Object(circuits);
    report["tool_compiler"] = crate::chat::jit::health();
    if let Route::Unreachable(problem) | Route::Joining(Some(problem)) = route {
        report["problem"] = problem.into();
    }
    report
}

fn view_json(port: u16, mode: &str, view: &HubView) -> Value {
    let graph = match (&view.project, view.stats) {
        (Some(project), Some(stats)) => json!({
            "project": project,
            "files": stats.files,
            "nodes": stats.nodes,
            "edges": stats.edges,
        }),
        _ => Value::Null,
    };
    let mut report = json!({
        "mode": mode,
        "port": port,
        "browser_connected": view.browser,
        "graph_loaded": !graph.is_null(),
        "graph": graph,
        "peers": view.peers,
    });
    if let Some(repo) = &view.repo {
        report["repo"] = serde_json::to_value(repo).unwrap_or_default();
    }
    report
}

/// `nexus-bridge status`: asks the hub on `port` for its state. `Err` says why there is none.
pub async fn status(port: u16) -> Result<Value, String> {
    let path = token::path(port)?;
    let file =
        token::read(&path, port).map_err(|err| format!("no Nexus hub on port {port}: {err}"))?;
    let (mut sink, mut stream) =
        peer::handshake(port, Role::Monitor, file.token, "nexus-bridge status")
            .await
            .map_err(|err| match err {
                JoinError::Unreachable(why) => format!("no Nexus hub on port {port}: {why}"),
                rejected => rejected.to_string(),
            })?;
    let view = peer::first_status(&mut stream)
        .await
        .map_err(|err| err.to_string())?;
    let mut report = view_json(port, "hub", &view);
    report["pid"] = file.pid.into();
    report["hosted"] = crate::host::wire::fetch(&mut sink, &mut stream)
        .await
        .unwrap_or_else(|err| serde_json::json!({ "error": err }));
    Ok(report)
}
