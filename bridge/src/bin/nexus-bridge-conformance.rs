//! `nexus-bridge-conformance`: the bridge with the MCP conformance suite's fixture tools, prompts
//! and resources (`conformance.rs`); built only with `--features conformance-fixtures`, for tests.
#![deny(clippy::print_stdout)]

fn main() -> std::process::ExitCode {
    nexus_bridge::main()
}
