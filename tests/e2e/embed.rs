//! Provider embeddings through the real bridge: `/api/embed` relays to `llm-sim`'s OpenAI
//! `/v1/embeddings`, caches by model and text, needs the browser secret, and names each failure.

use std::process::Stdio;
use std::time::{Duration, Instant};

use nexus_e2e::{Area, TempDir, bridge_command, browser_secret, free_port, wait_port_open};
use serde_json::{Value, json};
use tokio::process::Child;

use crate::chat::Sim;

const KEY: &str = "sk-embed-never-show-this-0123456789";

/// `nexus-bridge serve` with an embeddings provider at the simulator; its log in `dir/bridge.log`.
struct EmbedBridge {
    _child: Child,
    port: u16,
    dir: TempDir,
}

impl EmbedBridge {
    fn start(sim: &Sim, model: &str, timeout_ms: &str) -> EmbedBridge {
        let dir = TempDir::new("embed");
        let port = free_port();
        let log = std::fs::File::create(dir.0.join("bridge.log")).expect("log file");
        let child = bridge_command()
            .args(["serve", "--port", &port.to_string()])
            .env("NEXUS_CHAT_DB", dir.0.join("chat.sqlite3"))
            .env(
                "NEXUS_EMBED_URL",
                format!("http://127.0.0.1:{}/v1", sim.port),
            )
            .env("NEXUS_EMBED_MODEL", model)
            .env("NEXUS_EMBED_API_KEY", KEY)
            .env("NEXUS_EMBED_TIMEOUT_MS", timeout_ms)
            .env("NEXUS_EMBED_CACHE", dir.0.join("embeddings.sqlite3"))
            .env("RUST_LOG", "debug")
            .stdout(Stdio::null())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .expect("spawn nexus-bridge serve");
        EmbedBridge {
            _child: child,
            port,
            dir,
        }
    }

    async fn ready(self) -> EmbedBridge {
        wait_port_open(self.port, Duration::from_secs(10)).await;
        self
    }

    /// This hub run's api token (a tab's handshake gets it).
    async fn api_token(&self) -> String {
        nexus_e2e::proof::api_token(self.port).await
    }

    /// POSTs `texts` to `/api/embed` (with the api token unless `secret` is false).
    async fn embed(&self, texts: &[&str], secret: bool) -> (u16, Value) {
        let mut request = http_client()
            .post(format!("http://127.0.0.1:{}/api/embed", self.port))
            .header("Content-Type", "application/json")
            .body(json!({ "texts": texts }).to_string());
        if secret {
            request = request.header("X-Nexus-Token", self.api_token().await);
        }
        let response = request.send().await.expect("POST /api/embed");
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        (
            status,
            serde_json::from_str(&body).unwrap_or(Value::String(body)),
        )
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.0.join("bridge.log")).unwrap_or_default()
    }
}

async fn sim_requests(sim: &Sim) -> Vec<u64> {
    let text = http_client()
        .get(format!("http://127.0.0.1:{}/embeddings-log", sim.port))
        .send()
        .await
        .expect("GET /embeddings-log")
        .text()
        .await
        .unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_default()
}

/// A plain HTTP client; reqwest's TLS backend needs a crypto provider installed before a client
/// is built, even for plain HTTP (as in the bridge).
fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_vectors_are_relayed_cached_and_guarded() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let bridge = EmbedBridge::start(&sim, "sim-embed", "5000").ready().await;
    let get_info = |token: String| {
        http_client()
            .get(format!("http://127.0.0.1:{}/api/embed", bridge.port))
            .header("X-Nexus-Token", token)
            .send()
    };
    let info = get_info(bridge.api_token().await)
        .await
        .expect("GET /api/embed")
        .text()
        .await
        .unwrap_or_default();
    assert_eq!(info, r#"{"model":"sim-embed"}"#);
    // The browser secret itself opens no `/api/*` route: only this hub run's api token does.
    let with_secret = get_info(browser_secret()).await.expect("GET /api/embed");
    assert_eq!(with_secret.status().as_u16(), 401);

    let texts = [
        "def hash_password(raw)",
        "def paginate(items)",
        "def hash_password(raw)",
    ];
    let (status, first) = bridge.embed(&texts, true).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(
        (first["model"].as_str(), first["dims"].as_u64()),
        (Some("sim-embed"), Some(64))
    );
    let vectors = first["vectors"].as_array().expect("vectors");
    assert_eq!(vectors.len(), 3);
    assert_eq!(vectors[0], vectors[2]);
    assert_ne!(vectors[0], vectors[1]);
    assert_eq!(sim_requests(&sim).await, vec![3]);

    // The same texts again come from the cache: the provider is not asked.
    let (status, again) = bridge.embed(&texts, true).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(
        (again["vectors"].clone(), again["cached"].as_u64()),
        (first["vectors"].clone(), Some(3))
    );
    assert_eq!(sim_requests(&sim).await, vec![3]);

    let (status, _) = bridge.embed(&texts, false).await;
    assert_eq!(status, 401);
    let too_many: Vec<&str> = vec!["x"; 257];
    assert_eq!(bridge.embed(&too_many, true).await.0, 400);
    assert!(
        !info.contains(KEY) && !bridge.log().contains(KEY),
        "{}",
        bridge.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_that_hangs_fails_or_answers_garbage_is_a_clear_error() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    for (model, says) in [
        ("sim-hang", "did not answer within 500 ms"),
        ("sim-500", "answered HTTP 500: overloaded"),
        ("sim-garbage", "is not an embeddings list"),
        ("sim-short", "1 vectors for 2 texts"),
    ] {
        let bridge = EmbedBridge::start(&sim, model, "500").ready().await;
        let started = Instant::now();
        let (status, answer) = bridge.embed(&["def a()", "def b()"], true).await;
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{model}: {:?}",
            started.elapsed()
        );
        assert_eq!(status, 502, "{model}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(says) && error.contains(model),
            "{model}: {error}"
        );
        assert!(
            !error.contains(KEY) && !bridge.log().contains(KEY),
            "{model}"
        );
    }
}

/// The tab (headless Chromium, `js/browser-bench.mjs`) with a bridge whose provider is `model`.
fn tab_with_provider(sim: &Sim, model: &str, query: &str) -> String {
    let url = format!("http://127.0.0.1:{}/v1", sim.port);
    let cache = TempDir::new("embed-tab");
    let cache = cache.0.join("embeddings.sqlite3");
    let cache = cache.display().to_string();
    nexus_e2e::run_js_on_sample_with_env(
        "browser-bench.mjs",
        &[
            "--reloads".as_ref(),
            "1".as_ref(),
            "--check".as_ref(),
            "--semantic".as_ref(),
            query.as_ref(),
        ],
        &[
            ("NEXUS_EMBED_URL", &url),
            ("NEXUS_EMBED_MODEL", model),
            ("NEXUS_EMBED_API_KEY", KEY),
            ("NEXUS_EMBED_TIMEOUT_MS", "2000"),
            ("NEXUS_EMBED_CACHE", &cache),
        ],
    )
}

#[test]
fn the_tab_searches_by_provider_vectors_and_keeps_its_own_model_when_the_provider_fails() {
    let _area = Area::enter(module_path!());
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let sim = runtime.block_on(Sim::start());
    let stdout = tab_with_provider(&sim, "sim-embed", "charge the card");
    assert!(
        stdout.contains("embedded by provider:sim-embed"),
        "{stdout}"
    );
    assert!(stdout.contains("shop/payment.py:charge"), "{stdout}");
    assert!(
        stdout.contains("vectors by provider:sim-embed restored with the snapshot"),
        "{stdout}"
    );
    assert!(!runtime.block_on(sim_requests(&sim)).is_empty());
    for failing in ["sim-500", "sim-hang"] {
        let stdout = tab_with_provider(&sim, failing, "take money from a credit card");
        assert!(
            stdout.contains("embedded by built-in:"),
            "{failing}: {stdout}"
        );
        assert!(stdout.contains("shop/payment.py"), "{failing}: {stdout}");
        assert!(!stdout.contains(KEY), "{failing}");
    }
}
