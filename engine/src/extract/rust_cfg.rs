//! Rust `cfg` predicates evaluated as a type checker configures a crate: every feature on, tests
//! off, a 64-bit Linux host, rust-analyzer's default cfgs on and custom `--cfg` flags off.

use super::split_outside_brackets;

/// Whether `cfg(predicate)` holds: `None` when it names something the configuration leaves
/// open (an architecture, a vendor, a predicate not understood).
pub fn holds(predicate: &str) -> Option<bool> {
    let p = predicate.trim();
    if let Some(inner) = call_of(p, "not") {
        return holds(inner).map(|h| !h);
    }
    if let Some(inner) = call_of(p, "all") {
        // Three-valued: one false part decides, else any open part leaves it open.
        let mut open = false;
        for part in split_outside_brackets(inner, ',') {
            match holds(part) {
                Some(false) => return Some(false),
                None => open = true,
                Some(true) => {}
            }
        }
        return (!open).then_some(true);
    }
    if let Some(inner) = call_of(p, "any") {
        let mut open = false;
        for part in split_outside_brackets(inner, ',') {
            match holds(part) {
                Some(true) => return Some(true),
                None => open = true,
                Some(false) => {}
            }
        }
        return (!open).then_some(false);
    }
    match p.split_once('=') {
        Some((key, value)) => key_value(key.trim(), value.trim().trim_matches('"')),
        None => flag(p),
    }
}

/// `name(inner)` → `inner`.
fn call_of<'p>(predicate: &'p str, name: &str) -> Option<&'p str> {
    predicate
        .strip_prefix(name)?
        .trim_start()
        .strip_prefix('(')?
        .strip_suffix(')')
}

/// A bare flag: the host's family and rust-analyzer's defaults (`debug_assertions`, `miri`) are
/// on; tests, documentation builds and any custom flag (set only by `--cfg`) are off.
fn flag(name: &str) -> Option<bool> {
    match name {
        "unix" | "debug_assertions" | "miri" | "target_thread_local" => Some(true),
        "" => None,
        _ if name.chars().all(|c| c.is_alphanumeric() || c == '_') => Some(false),
        _ => None,
    }
}

/// `key = "value"`: every feature is on; the host is a 64-bit Linux that unwinds on panic.
fn key_value(key: &str, value: &str) -> Option<bool> {
    match key {
        "feature" => Some(true),
        "target_os" => Some(value == "linux"),
        "target_family" => Some(value == "unix"),
        "target_pointer_width" => Some(value == "64"),
        "target_has_atomic" => Some(matches!(value, "8" | "16" | "32" | "64" | "ptr")),
        "panic" => Some(value == "unwind"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::holds;

    #[test]
    fn predicates_hold_as_a_type_checker_configures_the_crate() {
        for (predicate, expected) in [
            ("test", Some(false)),
            ("not(test)", Some(true)),
            ("feature = \"rt\"", Some(true)),
            ("not(feature = \"rt\")", Some(false)),
            ("all(feature = \"parking_lot\", not(miri))", Some(false)),
            ("not(all(feature = \"parking_lot\", not(miri)))", Some(true)),
            ("custom_unstable", Some(false)),
            ("not(custom_unstable)", Some(true)),
            ("all(test, not(loom))", Some(false)),
            ("any(unix, windows)", Some(true)),
            ("windows", Some(false)),
            ("target_os = \"linux\"", Some(true)),
            (
                "any(target_os = \"macos\", target_os = \"ios\")",
                Some(false),
            ),
            ("target_arch = \"x86_64\"", None),
            ("all(unix, target_arch = \"x86_64\")", None),
            ("all(windows, target_arch = \"x86_64\")", Some(false)),
            ("any(unix, target_arch = \"x86_64\")", Some(true)),
            ("target_has_atomic = \"64\"", Some(true)),
            ("debug_assertions", Some(true)),
        ] {
            assert_eq!(holds(predicate), expected, "{predicate}");
        }
    }
}
