//! The chat's confirmations: tool calls waiting for the user's Allow once · Always · Deny, keyed
//! by id, and the tools a session allowed "always" (in memory: forgotten when the bridge exits).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use nexus_shared::chat::ConfirmAnswer;
use tokio::sync::oneshot;

/// How long a call waits for the user before it counts as declined.
pub const CONFIRM_TIMEOUT: Duration = Duration::from_secs(300);

struct Pending {
    session: String,
    reply: oneshot::Sender<ConfirmAnswer>,
}

/// Every session's waiting calls and "always" tools.
#[derive(Default)]
pub struct Confirmations {
    pending: Mutex<HashMap<String, Pending>>,
    always: Mutex<HashMap<String, BTreeSet<String>>>,
}

/// One waiting call; dropping it (the turn stopped) forgets it.
pub struct Waiting<'a> {
    owner: &'a Confirmations,
    pub id: String,
    pub answer: oneshot::Receiver<ConfirmAnswer>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        lock(&self.owner.pending).remove(&self.id);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Confirmations {
    /// A new waiting call of `session` under a fresh id.
    pub fn ask(&self, session: &str) -> Waiting<'_> {
        let id = super::new_id();
        let (reply, answer) = oneshot::channel();
        lock(&self.pending).insert(
            id.clone(),
            Pending {
                session: session.to_owned(),
                reply,
            },
        );
        Waiting {
            owner: self,
            id,
            answer,
        }
    }

    /// The user's answer from a socket on `session`; an error when no call of that session waits
    /// under `id`.
    pub fn answer(&self, session: &str, id: &str, answer: ConfirmAnswer) -> Result<(), String> {
        let mut pending = lock(&self.pending);
        match pending.get(id) {
            Some(waiting) if waiting.session == session => {}
            _ => return Err(format!("no tool call waits for confirmation {id}")),
        }
        let waiting = pending
            .remove(id)
            .ok_or_else(|| format!("no tool call waits for confirmation {id}"))?;
        waiting
            .reply
            .send(answer)
            .map_err(|_| format!("confirmation {id} came after its call ended"))
    }

    /// Remembers that `session` runs `tool` without asking from now on.
    pub fn allow_always(&self, session: &str, tool: &str) {
        lock(&self.always)
            .entry(session.to_owned())
            .or_default()
            .insert(tool.to_owned());
    }

    /// Whether `session` chose "Always" for `tool`.
    pub fn allowed_always(&self, session: &str, tool: &str) -> bool {
        lock(&self.always)
            .get(session)
            .is_some_and(|tools| tools.contains(tool))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_reaches_only_its_own_sessions_waiting_call() {
        let confirmations = Confirmations::default();
        let mut waiting = confirmations.ask("s1");
        assert!(
            confirmations
                .answer("s2", &waiting.id, ConfirmAnswer::Once)
                .is_err()
        );
        assert!(
            confirmations
                .answer("s1", "nope", ConfirmAnswer::Once)
                .is_err()
        );
        let id = waiting.id.clone();
        assert_eq!(confirmations.answer("s1", &id, ConfirmAnswer::Deny), Ok(()));
        assert_eq!((&mut waiting.answer).await, Ok(ConfirmAnswer::Deny));
        // Answered once: a second answer finds nothing.
        assert!(
            confirmations
                .answer("s1", &id, ConfirmAnswer::Once)
                .is_err()
        );
    }

    #[test]
    fn a_dropped_wait_is_forgotten_and_always_is_per_session() {
        let confirmations = Confirmations::default();
        let id = confirmations.ask("s1").id.clone();
        assert!(
            confirmations
                .answer("s1", &id, ConfirmAnswer::Once)
                .is_err()
        );
        confirmations.allow_always("s1", "fs:write_file");
        assert!(confirmations.allowed_always("s1", "fs:write_file"));
        assert!(!confirmations.allowed_always("s2", "fs:write_file"));
        assert!(!confirmations.allowed_always("s1", "fs:move_file"));
    }
}
