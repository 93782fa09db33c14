//! Tool calls that need the user's confirmation, over the real bridge's `/chat`: the `confirm`
//! request, Deny (a refusal the model reads, the turn goes on), Allow once, Always for the
//! session, Stop and a closed socket while waiting (nothing runs), and denied tools never shown.

use nexus_e2e::tab::{EchoTab, TabBehaviour};
use nexus_e2e::{Area, TempDir};
use nexus_shared::chat::{
    ChatClientMessage, ChatRole, ChatServerMessage, ConfirmAnswer, ConfirmRequest, ToolState,
    TurnOutcome,
};
use serde_json::{Value, json};

use crate::chat::{ChatBridge, ChatClient, Sim, Turn, calls};

/// The test server with its defaults (no annotations: every call asks) and `huge` denied.
fn asking_config() -> Value {
    let script = nexus_e2e::workspace_root().join("tests/servers/misbehave.py");
    json!({"servers": {"py": {"command": "python3", "args": [script.display().to_string()],
        "deny": ["huge"]}}})
}

fn native_call(tool: &str, arguments: Value) -> String {
    format!(
        "[sim:native] please{}",
        calls(json!([{"tool": tool, "arguments": arguments}]))
    )
}

/// Sends `text` and reads up to the `confirm` request (after the call's `processing` chip).
async fn until_confirm(chat: &mut ChatClient, text: &str) -> ConfirmRequest {
    chat.send(ChatClientMessage::Message {
        text: text.into(),
        project: None,
    })
    .await;
    loop {
        match chat.next().await {
            ChatServerMessage::Confirm(request) => return request,
            ChatServerMessage::TurnEnd { outcome, .. } => {
                panic!("the turn ended ({outcome:?}) without asking")
            }
            _ => {}
        }
    }
}

async fn answer(chat: &mut ChatClient, request: &ConfirmRequest, answer: ConfirmAnswer) -> Turn {
    chat.send(ChatClientMessage::Confirmation {
        id: request.id.clone(),
        answer,
    })
    .await;
    chat.collect().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_that_need_confirmation_wait_for_the_user() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let dir = TempDir::new("chat-confirm");
    let db = dir.0.join("chat.sqlite3");
    let bridge = ChatBridge::start_with_config("openai", &sim, &[], dir, db, asking_config()).await;
    let _tab = EchoTab::start(bridge.port, TabBehaviour::default());
    bridge.wait_hosted().await;
    let mut chat = ChatClient::connect(bridge.port, None).await;
    let session = chat.expect_welcome().await;

    // Deny: the model reads a refusal and the turn goes on to an answer.
    let asked = until_confirm(
        &mut chat,
        &native_call("py:echo", json!({"message": "one"})),
    )
    .await;
    assert_eq!(asked.tool, "py:echo");
    assert_eq!(asked.arguments, json!({"message": "one"}));
    assert!(asked.destructive, "no annotation: it may destroy data");
    assert!(asked.reason.contains("readOnlyHint"), "{}", asked.reason);
    let denied = answer(&mut chat, &asked, ConfirmAnswer::Deny).await;
    assert_eq!(denied.outcome, Some(TurnOutcome::Answered), "{denied:?}");
    assert!(
        denied
            .statuses
            .iter()
            .any(|s| s.state == ToolState::Complete
                && s.is_error
                && s.message.starts_with("py:echo declined")),
        "{denied:?}"
    );
    assert!(
        denied.text.contains("The user declined this call") && !denied.text.contains("one"),
        "the model read the refusal: {}",
        denied.text
    );
    // A stale or unknown id is an error, nothing else.
    chat.send(ChatClientMessage::Confirmation {
        id: asked.id.clone(),
        answer: ConfirmAnswer::Once,
    })
    .await;
    assert!(
        matches!(chat.next().await, ChatServerMessage::Error { message } if message.contains("no tool call waits"))
    );

    // Allow once: it runs; the next call asks again.
    let asked = until_confirm(
        &mut chat,
        &native_call("py:echo", json!({"message": "two"})),
    )
    .await;
    let once = answer(&mut chat, &asked, ConfirmAnswer::Once).await;
    assert_eq!(
        once.chips().last(),
        Some(&(ToolState::Complete, "py:echo".into(), false))
    );
    assert!(once.text.contains("two"), "{}", once.text);

    // Always: this call and the session's later calls of the tool run unasked.
    let asked = until_confirm(
        &mut chat,
        &native_call("py:echo", json!({"message": "three"})),
    )
    .await;
    let always = answer(&mut chat, &asked, ConfirmAnswer::Always).await;
    assert!(always.text.contains("three"), "{}", always.text);
    let unasked = chat
        .turn(&native_call("py:echo", json!({"message": "four"})))
        .await;
    assert!(unasked.text.contains("four"), "{unasked:?}");

    // Stop while waiting: nothing runs and the turn ends stopped.
    let asked = until_confirm(&mut chat, &native_call("py:env", json!({"name": "HOME"}))).await;
    chat.send(ChatClientMessage::Stop {}).await;
    let stopped = chat.collect().await;
    assert_eq!(stopped.outcome, Some(TurnOutcome::Stopped), "{stopped:?}");
    chat.send(ChatClientMessage::Confirmation {
        id: asked.id.clone(),
        answer: ConfirmAnswer::Once,
    })
    .await;
    assert!(matches!(chat.next().await, ChatServerMessage::Error { .. }));

    // A socket that closes while waiting counts as Deny: the stored result says it did not run.
    until_confirm(&mut chat, &native_call("py:env", json!({"name": "PATH"}))).await;
    drop(chat);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let mut again = ChatClient::connect(bridge.port, Some(session.clone())).await;
    let history = loop {
        if let ChatServerMessage::History { messages, .. } = again.next().await {
            break messages;
        }
    };
    let last = history
        .iter()
        .rev()
        .find(|m| m.role == ChatRole::Tool)
        .and_then(|m| m.data.clone())
        .unwrap_or_default();
    assert_eq!(last["is_error"], true, "{last}");
    assert!(
        last["result"]
            .as_str()
            .unwrap_or_default()
            .contains("did not run"),
        "{last}"
    );

    // Denied tools are never declared to the model.
    let log = sim.log().await;
    let bodies: Vec<String> = log.iter().map(Value::to_string).collect();
    assert!(bodies.iter().any(|b| b.contains("py__echo")));
    assert!(
        !bodies.iter().any(|b| b.contains("py__huge")),
        "py:huge was shown"
    );
}
