//! Provider embeddings for the tab: an OpenAI-compatible `/v1/embeddings` service configured by
//! `NEXUS_EMBED_*`, called in batches under a deadline, its vectors cached in SQLite by model + text.

pub mod cache;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::chat::config::ApiKey;
use cache::Cache;

/// Most texts one `/api/embed` request may carry.
pub const MAX_TEXTS: usize = 256;
/// Longest text sent to the provider (characters); longer texts are cut.
pub const MAX_TEXT_CHARS: usize = 8_000;
/// Widest vectors accepted from a provider.
pub const MAX_DIMS: usize = 8_192;
const DEFAULT_BATCH: usize = 64;
/// Most of a provider's answer read: a full batch (`MAX_TEXTS` vectors of `MAX_DIMS` floats as
/// JSON text) fits.
const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// How the bridge reaches an embeddings service.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedConfig {
    /// The full `…/embeddings` address.
    pub url: String,
    pub model: String,
    pub api_key: ApiKey,
    /// Texts per provider request.
    pub batch: usize,
    /// Deadline of one provider request.
    pub timeout: Duration,
    /// The cache's file (`None`: in memory).
    pub cache: Option<PathBuf>,
}

/// What to tell whoever asks when no service is configured.
pub const HOW_TO: &str = "No embeddings provider is configured: the tab uses its built-in model. \
    Start the bridge with NEXUS_EMBED_URL (an OpenAI-compatible base URL such as \
    http://127.0.0.1:8080/v1) and NEXUS_EMBED_MODEL, plus NEXUS_EMBED_API_KEY if it needs one.";

/// The configuration from the environment (`lookup`); `None` without `NEXUS_EMBED_URL`, an error
/// naming the variable when one is unusable.
pub fn read(lookup: &dyn Fn(&str) -> Option<String>) -> Result<Option<EmbedConfig>, String> {
    let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
    let Some(base) = get("NEXUS_EMBED_URL") else {
        return Ok(None);
    };
    let base = base.trim().trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err("NEXUS_EMBED_URL must be an http(s) address".into());
    }
    let url = if base.ends_with("/embeddings") {
        base.to_owned()
    } else {
        format!("{base}/embeddings")
    };
    let model =
        get("NEXUS_EMBED_MODEL").ok_or("NEXUS_EMBED_URL is set but NEXUS_EMBED_MODEL is not")?;
    let number = |name: &str, default: u64| -> Result<u64, String> {
        match get(name) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or(format!("{name} must be a positive number")),
        }
    };
    Ok(Some(EmbedConfig {
        url,
        model: model.trim().to_owned(),
        api_key: ApiKey::from(get("NEXUS_EMBED_API_KEY").unwrap_or_default()),
        batch: (number("NEXUS_EMBED_BATCH", DEFAULT_BATCH as u64)? as usize).min(MAX_TEXTS),
        timeout: Duration::from_millis(number("NEXUS_EMBED_TIMEOUT_MS", DEFAULT_TIMEOUT_MS)?),
        cache: get("NEXUS_EMBED_CACHE")
            .map(PathBuf::from)
            .or_else(cache::default_path),
    }))
}

/// The tab's request: texts to embed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbedRequest {
    pub texts: Vec<String>,
}

/// The answer: one vector per text, in order, and what made them.
#[derive(Debug, Serialize, PartialEq)]
pub struct EmbedAnswer {
    pub model: String,
    pub dims: usize,
    pub vectors: Vec<Vec<f32>>,
    /// How many came from the cache.
    pub cached: usize,
}

#[derive(Serialize)]
struct ProviderRequest<'a> {
    model: &'a str,
    input: &'a [&'a str],
    encoding_format: &'static str,
}

#[derive(Deserialize)]
struct ProviderAnswer {
    data: Vec<ProviderVector>,
}

#[derive(Deserialize)]
struct ProviderVector {
    index: usize,
    embedding: Vec<f32>,
}

/// A configured service with its cache.
pub struct Embedder {
    config: EmbedConfig,
    client: reqwest::Client,
    cache: Cache,
}

impl Embedder {
    /// From the environment; `None` (and a log line saying why) when no usable service is set.
    pub fn from_env() -> Option<Embedder> {
        match read(&|name| std::env::var(name).ok()) {
            Ok(Some(config)) => {
                tracing::info!(model = %config.model, url = %config.url, "embeddings provider configured");
                Some(Embedder::new(config))
            }
            Ok(None) => None,
            Err(err) => {
                tracing::warn!("embeddings provider not used: {err}");
                None
            }
        }
    }

    pub fn new(config: EmbedConfig) -> Embedder {
        let cache = config
            .cache
            .as_deref()
            .map(Cache::open)
            .unwrap_or_else(Cache::in_memory)
            .or_else(|err| {
                tracing::warn!("{err}; provider embeddings are cached in memory only");
                Cache::in_memory()
            })
            .unwrap_or_else(|err| {
                tracing::warn!("{err}; provider embeddings are not cached");
                Cache::none()
            });
        let client = crate::provider_http::client(Some(config.timeout));
        Embedder {
            config,
            client,
            cache,
        }
    }

    /// The model's name, as stored with the tab's vectors.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// Vectors for `texts` in order: cached ones from SQLite, the rest from the provider in
    /// batches. Any failure is an error naming what went wrong; nothing partial is answered.
    pub async fn embed(&self, texts: &[String]) -> Result<EmbedAnswer, String> {
        if texts.len() > MAX_TEXTS {
            return Err(format!("at most {MAX_TEXTS} texts per request"));
        }
        let texts: Vec<&str> = texts.iter().map(|t| cut(t)).collect();
        let model = self.config.model.as_str();
        let mut vectors: Vec<Option<Vec<f32>>> =
            texts.iter().map(|t| self.cache.get(model, t)).collect();
        let cached = vectors.iter().filter(|v| v.is_some()).count();
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| vectors[i].is_none()).collect();
        for batch in missing.chunks(self.config.batch.max(1)) {
            let input: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            let got = self.request(&input).await?;
            for (&i, v) in batch.iter().zip(got) {
                self.cache.put(model, texts[i], &v);
                vectors[i] = Some(v);
            }
        }
        let vectors: Vec<Vec<f32>> = vectors.into_iter().flatten().collect();
        let dims = vectors.first().map_or(0, Vec::len);
        if vectors.len() != texts.len() || vectors.iter().any(|v| v.len() != dims) {
            return Err(format!(
                "the embeddings provider ({model}) gave vectors of different widths; its cache may hold another model's: remove it"
            ));
        }
        Ok(EmbedAnswer {
            model: model.to_owned(),
            dims,
            vectors,
            cached,
        })
    }

    /// One provider request for `input`; its answer checked whole.
    async fn request(&self, input: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let model = &self.config.model;
        let mut request = self.client.post(&self.config.url).json(&ProviderRequest {
            model,
            input,
            encoding_format: "float",
        });
        if !self.config.api_key.is_empty() {
            request = request.bearer_auth(self.config.api_key.expose());
        }
        let failed = |e: reqwest::Error| {
            if e.is_timeout() {
                format!(
                    "the embeddings provider ({model}) did not answer within {} ms",
                    self.config.timeout.as_millis()
                )
            } else if e.is_connect() {
                format!(
                    "cannot reach the embeddings provider ({model}) at {}",
                    self.config.url
                )
            } else {
                format!(
                    "the embeddings provider ({model}) failed: {}",
                    e.without_url()
                )
            }
        };
        let response = request.send().await.map_err(failed)?;
        let status = response.status();
        if !status.is_success() {
            let text = crate::provider_http::error_text(response, 200).await;
            return Err(format!(
                "the embeddings provider ({model}) answered HTTP {}: {text}",
                status.as_u16()
            ));
        }
        let (body, more) = crate::provider_http::read_capped(response, MAX_ANSWER_BYTES).await;
        if more {
            return Err(format!(
                "the embeddings provider ({model}) answered more than {MAX_ANSWER_BYTES} bytes"
            ));
        }
        decode(&body, input.len())
            .map_err(|why| format!("the embeddings provider ({model}) answered {why}"))
    }
}

/// A text cut to [`MAX_TEXT_CHARS`] characters.
fn cut(text: &str) -> &str {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The vectors of an OpenAI embeddings answer for `count` inputs, in input order; anything but
/// one finite vector of one width per input is an error.
pub fn decode(body: &[u8], count: usize) -> Result<Vec<Vec<f32>>, String> {
    let answer: ProviderAnswer = serde_json::from_slice(body)
        .map_err(|e| format!("something that is not an embeddings list ({e})"))?;
    if answer.data.len() != count {
        return Err(format!("{} vectors for {count} texts", answer.data.len()));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; count];
    let dims = answer.data.first().map_or(0, |v| v.embedding.len());
    if count > 0 && (dims == 0 || dims > MAX_DIMS) {
        return Err(format!("vectors of {dims} values"));
    }
    for v in answer.data {
        if v.embedding.len() != dims {
            return Err("vectors of different widths".into());
        }
        if v.embedding.iter().any(|x| !x.is_finite()) {
            return Err("a vector with a value that is not a finite number".into());
        }
        match out.get_mut(v.index) {
            Some(slot @ None) => *slot = Some(v.embedding),
            _ => {
                return Err(format!(
                    "a vector at index {} twice or out of range",
                    v.index
                ));
            }
        }
    }
    Ok(out.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_redirect_is_an_error_and_the_key_never_reaches_its_target() {
        use crate::provider_http::tests::{redirect_to, serve};
        let (target, target_heard) =
            serve(|_| b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".to_vec()).await;
        let (url, heard) = serve(redirect_to(target)).await;
        let embedder = Embedder::new(EmbedConfig {
            url: format!("{url}/v1/embeddings"),
            model: "m".into(),
            api_key: ApiKey::from("sk-embed-redirected".to_owned()),
            batch: 8,
            timeout: Duration::from_secs(5),
            cache: None,
        });
        let err = embedder
            .embed(&["def f(): pass".to_owned()])
            .await
            .expect_err("a redirect fails");
        assert!(
            err.contains("HTTP 307") && err.contains("not followed"),
            "{err}"
        );
        assert!(!err.contains("sk-embed-redirected"), "{err}");
        assert!(heard.lock().unwrap()[0].contains("sk-embed-redirected"));
        assert!(
            target_heard.lock().unwrap().is_empty(),
            "the redirect was followed"
        );
    }

    fn table(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_environment_configures_a_service_and_names_what_is_wrong() {
        assert_eq!(read(&table(&[])), Ok(None));
        let config = read(&table(&[
            ("NEXUS_EMBED_URL", "http://127.0.0.1:9/v1/"),
            ("NEXUS_EMBED_MODEL", "nomic"),
            ("NEXUS_EMBED_API_KEY", "sk-secret"),
            ("NEXUS_EMBED_TIMEOUT_MS", "250"),
            ("NEXUS_EMBED_BATCH", "1000"),
            ("NEXUS_EMBED_CACHE", "/tmp/x.sqlite3"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(config.url, "http://127.0.0.1:9/v1/embeddings");
        assert_eq!(
            (config.batch, config.timeout),
            (MAX_TEXTS, Duration::from_millis(250))
        );
        assert_eq!(config.api_key.expose(), "sk-secret");
        assert!(!format!("{config:?}").contains("sk-secret"));
        let err = read(&table(&[("NEXUS_EMBED_URL", "http://x/v1")])).unwrap_err();
        assert!(err.contains("NEXUS_EMBED_MODEL"), "{err}");
        let err = read(&table(&[
            ("NEXUS_EMBED_URL", "file:///etc"),
            ("NEXUS_EMBED_MODEL", "m"),
        ]))
        .unwrap_err();
        assert!(err.contains("http"), "{err}");
        let err = read(&table(&[
            ("NEXUS_EMBED_URL", "http://x/v1/embeddings"),
            ("NEXUS_EMBED_MODEL", "m"),
            ("NEXUS_EMBED_TIMEOUT_MS", "soon"),
        ]))
        .unwrap_err();
        assert!(err.contains("NEXUS_EMBED_TIMEOUT_MS"), "{err}");
    }

    #[test]
    fn answers_are_put_in_input_order_and_garbage_is_named() {
        let body = br#"{"object":"list","model":"m","data":[
            {"object":"embedding","index":1,"embedding":[0.0,1.0]},
            {"object":"embedding","index":0,"embedding":[1.0,0.0]}]}"#;
        assert_eq!(
            decode(body, 2).unwrap(),
            vec![vec![1.0, 0.0], vec![0.0, 1.0]]
        );
        for (body, count, says) in [
            (&b"<html>busy</html>"[..], 1, "not an embeddings list"),
            (br#"{"data":[]}"#, 1, "0 vectors for 1"),
            (
                br#"{"data":[{"index":0,"embedding":[1.0]},{"index":0,"embedding":[2.0]}]}"#,
                2,
                "twice",
            ),
            (
                br#"{"data":[{"index":5,"embedding":[1.0]}]}"#,
                1,
                "out of range",
            ),
            (
                br#"{"data":[{"index":0,"embedding":[1.0]},{"index":1,"embedding":[1.0,2.0]}]}"#,
                2,
                "widths",
            ),
            (br#"{"data":[{"index":0,"embedding":[]}]}"#, 1, "0 values"),
        ] {
            let err = decode(body, count).unwrap_err();
            assert!(err.contains(says), "{err}");
        }
    }

    #[test]
    fn long_texts_are_cut_on_a_character_boundary() {
        let text = "é".repeat(MAX_TEXT_CHARS + 5);
        assert_eq!(cut(&text).chars().count(), MAX_TEXT_CHARS);
        assert_eq!(cut("short"), "short");
    }
}
