//! Import scopes: what each imported name of a file refers to — a definition, a module or a
//! package — following re-exports (`__init__.py`, `export … from`, `pub use`) a few hops deep.

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

/// Per-file bindings of imported names (each name borrowed from the file's imports: no string
/// is allocated per binding when the scopes are made again on every change).
#[derive(Debug, Default)]
pub struct Scopes<'a> {
    bindings: Vec<HashMap<&'a str, Target>>,
    /// Imports that hold in every file of their language (C#'s `global using`): (file, place
    /// in its `imports`), in file order.
    global: Vec<(usize, usize)>,
    /// Per file, per import statement: the files it refers to (`import_files`), found while
    /// binding from the same module lookups and kept until `take_import_files` hands them on.
    import_files: Vec<Vec<Vec<usize>>>,
}

impl<'a> Scopes<'a> {
    pub fn build(
        files: &Facts<'a>,
        modules: &ModuleIndex,
        top: &TopLevel,
        defs: &[Vec<u32>],
    ) -> Scopes<'a> {
        let mut scopes = Scopes {
            bindings: Vec::with_capacity(files.len()),
            global: global_imports(files.all),
            import_files: Vec::with_capacity(files.len()),
        };
        for (fi, f) in files.all.iter().enumerate() {
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
            scopes.bindings.push(map);
            let targets = f
                .imports
                .iter()
                .zip(sources)
                .map(|(i, sources)| with_submodules(fi, i, sources, files, modules))
                .collect();
            scopes.import_files.push(targets);
        }
        scopes
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
    pub fn bindings_of(&self, fi: usize) -> Option<&HashMap<&'a str, Target>> {
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
    map: &mut HashMap<&'a str, Target>,
) {
    let Some(f) = files.get(fi) else { return };
    if f.lang == Lang::Python && import.names.is_empty() && !import.wildcard {
        // `import a.b.c` binds `a`, and `a.b.c.f()` resolves through the full name too.
        if let Some(&m) = sources.first() {
            match &import.module_alias {
                Some(alias) => {
                    map.insert(alias, Target::Module(m));
                }
                None => {
                    map.insert(&import.module, Target::Module(m));
                    let head = import.module.split('.').next().unwrap_or(&import.module);
                    if let Some(h) = modules.python(head) {
                        map.entry(head).or_insert(Target::Module(h));
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
            map.insert(alias, t);
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
                map.insert(name.local(), t);
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
