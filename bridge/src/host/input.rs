//! A hosted server's questions during a call (`elicitation/create`, or the input requests of an
//! `input_required` result, SEP-2322): passed on to the caller's user when it can be asked, else declined.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, PrimitiveSchemaDefinition,
};
use serde_json::Value;

/// Most `input_required` rounds one call goes through before it fails (rmcp's own cap).
pub const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// The first wait before retrying a round that asked for nothing but carried state.
const STATE_ONLY_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// Why a call's question is declined when its caller has no asker.
const CANNOT_ASK: &str = "the caller cannot be asked (a chat, a peer's agent, or an MCP client without form elicitation before protocol 2026-07-28)";

/// Whoever made a call, when it can ask its user (an agent's MCP client with elicitation).
pub trait Asker: Send + Sync + std::fmt::Debug {
    /// The user's answer to a form (or a URL), or why they could not be asked.
    fn elicit(&self, request: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, String>>;
}

/// The calls in flight on one server, with their askers. `elicitation/create` names no call, so
/// it reaches a caller only while exactly one call is in flight.
#[derive(Clone, Default)]
pub struct InFlight(Arc<Mutex<Calls>>);

/// Each call in flight by its id, with its asker if it has one.
type Calls = BTreeMap<u64, Option<Arc<dyn Asker>>>;

/// A call's place in `InFlight`, given up when the call ends.
pub struct Entered {
    flight: InFlight,
    id: u64,
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.flight.calls().remove(&self.id);
    }
}

impl InFlight {
    fn calls(&self) -> std::sync::MutexGuard<'_, Calls> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records call `id` until the returned guard drops.
    pub fn enter(&self, id: u64, asker: Option<Arc<dyn Asker>>) -> Entered {
        self.calls().insert(id, asker);
        Entered {
            flight: self.clone(),
            id,
        }
    }

    /// Who answers a server-initiated question, or why no one can.
    pub fn asker(&self) -> Result<Arc<dyn Asker>, String> {
        let calls = self.calls();
        match calls.values().collect::<Vec<_>>().as_slice() {
            [Some(asker)] => Ok(asker.clone()),
            [None] => Err(CANNOT_ASK.to_owned()),
            [] => Err("no call is in flight".to_owned()),
            _ => Err(format!(
                "{} calls are in flight and the question names none",
                calls.len()
            )),
        }
    }
}

/// The answer to one question from `server`: the caller's user's, with the form's defaults for the
/// fields the answer leaves out (SEP-1034), or `decline` when no one can be asked.
pub async fn elicit(
    asker: Result<Arc<dyn Asker>, String>,
    request: ElicitRequestParams,
    server: &str,
) -> ElicitResult {
    let decline = ElicitResult::new(ElicitationAction::Decline);
    let asker = match asker {
        Ok(asker) => asker,
        Err(why) => {
            tracing::info!(server, "declined the server's question: {why}");
            return decline;
        }
    };
    let form = match &request {
        ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } => Some(requested_schema.properties.clone()),
        _ => None,
    };
    match asker.elicit(request).await {
        Ok(answer) => match form {
            Some(fields) => with_defaults(answer, &fields),
            None => answer,
        },
        Err(err) => {
            tracing::warn!(server, "could not ask the caller's user, declined: {err}");
            decline
        }
    }
}

/// An accepted answer with each field it leaves out set to the field's `default`, if it has one.
fn with_defaults(
    mut answer: ElicitResult,
    fields: &BTreeMap<String, PrimitiveSchemaDefinition>,
) -> ElicitResult {
    if answer.action != ElicitationAction::Accept {
        return answer;
    }
    let mut content = match answer.content.take() {
        Some(Value::Object(content)) => content,
        Some(other) => {
            answer.content = Some(other);
            return answer;
        }
        None => serde_json::Map::new(),
    };
    for (name, field) in fields {
        if content.contains_key(name) {
            continue;
        }
        let default = serde_json::to_value(field)
            .ok()
            .and_then(|mut field| field.get_mut("default").map(Value::take))
            .filter(|default| !default.is_null());
        if let Some(default) = default {
            content.insert(name.clone(), default);
        }
    }
    answer.content = Some(Value::Object(content));
    answer
}

/// What the retry after `input_required` round `round` (from 1) sends: the responses to its
/// requests, and its `requestState` echoed unchanged (none when it sent none). A round that asks
/// nothing (state only) waits a little longer each time; past `MAX_ROUNDS` the call fails.
pub async fn next_round(
    asked: InputRequiredResult,
    round: usize,
    asker: Option<Arc<dyn Asker>>,
    server: &str,
) -> Result<(Option<InputResponses>, Option<String>), String> {
    if round > MAX_ROUNDS {
        return Err(format!(
            "the server still asked for input after {MAX_ROUNDS} rounds (`input_required`)"
        ));
    }
    let requests = asked.input_requests.unwrap_or_default();
    if requests.is_empty() {
        if asked.request_state.is_none() {
            return Err(
                "the server answered `input_required` with neither input requests nor a requestState"
                    .to_owned(),
            );
        }
        let exponent = u32::try_from(round.min(5)).unwrap_or(5);
        tokio::time::sleep(STATE_ONLY_WAIT * 2u32.pow(exponent - 1)).await;
    }
    let responses = fulfil(requests, &asker, server).await?;
    Ok((
        (!responses.is_empty()).then_some(responses),
        asked.request_state,
    ))
}

/// The responses to an `input_required` result's requests, each under its key: elicitations as
/// `elicit` answers them. Sampling and roots, which the host does not offer, fail the call.
pub async fn fulfil(
    requests: InputRequests,
    asker: &Option<Arc<dyn Asker>>,
    server: &str,
) -> Result<InputResponses, String> {
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let answer = match request {
            InputRequest::Elicitation(request) => {
                let asker = asker.clone().ok_or_else(|| CANNOT_ASK.to_owned());
                elicit(asker, request.params, server).await
            }
            InputRequest::CreateMessage(_) => {
                return Err(format!(
                    "the server asked for an LLM completion (`sampling/createMessage`, input `{key}`), which Nexus's host does not offer"
                ));
            }
            InputRequest::ListRoots(_) => {
                return Err(format!(
                    "the server asked for the client's roots (`roots/list`, input `{key}`), which Nexus's host does not offer"
                ));
            }
            _ => {
                return Err(format!(
                    "the server asked for input `{key}` of a kind Nexus's host does not know"
                ));
            }
        };
        let answer = serde_json::to_value(answer)
            .map_err(|err| format!("cannot encode the answer to input `{key}`: {err}"))?;
        responses.insert(key, answer);
    }
    Ok(responses)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A caller whose user accepts every form as shown, filling in nothing.
    #[derive(Debug)]
    struct AcceptsAsShown;

    impl Asker for AcceptsAsShown {
        fn elicit(
            &self,
            _request: ElicitRequestParams,
        ) -> BoxFuture<'_, Result<ElicitResult, String>> {
            Box::pin(async {
                Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({})))
            })
        }
    }

    /// The form of the conformance suite's SEP-1034 scenario, and one question asking it.
    fn form() -> Value {
        json!({
            "message": "please accept with defaults",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "note": {"type": "string"}
            }, "required": []}
        })
    }

    fn requests(value: Value) -> InputRequests {
        serde_json::from_value(value).expect("input requests")
    }

    fn user() -> Option<Arc<dyn Asker>> {
        Some(Arc::new(AcceptsAsShown))
    }

    #[tokio::test]
    async fn a_passed_on_form_gets_the_defaults_its_answer_leaves_out() {
        let request: ElicitRequestParams = serde_json::from_value(form()).expect("form");
        let answer = elicit(Ok(Arc::new(AcceptsAsShown)), request.clone(), "s").await;
        assert_eq!(answer.action, ElicitationAction::Accept);
        assert_eq!(
            answer.content,
            Some(
                json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
            )
        );
        // What the user gave stays; a decline stays empty.
        let Ok(ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        }) = serde_json::from_value::<ElicitRequestParams>(form())
        else {
            panic!("form")
        };
        let given = ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"name": "Ada", "note": "hi"}));
        let filled = with_defaults(given, &requested_schema.properties);
        assert_eq!(
            filled.content.as_ref().and_then(|c| c.get("name")),
            Some(&json!("Ada"))
        );
        assert_eq!(
            filled.content.as_ref().and_then(|c| c.get("age")),
            Some(&json!(30))
        );
        let declined = with_defaults(
            ElicitResult::new(ElicitationAction::Decline),
            &requested_schema.properties,
        );
        assert_eq!(declined.content, None);
        // No one to ask: declined.
        let answer = elicit(Err("no caller".to_owned()), request, "s").await;
        assert_eq!(answer.action, ElicitationAction::Decline);
    }

    #[tokio::test]
    async fn a_retry_answers_every_request_and_echoes_the_state_unchanged() {
        let state = "{\"nonce\":\"a b\",\"originalId\":7}";
        let asked = InputRequiredResult::new(
            Some(requests(json!({
                "confirm": {"method": "elicitation/create", "params": form()},
                "again": {"method": "elicitation/create", "params": form()}
            }))),
            Some(state.to_owned()),
        );
        let (responses, echoed) = next_round(asked, 1, user(), "s").await.expect("answered");
        assert_eq!(echoed.as_deref(), Some(state));
        let responses = responses.expect("responses");
        assert_eq!(responses.keys().collect::<Vec<_>>(), ["again", "confirm"]);
        assert_eq!(responses["confirm"]["action"], "accept");
        assert_eq!(responses["confirm"]["content"]["age"], 30);
        // No state sent: none echoed; a caller who cannot be asked declines, and the call goes on.
        let asked = InputRequiredResult::new(
            Some(requests(
                json!({"confirm": {"method": "elicitation/create", "params": form()}}),
            )),
            None,
        );
        let (responses, echoed) = next_round(asked, 1, None, "s").await.expect("answered");
        assert_eq!(echoed, None);
        assert_eq!(
            responses.expect("responses")["confirm"]["action"],
            "decline"
        );
        // State only: retried with the state and no responses.
        let asked = InputRequiredResult::new(None, Some("s1".to_owned()));
        let (responses, echoed) = next_round(asked, 1, user(), "s").await.expect("retry");
        assert_eq!((responses, echoed.as_deref()), (None, Some("s1")));
    }

    #[tokio::test]
    async fn what_the_host_cannot_answer_fails_the_call_clearly() {
        let sampling = InputRequiredResult::new(
            Some(requests(
                json!({"llm": {"method": "sampling/createMessage", "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                    "maxTokens": 10
                }}}),
            )),
            Some("s".to_owned()),
        );
        let err = next_round(sampling, 1, user(), "s")
            .await
            .expect_err("sampling");
        assert!(
            err.contains("sampling/createMessage") && err.contains("`llm`"),
            "{err}"
        );
        let roots =
            InputRequiredResult::new(Some(requests(json!({"r": {"method": "roots/list"}}))), None);
        let err = next_round(roots, 1, user(), "s").await.expect_err("roots");
        assert!(err.contains("roots/list"), "{err}");
        let empty = InputRequiredResult::new(None, None);
        let err = next_round(empty, 1, user(), "s").await.expect_err("empty");
        assert!(err.contains("neither"), "{err}");
        let endless = InputRequiredResult::new(None, Some("s".to_owned()));
        let err = next_round(endless, MAX_ROUNDS + 1, user(), "s")
            .await
            .expect_err("rounds");
        assert!(err.contains(&format!("after {MAX_ROUNDS} rounds")), "{err}");
    }

    #[test]
    fn a_server_question_reaches_the_caller_only_while_one_call_is_in_flight() {
        let flight = InFlight::default();
        assert!(flight.asker().is_err());
        let first = flight.enter(1, user());
        assert!(flight.asker().is_ok());
        let second = flight.enter(2, user());
        let err = flight.asker().expect_err("two calls");
        assert!(err.contains("2 calls"), "{err}");
        drop(first);
        assert!(flight.asker().is_ok());
        drop(second);
        let _chat = flight.enter(3, None);
        let err = flight.asker().expect_err("no asker");
        assert!(err.contains("cannot be asked"), "{err}");
    }
}
