//! Import scopes: what each imported name of a file refers to — a definition, a module or a
//! package — following re-exports (`__init__.py`, `export … from`, `pub use`) a few hops deep.
//! A file's scope is kept for the next resolution and taken again while no file it read changed.

use rustc_hash::FxHashMap as HashMap;

use super::modules::ModuleIndex;
use super::reads::Facts;
use crate::facts::{FileFacts, Import};
use crate::graph::NodeKind;
use crate::lang::Lang;

/// Re-export chains longer than this are not followed.
const MAX_HOPS: u32 = 5;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A definition (graph node id).
    Node(u32),
    /// A module file (index into the facts).
    Module(usize),
    /// A package spread over several files (Go, Java).
    Package(Vec<usize>),
}

type TopLevel<'a> = [HashMap<&'a str, Vec<u32>>];

/// One file's bindings: imported name → what it refers to.
type Bindings = HashMap<Box<str>, Target>;

/// Per-file bindings of imported names (each name owned: a scope is kept whole for the next
/// resolution, and only the scopes that read a changed file are made again).
#[derive(Debug, Default)]
pub struct Scopes {
    bindings: Vec<Bindings>,
    /// Imports that hold in every file of their language (C#'s `global using`): (file, place
    /// in its `imports`), in file order.
    global: Vec<(usize, usize)>,
    /// Per file, per import statement: the files it refers to (`import_files`), found while
    /// binding from the same module lookups and kept until `take_import_files` hands them on.
    import_files: Vec<Vec<Vec<usize>>>,
    /// Per file, the files read to make its scope (sorted).
    read: Vec<Vec<u32>>,
    /// Per file, the bytes of its bindings' names.
    name_bytes: Vec<usize>,
    /// How many files' scopes were taken as kept rather than made.
    taken: usize,
}

/// One file's scope as a resolution keeps it: its bindings (a definition as `Target::Node` of
/// its place among all files' definitions, not its node id: node ids shift when a file before
/// it changes), the files each import statement refers to, the files read to make them (sorted)
/// and the bytes of the bindings' names.
#[derive(Debug, Clone)]
struct KeptScope {
    bindings: Bindings,
    import_files: Vec<Vec<usize>>,
    read: Vec<u32>,
    name_bytes: usize,
}

/// The scopes of a resolution, kept for the next one of the same project (not in a snapshot),
/// made while its module index was made from files whose fingerprint is `inputs`
/// (`ModuleIndex::inputs_fingerprint`). The next resolution takes a file's scope again when
/// that fingerprint is the same (the same paths, so the same file indexes), and neither the
/// file nor any file its scope read is among the changed ones; it counts against the memo's
/// budget like the carried nodes.
#[derive(Debug, Clone, Default)]
pub struct KeptScopes {
    inputs: u64,
    /// Per file, where its definitions start among all files' definitions (`KeptScope`).
    starts: Vec<u32>,
    files: Vec<Option<KeptScope>>,
}

impl KeptScopes {
    /// The scopes of a resolution whose module index was made from files of fingerprint
    /// `inputs`, with its definitions' nodes (`defs`, by file) and the files each import refers
    /// to (`import_files`, by file); `None` when they hold imports that bind in other files
    /// (C#'s `global using`), which every file reads.
    pub(super) fn keep(
        scopes: Scopes,
        inputs: u64,
        defs: &[Vec<u32>],
        import_files: Vec<Vec<Vec<usize>>>,
    ) -> Option<KeptScopes> {
        if !scopes.global.is_empty() {
            return None;
        }
        // Every file's definitions' nodes, in increasing order: a node's place among them.
        let flat: Vec<u32> = defs.iter().flatten().copied().collect();
        let starts: Vec<u32> = defs
            .iter()
            .scan(0u32, |at, d| {
                let start = *at;
                *at += d.len() as u32;
                Some(start)
            })
            .collect();
        let mut import_files = import_files.into_iter();
        let files = scopes
            .bindings
            .into_iter()
            .zip(scopes.read)
            .zip(scopes.name_bytes)
            .map(|((mut bindings, read), name_bytes)| {
                let import_files = import_files.next().unwrap_or_default();
                for target in bindings.values_mut() {
                    if let Target::Node(n) = target {
                        *n = flat.binary_search(n).ok()? as u32;
                    }
                }
                Some(KeptScope {
                    bindings,
                    import_files,
                    read,
                    name_bytes,
                })
            })
            .collect();
        Some(KeptScopes {
            inputs,
            starts,
            files,
        })
    }

    /// About the bytes keeping `scopes` would hold (counted against the memo's budget).
    pub(super) fn bytes_of(scopes: &Scopes) -> usize {
        let entry = size_of::<(Box<str>, Target)>() + 1;
        scopes
            .bindings
            .iter()
            .map(|b| b.capacity() * entry)
            .chain(scopes.read.iter().map(|r| r.len() * size_of::<u32>()))
            .chain(scopes.name_bytes.iter().copied())
            .sum::<usize>()
            + scopes.bindings.len() * (size_of::<Option<KeptScope>>() + size_of::<u32>())
    }

    /// File `fi`'s scope as kept, when no file it read is `changed` (by file index); its
    /// definitions found by the nodes they have now (`defs`).
    fn take(&mut self, fi: usize, changed: &[bool], defs: &[Vec<u32>]) -> Option<KeptScope> {
        let mut kept = self.files.get_mut(fi)?.take()?;
        let is_changed = |file: usize| changed.get(file).copied().unwrap_or(true);
        if is_changed(fi) || kept.read.iter().any(|&file| is_changed(file as usize)) {
            return None;
        }
        for target in kept.bindings.values_mut() {
            if let Target::Node(at) = target {
                let file = self.starts.partition_point(|&s| s <= *at).checked_sub(1)?;
                let def = *at - self.starts.get(file)?;
                *at = *defs.get(file)?.get(def as usize)?;
            }
        }
        Some(kept)
    }
}

impl Scopes {
    /// The scopes of every file: a file's scope `kept` from a resolution before, when its
    /// module index was made from files alike (`inputs`) and no file the scope read is among
    /// the `changed` ones (by file index), else made afresh, recording the files it reads.
    /// Debug builds make every scope afresh too and check both are equal.
    pub fn build<'a>(
        files: &Facts<'a>,
        modules: &ModuleIndex,
        top: &TopLevel,
        defs: &[Vec<u32>],
        kept: Option<KeptScopes>,
        (inputs, changed): (u64, &[bool]),
    ) -> Scopes {
        let mut kept = kept.filter(|k| k.inputs == inputs && k.files.len() == files.len());
        let mut scopes = Scopes {
            bindings: Vec::with_capacity(files.len()),
            global: global_imports(files.all),
            import_files: Vec::with_capacity(files.len()),
            read: Vec::with_capacity(files.len()),
            name_bytes: Vec::with_capacity(files.len()),
            taken: 0,
        };
        if !scopes.global.is_empty() {
            kept = None;
        }
        for (fi, f) in files.all.iter().enumerate() {
            if let Some(scope) = kept.as_mut().and_then(|k| k.take(fi, changed, defs)) {
                scopes.bindings.push(scope.bindings);
                scopes.import_files.push(scope.import_files);
                scopes.read.push(scope.read);
                scopes.name_bytes.push(scope.name_bytes);
                scopes.taken += 1;
                continue;
            }
            files.reads().start();
            // About one binding per imported name or module, sized at once.
            let mut map = HashMap::with_capacity_and_hasher(
                f.imports.iter().map(|i| i.names.len().max(1)).sum(),
                Default::default(),
            );
            // Other files' global aliases first, so that the file's own of the same name win.
            for &(at, place) in &scopes.global {
                let import = &files.all[at].imports[place];
                if at != fi && files.all[at].lang == f.lang && !import.wildcard {
                    let sources = source_files(fi, import, files, modules);
                    bind(fi, import, &sources, files, modules, top, defs, &mut map);
                }
            }
            // Each import's module files are looked up once: for its bindings and its targets.
            let sources: Vec<Vec<usize>> = f
                .imports
                .iter()
                .map(|i| source_files(fi, i, files, modules))
                .collect();
            // Imports for tests only first, so that the real ones of the same name replace them.
            for test_pass in [true, false] {
                for (import, sources) in f
                    .imports
                    .iter()
                    .zip(&sources)
                    .filter(|(i, _)| f.in_test_code(i.line) == test_pass)
                {
                    bind(fi, import, sources, files, modules, top, defs, &mut map);
                }
            }
            scopes.name_bytes.push(map.keys().map(|k| k.len()).sum());
            scopes.bindings.push(map);
            let targets = f
                .imports
                .iter()
                .zip(sources)
                .map(|(i, sources)| with_submodules(fi, i, sources, files, modules))
                .collect();
            scopes.import_files.push(targets);
            let mut read: Vec<u32> = files.reads().stop().files.into_iter().collect();
            read.sort_unstable();
            scopes.read.push(read);
        }
        if cfg!(debug_assertions) && scopes.taken > 0 {
            let made = Scopes::build(files, modules, top, defs, None, (inputs, changed));
            assert_eq!(scopes.bindings, made.bindings, "a kept scope differs");
            assert_eq!(
                scopes.import_files, made.import_files,
                "kept import files differ"
            );
            assert_eq!(scopes.read, made.read, "a kept scope's reads differ");
        }
        scopes
    }

    /// How many files' scopes were taken as a resolution before kept them.
    pub fn taken(&self) -> usize {
        self.taken
    }

    /// The files each import statement of file `fi` refers to, in the order of its imports, as
    /// `import_files` gives them; handed on once (empty after, and for a file past the last).
    pub fn take_import_files(&mut self, fi: usize) -> Vec<Vec<usize>> {
        self.import_files
            .get_mut(fi)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Every binding of file `fi` (to compare scopes across resolutions).
    pub fn bindings_of(&self, fi: usize) -> Option<&Bindings> {
        self.bindings.get(fi)
    }

    pub fn binding(&self, fi: usize, name: &str) -> Option<Target> {
        self.bindings.get(fi)?.get(name).cloned()
    }

    /// A name brought in by `from m import *` / `export * from` / `use m::*` / Java `m.*`.
    pub fn wildcard_lookup(
        &self,
        fi: usize,
        name: &str,
        files: &Facts<'_>,
        modules: &ModuleIndex,
        top: &TopLevel,
        defs: &[Vec<u32>],
    ) -> Option<Target> {
        let f = files.get(fi)?;
        // Other files' global imports come after the file's own.
        let global = self
            .global
            .iter()
            .filter(|&&(at, _)| at != fi && files.all[at].lang == f.lang)
            .filter_map(|&(at, place)| files.get(at)?.imports.get(place))
            .filter(|import| import.wildcard);
        real_first(f)
            .filter(|i| i.wildcard)
            .chain(global)
            .find_map(|import| {
                source_files(fi, import, files, modules)
                    .into_iter()
                    .find_map(|src| export(src, name, files, modules, top, defs, 1))
                    .or_else(|| wildcard_inline(fi, import, name, files, modules, defs))
            })
    }

    /// A dotted or `::` path as seen from file `fi`: `models.Model`, `os.path`, `a::b::C`.
    pub fn resolve_path(
        &self,
        fi: usize,
        path: &str,
        files: &Facts<'_>,
        modules: &ModuleIndex,
        top: &TopLevel,
        defs: &[Vec<u32>],
    ) -> Option<Target> {
        let f = files.get(fi)?;
        let sep = if path.contains("::") { "::" } else { "." };
        let parts: Vec<&str> = path.split(sep).collect();
        if f.lang == Lang::Rust
            && let Some(m) = modules.rust(&f.path, path)
        {
            if modules.rust_named(&f.path, path) == Some(m) {
                return Some(Target::Module(m));
            }
            // `a::b::Item`: an item of the module file the first segments name, when it is one.
            let item = (1..parts.len()).rev().find_map(|split| {
                let file = modules.rust_named(&f.path, &parts[..split].join("::"))?;
                parts[split..]
                    .iter()
                    .try_fold(Target::Module(file), |at, part| match at {
                        Target::Module(m) => export(m, part, files, modules, top, defs, 1),
                        _ => None,
                    })
            });
            return Some(item.unwrap_or(Target::Module(m)));
        }
        // The longest bound prefix, then walk the rest through module exports.
        for split in (1..=parts.len()).rev() {
            let head = parts[..split].join(sep);
            let start = self.binding(fi, &head).or_else(|| {
                top.get(fi)?
                    .get(head.as_str())
                    .and_then(|v| v.first())
                    .map(|&d| Target::Node(defs[fi][d as usize]))
            });
            let Some(mut target) = start else { continue };
            // A Zig file imported whole is its namespace on the way, even when it is also a
            // struct (`const mem = @This();`): `std.mem.Allocator` walks on into `mem.zig`.
            if split < parts.len()
                && let Some(m) = zig_imported_file(fi, &head, false, files, modules)
            {
                target = Target::Module(m);
            }
            for (at, part) in parts.iter().enumerate().skip(split) {
                let on_the_way = at + 1 < parts.len();
                target = match target {
                    Target::Module(m) if on_the_way => {
                        match zig_imported_file(m, part, true, files, modules) {
                            Some(file) => Target::Module(file),
                            None => export(m, part, files, modules, top, defs, 1)?,
                        }
                    }
                    Target::Module(m) => export(m, part, files, modules, top, defs, 1)?,
                    Target::Package(ref pkg) => pkg
                        .iter()
                        .find_map(|&m| export(m, part, files, modules, top, defs, 1))?,
                    Target::Node(_) => return None,
                };
            }
            return Some(target);
        }
        None
    }

    /// Files an import statement refers to, for IMPORTS edges.
    pub fn import_files(
        &self,
        fi: usize,
        import: &Import,
        files: &Facts<'_>,
        modules: &ModuleIndex,
    ) -> Vec<usize> {
        let sources = source_files(fi, import, files, modules);
        with_submodules(fi, import, sources, files, modules)
    }
}

/// An import's files from the files its module specifier names (`sources`): those, and for a
/// Python `from m import a` the submodule `m.a` too; sorted, each once.
fn with_submodules(
    fi: usize,
    import: &Import,
    sources: Vec<usize>,
    files: &Facts<'_>,
    modules: &ModuleIndex,
) -> Vec<usize> {
    let mut out = sources;
    if let Some(f) = files.get(fi)
        && f.lang == Lang::Python
        && !import.names.is_empty()
        && let Some(base) = modules.python_from(fi, &f.path, &import.module)
    {
        for name in &import.names {
            if let Some(m) = modules.python(&join_dotted(&base, &name.name)) {
                out.push(m);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The file a Zig file binds to `name` by importing it whole (`const mem = @import("mem.zig")`;
/// `exported`: a `pub` one, seen from other files).
fn zig_imported_file(
    file: usize,
    name: &str,
    exported: bool,
    files: &Facts<'_>,
    modules: &ModuleIndex,
) -> Option<usize> {
    let f = files.get(file)?;
    if f.lang != Lang::Zig {
        return None;
    }
    f.imports
        .iter()
        .filter(|i| (i.reexport || !exported) && i.module_alias.as_deref() == Some(name))
        .find_map(|i| source_files(file, i, files, modules).first().copied())
}

/// Every file's imports that hold project-wide among the files of its language: (file, place in
/// its `imports`).
fn global_imports(files: &[FileFacts]) -> Vec<(usize, usize)> {
    files
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            f.global_imports
                .iter()
                .map(move |&place| (fi, place as usize))
                .filter(move |&(_, place)| place < f.imports.len())
        })
        .collect()
}

/// A file's imports, those compiled for tests only (`#[cfg(test)] use …`) last: a name both
/// bring in means the real one.
fn real_first(f: &FileFacts) -> impl Iterator<Item = &Import> {
    let tests = !f.test_spans.is_empty();
    let real = f
        .imports
        .iter()
        .filter(move |i| !tests || !f.in_test_code(i.line));
    let test = f
        .imports
        .iter()
        .filter(move |i| tests && f.in_test_code(i.line));
    real.chain(test)
}

fn join_dotted(base: &str, name: &str) -> String {
    let mut out = String::with_capacity(base.len() + 1 + name.len());
    out.push_str(base);
    if !base.is_empty() {
        out.push('.');
    }
    out.push_str(name);
    out
}

/// The files an import's module specifier names.
fn source_files(
    fi: usize,
    import: &Import,
    files: &Facts<'_>,
    modules: &ModuleIndex,
) -> Vec<usize> {
    let Some(f) = files.get(fi) else {
        return Vec::new();
    };
    match f.lang {
        Lang::Python => modules
            .python_from(fi, &f.path, &import.module)
            .and_then(|name| modules.python(&name))
            .into_iter()
            .collect(),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            modules.js(&f.path, &import.module).into_iter().collect()
        }
        Lang::Rust => {
            let full = match import.names.first() {
                Some(n) if !import.wildcard => format!("{}::{}", import.module, n.name),
                _ => import.module.clone(),
            };
            modules.rust(&f.path, &full).into_iter().collect()
        }
        Lang::Go => modules.go(&import.module).to_vec(),
        Lang::Java | Lang::CSharp | Lang::Swift | Lang::Kotlin => {
            modules.java(&import.module).to_vec()
        }
        // Scala's import paths are relative to the enclosing packages.
        Lang::Scala => super::scala::relative_import_modules(
            f.package.as_deref().unwrap_or_default(),
            &import.module,
        )
        .iter()
        .map(|m| modules.java(m))
        .find(|found| !found.is_empty())
        .unwrap_or_default()
        .to_vec(),
        Lang::C | Lang::Cpp => modules
            .c_include(&f.path, &import.module)
            .into_iter()
            .collect(),
        Lang::Php if import.wildcard => modules
            .php_include(&f.path, &import.module)
            .into_iter()
            .collect(),
        Lang::Php => modules.php(&import.module).to_vec(),
        Lang::Ruby => modules.ruby(&f.path, &import.module).into_iter().collect(),
        Lang::Zig => modules.zig(&f.path, &import.module).into_iter().collect(),
        Lang::Dart => modules.dart(&f.path, &import.module).into_iter().collect(),
        Lang::Elixir => modules.elixir(&import.module).to_vec(),
        Lang::Lua => modules.lua(&import.module).into_iter().collect(),
        Lang::Bash => modules
            .bash_source(&f.path, &import.module)
            .into_iter()
            .collect(),
    }
}

/// Binds the names import `import` of file `fi` brings in, in `map`; `sources` are the files
/// its module specifier names (`source_files`).
#[allow(
    clippy::too_many_arguments,
    reason = "the tables `export` reads, with the import and the files it names"
)]
fn bind<'a>(
    fi: usize,
    import: &'a Import,
    sources: &[usize],
    files: &Facts<'a>,
    modules: &ModuleIndex,
    top: &TopLevel,
    defs: &[Vec<u32>],
    map: &mut Bindings,
) {
    let Some(f) = files.get(fi) else { return };
    if f.lang == Lang::Python && import.names.is_empty() && !import.wildcard {
        // `import a.b.c` binds `a`, and `a.b.c.f()` resolves through the full name too.
        if let Some(&m) = sources.first() {
            match &import.module_alias {
                Some(alias) => {
                    map.insert(alias.as_str().into(), Target::Module(m));
                }
                None => {
                    map.insert(import.module.as_str().into(), Target::Module(m));
                    let head = import.module.split('.').next().unwrap_or(&import.module);
                    if let Some(h) = modules.python(head)
                        && !map.contains_key(head)
                    {
                        map.insert(head.into(), Target::Module(h));
                    }
                }
            }
        }
        return;
    }
    if let Some(alias) = &import.module_alias {
        let target = match (f.lang, sources) {
            (Lang::Go, [_, ..]) => Some(Target::Package(sources.to_vec())),
            // `local X = require "a.b"`: the table the module returns (`return M`).
            (Lang::Lua, [m, ..]) => files
                .get(*m)
                .and_then(|target| target.package.as_deref())
                .and_then(|table| export(*m, table, files, modules, top, defs, 1))
                .or(Some(Target::Module(*m))),
            (_, [m, ..]) => Some(Target::Module(*m)),
            _ => None,
        };
        if let Some(t) = target {
            map.insert(alias.as_str().into(), t);
        }
    }
    for name in &import.names {
        let mut target = sources
            .iter()
            .find_map(|&src| export(src, &name.name, files, modules, top, defs, 1));
        if target.is_none() && f.lang == Lang::Python {
            target = modules
                .python_from(fi, &f.path, &import.module)
                .and_then(|base| modules.python(&join_dotted(&base, &name.name)))
                .map(Target::Module);
        }
        if target.is_none() && f.lang == Lang::Rust {
            // `use a::b::module;` binds a module file.
            target = modules
                .rust_exact(&f.path, &format!("{}::{}", import.module, name.name))
                .map(Target::Module);
        }
        if target.is_none() && f.lang == Lang::Rust {
            target = inline_item(fi, &import.module, &name.name, files, modules, defs);
        }
        if target.is_none() && f.lang.is_js_family() && name.name == "default" {
            // A default import: the target's definition named like the local binding, or its only export.
            target = sources.iter().find_map(|&src| {
                export(src, name.local(), files, modules, top, defs, 1)
                    .or_else(|| single_export(src, files, defs))
            });
        }
        match target {
            Some(t) => {
                map.insert(name.local().into(), t);
            }
            // A real Rust import from outside the project replaces a stand-in binding.
            None if f.lang == Lang::Rust && !f.in_test_code(import.line) => {
                map.remove(name.local());
            }
            None => {}
        }
    }
}

/// Item `name` of an inline module a Rust `use` path names (`use self::state::AtomicState;`
/// where the file holds `mod state { … }`; `use imp::*` of the importer's own `mod imp`): the
/// path's last segments are inline modules, one inside the other, of the module file its first
/// segments name (the importer's own file when the path starts at one of them).
fn inline_item(
    fi: usize,
    path: &str,
    name: &str,
    files: &Facts<'_>,
    modules: &ModuleIndex,
    defs: &[Vec<u32>],
) -> Option<Target> {
    let importer = &files.get(fi)?.path;
    let segments: Vec<&str> = path.split("::").collect();
    (0..segments.len()).rev().find_map(|split| {
        let prefix = segments[..split].join("::");
        let file = match split {
            0 if !matches!(segments[0], "self" | "super" | "crate") => fi,
            0 => return None,
            _ => modules.rust_named(importer, &prefix)?,
        };
        let f = files.get(file)?;
        let mut parent: Option<u32> = None;
        for module in &segments[split..] {
            let found: Vec<u32> = f
                .defs
                .iter()
                .enumerate()
                .filter(|(_, d)| {
                    d.parent == parent && d.kind == NodeKind::Module && d.name == *module
                })
                .map(|(i, _)| i as u32)
                .collect();
            parent = Some(f.visible_definition(&found)?);
        }
        let items: Vec<u32> = f
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.parent == parent && d.name == name)
            .map(|(i, _)| i as u32)
            .collect();
        let item = f.visible_definition(&items)?;
        Some(Target::Node(*defs.get(file)?.get(item as usize)?))
    })
}

/// `name` through a Rust glob import of an inline module (`use imp::*;`, `pub use
/// self::sys::*;` naming `mod sys { … }`).
fn wildcard_inline(
    fi: usize,
    import: &Import,
    name: &str,
    files: &Facts<'_>,
    modules: &ModuleIndex,
    defs: &[Vec<u32>],
) -> Option<Target> {
    (files.get(fi)?.lang == Lang::Rust)
        .then(|| inline_item(fi, &import.module, name, files, modules, defs))
        .flatten()
}

fn single_export(file: usize, files: &Facts<'_>, defs: &[Vec<u32>]) -> Option<Target> {
    let f = files.get(file)?;
    let mut exported = f
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.parent.is_none() && d.exported && d.kind != NodeKind::Method);
    let (i, _) = exported.next()?;
    exported
        .next()
        .is_none()
        .then(|| Target::Node(defs[file][i]))
}

/// What `name` means to importers of `file`: its own top-level definition, a submodule, or a
/// name it imports itself (re-export), followed up to `MAX_HOPS`.
pub fn export(
    file: usize,
    name: &str,
    files: &Facts<'_>,
    modules: &ModuleIndex,
    top: &TopLevel,
    defs: &[Vec<u32>],
    hops: u32,
) -> Option<Target> {
    if hops > MAX_HOPS {
        return None;
    }
    let f = files.get(file)?;
    // A stand-in definition (for tests, or a feature turned off) gives way to an import of the
    // same name: both exist only as alternatives. So does a Rust `mod x;` to a `use` of an
    // item `x` (`mod block_on; pub use block_on::block_on;`): they live in different
    // namespaces, and the item is what importers call.
    let mut stand_in = None;
    let own = top.get(file)?;
    // PHP's names match without regard to case (`use App\slug;` for class `Slug`).
    let defined = own.get(name).or_else(|| {
        (f.lang == Lang::Php)
            .then(|| own.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))?
            .map(|(_, v)| v)
    });
    if let Some(d) = defined.and_then(|v| f.visible_definition(v)) {
        let target = Target::Node(defs[file][d as usize]);
        let module = f.lang == Lang::Rust
            && f.defs
                .get(d as usize)
                .is_some_and(|x| x.kind == NodeKind::Module);
        if !f.is_test_def(d) && !module {
            return Some(target);
        }
        stand_in = Some(target);
    }
    if f.lang == Lang::Python
        && let Some(own) = modules.python_name(file)
        && let Some(m) = modules.python(&join_dotted(own, name))
    {
        return Some(Target::Module(m));
    }
    // A private Rust `use` is seen by the module's descendants, the only ones that can name it.
    let visible = |i: &Import| matches!(f.lang, Lang::Python | Lang::Rust) || i.reexport;
    for import in real_first(f).filter(|i| visible(i)) {
        if let Some(imported) = import.names.iter().find(|n| n.local() == name) {
            let found = source_files(file, import, files, modules)
                .into_iter()
                .find_map(|src| export(src, &imported.name, files, modules, top, defs, hops + 1))
                .or_else(|| match f.lang {
                    Lang::Rust => {
                        inline_item(file, &import.module, &imported.name, files, modules, defs)
                    }
                    _ => None,
                });
            // A real Rust import of the name from outside the project (`std`, a dependency)
            // is what the name means; stand-in alternatives are not.
            let external = f.lang == Lang::Rust && !f.in_test_code(import.line);
            if found.is_some() || external {
                return found;
            }
        }
        if import.module_alias.as_deref() == Some(name)
            && let Some(&m) = source_files(file, import, files, modules).first()
        {
            return Some(Target::Module(m));
        }
    }
    for import in real_first(f).filter(|i| i.wildcard && visible(i)) {
        for src in source_files(file, import, files, modules) {
            if src != file
                && let Some(t) = export(src, name, files, modules, top, defs, hops + 1)
            {
                return Some(t);
            }
        }
        if let Some(t) = wildcard_inline(file, import, name, files, modules, defs) {
            return Some(t);
        }
    }
    stand_in
}

#[cfg(test)]
mod tests {
    use crate::ingest::parsed_facts;
    use crate::resolve::build_graph_kept;

    /// A project's files, the file an edit changes, its new text, and how many files' scopes
    /// the next resolution takes as kept.
    type Edited = (
        Vec<(&'static str, &'static str)>,
        usize,
        &'static str,
        usize,
    );

    /// Projects of several languages and an edit each: every scope is kept but the edited
    /// file's and those of the files whose imports read it.
    fn projects() -> Vec<Edited> {
        vec![
            (
                vec![
                    ("pkg/__init__.py", "from pkg.a import f\n"),
                    ("pkg/a.py", "def f():\n    pass\n"),
                    ("pkg/b.py", "from pkg import f\n\ndef g():\n    f()\n"),
                    ("pkg/c.py", "import os\n\ndef h():\n    pass\n"),
                ],
                1,
                "def e():\n    pass\n\ndef f():\n    pass\n",
                1,
            ),
            (
                vec![
                    ("src/a.ts", "export function f() {}\n"),
                    (
                        "src/b.ts",
                        "import { f } from './a';\nexport function g() { f(); }\n",
                    ),
                    (
                        "src/c.ts",
                        "import { g } from './b';\nexport function h() { g(); }\n",
                    ),
                ],
                0,
                "export function e() {}\nexport function f() {}\n",
                1,
            ),
            (
                vec![
                    (
                        "src/lib.rs",
                        "mod a;\nmod b;\nuse a::f;\npub fn top() { f(); }\n",
                    ),
                    ("src/a.rs", "pub fn f() {}\n"),
                    ("src/b.rs", "use crate::a::f;\npub fn g() { f(); }\n"),
                    ("src/c.rs", "pub fn h() {}\n"),
                ],
                3,
                "pub fn e() {}\npub fn h() {}\n",
                3,
            ),
            (
                vec![
                    ("app/A.java", "package app;\nclass A { void f() {} }\n"),
                    (
                        "app/B.java",
                        "package app;\nimport app.A;\nclass B { void g() { new A().f(); } }\n",
                    ),
                    ("lib/C.java", "package lib;\nclass C {}\n"),
                ],
                2,
                "package lib;\nclass C { void h() {} }\n",
                2,
            ),
        ]
    }

    #[test]
    fn a_kept_scope_is_taken_only_while_no_file_it_read_changed() {
        for (files, at, text, kept) in projects() {
            let before = parsed_facts(&files);
            let (_, stats, memo, ..) = build_graph_kept("t", &before, None, &[], &|| 0.0);
            assert_eq!(stats.scopes_kept, 0);
            assert!(memo.scopes_kept.is_some(), "{files:?}");
            let mut edited = files.clone();
            edited[at].1 = text;
            let after = parsed_facts(&edited);
            let changed = [files[at].0.to_owned()];
            // Debug builds also make every scope afresh and check the kept ones are equal.
            let (graph, stats, ..) = build_graph_kept("t", &after, Some(memo), &changed, &|| 0.0);
            assert_eq!(stats.scopes_kept, kept, "{files:?}");
            let (full, ..) = build_graph_kept("t", &after, None, &[], &|| 0.0);
            assert_eq!(graph.canonical_dump(), full.canonical_dump(), "{files:?}");
            // A file added: other paths, other file indexes, every scope made afresh.
            let (_, _, memo, ..) = build_graph_kept("t", &before, None, &[], &|| 0.0);
            let mut more = files.clone();
            more.push(("zz/new.py", "def n():\n    pass\n"));
            let added = ["zz/new.py".to_owned()];
            let (_, stats, ..) =
                build_graph_kept("t", &parsed_facts(&more), Some(memo), &added, &|| 0.0);
            assert_eq!(stats.scopes_kept, 0, "{files:?}");
        }
    }
}
