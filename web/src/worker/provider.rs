//! Provider embeddings in the worker: the bridge's `/api/embed` (same origin, the hub run's api
//! token from the page) embeds the graph's texts and search queries; any failure keeps the built-in model.

use std::cell::RefCell;
use std::sync::Mutex;

use js_sys::JSON;
use rustc_hash::FxHashMap as HashMap;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Headers, RequestInit, Response};

use nexus_engine::QueryEmbedder;
use nexus_engine::embed::{VectorIndex, unit};

const ROUTE: &str = "/api/embed";
/// How long a run waits for the page to pass the api token (it comes once the link is welcomed).
const TOKEN_WAIT_MS: u32 = 10_000;
const TOKEN_POLL_MS: u32 = 20;

thread_local! {
    /// `None` until the page said; then the api token.
    static TOKEN: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

/// The api token, as the page passed it.
pub fn set_token(token: Option<String>) {
    TOKEN.with(|t| *t.borrow_mut() = Some(token));
}

pub(super) async fn token() -> Option<String> {
    for _ in 0..TOKEN_WAIT_MS / TOKEN_POLL_MS {
        if let Some(token) = TOKEN.with(|t| t.borrow().clone()) {
            return token;
        }
        gloo_timers::future::TimeoutFuture::new(TOKEN_POLL_MS).await;
    }
    None
}

/// One request to the bridge's embeddings route: its status and JSON body.
async fn request(body: Option<String>) -> Result<(u16, JsValue), String> {
    bridge_request(ROUTE, body).await
}

/// One request to a route of the bridge (GET, or POST of a JSON `body`) with the api token: its
/// status and JSON body (`null` when the body is not JSON).
pub(super) async fn bridge_request(
    route: &str,
    body: Option<String>,
) -> Result<(u16, JsValue), String> {
    let token = token()
        .await
        .ok_or("no api token to ask the bridge with (the link to the hub is not up)")?;
    let scope = super::runtime::scope().ok_or("not in a worker")?;
    let failed = |e: JsValue| format!("asking the bridge ({route}): {e:?}");
    let headers = Headers::new().map_err(failed)?;
    headers.set("X-Nexus-Token", &token).map_err(failed)?;
    let init = RequestInit::new();
    if let Some(body) = body {
        headers
            .set("Content-Type", "application/json")
            .map_err(failed)?;
        init.set_method("POST");
        init.set_body(&JsValue::from_str(&body));
    }
    init.set_headers(&headers);
    let response: Response = JsFuture::from(scope.fetch_with_str_and_init(route, &init))
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(failed)?;
    let json = JsFuture::from(response.json().map_err(failed)?)
        .await
        .unwrap_or(JsValue::NULL);
    Ok((response.status(), json))
}

pub(super) fn to_json(value: &JsValue) -> serde_json::Value {
    JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

/// The provider's model name, when the bridge offers one.
pub async fn model() -> Option<String> {
    let (status, body) = request(None).await.ok()?;
    (status == 200)
        .then(|| to_json(&body)["model"].as_str().map(str::to_owned))
        .flatten()
}

/// Vectors of `texts` in order, all of one width; an error names what failed.
pub async fn embed(texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
    let body = serde_json::json!({ "texts": texts }).to_string();
    let (status, answer) = request(Some(body)).await?;
    let answer = to_json(&answer);
    if status != 200 {
        let why = answer["error"].as_str().unwrap_or("no reason given");
        return Err(format!(
            "the bridge's embeddings failed (HTTP {status}): {why}"
        ));
    }
    let vectors: Vec<Vec<f32>> = serde_json::from_value(answer["vectors"].clone())
        .map_err(|e| format!("the bridge's embeddings are not vectors: {e}"))?;
    let dims = vectors.first().map_or(0, Vec::len);
    if vectors.len() != texts.len() || vectors.iter().any(|v| v.len() != dims) {
        return Err("the bridge's embeddings do not match the texts".into());
    }
    Ok(vectors)
}

/// Query vectors fetched from the provider before a search runs (the tools run synchronously).
#[derive(Debug, Default)]
pub struct ProviderQueries {
    queries: Mutex<HashMap<String, Vec<f32>>>,
}

/// Query vectors kept at most (a new graph starts a new set).
const MAX_QUERIES: usize = 1_000;

impl ProviderQueries {
    /// True when `query` has a vector.
    pub fn has(&self, query: &str) -> bool {
        self.queries.lock().is_ok_and(|q| q.contains_key(query))
    }

    /// Fetches `query`'s vector from the provider and keeps it.
    pub async fn fetch(&self, query: &str) -> Result<(), String> {
        let vector = embed(&[query.to_owned()])
            .await?
            .pop()
            .ok_or("no vector for the query")?;
        if let Ok(mut queries) = self.queries.lock() {
            if queries.len() >= MAX_QUERIES {
                queries.clear();
            }
            queries.insert(query.to_owned(), unit(&vector));
        }
        Ok(())
    }
}

impl QueryEmbedder for ProviderQueries {
    fn embed_query(&self, vectors: &VectorIndex, query: &str) -> Option<Vec<f32>> {
        let queries = self.queries.lock().ok()?;
        queries
            .get(query)
            .filter(|v| v.len() == vectors.dims())
            .cloned()
    }
}

/// The query of a tool call that searches by meaning, if it is one.
pub fn query_to_embed(tool: &str, args: &serde_json::Value) -> Option<String> {
    let keyword = args["mode"].as_str() == Some("keyword");
    (tool == "search" && !keyword)
        .then(|| args["query"].as_str().map(str::to_owned))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_searches_by_meaning_fetch_a_query_vector() {
        let q = |tool: &str, args| query_to_embed(tool, &args);
        assert_eq!(
            q("search", json!({"query": "charge"})),
            Some("charge".into())
        );
        assert_eq!(
            q("search", json!({"query": "charge", "mode": "semantic"})),
            Some("charge".into())
        );
        assert_eq!(
            q("search", json!({"query": "charge", "mode": "keyword"})),
            None
        );
        assert_eq!(q("grep", json!({"query": "charge"})), None);
        assert_eq!(q("search", json!({"query": 3})), None);
    }
}
