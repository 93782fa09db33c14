//! `nexus-bridge`: the program is the library's `main` (`lib.rs`), so the conformance build
//! (`src/bin/nexus-bridge-conformance.rs`) runs the same code with its fixtures compiled in.
#![deny(clippy::print_stdout)]

fn main() -> std::process::ExitCode {
    nexus_bridge::main()
}
