//! Fits a conversation into the model's context: estimates tokens and keeps the newest messages
//! within a budget, never separating a tool call from its result (the system prompt is apart).

use nexus_shared::chat::{ChatMessage, ChatRole};

/// About four characters per token, plus a little per message for its framing.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Tokens a stored message costs when sent.
pub fn message_tokens(message: &ChatMessage) -> usize {
    let content = message.content.as_deref().map(estimate_tokens).unwrap_or(0);
    let data = message
        .data
        .as_ref()
        .map(|d| estimate_tokens(&d.to_string()))
        .unwrap_or(0);
    4 + content + data
}

/// True for an assistant message that is a tool call.
pub fn is_tool_call(message: &ChatMessage) -> bool {
    message.role == ChatRole::Assistant && message.tool_name.is_some() && message.data.is_some()
}

/// The newest messages that fit in `budget` tokens. Messages go in units: a tool result stays
/// with the messages before it back to the assistant's words that led to the calls, so a call is
/// never sent without its result or a result without its call. The kept part starts at a user
/// message (providers require it); the newest unit is kept even when it alone is over budget.
pub fn prune(history: &[ChatMessage], budget: usize) -> &[ChatMessage] {
    // Unit starts: a message starts a unit unless it is a tool result or a tool call (those join
    // the unit before them).
    let starts: Vec<usize> = (0..history.len())
        .filter(|&i| i == 0 || !(history[i].role == ChatRole::Tool || is_tool_call(&history[i])))
        .collect();
    let mut used = 0usize;
    let mut keep_from = history.len();
    for (k, &start) in starts.iter().enumerate().rev() {
        let end = starts.get(k + 1).copied().unwrap_or(history.len());
        let cost: usize = history[start..end].iter().map(message_tokens).sum();
        if used + cost > budget && keep_from < history.len() {
            break;
        }
        used += cost;
        keep_from = start;
    }
    let kept = &history[keep_from..];
    match kept.iter().position(|m| m.role == ChatRole::User) {
        Some(first_user) => &kept[first_user..],
        None => kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(role: ChatRole, text: &str) -> ChatMessage {
        ChatMessage {
            id: text.into(),
            role,
            content: Some(text.into()),
            data: None,
            created_at: 0,
            tool_name: None,
        }
    }

    fn call(id: &str) -> ChatMessage {
        ChatMessage {
            id: id.into(),
            role: ChatRole::Assistant,
            content: None,
            data: Some(json!({"call_id": id, "tool": "nexus:search", "arguments": {}})),
            created_at: 0,
            tool_name: Some("nexus:search".into()),
        }
    }

    fn result(id: &str, size: usize) -> ChatMessage {
        ChatMessage {
            id: format!("r{id}"),
            role: ChatRole::Tool,
            content: None,
            data: Some(json!({"call_id": id, "result": "x".repeat(size), "is_error": false})),
            created_at: 0,
            tool_name: Some("nexus:search".into()),
        }
    }

    fn conversation() -> Vec<ChatMessage> {
        vec![
            message(ChatRole::User, "first question"),
            message(ChatRole::Assistant, "first answer"),
            message(ChatRole::User, "second question"),
            message(ChatRole::Assistant, "let me look"),
            call("c1"),
            result("c1", 400),
            call("c2"),
            result("c2", 40),
            message(ChatRole::Assistant, "found it"),
            message(ChatRole::User, "third"),
        ]
    }

    #[test]
    fn everything_fits_in_a_large_budget() {
        let history = conversation();
        assert_eq!(prune(&history, 100_000).len(), history.len());
    }

    #[test]
    fn the_oldest_go_first_and_calls_stay_with_their_results() {
        let history = conversation();
        for budget in 0..400 {
            let kept = prune(&history, budget);
            assert!(!kept.is_empty());
            assert_eq!(kept[0].role, ChatRole::User, "budget {budget}");
            assert_eq!(kept.last(), history.last());
            let ids: Vec<&str> = kept.iter().map(|m| m.id.as_str()).collect();
            for id in ["c1", "c2"] {
                let has_call = ids.contains(&id);
                let has_result = ids.contains(&format!("r{id}").as_str());
                assert_eq!(has_call, has_result, "budget {budget}: {ids:?}");
            }
        }
        // A budget for the last question alone keeps only it.
        assert_eq!(prune(&history, 5).len(), 1);
    }

    #[test]
    fn tokens_are_estimated_from_characters() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert!(message_tokens(&result("c", 400)) > 100);
    }
}
