//! The hosted registry on the hub's sockets: `HostedList` is answered with `Hosted` (and again on
//! every change when watched), `HostedCall` runs through the registry and ends in `HostedResult`.

use std::sync::Arc;
use std::time::Duration;

use nexus_shared::{Frame, Outcome};

use super::{CallRequest, Host, fit};
use crate::outbox::FrameSender;

/// Who the activity feed names for calls made from the page.
pub const UI_CALLER: &str = "ui";

pub fn handle(host: Arc<Host>, tx: &FrameSender, frame: Frame) {
    match frame {
        Frame::HostedList { watch } => {
            let _ = tx.send(fit::registry_frame(host.report()));
            if watch {
                tokio::spawn(push_changes(host, tx.clone()));
            }
        }
        Frame::HostedCall {
            id,
            tool,
            args,
            timeout_ms,
        } => {
            let tx = tx.clone();
            tokio::spawn(async move {
                let request = CallRequest {
                    name: tool,
                    args,
                    timeout: timeout_ms.map(Duration::from_millis),
                    caller: UI_CALLER.into(),
                    // A page's call is the user's own click; a peer's was confirmed by its
                    // agent's user (`mcp.rs`). Denied tools still never run.
                    approved: true,
                    session: None,
                    // A page or a peer cannot answer the server's questions during the call.
                    asker: None,
                };
                let started = std::time::Instant::now();
                let reply = host.execute(request).await;
                let ms = started.elapsed().as_millis() as u64;
                let frame = match reply {
                    Ok(reply) => fit::result_frame(id, &reply.result, ms),
                    Err(err) => Frame::HostedResult {
                        id,
                        outcome: Outcome::Err(err.to_tool_error()),
                        ms,
                    },
                };
                let _ = tx.send(frame);
            });
        }
        other => {
            let _ = tx.send(Frame::Error {
                message: format!("{} is not a hosted-registry request", other.kind()),
            });
        }
    }
}

/// Sends the registry again after each change (at most every 250 ms) until the socket closes.
async fn push_changes(host: Arc<Host>, tx: FrameSender) {
    let mut changes = host.subscribe();
    changes.mark_unchanged();
    loop {
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            _ = tx.closed() => return,
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
        changes.mark_unchanged();
        if tx.send(fit::registry_frame(host.report())).is_err() {
            return;
        }
    }
}

/// `nexus-bridge status`: asks the hub for its hosted registry over a monitor socket.
pub async fn fetch(
    sink: &mut crate::peer::Sink,
    stream: &mut crate::peer::Stream,
) -> Result<serde_json::Value, String> {
    use futures_util::SinkExt;
    let ask = Frame::HostedList { watch: false }.encode();
    sink.send(tokio_tungstenite::tungstenite::Message::Text(ask.into()))
        .await
        .map_err(|err| format!("cannot ask the hub for its hosted servers: {err}"))?;
    let limit = Duration::from_millis(nexus_shared::limits::HELLO_TIMEOUT_MS);
    loop {
        match tokio::time::timeout(limit, crate::peer::next_frame(stream)).await {
            Ok(Some(Ok(Frame::Hosted { registry }))) => return Ok(registry),
            Ok(Some(Ok(Frame::Error { message }))) => return Err(message),
            Ok(Some(_)) => continue,
            Ok(None) => return Err("the hub closed the socket".into()),
            Err(_) => return Err("the hub did not list its hosted servers in time".into()),
        }
    }
}
