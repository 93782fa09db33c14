//! What the connection indicator says for each link state, e.g. "reconnecting in 3 s, attempt 2 of 20".
//! Pure, so the wording is tested natively.

use nexus_shared::reconnect::{LinkState, OfflineReason};

/// A short tone for styling: `ok`, `busy` or `off`.
pub fn tone(state: &LinkState) -> &'static str {
    match state {
        LinkState::Connected => "ok",
        LinkState::Connecting { .. } | LinkState::Waiting { .. } => "busy",
        LinkState::Idle | LinkState::Offline(_) => "off",
    }
}

/// The indicator's text at time `now_ms`.
pub fn describe(state: &LinkState, max_attempts: u32, now_ms: u64) -> String {
    match state {
        LinkState::Idle => "not connected".into(),
        LinkState::Connected => "connected".into(),
        LinkState::Connecting { attempt: 0 } => "connecting…".into(),
        LinkState::Connecting { attempt } => {
            format!("reconnecting now, attempt {attempt} of {max_attempts}")
        }
        LinkState::Waiting {
            attempt,
            retry_at_ms,
        } => {
            let seconds = retry_at_ms.saturating_sub(now_ms).div_ceil(1000);
            format!("reconnecting in {seconds} s, attempt {attempt} of {max_attempts}")
        }
        LinkState::Offline(OfflineReason::UserStopped) => "offline (disconnected)".into(),
        LinkState::Offline(OfflineReason::GaveUp) => {
            format!("offline: no bridge after {max_attempts} attempts")
        }
        LinkState::Offline(OfflineReason::Rejected(reason)) => format!("offline: {reason}"),
    }
}

/// What the indicator says while the program on `port` could not prove it is the user's hub.
pub fn impostor_words(port: u16) -> String {
    format!(
        "another program holds port {port}: it could not prove it is your Nexus hub, so nothing was sent to it"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impostor_is_named_by_its_port() {
        assert!(impostor_words(54319).starts_with("another program holds port 54319"));
    }

    #[test]
    fn waiting_counts_down_in_whole_seconds() {
        let state = LinkState::Waiting {
            attempt: 2,
            retry_at_ms: 10_500,
        };
        assert_eq!(
            describe(&state, 20, 8_000),
            "reconnecting in 3 s, attempt 2 of 20"
        );
        assert_eq!(
            describe(&state, 20, 10_499),
            "reconnecting in 1 s, attempt 2 of 20"
        );
        assert_eq!(
            describe(&state, 20, 11_000),
            "reconnecting in 0 s, attempt 2 of 20"
        );
        assert_eq!(tone(&state), "busy");
    }

    #[test]
    fn every_state_has_words() {
        assert_eq!(describe(&LinkState::Connected, 20, 0), "connected");
        assert_eq!(
            describe(&LinkState::Offline(OfflineReason::GaveUp), 20, 0),
            "offline: no bridge after 20 attempts"
        );
        assert_eq!(
            describe(
                &LinkState::Offline(OfflineReason::Rejected("replaced".into())),
                20,
                0
            ),
            "offline: replaced"
        );
        assert_eq!(tone(&LinkState::Offline(OfflineReason::UserStopped)), "off");
    }
}
