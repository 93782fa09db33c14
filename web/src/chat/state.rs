//! The Chat tab's view state as a reducer: the chat socket's messages (and the user's own) in,
//! the conversation, tool chips, provider, usage and sessions out. Pure: no DOM, no socket.

use nexus_shared::chat::{
    ChatMessage, ChatRole, ChatServerMessage, ConfirmAnswer, ConfirmRequest, ConnectionState,
    SessionSummary, TokenUsage, ToolSeen, ToolState, ToolStatus, TurnOutcome,
};
use serde_json::Value;

/// Shown when the bridge has no LLM and says nothing more precise.
pub const UNCONFIGURED: &str = "No LLM is configured on the bridge. Add an [llm] section \
(provider, model, and a key file or a base URL of your own) to its configuration file: \
`nexus-bridge config path` prints where it is, and the bridge picks it up when it is saved.";

/// One tool call as a chip.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub call_id: String,
    pub tool: String,
    /// The bridge's one line ("Calling nexus:search", "… failed: …").
    pub message: String,
    pub done: bool,
    pub is_error: bool,
    pub args: Option<Value>,
    pub result: Option<Value>,
    /// The call waits for the user's Allow once · Always · Deny.
    pub confirm: Option<Confirming>,
}

/// What a chip waiting for confirmation shows besides the call.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirming {
    /// The `Confirm` id the answer names.
    pub id: String,
    pub destructive: bool,
    pub reason: String,
}

/// One turn's tool choice: the tools shown (full, condensed, name only) and the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolsSeen {
    pub tools: Vec<ToolSeen>,
    pub excluded: u32,
    pub tokens: u64,
    pub all_full_tokens: u64,
    pub micros: u64,
}

/// What one entry of the conversation shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    User(String),
    /// Markdown, growing while it streams.
    Assistant(String),
    Tool(ToolCall),
    /// The tools the model was shown this turn (the JIT tool compiler), and why.
    ToolsSeen(ToolsSeen),
    TurnEnd {
        outcome: TurnOutcome,
        usage: TokenUsage,
    },
    Error(String),
}

/// An entry of the conversation. `key` is unique within the view; `rev` changes whenever the
/// entry does, so the list redraws only changed entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub key: u64,
    pub rev: u32,
    pub body: Body,
}

/// The chat socket as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    Connecting,
    /// `resumed`: an existing session came back with its history.
    Connected {
        resumed: bool,
    },
    /// Reconnecting, offline or refused, in words.
    Down(String),
}

/// Which LLM answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provider {
    Unknown,
    Configured {
        provider: String,
        model: String,
    },
    /// None configured: what to set.
    Missing(String),
}

/// Where the bridge's configuration file is and what to add to it, while no provider is set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigHelp {
    pub path: String,
    pub snippet: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatView {
    pub session_id: Option<String>,
    pub connection: Connection,
    pub provider: Provider,
    /// The configuration file and the section to add (empty when the bridge did not say).
    pub config_help: ConfigHelp,
    /// A provider was picked up while the page was open (the file was saved): "provider · model".
    pub picked_up: Option<String>,
    pub items: Vec<Item>,
    /// A turn is running: Stop is offered, Send is not.
    pub busy: bool,
    pub session_usage: TokenUsage,
    pub sessions: Vec<SessionSummary>,
    next_key: u64,
}

impl Default for ChatView {
    fn default() -> Self {
        ChatView {
            session_id: None,
            connection: Connection::Connecting,
            provider: Provider::Unknown,
            config_help: ConfigHelp::default(),
            picked_up: None,
            items: Vec::new(),
            busy: false,
            session_usage: TokenUsage::default(),
            sessions: Vec::new(),
            next_key: 0,
        }
    }
}

impl ChatView {
    /// Whether the user can send a message now.
    pub fn can_send(&self) -> bool {
        !self.busy
            && matches!(self.connection, Connection::Connected { .. })
            && !matches!(self.provider, Provider::Missing(_))
    }

    /// The user sent `text`: it shows at once and the turn is running.
    pub fn sent(&mut self, text: &str) {
        self.push(Body::User(text.to_owned()));
        self.busy = true;
    }

    /// The socket closed: a running turn is over for this page (the bridge aborts it, and a
    /// call waiting for confirmation does not run).
    pub fn socket_lost(&mut self, words: String) {
        self.busy = false;
        self.connection = Connection::Down(words);
        self.end_confirmations("not run: the connection closed");
    }

    /// The user answered the confirmation of chip `call_id`: its buttons go.
    pub fn confirmed(&mut self, call_id: &str, answer: ConfirmAnswer) {
        if let Some(i) = self.find_call(call_id, false) {
            self.change(i, |body| {
                if let Body::Tool(call) = body {
                    call.confirm = None;
                    call.message = match answer {
                        ConfirmAnswer::Once => format!("{}: allowed once", call.tool),
                        ConfirmAnswer::Always => {
                            format!("{}: allowed for this session", call.tool)
                        }
                        ConfirmAnswer::Deny => format!("{}: declined", call.tool),
                    };
                }
            });
        }
    }

    /// Chips still asking lose their buttons (the bridge no longer waits).
    fn end_confirmations(&mut self, why: &str) {
        let asking: Vec<usize> = self
            .items
            .iter()
            .enumerate()
            .filter(|(_, item)| matches!(&item.body, Body::Tool(call) if call.confirm.is_some()))
            .map(|(i, _)| i)
            .collect();
        for i in asking {
            self.change(i, |body| {
                if let Body::Tool(call) = body {
                    call.confirm = None;
                    call.message = format!("{} ({why})", call.tool);
                }
            });
        }
    }

    fn confirm(&mut self, request: ConfirmRequest) {
        let message = format!("{} waits for your confirmation", request.tool);
        let confirming = Confirming {
            id: request.id,
            destructive: request.destructive,
            reason: request.reason,
        };
        match self.find_call(&request.call_id, false) {
            Some(i) => self.change(i, |body| {
                if let Body::Tool(call) = body {
                    call.confirm = Some(confirming);
                    call.message = message;
                    call.args = Some(request.arguments);
                }
            }),
            None => self.push(Body::Tool(ToolCall {
                call_id: request.call_id,
                tool: request.tool,
                message,
                done: false,
                is_error: false,
                args: Some(request.arguments),
                result: None,
                confirm: Some(confirming),
            })),
        }
    }

    /// The socket is trying again, in words.
    pub fn connecting(&mut self) {
        self.connection = Connection::Connecting;
    }

    /// Applies one message from the bridge.
    pub fn apply(&mut self, message: ChatServerMessage) {
        match message {
            ChatServerMessage::Text { content } => self.text(&content),
            ChatServerMessage::Status(status) => self.status(status),
            ChatServerMessage::Confirm(request) => self.confirm(request),
            ChatServerMessage::Connection {
                state,
                message,
                session_id,
            } => self.connection(state, message, session_id),
            ChatServerMessage::History {
                session_id,
                messages,
            } => self.history(session_id, &messages),
            // Descriptions belong to the details pane, the handshake to the socket.
            ChatServerMessage::Described { .. }
            | ChatServerMessage::NotDescribed { .. }
            | ChatServerMessage::Challenge { .. } => {}
            ChatServerMessage::Sessions { sessions } => {
                if let Some(current) = sessions
                    .iter()
                    .find(|s| Some(&s.session_id) == self.session_id.as_ref())
                {
                    self.session_usage = current.usage;
                }
                self.sessions = sessions;
            }
            ChatServerMessage::TurnEnd {
                outcome,
                usage,
                session_usage,
            } => {
                self.busy = false;
                self.session_usage = session_usage;
                self.end_confirmations("not run: the turn ended");
                let unfinished: Vec<usize> = self
                    .items
                    .iter()
                    .enumerate()
                    .filter(|(_, item)| matches!(&item.body, Body::Tool(call) if !call.done))
                    .map(|(i, _)| i)
                    .collect();
                for i in unfinished {
                    self.change(i, |body| {
                        if let Body::Tool(call) = body {
                            call.done = true;
                            call.is_error = true;
                            call.message = format!("{} (not finished: the turn ended)", call.tool);
                        }
                    });
                }
                self.push(Body::TurnEnd { outcome, usage });
            }
            ChatServerMessage::Provider {
                configured,
                provider,
                model,
                message,
                config_path,
                snippet,
            } => {
                self.config_help = ConfigHelp {
                    path: config_path,
                    snippet,
                };
                self.picked_up = (configured && matches!(self.provider, Provider::Missing(_)))
                    .then(|| format!("{provider} · {model}"));
                self.provider = if configured {
                    Provider::Configured { provider, model }
                } else if message.trim().is_empty() {
                    Provider::Missing(UNCONFIGURED.into())
                } else {
                    Provider::Missing(message)
                };
            }
            ChatServerMessage::ToolsCompiled {
                tools,
                excluded,
                tokens,
                all_full_tokens,
                micros,
            } => self.push(Body::ToolsSeen(ToolsSeen {
                tools,
                excluded,
                tokens,
                all_full_tokens,
                micros,
            })),
            ChatServerMessage::Error { message } => {
                // A message refused before its turn started (rate limit, bad message) leaves
                // nothing running.
                if matches!(
                    self.items.last(),
                    Some(Item {
                        body: Body::User(_),
                        ..
                    })
                ) {
                    self.busy = false;
                }
                self.push(Body::Error(message));
            }
        }
    }

    fn connection(&mut self, state: ConnectionState, message: String, session_id: String) {
        match state {
            ConnectionState::Connected | ConnectionState::Reconnected => {
                if self.session_id.as_deref() != Some(session_id.as_str()) {
                    self.items.clear();
                    self.session_usage = TokenUsage::default();
                    self.busy = false;
                }
                self.session_id = Some(session_id);
                self.connection = Connection::Connected {
                    resumed: state == ConnectionState::Reconnected,
                };
            }
            ConnectionState::Reconnecting => {
                self.connection = Connection::Down(if message.is_empty() {
                    "reconnecting…".into()
                } else {
                    message
                })
            }
            ConnectionState::Error => {
                self.busy = false;
                self.connection = Connection::Down(message);
            }
        }
    }

    fn text(&mut self, content: &str) {
        match self.items.len().checked_sub(1) {
            Some(last) if matches!(self.items[last].body, Body::Assistant(_)) => {
                self.change(last, |body| {
                    if let Body::Assistant(text) = body {
                        text.push_str(content);
                    }
                })
            }
            _ => self.push(Body::Assistant(content.to_owned())),
        }
    }

    fn status(&mut self, status: ToolStatus) {
        let tool = status.tool.clone().unwrap_or_default();
        // Providers number calls per response, so an id may come back in a later round: a call
        // that already finished is never reopened.
        let found = match status.state {
            ToolState::Processing => self.find_call(&status.call_id, false),
            ToolState::Complete => self
                .find_call(&status.call_id, false)
                .or_else(|| self.find_call(&status.call_id, true)),
        };
        match (status.state, found) {
            (ToolState::Processing, None) => self.push(Body::Tool(ToolCall {
                call_id: status.call_id,
                tool,
                message: status.message,
                done: false,
                is_error: false,
                args: status.data,
                result: None,
                confirm: None,
            })),
            (ToolState::Processing, Some(i)) => self.change(i, |body| {
                if let Body::Tool(call) = body {
                    call.message = status.message;
                    call.confirm = None;
                    if status.data.is_some() {
                        call.args = status.data;
                    }
                }
            }),
            (ToolState::Complete, Some(i)) => self.change(i, |body| {
                if let Body::Tool(call) = body {
                    call.done = true;
                    call.is_error = status.is_error;
                    call.message = status.message;
                    call.result = status.data;
                    call.confirm = None;
                    if call.tool.is_empty() {
                        call.tool = tool;
                    }
                }
            }),
            (ToolState::Complete, None) => self.push(Body::Tool(ToolCall {
                call_id: status.call_id,
                tool,
                message: status.message,
                done: true,
                is_error: status.is_error,
                args: None,
                result: status.data,
                confirm: None,
            })),
        }
    }

    /// The stored conversation replaces what is shown.
    fn history(&mut self, session_id: String, messages: &[ChatMessage]) {
        self.items.clear();
        self.busy = false;
        if self.session_id.as_deref() != Some(session_id.as_str()) {
            self.session_usage = self
                .sessions
                .iter()
                .find(|s| s.session_id == session_id)
                .map(|s| s.usage)
                .unwrap_or_default();
        }
        self.session_id = Some(session_id);
        for message in messages {
            let content = message.content.clone().unwrap_or_default();
            let data = message.data.clone().unwrap_or(Value::Null);
            let call_id = data["call_id"].as_str().unwrap_or_default().to_owned();
            let tool = message
                .tool_name
                .clone()
                .or_else(|| data["tool"].as_str().map(str::to_owned))
                .unwrap_or_default();
            match message.role {
                ChatRole::User => self.push(Body::User(content)),
                ChatRole::Assistant => {
                    if !content.trim().is_empty() {
                        self.text(&content);
                    }
                    if !call_id.is_empty() || !tool.is_empty() {
                        self.status(ToolStatus {
                            state: ToolState::Processing,
                            message: format!("Called {tool}"),
                            call_id,
                            tool: Some(tool),
                            data: data.get("arguments").cloned(),
                            is_error: false,
                        });
                    }
                }
                ChatRole::Tool => {
                    let is_error = data["is_error"].as_bool().unwrap_or(false);
                    self.status(ToolStatus {
                        state: ToolState::Complete,
                        message: format!("{tool} {}", if is_error { "failed" } else { "answered" }),
                        call_id,
                        tool: Some(tool),
                        data: data.get("result").cloned(),
                        is_error,
                    });
                }
                // System messages (the prompt, corrections for the model) are not the user's.
                ChatRole::System => {}
            }
        }
        // A history ends no turn, but its calls are over.
        for item in &mut self.items {
            if let Body::Tool(call) = &mut item.body {
                call.done = true;
            }
        }
    }

    /// The newest chip of this call id that is finished (`done`) or still running.
    fn find_call(&self, call_id: &str, done: bool) -> Option<usize> {
        self.items.iter().rposition(
            |item| matches!(&item.body, Body::Tool(call) if call.call_id == call_id && call.done == done),
        )
    }

    fn push(&mut self, body: Body) {
        self.items.push(Item {
            key: self.next_key,
            rev: 0,
            body,
        });
        self.next_key += 1;
    }

    fn change(&mut self, index: usize, edit: impl FnOnce(&mut Body)) {
        if let Some(item) = self.items.get_mut(index) {
            edit(&mut item.body);
            item.rev = item.rev.wrapping_add(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(text: &str) -> ChatServerMessage {
        ChatServerMessage::decode(text).unwrap()
    }

    fn connected(view: &mut ChatView, id: &str) {
        view.apply(ChatServerMessage::Connection {
            state: ConnectionState::Connected,
            message: String::new(),
            session_id: id.into(),
        });
    }

    fn usage(total: u64) -> TokenUsage {
        TokenUsage {
            prompt_tokens: total - 1,
            completion_tokens: 1,
            total_tokens: total,
        }
    }

    #[test]
    fn the_tools_a_turn_saw_come_before_its_answer() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.sent("what time is it?");
        view.apply(decode(
            r#"{"type":"tools_compiled","payload":{"tools":[{"name":"nexus:route","tier":"full","skeleton":true,"score":30.0,"logic":40.0,"vector":10.0,"reasons":["+40 skeleton"]},{"name":"time:get_current_time","tier":"condensed","score":55.0,"logic":60.0,"vector":45.0,"offline":true}],"excluded":20,"tokens":700,"all_full_tokens":6000,"micros":310}}"#,
        ));
        view.apply(decode(r#"{"type":"text","payload":{"content":"Noon."}}"#));
        let Some(Body::ToolsSeen(seen)) = view.items.get(1).map(|i| &i.body) else {
            panic!("{:?}", view.items);
        };
        assert_eq!(seen.tools.len(), 2);
        assert_eq!(seen.excluded, 20);
        assert!(seen.tools[1].offline && seen.tools[1].reasons.is_empty());
        assert_eq!(
            view.items.get(2).map(|i| &i.body),
            Some(&Body::Assistant("Noon.".into()))
        );
    }

    #[test]
    fn a_turn_streams_text_around_tool_chips_and_ends_with_its_usage() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.apply(decode(
            r#"{"type":"provider","payload":{"configured":true,"provider":"openai","model":"m","message":""}}"#,
        ));
        assert!(view.can_send());
        view.sent("who calls charge?");
        assert!(view.busy && !view.can_send());
        for message in [
            r#"{"type":"text","payload":{"content":"I'll "}}"#,
            r#"{"type":"text","payload":{"content":"search"}}"#,
            r#"{"type":"status","payload":{"state":"processing","call_id":"c1","tool":"nexus:search","message":"Calling nexus:search","data":{"query":"charge"}}}"#,
            r#"{"type":"status","payload":{"state":"complete","call_id":"c1","tool":"nexus:search","message":"nexus:search answered","data":{"content":[{"type":"text","text":"Function:pay.py:charge"}]}}}"#,
            r#"{"type":"text","payload":{"content":"Found **charge**"}}"#,
        ] {
            view.apply(decode(message));
        }
        view.apply(ChatServerMessage::TurnEnd {
            outcome: TurnOutcome::Answered,
            usage: usage(30),
            session_usage: usage(50),
        });
        let bodies: Vec<&Body> = view.items.iter().map(|i| &i.body).collect();
        assert_eq!(bodies.len(), 5, "{bodies:?}");
        assert_eq!(bodies[0], &Body::User("who calls charge?".into()));
        assert_eq!(bodies[1], &Body::Assistant("I'll search".into()));
        let Body::Tool(call) = bodies[2] else {
            panic!("{bodies:?}")
        };
        assert!(call.done && !call.is_error);
        assert_eq!(call.tool, "nexus:search");
        assert_eq!(call.args, Some(json!({"query": "charge"})));
        assert_eq!(call.message, "nexus:search answered");
        assert_eq!(bodies[3], &Body::Assistant("Found **charge**".into()));
        assert_eq!(
            bodies[4],
            &Body::TurnEnd {
                outcome: TurnOutcome::Answered,
                usage: usage(30)
            }
        );
        assert!(!view.busy && view.can_send());
        assert_eq!(view.session_usage.total_tokens, 50);
        // The streamed entry and the chip changed (new rev); keys are unique.
        assert!(view.items[1].rev > 0 && view.items[2].rev > 0);
        let mut keys: Vec<u64> = view.items.iter().map(|i| i.key).collect();
        keys.dedup();
        assert_eq!(keys.len(), 5);
    }

    #[test]
    fn a_call_id_used_again_in_a_later_round_is_a_new_chip() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.sent("go");
        for message in [
            r#"{"type":"status","payload":{"state":"processing","call_id":"call_1","tool":"nexus:search","message":"Calling nexus:search"}}"#,
            r#"{"type":"status","payload":{"state":"complete","call_id":"call_1","tool":"nexus:search","message":"nexus:search done"}}"#,
            r#"{"type":"status","payload":{"state":"processing","call_id":"call_1","tool":"everything:echo","message":"Calling everything:echo"}}"#,
            r#"{"type":"status","payload":{"state":"complete","call_id":"call_1","tool":"everything:echo","message":"everything:echo done"}}"#,
        ] {
            view.apply(decode(message));
        }
        let chips: Vec<(&str, bool)> = view
            .items
            .iter()
            .filter_map(|item| match &item.body {
                Body::Tool(call) => Some((call.tool.as_str(), call.done)),
                _ => None,
            })
            .collect();
        assert_eq!(chips, [("nexus:search", true), ("everything:echo", true)]);
    }

    #[test]
    fn a_stopped_turn_closes_its_open_chips() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.sent("go");
        view.apply(decode(
            r#"{"type":"status","payload":{"state":"processing","call_id":"c9","tool":"x:slow","message":"Calling x:slow"}}"#,
        ));
        view.apply(ChatServerMessage::TurnEnd {
            outcome: TurnOutcome::Stopped,
            usage: TokenUsage::default(),
            session_usage: TokenUsage::default(),
        });
        let Body::Tool(call) = &view.items[1].body else {
            panic!("{:?}", view.items)
        };
        assert!(call.done && call.is_error);
        assert!(!view.busy);
    }

    #[test]
    fn a_resumed_session_shows_its_history_with_calls_paired_to_results() {
        let mut view = ChatView::default();
        view.apply(ChatServerMessage::Connection {
            state: ConnectionState::Reconnected,
            message: "resumed".into(),
            session_id: "s7".into(),
        });
        assert_eq!(view.connection, Connection::Connected { resumed: true });
        let history = json!({"type": "history", "payload": {"session_id": "s7", "messages": [
            {"id": "1", "role": "system", "content": "You are Nexus", "created_at": 1},
            {"id": "2", "role": "user", "content": "where is charge?", "created_at": 2},
            {"id": "3", "role": "assistant", "content": "Looking.", "data": {"call_id": "c1", "tool": "nexus:search", "arguments": {"query": "charge"}}, "tool_name": "nexus:search", "created_at": 3},
            {"id": "4", "role": "tool", "data": {"call_id": "c1", "result": {"content": []}, "is_error": true}, "tool_name": "nexus:search", "created_at": 4},
            {"id": "5", "role": "assistant", "content": "In pay.py", "created_at": 5}
        ]}});
        view.apply(decode(&history.to_string()));
        let bodies: Vec<&Body> = view.items.iter().map(|i| &i.body).collect();
        assert_eq!(bodies.len(), 4, "{bodies:?}");
        assert_eq!(bodies[0], &Body::User("where is charge?".into()));
        assert_eq!(bodies[1], &Body::Assistant("Looking.".into()));
        let Body::Tool(call) = bodies[2] else {
            panic!("{bodies:?}")
        };
        assert_eq!(
            (call.call_id.as_str(), call.done, call.is_error),
            ("c1", true, true)
        );
        assert_eq!(call.args, Some(json!({"query": "charge"})));
        assert_eq!(bodies[3], &Body::Assistant("In pay.py".into()));
        assert_eq!(view.session_id.as_deref(), Some("s7"));
    }

    #[test]
    fn a_new_session_clears_the_view_and_sessions_give_its_usage() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.sent("hi");
        view.apply(decode(r#"{"type":"text","payload":{"content":"hello"}}"#));
        connected(&mut view, "s1");
        assert_eq!(view.items.len(), 2, "the same session keeps its entries");
        connected(&mut view, "s2");
        assert!(view.items.is_empty() && !view.busy);
        view.apply(ChatServerMessage::Sessions {
            sessions: vec![SessionSummary {
                session_id: "s2".into(),
                title: "t".into(),
                project: "shop".into(),
                updated_at: 0,
                messages: 0,
                usage: usage(9),
            }],
        });
        assert_eq!(view.session_usage.total_tokens, 9);
        assert_eq!(view.sessions.len(), 1);
    }

    #[test]
    fn no_provider_names_the_variables_and_blocks_sending() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.apply(ChatServerMessage::Provider {
            configured: false,
            provider: String::new(),
            model: String::new(),
            message: String::new(),
            config_path: String::new(),
            snippet: String::new(),
        });
        let Provider::Missing(text) = &view.provider else {
            panic!("{:?}", view.provider)
        };
        for words in ["configuration file", "[llm]", "nexus-bridge config path"] {
            assert!(text.contains(words), "{text}");
        }
        assert!(!view.can_send());
        assert_eq!(view.picked_up, None);
    }

    #[test]
    fn a_provider_set_while_the_page_is_open_is_announced_once() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.apply(ChatServerMessage::Provider {
            configured: false,
            provider: String::new(),
            model: String::new(),
            message: "No LLM".into(),
            config_path: "/home/u/.config/nexus/nexus.toml".into(),
            snippet: "[llm]\nprovider = \"openai\"\n".into(),
        });
        assert_eq!(view.config_help.path, "/home/u/.config/nexus/nexus.toml");
        assert!(view.config_help.snippet.starts_with("[llm]"));
        let configured = || ChatServerMessage::Provider {
            configured: true,
            provider: "openai".into(),
            model: "m".into(),
            message: String::new(),
            config_path: "/home/u/.config/nexus/nexus.toml".into(),
            snippet: String::new(),
        };
        view.apply(configured());
        assert_eq!(view.picked_up.as_deref(), Some("openai · m"));
        assert!(view.can_send());
        // The same provider again (a reconnect) is no news.
        view.apply(configured());
        assert_eq!(view.picked_up, None);
    }

    #[test]
    fn a_refused_message_ends_the_wait_but_a_later_error_does_not() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.sent("one");
        view.apply(decode(
            r#"{"type":"error","payload":{"message":"too many messages"}}"#,
        ));
        assert!(!view.busy);
        view.sent("two");
        view.apply(decode(r#"{"type":"text","payload":{"content":"working"}}"#));
        view.apply(decode(r#"{"type":"error","payload":{"message":"busy"}}"#));
        assert!(view.busy);
        assert!(matches!(view.items.last().map(|i| &i.body), Some(Body::Error(m)) if m == "busy"));
    }

    #[test]
    fn a_call_waiting_for_confirmation_shows_buttons_until_answered_or_over() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.sent("write it");
        view.apply(decode(
            r#"{"type":"status","payload":{"state":"processing","call_id":"0:c1","tool":"fs:write_file","message":"Calling fs:write_file","data":{"path":"/tmp/a"}}}"#,
        ));
        view.apply(decode(
            r#"{"type":"confirm","payload":{"id":"k1","call_id":"0:c1","tool":"fs:write_file","arguments":{"path":"/tmp/a"},"destructive":true,"reason":"not read-only","timeout_ms":1000}}"#,
        ));
        let chip = |view: &ChatView| match &view.items[1].body {
            Body::Tool(call) => call.clone(),
            other => panic!("{other:?}"),
        };
        let asking = chip(&view);
        assert_eq!(
            asking.confirm,
            Some(Confirming {
                id: "k1".into(),
                destructive: true,
                reason: "not read-only".into()
            })
        );
        assert_eq!(asking.message, "fs:write_file waits for your confirmation");
        view.confirmed("0:c1", ConfirmAnswer::Deny);
        assert_eq!(chip(&view).confirm, None);
        assert_eq!(chip(&view).message, "fs:write_file: declined");
        // A second question, then the turn ends before an answer: the buttons go.
        view.apply(decode(
            r#"{"type":"confirm","payload":{"id":"k2","call_id":"1:c1","tool":"fs:move_file","arguments":{},"destructive":false,"reason":"r","timeout_ms":1000}}"#,
        ));
        assert!(matches!(&view.items[2].body, Body::Tool(call) if call.confirm.is_some()));
        view.socket_lost("closed".into());
        assert!(
            matches!(&view.items[2].body, Body::Tool(call) if call.confirm.is_none() && call.message.contains("not run"))
        );
    }

    #[test]
    fn losing_the_socket_ends_the_wait() {
        let mut view = ChatView::default();
        connected(&mut view, "s1");
        view.sent("one");
        view.socket_lost("reconnecting in 1 s".into());
        assert!(!view.busy && !view.can_send());
        assert_eq!(
            view.connection,
            Connection::Down("reconnecting in 1 s".into())
        );
    }
}
