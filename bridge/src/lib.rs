//! `nexus-bridge`: the native half of Nexus. With no arguments it is a stdio MCP server that relays
//! tool calls to the Nexus browser tab as hub or peer; `serve` hosts the hub, `status` reports on it.
// Stdout is the MCP channel: nothing may print there but rmcp (and `status`, which serves no MCP).
#![deny(clippy::print_stdout)]

mod breaker;
mod call;
mod chat;
mod cli;
#[cfg(feature = "conformance-fixtures")]
mod conformance;
mod data;
mod deadline;
mod election;
mod embed;
mod gitdiff;
mod guard;
mod health;
mod heartbeat;
mod host;
mod hub;
mod layering;
mod listener;
mod mcp;
mod mcp_http;
mod mcp_tasks;
mod outbox;
mod peer;
mod provider_http;
mod ratelimit;
mod relay;
mod repo;
mod secret;
mod session;
mod settings;
mod sqlite;
mod token;
mod watch;
mod web;

// The conformance fixtures are test code: a release build refuses them.
#[cfg(all(feature = "conformance-fixtures", not(debug_assertions)))]
compile_error!("`conformance-fixtures` is for test builds only (debug profile)");

use std::sync::Arc;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use crate::breaker::Breakers;
use crate::call::CallIds;
use crate::cli::{Cli, Command, ConfigAction, Options};
use crate::hub::Hub;
use crate::relay::{Relay, Route};

/// The whole program (`main.rs`, and the conformance build's `nexus-bridge-conformance`).
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // `serve` is run by a person in a terminal: its start-up is quiet, so the link it prints is
    // the last line they see; agents' bridges keep `info` in their logs. rmcp logs each session's
    // start and end at `info`, which over `/mcp` is every request: only its warnings are kept.
    // NEXUS_LOG overrides.
    let default_level = match cli.command {
        Some(Command::Serve { .. }) => "warn",
        _ => "info,rmcp=warn",
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            EnvFilter::try_from_env("NEXUS_LOG").unwrap_or_else(|_| EnvFilter::new(default_level)),
        )
        .init();
    // Hosted servers on https:// need a TLS provider before the first HTTP client is built.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("nexus-bridge: cannot start the async runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(cli));
    // Do not wait for the hub's sockets: the process is ending and peers take over.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("nexus-bridge: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), String> {
    if let Some(Command::Config { action }) = &cli.command {
        return config_command(&cli, action);
    }
    let options = cli.options();
    if let Err(err) = options.settings.as_ref() {
        tracing::warn!(
            "{err}; using the environment and the defaults (`nexus-bridge config check` checks the file)"
        );
    }
    match data::tighten() {
        Ok(0) => {}
        Ok(count) => tracing::info!(count, "made the data folder's files private (0600/0700)"),
        Err(err) => tracing::warn!("cannot make the data folder private: {err}"),
    }
    match cli.command {
        Some(Command::Serve { open }) => serve(options, open).await,
        Some(Command::Status { link }) => {
            // The program on the port proves it is this user's hub before anything is printed.
            let report = health::status(options.port).await?;
            if link {
                let secret = secret::path().and_then(|path| secret::read(&path))?;
                print_output(&secret::url(options.port, &secret));
            } else {
                print_output(&serde_json::to_string_pretty(&report).unwrap_or_default());
                eprintln!(
                    "Nexus: `{}` prints the link that opens the UI",
                    secret::link_command(options.port)
                );
            }
            Ok(())
        }
        Some(Command::Config { .. }) => Ok(()),
        Some(Command::AnalyzeTools { tools, store }) => {
            let lookup = |name: &str| std::env::var(name).ok();
            let live = match options.settings.as_ref() {
                Ok(loaded) => chat::Live::read(loaded, &lookup),
                Err(err) => chat::Live::unreadable(err, &lookup),
            };
            let summary = chat::analyze::analyze_tools_command(&tools, &store, live.setup).await?;
            print_output(&summary);
            Ok(())
        }
        None => serve_mcp(options).await,
    }
}

/// `config path` and `config check`: no hub, no data folder touched.
fn config_command(cli: &Cli, action: &ConfigAction) -> Result<(), String> {
    let path = cli.config_path();
    match action {
        ConfigAction::Path => {
            print_output(&path.display().to_string());
            Ok(())
        }
        ConfigAction::Check => {
            if cli.config.is_some() && !path.exists() {
                return Err(format!("{}: no such file", path.display()));
            }
            let loaded = settings::load(&path);
            let report = settings::check::report(&loaded, &|name| std::env::var(name).ok())?;
            print_output(report.trim_end());
            Ok(())
        }
    }
}

/// The configuration file's per-tool call limits, as read at start (the hub's watch replaces them).
fn set_rate_limits(host: &host::Host, options: &Options) {
    if let Ok(loaded) = options.settings.as_ref() {
        host.set_rate_limits(loaded.quotas.clone());
    }
}

/// Prints `status`'s report or link, `config`'s answer or `analyze-tools`' summary: the only
/// output on stdout that is not MCP (none of them serves MCP).
#[allow(
    clippy::print_stdout,
    reason = "`status`, `config` and `analyze-tools` serve no MCP: their report is their output"
)]
fn print_output(text: &str) {
    println!("{text}");
}

/// `serve`: always the hub; a taken port is an error. `open` opens the link in a browser.
async fn serve(options: Options, open: bool) -> Result<(), String> {
    let listener = web::bind(options.port).await.map_err(|err| {
        format!(
            "cannot listen on 127.0.0.1:{}: {err} (is another nexus-bridge running? `nexus-bridge status` tells; or use --port)",
            options.port
        )
    })?;
    if open {
        open_in_browser(options.port);
    }
    let hub = Arc::new(Hub::new(Arc::new(CallIds::new()), options.port));
    let relay = Arc::new(Relay::new(
        hub.clone(),
        options.deadlines,
        Breakers::default(),
        options.port,
    ));
    relay.set_route(Route::Hub);
    let host = host::Host::new(
        relay.clone(),
        host::config::read(options.mcp_config.as_deref()),
        options.expose_hosted,
    );
    set_rate_limits(&host, &options);
    host.start();
    let mcp = web::McpParts {
        relay,
        host: host.clone(),
    };
    let result = tokio::select! {
        result = web::host(listener, mcp, &options, web::Link::Print) => result,
        signal = stop_signal() => {
            tracing::info!(signal, "stopping the hub");
            Ok(())
        }
    };
    host.shutdown();
    remove_token_file(options.port);
    result
}

/// No command: MCP on stdio, and hub or peer for the life of the process.
async fn serve_mcp(options: Options) -> Result<(), String> {
    let ids = Arc::new(CallIds::new());
    let hub = Arc::new(Hub::new(ids.clone(), options.port));
    let relay = Arc::new(Relay::new(
        hub,
        options.deadlines,
        Breakers::default(),
        options.port,
    ));
    let host = host::Host::new(
        relay.clone(),
        host::config::read(options.mcp_config.as_deref()),
        options.expose_hosted,
    );
    set_rate_limits(&host, &options);
    let service = mcp::start(relay.clone(), host.clone()).await?;
    let agent = service
        .peer()
        .peer_info()
        .map(|info| info.client_info.name.clone())
        .unwrap_or_else(|| "agent".into());
    let election = tokio::spawn(election::run(
        relay.clone(),
        options.clone(),
        agent,
        ids,
        host.clone(),
    ));
    let result = tokio::select! {
        result = service.waiting() => result
            .map(|_| ())
            .map_err(|err| format!("MCP service stopped: {err}")),
        signal = stop_signal() => {
            tracing::info!(signal, "stopping");
            Ok(())
        }
    };
    // Still holding the port here, so the token file cannot be a newer hub's yet.
    if matches!(relay.route(), Route::Hub) {
        remove_token_file(options.port);
    }
    election.abort();
    host.shutdown();
    result
}

/// Opens the link with the browser's secret in the user's default browser (creating the secret
/// first if this is the first run) through a private redirect file, as Jupyter does: the opener's
/// command line (readable by every user in /proc) names only the file. Failure is only reported.
fn open_in_browser(port: u16) {
    let file = secret::path()
        .and_then(|path| secret::load_or_create(&path))
        .and_then(|token| secret::redirect_file(port, &secret::url(port, &token)));
    let file = match file {
        Ok(file) => file,
        Err(err) => {
            eprintln!("nexus-bridge: cannot open the browser: {err}");
            return;
        }
    };
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(&file)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(err) = spawned {
        eprintln!("nexus-bridge: cannot run {opener} to open the browser: {err}");
    }
}

/// Waits for Ctrl-C, SIGTERM or SIGHUP (what `kill`, a closing terminal and service managers
/// send), so the hub removes its file before it exits; names the signal.
async fn stop_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) {
        (Ok(mut term), Ok(mut hup)) => tokio::select! {
            _ = tokio::signal::ctrl_c() => "SIGINT",
            _ = term.recv() => "SIGTERM",
            _ = hup.recv() => "SIGHUP",
        },
        _ => {
            let _ = tokio::signal::ctrl_c().await;
            "SIGINT"
        }
    }
}

fn remove_token_file(port: u16) {
    if let Ok(path) = token::path(port) {
        token::remove_if_ours(&path, port);
    }
}
