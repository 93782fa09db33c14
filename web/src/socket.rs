//! One browser WebSocket with its handlers kept alive beside it, closed and unhooked when dropped;
//! the hub link and the chat socket each drive one under their own reconnect machine.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{CloseEvent, Event, MessageEvent, WebSocket};

/// What happened on a socket.
pub enum SocketEvent {
    Open,
    Text(String),
    Closed,
}

/// An open socket and the handlers that must live as long as it does.
pub struct OpenSocket {
    ws: WebSocket,
    _on_open: Closure<dyn FnMut(Event)>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut(CloseEvent)>,
}

impl OpenSocket {
    /// Opens `url` and hands every event to `on_event` (binary messages are ignored).
    pub fn open(url: &str, on_event: impl Fn(SocketEvent) + 'static) -> Result<Self, JsValue> {
        let ws = WebSocket::new(url)?;
        let on_event = Rc::new(on_event);
        let act = Rc::clone(&on_event);
        let on_open = Closure::<dyn FnMut(Event)>::new(move |_: Event| act(SocketEvent::Open));
        let act = Rc::clone(&on_event);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(text) = event.data().as_string() {
                act(SocketEvent::Text(text));
            }
        });
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |_: CloseEvent| {
            on_event(SocketEvent::Closed)
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Ok(OpenSocket {
            ws,
            _on_open: on_open,
            _on_message: on_message,
            _on_close: on_close,
        })
    }

    pub fn send(&self, text: &str) -> Result<(), JsValue> {
        self.ws.send_with_str(text)
    }
}

impl Drop for OpenSocket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
    }
}
