//! The chat's own WebSocket to the hub's `/chat`: the mutual proof of the browser secret (the hub
//! first; nothing sent to a hub that proved nothing), the session kept in sessionStorage (a reload
//! resumes it), reconnects on the shared backoff machine.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use nexus_shared::chat::{ChatClientMessage, ChatServerMessage, ConnectionState};
use nexus_shared::proof::{ClientProof, NONCE_BYTES, Purpose};
use nexus_shared::reconnect::{Command, LinkState, Reconnect, ReconnectPolicy};

use crate::socket::{OpenSocket, SocketEvent};

/// The sessionStorage key of this tab's chat session.
const SESSION_KEY: &str = "nexus-chat-session";

type Listener<T> = Rc<dyn Fn(T)>;

/// A handle on the chat socket; clones share one socket.
#[derive(Clone)]
pub struct ChatSocket(Rc<RefCell<Inner>>);

struct Inner {
    /// `ws://<the page's own host>/chat`.
    url: String,
    /// The port in `url`, part of every proof.
    port: u16,
    /// The secrets the hub may prove it knows; none is ever sent.
    secrets: Vec<String>,
    /// Set from Hello until the hub's proof arrived; `proven` once it held.
    proof: Option<ClientProof>,
    proven: bool,
    machine: Reconnect,
    socket: Option<OpenSocket>,
    generation: u64,
    timer: Option<Timeout>,
    on_message: Listener<ChatServerMessage>,
    on_state: Listener<LinkState>,
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// The session this tab talked in last, if any.
fn stored_session() -> Option<String> {
    session_storage()?.get_item(SESSION_KEY).ok().flatten()
}

fn store_session(id: &str) {
    if let Some(storage) = session_storage() {
        let _ = storage.set_item(SESSION_KEY, id);
    }
}

impl ChatSocket {
    /// A socket to `url` (the caller builds it from the page's own host) that reports every
    /// message and every state change; call [`ChatSocket::start`] to connect.
    pub fn new(
        url: String,
        port: u16,
        secrets: Vec<String>,
        on_message: impl Fn(ChatServerMessage) + 'static,
        on_state: impl Fn(LinkState) + 'static,
    ) -> ChatSocket {
        ChatSocket(Rc::new(RefCell::new(Inner {
            url,
            port,
            secrets,
            proof: None,
            proven: false,
            machine: Reconnect::new(ReconnectPolicy::default()),
            socket: None,
            generation: 0,
            timer: None,
            on_message: Rc::new(on_message),
            on_state: Rc::new(on_state),
        })))
    }

    /// Connects, or connects again at once after giving up or being refused.
    pub fn start(&self) {
        let command = self.0.borrow_mut().machine.connect();
        self.apply(command);
    }

    /// Sends a message now, or says why it cannot.
    pub fn send(&self, message: &ChatClientMessage) -> Result<(), String> {
        if !matches!(self.state(), LinkState::Connected) {
            return Err("the chat is not connected to the bridge".into());
        }
        self.write(message);
        Ok(())
    }

    pub fn state(&self) -> LinkState {
        self.0.borrow().machine.state().clone()
    }

    fn apply(&self, command: Command) {
        match command {
            Command::Connect => self.open(),
            Command::WaitUntil { at_ms } => self.arm_timer(at_ms),
            Command::Close => {
                let mut inner = self.0.borrow_mut();
                inner.socket = None;
                inner.timer = None;
            }
            Command::None => {}
        }
        let (listener, state) = {
            let inner = self.0.borrow();
            (inner.on_state.clone(), inner.machine.state().clone())
        };
        listener(state);
    }

    fn weak(&self) -> Weak<RefCell<Inner>> {
        Rc::downgrade(&self.0)
    }

    fn arm_timer(&self, at_ms: u64) {
        let weak = self.weak();
        let delay = at_ms.saturating_sub(now_ms()).min(u32::MAX as u64) as u32;
        let timer = Timeout::new(delay, move || {
            if let Some(inner) = weak.upgrade() {
                let socket = ChatSocket(inner);
                let command = socket.0.borrow_mut().machine.timer_fired(now_ms());
                socket.apply(command);
            }
        });
        self.0.borrow_mut().timer = Some(timer);
    }

    fn open(&self) {
        let (url, generation) = {
            let mut inner = self.0.borrow_mut();
            inner.socket = None;
            inner.timer = None;
            inner.generation += 1;
            (inner.url.clone(), inner.generation)
        };
        let weak = self.weak();
        let opened = OpenSocket::open(&url, move |event| {
            let Some(inner) = weak.upgrade() else { return };
            let socket = ChatSocket(inner);
            if socket.0.borrow().generation != generation {
                return;
            }
            match event {
                SocketEvent::Open => socket.say_hello(),
                SocketEvent::Text(text) => socket.receive(&text),
                SocketEvent::Closed => socket.closed(generation),
            }
        });
        match opened {
            Ok(opened) => self.0.borrow_mut().socket = Some(opened),
            Err(err) => {
                web_sys::console::warn_2(&"nexus chat: cannot open".into(), &err);
                self.closed(generation);
            }
        }
    }

    /// Hello with a fresh nonce: nothing the holder of the port could use.
    fn say_hello(&self) {
        let mut random = [0u8; NONCE_BYTES];
        if getrandom::fill(&mut random).is_err() {
            let generation = self.0.borrow().generation;
            self.closed(generation);
            return;
        }
        let proof = ClientProof::new(Purpose::Chat, self.0.borrow().port, random);
        let hello = ChatClientMessage::Hello {
            nonce: proof.nonce().to_owned(),
        };
        {
            let mut inner = self.0.borrow_mut();
            inner.proof = Some(proof);
            inner.proven = false;
        }
        self.write(&hello);
    }

    /// The hub's proof: when it holds, the page proves itself and asks for its session; when
    /// not, the socket is dropped without a word and retried later (the hub may come back).
    fn challenged(&self, nonce: &str, hub_proof: &str) {
        let (proof, secrets) = {
            let mut inner = self.0.borrow_mut();
            (inner.proof.take(), inner.secrets.clone())
        };
        if secrets.is_empty() {
            // A tab without its link: retrying cannot help until the link is opened.
            let reason =
                "this tab has no secret yet: open the link `nexus-bridge status --link` prints";
            let command = self.0.borrow_mut().machine.rejected(reason.to_owned());
            self.apply(command);
            return;
        }
        let keys: Vec<&str> = secrets.iter().map(String::as_str).collect();
        match proof.map(|proof| proof.answer(&keys, nonce, hub_proof)) {
            Some(Ok((_, answer))) => {
                self.0.borrow_mut().proven = true;
                self.write(&ChatClientMessage::Prove {
                    proof: answer,
                    session_id: stored_session(),
                });
            }
            _ => {
                let generation = {
                    let mut inner = self.0.borrow_mut();
                    inner.socket = None;
                    inner.generation
                };
                web_sys::console::warn_1(
                    &"nexus chat: the program on the port did not prove it is your hub; nothing was sent"
                        .into(),
                );
                self.closed(generation);
            }
        }
    }

    fn closed(&self, generation: u64) {
        let command = {
            let mut inner = self.0.borrow_mut();
            if inner.generation != generation {
                return;
            }
            inner.socket = None;
            inner.proof = None;
            inner.proven = false;
            inner.machine.closed(now_ms(), js_sys::Math::random())
        };
        self.apply(command);
    }

    fn receive(&self, text: &str) {
        let message = match ChatServerMessage::decode(text) {
            Ok(message) => message,
            Err(err) => {
                web_sys::console::warn_1(&format!("nexus chat: {err}").into());
                return;
            }
        };
        if let ChatServerMessage::Challenge { nonce, proof } = &message {
            self.challenged(nonce, proof);
            return;
        }
        let proven = self.0.borrow().proven;
        let refusal = matches!(
            message,
            ChatServerMessage::Error { .. }
                | ChatServerMessage::Connection {
                    state: ConnectionState::Error,
                    ..
                }
        );
        if !proven && !refusal {
            // Nothing from a program that has not proved itself reaches the chat.
            return;
        }
        let command = match &message {
            ChatServerMessage::Connection {
                state: ConnectionState::Connected | ConnectionState::Reconnected,
                session_id,
                ..
            }
            | ChatServerMessage::History { session_id, .. } => {
                store_session(session_id);
                let mut inner = self.0.borrow_mut();
                matches!(inner.machine.state(), LinkState::Connecting { .. })
                    .then(|| inner.machine.opened())
            }
            // Refused before the session was set up (secret, origin): retrying cannot help.
            ChatServerMessage::Connection {
                state: ConnectionState::Error,
                message,
                ..
            }
            | ChatServerMessage::Error { message } => {
                let mut inner = self.0.borrow_mut();
                matches!(inner.machine.state(), LinkState::Connecting { .. })
                    .then(|| inner.machine.rejected(message.clone()))
            }
            _ => None,
        };
        let listener = self.0.borrow().on_message.clone();
        listener(message);
        if let Some(command) = command {
            self.apply(command);
        }
    }

    fn write(&self, message: &ChatClientMessage) {
        if let Some(socket) = self.0.borrow().socket.as_ref()
            && let Err(err) = socket.send(&message.encode())
        {
            web_sys::console::warn_2(&"nexus chat: send failed".into(), &err);
        }
    }
}
