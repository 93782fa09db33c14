//! `nexus-bridge`: the native half of Nexus. With no arguments it is a stdio MCP server that relays
//! tool calls to the Nexus browser tab; `serve` runs the hub and the UI for people.

mod cli;
mod hub;
mod mcp;
mod session;
mod web;

use std::sync::Arc;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use crate::cli::{Cli, Command};
use crate::hub::Hub;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            EnvFilter::try_from_env("NEXUS_LOG").unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("nexus-bridge: cannot start the async runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(cli));
    // Do not wait for the hub's sockets: the process is ending and peers reconnect elsewhere.
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
    let options = cli.options();
    let hub = Arc::new(Hub::new(options.call_timeout, options.port));
    match cli.command {
        Some(Command::Serve) => {
            let listener = web::bind(options.port).await.map_err(|err| {
                format!(
                    "cannot listen on 127.0.0.1:{}: {err} (is another nexus-bridge running? use --port)",
                    options.port
                )
            })?;
            let url = format!("http://127.0.0.1:{}/", options.port);
            eprintln!("Nexus is running: open {url}");
            let server = tokio::spawn(web::serve(listener, hub, options));
            tokio::select! {
                result = server => result.map_err(|err| err.to_string())?.map_err(|err| err.to_string()),
                _ = tokio::signal::ctrl_c() => Ok(()),
            }
        }
        None => {
            match web::bind(options.port).await {
                Ok(listener) => {
                    tracing::info!(
                        port = options.port,
                        "hub listening; UI at http://127.0.0.1:{}/",
                        options.port
                    );
                    let hub = hub.clone();
                    let options = options.clone();
                    tokio::spawn(async move {
                        if let Err(err) = web::serve(listener, hub, options).await {
                            tracing::error!("hub stopped: {err}");
                        }
                    });
                }
                Err(err) => {
                    tracing::warn!(
                        port = options.port,
                        "cannot listen ({err}); tool calls will report that no browser is connected"
                    );
                    hub.set_unavailable(format!(
                        "port {} is in use by another process, so this bridge cannot reach the browser",
                        options.port
                    ));
                }
            }
            mcp::serve_stdio(hub).await
        }
    }
}
