//! A test tab speaking the browser's protocol over a raw socket: it answers every call with an
//! echo of its tool and arguments, reports progress when asked, and reconnects like the real tab.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use nexus_shared::reconnect::{Command, Reconnect, ReconnectPolicy};
use nexus_shared::{Frame, GraphStats, Outcome, Role, ToolOutput};
use tokio::task::JoinHandle;
use tokio_tungstenite::connect_async_with_config;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// The answer the echo tab gives to a call: the tool and its arguments, as compact JSON.
pub fn echo_text(tool: &str, args: &serde_json::Value) -> String {
    format!("echo {tool} {args}")
}

/// How the echo tab behaves.
#[derive(Debug, Clone, Default)]
pub struct TabBehaviour {
    /// Tools whose calls are never answered (to test deadlines, cancellation, breakers).
    pub silent: HashSet<String>,
    /// Tools whose answer is preceded by two `Progress` frames.
    pub with_progress: HashSet<String>,
    /// The project announced in `Context` after every welcome.
    pub project: Option<String>,
}

/// What the echo tab saw.
#[derive(Default)]
pub struct TabLog {
    pub answered: AtomicU64,
    /// When each welcome arrived.
    pub welcomes: Mutex<Vec<Instant>>,
    /// When each connection ended.
    pub drops: Mutex<Vec<Instant>>,
    /// Ids of `Call` frames received.
    pub calls: Mutex<Vec<(String, String)>>,
    /// Ids of `Cancel` frames received.
    pub cancels: Mutex<Vec<String>>,
}

impl TabLog {
    pub fn welcomes(&self) -> Vec<Instant> {
        self.welcomes.lock().unwrap().clone()
    }

    pub fn drops(&self) -> Vec<Instant> {
        self.drops.lock().unwrap().clone()
    }

    pub fn calls(&self) -> Vec<(String, String)> {
        self.calls.lock().unwrap().clone()
    }

    pub fn cancels(&self) -> Vec<String> {
        self.cancels.lock().unwrap().clone()
    }

    /// Waits until the tab has been welcomed `count` times.
    pub async fn wait_welcomes(&self, count: usize, within: Duration) -> Instant {
        let started = Instant::now();
        loop {
            if let Some(at) = self.welcomes().get(count - 1) {
                return *at;
            }
            assert!(
                started.elapsed() < within,
                "the tab was welcomed {} times, not {count}, within {within:?}",
                self.welcomes().len()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// The echo tab; it stops when dropped.
pub struct EchoTab {
    pub log: Arc<TabLog>,
    task: JoinHandle<()>,
}

impl Drop for EchoTab {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl EchoTab {
    /// Connects to the hub on `port` with the UI's origin and keeps reconnecting with the
    /// product's backoff (500 ms doubling, jitter) whenever the socket drops.
    pub fn start(port: u16, behaviour: TabBehaviour) -> EchoTab {
        let log = Arc::new(TabLog::default());
        let task = tokio::spawn(run(port, behaviour, log.clone()));
        EchoTab { log, task }
    }
}

async fn run(port: u16, behaviour: TabBehaviour, log: Arc<TabLog>) {
    let clock = Instant::now();
    let now_ms = || clock.elapsed().as_millis() as u64;
    let mut machine = Reconnect::new(ReconnectPolicy::default());
    let mut command = machine.connect();
    let mut unit = 0.37f64;
    loop {
        command = match command {
            Command::Connect => {
                if serve_once(port, &behaviour, &log, &mut machine).await {
                    log.drops.lock().unwrap().push(Instant::now());
                }
                unit = (unit * 7.31).fract();
                machine.closed(now_ms(), unit)
            }
            Command::WaitUntil { at_ms } => {
                tokio::time::sleep(Duration::from_millis(at_ms.saturating_sub(now_ms()))).await;
                machine.timer_fired(at_ms.max(now_ms()))
            }
            Command::Close | Command::None => return,
        }
    }
}

/// One connection; true if it was welcomed before it ended.
async fn serve_once(
    port: u16,
    behaviour: &TabBehaviour,
    log: &TabLog,
    machine: &mut Reconnect,
) -> bool {
    let Ok(mut request) = format!("ws://127.0.0.1:{port}/ws").into_client_request() else {
        return false;
    };
    if let Ok(origin) = format!("http://127.0.0.1:{port}").parse() {
        request.headers_mut().insert("Origin", origin);
    }
    // Like browsers, no Nagle delay on the tab's small frames.
    let Ok((socket, _)) = connect_async_with_config(request, None, true).await else {
        return false;
    };
    let (mut sink, mut stream) = socket.split();
    let (hello, proof) = crate::proof::hello(Role::Browser, port, "echo-tab");
    if sink
        .send(Message::Text(hello.encode().into()))
        .await
        .is_err()
    {
        return false;
    }
    let mut welcomed = false;
    while let Some(Ok(message)) = stream.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        let Ok(frame) = Frame::decode(text.as_str()) else {
            continue;
        };
        let mut replies = Vec::new();
        match frame {
            Frame::Challenge { .. } => {
                // Like the real tab: nothing more to a hub that cannot prove the secret.
                let Ok(prove) = crate::proof::prove(&proof, &frame, &crate::browser_secret())
                else {
                    return false;
                };
                replies.push(prove);
            }
            Frame::Welcome { .. } => {
                welcomed = true;
                machine.opened();
                log.welcomes.lock().unwrap().push(Instant::now());
                replies.push(Frame::Context {
                    project: behaviour.project.clone(),
                    stats: GraphStats {
                        files: 3,
                        nodes: 10,
                        edges: 12,
                    },
                    indexed_at: 1,
                });
            }
            Frame::Reject { reason, .. } => {
                // Like the real tab: a refused tab stops reconnecting.
                machine.rejected(reason);
                break;
            }
            Frame::Ping { nonce } => replies.push(Frame::Pong { nonce }),
            Frame::Cancel { id } => log.cancels.lock().unwrap().push(id),
            Frame::Call { id, tool, args, .. } => {
                log.calls.lock().unwrap().push((id.clone(), tool.clone()));
                if behaviour.silent.contains(&tool) {
                    continue;
                }
                if behaviour.with_progress.contains(&tool) {
                    for done in 1..=2 {
                        replies.push(Frame::Progress {
                            id: id.clone(),
                            done,
                            total: 2,
                            message: Some(format!("step {done}")),
                        });
                    }
                }
                replies.push(Frame::Result {
                    id,
                    outcome: Outcome::Ok(ToolOutput {
                        text: echo_text(&tool, &args),
                    }),
                });
                log.answered.fetch_add(1, Ordering::Relaxed);
            }
            _ => {}
        }
        for reply in replies {
            if sink
                .send(Message::Text(reply.encode().into()))
                .await
                .is_err()
            {
                return welcomed;
            }
        }
    }
    welcomed
}
