//! Owns the tab's WebSocket: the mutual proof first (Hello with a nonce; the hub's proof checked
//! before the tab proves anything; no frame answered before Welcome), then re-sends the Context,
//! answers `Call` frames (stopped on `Cancel`), watches the hosted registry, follows the machine.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use nexus_shared::limits::PROTOCOL_VERSION;
use nexus_shared::proof::{ClientProof, NONCE_BYTES, Purpose};
use nexus_shared::reconnect::{Command, LinkState, Reconnect, ReconnectPolicy};
use nexus_shared::{Frame, Outcome, Role};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::Event;

use crate::socket::{OpenSocket, SocketEvent};

/// Answers one call: `(tool, args, reply)`; `reply` may be called later (the engine worker answers).
/// Returns how to stop the call: after a stop, `reply` must never be called.
/// Answers a tool call: tool, arguments, the caller's tools session, and where the outcome goes.
pub type Answer =
    Rc<dyn Fn(&str, serde_json::Value, Option<String>, Box<dyn FnOnce(Outcome)>) -> Stop>;
/// Stops one call that is being answered.
pub type Stop = Box<dyn FnOnce()>;
type Listener<T> = Rc<dyn Fn(&T)>;

#[derive(Debug, Clone)]
pub struct LinkConfig {
    /// `ws://127.0.0.1:54319/ws` when served by the bridge.
    pub url: String,
    /// Name announced in `Hello`.
    pub agent: String,
    /// The secrets the hub may prove it knows (`secret::keys`); none is ever sent.
    pub secrets: Vec<String>,
    pub policy: ReconnectPolicy,
}

/// Where the current socket is in the handshake.
#[derive(Debug, Clone)]
enum Handshake {
    /// Hello sent; waiting for the hub's proof.
    Challenged(ClientProof),
    /// The hub proved a secret (this one); the tab's proof is sent; waiting for Welcome.
    Proving(String),
    /// Welcomed: frames are answered.
    Welcomed,
}

/// A handle on the link; clones share one socket.
#[derive(Clone)]
pub struct Link(Rc<RefCell<Inner>>);

struct Inner {
    config: LinkConfig,
    machine: Reconnect,
    socket: Option<OpenSocket>,
    generation: u64,
    handshake: Option<Handshake>,
    /// Set when the program on the port could not prove it is the hub; cleared on Welcome.
    impostor: Option<u16>,
    timer: Option<Timeout>,
    context: Option<Frame>,
    answer: Answer,
    /// Calls being answered, by the hub's id: a `Cancel` (or the socket closing) stops them.
    running: HashMap<String, Stop>,
    on_status: Option<Listener<LinkState>>,
    on_activity: Option<Listener<Frame>>,
    on_hosted: Option<Listener<Frame>>,
    on_repo: Option<Listener<Frame>>,
    page_events: Vec<Closure<dyn FnMut(Event)>>,
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

impl Link {
    pub fn new(config: LinkConfig, answer: Answer) -> Self {
        let machine = Reconnect::new(config.policy);
        Link(Rc::new(RefCell::new(Inner {
            config,
            machine,
            socket: None,
            generation: 0,
            handshake: None,
            impostor: None,
            timer: None,
            context: None,
            answer,
            running: HashMap::new(),
            on_status: None,
            on_activity: None,
            on_hosted: None,
            on_repo: None,
            page_events: Vec::new(),
        })))
    }

    /// Called after every state change.
    pub fn on_status(&self, listener: impl Fn(&LinkState) + 'static) {
        self.0.borrow_mut().on_status = Some(Rc::new(listener));
    }

    /// Called with each `Activity` frame the hub sends (one per finished agent call).
    pub fn on_activity(&self, listener: impl Fn(&Frame) + 'static) {
        self.0.borrow_mut().on_activity = Some(Rc::new(listener));
    }

    /// Called with each `Hosted` and `HostedResult` frame; the hosted registry is watched from
    /// every Welcome on.
    pub fn on_hosted(&self, listener: impl Fn(&Frame) + 'static) {
        self.0.borrow_mut().on_hosted = Some(Rc::new(listener));
    }

    /// Called with each `RepoChanged` frame: files of the served repository changed on disk.
    pub fn on_repo(&self, listener: impl Fn(&Frame) + 'static) {
        self.0.borrow_mut().on_repo = Some(Rc::new(listener));
    }

    /// Sends a request frame now, or says why it cannot (the link is not up).
    pub fn request(&self, frame: &Frame) -> Result<(), String> {
        if !matches!(self.state(), LinkState::Connected) {
            return Err("not connected to the bridge".into());
        }
        self.send(frame);
        Ok(())
    }

    pub fn state(&self) -> LinkState {
        self.0.borrow().machine.state().clone()
    }

    /// The port whose holder failed to prove it is the hub, while that is the last word.
    pub fn impostor(&self) -> Option<u16> {
        self.0.borrow().impostor
    }

    pub fn max_attempts(&self) -> u32 {
        self.0.borrow().config.policy.max_attempts
    }

    /// Starts connecting, and retries at once when the page comes back online or into view.
    pub fn start(&self) {
        self.watch_page();
        let command = self.0.borrow_mut().machine.connect();
        self.apply(command);
    }

    /// The user's Disconnect: closes the socket and stops retrying.
    pub fn disconnect(&self) {
        let command = self.0.borrow_mut().machine.disconnect();
        self.apply(command);
    }

    /// The user's Reconnect: re-arms the attempt budget and connects now.
    pub fn reconnect(&self) {
        let command = self.0.borrow_mut().machine.connect();
        self.apply(command);
    }

    /// Sets what this tab has loaded; sent now if connected and after every reconnect.
    pub fn set_context(&self, frame: Frame) {
        let connected = {
            let mut inner = self.0.borrow_mut();
            inner.context = Some(frame.clone());
            matches!(inner.machine.state(), LinkState::Connected)
        };
        if connected {
            self.send(&frame);
        }
    }

    fn apply(&self, command: Command) {
        match command {
            Command::Connect => self.open_socket(),
            Command::WaitUntil { at_ms } => self.arm_timer(at_ms),
            Command::Close => {
                let mut inner = self.0.borrow_mut();
                inner.socket = None;
                inner.timer = None;
            }
            Command::None => {}
        }
        self.notify();
    }

    fn notify(&self) {
        let (listener, state) = {
            let inner = self.0.borrow();
            (inner.on_status.clone(), inner.machine.state().clone())
        };
        if let Some(listener) = listener {
            listener(&state);
        }
    }

    fn weak(&self) -> Weak<RefCell<Inner>> {
        Rc::downgrade(&self.0)
    }

    fn arm_timer(&self, at_ms: u64) {
        let weak = self.weak();
        let delay = at_ms.saturating_sub(now_ms()).min(u32::MAX as u64) as u32;
        let timer = Timeout::new(delay, move || {
            if let Some(inner) = weak.upgrade() {
                let link = Link(inner);
                let command = link.0.borrow_mut().machine.timer_fired(now_ms());
                link.apply(command);
            }
        });
        self.0.borrow_mut().timer = Some(timer);
    }

    fn open_socket(&self) {
        let (url, generation) = {
            let mut inner = self.0.borrow_mut();
            inner.socket = None;
            inner.timer = None;
            inner.generation += 1;
            (inner.config.url.clone(), inner.generation)
        };
        let weak = self.weak();
        let opened = OpenSocket::open(&url, move |event| {
            let Some(inner) = weak.upgrade() else { return };
            let link = Link(inner);
            if link.0.borrow().generation != generation {
                return;
            }
            match event {
                SocketEvent::Open => link.say_hello(),
                SocketEvent::Text(text) => link.receive(&text),
                SocketEvent::Closed => link.socket_closed(generation),
            }
        });
        match opened {
            Ok(opened) => self.0.borrow_mut().socket = Some(opened),
            Err(err) => {
                web_sys::console::warn_2(&"nexus link: cannot open".into(), &err);
                self.socket_closed(generation);
            }
        }
    }

    /// Hello with a fresh nonce: no secret, nothing the holder of the port could use.
    fn say_hello(&self) {
        let mut random = [0u8; NONCE_BYTES];
        if let Err(err) = getrandom::fill(&mut random) {
            web_sys::console::warn_1(&format!("nexus link: no random bytes: {err}").into());
            let generation = self.0.borrow().generation;
            self.0.borrow_mut().socket = None;
            self.socket_closed(generation);
            return;
        }
        let (agent, port) = {
            let inner = self.0.borrow();
            (inner.config.agent.clone(), port_of(&inner.config.url))
        };
        let proof = ClientProof::new(Purpose::Tab, port, random);
        super::secret::clear_api_token();
        let hello = Frame::Hello {
            role: Role::Browser,
            protocol: PROTOCOL_VERSION,
            agent,
            nonce: proof.nonce().to_owned(),
        };
        self.0.borrow_mut().handshake = Some(Handshake::Challenged(proof));
        self.send(&hello);
    }

    /// A frame before Welcome: only the hub's proof, then Welcome, count; a `Reject` ends the
    /// attempt; anything else (a `Call` from a program that proved nothing) is ignored.
    fn receive_before_welcome(&self, frame: Frame) {
        let handshake = self.0.borrow().handshake.clone();
        match (handshake, frame) {
            (Some(Handshake::Challenged(_)), Frame::Challenge { .. })
                if self.0.borrow().config.secrets.is_empty() =>
            {
                // Nothing to check the hub's proof with: not an impostor, a tab without its link.
                let reason =
                    "this tab has no secret yet: open the link `nexus-bridge status --link` prints"
                        .to_owned();
                let command = self.0.borrow_mut().machine.rejected(reason);
                self.apply(command);
            }
            (Some(Handshake::Challenged(proof)), Frame::Challenge { nonce, proof: hub }) => {
                let secrets = self.0.borrow().config.secrets.clone();
                let keys: Vec<&str> = secrets.iter().map(String::as_str).collect();
                match proof.answer(&keys, &nonce, &hub) {
                    Ok((at, answer)) => {
                        self.0.borrow_mut().handshake =
                            Some(Handshake::Proving(secrets[at].clone()));
                        self.send(&Frame::Prove { proof: answer });
                    }
                    Err(err) => self.impostor_found(&err.to_string()),
                }
            }
            (Some(Handshake::Proving(secret)), Frame::Welcome { api_token, .. }) => {
                super::secret::proved(&secret);
                if let Some(token) = api_token {
                    super::secret::set_api_token(&token.0);
                }
                self.welcomed();
            }
            (Some(Handshake::Proving(_)), Frame::Reject { reason, .. }) => {
                let command = self.0.borrow_mut().machine.rejected(reason);
                self.apply(command);
            }
            (Some(Handshake::Challenged(_)), Frame::Reject { reason, .. }) => {
                let port = port_of(&self.0.borrow().config.url);
                let reason = format!(
                    "{reason} (said by the program on port {port} before it proved it is your hub)"
                );
                let command = self.0.borrow_mut().machine.rejected(reason);
                self.apply(command);
            }
            (_, other) => {
                web_sys::console::warn_1(
                    &format!(
                        "nexus link: ignored a {} frame before the hub proved itself",
                        other.kind()
                    )
                    .into(),
                );
            }
        }
    }

    /// The program on the port could not prove it knows the secret: say so, drop the socket
    /// without a word, and keep retrying (the real hub may come back on the port).
    fn impostor_found(&self, why: &str) {
        let (generation, port) = {
            let mut inner = self.0.borrow_mut();
            let port = port_of(&inner.config.url);
            inner.impostor = Some(port);
            inner.socket = None;
            (inner.generation, port)
        };
        web_sys::console::warn_1(
            &format!("nexus link: another program holds port {port} ({why}); nothing was sent")
                .into(),
        );
        self.socket_closed(generation);
    }

    fn socket_closed(&self, generation: u64) {
        let (command, running) = {
            let mut inner = self.0.borrow_mut();
            if inner.generation != generation {
                return;
            }
            inner.socket = None;
            inner.handshake = None;
            let running = std::mem::take(&mut inner.running);
            (
                inner.machine.closed(now_ms(), js_sys::Math::random()),
                running,
            )
        };
        // The hub has failed these calls already; their answers would reach nobody.
        for stop in running.into_values() {
            stop();
        }
        self.apply(command);
    }

    fn welcomed(&self) {
        let (command, context, watch) = {
            let mut inner = self.0.borrow_mut();
            inner.handshake = Some(Handshake::Welcomed);
            inner.impostor = None;
            let watch = inner.on_hosted.is_some();
            (inner.machine.opened(), inner.context.clone(), watch)
        };
        if let Some(context) = context {
            self.send(&context);
        }
        if watch {
            self.send(&Frame::HostedList { watch: true });
        }
        self.apply(command);
    }

    fn receive(&self, text: &str) {
        let welcomed = matches!(self.0.borrow().handshake, Some(Handshake::Welcomed));
        if !welcomed {
            // Before Welcome nothing is answered, not even a bad frame.
            if let Ok(frame) = Frame::decode(text) {
                self.receive_before_welcome(frame);
            }
            return;
        }
        match Frame::decode(text) {
            Ok(Frame::Reject { reason, .. }) => {
                let command = self.0.borrow_mut().machine.rejected(reason);
                self.apply(command);
            }
            Ok(Frame::Call {
                id,
                tool,
                args,
                session,
                ..
            }) => {
                let answer = self.0.borrow().answer.clone();
                let weak = self.weak();
                let answered = Rc::new(Cell::new(false));
                let reply_answered = answered.clone();
                let reply_id = id.clone();
                let stop = answer(
                    &tool,
                    args,
                    session,
                    Box::new(move |outcome| {
                        reply_answered.set(true);
                        if let Some(inner) = weak.upgrade() {
                            let link = Link(inner);
                            link.0.borrow_mut().running.remove(&reply_id);
                            link.send(&Frame::Result {
                                id: reply_id,
                                outcome,
                            });
                        }
                    }),
                );
                if !answered.get() {
                    self.0.borrow_mut().running.insert(id, stop);
                }
            }
            Ok(Frame::Cancel { id }) => {
                let stop = self.0.borrow_mut().running.remove(&id);
                if let Some(stop) = stop {
                    stop();
                }
            }
            Ok(Frame::Ping { nonce }) => self.send(&Frame::Pong { nonce }),
            Ok(frame @ Frame::Activity { .. }) => {
                let listener = self.0.borrow().on_activity.clone();
                if let Some(listener) = listener {
                    listener(&frame);
                }
            }
            Ok(frame @ (Frame::Hosted { .. } | Frame::HostedResult { .. })) => {
                let listener = self.0.borrow().on_hosted.clone();
                if let Some(listener) = listener {
                    listener(&frame);
                }
            }
            Ok(frame @ Frame::RepoChanged { .. }) => {
                let listener = self.0.borrow().on_repo.clone();
                if let Some(listener) = listener {
                    listener(&frame);
                }
            }
            Ok(Frame::Error { message }) => {
                web_sys::console::warn_1(&format!("nexus hub: {message}").into());
            }
            Ok(_) => {}
            Err(err) => self.send(&Frame::Error {
                message: err.to_string(),
            }),
        }
    }

    fn send(&self, frame: &Frame) {
        if let Some(socket) = self.0.borrow().socket.as_ref()
            && let Err(err) = socket.send(&frame.encode())
        {
            web_sys::console::warn_2(&"nexus link: send failed".into(), &err);
        }
    }

    fn watch_page(&self) {
        let Some(window) = web_sys::window() else {
            return;
        };
        if !self.0.borrow().page_events.is_empty() {
            return;
        }
        for event in ["online", "visibilitychange"] {
            let weak = self.weak();
            let retry = Closure::<dyn FnMut(Event)>::new(move |_| {
                let visible = web_sys::window()
                    .and_then(|w| w.document())
                    .is_none_or(|d| d.visibility_state() == web_sys::VisibilityState::Visible);
                if let Some(inner) = weak.upgrade()
                    && visible
                {
                    let link = Link(inner);
                    let command = link.0.borrow_mut().machine.retry_now();
                    link.apply(command);
                }
            });
            let _ = window.add_event_listener_with_callback(event, retry.as_ref().unchecked_ref());
            self.0.borrow_mut().page_events.push(retry);
        }
    }
}

/// The port of a `ws://host:port/path` address (80 when it names none): part of every proof,
/// so a proof made for another port never holds here.
pub fn port_of(url: &str) -> u16 {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split('/').next().unwrap_or_default();
    host.rsplit_once(':')
        .and_then(|(_, port)| port.parse().ok())
        .unwrap_or(80)
}

#[cfg(test)]
mod tests {
    use super::port_of;

    #[test]
    fn the_port_comes_from_the_socket_address() {
        assert_eq!(port_of("ws://127.0.0.1:54319/ws"), 54319);
        assert_eq!(port_of("ws://localhost:8080/chat"), 8080);
        assert_eq!(port_of("ws://example/ws"), 80);
    }
}
