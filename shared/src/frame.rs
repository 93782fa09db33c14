//! Wire frames: one JSON text message per WebSocket frame, tagged by `type`, versioned by `Hello`.
//! Decoding never panics: oversized, malformed or unknown frames become a `FrameError`.

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::limits::MAX_FRAME_BYTES;

/// Globally unique id of one relayed call; every response echoes it.
pub type CallId = String;

/// Who is on the other end of a socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A Nexus browser tab: it answers calls.
    Browser,
    /// Another `nexus-bridge` process relaying its agent's calls through the hub.
    Peer,
    /// `nexus-bridge status`: reads the hub's `Status` and sends no calls.
    Monitor,
}

/// A peer's proof that it runs as the hub's user: read from the hub's private token file.
/// `Debug` never shows it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Token(pub String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Why the hub refused or ended a session. A browser tab stops reconnecting on any of them; a
/// peer retries after `Token` (a new hub may be rewriting its token file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectCode {
    /// The client speaks another protocol version.
    Protocol,
    /// The first frame was not a valid `Hello`.
    BadHello,
    /// A browser socket came from an origin that is not allowed.
    Origin,
    /// A peer's token is missing or wrong.
    Token,
    /// A newer browser tab took over; this one is no longer active.
    Replaced,
}

/// Size of the loaded graph, as announced in `Context`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphStats {
    pub files: u32,
    pub nodes: u32,
    pub edges: u32,
}

/// A successful tool answer: compact Markdown (or JSON text when the caller asked for it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOutput {
    pub text: String,
}

/// The result of a call: exactly one of `ok` or `err`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok(ToolOutput),
    Err(ToolError),
}

/// One WebSocket message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Frame {
    /// Client → hub, first: who it is and its fresh nonce (`proof.rs`). No secret moves.
    Hello {
        role: Role,
        protocol: u32,
        agent: String,
        nonce: String,
    },
    /// Hub → client, answering `Hello`: the hub's fresh nonce and its proof that it knows the
    /// shared secret. A client that cannot verify it sends nothing more.
    Challenge {
        nonce: String,
        proof: String,
    },
    /// Client → hub, once the hub proved itself: the client's proof over both nonces.
    Prove {
        proof: String,
    },
    /// Hub → client, once both proved themselves. A tab gets `api_token`, the credential of
    /// this hub run for `/api/*` (a new run makes a new one).
    Welcome {
        session: String,
        hub_version: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        api_token: Option<Token>,
    },
    Reject {
        code: RejectCode,
        reason: String,
    },
    /// What graph the tab has loaded; `None` project means no graph yet.
    Context {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project: Option<String>,
        stats: GraphStats,
        indexed_at: u64,
    },
    /// A tool call. `session` is the caller's tools session (one per MCP connection or chat
    /// conversation), used when the arguments name none.
    Call {
        id: CallId,
        tool: String,
        args: serde_json::Value,
        deadline_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    },
    Result {
        id: CallId,
        outcome: Outcome,
    },
    Cancel {
        id: CallId,
    },
    Progress {
        id: CallId,
        done: u64,
        total: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    Ping {
        nonce: u64,
    },
    Pong {
        nonce: u64,
    },
    /// The hub's state (hub → peers and monitors): sent after `Welcome` and on every change.
    Status {
        browser: bool,
        peers: u32,
        /// The tab's loaded project; `None` when no tab or no graph.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project: Option<String>,
        /// The tab's graph size, once it sent a `Context`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stats: Option<GraphStats>,
        /// The watched `--repo` folder, when the hub serves one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repo: Option<RepoWatch>,
    },
    /// One finished call, for the UI's activity feed.
    Activity {
        agent: String,
        tool: String,
        ms: u64,
        ok: bool,
    },
    /// The receiver could not use a frame it was sent; the connection stays open.
    Error {
        message: String,
    },
    /// Page or monitor → hub: send the hosted MCP registry as `Hosted`; with `watch`, again
    /// after every change for as long as the socket lives.
    HostedList {
        #[serde(default)]
        watch: bool,
    },
    /// Hub → page or monitor: every server (state, last error, guidance) and tool (description,
    /// input schema, reliability, performance), as the hub's registry reports it.
    Hosted {
        registry: serde_json::Value,
    },
    /// Page → hub: call a tool through the hub's registry (`server:tool`, or a unique name).
    HostedCall {
        id: CallId,
        tool: String,
        args: serde_json::Map<String, serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// Hub → page: the answer to a `HostedCall`. `Ok` text is the MCP result as JSON.
    HostedResult {
        id: CallId,
        outcome: Outcome,
        ms: u64,
    },
    /// Hub → tab: files of the `--repo` folder changed (relative `/` paths, sorted). `seq`
    /// counts batches from 1; `rescan` says the watcher lost events and compared the whole folder.
    RepoChanged {
        seq: u64,
        changed: Vec<String>,
        removed: Vec<String>,
        rescan: bool,
    },
    /// Tab → hub: the tab applied batch `seq` to its graph (or failed to, saying why).
    RepoApplied {
        seq: u64,
        #[serde(default)]
        error: Option<String>,
    },
}

/// The hub's watch over its `--repo` folder, as health reports show it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoWatch {
    /// False when the watcher could not start: the folder is still served, changes go unseen.
    pub watching: bool,
    pub root_name: String,
    /// When the last batch was flushed, in ms since the epoch.
    pub last_change_ms: Option<u64>,
    pub batches_sent: u64,
    pub last_applied_seq: Option<u64>,
    /// Paths in the watcher's debounce buffer, or sent to the tab and not yet applied: the
    /// first `PENDING_SHOWN` of them.
    pub pending: Vec<String>,
    /// How many more are pending than `pending` lists.
    #[serde(default)]
    pub pending_more: u64,
    /// Full rescans after lost events or watcher errors.
    pub rescans: u64,
}

/// At most this many pending paths are listed in a [`RepoWatch`] (it rides in every `Status`).
pub const PENDING_SHOWN: usize = 50;

/// A `RepoChanged` whose paths take more bytes than this is sent without them, as a rescan: the
/// tab compares the whole folder instead, and no frame outgrows `MAX_FRAME_BYTES`.
pub const REPO_PATHS_BYTES: usize = MAX_FRAME_BYTES / 2;

/// Every `type` tag the protocol knows, to tell unknown frames from malformed ones.
pub const FRAME_TYPES: [&str; 21] = [
    "hello",
    "challenge",
    "prove",
    "welcome",
    "reject",
    "context",
    "call",
    "result",
    "cancel",
    "progress",
    "ping",
    "pong",
    "status",
    "activity",
    "error",
    "hosted_list",
    "hosted",
    "hosted_call",
    "hosted_result",
    "repo_changed",
    "repo_applied",
];

/// Why a text message is not a usable frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame of {bytes} bytes is over the {limit}-byte limit")]
    TooLarge { bytes: usize, limit: usize },
    #[error("frame is not a JSON object with a string `type` field")]
    MissingType,
    #[error("unknown frame type `{0}`")]
    UnknownType(String),
    #[error("malformed `{kind}` frame: {detail}")]
    Malformed { kind: String, detail: String },
}

impl Frame {
    /// Parses one text message, enforcing `MAX_FRAME_BYTES`.
    pub fn decode(text: &str) -> Result<Frame, FrameError> {
        if text.len() > MAX_FRAME_BYTES {
            return Err(FrameError::TooLarge {
                bytes: text.len(),
                limit: MAX_FRAME_BYTES,
            });
        }
        serde_json::from_str(text).map_err(|err| classify(text, err))
    }

    /// Serializes to one text message. Serializing these types cannot fail.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|err| {
            format!(r#"{{"type":"error","message":"cannot encode frame: {err}"}}"#)
        })
    }

    /// Short name of the frame type, for logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Frame::Hello { .. } => "hello",
            Frame::Challenge { .. } => "challenge",
            Frame::Prove { .. } => "prove",
            Frame::Welcome { .. } => "welcome",
            Frame::Reject { .. } => "reject",
            Frame::Context { .. } => "context",
            Frame::Call { .. } => "call",
            Frame::Result { .. } => "result",
            Frame::Cancel { .. } => "cancel",
            Frame::Progress { .. } => "progress",
            Frame::Ping { .. } => "ping",
            Frame::Pong { .. } => "pong",
            Frame::Status { .. } => "status",
            Frame::Activity { .. } => "activity",
            Frame::Error { .. } => "error",
            Frame::HostedList { .. } => "hosted_list",
            Frame::Hosted { .. } => "hosted",
            Frame::HostedCall { .. } => "hosted_call",
            Frame::HostedResult { .. } => "hosted_result",
            Frame::RepoChanged { .. } => "repo_changed",
            Frame::RepoApplied { .. } => "repo_applied",
        }
    }
}

fn classify(text: &str, err: serde_json::Error) -> FrameError {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return FrameError::Malformed {
            kind: "?".into(),
            detail: err.to_string(),
        };
    };
    match value.get("type").and_then(|t| t.as_str()) {
        None => FrameError::MissingType,
        Some(kind) if FRAME_TYPES.contains(&kind) => FrameError::Malformed {
            kind: kind.into(),
            detail: err.to_string(),
        },
        Some(kind) => FrameError::UnknownType(kind.chars().take(64).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use proptest::prelude::*;

    fn samples() -> Vec<Frame> {
        vec![
            Frame::Hello {
                role: Role::Browser,
                protocol: 2,
                agent: "nexus-web".into(),
                nonce: "ab".repeat(32),
            },
            Frame::Challenge {
                nonce: "cd".repeat(32),
                proof: "ef".repeat(32),
            },
            Frame::Prove {
                proof: "01".repeat(32),
            },
            Frame::Welcome {
                session: "s1".into(),
                hub_version: "0.1.0".into(),
                api_token: None,
            },
            Frame::Welcome {
                session: "tab-1".into(),
                hub_version: "0.1.0".into(),
                api_token: Some(Token("t0k".into())),
            },
            Frame::Reject {
                code: RejectCode::Replaced,
                reason: "newer tab".into(),
            },
            Frame::Context {
                project: Some("sample".into()),
                stats: GraphStats {
                    files: 3,
                    nodes: 10,
                    edges: 12,
                },
                indexed_at: 1_700_000_000_000,
            },
            Frame::Call {
                id: "h1-7".into(),
                tool: "context".into(),
                args: serde_json::json!({"focus": "stats"}),
                deadline_ms: 30_000,
                session: Some("agent-1".into()),
            },
            Frame::Result {
                id: "h1-7".into(),
                outcome: Outcome::Ok(ToolOutput {
                    text: "# sample".into(),
                }),
            },
            Frame::Result {
                id: "h1-8".into(),
                outcome: Outcome::Err(
                    ToolError::new(ErrorCode::NotImplemented, "not yet").with_hint("later"),
                ),
            },
            Frame::Cancel { id: "h1-9".into() },
            Frame::Progress {
                id: "h1-9".into(),
                done: 1,
                total: 4,
                message: Some("parse".into()),
            },
            Frame::Ping { nonce: 7 },
            Frame::Pong { nonce: 7 },
            Frame::Status {
                browser: true,
                peers: 2,
                project: Some("sample".into()),
                stats: Some(GraphStats {
                    files: 3,
                    nodes: 10,
                    edges: 12,
                }),
                repo: None,
            },
            Frame::Status {
                browser: false,
                peers: 0,
                project: None,
                stats: None,
                repo: None,
            },
            Frame::Activity {
                agent: "claude".into(),
                tool: "search".into(),
                ms: 3,
                ok: true,
            },
            Frame::Error {
                message: "bad".into(),
            },
            Frame::HostedList { watch: true },
            Frame::Hosted {
                registry: serde_json::json!({"servers": [{"id": "fs", "state": "online"}]}),
            },
            Frame::HostedCall {
                id: "ui-1".into(),
                tool: "fs:read_text_file".into(),
                args: serde_json::Map::from_iter([("path".to_owned(), "/tmp/a".into())]),
                timeout_ms: Some(5_000),
            },
            Frame::HostedResult {
                id: "ui-1".into(),
                outcome: Outcome::Ok(ToolOutput {
                    text: "{\"content\":[]}".into(),
                }),
                ms: 12,
            },
            Frame::RepoChanged {
                seq: 3,
                changed: vec!["src/a.py".into(), "src/new.py".into()],
                removed: vec!["old.py".into()],
                rescan: false,
            },
            Frame::RepoApplied {
                seq: 3,
                error: None,
            },
            Frame::RepoApplied {
                seq: 4,
                error: Some("parse failed".into()),
            },
            Frame::Status {
                browser: true,
                peers: 0,
                project: None,
                stats: None,
                repo: Some(RepoWatch {
                    watching: true,
                    root_name: "shop".into(),
                    last_change_ms: Some(1_700_000_000_000),
                    batches_sent: 2,
                    last_applied_seq: Some(2),
                    pending: vec!["a.py".into()],
                    pending_more: 3,
                    rescans: 0,
                }),
            },
        ]
    }

    #[test]
    fn repo_frames_have_their_wire_shape() {
        let frame = Frame::RepoChanged {
            seq: 1,
            changed: vec!["a.py".into()],
            removed: vec![],
            rescan: true,
        };
        assert_eq!(
            frame.encode(),
            r#"{"type":"repo_changed","seq":1,"changed":["a.py"],"removed":[],"rescan":true}"#
        );
        // `error` may be left out; unknown fields and missing lists are malformed.
        assert_eq!(
            Frame::decode(r#"{"type":"repo_applied","seq":2}"#),
            Ok(Frame::RepoApplied {
                seq: 2,
                error: None
            })
        );
        for text in [
            r#"{"type":"repo_applied","seq":2,"extra":1}"#,
            r#"{"type":"repo_applied","seq":-1}"#,
            r#"{"type":"repo_changed","seq":1,"changed":[],"rescan":false}"#,
        ] {
            let err = Frame::decode(text).expect_err(text);
            assert!(
                matches!(&err, FrameError::Malformed { kind, .. } if kind.starts_with("repo_")),
                "{text}: {err:?}"
            );
        }
    }

    #[test]
    fn bad_hosted_frames_are_malformed_not_panics() {
        for text in [
            r#"{"type":"hosted_call","id":"x","tool":"fs:read"}"#,
            r#"{"type":"hosted_call","id":"x","tool":"fs:read","args":[1,2]}"#,
            r#"{"type":"hosted_call","id":"x","tool":7,"args":{}}"#,
            r#"{"type":"hosted_call","id":"x","tool":"t","args":{},"timeout_ms":-1}"#,
            r#"{"type":"hosted_list","watch":"yes"}"#,
            r#"{"type":"hosted_list","extra":1}"#,
            r#"{"type":"hosted_result","id":"x","outcome":{"maybe":{}},"ms":1}"#,
            r#"{"type":"hosted"}"#,
        ] {
            let err = Frame::decode(text).expect_err(text);
            assert!(
                matches!(&err, FrameError::Malformed { kind, .. } if kind.starts_with("hosted")),
                "{text}: {err:?}"
            );
        }
        // `watch` defaults to false; a list request needs nothing else.
        assert_eq!(
            Frame::decode(r#"{"type":"hosted_list"}"#),
            Ok(Frame::HostedList { watch: false })
        );
    }

    #[test]
    fn every_frame_round_trips() {
        for frame in samples() {
            let text = frame.encode();
            assert_eq!(Frame::decode(&text).unwrap(), frame, "{text}");
            assert!(FRAME_TYPES.contains(&frame.kind()));
            assert!(text.contains(&format!("\"type\":\"{}\"", frame.kind())));
        }
    }

    #[test]
    fn result_carries_ok_or_err_key() {
        let text = samples()
            .iter()
            .find(|f| {
                matches!(
                    f,
                    Frame::Result {
                        outcome: Outcome::Ok(_),
                        ..
                    }
                )
            })
            .map(Frame::encode)
            .unwrap_or_default();
        assert!(
            text.contains(r##""outcome":{"ok":{"text":"# sample"}}"##),
            "{text}"
        );
    }

    #[test]
    fn unknown_type_is_named() {
        let err = Frame::decode(r#"{"type":"teleport","id":"1"}"#).unwrap_err();
        assert_eq!(err, FrameError::UnknownType("teleport".into()));
    }

    #[test]
    fn missing_type_and_non_objects_are_errors() {
        assert_eq!(
            Frame::decode(r#"{"id":"1"}"#).unwrap_err(),
            FrameError::MissingType
        );
        assert_eq!(Frame::decode("[1,2]").unwrap_err(), FrameError::MissingType);
        assert!(matches!(
            Frame::decode("not json").unwrap_err(),
            FrameError::Malformed { .. }
        ));
        assert!(matches!(
            Frame::decode("").unwrap_err(),
            FrameError::Malformed { .. }
        ));
    }

    #[test]
    fn known_type_with_bad_fields_is_malformed() {
        let err = Frame::decode(r#"{"type":"call","id":5}"#).unwrap_err();
        assert!(matches!(err, FrameError::Malformed { ref kind, .. } if kind == "call"));
        let err = Frame::decode(r#"{"type":"ping","nonce":1,"extra":true}"#).unwrap_err();
        assert!(matches!(err, FrameError::Malformed { .. }));
    }

    #[test]
    fn oversized_frame_is_refused_before_parsing() {
        let text = format!(
            r#"{{"type":"error","message":"{}"}}"#,
            "x".repeat(MAX_FRAME_BYTES)
        );
        assert!(matches!(
            Frame::decode(&text).unwrap_err(),
            FrameError::TooLarge { .. }
        ));
    }

    #[test]
    fn tokens_never_show_in_debug_output() {
        let welcome = Frame::Welcome {
            session: "tab-1".into(),
            hub_version: "0.1.0".into(),
            api_token: Some(Token("s3cr3t-value".into())),
        };
        let shown = format!("{welcome:?}");
        assert!(!shown.contains("s3cr3t-value"), "{shown}");
        assert!(welcome.encode().contains(r#""api_token":"s3cr3t-value""#));
    }

    #[test]
    fn the_handshake_frames_decode_and_a_hello_carries_no_secret() {
        let hello = Frame::decode(
            r#"{"type":"hello","role":"browser","protocol":2,"agent":"nexus-web","nonce":"00"}"#,
        );
        assert!(matches!(hello, Ok(Frame::Hello { protocol: 2, .. })));
        // A protocol-1 Hello carried the secret itself: it no longer decodes.
        let old = r#"{"type":"hello","role":"browser","protocol":1,"agent":"a","token":"t"}"#;
        assert!(matches!(
            Frame::decode(old),
            Err(FrameError::Malformed { .. })
        ));
        let challenge = Frame::decode(r#"{"type":"challenge","nonce":"aa","proof":"bb"}"#);
        assert_eq!(
            challenge,
            Ok(Frame::Challenge {
                nonce: "aa".into(),
                proof: "bb".into()
            })
        );
        let prove = Frame::decode(r#"{"type":"prove","proof":"cc"}"#);
        assert_eq!(prove, Ok(Frame::Prove { proof: "cc".into() }));
        assert!(Frame::decode(r#"{"type":"prove"}"#).is_err());
        let welcome = Frame::decode(r#"{"type":"welcome","session":"s","hub_version":"1"}"#);
        assert!(matches!(
            welcome,
            Ok(Frame::Welcome {
                api_token: None,
                ..
            })
        ));
    }

    #[test]
    fn deeply_nested_input_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(Frame::decode(&deep).is_err());
        let deep = format!(
            r#"{{"type":"call","id":"1","tool":"t","deadline_ms":1,"args":{}1{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(Frame::decode(&deep).is_err());
    }

    /// Any JSON value, a few levels deep.
    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_map(serde_json::Value::from),
            "\\PC{0,16}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
                prop::collection::btree_map("[a-z_]{1,10}", inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn decode_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
            let _ = Frame::decode(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn decode_never_panics_on_frame_shaped_objects(
            kind in prop::sample::select(FRAME_TYPES.to_vec()),
            fields in prop::collection::btree_map(
                prop::sample::select(vec![
                    "id", "tool", "args", "deadline_ms", "outcome", "role", "protocol", "token",
                    "agent", "nonce", "done", "total", "message", "code", "reason", "browser",
                    "peers", "project", "stats", "session", "hub_version", "indexed_at", "ok", "proof",
                    "api_token",
                    "seq", "changed", "removed", "rescan", "error", "repo",
                ]),
                json_value(),
                0..8,
            ),
        ) {
            let mut object: serde_json::Map<String, serde_json::Value> =
                fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            object.insert("type".into(), kind.into());
            let text = serde_json::Value::Object(object).to_string();
            if let Ok(frame) = Frame::decode(&text) {
                // Whatever decodes also re-encodes to something that decodes the same.
                prop_assert_eq!(Frame::decode(&frame.encode()).unwrap(), frame);
            }
        }

        #[test]
        fn damaged_valid_frames_never_panic(
            index in 0usize..24,
            cut in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            let frames = samples();
            let text = frames[index % frames.len()].encode();
            let at = cut.index(text.len());
            let boundary = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            let _ = Frame::decode(&text[..boundary]);
            let mut bytes = text.into_bytes();
            bytes[at] = byte;
            let _ = Frame::decode(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn decode_never_panics_on_arbitrary_text(text in ".{0,512}") {
            let _ = Frame::decode(&text);
        }

        #[test]
        fn decode_never_panics_on_json_like_text(
            kind in prop::sample::select(FRAME_TYPES.to_vec()),
            body in "[-a-z0-9:,\"{}\\[\\] ]{0,128}",
        ) {
            let _ = Frame::decode(&format!(r#"{{"type":"{kind}",{body}"#));
            let _ = Frame::decode(&format!(r#"{{"type":"{kind}"{body}}}"#));
        }

        #[test]
        fn call_ids_and_args_round_trip(id in "\\PC{0,40}", n in any::<u64>(), s in "\\PC{0,40}") {
            let frame = Frame::Call {
                id,
                tool: s.clone(),
                args: serde_json::json!({ "n": n, "s": s }),
                deadline_ms: n,
                session: None,
            };
            prop_assert_eq!(Frame::decode(&frame.encode()).unwrap(), frame);
        }
    }
}
