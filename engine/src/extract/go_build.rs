//! Go build constraints: whether `go build` on linux/amd64, no custom tags, compiles a file, from
//! its name (`_test.go`, `_windows.go`) and its `//go:build` or `// +build` lines.

/// Operating systems a file name may end with (`x_windows.go`, `x_linux_arm64.go`).
const GOOS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];

/// Architectures a file name may end with.
const GOARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

/// Whether a build tag holds for the build the graph stands for: linux, amd64, unix, the gc
/// compiler with cgo, any Go release (`go1.21`); custom tags are off.
fn tag_holds(tag: &str) -> bool {
    matches!(tag, "linux" | "amd64" | "unix" | "gc" | "cgo")
        || tag
            .strip_prefix("go1.")
            .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether the file is compiled by `go build` (tests only: `_test.go`; another platform: by
/// name or constraint); `source` is read up to its package clause.
pub fn builds(path: &str, source: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some(stem) = name.strip_suffix(".go") else {
        return true;
    };
    if stem.ends_with("_test") || !name_holds(stem) {
        return false;
    }
    let mut plus_lines = Vec::new();
    for line in source.lines() {
        let line = line.trim();
        if line.starts_with("package ") {
            break;
        }
        if let Some(expr) = line.strip_prefix("//go:build ") {
            return Expr::new(expr).parse_or().unwrap_or(true);
        }
        if let Some(terms) = line.strip_prefix("// +build ") {
            plus_lines.push(terms);
        }
    }
    // `// +build a,b c` is (a AND b) OR c; several lines must all hold.
    plus_lines.iter().all(|terms| {
        terms.split_whitespace().any(|any| {
            any.split(',').all(|tag| match tag.strip_prefix('!') {
                Some(tag) => !tag_holds(tag),
                None => tag_holds(tag),
            })
        })
    })
}

/// `x_GOOS`, `x_GOARCH`, `x_GOOS_GOARCH`: built only on that platform.
fn name_holds(stem: &str) -> bool {
    let parts: Vec<&str> = stem.split('_').collect();
    let is = |list: &[&str], i: usize| i > 0 && list.contains(&parts[i]);
    let n = parts.len();
    if n >= 3 && is(GOOS, n - 2) && is(GOARCH, n - 1) {
        return tag_holds(parts[n - 2]) && tag_holds(parts[n - 1]);
    }
    if n >= 2 && (is(GOOS, n - 1) || is(GOARCH, n - 1)) {
        return tag_holds(parts[n - 1]);
    }
    true
}

/// A `//go:build` expression: `||`, `&&`, `!`, parentheses and tags.
struct Expr<'a> {
    rest: &'a str,
}

impl<'a> Expr<'a> {
    fn new(text: &'a str) -> Self {
        Self { rest: text }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.rest = self.rest.trim_start();
        match self.rest.strip_prefix(token) {
            Some(after) => {
                self.rest = after;
                true
            }
            None => false,
        }
    }

    fn parse_or(&mut self) -> Option<bool> {
        let mut value = self.parse_and()?;
        while self.eat("||") {
            value |= self.parse_and()?;
        }
        Some(value)
    }

    fn parse_and(&mut self) -> Option<bool> {
        let mut value = self.parse_not()?;
        while self.eat("&&") {
            value &= self.parse_not()?;
        }
        Some(value)
    }

    fn parse_not(&mut self) -> Option<bool> {
        if self.eat("!") {
            return self.parse_not().map(|v| !v);
        }
        if self.eat("(") {
            let value = self.parse_or()?;
            return self.eat(")").then_some(value);
        }
        self.rest = self.rest.trim_start();
        let end = self
            .rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return None;
        }
        let (tag, after) = self.rest.split_at(end);
        self.rest = after;
        Some(tag_holds(tag))
    }
}

#[cfg(test)]
mod tests {
    use super::builds;

    #[test]
    fn names_and_constraints_decide_what_go_build_compiles_on_linux_amd64() {
        assert!(builds("a/util.go", "package util\n"));
        assert!(!builds("a/util_test.go", "package util\n"));
        assert!(!builds("a/file_windows.go", "package util\n"));
        assert!(!builds("a/asm_arm64.go", "package util\n"));
        assert!(builds("a/asm_linux_amd64.go", "package util\n"));
        assert!(!builds("a/asm_linux_arm64.go", "package util\n"));
        // A name that only ends like an architecture is no constraint.
        assert!(builds("a/arm.go", "package util\n"));
        let unsafe_side =
            "//go:build !appengine && !js\n// +build !appengine,!js\n\npackage util\n";
        let safe_side = "//go:build appengine || js\n// +build appengine js\n\npackage util\n";
        assert!(builds("util/util_unsafe.go", unsafe_side));
        assert!(!builds("util/util_safe.go", safe_side));
        assert!(builds(
            "x.go",
            "// +build linux,amd64 windows\n\npackage x\n"
        ));
        assert!(!builds("x.go", "// +build ignore\n\npackage x\n"));
        assert!(builds(
            "x.go",
            "//go:build (linux || darwin) && go1.18\n\npackage x\n"
        ));
        assert!(!builds("x.go", "//go:build purego\n\npackage x\n"));
        // Comments after the package clause are no constraint.
        assert!(builds("x.go", "package x\n\n//go:build ignore\n"));
    }
}
