//! Owns the tab's WebSocket: says Hello, re-sends the Context after every reconnect, answers
//! `Call` frames through the tool dispatch (and stops them on `Cancel`), watches the hub's hosted
//! MCP registry, and follows the reconnect machine's commands.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use nexus_shared::limits::PROTOCOL_VERSION;
use nexus_shared::reconnect::{Command, LinkState, Reconnect, ReconnectPolicy};
use nexus_shared::{Frame, Outcome, Role, Token};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::Event;

use crate::socket::{OpenSocket, SocketEvent};

/// Answers one call: `(tool, args, reply)`; `reply` may be called later (the engine worker answers).
/// Returns how to stop the call: after a stop, `reply` must never be called.
pub type Answer = Rc<dyn Fn(&str, serde_json::Value, Box<dyn FnOnce(Outcome)>) -> Stop>;
/// Stops one call that is being answered.
pub type Stop = Box<dyn FnOnce()>;
type Listener<T> = Rc<dyn Fn(&T)>;

#[derive(Debug, Clone)]
pub struct LinkConfig {
    /// `ws://127.0.0.1:54319/ws` when served by the bridge.
    pub url: String,
    /// Name announced in `Hello`.
    pub agent: String,
    /// The browser's secret, sent in `Hello`.
    pub token: Option<String>,
    pub policy: ReconnectPolicy,
}

/// A handle on the link; clones share one socket.
#[derive(Clone)]
pub struct Link(Rc<RefCell<Inner>>);

struct Inner {
    config: LinkConfig,
    machine: Reconnect,
    socket: Option<OpenSocket>,
    generation: u64,
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
                SocketEvent::Open => {
                    let (agent, token) = {
                        let inner = link.0.borrow();
                        (inner.config.agent.clone(), inner.config.token.clone())
                    };
                    link.send(&Frame::Hello {
                        role: Role::Browser,
                        protocol: PROTOCOL_VERSION,
                        token: token.map(Token),
                        agent,
                    });
                }
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

    fn socket_closed(&self, generation: u64) {
        let (command, running) = {
            let mut inner = self.0.borrow_mut();
            if inner.generation != generation {
                return;
            }
            inner.socket = None;
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

    fn receive(&self, text: &str) {
        match Frame::decode(text) {
            Ok(Frame::Welcome { .. }) => {
                let (command, context, watch) = {
                    let mut inner = self.0.borrow_mut();
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
            Ok(Frame::Reject { reason, .. }) => {
                let command = self.0.borrow_mut().machine.rejected(reason);
                self.apply(command);
            }
            Ok(Frame::Call { id, tool, args, .. }) => {
                let answer = self.0.borrow().answer.clone();
                let weak = self.weak();
                let answered = Rc::new(Cell::new(false));
                let reply_answered = answered.clone();
                let reply_id = id.clone();
                let stop = answer(
                    &tool,
                    args,
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
