//! `/mcp`: the stdio server's handler (`mcp.rs`) over Streamable HTTP (stateless at 2026-07-28),
//! on the hub's port, behind the user's MCP bearer token (`mcp-token`, 0600, in the data folder).

use std::path::PathBuf;
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use nexus_shared::Token;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::host::Host;
use crate::mcp::{NexusMcp, Shared};
use crate::relay::Relay;
use crate::{data, guard, secret, token};

/// The route HTTP clients post to.
pub const PATH: &str = "/mcp";
/// The token file's name in the data folder.
const TOKEN_FILE: &str = "mcp-token";

/// The address HTTP clients use for the hub on `port`.
pub fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}{PATH}")
}

/// The MCP token file for the current user: `nexus/mcp-token` in the data folder, beside the
/// bridge's databases (kept across logins, unlike the runtime folder's hub files).
pub fn token_path() -> Result<PathBuf, String> {
    data::folder()
        .map(|dir| dir.join(TOKEN_FILE))
        .ok_or_else(|| "no data folder (neither XDG_DATA_HOME nor HOME is set)".into())
}

/// The user's MCP token, created (0600) when the file is missing.
pub fn load_token() -> Result<Token, String> {
    token_path().and_then(|path| secret::load_or_create(&path))
}

/// What answers `/mcp`: Nexus's handler, with the conformance suite's fixtures in front in the
/// test build that has them.
#[cfg(not(feature = "conformance-fixtures"))]
pub type Handler = NexusMcp;
#[cfg(feature = "conformance-fixtures")]
pub type Handler = crate::conformance::Fixtures;

/// The Streamable HTTP service: one handler per request (per session for clients before
/// 2026-07-28) over state shared by all of them (the tools session and the pending
/// confirmations), JSON answers unless the call streams progress. `Host` and `Origin` are checked by the hub's guards, not by rmcp.
pub fn service(
    relay: Arc<Relay>,
    host: Arc<Host>,
) -> StreamableHttpService<Handler, LocalSessionManager> {
    let shared = Shared::new("http");
    let config = StreamableHttpServerConfig::default()
        // Clients before 2026-07-28 get a session (`Mcp-Session-Id`), so a call can ask them
        // something (elicitation) and read the answer they post back; 2026-07-28 is stateless.
        .with_legacy_session_mode(true)
        .with_json_response(true)
        .disable_allowed_hosts()
        .disable_allowed_origins();
    StreamableHttpService::new(
        move || {
            let handler = NexusMcp::with_shared(relay.clone(), host.clone(), shared.clone());
            #[cfg(feature = "conformance-fixtures")]
            let handler = crate::conformance::Fixtures::from(handler);
            Ok(handler)
        },
        Default::default(),
        config,
    )
}

/// Why a request to `/mcp` is refused, if it is: 403 for another site or a foreign `Origin`
/// (checked first, so a web page learns nothing about the token), 401 without the bearer token.
pub fn refusal(
    headers: &HeaderMap,
    expected: &Token,
    allowed_origins: &[String],
) -> Option<Response> {
    let origin = headers.get(header::ORIGIN).map(|value| {
        value
            .to_str()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_owned()
    });
    let foreign = origin.is_some_and(|origin| !allowed_origins.contains(&origin));
    if foreign || !guard::same_origin(headers, allowed_origins) {
        return Some(
            (StatusCode::FORBIDDEN, "cross-site MCP requests are refused").into_response(),
        );
    }
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(|value| Token(value.trim().to_owned()));
    if token::matches(expected, given.as_ref()) {
        return None;
    }
    let hint = match token_path() {
        Ok(path) => format!(
            "missing or wrong bearer token: send `Authorization: Bearer <the contents of {}>`",
            path.display()
        ),
        Err(_) => "missing or wrong bearer token".to_owned(),
    };
    Some(
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            hint,
        )
            .into_response(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALLOWED: [&str; 2] = ["http://127.0.0.1:54319", "http://localhost:54319"];

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().expect("header value"));
        }
        map
    }

    fn status(pairs: &[(&'static str, &str)]) -> Option<StatusCode> {
        let token = Token("a".repeat(64));
        let allowed: Vec<String> = ALLOWED.iter().map(|s| s.to_string()).collect();
        refusal(&headers(pairs), &token, &allowed).map(|r| r.status())
    }

    #[test]
    fn the_bearer_token_is_required_and_a_foreign_origin_is_refused_first() {
        let good = format!("Bearer {}", "a".repeat(64));
        assert_eq!(status(&[("authorization", &good)]), None);
        assert_eq!(
            status(&[
                ("authorization", &good),
                ("origin", "http://127.0.0.1:54319")
            ]),
            None
        );
        assert_eq!(status(&[]), Some(StatusCode::UNAUTHORIZED));
        let wrong = format!("Bearer {}", "b".repeat(64));
        assert_eq!(
            status(&[("authorization", &wrong)]),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            status(&[("authorization", &"a".repeat(64))]),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            status(&[("authorization", &good), ("origin", "https://evil.example")]),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            status(&[("origin", "https://evil.example")]),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            status(&[("authorization", &good), ("sec-fetch-site", "cross-site")]),
            Some(StatusCode::FORBIDDEN)
        );
    }
}
