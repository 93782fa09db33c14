//! The `requestState`s the bridge's MCP server hands out at 2026-07-28, one format for both kinds
//! of waiting call: a confirmation it asks itself (`consent.rs`), and a hosted call parked on its
//! server's question while the call runs on (`Parked`), which the client's retry resumes.
//!
//! A state is 32 random hex digits, a key into `Pending`; what it stands for (the tool, its
//! arguments, what waits for the answer) never leaves the bridge, so a made-up or replayed state
//! finds nothing. Each is taken once, for the same tool and arguments only, within `ANSWER_TIMEOUT`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::input::Asker;

/// How long the client's user has to answer before the question counts as declined.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);
/// The key of the one input request a parked call's round sends.
const SERVER_QUESTION_KEY: &str = "server_question";

/// What a state stands for while its answer is awaited.
enum Awaiting {
    /// The bridge's own question: may the call run?
    Confirmation,
    /// A hosted server's question during a call that runs on.
    Server(Parked),
}

struct Entry {
    /// `server:tool` (or the exposed name) and the arguments: the retry must be the same call.
    tool: String,
    args: Map<String, Value>,
    at: Instant,
    awaiting: Awaiting,
}

/// The states handed out and not yet answered, one table per MCP transport.
#[derive(Default)]
pub struct Pending(Mutex<HashMap<String, Entry>>);

/// Why a retry's state was not taken.
#[derive(Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// No such state (made up, already used, or expired).
    Unknown,
    /// The state was handed out for another call (tool or arguments differ); it is spent.
    OtherCall,
}

impl Pending {
    fn put(&self, tool: &str, args: &Map<String, Value>, awaiting: Awaiting) -> String {
        let mut bytes = [0u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            bytes[..8].copy_from_slice(&fastrand::u64(..).to_be_bytes());
            bytes[8..].copy_from_slice(&super::unix_ms().to_be_bytes());
        }
        let state: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut pending = self.0.lock().unwrap_or_else(|p| p.into_inner());
        // Expired ones go: a parked call's question is then declined and the call runs on.
        pending.retain(|_, entry| entry.at.elapsed() < ANSWER_TIMEOUT);
        pending.insert(
            state.clone(),
            Entry {
                tool: tool.to_owned(),
                args: args.clone(),
                at: Instant::now(),
                awaiting,
            },
        );
        state
    }

    fn take(
        &self,
        state: &str,
        tool: &str,
        args: &Map<String, Value>,
    ) -> Result<Awaiting, Mismatch> {
        let entry = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(state)
            .filter(|entry| entry.at.elapsed() < ANSWER_TIMEOUT)
            .ok_or(Mismatch::Unknown)?;
        if entry.tool != tool || &entry.args != args {
            return Err(Mismatch::OtherCall);
        }
        Ok(entry.awaiting)
    }

    /// A state for a confirmation question about `tool` with `args`.
    pub fn confirmation(&self, tool: &str, args: &Map<String, Value>) -> String {
        self.put(tool, args, Awaiting::Confirmation)
    }

    /// Takes `state` as the answer to a confirmation asked for this call.
    pub fn take_confirmation(
        &self,
        state: &str,
        tool: &str,
        args: &Map<String, Value>,
    ) -> Result<(), Mismatch> {
        match self.take(state, tool, args)? {
            Awaiting::Confirmation => Ok(()),
            Awaiting::Server(_) => Err(Mismatch::OtherCall),
        }
    }

    /// Whether `state` stands for a parked call (left in place).
    pub fn is_parked(&self, state: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(state)
            .is_some_and(|entry| matches!(entry.awaiting, Awaiting::Server(_)))
    }

    /// Resumes the call parked under `state` with the retry's `responses`: its server gets the
    /// answer (a decline when the retry carries none), and the call runs to its next question or
    /// its result.
    pub async fn resume(
        &self,
        state: &str,
        tool: &str,
        args: &Map<String, Value>,
        responses: Option<&InputResponses>,
        cancelled: &CancellationToken,
    ) -> Result<Round, Mismatch> {
        let Awaiting::Server(parked) = self.take(state, tool, args)? else {
            return Err(Mismatch::OtherCall);
        };
        let answer = responses
            .and_then(|responses| responses.get(SERVER_QUESTION_KEY))
            .and_then(|value| serde_json::from_value::<ElicitResult>(value.clone()).ok())
            .unwrap_or_else(|| ElicitResult::new(ElicitationAction::Decline));
        let _ = parked.reply.send(Ok(answer));
        Ok(parked.running.next_round(self, tool, args, cancelled).await)
    }
}

/// A server's question passed on, with where its answer goes.
type Question = (
    ElicitRequestParams,
    oneshot::Sender<Result<ElicitResult, String>>,
);

/// The asker of a hosted call whose caller answers through `input_required` rounds: each
/// question goes to the MCP handler driving the call, which parks it and asks the client.
#[derive(Debug)]
pub struct ThroughRounds(mpsc::Sender<Question>);

impl Asker for ThroughRounds {
    fn elicit(&self, request: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, String>> {
        Box::pin(async move {
            let (reply, answer) = oneshot::channel();
            self.0
                .send((request, reply))
                .await
                .map_err(|_| "the agent's call ended before the question".to_owned())?;
            answer
                .await
                .map_err(|_| "the agent did not answer in time".to_owned())?
        })
    }
}

/// A hosted call running in its own task, with the questions its server asks.
pub struct Running {
    result: AbortOnDrop,
    questions: mpsc::Receiver<Question>,
}

/// The call's task, stopped when no one waits for it any more (the client cancelled, or never
/// came back to a parked question).
struct AbortOnDrop(tokio::task::JoinHandle<CallToolResult>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A call waiting for its client's answer to its server's question.
struct Parked {
    running: Running,
    reply: oneshot::Sender<Result<ElicitResult, String>>,
}

/// What one round of a call answers: its result, or its server's question.
pub enum Round {
    Done(CallToolResult),
    Asks(InputRequiredResult),
}

impl Running {
    /// Starts `call`, given the asker its questions must go through.
    pub fn start<F>(call: impl FnOnce(Arc<dyn Asker>) -> F) -> Self
    where
        F: std::future::Future<Output = CallToolResult> + Send + 'static,
    {
        let (asker, questions) = mpsc::channel(1);
        let future = call(Arc::new(ThroughRounds(asker)));
        Self {
            result: AbortOnDrop(tokio::spawn(future)),
            questions,
        }
    }

    /// Runs the call to its result, or parks it on its server's next question (then the round
    /// answers `input_required` with that question and the state it is parked under).
    pub async fn next_round(
        mut self,
        pending: &Pending,
        tool: &str,
        args: &Map<String, Value>,
        cancelled: &CancellationToken,
    ) -> Round {
        tokio::select! {
            joined = &mut self.result.0 => Round::Done(joined.unwrap_or_else(|err| {
                CallToolResult::error(vec![ContentBlock::text(format!(
                    "Internal: the hosted call stopped unexpectedly: {err}"
                ))])
            })),
            Some((question, reply)) = self.questions.recv() => {
                let mut requests = InputRequests::new();
                requests.insert(
                    SERVER_QUESTION_KEY.to_owned(),
                    InputRequest::Elicitation(ElicitRequest::new(question)),
                );
                let parked = Parked { running: self, reply };
                let state = pending.put(tool, args, Awaiting::Server(parked));
                Round::Asks(InputRequiredResult::new(Some(requests), Some(state)))
            }
            () = cancelled.cancelled() => Round::Done(CallToolResult::error(vec![ContentBlock::text(
                "Cancelled: the client cancelled the call",
            )])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn form(message: &str) -> ElicitRequestParams {
        serde_json::from_value(json!({
            "message": message,
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
        }))
        .unwrap_or_else(|err| panic!("form: {err}"))
    }

    #[test]
    fn a_confirmation_state_counts_once_for_the_same_call_only() {
        let pending = Pending::default();
        let a = args(json!({"path": "/tmp/x"}));
        let state = pending.confirmation("fs:write_file", &a);
        assert_eq!(state.len(), 32);
        assert_eq!(
            pending.take_confirmation(&state, "fs:write_file", &a),
            Ok(())
        );
        assert_eq!(
            pending.take_confirmation(&state, "fs:write_file", &a),
            Err(Mismatch::Unknown)
        );
        let other = pending.confirmation("fs:write_file", &a);
        let b = args(json!({"path": "/etc/passwd"}));
        assert_eq!(
            pending.take_confirmation(&other, "fs:write_file", &b),
            Err(Mismatch::OtherCall)
        );
        assert_eq!(
            pending.take_confirmation("made-up", "fs:write_file", &a),
            Err(Mismatch::Unknown)
        );
    }

    /// A call whose server asks two questions, then says how each was answered.
    fn two_questions() -> Running {
        Running::start(|asker| async move {
            let said = |answer: Result<ElicitResult, String>| match answer {
                Ok(answer) => format!("{:?}", answer.action),
                Err(err) => err,
            };
            let first = said(asker.elicit(form("Your name?")).await);
            let second = said(asker.elicit(form("Sure?")).await);
            CallToolResult::success(vec![ContentBlock::text(format!("{first} then {second}"))])
        })
    }

    #[tokio::test]
    async fn a_parked_call_asks_through_rounds_and_ends_with_the_answers() {
        let pending = Pending::default();
        let cancelled = CancellationToken::new();
        let a = args(json!({"q": 1}));
        let Round::Asks(asked) = two_questions()
            .next_round(&pending, "s:t", &a, &cancelled)
            .await
        else {
            panic!("the first question parks the call");
        };
        assert!(
            asked
                .input_requests
                .as_ref()
                .is_some_and(|r| r.contains_key(SERVER_QUESTION_KEY))
        );
        let state = asked.request_state.unwrap_or_default();
        assert!(pending.is_parked(&state));
        let mut responses = InputResponses::new();
        responses.insert(
            SERVER_QUESTION_KEY.to_owned(),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        );
        let Ok(Round::Asks(second)) = pending
            .resume(&state, "s:t", &a, Some(&responses), &cancelled)
            .await
        else {
            panic!("the second question parks it again");
        };
        // No answer in the retry: declined, and the call ends with both answers.
        let state = second.request_state.unwrap_or_default();
        let Ok(Round::Done(result)) = pending.resume(&state, "s:t", &a, None, &cancelled).await
        else {
            panic!("done");
        };
        let text = serde_json::to_string(&result.content).unwrap_or_default();
        assert!(text.contains("Accept then Decline"), "{text}");
    }

    #[tokio::test]
    async fn a_parked_call_resumes_only_for_its_own_retry() {
        let pending = Pending::default();
        let cancelled = CancellationToken::new();
        let a = args(json!({"q": 1}));
        let Round::Asks(asked) = two_questions()
            .next_round(&pending, "s:t", &a, &cancelled)
            .await
        else {
            panic!("parks");
        };
        let state = asked.request_state.unwrap_or_default();
        // A confirmation cannot take it; another call's retry spends it without resuming.
        assert_eq!(
            pending.take_confirmation(&state, "s:t", &a),
            Err(Mismatch::OtherCall)
        );
        let Round::Asks(asked) = two_questions()
            .next_round(&pending, "s:t", &a, &cancelled)
            .await
        else {
            panic!("parks");
        };
        let state = asked.request_state.unwrap_or_default();
        let other = args(json!({"q": 2}));
        assert!(matches!(
            pending
                .resume(&state, "s:t", &other, None, &cancelled)
                .await,
            Err(Mismatch::OtherCall)
        ));
        assert!(!pending.is_parked(&state));
    }

    #[tokio::test]
    async fn a_cancelled_client_stops_the_call() {
        let pending = Pending::default();
        let cancelled = CancellationToken::new();
        cancelled.cancel();
        let running = Running::start(|_| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            CallToolResult::success(vec![ContentBlock::text("late")])
        });
        let Round::Done(result) = running
            .next_round(&pending, "s:t", &Map::new(), &cancelled)
            .await
        else {
            panic!("done");
        };
        assert_eq!(result.is_error, Some(true));
    }
}
