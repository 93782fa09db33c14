//! Harness for the end-to-end tests: finds the built binaries and UI, picks free ports, starts
//! the real bridge under a real MCP client, and opens the UI in real headless Chromium.

pub mod proof;
pub mod scenarios;
pub mod tab;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ProgressNotificationParam, ReadResourceRequestParams,
    ResourceContents,
};
use rmcp::service::{NotificationContext, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::process::{Child, Command};

/// The area whose tests run now and how many of them, and the signal that it changed.
static TURN: Mutex<(Option<&str>, usize)> = Mutex::new((None, 0));
static TURN_CHANGED: Condvar = Condvar::new();

/// A test's place in its area's turn. Areas (modules of the `e2e` binary) take turns: tests of
/// one area run together, as when each area was its own binary, never beside another area's
/// bridges and browsers, which would share the machine's few cores with them.
pub struct Area {
    _private: (),
}

impl Area {
    /// Waits until no other area's tests run, then joins `area`'s turn until dropped.
    pub fn enter(area: &'static str) -> Area {
        let mut turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
        while turn.0.is_some_and(|current| current != area) {
            turn = TURN_CHANGED
                .wait(turn)
                .unwrap_or_else(PoisonError::into_inner);
        }
        turn.0 = Some(area);
        turn.1 += 1;
        Area { _private: () }
    }
}

impl Drop for Area {
    fn drop(&mut self) {
        let mut turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
        turn.1 -= 1;
        if turn.1 == 0 {
            turn.0 = None;
            TURN_CHANGED.notify_all();
        }
    }
}

/// The workspace root (this crate lives in `tests/`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The `nexus-bridge` binary: `$NEXUS_BRIDGE_BIN`, else `target/debug/nexus-bridge`.
pub fn bridge_bin() -> PathBuf {
    let path = std::env::var_os("NEXUS_BRIDGE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/debug/nexus-bridge"));
    assert!(
        path.is_file(),
        "{} is missing: run `cargo build -p nexus-bridge` first (scripts/test.sh does)",
        path.display()
    );
    path
}

/// The built web UI: `$NEXUS_UI_DIR`, else `dist/`.
pub fn ui_dir() -> PathBuf {
    let dir = std::env::var_os("NEXUS_UI_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("dist"));
    assert!(
        dir.join("index.html").is_file(),
        "{} has no index.html: run `trunk build` first (scripts/test.sh does)",
        dir.display()
    );
    dir
}

/// The private runtime directory every bridge started by the tests gets as `XDG_RUNTIME_DIR`,
/// so hub token files stay out of the user's own directories.
pub fn runtime_dir() -> PathBuf {
    use std::os::unix::fs::DirBuilderExt;
    let dir = std::env::temp_dir().join("nexus-e2e-runtime");
    let _ = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir);
    dir
}

/// The hub token file for `port`, as the bridges started by the tests write it.
pub fn token_file(port: u16) -> PathBuf {
    runtime_dir().join(format!("nexus/hub-{port}.json"))
}

/// The token of the hub on `port`, read from its file. The hub writes the file just after it
/// binds the port, so a test that saw the port open may have to wait a moment for it.
pub fn hub_token(port: u16) -> String {
    let path = token_file(port);
    let started = Instant::now();
    let text = loop {
        match std::fs::read_to_string(&path) {
            Ok(text) if !text.is_empty() => break text,
            _ if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Ok(_) => panic!("the hub's token file {} stayed empty", path.display()),
            Err(err) => panic!("read the hub's token file {}: {err}", path.display()),
        }
    };
    let value: serde_json::Value = serde_json::from_str(&text).expect("token file is JSON");
    value["token"].as_str().expect("token field").to_owned()
}

/// The browser's secret the hubs started by the tests share (created by the first one).
pub fn browser_secret() -> String {
    let path = runtime_dir().join("nexus/browser-token");
    let started = Instant::now();
    loop {
        match std::fs::read_to_string(&path) {
            Ok(text) if text.trim().len() == 64 => return text.trim().to_owned(),
            _ if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            other => panic!("no browser secret in {}: {other:?}", path.display()),
        }
    }
}

/// The link a hub prints: the UI on `port` with the browser's secret.
pub fn ui_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/?token={}", browser_secret())
}

/// A `nexus-bridge` command with the test environment: UI, runtime dir, logs at `info`.
pub fn bridge_command() -> Command {
    bridge_command_of(&bridge_bin())
}

/// `bridge_command` for another build of the bridge (`nexus-bridge-conformance`).
pub fn bridge_command_of(bin: &Path) -> Command {
    let mut command = Command::new(bin);
    command
        .env("NEXUS_UI_DIR", ui_dir())
        .env("XDG_RUNTIME_DIR", runtime_dir())
        // The user's own nexus.toml (a provider, rate limits) never changes what a test sees.
        .env("NEXUS_CONFIG", runtime_dir().join("no-nexus.toml"))
        .env("NEXUS_LOG", "info");
    command
}

/// `command` run through `sh` under `umask MASK` (program, arguments, environment and folder
/// kept; set stdio and `kill_on_drop` on the result). `exec` keeps the process id.
pub fn under_umask(command: &Command, mask: &str) -> Command {
    let std = command.as_std();
    let mut wrapped = Command::new("sh");
    wrapped
        .arg("-c")
        .arg(format!("umask {mask} && exec \"$0\" \"$@\""))
        .arg(std.get_program())
        .args(std.get_args());
    for (name, value) in std.get_envs() {
        match value {
            Some(value) => wrapped.env(name, value),
            None => wrapped.env_remove(name),
        };
    }
    if let Some(dir) = std.get_current_dir() {
        wrapped.current_dir(dir);
    }
    wrapped
}

/// A port nobody listens on right now.
/// Runs one of the `tests/js` scripts against the sample repository, the built UI and the bridge
/// on a free port, plus `extra` arguments; panics unless it exits 0. Returns its stdout.
pub fn run_js_on_sample(script: &str, extra: &[&std::ffi::OsStr]) -> String {
    run_js_on_sample_with_env(script, extra, &[])
}

/// [`run_js_on_sample`] with extra environment variables (the bridge it starts inherits them).
pub fn run_js_on_sample_with_env(
    script: &str,
    extra: &[&std::ffi::OsStr],
    env: &[(&str, &str)],
) -> String {
    let root = workspace_root();
    let output = std::process::Command::new("node")
        // The bridges the script starts never read the user's own nexus.toml.
        .env("NEXUS_CONFIG", runtime_dir().join("no-nexus.toml"))
        .envs(env.iter().copied())
        .arg(root.join("tests/js").join(script))
        .arg("--repo")
        .arg(root.join("examples/sample-shop"))
        .arg("--ui")
        .arg(ui_dir())
        .arg("--bridge")
        .arg(bridge_bin())
        .arg("--port")
        .arg(free_port().to_string())
        .args(extra)
        .output()
        .expect("node runs (scripts/setup.sh installs it)");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    stdout
}

/// A port that is free now and that no other caller in this process was given. It lies outside
/// the kernel's ephemeral range, so no test's outgoing socket (nor a port-0 bind) can take it
/// between this call and the hub's bind: a taken port makes the new `serve` a peer of another
/// test's hub, and the test then talks to the wrong hub.
pub fn free_port() -> u16 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let (first, count) = ports_outside_ephemeral_range();
    let offset = std::process::id() % count;
    for _ in 0..count {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let port = (first + (offset + n) % count) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in {first}..{}", first + count)
}

/// The first port and the number of ports of a range the kernel does not hand out on its own.
fn ports_outside_ephemeral_range() -> (u32, u32) {
    let (low, high) = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| {
            let mut parts = text.split_whitespace().map(str::parse::<u32>);
            Some((parts.next()?.ok()?, parts.next()?.ok()?))
        })
        .unwrap_or((32_768, 60_999));
    if low >= 12_000 {
        (10_000, low - 10_000)
    } else if high <= 63_000 {
        (high + 1, 65_535 - high)
    } else {
        (10_000, 2_000)
    }
}

/// Waits until nothing accepts connections on `port` (a stopped hub released it).
pub async fn wait_port_free(port: u16, within: Duration) {
    let started = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_ok()
    {
        assert!(
            started.elapsed() < within,
            "port {port} still busy after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until something accepts connections on `port`.
pub async fn wait_port_open(port: u16, within: Duration) {
    let started = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            started.elapsed() < within,
            "nothing listens on {port} after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// An MCP client that keeps every progress notification it receives.
#[derive(Clone, Default)]
pub struct ProgressLog(pub Arc<Mutex<Vec<ProgressNotificationParam>>>);

impl ProgressLog {
    pub fn take(&self) -> Vec<ProgressNotificationParam> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl ClientHandler for ProgressLog {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(params);
    }
}

/// `nexus-bridge` started as an MCP server by rmcp's client over stdio, as agents start it.
pub struct McpBridge {
    pub client: RunningService<RoleClient, ProgressLog>,
    pub port: u16,
    pub pid: u32,
    pub progress: ProgressLog,
}

impl McpBridge {
    /// Starts a bridge and waits until the port is served (by it, or by the hub it joins).
    pub async fn start(port: u16) -> McpBridge {
        Self::start_with(port, &[]).await
    }

    /// Starts a bridge with extra arguments (e.g. `--heartbeat-ms 200`).
    pub async fn start_with(port: u16, args: &[&str]) -> McpBridge {
        Self::start_with_env(port, args, &[]).await
    }

    /// Starts a bridge with extra arguments and environment variables (e.g. its data folder).
    pub async fn start_with_env(port: u16, args: &[&str], env: &[(&str, &str)]) -> McpBridge {
        let mut command = bridge_command();
        command.args(args).envs(env.iter().copied());
        Self::start_command(command, port).await
    }

    /// Starts `command` (a bridge command with its arguments) on `port`.
    pub async fn start_command(mut command: Command, port: u16) -> McpBridge {
        command.arg("--port").arg(port.to_string());
        let (transport, _stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn nexus-bridge");
        let pid = transport.id().expect("bridge pid");
        let progress = ProgressLog::default();
        let client = progress
            .clone()
            .serve(transport)
            .await
            .expect("MCP initialize");
        wait_port_open(port, Duration::from_secs(10)).await;
        McpBridge {
            client,
            port,
            pid,
            progress,
        }
    }

    pub async fn call(&self, tool: &str, args: serde_json::Value) -> CallToolResult {
        self.try_call(tool, args).await.expect("tools/call")
    }

    /// A call that reports a dead bridge as an error instead of panicking.
    pub async fn try_call(
        &self,
        tool: &str,
        args: serde_json::Value,
    ) -> Result<CallToolResult, ServiceError> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let serde_json::Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        self.client.call_tool(params).await
    }

    /// The `nexus://health` resource of this bridge.
    pub async fn health(&self) -> serde_json::Value {
        let result = self
            .client
            .read_resource(ReadResourceRequestParams::new("nexus://health"))
            .await
            .expect("resources/read");
        let text = match result.contents.first() {
            Some(ResourceContents::TextResourceContents { text, .. }) => text.clone(),
            other => panic!("health is not text: {other:?}"),
        };
        serde_json::from_str(&text).expect("health is JSON")
    }

    /// Waits until this bridge reports `mode` in its health.
    pub async fn wait_mode(&self, mode: &str, within: Duration) -> serde_json::Value {
        let started = Instant::now();
        loop {
            let health = self.health().await;
            if health["mode"] == mode {
                return health;
            }
            assert!(
                started.elapsed() < within,
                "bridge {} still {} after {within:?}",
                self.pid,
                health["mode"]
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Closes the bridge's stdin, as an agent that quits does, and waits for the process to end.
    pub async fn quit(&self) {
        self.client.cancellation_token().cancel();
        let started = Instant::now();
        while !process_gone(self.pid) {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "bridge {} did not exit",
                self.pid
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Kills the bridge process at once (SIGKILL), as a crash would.
    pub fn kill(&self) {
        let status = std::process::Command::new("kill")
            .args(["-9", &self.pid.to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -9 {} failed", self.pid);
    }

    /// Calls until the tool answers without error (the tab may still be loading), or panics.
    pub async fn call_until_ok(
        &self,
        tool: &str,
        args: serde_json::Value,
        within: Duration,
    ) -> String {
        let started = Instant::now();
        loop {
            let result = self.call(tool, args.clone()).await;
            if result.is_error != Some(true) {
                return text_of(&result);
            }
            assert!(
                started.elapsed() < within,
                "`{tool}` still failing after {within:?}: {}",
                text_of(&result)
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Stops the bridge the way an agent does: closes stdin and waits for the process to end.
    pub async fn stop(self) {
        let port = self.port;
        let _ = self.client.cancel().await;
        wait_port_free(port, Duration::from_secs(10)).await;
    }
}

/// True once `pid` has exited (it may linger as a zombie until reaped).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// All text content of a tool result, joined.
pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Debian's Chromium, headless, with a throw-away profile; killed on drop.
pub struct Browser {
    child: Child,
    _profile: TempDir,
}

impl Browser {
    pub fn open(url: &str) -> Browser {
        let profile = TempDir::new("chromium-profile");
        let chromium = std::env::var("CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let child = Command::new(&chromium)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.0.display()))
            .arg(url)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|err| {
                panic!("cannot start {chromium}: {err} (scripts/setup.sh installs it)")
            });
        Browser {
            child,
            _profile: profile,
        }
    }

    /// Kills the browser and waits until it is gone.
    pub async fn close(mut self) {
        let _ = self.child.kill().await;
    }
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let dir =
            std::env::temp_dir().join(format!("nexus-{label}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `nexus-bridge serve` as a plain child process (hub and UI, no MCP); killed on drop.
pub struct ServeProcess {
    child: Child,
    pub port: u16,
}

impl ServeProcess {
    pub async fn start(port: u16) -> ServeProcess {
        Self::start_with(port, &[]).await
    }

    /// `serve` with extra arguments (e.g. `--heartbeat-ms 200`).
    pub async fn start_with(port: u16, args: &[&str]) -> ServeProcess {
        let child = bridge_command()
            .args(["serve", "--port", &port.to_string()])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn nexus-bridge serve");
        wait_port_open(port, Duration::from_secs(10)).await;
        ServeProcess { child, port }
    }

    /// True while the process has not exited.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}
