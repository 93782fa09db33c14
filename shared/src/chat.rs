//! The chat socket's messages (`/chat` on the hub): the spec's `message` in and `text`, `status`,
//! `connection` out, plus what a chat UI needs (history, sessions, turn end, provider, usage).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::limits::MAX_FRAME_BYTES;

/// Page → bridge. The first messages on a socket must be `Hello`, then `Prove` (after the hub's
/// `Challenge`); anything else before them closes the socket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum ChatClientMessage {
    /// First: the page's fresh nonce (`proof.rs`); the hub answers with `Challenge`.
    Hello { nonce: String },
    /// Once the hub proved itself: the page's proof; resumes `session_id` when it exists,
    /// otherwise starts a new session.
    Prove {
        proof: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// The user's message (the spec's only inbound type): starts a turn. `project` is the
    /// project the tab holds; a conversation belongs to the project of its first message.
    Message {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project: Option<String>,
    },
    /// Stop the running turn: the provider stream and tool calls in flight are abandoned.
    Stop {},
    /// Start a new, empty session on this socket.
    NewSession {},
    /// Switch this socket to another stored session; answered by `History`.
    OpenSession { session_id: String },
    /// Ask for the stored sessions (only `project`'s when given); answered by `Sessions`.
    ListSessions {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project: Option<String>,
    },
    /// Ask the LLM to describe a folder, file or community (stable id `node`) from `facts`, what
    /// the graph says of it; answered by `Described` or `NotDescribed`, outside any session.
    Describe { node: String, facts: String },
    /// The user's answer to `Confirm` number `id`.
    Confirmation { id: String, answer: ConfirmAnswer },
}

/// The user's answer to a tool call that needs confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmAnswer {
    /// Run this call.
    Once,
    /// Run this call and, for the rest of the session, every call of this tool.
    Always,
    /// Do not run it: the model gets a refusal and the turn goes on.
    Deny,
}

/// A tool call waiting for the user's confirmation (mcp.json's policy or the tool's
/// annotations say it needs one). The turn waits until `Confirmation` with the same `id`, Stop,
/// the socket closing (both: it does not run) or `timeout_ms` (it does not run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfirmRequest {
    pub id: String,
    /// The chip (`ToolStatus::call_id`) of the call.
    pub call_id: String,
    /// `server:tool`.
    pub tool: String,
    pub arguments: Value,
    /// The server does not say the call leaves data alone (MCP's `destructiveHint`, true unless
    /// the server marks the tool non-destructive or read-only).
    pub destructive: bool,
    /// Why it needs confirmation, in words.
    pub reason: String,
    pub timeout_ms: u64,
}

/// Bridge → page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum ChatServerMessage {
    /// The hub's answer to `Hello`: its fresh nonce and its proof that it knows the secret.
    Challenge { nonce: String, proof: String },
    /// A piece of the assistant's answer, in order (text outside tool blocks only).
    Text { content: String },
    /// A tool call starting (`processing`) or finished (`complete`).
    Status(ToolStatus),
    /// A tool call that runs only if the user confirms it (answered by `Confirmation`).
    Confirm(ConfirmRequest),
    /// The socket's session: `connected` (new), `reconnected` (resumed with history),
    /// `reconnecting` or `error` (with the reason in `message`).
    Connection {
        state: ConnectionState,
        message: String,
        session_id: String,
    },
    /// The stored conversation of the socket's session, sent on resume and on `OpenSession`.
    History {
        session_id: String,
        messages: Vec<ChatMessage>,
    },
    /// Stored sessions, newest first.
    Sessions { sessions: Vec<SessionSummary> },
    /// A turn ended: how, and the tokens it and the whole session used.
    TurnEnd {
        outcome: TurnOutcome,
        usage: TokenUsage,
        session_usage: TokenUsage,
    },
    /// Which LLM answers. `configured: false` means none is set up; `message` then says what is
    /// missing, `config_path` names the configuration file and `snippet` the section to add
    /// there (the hub sends this message again when the file changes). Never carries a key.
    Provider {
        configured: bool,
        provider: String,
        model: String,
        message: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        config_path: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        snippet: String,
    },
    /// A problem with the socket or a message (rate limit, bad message, busy): nothing else
    /// changes.
    Error { message: String },
    /// The LLM's description of `node`, asked for by `Describe`.
    Described { node: String, text: String },
    /// Why `node` could not be described (no LLM, a failing or silent provider, bad facts).
    NotDescribed { node: String, message: String },
    /// The tools the model was shown this turn (the JIT tool compiler's choice), each with its
    /// form and why; sent once per turn before the model is asked. Absent when the compiler is
    /// off.
    ToolsCompiled {
        tools: Vec<ToolSeen>,
        /// Tools of the registry not shown this turn.
        excluded: u32,
        /// Estimated tokens of the tool section, and of it with every tool in full form.
        tokens: u64,
        all_full_tokens: u64,
        /// How long the compilation took.
        micros: u64,
    },
}

/// How a tool was shown to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolTier {
    /// Description, arguments and an example.
    Full,
    /// Name and one line.
    Condensed,
    /// Name only: the model must expand it before calling it.
    Minimal,
}

/// One tool the model saw, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSeen {
    /// `server:tool`.
    pub name: String,
    pub tier: ToolTier,
    /// Always shown in full (the configured skeleton).
    #[serde(default)]
    pub skeleton: bool,
    /// `logic × 0.7 + vector × 0.3` (by default), 0–100, and its two parts.
    pub score: f32,
    pub logic: f32,
    pub vector: f32,
    /// The rules that fired (`+30 the question asks for callers`) and tier changes.
    #[serde(default)]
    pub reasons: Vec<String>,
    /// Its server is disconnected: calls fail until it reconnects.
    #[serde(default)]
    pub offline: bool,
}

/// One tool call as the chat UI shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolStatus {
    pub state: ToolState,
    /// Id of the call within the turn; `processing` and `complete` of one call share it.
    pub call_id: String,
    /// Qualified tool name (`server:tool`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// One line for the user ("Calling nexus:search", "nexus:search failed: …").
    pub message: String,
    /// The call's arguments (`processing`) or its result (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// `complete` only: whether the call failed.
    #[serde(default)]
    pub is_error: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolState {
    Processing,
    Complete,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionState {
    Connected,
    Reconnected,
    Reconnecting,
    Error,
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnOutcome {
    /// The model gave its answer.
    Answered,
    /// The user pressed Stop (or the socket went away).
    Stopped,
    /// The tool loop hit its round limit; the answer so far stands.
    RoundLimit,
    /// The provider failed after its retries; a fallback message was sent.
    Failed,
}

/// Tokens as the provider reported them (estimated where it reports none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

impl TokenUsage {
    /// Adds another count to this one.
    pub fn add(&mut self, other: TokenUsage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
    }
}

/// A message of the stored conversation (the spec's `ChatMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub id: String,
    pub role: ChatRole,
    /// Text for user, assistant and system messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Structured data: an assistant's tool call (`{"call_id","tool","arguments"}`) or a tool's
    /// result (`{"call_id","result","is_error"}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Milliseconds since the Unix epoch.
    pub created_at: u64,
    /// The tool called (assistant tool calls) or answering (tool results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRole {
    User,
    Assistant,
    System,
    Tool,
}

/// A stored session in the session list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub session_id: String,
    /// The first user message, shortened.
    pub title: String,
    /// The project of its first message; empty for one stored before projects were kept.
    #[serde(default)]
    pub project: String,
    pub updated_at: u64,
    pub messages: u32,
    pub usage: TokenUsage,
}

/// Why a chat message could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChatDecodeError {
    #[error("message of {bytes} bytes exceeds the limit of {limit}")]
    TooLarge { bytes: usize, limit: usize },
    #[error("malformed chat message: {0}")]
    Malformed(String),
}

impl ChatClientMessage {
    /// Reads one text message; never panics.
    pub fn decode(text: &str) -> Result<Self, ChatDecodeError> {
        decode(text)
    }

    /// One text message.
    pub fn encode(&self) -> String {
        encode(self)
    }
}

impl ChatServerMessage {
    /// Reads one text message; never panics.
    pub fn decode(text: &str) -> Result<Self, ChatDecodeError> {
        decode(text)
    }

    /// One text message.
    pub fn encode(&self) -> String {
        encode(self)
    }
}

fn decode<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ChatDecodeError> {
    if text.len() > MAX_FRAME_BYTES {
        return Err(ChatDecodeError::TooLarge {
            bytes: text.len(),
            limit: MAX_FRAME_BYTES,
        });
    }
    serde_json::from_str(text).map_err(|err| ChatDecodeError::Malformed(err.to_string()))
}

fn encode<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).unwrap_or_else(|err| {
        format!(r#"{{"type":"error","payload":{{"message":"cannot encode message: {err}"}}}}"#)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn describing_a_node_round_trips() {
        let asked = ChatClientMessage::decode(
            r#"{"type":"describe","payload":{"node":"Folder:shop","facts":"2 files"}}"#,
        );
        assert_eq!(
            asked,
            Ok(ChatClientMessage::Describe {
                node: "Folder:shop".into(),
                facts: "2 files".into()
            })
        );
        for answer in [
            ChatServerMessage::Described {
                node: "Folder:shop".into(),
                text: "The shop.".into(),
            },
            ChatServerMessage::NotDescribed {
                node: "Folder:shop".into(),
                message: "no LLM".into(),
            },
        ] {
            assert_eq!(ChatServerMessage::decode(&answer.encode()), Ok(answer));
        }
    }

    #[test]
    fn the_spec_message_shapes_hold() {
        let inbound = ChatClientMessage::decode(r#"{"type":"message","payload":{"text":"hi"}}"#);
        assert_eq!(
            inbound,
            Ok(ChatClientMessage::Message {
                text: "hi".into(),
                project: None
            })
        );
        let text = ChatServerMessage::Text {
            content: "I'll search".into(),
        };
        assert_eq!(
            text.encode(),
            r#"{"type":"text","payload":{"content":"I'll search"}}"#
        );
        let connected = ChatServerMessage::Connection {
            state: ConnectionState::Connected,
            message: "ready".into(),
            session_id: "s1".into(),
        };
        assert_eq!(
            connected.encode(),
            r#"{"type":"connection","payload":{"state":"connected","message":"ready","session_id":"s1"}}"#
        );
        let status = ChatServerMessage::Status(ToolStatus {
            state: ToolState::Processing,
            call_id: "c1".into(),
            tool: Some("nexus:search".into()),
            message: "Calling nexus:search".into(),
            data: None,
            is_error: false,
        });
        let back = ChatServerMessage::decode(&status.encode());
        assert_eq!(back, Ok(status));
    }

    #[test]
    fn tools_compiled_reads_back_with_tiers_in_snake_case() {
        let message = ChatServerMessage::ToolsCompiled {
            tools: vec![ToolSeen {
                name: "nexus:route".into(),
                tier: ToolTier::Full,
                skeleton: true,
                score: 72.5,
                logic: 80.0,
                vector: 55.0,
                reasons: vec!["+40 skeleton".into()],
                offline: false,
            }],
            excluded: 3,
            tokens: 900,
            all_full_tokens: 5000,
            micros: 420,
        };
        let text = message.encode();
        assert!(text.contains(r#""type":"tools_compiled""#), "{text}");
        assert!(text.contains(r#""tier":"full""#), "{text}");
        assert_eq!(ChatServerMessage::decode(&text).ok(), Some(message));
    }

    #[test]
    fn confirmations_round_trip() {
        let ask = ChatServerMessage::Confirm(ConfirmRequest {
            id: "k1".into(),
            call_id: "0:c1".into(),
            tool: "fs:write_file".into(),
            arguments: serde_json::json!({"path": "/tmp/x"}),
            destructive: true,
            reason: "not read-only".into(),
            timeout_ms: 1000,
        });
        let text = ask.encode();
        assert!(
            text.starts_with(r#"{"type":"confirm","payload":{"id":"k1""#),
            "{text}"
        );
        assert_eq!(ChatServerMessage::decode(&text), Ok(ask));
        assert_eq!(
            ChatClientMessage::decode(
                r#"{"type":"confirmation","payload":{"id":"k1","answer":"always"}}"#
            ),
            Ok(ChatClientMessage::Confirmation {
                id: "k1".into(),
                answer: ConfirmAnswer::Always
            })
        );
    }

    #[test]
    fn empty_payload_messages_read_with_or_without_braces() {
        assert_eq!(
            ChatClientMessage::decode(r#"{"type":"stop","payload":{}}"#),
            Ok(ChatClientMessage::Stop {})
        );
        assert_eq!(
            ChatClientMessage::Stop {}.encode(),
            r#"{"type":"stop","payload":{}}"#
        );
    }

    #[test]
    fn oversized_and_unknown_messages_are_errors() {
        let big = format!(
            r#"{{"type":"message","payload":{{"text":"{}"}}}}"#,
            "a".repeat(MAX_FRAME_BYTES)
        );
        assert!(matches!(
            ChatClientMessage::decode(&big),
            Err(ChatDecodeError::TooLarge { .. })
        ));
        assert!(matches!(
            ChatClientMessage::decode(r#"{"type":"launch","payload":{}}"#),
            Err(ChatDecodeError::Malformed(_))
        ));
    }

    proptest! {
        #[test]
        fn decoding_any_text_never_panics(text in ".{0,200}") {
            let _ = ChatClientMessage::decode(&text);
            let _ = ChatServerMessage::decode(&text);
        }
    }
}
