//! One chat turn (§2.2): store the question, prune, stream the model's answer to the socket, run
//! its tool calls through the host and feed results back, round after round, with retries.

use std::sync::Arc;

use crate::chat::ChatSender;
use nexus_shared::chat::{
    ChatMessage, ChatRole, ChatServerMessage, ConfirmAnswer, ConfirmRequest, TokenUsage, ToolState,
    ToolStatus, TurnOutcome,
};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::analyze;
use super::config::{LlmConfig, Setup};
use super::confirm::CONFIRM_TIMEOUT;
use super::fence;
use super::jit::{self, EXPAND_TOOL, FIND_TOOLS, ToolJit, TurnTools};
use super::parser::{Piece, QUOTED_NOTE, ToolBlockParser};
use super::prompt::{Toolbox, base_prompt, compile_system_prompt};
use super::provider::{self, Event, LlmError, Request};
use super::prune::{estimate_tokens, message_tokens, prune};
use super::{Chat, new_id};
use crate::host::policy::{self, Action};
use crate::host::{CallRequest, Host};

/// Who the activity feed names for the chat agent's calls.
pub const CHAT_CALLER: &str = "chat";

/// A tool call the model asked for.
#[derive(Debug, Clone)]
enum Wanted {
    Call {
        id: String,
        name: String,
        arguments: Value,
    },
    /// A text block that is not a call: the corrective message for the model.
    Malformed(String),
}

/// One model response, as far as it went.
#[derive(Default)]
struct Reply {
    text: String,
    wanted: Vec<Wanted>,
    usage: TokenUsage,
    /// It wrote a tool block without the turn's key (shown as text, not run).
    quoted: bool,
}

enum ModelEnd {
    Done,
    Stopped,
    Failed(String),
}

/// Runs one turn for `session`: how it ended and the tokens it used. Everything the user sees
/// goes to `out`, except `turn_end`, which the caller sends once the session is free again (a
/// client may send its next message the moment it reads `turn_end`).
pub async fn run_turn(
    chat: &Chat,
    host: Option<Arc<Host>>,
    session: &str,
    text: String,
    out: &ChatSender,
    cancel: CancellationToken,
) -> (TurnOutcome, TokenUsage) {
    let live = chat.live();
    let config = match &live.setup {
        Setup::Ready(config) => config.clone(),
        Setup::Missing(message) => {
            let _ = out.send(ChatServerMessage::Error {
                message: message.clone(),
            });
            return (TurnOutcome::Failed, TokenUsage::default());
        }
    };
    let earlier = chat.store.messages(session).unwrap_or_default();
    // Denied tools are never shown to the model (nor to the tool compiler, so `expand` cannot
    // reach them).
    let report = host.as_ref().map(|h| {
        let mut report = h.report();
        policy::without_denied(&mut report);
        (report, h.version())
    });
    let toolbox = report
        .as_ref()
        .map(|(r, _)| Toolbox::from_report(r))
        .unwrap_or_default();
    let turn_tools = match (&chat.jit, &report) {
        (Some(jit), Some((report, version))) => {
            let facts = jit::turn_facts(&text, &earlier);
            // Preparing a changed registry embeds its tools (seconds with the MiniLM embedder):
            // on a blocking thread, so that no other session or socket waits for it.
            let compiled = {
                let (jit, report, version) = (jit.clone(), report.clone(), *version);
                let session = session.to_owned();
                tokio::task::spawn_blocking(move || jit.compile(&report, version, &session, &facts))
                    .await
            };
            let turn = match compiled {
                Ok(turn) => turn,
                Err(err) => {
                    tracing::error!(%err, "the tool compiler failed");
                    let _ = out.send(ChatServerMessage::Error {
                        message: format!("the tool compiler failed: {err}"),
                    });
                    return (TurnOutcome::Failed, TokenUsage::default());
                }
            };
            let _ = out.send(turn.message());
            if let Some(analyzer) = &chat.analyzer {
                analyze::refresh_in_background(jit, analyzer, report);
            }
            Some((jit, turn))
        }
        _ => None,
    };
    chat.save(session, ChatRole::User, Some(text), None, None);
    let section = turn_tools
        .as_ref()
        .map(|(_, turn)| turn.section(config.native_tools));
    // The text protocol's blocks run only under this turn's key (`parser.rs`).
    let tool_key = (!config.native_tools).then(fence::new_key);
    let system = compile_system_prompt(
        &base_prompt(config.prompt_addition.as_deref()),
        &toolbox,
        tool_key.as_deref(),
        section.as_deref(),
    );
    let gate = turn_tools
        .as_ref()
        .map(|(jit, turn)| Gate { jit, turn, session });
    let mut usage = TokenUsage::default();
    let mut outcome = TurnOutcome::RoundLimit;
    for round in 0..live.limits.max_rounds {
        let history = chat.store.messages(session).unwrap_or_default();
        let budget = live
            .limits
            .context_tokens
            .saturating_sub(estimate_tokens(&system));
        let kept = prune(&history, budget);
        let declared = gate
            .as_ref()
            .map(|g| g.turn.declared(&toolbox, &g.jit.expanded_in(session)));
        let request = Request {
            system: &system,
            history: kept,
            toolbox: declared.as_ref().unwrap_or(&toolbox),
            tool_key: tool_key.as_deref(),
        };
        let mut reply = Reply::default();
        let end = ask_model(chat, &config, &request, round, &mut reply, out, &cancel).await;
        if reply.quoted && tool_key.is_some() {
            tracing::info!(session, "a tool block without the turn's key was not run");
            reply.wanted.push(Wanted::Malformed(QUOTED_NOTE.to_owned()));
        }
        // A native call of a tool that was not declared comes back in its wire form.
        for want in &mut reply.wanted {
            if let Wanted::Call { name, .. } = want {
                *name = provider::from_wire(&toolbox, name);
            }
        }
        if reply.usage == TokenUsage::default() {
            reply.usage = estimated_usage(&system, kept, &reply);
        }
        usage.add(reply.usage);
        if !reply.text.is_empty() {
            chat.save(
                session,
                ChatRole::Assistant,
                Some(reply.text.clone()),
                None,
                None,
            );
        }
        match end {
            ModelEnd::Stopped => {
                outcome = TurnOutcome::Stopped;
                break;
            }
            ModelEnd::Failed(reason) => {
                tracing::warn!(session, reason, "the model failed after its retries");
                let fallback = format!(
                    "\n\nSorry, the language model could not answer ({reason}). Please try again in a moment."
                );
                let _ = out.send(ChatServerMessage::Text {
                    content: fallback.clone(),
                });
                chat.save(
                    session,
                    ChatRole::Assistant,
                    Some(fallback.trim().to_owned()),
                    None,
                    None,
                );
                outcome = TurnOutcome::Failed;
                break;
            }
            ModelEnd::Done => {}
        }
        if reply.wanted.is_empty() {
            outcome = TurnOutcome::Answered;
            break;
        }
        if run_tools(
            chat,
            (host.as_ref(), gate.as_ref()),
            &toolbox,
            session,
            (round, reply.wanted),
            out,
            &cancel,
        )
        .await
        {
            outcome = TurnOutcome::Stopped;
            break;
        }
    }
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    if let Err(err) = chat.store.add_usage(session, usage) {
        tracing::warn!(session, %err, "cannot record token usage");
    }
    (outcome, usage)
}

/// One model call with retries on transient failures (only while nothing was streamed yet:
/// a retry after text reached the user would repeat it).
async fn ask_model(
    chat: &Chat,
    config: &LlmConfig,
    request: &Request<'_>,
    round: u32,
    reply: &mut Reply,
    out: &ChatSender,
    cancel: &CancellationToken,
) -> ModelEnd {
    let mut attempt = 0u32;
    loop {
        let streamed_before = reply.text.len();
        let result = stream_once(chat, config, request, round, reply, out, cancel).await;
        match result {
            Ok(()) => return ModelEnd::Done,
            Err(None) => return ModelEnd::Stopped,
            Err(Some(LlmError::Transient(reason)))
                if attempt < chat.live().limits.retries
                    && reply.text.len() == streamed_before
                    && reply.wanted.is_empty() =>
            {
                attempt += 1;
                let delay = chat.live().limits.retry_delay * 2u32.saturating_pow(attempt - 1);
                tracing::info!(attempt, ?delay, reason, "the model failed; retrying");
                tokio::select! {
                    _ = cancel.cancelled() => return ModelEnd::Stopped,
                    _ = tokio::time::sleep(delay) => {}
                }
            }
            Err(Some(err)) => return ModelEnd::Failed(err.to_string()),
        }
    }
}

/// One streamed request. `Err(None)`: the user stopped it.
async fn stream_once(
    chat: &Chat,
    config: &LlmConfig,
    request: &Request<'_>,
    round: u32,
    reply: &mut Reply,
    out: &ChatSender,
    cancel: &CancellationToken,
) -> Result<(), Option<LlmError>> {
    let timeout = chat.live().limits.request_timeout;
    let late = || {
        Some(LlmError::Transient(format!(
            "no answer within {} ms",
            timeout.as_millis()
        )))
    };
    let mut response = tokio::select! {
        _ = cancel.cancelled() => return Err(None),
        opened = tokio::time::timeout(timeout, provider::open(&chat.client, config, request)) => {
            opened.map_err(|_| late())?.map_err(Some)?
        }
    };
    let mut parser = ToolBlockParser::new(request.tool_key.map(str::to_owned));
    let mut calls = 0usize;
    loop {
        let next = tokio::select! {
            _ = cancel.cancelled() => {
                flush(&mut parser, reply, out, round, &mut calls);
                return Err(None);
            }
            next = tokio::time::timeout(timeout, response.next()) => next.map_err(|_| late())?,
        };
        let Some(batch) = next else {
            break;
        };
        for event in batch.map_err(Some)? {
            match event {
                Event::Text(text) => {
                    for piece in parser.feed(&text) {
                        take_piece(piece, reply, out, round, &mut calls);
                    }
                }
                Event::ToolCall {
                    id,
                    name,
                    arguments,
                } => reply.wanted.push(Wanted::Call {
                    id,
                    name,
                    arguments,
                }),
                Event::Usage { prompt, completion } => {
                    if let Some(prompt) = prompt {
                        reply.usage.prompt_tokens = prompt;
                    }
                    if let Some(completion) = completion {
                        reply.usage.completion_tokens = completion;
                    }
                }
            }
        }
    }
    flush(&mut parser, reply, out, round, &mut calls);
    Ok(())
}

fn flush(
    parser: &mut ToolBlockParser,
    reply: &mut Reply,
    out: &ChatSender,
    round: u32,
    calls: &mut usize,
) {
    for piece in parser.finish() {
        take_piece(piece, reply, out, round, calls);
    }
}

fn take_piece(piece: Piece, reply: &mut Reply, out: &ChatSender, round: u32, calls: &mut usize) {
    match piece {
        Piece::Text(text) => {
            reply.text.push_str(&text);
            let _ = out.send(ChatServerMessage::Text { content: text });
        }
        Piece::Quoted(text) => {
            reply.quoted = true;
            reply.text.push_str(&text);
            let _ = out.send(ChatServerMessage::Text { content: text });
        }
        Piece::Call(call) => {
            *calls += 1;
            reply.wanted.push(Wanted::Call {
                id: format!("block_{round}_{calls}"),
                name: call.tool,
                arguments: Value::Object(call.arguments),
            });
        }
        Piece::Malformed(message) => reply.wanted.push(Wanted::Malformed(message)),
    }
}

/// Runs the calls of one round in order; true when the user stopped the turn meanwhile. The
/// chips' ids carry the round: providers may reuse a call id in a later round (the page keys its
/// chips by id), while history keeps the provider's own id, which the provider matches results by.
async fn run_tools(
    chat: &Chat,
    (host, gate): (Option<&Arc<Host>>, Option<&Gate<'_>>),
    toolbox: &Toolbox,
    session: &str,
    (round, wanted): (u32, Vec<Wanted>),
    out: &ChatSender,
    cancel: &CancellationToken,
) -> bool {
    for want in wanted {
        let (id, name, arguments) = match want {
            Wanted::Malformed(message) => {
                tracing::info!(session, "malformed tool block; correcting the model");
                chat.save(session, ChatRole::System, Some(message), None, None);
                continue;
            }
            Wanted::Call {
                id,
                name,
                arguments,
            } => (id, name, arguments),
        };
        let call = json!({"call_id": id, "tool": name, "arguments": arguments});
        chat.save(
            session,
            ChatRole::Assistant,
            None,
            Some(call),
            Some(name.clone()),
        );
        let chip = format!("{round}:{id}");
        let _ = out.send(ChatServerMessage::Status(ToolStatus {
            state: ToolState::Processing,
            call_id: chip.clone(),
            tool: Some(name.clone()),
            message: format!("Calling {name}"),
            data: Some(arguments.clone()),
            is_error: false,
        }));
        let asker = Asker {
            chat,
            session,
            chip: &chip,
            out,
        };
        let (answered, stopped) = tokio::select! {
            _ = cancel.cancelled() => (Answered {
                text: "The user stopped the turn before this call finished; if it waited for \
                       confirmation, it did not run.".to_owned(),
                is_error: true,
                shown: Value::Null,
                declined: false,
            }, true),
            done = call_tool(host, gate, toolbox, &name, arguments, &asker) => (done, false),
        };
        let Answered {
            text: result,
            is_error,
            shown,
            declined,
        } = answered;
        let data = json!({"call_id": id, "result": result, "is_error": is_error});
        chat.save(
            session,
            ChatRole::Tool,
            None,
            Some(data),
            Some(name.clone()),
        );
        let message = if stopped {
            format!("{name} stopped")
        } else if declined {
            format!(
                "{name} declined: {}",
                result.lines().next().unwrap_or_default()
            )
        } else if is_error {
            format!(
                "{name} failed: {}",
                result.lines().next().unwrap_or_default()
            )
        } else {
            format!("{name} done")
        };
        let _ = out.send(ChatServerMessage::Status(ToolStatus {
            state: ToolState::Complete,
            call_id: chip,
            tool: Some(name),
            message,
            data: Some(if shown.is_null() {
                Value::String(result)
            } else {
                shown
            }),
            is_error,
        }));
        if stopped {
            return true;
        }
    }
    false
}

/// The tool compiler's view of a turn: what the model was shown, for `expand` and refusals.
struct Gate<'a> {
    jit: &'a Arc<ToolJit>,
    turn: &'a TurnTools,
    session: &'a str,
}

/// What a call gave: the text for the model, whether it failed, the result as the UI shows it,
/// and whether the user (or the policy) declined it.
struct Answered {
    text: String,
    is_error: bool,
    shown: Value,
    declined: bool,
}

impl Answered {
    fn text(text: String, is_error: bool) -> Answered {
        Answered {
            text,
            is_error,
            shown: Value::Null,
            declined: false,
        }
    }

    fn declined(text: String) -> Answered {
        Answered {
            declined: true,
            ..Answered::text(text, true)
        }
    }
}

/// Where a call that needs confirmation asks: the session's socket and the call's chip.
struct Asker<'a> {
    chat: &'a Chat,
    session: &'a str,
    chip: &'a str,
    out: &'a ChatSender,
}

impl Asker<'_> {
    /// Asks the user about `tool` (a `Confirm` tied to the chip) and waits for the answer, at
    /// most `CONFIRM_TIMEOUT`; `Err` is the refusal for the model. Dropped (Stop, the socket
    /// closing), the question is forgotten and the call does not run.
    async fn ask(
        &self,
        tool: &str,
        arguments: &Value,
        why: String,
        destructive: bool,
    ) -> Result<(), String> {
        let confirmations = &self.chat.confirmations;
        if confirmations.allowed_always(self.session, tool) {
            return Ok(());
        }
        let mut waiting = confirmations.ask(self.session);
        let _ = self.out.send(ChatServerMessage::Confirm(ConfirmRequest {
            id: waiting.id.clone(),
            call_id: self.chip.to_owned(),
            tool: tool.to_owned(),
            arguments: arguments.clone(),
            destructive,
            reason: why,
            timeout_ms: CONFIRM_TIMEOUT.as_millis() as u64,
        }));
        let answer = tokio::time::timeout(CONFIRM_TIMEOUT, &mut waiting.answer).await;
        let refusal = |because: &str| {
            format!(
                "The user {because}, so `{tool}` did not run. Do not call it again unless the user \
                 asks; go on without it (say what you could not do)."
            )
        };
        let decided = match answer {
            Ok(Ok(ConfirmAnswer::Once)) => Ok(()),
            Ok(Ok(ConfirmAnswer::Always)) => {
                confirmations.allow_always(self.session, tool);
                Ok(())
            }
            Ok(Ok(ConfirmAnswer::Deny)) => Err(refusal("declined this call")),
            Ok(Err(_)) => Err(refusal("did not answer")),
            Err(_) => Err(refusal(&format!(
                "did not confirm this call within {} s",
                CONFIRM_TIMEOUT.as_secs()
            ))),
        };
        tracing::info!(
            session = self.session,
            tool,
            confirmed = decided.is_ok(),
            "a tool call that needs confirmation was answered"
        );
        if decided.is_ok() {
            let _ = self.out.send(ChatServerMessage::Status(ToolStatus {
                state: ToolState::Processing,
                call_id: self.chip.to_owned(),
                tool: Some(tool.to_owned()),
                message: format!("Calling {tool}"),
                data: Some(arguments.clone()),
                is_error: false,
            }));
        }
        decided
    }
}

async fn call_tool(
    host: Option<&Arc<Host>>,
    gate: Option<&Gate<'_>>,
    toolbox: &Toolbox,
    name: &str,
    arguments: Value,
    asker: &Asker<'_>,
) -> Answered {
    if let Some(g) = gate {
        if name == EXPAND_TOOL {
            return match g.jit.expand(g.session, g.turn, &arguments) {
                Ok(entry) => Answered::text(entry, false),
                Err(refusal) => Answered::text(refusal, true),
            };
        }
        if name == FIND_TOOLS {
            // Embedding the query runs the model (milliseconds; its load, if no turn has run):
            // on a blocking thread, as the compile does, never on the async runtime.
            let (jit, turn, session) = (Arc::clone(g.jit), g.turn.clone(), g.session.to_owned());
            let searched =
                tokio::task::spawn_blocking(move || jit.find_tools(&session, &turn, &arguments))
                    .await;
            return match searched {
                Ok(Ok(found)) => Answered::text(found, false),
                Ok(Err(refusal)) => Answered::text(refusal, true),
                Err(err) => Answered::text(format!("The tool search failed: {err}"), true),
            };
        }
        if let Err(refusal) = g.turn.gate(name, &g.jit.expanded_in(g.session)) {
            return Answered::text(refusal, true);
        }
    }
    let Some(host) = host else {
        return Answered::text("No tools are available on this bridge.".into(), true);
    };
    if !toolbox.has(name) && host.resolve(name).is_err() {
        let similar = toolbox.similar(name);
        let hint = if similar.is_empty() {
            "Use one of the tools listed in your instructions.".to_owned()
        } else {
            format!("Did you mean {}?", similar.join(", "))
        };
        return Answered::text(
            format!(
                "There is no tool named `{name}`. {hint} Call tools by their qualified `server:tool` name."
            ),
            true,
        );
    }
    let args = match arguments {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            return Answered::text(
                format!("The arguments of `{name}` must be a JSON object, not {other}."),
                true,
            );
        }
    };
    let mut approved = false;
    if let Ok(found) = host.gatekeeping(name)
        && found.verdict.action == Action::Confirm
    {
        let qualified = format!("{}:{}", found.server, found.tool);
        let shown = Value::Object(args.clone());
        let destructive = found.hints.may_destroy();
        if let Err(refusal) = asker.ask(&qualified, &shown, found.why, destructive).await {
            return Answered::declined(refusal);
        }
        approved = true;
    }
    let request = CallRequest {
        name: name.to_owned(),
        args,
        timeout: None,
        caller: CHAT_CALLER.into(),
        approved,
        session: Some(format!("chat-{}", asker.session)),
        // A hosted server's questions during the call are declined: the chat's confirmation
        // asks yes or no before a call, it shows no forms.
        asker: None,
    };
    match host.execute(request).await {
        Ok(reply) => {
            let text: Vec<String> = reply
                .result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect();
            let text = if text.is_empty() {
                reply
                    .result
                    .structured_content
                    .as_ref()
                    .map(Value::to_string)
                    .unwrap_or_default()
            } else {
                text.join("\n")
            };
            let shown = serde_json::to_value(&reply.result).unwrap_or(Value::Null);
            Answered {
                text,
                is_error: reply.result.is_error == Some(true),
                shown,
                declined: false,
            }
        }
        Err(err) => {
            let err = err.to_tool_error();
            let mut text = err.message.clone();
            if let Some(hint) = &err.hint {
                text.push_str(&format!(" ({hint})"));
            }
            Answered::text(text, true)
        }
    }
}

/// Tokens estimated from the characters sent and received (when the provider reports none).
fn estimated_usage(system: &str, kept: &[ChatMessage], reply: &Reply) -> TokenUsage {
    let prompt = estimate_tokens(system) + kept.iter().map(message_tokens).sum::<usize>();
    let calls: usize = reply
        .wanted
        .iter()
        .map(|w| match w {
            Wanted::Call {
                name, arguments, ..
            } => estimate_tokens(name) + estimate_tokens(&arguments.to_string()),
            Wanted::Malformed(_) => 0,
        })
        .sum();
    let completion = estimate_tokens(&reply.text) + calls;
    TokenUsage {
        prompt_tokens: prompt as u64,
        completion_tokens: completion as u64,
        total_tokens: (prompt + completion) as u64,
    }
}

impl Chat {
    /// Stores one message of `session` (a failure is logged: the turn goes on).
    pub(crate) fn save(
        &self,
        session: &str,
        role: ChatRole,
        content: Option<String>,
        data: Option<Value>,
        tool_name: Option<String>,
    ) {
        let message = ChatMessage {
            id: new_id(),
            role,
            content,
            data,
            created_at: crate::host::unix_ms(),
            tool_name,
        };
        if let Err(err) = self.store.append(session, &message) {
            tracing::warn!(session, %err, "cannot store a chat message");
        }
    }
}
