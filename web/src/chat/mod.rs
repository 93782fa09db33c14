//! The chat with the bridge's LLM agent: `socket` owns the `/chat` WebSocket, `state` turns its
//! messages into what the Chat tab shows. The tab itself is `ui::chat`.

pub mod socket;
pub mod state;
