//! The crate graph states the layering: `nexus-engine` and `nexus-tools` are plain libraries
//! that never pull the browser stack (Leptos, web-sys, js-sys, wasm-bindgen, gloo) in, and the
//! tool compiler `nexus-jit` stands on `nexus-shared` and `nexus-embed` alone among Nexus's
//! crates, without tokio; the bridge reaches the embedding model through it, never tree-sitter.

use std::process::Command;

/// Crates of the browser stack no library below `nexus-web` may depend on.
const BROWSER_STACK: [&str; 5] = ["leptos", "web-sys", "js-sys", "wasm-bindgen", "gloo"];

/// The one way js-sys and wasm-bindgen may enter on wasm32: `getrandom`'s browser backend
/// (randomness for Leiden's refinement and ZIP), which has no other source there.
const WASM_RANDOMNESS: &str = "getrandom";

/// Names of the crates in `cargo tree` of `package`'s normal dependencies, `args` added.
fn tree(package: &str, args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(nexus_e2e::workspace_root())
        .args([
            "tree",
            "--locked",
            "--offline",
            "-e",
            "normal",
            "-p",
            package,
        ])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The crate names in `cargo tree --prefix none` output (`name vX.Y.Z …` per line).
fn crate_names(tree: &str) -> Vec<&str> {
    tree.lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect()
}

fn is_browser_stack(name: &str) -> bool {
    BROWSER_STACK
        .iter()
        .any(|banned| name == *banned || name.starts_with(&format!("{banned}-")))
}

#[test]
fn engine_and_tools_build_natively_without_the_browser_stack() {
    for package in ["nexus-engine", "nexus-tools"] {
        let listing = tree(package, &["--prefix", "none"]);
        let banned: Vec<_> = crate_names(&listing)
            .into_iter()
            .filter(|name| is_browser_stack(name))
            .collect();
        assert!(banned.is_empty(), "{package} depends on {banned:?}");
    }
}

#[test]
fn the_tool_compiler_needs_no_runtime_graph_or_bridge() {
    let listing = tree("nexus-jit", &["--prefix", "none"]);
    let names = crate_names(&listing);
    assert!(names.contains(&"nexus-shared"), "{listing}");
    assert!(names.contains(&"nexus-embed"), "{listing}");
    let banned = [
        "tokio",
        "nexus-engine",
        "nexus-tools",
        "nexus-bridge",
        "nexus-web",
    ];
    for name in names {
        assert!(
            !banned.contains(&name) && !is_browser_stack(name),
            "nexus-jit depends on {name}"
        );
    }
}

#[test]
fn the_bridge_and_the_embedding_model_stay_free_of_the_engine() {
    for package in ["nexus-bridge", "nexus-embed"] {
        let listing = tree(package, &["--prefix", "none"]);
        let names = crate_names(&listing);
        for banned in ["nexus-engine", "nexus-tools", "tree-sitter"] {
            assert!(!names.contains(&banned), "{package} depends on {banned}");
        }
    }
    let engine = tree("nexus-engine", &["--prefix", "none"]);
    assert!(crate_names(&engine).contains(&"nexus-embed"), "{engine}");
}

#[test]
fn on_wasm32_only_getrandom_reaches_the_browser_stack() {
    for package in ["nexus-engine", "nexus-tools"] {
        let target = ["--target", "wasm32-unknown-unknown"];
        let listing = tree(package, &[&target[..], &["--prefix", "none"]].concat());
        for name in crate_names(&listing) {
            if !is_browser_stack(name) {
                continue;
            }
            assert!(
                name == "js-sys" || name.starts_with("wasm-bindgen"),
                "{package} depends on {name} on wasm32"
            );
        }
        for entry in ["js-sys", "wasm-bindgen"] {
            let parents = tree(
                package,
                &[
                    &target[..],
                    &["--invert", entry, "--depth", "1", "--prefix", "none"],
                ]
                .concat(),
            );
            for parent in crate_names(&parents).into_iter().skip(1) {
                assert!(
                    parent == WASM_RANDOMNESS || is_browser_stack(parent),
                    "{package} reaches {entry} through {parent} on wasm32"
                );
            }
        }
    }
}
