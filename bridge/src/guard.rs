//! Who may use the hub's HTTP side: the `Host` on every route, framing, content-security and
//! isolation headers on every response, `Sec-Fetch-Site` checks, the api token on `/api/*`.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use nexus_shared::Token;
use sha2::{Digest, Sha256};

use crate::token;

/// The header the page sends this hub run's api token in on `/api/*`.
pub const TOKEN_HEADER: &str = "x-nexus-token";

/// The Content-Security-Policy of every response: scripts only from the hub (the inline boot
/// scripts of `index_html` by hash), connections only to the hub, never framed.
pub fn csp(port: u16, index_html: &str) -> String {
    let hashes: String = inline_scripts(index_html)
        .map(|script| {
            let digest = Sha256::digest(script.as_bytes());
            format!(
                " 'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
        })
        .collect();
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{hashes}; \
         worker-src 'self'; connect-src 'self' ws://127.0.0.1:{port} ws://localhost:{port}; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; object-src 'none'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
}

/// The bodies of `<script>` elements without `src` (what Trunk writes to start the wasm).
fn inline_scripts(html: &str) -> impl Iterator<Item = &str> {
    html.split("<script").skip(1).filter_map(|rest| {
        let (attrs, body) = rest.split_once('>')?;
        if attrs.contains("src=") {
            return None;
        }
        body.split_once("</script>").map(|(body, _)| body)
    })
}

/// Adds the framing and content-security headers to a response.
pub async fn headers(csp: HeaderValue, request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // The page's address can carry its secret: never send it to anyone.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        HeaderName::from_static("cross-origin-resource-policy"),
        HeaderValue::from_static("same-origin"),
    );
    // Cross-origin isolation: the page may then share memory with its engine worker, which is
    // how a `Cancel` reaches a tool while it runs (`web/src/worker/cancel.rs`).
    headers.insert(
        HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        HeaderName::from_static("cross-origin-embedder-policy"),
        HeaderValue::from_static("require-corp"),
    );
    response
}

/// Answers a request only when its `Host` is `127.0.0.1:PORT` or `localhost:PORT` (the hub's
/// own origins) or the host of an origin allowed with `--allow-origin`: a page on another name
/// that resolves to 127.0.0.1 (DNS rebinding) gets 403 on every route.
pub async fn host_only(allowed_origins: &[String], request: Request, next: Next) -> Response {
    if host_allowed(request.headers(), allowed_origins) {
        next.run(request).await
    } else {
        (
            StatusCode::FORBIDDEN,
            "only the hub's own host and port (127.0.0.1:PORT, localhost:PORT) are answered",
        )
            .into_response()
    }
}

/// True when `Host` names one of `allowed_origins` (`http://HOST:PORT`; the hub's own two and
/// any `--allow-origin`), the name compared without case.
pub fn host_allowed(headers: &HeaderMap, allowed_origins: &[String]) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    allowed_origins.iter().any(|origin| {
        origin
            .split_once("://")
            .is_some_and(|(_, authority)| authority.eq_ignore_ascii_case(host))
    })
}

/// The port a browser origin (`http://HOST:PORT`) names; 80 when it names none.
pub fn origin_port(origin: &str) -> Option<u16> {
    let (_, authority) = origin.split_once("://")?;
    match authority.rsplit_once(':') {
        Some((_, port)) => port.parse().ok(),
        None => Some(80),
    }
}

/// False for requests a browser marks as sent by another site. Requests without the header
/// (not a browser, or an old one) and those the user typed (`none`) pass; `same-site` passes only
/// from an allowed origin (`--allow-origin`, e.g. `trunk serve` on another port).
pub fn same_origin(headers: &HeaderMap, allowed_origins: &[String]) -> bool {
    let site = headers
        .get("sec-fetch-site")
        .map(|v| v.to_str().unwrap_or("cross-site"));
    match site {
        None | Some("same-origin") | Some("none") => true,
        Some("same-site") => headers
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            .is_some_and(|o| allowed_origins.iter().any(|a| a == o.trim_end_matches('/'))),
        Some(_) => false,
    }
}

/// True when the request carries `secret` (the hub run's api token) in [`TOKEN_HEADER`].
pub fn has_secret(headers: &HeaderMap, secret: &Token) -> bool {
    let given = headers
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(|v| Token(v.to_owned()));
    token::matches(secret, given.as_ref())
}

/// The checks of every `/api/*` request: loopback host name, same origin, the api token.
pub fn api_refusal(
    headers: &HeaderMap,
    secret: &Token,
    allowed_origins: &[String],
) -> Option<Response> {
    if !crate::repo::loopback_host(headers) {
        return Some(
            (
                StatusCode::FORBIDDEN,
                "only loopback host names are answered",
            )
                .into_response(),
        );
    }
    if !same_origin(headers, allowed_origins) {
        return Some((StatusCode::FORBIDDEN, "cross-site requests are refused").into_response());
    }
    if !has_secret(headers, secret) {
        return Some(
            (
                StatusCode::UNAUTHORIZED,
                "missing or wrong api token: the page gets one from its hub once both proved the secret",
            )
                .into_response(),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_scripts_are_hashed_and_external_ones_are_not() {
        let html = r#"<script src="/a.js"></script><script type="module">boot()</script>"#;
        assert_eq!(inline_scripts(html).collect::<Vec<_>>(), ["boot()"]);
        let policy = csp(54319, html);
        assert_eq!(policy.matches("'sha256-").count(), 1);
        assert!(policy.contains("frame-ancestors 'none'"));
        assert!(policy.contains("connect-src 'self' ws://127.0.0.1:54319"));
    }

    #[test]
    fn only_the_hubs_own_host_and_port_are_answered() {
        let allowed = [
            "http://127.0.0.1:54319".to_owned(),
            "http://localhost:54319".to_owned(),
        ];
        let mut headers = HeaderMap::new();
        assert!(!host_allowed(&headers, &allowed));
        for (host, ok) in [
            ("127.0.0.1:54319", true),
            ("localhost:54319", true),
            ("LocalHost:54319", true),
            ("127.0.0.1:54320", false),
            ("127.0.0.1", false),
            ("evil.example:54319", false),
            ("127.0.0.1.evil.example:54319", false),
            ("[::1]:54319", false),
        ] {
            headers.insert(header::HOST, HeaderValue::from_static(host));
            assert_eq!(host_allowed(&headers, &allowed), ok, "{host}");
        }
        assert_eq!(origin_port("http://127.0.0.1:8080"), Some(8080));
        assert_eq!(origin_port("http://example"), Some(80));
        assert_eq!(origin_port("nonsense"), None);
    }

    #[test]
    fn cross_site_requests_are_refused() {
        let allowed = vec!["http://127.0.0.1:8080".to_owned()];
        let mut headers = HeaderMap::new();
        assert!(same_origin(&headers, &allowed));
        for (site, ok) in [
            ("same-origin", true),
            ("none", true),
            ("cross-site", false),
            ("same-site", false),
        ] {
            headers.insert("sec-fetch-site", HeaderValue::from_static(site));
            assert_eq!(same_origin(&headers, &allowed), ok, "{site}");
        }
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:8080"),
        );
        assert!(same_origin(&headers, &allowed));
    }

    #[test]
    fn the_secret_is_required_on_api_requests() {
        let secret = Token("ab".repeat(32));
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:54319"));
        let refused = api_refusal(&headers, &secret, &[]).map(|r| r.status());
        assert_eq!(refused, Some(StatusCode::UNAUTHORIZED));
        headers.insert(TOKEN_HEADER, HeaderValue::from_str(&secret.0).unwrap());
        assert!(api_refusal(&headers, &secret, &[]).is_none());
        headers.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
        let refused = api_refusal(&headers, &secret, &[]).map(|r| r.status());
        assert_eq!(refused, Some(StatusCode::FORBIDDEN));
    }
}
