//! The Chat tab: the conversation with the bridge's LLM agent — streamed Markdown answers, tool
//! calls as chips (with Allow once · Always · Deny when a call needs confirmation), Stop, New
//! chat, the session list, provider, model and token usage.

use std::cell::OnceCell;
use std::rc::Rc;

use leptos::prelude::*;
use nexus_shared::Outcome;
use nexus_shared::chat::{
    ChatClientMessage, ChatServerMessage, ConfirmAnswer, TokenUsage, ToolState, ToolTier,
    TurnOutcome,
};
use nexus_shared::reconnect::{LinkState, ReconnectPolicy};
use serde_json::Value;

use super::activity::light_touched;
use super::markdown::Markdown;
use super::refs::{node_ids, quoted_names};
use super::state::{AppState, ids_in, use_app};
use crate::chat::socket::ChatSocket;
use crate::chat::state::{
    Body, ChatView, ConfigHelp, Confirming, Connection, Item, Provider, ToolCall, ToolsSeen,
};
use crate::link::status::describe;

/// No provider: what is missing, the configuration file's path and the section to add there
/// (the bridge reads the file again when it is saved, and this gives way to `chat-picked-up`).
fn unconfigured(text: String, help: ConfigHelp) -> impl IntoView {
    let file = (!help.path.is_empty()).then(|| {
        view! {
            <p>"Configuration file: "<code data-testid="chat-config-path">{help.path}</code></p>
            <pre class="chat-config-snippet" data-testid="chat-config-snippet">{help.snippet}</pre>
        }
    });
    view! {
        <div class="chat-setup" data-testid="chat-unconfigured">
            <p class="error">{text}</p>
            {file}
        </div>
    }
}

/// Colour of the nodes the chat agent's tool calls touched.
pub const CHAT_COLOR: &str = "#f59e0b";
/// A tool's arguments or result are shown up to this many characters.
const SHOWN_CHARS: usize = 20_000;

#[component]
pub fn ChatPanel(url: String) -> impl IntoView {
    let app = use_app();
    let view_state = RwSignal::new(ChatView::default());
    // The conversations listed: the open project's, or every project's.
    let all_projects = RwSignal::new(false);
    let project = move || {
        app.picture
            .with_untracked(|p| p.as_ref().map(|p| p.view.project.clone()))
            .filter(|name| !name.is_empty())
    };
    let listed = move || ChatClientMessage::ListSessions {
        project: if all_projects.get_untracked() {
            None
        } else {
            project()
        },
    };
    let slot: Rc<OnceCell<ChatSocket>> = Rc::new(OnceCell::new());
    let on_message = {
        let slot = slot.clone();
        move |message: ChatServerMessage| {
            light_from(&app, &message);
            if describe_reply(&app, &message) {
                return;
            }
            let ask_sessions = matches!(
                message,
                ChatServerMessage::Connection { .. } | ChatServerMessage::TurnEnd { .. }
            );
            view_state.update(|v| v.apply(message));
            if ask_sessions && let Some(socket) = slot.get() {
                let _ = socket.send(&listed());
            }
        }
    };
    let on_state = move |state: LinkState| match state {
        LinkState::Connected => {}
        LinkState::Idle | LinkState::Connecting { .. } => view_state.update(ChatView::connecting),
        other => {
            let words = describe(
                &other,
                ReconnectPolicy::default().max_attempts,
                js_sys::Date::now() as u64,
            );
            view_state.update(|v| v.socket_lost(words));
        }
    };
    let port = crate::link::port_of(&url);
    let socket = ChatSocket::new(url, port, crate::link::secret::keys(), on_message, on_state);
    let _ = slot.set(socket.clone());
    socket.start();
    let socket = StoredValue::new_local(socket);
    // The list follows the project the tab holds.
    Effect::new(move |previous: Option<Option<String>>| {
        let now = app
            .picture
            .with(|p| p.as_ref().map(|p| p.view.project.clone()));
        if previous.is_some_and(|before| before != now) {
            let _ = socket.with_value(|s| s.send(&listed()));
        }
        now
    });
    let send_now = move |message: ChatClientMessage| {
        if let Err(message) = socket.with_value(|s| s.send(&message)) {
            view_state.update(|v| v.apply(ChatServerMessage::Error { message }));
        }
    };

    Effect::new(move |_| {
        let asked = app.describing.ask.get();
        if let Some((node, facts)) = asked {
            app.describing.ask.set(None);
            app.describing
                .status
                .set(Some((node.clone(), "Asking the LLM…".into())));
            if let Err(message) = socket.with_value(|s| {
                s.send(&ChatClientMessage::Describe {
                    node: node.clone(),
                    facts,
                })
            }) {
                app.describing.status.set(Some((node, message)));
            }
        }
    });

    let input = RwSignal::new(String::new());
    let send = move || {
        let text = input.get_untracked();
        if text.trim().is_empty() || !view_state.with_untracked(ChatView::can_send) {
            return;
        }
        let message = ChatClientMessage::Message {
            text: text.clone(),
            project: project(),
        };
        match socket.with_value(|s| s.send(&message)) {
            Ok(()) => {
                view_state.update(|v| v.sent(&text));
                input.set(String::new());
            }
            Err(message) => view_state.update(|v| v.apply(ChatServerMessage::Error { message })),
        }
    };
    let items = move || view_state.with(|v| v.items.clone());
    // The newest entry stays in view while answers stream in (after the list has drawn it).
    let list = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        view_state.track();
        request_animation_frame(move || {
            if let Some(list) = list.get_untracked() {
                list.set_scroll_top(list.scroll_height());
            }
        });
    });
    // The user's answer to a call waiting for confirmation: its buttons go at once.
    let answer = move |id: String, call_id: String, answer: ConfirmAnswer| {
        view_state.update(|v| v.confirmed(&call_id, answer));
        send_now(ChatClientMessage::Confirmation { id, answer });
    };
    let busy = move || view_state.with(|v| v.busy);
    let offline = move || view_state.with(|v| matches!(v.connection, Connection::Down(_)));

    view! {
        <div class="chat" data-testid="chat">
            <div class="chat-head">
                <span class="chat-provider" data-testid="chat-provider">{move || view_state.with(|v| match &v.provider {
                    Provider::Configured { provider, model } => format!("{provider} · {model}"),
                    Provider::Unknown | Provider::Missing(_) => "no model".into(),
                })}</span>
                <span class="muted" data-testid="chat-connection" data-state=move || view_state.with(|v| connection_state(&v.connection))>
                    {move || view_state.with(|v| connection_text(&v.connection))}
                </span>
                <button data-testid="chat-reconnect" class:hidden=move || !offline() on:click=move |_| socket.with_value(ChatSocket::start)>"Reconnect"</button>
                <span class="muted" data-testid="chat-session-usage">{move || view_state.with(|v| format!("session: {}", usage_text(&v.session_usage)))}</span>
                <button data-testid="chat-new" on:click=move |_| send_now(ChatClientMessage::NewSession {})>"New chat"</button>
            </div>
            {move || view_state.with(|v| match &v.provider {
                Provider::Missing(text) => Some(unconfigured(text.clone(), v.config_help.clone()).into_any()),
                Provider::Configured { .. } => v.picked_up.clone().map(|name| view! {
                    <p class="chat-picked-up" data-testid="chat-picked-up">
                        {format!("Picked up {name} from the configuration file: ask away, no restart needed.")}
                    </p>
                }.into_any()),
                Provider::Unknown => None,
            })}
            <Sessions view_state=view_state all_projects=all_projects
                open=move |session_id| send_now(ChatClientMessage::OpenSession { session_id })
                relist=move || send_now(listed()) />
            <div class="chat-messages" node_ref=list data-testid="chat-messages" data-busy=move || busy().to_string()>
                <For each=items key=|item: &Item| (item.key, item.rev) children=move |item| entry(item, answer) />
            </div>
            <textarea data-testid="chat-input" rows="3" placeholder="Ask about this code… (Enter sends, Shift+Enter for a new line)"
                prop:value=move || input.get()
                on:input=move |e| input.set(event_target_value(&e))
                on:keydown=move |e: leptos::ev::KeyboardEvent| if e.key() == "Enter" && !e.shift_key() { e.prevent_default(); send() }
            ></textarea>
            <div class="chat-actions">
                <button data-testid="chat-send" disabled=move || !view_state.with(ChatView::can_send) on:click=move |_| send()>"Send"</button>
                <button data-testid="chat-stop" disabled=move || !busy() on:click=move |_| send_now(ChatClientMessage::Stop {})>"Stop"</button>
            </div>
        </div>
    }
}

#[component]
fn Sessions(
    view_state: RwSignal<ChatView>,
    all_projects: RwSignal<bool>,
    open: impl Fn(String) + Copy + Send + Sync + 'static,
    relist: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let sessions = move || view_state.with(|v| v.sessions.clone());
    view! {
        <details class="chat-sessions" data-testid="chat-sessions">
            <summary>{move || format!("{} ({})", if all_projects.get() { "Conversations, all projects" } else { "Conversations on this project" }, view_state.with(|v| v.sessions.len()))}</summary>
            <label class="muted">
                <input type="checkbox" data-testid="chat-all-projects" prop:checked=move || all_projects.get()
                    on:change=move |e| { all_projects.set(event_target_checked(&e)); relist(); } />
                " all projects"
            </label>
            <ul>
                {move || sessions().into_iter().map(|s| {
                    let current = view_state.with_untracked(|v| v.session_id.as_deref() == Some(s.session_id.as_str()));
                    let id = s.session_id.clone();
                    let title = if s.title.trim().is_empty() { "(empty)".to_owned() } else { s.title.clone() };
                    view! {
                        <li class:current=current>
                            <a data-testid="chat-session" data-session=s.session_id.clone() on:click=move |_| open(id.clone())>{title}</a>
                            <span class="muted" data-testid="chat-session-project" data-project=s.project.clone()>{format!(
                                " · {} · {} · {} messages · {}",
                                if s.project.is_empty() { "no project" } else { s.project.as_str() },
                                super::local_time(s.updated_at as f64),
                                s.messages,
                                usage_text(&s.usage)
                            )}</span>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </details>
    }
}

/// One entry of the conversation; `answer` sends a confirmation.
fn entry(item: Item, answer: impl Fn(String, String, ConfirmAnswer) + Copy + 'static) -> AnyView {
    match item.body {
        Body::User(text) => view! { <div class="msg user" data-role="user">{text}</div> }.into_any(),
        Body::Assistant(text) => view! {
            <div class="msg assistant" data-role="assistant"><Markdown source=text testid="chat-answer" /></div>
        }
        .into_any(),
        Body::Tool(call) => chip(call, answer),
        Body::ToolsSeen(seen) => tools_seen(seen),
        Body::TurnEnd { outcome, usage } => view! {
            <p class="muted turn-end" data-testid="chat-turn-end" data-outcome=outcome_key(outcome)>
                {format!("{} · {}", outcome_text(outcome), usage_text(&usage))}
            </p>
        }
        .into_any(),
        Body::Error(message) => view! { <p class="error" data-testid="chat-error">{message}</p> }.into_any(),
    }
}

/// A tool call: its state and line, arguments and result folded away; a call waiting for
/// confirmation is open, with its arguments, what it may do and the three buttons.
fn chip(
    call: ToolCall,
    answer: impl Fn(String, String, ConfirmAnswer) + Copy + 'static,
) -> AnyView {
    let state = match (call.done, call.is_error, call.confirm.is_some()) {
        (false, _, true) => "confirm",
        (false, _, false) => "processing",
        (true, false, _) => "complete",
        (true, true, _) => "error",
    };
    let args = call.args.as_ref().map(shown_value);
    let result = call.result.as_ref().map(result_text);
    // A question shows the arguments itself.
    let (asking, args) = match call.confirm.clone() {
        Some(confirming) => (
            Some(confirm_box(
                confirming,
                call.call_id.clone(),
                args.unwrap_or_default(),
                answer,
            )),
            None,
        ),
        None => (None, args),
    };
    view! {
        <details class="chip" data-testid="chat-tool" data-tool=call.tool.clone() data-state=state open=call.confirm.is_some()>
            <summary><span class="chip-state"></span>{call.message}</summary>
            {asking}
            {args.map(|a| view! { <p class="muted">"Arguments"</p><pre data-testid="chat-tool-args">{a}</pre> })}
            {result.map(|r| view! { <p class="muted">"Result"</p><pre data-testid="chat-tool-result">{r}</pre> })}
        </details>
    }
    .into_any()
}

/// The question on a chip: what the call may do, why it asks, its arguments, and the buttons.
fn confirm_box(
    confirming: Confirming,
    call_id: String,
    args: String,
    answer: impl Fn(String, String, ConfirmAnswer) + Copy + 'static,
) -> AnyView {
    let effect = if confirming.destructive {
        "It may change or delete data (destructiveHint)."
    } else {
        "The server says it does not destroy data (destructiveHint: false)."
    };
    let button = move |label: &'static str, testid: &'static str, choice: ConfirmAnswer| {
        let (id, call_id) = (confirming.id.clone(), call_id.clone());
        view! {
            <button data-testid=testid on:click=move |_| answer(id.clone(), call_id.clone(), choice)>{label}</button>
        }
    };
    view! {
        <div class="confirm" data-testid="chat-confirm" data-destructive=confirming.destructive.to_string()>
            <p data-testid="chat-confirm-effect">{effect}</p>
            <p class="muted">{format!("Asked because {}.", confirming.reason)}</p>
            <pre data-testid="chat-confirm-args">{args}</pre>
            {button("Allow once", "chat-confirm-once", ConfirmAnswer::Once)}
            {button("Always for this tool", "chat-confirm-always", ConfirmAnswer::Always)}
            {button("Deny", "chat-confirm-deny", ConfirmAnswer::Deny)}
        </div>
    }
    .into_any()
}

/// The tools the model saw this turn: one folded line, then each tool with its tier, score and
/// why (rule hits, vector score).
fn tools_seen(seen: ToolsSeen) -> AnyView {
    let count = |tier: ToolTier| seen.tools.iter().filter(|t| t.tier == tier).count();
    let line = format!(
        "Tools seen: {} full, {} condensed, {} by name · {} left out · {} of {} tokens · compiled in {:.2} ms",
        count(ToolTier::Full),
        count(ToolTier::Condensed),
        count(ToolTier::Minimal),
        seen.excluded,
        seen.tokens,
        seen.all_full_tokens,
        seen.micros as f64 / 1000.0
    );
    let rows = seen
        .tools
        .into_iter()
        .map(|t| {
            let tier = tier_key(t.tier);
            let mut why = t.reasons.join("; ");
            if t.skeleton {
                why = if why.is_empty() { "skeleton".into() } else { format!("skeleton; {why}") };
            }
            let scores = format!(
                "score {:.0} (rules {:.0}, vector {:.0})",
                t.score, t.logic, t.vector
            );
            let offline = t.offline.then_some(" · offline");
            let id = t.name.clone();
            let name = t.name;
            view! {
                <li data-testid="chat-tool-seen" data-tool=id data-tier=tier>
                    <code>{name}</code>
                    {format!(" · {tier} · {scores}")}
                    {offline}
                    {(!why.is_empty()).then(|| view! { <span class="muted">{format!(" · {why}")}</span> })}
                </li>
            }
        })
        .collect_view();
    view! {
        <details class="muted tools-seen" data-testid="chat-tools-seen">
            <summary>{line}</summary>
            <ul>{rows}</ul>
        </details>
    }
    .into_any()
}

fn tier_key(tier: ToolTier) -> &'static str {
    match tier {
        ToolTier::Full => "full",
        ToolTier::Condensed => "condensed",
        ToolTier::Minimal => "name only",
    }
}

/// A tool result as text: an MCP result's text contents, else the JSON.
pub fn result_text(value: &Value) -> String {
    let texts: Option<Vec<&str>> = value["content"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["text"].as_str()).collect());
    match (texts, value) {
        (Some(texts), _) if !texts.is_empty() => cut(&texts.join("\n")),
        (_, Value::String(text)) => cut(text),
        _ => shown_value(value),
    }
}

fn shown_value(value: &Value) -> String {
    cut(&serde_json::to_string_pretty(value).unwrap_or_default())
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}… ({} characters)", &text[..at], text.chars().count()),
        None => text.to_owned(),
    }
}

/// Lights the nodes a tool call names: in its arguments (as the activity feed does) and every
/// symbol id or `file:line` in its arguments or result.
/// Handles the answers to the details pane's descriptions (and notes whether there is an LLM to
/// ask); true when `message` was one.
fn describe_reply(app: &AppState, message: &ChatServerMessage) -> bool {
    let describing = app.describing;
    match message {
        ChatServerMessage::Provider { configured, .. } => {
            describing.llm.set(*configured);
            false
        }
        ChatServerMessage::Described { node, text } => {
            describing
                .status
                .set(Some((node.clone(), "Writing the description…".into())));
            let id = node.clone();
            app.engine.with_value(|engine| {
                engine.describe(
                    node,
                    text,
                    Box::new(move |outcome| {
                        let words = match outcome {
                            Outcome::Ok(summary) => {
                                describing.written.update(|n| *n += 1);
                                let line = summary.text.lines().next().unwrap_or_default();
                                format!("Described by the LLM (saved with the graph): {line}")
                            }
                            Outcome::Err(err) => err.message,
                        };
                        describing.status.set(Some((id, words)));
                    }),
                )
            });
            true
        }
        ChatServerMessage::NotDescribed { node, message } => {
            describing.status.set(Some((node.clone(), message.clone())));
            true
        }
        _ => false,
    }
}

fn light_from(app: &AppState, message: &ChatServerMessage) {
    let ChatServerMessage::Status(status) = message else {
        return;
    };
    let Some(data) = &status.data else { return };
    if status.state == ToolState::Processing {
        light_touched(app, data, CHAT_COLOR);
    }
    let found: Vec<u32> = app.picture.with_untracked(|p| {
        let Some(p) = p.as_ref() else {
            return Vec::new();
        };
        let known = |id: &str| p.find(id).is_some();
        let mut ids = ids_in(data);
        strings_in(data, &mut |text| {
            ids.extend(node_ids(text, &known));
            ids.extend(quoted_names(text).map(str::to_owned));
        });
        ids.sort_unstable();
        ids.dedup();
        ids.iter().filter_map(|id| p.find_named(id)).collect()
    });
    app.light(found, CHAT_COLOR);
}

fn strings_in(value: &Value, each: &mut dyn FnMut(&str)) {
    match value {
        Value::String(text) => each(text),
        Value::Array(items) => items.iter().for_each(|item| strings_in(item, each)),
        Value::Object(map) => map.values().for_each(|item| strings_in(item, each)),
        _ => {}
    }
}

fn connection_state(connection: &Connection) -> &'static str {
    match connection {
        Connection::Connecting => "connecting",
        Connection::Connected { resumed: false } => "connected",
        Connection::Connected { resumed: true } => "reconnected",
        Connection::Down(_) => "down",
    }
}

fn connection_text(connection: &Connection) -> String {
    match connection {
        Connection::Connecting => "connecting…".into(),
        Connection::Connected { resumed: false } => "connected".into(),
        Connection::Connected { resumed: true } => "resumed".into(),
        Connection::Down(words) => words.clone(),
    }
}

fn outcome_key(outcome: TurnOutcome) -> &'static str {
    match outcome {
        TurnOutcome::Answered => "answered",
        TurnOutcome::Stopped => "stopped",
        TurnOutcome::RoundLimit => "round_limit",
        TurnOutcome::Failed => "failed",
    }
}

fn outcome_text(outcome: TurnOutcome) -> &'static str {
    match outcome {
        TurnOutcome::Answered => "answered",
        TurnOutcome::Stopped => "stopped",
        TurnOutcome::RoundLimit => "stopped at the tool-round limit",
        TurnOutcome::Failed => "the model failed",
    }
}

fn usage_text(usage: &TokenUsage) -> String {
    format!(
        "{} tokens ({} in, {} out)",
        usage.total_tokens, usage.prompt_tokens, usage.completion_tokens
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_show_their_text_contents_or_json() {
        let mcp =
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]});
        assert_eq!(result_text(&mcp), "a\nb");
        assert_eq!(result_text(&json!("plain")), "plain");
        assert_eq!(result_text(&json!({"n": 1})), "{\n  \"n\": 1\n}");
        let long = "x".repeat(SHOWN_CHARS + 5);
        assert!(
            result_text(&json!(long)).ends_with(&format!("… ({} characters)", SHOWN_CHARS + 5))
        );
    }

    #[test]
    fn every_string_of_a_result_is_visited() {
        let mut seen = Vec::new();
        strings_in(&json!({"a": ["x", {"b": "y"}], "n": 3}), &mut |s| {
            seen.push(s.to_owned())
        });
        seen.sort();
        assert_eq!(seen, ["x", "y"]);
    }

    #[test]
    fn usage_reads_in_and_out() {
        let usage = TokenUsage {
            prompt_tokens: 7,
            completion_tokens: 3,
            total_tokens: 10,
        };
        assert_eq!(usage_text(&usage), "10 tokens (7 in, 3 out)");
    }
}
