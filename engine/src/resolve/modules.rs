//! Maps import specifiers to files, per language: Python dotted modules (package chains and
//! relative imports), JS/TS relative paths with extension probing, Rust crate paths, Go package
//! directories, Java packages, C `#include`s, PHP namespaces and `require`d paths, Zig's
//! `@import`ed files, Ruby's `require`s, Dart's `package:` and relative URIs, Elixir modules, Lua
//! `require`s and Bash's `source`d files.

use std::borrow::Cow;

use rustc_hash::FxHashMap as HashMap;

use crate::facts::FileFacts;
use crate::graph::NodeKind;
use crate::lang::Lang;

/// Index from module names to file indexes (into the facts list).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ModuleIndex {
    python: HashMap<String, usize>,
    /// Per file: its canonical (package-chain) Python module name.
    python_canonical: Vec<Option<String>>,
    by_path: HashMap<String, usize>,
    rust: HashMap<String, usize>,
    go_dirs: HashMap<String, Vec<usize>>,
    /// The package the Go files at the project's top folder declare.
    go_root_package: Option<String>,
    /// Files by the package they declare: Java packages, C# namespaces, Swift and Kotlin
    /// modules, Dart libraries named by `library a.b;` with their `part of a.b;` parts.
    java_packages: HashMap<String, Vec<usize>>,
    /// C files (path, index) by file name (`str.h`), for `#include`s.
    c_names: HashMap<String, Vec<(String, usize)>>,
    /// PHP files by the namespace they declare, in lowercase (`a\\b`; the global namespace is
    /// empty).
    php_namespaces: HashMap<String, Vec<usize>>,
    /// Ruby files by the feature name `require` loads them by: the path without `.rb` after
    /// the last `lib/` folder (the load path's convention), else the whole path.
    ruby_features: HashMap<String, usize>,
    /// Dart files under a `lib/` folder by their path inside it (`src/a.dart`), each with the
    /// name of the folder holding `lib/` (the package's folder, conventionally its name).
    dart_lib: HashMap<String, Vec<(String, usize)>>,
    /// Elixir files by the full names of the modules they define (`Shop.Cart`).
    elixir_modules: HashMap<String, Vec<usize>>,
    /// Lua files by the module name `require` loads them by, with the depth of the root it is
    /// taken from (see `lua_names`): the shallowest root wins.
    lua_modules: HashMap<String, (usize, usize)>,
}

/// The kinds of Elixir definition the index finds files by (`defmodule`, `defprotocol` …).
fn elixir_module_kind(kind: NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::Module | NodeKind::Struct | NodeKind::Interface
    )
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The path `spec` (with `.` and `..` parts) names from folder `base`; `None` when it climbs
/// above the project's root.
fn joined(base: &str, spec: &str) -> Option<String> {
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for piece in spec.split('/') {
        match piece {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// The package name a Go import path conventionally declares: its last part, without a major
/// version (`example.com/m/v2` → `m`, `gopkg.in/yaml.v3` → `yaml`).
fn go_package_name(path: &str) -> &str {
    let is_version = |p: &str| {
        p.strip_prefix('v')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut parts = path.rsplit('/');
    let last = parts.next().unwrap_or(path);
    let last = match parts.next() {
        Some(before) if is_version(last) => before,
        _ => last,
    };
    match last.rsplit_once('.') {
        Some((name, version)) if is_version(version) => name,
        _ => last,
    }
}

/// A Dart file's package folder and its path inside that package's `lib/` (the last `lib/`
/// folder of the path): `pkg/lib/src/a.dart` → (`pkg`, `src/a.dart`).
fn dart_lib_path(path: &str) -> Option<(&str, &str)> {
    if let Some(inside) = path.strip_prefix("lib/") {
        return Some(("", inside));
    }
    let at = path.rfind("/lib/")?;
    Some((&path[..at], &path[at + "/lib/".len()..]))
}

fn stem(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.split_once('.').map_or(file, |(s, _)| s)
}

/// About the heap bytes of a map: its slots, each key's and value's own heap bytes.
fn map_bytes<K, V>(
    map: &HashMap<K, V>,
    key: impl Fn(&K) -> usize,
    value: impl Fn(&V) -> usize,
) -> usize {
    map.capacity() * (size_of::<(K, V)>() + 1)
        + map.iter().map(|(k, v)| key(k) + value(v)).sum::<usize>()
}

impl ModuleIndex {
    /// About the heap bytes the index holds (what keeping it for the next resolution costs).
    pub fn heap_bytes(&self) -> usize {
        let text = |s: &String| s.capacity();
        let none = |_: &usize| 0;
        let files = |v: &Vec<usize>| v.capacity() * size_of::<usize>();
        let named = |v: &Vec<(String, usize)>| {
            v.capacity() * size_of::<(String, usize)>()
                + v.iter().map(|(s, _)| s.capacity()).sum::<usize>()
        };
        map_bytes(&self.python, text, none)
            + self.python_canonical.capacity() * size_of::<Option<String>>()
            + self
                .python_canonical
                .iter()
                .flatten()
                .map(text)
                .sum::<usize>()
            + map_bytes(&self.by_path, text, none)
            + map_bytes(&self.rust, text, none)
            + map_bytes(&self.go_dirs, text, files)
            + self.go_root_package.as_ref().map_or(0, text)
            + map_bytes(&self.java_packages, text, files)
            + map_bytes(&self.c_names, text, named)
            + map_bytes(&self.php_namespaces, text, files)
            + map_bytes(&self.ruby_features, text, none)
            + map_bytes(&self.dart_lib, text, named)
            + map_bytes(&self.elixir_modules, text, files)
            + map_bytes(&self.lua_modules, text, |_| 0)
    }

    /// Everything [`ModuleIndex::build`] reads of the files, and what the test-file set of a
    /// Rust project is made from besides (`#[cfg(test)] mod` declarations), as one hash: equal
    /// for two lists of files, the index and that set are the same for both.
    pub fn inputs_fingerprint(files: &[FileFacts]) -> u64 {
        let mix = |h: u64, x: u64| (h.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
        let text = |s: &str| xxhash_rust::xxh3::xxh3_64(s.as_bytes());
        files.iter().fold(files.len() as u64, |mut h, f| {
            h = mix(h, text(&f.path));
            h = mix(h, f.lang as u64);
            h = mix(h, f.package.as_deref().map_or(1, text));
            match f.lang {
                Lang::Rust => {
                    for (name, path, line) in &f.module_paths {
                        h = mix(h, text(name));
                        h = mix(h, text(path));
                        h = mix(h, u64::from(f.in_test_code(*line)));
                    }
                    for name in &f.test_modules {
                        h = mix(h, text(name));
                    }
                    let modules = f
                        .defs
                        .iter()
                        .enumerate()
                        .filter(|(_, d)| d.kind == NodeKind::Module && d.parent.is_none());
                    for (i, d) in modules {
                        h = mix(h, text(&d.name));
                        h = mix(h, u64::from(f.is_test_def(i as u32)));
                    }
                }
                Lang::Elixir => {
                    for d in f.defs.iter().filter(|d| elixir_module_kind(d.kind)) {
                        h = mix(h, text(&d.qualified));
                    }
                }
                _ => {}
            }
            mix(h, 2)
        })
    }

    pub fn build(files: &[FileFacts]) -> ModuleIndex {
        let mut index = ModuleIndex {
            python_canonical: vec![None; files.len()],
            ..ModuleIndex::default()
        };
        let packages: std::collections::HashSet<&str> = files
            .iter()
            .filter(|f| f.path.ends_with("/__init__.py"))
            .map(|f| dir_of(&f.path))
            .collect();
        for (i, f) in files.iter().enumerate() {
            index.by_path.insert(f.path.clone(), i);
            match f.lang {
                Lang::Python => {
                    let names = python_names(&f.path, &packages);
                    index.python_canonical[i] = names.first().cloned();
                    for name in names {
                        index.python.entry(name).or_insert(i);
                    }
                }
                Lang::Rust => {
                    if let Some(name) = rust_module(&f.path) {
                        index.rust.entry(name).or_insert(i);
                    }
                }
                Lang::Go => {
                    let dir = dir_of(&f.path);
                    if dir.is_empty() && index.go_root_package.is_none() {
                        index.go_root_package.clone_from(&f.package);
                    }
                    index.go_dirs.entry(dir.to_owned()).or_default().push(i);
                }
                Lang::Java | Lang::CSharp | Lang::Swift | Lang::Kotlin | Lang::Scala => {
                    if let Some(package) = &f.package {
                        index
                            .java_packages
                            .entry(package.clone())
                            .or_default()
                            .push(i);
                    }
                }
                Lang::Php => {
                    // PHP compares namespaces without regard to case.
                    let namespace = f.package.as_deref().unwrap_or_default();
                    index
                        .php_namespaces
                        .entry(namespace.to_ascii_lowercase())
                        .or_default()
                        .push(i);
                }
                Lang::Ruby => {
                    let bare = f.path.strip_suffix(".rb").unwrap_or(&f.path);
                    let feature = match bare.rsplit_once("lib/") {
                        Some((before, after)) if before.is_empty() || before.ends_with('/') => {
                            after
                        }
                        _ => bare,
                    };
                    index.ruby_features.entry(feature.to_owned()).or_insert(i);
                }
                Lang::Dart => {
                    // A library named `library a.b;` and its parts (`part of a.b;`).
                    if let Some(package) = &f.package {
                        index
                            .java_packages
                            .entry(package.clone())
                            .or_default()
                            .push(i);
                    }
                    if let Some((package_dir, inside)) = dart_lib_path(&f.path) {
                        let package = package_dir.rsplit('/').next().unwrap_or(package_dir);
                        index
                            .dart_lib
                            .entry(inside.to_owned())
                            .or_default()
                            .push((package.to_owned(), i));
                    }
                }
                Lang::Elixir => {
                    for d in f.defs.iter().filter(|d| elixir_module_kind(d.kind)) {
                        let files = index.elixir_modules.entry(d.qualified.clone()).or_default();
                        if !files.contains(&i) {
                            files.push(i);
                        }
                    }
                }
                Lang::Lua => {
                    for (name, depth) in lua_names(&f.path) {
                        let best = index.lua_modules.entry(name).or_insert((depth, i));
                        if (depth, &f.path) < (best.0, &files[best.1].path) {
                            *best = (depth, i);
                        }
                    }
                }
                Lang::C | Lang::Cpp => {
                    let name = f.path.rsplit('/').next().unwrap_or(&f.path);
                    index
                        .c_names
                        .entry(name.to_owned())
                        .or_default()
                        .push((f.path.clone(), i));
                }
                _ => {}
            }
        }
        // `#[path = "unix/mod.rs"] mod imp;`: `imp` is that file, of `cfg` alternatives the
        // compiled one.
        for f in files.iter().filter(|f| f.lang == Lang::Rust) {
            let Some(own) = rust_module(&f.path) else {
                continue;
            };
            for (name, path, line) in &f.module_paths {
                if f.in_test_code(*line) {
                    continue;
                }
                let mut parts: Vec<&str> = dir_of(&f.path).split('/').collect();
                for piece in path.split('/') {
                    match piece {
                        "." | "" => {}
                        ".." => {
                            parts.pop();
                        }
                        other => parts.push(other),
                    }
                }
                if let Some(&file) = index.by_path.get(&parts.join("/")) {
                    index.rust.entry(format!("{own}::{name}")).or_insert(file);
                }
            }
        }
        index
    }

    /// The Python module `name` (dotted), absolute.
    pub fn python(&self, name: &str) -> Option<usize> {
        self.python.get(name).copied()
    }

    /// Resolves `from <spec> import …` seen in file `importer` (at `path`): relative (`..a.b`)
    /// or absolute (`spec` itself, borrowed: no string is made for most imports, and the
    /// importer is found by its index, not by hashing its path).
    pub fn python_from<'s>(
        &'s self,
        importer: usize,
        path: &str,
        spec: &'s str,
    ) -> Option<Cow<'s, str>> {
        let dots = spec.bytes().take_while(|&c| c == b'.').count();
        if dots == 0 {
            return Some(Cow::Borrowed(spec));
        }
        let own = self.python_name(importer)?;
        // A module's package is its name minus the last part; a package's `__init__` is itself;
        // each dot past the first goes up one package.
        let dropped = dots - 1 + usize::from(!path.ends_with("__init__.py"));
        let parts = own.bytes().filter(|&c| c == b'.').count() + 1;
        let kept = parts.checked_sub(dropped)?;
        let base = match kept {
            0 => "",
            _ => own
                .match_indices('.')
                .nth(kept - 1)
                .map_or(own, |(at, _)| &own[..at]),
        };
        let rest = &spec[dots..];
        let mut name = String::with_capacity(base.len() + 1 + rest.len());
        name.push_str(base);
        if !rest.is_empty() {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(rest);
        }
        Some(Cow::Owned(name))
    }

    /// The canonical module name of a Python file.
    pub fn python_name(&self, file: usize) -> Option<&str> {
        self.python_canonical.get(file)?.as_deref()
    }

    /// Resolves a JS/TS specifier relative to `importer`, probing extensions and `index` files.
    pub fn js(&self, importer: &str, spec: &str) -> Option<usize> {
        if !spec.starts_with('.') {
            return None;
        }
        let base = joined(dir_of(importer), spec)?;
        let stripped = base
            .strip_suffix(".js")
            .or_else(|| base.strip_suffix(".jsx"))
            .or_else(|| base.strip_suffix(".mjs"))
            .unwrap_or(&base);
        let candidates = [
            base.clone(),
            format!("{stripped}.ts"),
            format!("{stripped}.tsx"),
            format!("{stripped}.js"),
            format!("{stripped}.jsx"),
            format!("{stripped}.mjs"),
            format!("{stripped}.d.ts"),
            format!("{base}/index.ts"),
            format!("{base}/index.tsx"),
            format!("{base}/index.js"),
            format!("{base}/index.jsx"),
        ];
        candidates.iter().find_map(|c| self.by_path.get(c).copied())
    }

    /// The file a Zig `@import("…")` seen in `importer` names: a path ending in `.zig`, relative
    /// to the importer's folder; a module name (`std`, a module a build script maps) is the root
    /// file of that name in the importer's folder or one above it (`std/std.zig` for the files of
    /// `std/`: a module's root sits at the top of its files), else no project file (a package).
    pub fn zig(&self, importer: &str, spec: &str) -> Option<usize> {
        if !spec.ends_with(".zig") {
            let mut dir = dir_of(importer);
            loop {
                let root = if dir.is_empty() {
                    format!("{spec}.zig")
                } else {
                    format!("{dir}/{spec}.zig")
                };
                if let Some(&file) = self.by_path.get(&root) {
                    return Some(file);
                }
                if dir.is_empty() {
                    return None;
                }
                dir = dir_of(dir);
            }
        }
        self.by_path.get(&joined(dir_of(importer), spec)?).copied()
    }

    /// Resolves a Rust module path seen in `importer` (`crate::a::b`, `super::x`, `self::y`).
    pub fn rust(&self, importer: &str, path: &str) -> Option<usize> {
        let (mut parts, floor) = self.rust_parts(importer, path)?;
        while parts.len() >= floor.max(1) {
            if let Some(&i) = self.rust.get(&parts.join("::")) {
                return Some(i);
            }
            // `crate::a::Item` → the item lives in module `crate::a`.
            parts.pop();
        }
        None
    }

    /// A Rust path seen in `importer` as absolute segments from `crate`, with the fewest
    /// segments a module it names can have (a path starting with a plain name never names
    /// the importer's own module).
    fn rust_parts(&self, importer: &str, path: &str) -> Option<(Vec<String>, usize)> {
        let current = rust_module(importer)?;
        let mut parts: Vec<String> = Vec::new();
        // A path starting with a plain name starts at that name in the current module: it
        // never means the current module itself.
        let mut floor = 0;
        for (i, seg) in path.split("::").enumerate() {
            match (i, seg) {
                (0, "crate") => parts = vec!["crate".into()],
                (0, "self") => parts = current.split("::").map(str::to_owned).collect(),
                (_, "super") => {
                    if parts.is_empty() {
                        parts = current.split("::").map(str::to_owned).collect();
                    }
                    parts.pop();
                }
                (0, other) => {
                    parts = current.split("::").map(str::to_owned).collect();
                    parts.push(other.to_owned());
                    floor = parts.len();
                }
                (_, other) => parts.push(other.to_owned()),
            }
        }
        Some((parts, floor))
    }

    /// The file of exactly the Rust module `path` (no stripping of trailing item names).
    pub fn rust_exact(&self, importer: &str, path: &str) -> Option<usize> {
        if matches!(path.rsplit("::").next(), Some("self" | "super")) {
            return None;
        }
        let (parts, _) = self.rust_parts(importer, path)?;
        self.rust.get(&parts.join("::")).copied()
    }

    /// The file of exactly the Rust module `path` names, paths ending in `self`, `super` or
    /// `crate` included.
    pub fn rust_named(&self, importer: &str, path: &str) -> Option<usize> {
        match path.rsplit("::").next() {
            Some("self" | "super" | "crate") => self.rust(importer, path),
            _ => self.rust_exact(importer, path),
        }
    }

    /// Go files of the package imported as `path`: the longest directory that is a suffix of
    /// the path (`example.com/shop/ast` → `ast`, not `extension/ast`), else the longest one whose
    /// last part is the path's last part (a module laid out under another folder), else the top
    /// folder when its package is named as the path ends (`example.com/shop` → `package shop`).
    /// A path whose first part has no dot is the standard library's (`strings`, `net/http`):
    /// only a folder it is a suffix of, of two parts or more, can be it (a GOPATH project).
    pub fn go(&self, path: &str) -> &[usize] {
        let first = path.split('/').next().unwrap_or(path);
        let standard = !first.contains('.');
        if standard && !path.contains('/') {
            return &[];
        }
        let mut best: Option<((bool, usize), &Vec<usize>)> = None;
        for (dir, files) in &self.go_dirs {
            if dir.is_empty() {
                continue;
            }
            let suffix = path == dir
                || path.ends_with(&format!("/{dir}"))
                || dir.ends_with(&format!("/{path}"));
            let same_last = !standard && path.rsplit('/').next() == dir.rsplit('/').next();
            let rank = (suffix, dir.len());
            if (suffix || same_last) && best.is_none_or(|(b, _)| rank > b) {
                best = Some((rank, files));
            }
        }
        if let Some((_, files)) = best {
            return files;
        }
        match (&self.go_root_package, self.go_dirs.get("")) {
            (Some(package), Some(files)) if !standard && go_package_name(path) == package => files,
            _ => &[],
        }
    }

    /// Java files of a package.
    pub fn java(&self, package: &str) -> &[usize] {
        self.java_packages.get(package).map_or(&[], Vec::as_slice)
    }

    /// The project file `#include` `spec` seen in `importer` names (`a/b.h` quoted, `<a/b.h>`
    /// angled): for a quoted one the path from the including file's folder, else (and for an
    /// angled one) a file whose path ends with the spec — every folder some include resolves
    /// against is an include root — the one nearest the including file when several do.
    pub fn c_include(&self, importer: &str, spec: &str) -> Option<usize> {
        let (spec, quoted) = match spec.strip_prefix('<') {
            Some(angled) => (angled.strip_suffix('>').unwrap_or(angled), false),
            None => (spec, true),
        };
        if quoted
            && let Some(path) = joined(dir_of(importer), spec)
            && let Some(&file) = self.by_path.get(&path)
        {
            return Some(file);
        }
        let name = spec.rsplit('/').next().unwrap_or(spec);
        let tail: Vec<&str> = spec
            .split('/')
            .filter(|p| !p.is_empty() && *p != "." && *p != "..")
            .collect();
        let tail = tail.join("/");
        let importer_dir = dir_of(importer);
        let suffix = format!("/{tail}");
        self.c_names
            .get(name)?
            .iter()
            .filter(|(path, _)| *path == tail || path.ends_with(&suffix))
            .max_by_key(|(path, _)| {
                let shared = path
                    .split('/')
                    .zip(importer_dir.split('/'))
                    .take_while(|(a, b)| a == b)
                    .count();
                (shared, std::cmp::Reverse(path.len()))
            })
            .map(|&(_, i)| i)
    }

    /// The project file a Ruby `require` (a feature on the load path: `shop/cart`) or
    /// `require_relative` (written `./x` or `../x`, from the requiring file's folder) loads.
    pub fn ruby(&self, importer: &str, spec: &str) -> Option<usize> {
        let spec = spec.strip_suffix(".rb").unwrap_or(spec);
        if spec.starts_with("./") || spec.starts_with("../") {
            let path = joined(dir_of(importer), spec)?;
            return self.by_path.get(&format!("{path}.rb")).copied();
        }
        self.ruby_features.get(spec).copied()
    }

    /// The file a Dart import, export or part URI names, seen from `importer`:
    /// `package:name/a.dart` is `a.dart` in a `lib/` folder (the one in a folder named `name`
    /// when several have it, else the only one), a relative URI is a path from the importer's
    /// folder; `dart:` libraries are outside the project.
    pub fn dart(&self, importer: &str, uri: &str) -> Option<usize> {
        if let Some(rest) = uri.strip_prefix("package:") {
            let (package, inside) = rest.split_once('/')?;
            let found = self.dart_lib.get(inside)?;
            return match found.as_slice() {
                [(_, only)] => Some(*only),
                _ => found
                    .iter()
                    .find(|(name, _)| name == package)
                    .map(|&(_, i)| i),
            };
        }
        if uri.contains(':') {
            return None;
        }
        self.by_path.get(&joined(dir_of(importer), uri)?).copied()
    }

    /// Elixir files defining module `name` (its full name).
    pub fn elixir(&self, name: &str) -> &[usize] {
        self.elixir_modules.get(name).map_or(&[], Vec::as_slice)
    }

    /// PHP files declaring namespace `namespace` (`A\\B`, empty for the global one).
    pub fn php(&self, namespace: &str) -> &[usize] {
        self.php_namespaces
            .get(namespace.to_ascii_lowercase().as_str())
            .map_or(&[], Vec::as_slice)
    }

    /// The project file a PHP `require`/`include` path names: from the including file's
    /// folder (`./x.php` stands for `__DIR__ . '/x.php'`), else from the project's root.
    pub fn php_include(&self, importer: &str, spec: &str) -> Option<usize> {
        let resolve = |base: &str| self.by_path.get(&joined(base, spec)?).copied();
        resolve(dir_of(importer)).or_else(|| resolve(""))
    }

    /// The project file a Lua `require "a.b"` loads: `a/b.lua` or `a/b/init.lua` under one of
    /// the project's roots (see `lua_names`).
    pub fn lua(&self, spec: &str) -> Option<usize> {
        self.lua_modules.get(spec).map(|&(_, i)| i)
    }

    /// The project file a Bash `source` path names: from the sourcing script's folder
    /// (`./x.sh` stands for `$(dirname "$0")/x.sh`), else from the project's root.
    pub fn bash_source(&self, importer: &str, spec: &str) -> Option<usize> {
        self.php_include(importer, spec)
    }

    pub fn same_dir_go(&self, path: &str) -> &[usize] {
        self.go_dirs.get(dir_of(path)).map_or(&[], Vec::as_slice)
    }
}

/// Every dotted name a Python file can be imported by: relative to the top of its package chain,
/// and relative to the repository root and to a `src/` folder.
fn python_names(path: &str, packages: &std::collections::HashSet<&str>) -> Vec<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let Some((file, dirs)) = parts.split_last() else {
        return Vec::new();
    };
    let module_parts = |from: usize| -> String {
        let mut name: Vec<&str> = dirs[from..].to_vec();
        let s = stem(file);
        if s != "__init__" {
            name.push(s);
        }
        name.join(".")
    };
    let mut top = dirs.len();
    while top > 0 && packages.contains(dirs[..top].join("/").as_str()) {
        top -= 1;
    }
    let mut names = vec![module_parts(top), module_parts(0)];
    if let Some(src) = dirs.iter().position(|d| *d == "src" || *d == "lib") {
        names.push(module_parts(src + 1));
    }
    names.retain(|n| !n.is_empty());
    names.dedup();
    names
}

/// The module names a Lua file is required by, each with the depth of its root: from the
/// project's top folder, and from every folder named `lua`, `src` or `lib` (the conventional
/// entries of `package.path`); `a/b.lua` and `a/b/init.lua` are both `a.b`.
fn lua_names(path: &str) -> Vec<(String, usize)> {
    let Some(bare) = path.strip_suffix(".lua") else {
        return Vec::new();
    };
    let bare = bare.strip_suffix("/init").unwrap_or(bare);
    let parts: Vec<&str> = bare.split('/').collect();
    let mut names = vec![(parts.join("."), 0)];
    for (at, part) in parts.iter().enumerate() {
        if matches!(*part, "lua" | "src" | "lib") && at + 1 < parts.len() {
            names.push((parts[at + 1..].join("."), at + 1));
        }
    }
    names
}

/// `src/a/b.rs` → `crate::a::b`; `src/lib.rs`, `src/main.rs` → `crate`; `src/a/mod.rs` → `crate::a`.
fn rust_module(path: &str) -> Option<String> {
    let after = path.split_once("src/").map_or(path, |(_, rest)| rest);
    let without = after.strip_suffix(".rs")?;
    let mut parts: Vec<&str> = without.split('/').collect();
    if matches!(parts.last(), Some(&"mod") | Some(&"lib") | Some(&"main")) {
        parts.pop();
    }
    let mut name = String::from("crate");
    for p in parts {
        name.push_str("::");
        name.push_str(p);
    }
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_package_names_leave_out_major_versions() {
        assert_eq!(go_package_name("gopkg.in/yaml.v3"), "yaml");
        assert_eq!(go_package_name("example.com/m/v2"), "m");
        assert_eq!(go_package_name("github.com/yuin/goldmark"), "goldmark");
        assert_eq!(go_package_name("example.com/v2"), "example.com");
    }

    fn facts(paths: &[&str]) -> Vec<FileFacts> {
        paths
            .iter()
            .map(|p| FileFacts::new(p, Lang::of_path(p).unwrap_or(Lang::Python)))
            .collect()
    }

    #[test]
    fn python_package_chains_and_relative_imports() {
        let files = facts(&[
            "Django-5.1/django/__init__.py",
            "Django-5.1/django/db/__init__.py",
            "Django-5.1/django/db/models/__init__.py",
            "Django-5.1/django/db/models/base.py",
            "Django-5.1/setup.py",
        ]);
        let index = ModuleIndex::build(&files);
        assert_eq!(index.python("django.db.models"), Some(2));
        assert_eq!(index.python("django.db.models.base"), Some(3));
        assert_eq!(index.python("setup"), Some(4));
        let base = "Django-5.1/django/db/models/base.py";
        assert_eq!(
            index.python_from(3, base, ".").as_deref(),
            Some("django.db.models")
        );
        assert_eq!(
            index.python_from(3, base, "..utils").as_deref(),
            Some("django.db.utils")
        );
        assert_eq!(
            index
                .python_from(2, "Django-5.1/django/db/models/__init__.py", ".base")
                .as_deref(),
            Some("django.db.models.base")
        );
        // Up to the top and past it; an absolute name is the specifier itself.
        assert_eq!(
            index.python_from(3, base, "....setup").as_deref(),
            Some("setup")
        );
        assert_eq!(index.python_from(3, base, ".....setup"), None);
        assert!(matches!(
            index.python_from(3, base, "django.db"),
            Some(Cow::Borrowed("django.db"))
        ));
    }

    #[test]
    fn js_relative_specifiers_probe_extensions_and_index() {
        let files = facts(&["src/a/cart.ts", "src/lib/index.ts", "src/b.js"]);
        let index = ModuleIndex::build(&files);
        assert_eq!(index.js("src/a/x.ts", "./cart"), Some(0));
        assert_eq!(index.js("src/a/x.ts", "../lib"), Some(1));
        assert_eq!(index.js("src/a/x.ts", "../b.js"), Some(2));
        assert_eq!(index.js("src/a/x.ts", "react"), None);
        assert_eq!(index.js("x.ts", "../../../escape"), None);
    }

    #[test]
    fn c_includes_resolve_beside_the_includer_then_against_any_include_root() {
        let files = facts(&[
            "lib/src/str.c",
            "lib/src/str.h",
            "lib/include/lib/api.h",
            "lib/src/util/str.h",
            "other/include/lib/api.h",
        ]);
        let index = ModuleIndex::build(&files);
        assert_eq!(index.c_include("lib/src/str.c", "str.h"), Some(1));
        assert_eq!(index.c_include("lib/src/util/x.c", "../str.h"), Some(1));
        // Not beside the includer: a file whose path ends with the spec, the nearest one.
        assert_eq!(index.c_include("lib/src/str.c", "lib/api.h"), Some(2));
        assert_eq!(index.c_include("lib/src/str.c", "<lib/api.h>"), Some(2));
        assert_eq!(index.c_include("other/x.c", "<lib/api.h>"), Some(4));
        assert_eq!(index.c_include("lib/src/str.c", "util/str.h"), Some(3));
        assert_eq!(index.c_include("lib/src/str.c", "<stdio.h>"), None);
        assert_eq!(index.c_include("x.c", "../../str.h"), Some(1));
    }

    #[test]
    fn php_includes_resolve_beside_the_includer_then_from_the_root() {
        let files = facts(&["lib/a.php", "lib/sub/b.php", "config.php"]);
        let index = ModuleIndex::build(&files);
        assert_eq!(index.php_include("lib/a.php", "./sub/b.php"), Some(1));
        assert_eq!(index.php_include("lib/sub/b.php", "./../a.php"), Some(0));
        assert_eq!(index.php_include("lib/sub/b.php", "config.php"), Some(2));
        assert_eq!(index.php_include("lib/a.php", "./../../x.php"), None);
    }

    #[test]
    fn rust_paths_map_to_module_files() {
        let files = facts(&[
            "src/lib.rs",
            "src/payment.rs",
            "src/shop/mod.rs",
            "src/shop/cart.rs",
        ]);
        let index = ModuleIndex::build(&files);
        assert_eq!(index.rust("src/lib.rs", "crate::payment"), Some(1));
        assert_eq!(
            index.rust("src/shop/cart.rs", "super::super::payment"),
            Some(1)
        );
        assert_eq!(index.rust("src/shop/mod.rs", "self::cart"), Some(3));
        assert_eq!(
            index.rust("src/shop/cart.rs", "crate::shop::cart::Cart"),
            Some(3)
        );
    }
}
