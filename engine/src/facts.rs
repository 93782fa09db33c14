//! What one file says, before any cross-file resolution: definitions, imports, call sites,
//! heritage and simple type bindings. Extractors produce it; the resolver consumes it.

use rustc_hash::FxHashSet as HashSet;
use serde::{Deserialize, Serialize};

use super::graph::{NodeKind, RefKind};
use super::lang::Lang;

/// Index of a definition inside its file's `defs`.
pub type DefIdx = u32;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Def {
    pub kind: NodeKind,
    pub name: String,
    /// Dotted path inside the file: `Cart.add`, `outer.inner`.
    pub qualified: String,
    /// The enclosing definition, if any.
    pub parent: Option<DefIdx>,
    pub start_line: u32,
    pub end_line: u32,
    /// The declaration line(s) up to the body, whitespace collapsed, capped.
    pub signature: String,
    /// First line of the doc comment or docstring.
    pub doc: String,
    /// Raw base-class / interface expressions as written (`models.Model`, `Base[T]` → `Base`).
    pub extends: Vec<String>,
    pub implements: Vec<String>,
    /// Visible outside its module (exported, `pub`, capitalised in Go, not `_private` in Python).
    pub exported: bool,
    /// Decorator or annotation names as written, without arguments.
    pub decorators: Vec<String>,
    /// The type a call returns: the declared one (`-> Cart`, `: Cart`, `Promise<Cart>` → `Cart`),
    /// else the one type every `return` builds (`return Cart(…)`; `return self` → `Self`).
    /// Empty when unknown.
    pub returns: String,
    /// The local variable every `return` gives back (`return clone`), when `returns` is empty:
    /// the function returns that variable's type.
    pub returns_variable: String,
    /// Defined in a branch of an `if` or `try` at its level: another branch may define the
    /// same name, and which one runs is decided at run time.
    pub conditional: bool,
}

/// One imported name and the local name it is bound to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedName {
    pub name: String,
    pub alias: Option<String>,
}

impl ImportedName {
    pub fn local(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// Module specifier as written: `os.path`, `..utils`, `./cart`, `crate::a::b`, `fmt`.
    pub module: String,
    /// Names imported from the module; empty for a whole-module import.
    pub names: Vec<ImportedName>,
    /// Local name bound to the whole module (`import x as y`, `import * as y`, Go package name).
    pub module_alias: Option<String>,
    pub wildcard: bool,
    /// A re-export (`export … from`, `pub use`): importers of this file see these names.
    pub reexport: bool,
    pub line: u32,
}

/// What stands before the dot in `x.f()`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Receiver {
    /// `self`, `this`, `cls`.
    SelfRef,
    /// `super()` / `super`.
    Super,
    /// `super(Base, self)`: the search starts above `Base`.
    SuperOf(String),
    /// A plain name: a variable, a module alias or a class.
    Name(String),
    /// A dotted chain of names: `self.cart`, `models.Model`, `a.b.c`.
    Path(String),
    /// The result of calling or constructing a named thing: `Cart()` in `Cart().total()`.
    Call(String),
    /// Anything else (a call result, an index, a literal).
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Callee {
    /// `f(...)`.
    Name(String),
    /// `recv.f(...)`.
    Member { receiver: Receiver, name: String },
    /// `new C(...)` / `C{...}` where the language marks construction explicitly.
    New(String),
    /// `a::b::f(...)`: a path call (Rust), with the path prefix.
    Scoped { path: String, name: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSite {
    /// The definition the call sits in; `None` for module-level code.
    pub caller: Option<DefIdx>,
    pub callee: Callee,
    pub line: u32,
    /// How many arguments the call passes, where the language picks an overload by it (Java).
    #[serde(default)]
    pub args: Option<u32>,
}

/// `var: Type` or `var = Type(...)` inside a scope; `scope = None` at module level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    pub scope: Option<DefIdx>,
    pub var: String,
    /// The type or constructor expression as written (`Cart`, `models.Cart`).
    pub type_name: String,
}

/// `x = f(…)`, `x = recv.m(…)`, `const x = await this.m()`: the variable holds what the call
/// returns, found once the call is resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallBinding {
    pub scope: Option<DefIdx>,
    pub var: String,
    pub callee: Callee,
}

/// `for (const x of xs)`, `xs.forEach(x => …)`: the variable holds an element of `of`, whose
/// declared type is a collection (`T[]`, `Array<T>`, `Set<T>` … written `T[]` in facts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementBinding {
    pub scope: Option<DefIdx>,
    pub var: String,
    pub of: Receiver,
}

/// Rust `x.with(|a, b| …)`, TypeScript `operate((a, b) => …)`: `a` and `b` hold what the
/// function called passes its closure argument, typed by the closure's bound or declared type
/// in its signature (`f: impl FnOnce(&mut T) -> R`, `init: (source: Observable<T>) => void`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosureBinding {
    pub scope: Option<DefIdx>,
    pub var: String,
    /// The call the closure is an argument of.
    pub callee: Callee,
    /// Which argument of the call the closure is (the receiver of `x.f(…)` not counted).
    pub argument: u32,
    /// Which of the closure's parameters binds the name.
    pub parameter: u32,
}

/// A function's parameter that takes a closure: `f: impl FnOnce(&mut T) -> R`, `f: F` where
/// `F: Fn(A, B)` (Rust), `init: (source: Observable<T>) => void` (TypeScript, also a
/// constructor's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosureParam {
    pub def: DefIdx,
    /// Its place among the parameters, `self` not counted.
    pub position: u32,
    /// Whether the function takes `self` (a method call passes it as the receiver).
    pub takes_self: bool,
    /// The closure's parameter types as `value_type` reads them, empty when unknown.
    pub types: Vec<String>,
}

/// `self.builder = self.create_builder(name)` in a method: the attribute holds what the call
/// returns, found once the call is resolved in the method's scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrCall {
    /// The class whose instances get the attribute.
    pub class: DefIdx,
    pub attr: String,
    /// The method the assignment is written in.
    pub scope: DefIdx,
    pub callee: Callee,
}

/// Ruby and Zig: what an argument a call passes is, as far as its file tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArgValue {
    /// A class it builds (`Foo.new`, `new`) or a literal's class (`::String`), Zig's struct
    /// literal of a written type (`Ctx{ … }`): the type as written, read from the call's scope.
    Type(String),
    /// `self` in an instance method.
    SelfRef,
    /// A local variable or parameter of the caller, typed where the call is (Zig: also a type's
    /// name, `&x` and `x.*`).
    Local(String),
    /// Zig: a chain of fields (`self.ctx`, `&s.inner`), typed like a receiver path.
    Path(String),
    /// Anything else.
    Unknown,
}

/// Ruby and Zig: the arguments of call `call` (its place in `calls`), by position and by
/// keyword (Ruby); a splat (`*a`, `**h`) or a hash argument of other keys leaves every place after it unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallArgs {
    pub call: u32,
    pub positional: Vec<ArgValue>,
    pub keywords: Vec<(String, ArgValue)>,
    /// A splat among the positional arguments: places from `positional.len()` on are unknown.
    pub splat: bool,
    /// A `**h` or a hash of other keys: keywords not written are unknown.
    pub keyword_splat: bool,
}

/// Ruby: the parameters of method `method` a caller's argument alone gives a value: required
/// ones before any optional or splat parameter (by place), required keywords (by name), each
/// never assigned in the method. `None` at a place whose parameter is not such. Zig: every
/// parameter of function `method` by place (its declared type is its binding).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodParams {
    pub method: DefIdx,
    pub positional: Vec<Option<String>>,
    pub keywords: Vec<String>,
}

/// A name written where it is not called nor defined (`x: Cart`, `callback=handler`,
/// `isinstance(v, Model)`, `limit = MAX`): resolved like a bare call's name or a dotted callee.
/// Packed in 12 bytes (a big project holds tens of millions: the Linux kernel ≈ 20 M): the
/// scope with `u32::MAX` for none, the line and the kind in one word. Serialized as its four
/// fields, as before it was packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "NameRefFields", into = "NameRefFields")]
pub struct NameRef {
    /// Index into the file's `ref_names`: the name or chain as written (`Cart`, `models.Model`).
    pub name: u32,
    scope: u32,
    line_kind: u32,
}

/// Bits of `NameRef::line_kind` holding the kind; the line is above them.
const KIND_BITS: u32 = 3;
/// The last line a `NameRef` tells apart; later ones read as it (a file of half a billion lines).
const MAX_REF_LINE: u32 = u32::MAX >> KIND_BITS;
// Every kind fits in the bits kept for it, and `RefKind::ALL` lists them in declaration order.
const _: () = assert!(RefKind::ALL.len() <= 1 << KIND_BITS);
/// `NameRef::scope` for the file's top level.
const NO_SCOPE: u32 = u32::MAX;

impl NameRef {
    /// The reference to name `name` (an index into `ref_names`) in `scope`, at `line`.
    pub fn new(name: u32, scope: Option<DefIdx>, line: u32, kind: RefKind) -> Self {
        Self {
            name,
            scope: scope.unwrap_or(NO_SCOPE),
            line_kind: (line.min(MAX_REF_LINE) << KIND_BITS) | kind as u32,
        }
    }

    /// The innermost definition around it; `None` at the file's top level.
    pub fn scope(&self) -> Option<DefIdx> {
        (self.scope != NO_SCOPE).then_some(self.scope)
    }

    pub fn line(&self) -> u32 {
        self.line_kind >> KIND_BITS
    }

    pub fn kind(&self) -> RefKind {
        let index = (self.line_kind & ((1 << KIND_BITS) - 1)) as usize;
        RefKind::ALL.get(index).copied().unwrap_or(RefKind::Read)
    }
}

/// A `NameRef` as it is serialized: its fields unpacked.
#[derive(Serialize, Deserialize)]
struct NameRefFields {
    name: u32,
    scope: Option<DefIdx>,
    line: u32,
    kind: RefKind,
}

impl From<NameRefFields> for NameRef {
    fn from(f: NameRefFields) -> Self {
        Self::new(f.name, f.scope, f.line, f.kind)
    }
}

impl From<NameRef> for NameRefFields {
    fn from(r: NameRef) -> Self {
        Self {
            name: r.name,
            scope: r.scope(),
            line: r.line(),
            kind: r.kind(),
        }
    }
}

/// Strings kept end to end in one buffer, each found by its index: a file's distinct reference
/// names (the Linux kernel's files hold millions; a `String` each cost 24 bytes and an
/// allocation more than its text). Serialized as a sequence of strings, as the `Vec<String>`
/// it replaced was.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameList {
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<u32>,
}

impl NameList {
    /// Appends `name`; its index is the count before.
    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len() as u32);
    }

    /// The `index`th string.
    pub fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)? as usize;
        let start = match index.checked_sub(1) {
            Some(before) => *self.ends.get(before)? as usize,
            None => 0,
        };
        self.text.get(start..end)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The strings in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl<'s> FromIterator<&'s str> for NameList {
    fn from_iter<I: IntoIterator<Item = &'s str>>(names: I) -> Self {
        let mut list = Self::default();
        names.into_iter().for_each(|name| list.push(name));
        list
    }
}

impl Serialize for NameList {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for NameList {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(NameListVisitor)
    }
}

/// Reads a sequence of strings into one `NameList`, each appended as it is read (no `String`
/// each on the way).
struct NameListVisitor;

impl<'de> serde::de::Visitor<'de> for NameListVisitor {
    type Value = NameList;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of names")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<NameList, A::Error> {
        let mut list = NameList::default();
        list.ends.reserve(seq.size_hint().unwrap_or(0));
        while seq.next_element_seed(AppendName(&mut list))?.is_some() {}
        list.shrink_to_fit();
        Ok(list)
    }
}

/// One string of a sequence, appended to a `NameList`.
struct AppendName<'a>(&'a mut NameList);

impl<'de> serde::de::DeserializeSeed<'de> for AppendName<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl<'de> serde::de::Visitor<'de> for AppendName<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<(), E> {
        self.0.push(name);
        Ok(())
    }
}

/// What one file defines, imports and calls, before any cross-file resolution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileFacts {
    /// The file's path in the project.
    pub path: String,
    /// The language it was parsed as.
    pub lang: Lang,
    /// Its line count.
    pub lines: u32,
    /// Definitions (classes, functions, methods …), in source order.
    pub defs: Vec<Def>,
    /// Import statements.
    pub imports: Vec<Import>,
    /// The places in `imports` of those that hold in every file of the project's language, not
    /// this file alone (C#'s `global using`).
    #[serde(default)]
    pub global_imports: Vec<u32>,
    /// Call sites, each with its receiver.
    pub calls: Vec<CallSite>,
    /// Variables bound to a declared or constructed type.
    pub bindings: Vec<Binding>,
    /// Variables bound to a call's result.
    pub call_bindings: Vec<CallBinding>,
    /// Variables bound to a collection's elements (`for … of`, callbacks).
    pub element_bindings: Vec<ElementBinding>,
    /// Variables bound to what a chain of attributes holds (Go `x := n.first`): (scope,
    /// variable, the chain as written).
    #[serde(default)]
    pub path_bindings: Vec<(Option<DefIdx>, String, String)>,
    /// Rust: the lines where each of `bindings` holds (a `let` to the end of its block, a
    /// `match` arm, an `if let` or `while let` body; a parameter everywhere), in the same
    /// order. Empty for other languages: a binding holds in its whole scope.
    #[serde(default)]
    pub binding_spans: Vec<(u32, u32)>,
    /// The same for `call_bindings`.
    #[serde(default)]
    pub call_binding_spans: Vec<(u32, u32)>,
    /// The same for `element_bindings` (a `for` loop).
    #[serde(default)]
    pub element_binding_spans: Vec<(u32, u32)>,
    /// Closure parameters bound by the function the closure is passed to.
    #[serde(default)]
    pub closure_bindings: Vec<ClosureBinding>,
    /// Rust: the lines where each of `closure_bindings` holds (the closure), in the same order.
    /// Empty for other languages: a binding holds in its whole scope.
    #[serde(default)]
    pub closure_binding_spans: Vec<(u32, u32)>,
    /// Rust functions returning a tuple: (function, each element's type as `value_type` reads
    /// it, empty when unknown).
    #[serde(default)]
    pub tuple_returns: Vec<(DefIdx, Vec<String>)>,
    /// Functions' parameters that take closures.
    #[serde(default)]
    pub closure_params: Vec<ClosureParam>,
    /// Names a scope declares as variables or parameters (`const x = …`, `(x) => …`,
    /// `catch (e)`; JavaScript and TypeScript): inside a function they hide the file's names
    /// and imports of the same name; at module level they hold values that no definition
    /// explains. Local functions are definitions, not listed here.
    #[serde(default)]
    pub locals: Vec<(Option<DefIdx>, String)>,
    /// Module-level type aliases naming a type or a union of types (`type Ast = Literal |
    /// Union<T>`; TypeScript): (alias, member types as written, generics left out).
    #[serde(default)]
    pub type_aliases: Vec<(String, Vec<String>)>,
    /// Rust: the line of each of `type_aliases` (`type Alias = Type;`, one member), whose
    /// `cfg` alternatives are told apart by it.
    #[serde(default)]
    pub type_alias_lines: Vec<u32>,
    /// Rust type parameters of functions (with their `impl` block's) and types: (def,
    /// parameter, its one trait bound, or empty when it has none or several).
    #[serde(default)]
    pub type_params: Vec<(DefIdx, String, String)>,
    /// Rust type parameters bound by several traits (`R: AsyncRead + AsyncWrite`): (def,
    /// parameter, the traits). Their `type_params` bound is empty.
    #[serde(default)]
    pub type_param_traits: Vec<(DefIdx, String, Vec<String>)>,
    /// Rust fields' type arguments (`waker: Padded<AtomicWaker>`): (type def, field, each
    /// argument as `value_type` reads it, empty when unknown; lifetimes not counted).
    #[serde(default)]
    pub attr_type_args: Vec<(DefIdx, String, Vec<String>)>,
    /// Rust methods of an `impl` block for a generic type: (method, the type's arguments as
    /// the block writes them: `impl<T, S> Tx<T, S>` → `T`, `S`).
    #[serde(default)]
    pub impl_arguments: Vec<(DefIdx, Vec<String>)>,
    /// Rust types implementing `Deref`: (type, the place of the type argument it dereferences
    /// to, else the type it dereferences to).
    #[serde(default)]
    pub deref_targets: Vec<(String, Option<u32>, String)>,
    /// Swift conformances an `extension` adds to a type declared anywhere (`extension T: P,
    /// Q`): (the type as written, the protocols, the extension's line).
    #[serde(default)]
    pub conformances: Vec<(String, Vec<String>, u32)>,
    /// Scala self types (`self: A with B =>` in a trait) and a package object's bases: (the
    /// type or package object, each type named). Its values (or its package) have those types'
    /// members, though it extends none of them in the graph.
    #[serde(default)]
    pub self_types: Vec<(DefIdx, String)>,
    /// Ruby modules mixed into a class by a call naming the class (`Base.prepend(M)`,
    /// `Base.include(M)`) or prepended in its body (`prepend M`): (the scope of the statement,
    /// the class as written, empty for the class whose body it is, the module as written,
    /// whether it is prepended: its methods then come before the class's own).
    #[serde(default)]
    pub mixins: Vec<(Option<DefIdx>, String, String, bool)>,
    /// `self.attr = Type(...)` style bindings: (class def, attribute, type).
    pub attr_bindings: Vec<(DefIdx, String, String)>,
    /// Attributes assigned a call's result in a method.
    #[serde(default)]
    pub attr_calls: Vec<AttrCall>,
    /// Ruby and Zig: the arguments of calls that pass any, in the order of their calls.
    #[serde(default)]
    pub call_args: Vec<CallArgs>,
    /// Ruby: methods' parameters that callers' arguments type.
    #[serde(default)]
    pub method_params: Vec<MethodParams>,
    /// Ruby: an `@x` every assignment of its class sets to one parameter of one method (`@x =
    /// x` in `initialize(x)`): (class, `@x`, the method, the parameter).
    #[serde(default)]
    pub param_ivars: Vec<(DefIdx, String, DefIdx, String)>,
    /// Declared package (Go `package x`, Java `package a.b;`); for Lua, the table the file
    /// returns at its top level (`return M`), what `require` gives its requirers.
    pub package: Option<String>,
    /// Syntax error nodes seen; the file is still used partially.
    pub syntax_errors: u32,
    /// Line spans of stand-in code: compiled for tests only (Rust `#[cfg(test)]`,
    /// `#[cfg(all(test, …))]`, `#[test]` items) or only with a feature turned off
    /// (`#[cfg(not(feature = "x"))]`, as a type checker with every feature on sees it). A
    /// definition or import there never wins over one outside.
    #[serde(default)]
    pub test_spans: Vec<(u32, u32)>,
    /// Rust modules declared with the file that holds them (`#[path = "unix/mod.rs"] mod
    /// imp;`): (module, path as written, relative to the declaring file's folder, line).
    #[serde(default)]
    pub module_paths: Vec<(String, String, u32)>,
    /// Modules declared in their own file and compiled for tests only (`#[cfg(test)] mod x;`).
    #[serde(default)]
    pub test_modules: Vec<String>,
    /// Macros this file defines that put their items under such a `cfg` (`macro_rules! m {
    /// ($($i:item)*) => { $(#[cfg(not(feature = "x"))] $i)* } }`).
    #[serde(default)]
    pub stand_in_macros: Vec<String>,
    /// Brace-delimited macro invocations at item level whose items were read: (macro name,
    /// first line, last line).
    #[serde(default)]
    pub item_macros: Vec<(String, u32, u32)>,
    /// The distinct names and chains `refs` point into.
    #[serde(default)]
    pub ref_names: NameList,
    /// Names used without being called or defined, in source order (`extract/refs.rs`).
    #[serde(default)]
    pub refs: Vec<NameRef>,
}

impl FileFacts {
    /// Gives back the spare room extraction left in its lists (a list grown by pushing holds
    /// up to twice what it needs). Facts are kept as long as the project is open: on the Linux
    /// kernel the room was a quarter of their heap (ingest bench `--facts-sample`).
    pub fn shrink_to_fit(&mut self) {
        self.defs.shrink_to_fit();
        self.imports.shrink_to_fit();
        self.global_imports.shrink_to_fit();
        self.calls.shrink_to_fit();
        self.bindings.shrink_to_fit();
        self.call_bindings.shrink_to_fit();
        self.element_bindings.shrink_to_fit();
        self.path_bindings.shrink_to_fit();
        self.binding_spans.shrink_to_fit();
        self.call_binding_spans.shrink_to_fit();
        self.element_binding_spans.shrink_to_fit();
        self.closure_bindings.shrink_to_fit();
        self.closure_binding_spans.shrink_to_fit();
        self.tuple_returns.shrink_to_fit();
        self.closure_params.shrink_to_fit();
        self.locals.shrink_to_fit();
        self.type_aliases.shrink_to_fit();
        self.type_alias_lines.shrink_to_fit();
        self.type_params.shrink_to_fit();
        self.type_param_traits.shrink_to_fit();
        self.attr_type_args.shrink_to_fit();
        self.impl_arguments.shrink_to_fit();
        self.deref_targets.shrink_to_fit();
        self.conformances.shrink_to_fit();
        self.attr_bindings.shrink_to_fit();
        self.attr_calls.shrink_to_fit();
        self.call_args.shrink_to_fit();
        self.method_params.shrink_to_fit();
        self.param_ivars.shrink_to_fit();
        self.test_spans.shrink_to_fit();
        self.module_paths.shrink_to_fit();
        self.test_modules.shrink_to_fit();
        self.stand_in_macros.shrink_to_fit();
        self.item_macros.shrink_to_fit();
        self.self_types.shrink_to_fit();
        self.mixins.shrink_to_fit();
        self.ref_names.shrink_to_fit();
        self.refs.shrink_to_fit();
    }
}

impl FileFacts {
    /// Keeps each (scope, name) of `locals` once, where it was first seen: a local is only
    /// asked whether its scope declares it, so a repeat (a name declared in two blocks of one
    /// function, a macro defined in both branches of an `#if`) only held memory.
    pub fn drop_repeated_locals(&mut self) {
        let first: Vec<bool> = {
            let mut seen: HashSet<(Option<DefIdx>, &str)> = HashSet::default();
            self.locals
                .iter()
                .map(|(scope, name)| seen.insert((*scope, name.as_str())))
                .collect()
        };
        let mut first = first.into_iter();
        self.locals.retain(|_| first.next().unwrap_or(true));
    }

    /// Records that `var` holds a value of `type_name` in `scope`; nothing for an empty name or
    /// type (what a declaration did not say).
    pub fn bind_type(&mut self, scope: Option<u32>, var: &str, type_name: String) {
        if type_name.is_empty() || var.is_empty() {
            return;
        }
        self.bindings.push(Binding {
            scope,
            var: var.to_owned(),
            type_name,
        });
    }

    /// Empty facts for a file of `lang` at `path`.
    pub fn new(path: &str, lang: Lang) -> Self {
        Self {
            path: path.to_owned(),
            lang,
            lines: 0,
            defs: Vec::new(),
            imports: Vec::new(),
            global_imports: Vec::new(),
            calls: Vec::new(),
            bindings: Vec::new(),
            call_bindings: Vec::new(),
            element_bindings: Vec::new(),
            path_bindings: Vec::new(),
            binding_spans: Vec::new(),
            call_binding_spans: Vec::new(),
            element_binding_spans: Vec::new(),
            closure_bindings: Vec::new(),
            closure_binding_spans: Vec::new(),
            closure_params: Vec::new(),
            tuple_returns: Vec::new(),
            locals: Vec::new(),
            type_aliases: Vec::new(),
            type_alias_lines: Vec::new(),
            type_params: Vec::new(),
            type_param_traits: Vec::new(),
            attr_type_args: Vec::new(),
            deref_targets: Vec::new(),
            impl_arguments: Vec::new(),
            conformances: Vec::new(),
            self_types: Vec::new(),
            mixins: Vec::new(),
            attr_bindings: Vec::new(),
            attr_calls: Vec::new(),
            call_args: Vec::new(),
            method_params: Vec::new(),
            param_ivars: Vec::new(),
            package: None,
            syntax_errors: 0,
            test_spans: Vec::new(),
            module_paths: Vec::new(),
            test_modules: Vec::new(),
            stand_in_macros: Vec::new(),
            item_macros: Vec::new(),
            ref_names: NameList::default(),
            refs: Vec::new(),
        }
    }

    /// Places methods declared apart from their type (Rust `impl`, Go receivers) under the type
    /// of that name in this file, when there is one; the qualified names already carry the owner.
    pub fn adopt_methods(&mut self, owners: &[(DefIdx, String)]) {
        for (method, owner) in owners {
            let type_def = self.defs.iter().position(|d| {
                d.name == *owner
                    && matches!(
                        d.kind,
                        NodeKind::Struct
                            | NodeKind::Enum
                            | NodeKind::Trait
                            | NodeKind::Class
                            | NodeKind::Interface
                    )
            });
            if let (Some(type_def), Some(def)) = (type_def, self.defs.get_mut(*method as usize)) {
                def.parent = Some(type_def as DefIdx);
            }
        }
        self.adopt_by_compiled_alternatives();
    }

    /// Moves methods of real code adopted by a type in stand-in code (the first of `cfg`
    /// alternatives of one type) to the alternative of the type that is compiled, when there is
    /// one at the same level.
    pub fn adopt_by_compiled_alternatives(&mut self) {
        if self.test_spans.is_empty() {
            return;
        }
        for d in 0..self.defs.len() {
            let Some(owner) = self.defs[d].parent.map(|p| p as usize) else {
                continue;
            };
            let Some(o) = self.defs.get(owner) else {
                continue;
            };
            if self.defs[d].kind != NodeKind::Method
                || !o.kind.is_type()
                || !self.is_test_def(owner as DefIdx)
                || self.is_test_def(d as DefIdx)
            {
                continue;
            }
            let compiled = self.defs.iter().enumerate().position(|(i, t)| {
                t.name == o.name
                    && t.kind == o.kind
                    && t.parent == o.parent
                    && !self.is_test_def(i as DefIdx)
            });
            if let Some(compiled) = compiled {
                self.defs[d].parent = Some(compiled as DefIdx);
            }
        }
    }

    /// Whether `line` lies in code compiled for tests only.
    pub fn in_test_code(&self, line: u32) -> bool {
        self.test_spans
            .iter()
            .any(|&(start, end)| start <= line && line <= end)
    }

    /// Whether definition `def` lies in code compiled for tests only.
    pub fn is_test_def(&self, def: DefIdx) -> bool {
        self.defs
            .get(def as usize)
            .is_some_and(|d| self.in_test_code(d.start_line))
    }

    /// Of the definitions of one name at one level, in order, the one a reference to the name
    /// means: the last, unless it is one of several alternatives in branches, in which case the
    /// first alternative (the `try` side, the `if` side — what a type checker reports). Code
    /// compiled for tests only is passed over when anything else defines the name.
    pub fn visible_definition(&self, same_name: &[DefIdx]) -> Option<DefIdx> {
        let real: Vec<DefIdx>;
        let same_name =
            if self.test_spans.is_empty() || same_name.iter().all(|&d| self.is_test_def(d)) {
                same_name
            } else {
                real = same_name
                    .iter()
                    .copied()
                    .filter(|&d| !self.is_test_def(d))
                    .collect();
                &real
            };
        let last = *same_name.last()?;
        let is_conditional = |d: &DefIdx| self.defs.get(*d as usize).is_some_and(|x| x.conditional);
        if is_conditional(&last) {
            same_name.iter().copied().find(is_conditional)
        } else {
            Some(last)
        }
    }

    /// The enclosing class of a definition, if its parent is one.
    pub fn owner_class(&self, def: DefIdx) -> Option<DefIdx> {
        let parent = self.defs.get(def as usize)?.parent?;
        let kind = self.defs.get(parent as usize)?.kind;
        matches!(
            kind,
            NodeKind::Class
                | NodeKind::Struct
                | NodeKind::Interface
                | NodeKind::Trait
                | NodeKind::Enum
        )
        .then_some(parent)
    }
}

#[cfg(test)]
mod tests {
    use super::{DefIdx, FileFacts, NameList, NameRef};
    use crate::graph::RefKind;
    use crate::lang::Lang;

    #[test]
    fn a_packed_name_ref_gives_back_what_it_was_made_of() {
        let scopes: [Option<DefIdx>; 3] = [None, Some(0), Some(70_000)];
        for kind in RefKind::ALL {
            for scope in scopes {
                for line in [0, 1, 123_456, (u32::MAX >> 3) - 1] {
                    let r = NameRef::new(7, scope, line, kind);
                    assert_eq!(
                        (r.name, r.scope(), r.line(), r.kind()),
                        (7, scope, line, kind)
                    );
                }
            }
        }
        assert_eq!(size_of::<NameRef>(), 12);
        // A line past what the packing tells apart reads as the last one it does.
        let far = NameRef::new(0, None, u32::MAX, RefKind::Write);
        assert_eq!((far.line(), far.kind()), (u32::MAX >> 3, RefKind::Write));
    }

    #[test]
    fn a_name_ref_is_serialized_as_its_unpacked_fields() {
        #[derive(serde::Serialize)]
        struct Unpacked {
            name: u32,
            scope: Option<DefIdx>,
            line: u32,
            kind: RefKind,
        }
        let r = NameRef::new(3, Some(2), 41, RefKind::Type);
        let unpacked = Unpacked {
            name: 3,
            scope: Some(2),
            line: 41,
            kind: RefKind::Type,
        };
        let bytes = postcard::to_allocvec(&r).unwrap_or_default();
        assert_eq!(bytes, postcard::to_allocvec(&unpacked).unwrap_or_default());
        assert_eq!(postcard::from_bytes::<NameRef>(&bytes).ok(), Some(r));
    }

    #[test]
    fn repeated_locals_are_kept_once_where_first_seen() {
        let mut f = FileFacts::new("m.c", Lang::C);
        for (scope, name) in [
            (None, "MAX"),
            (Some(0), "i"),
            (Some(1), "i"),
            (Some(0), "i"),
            (None, "MAX"),
            (Some(0), "n"),
        ] {
            f.locals.push((scope, name.to_owned()));
        }
        f.drop_repeated_locals();
        let kept: Vec<(Option<DefIdx>, &str)> =
            f.locals.iter().map(|(s, n)| (*s, n.as_str())).collect();
        assert_eq!(
            kept,
            [
                (None, "MAX"),
                (Some(0), "i"),
                (Some(1), "i"),
                (Some(0), "n")
            ]
        );
    }

    #[test]
    fn a_name_list_gives_back_each_name_and_is_serialized_as_a_list_of_strings() {
        let names = ["Cart", "", "models.Model", "é"];
        let list: NameList = names.into_iter().collect();
        assert_eq!(list.len(), 4);
        assert_eq!(list.iter().collect::<Vec<_>>(), names);
        assert_eq!((list.get(2), list.get(4)), (Some("models.Model"), None));
        let as_strings: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let bytes = postcard::to_allocvec(&list).unwrap_or_default();
        assert_eq!(
            bytes,
            postcard::to_allocvec(&as_strings).unwrap_or_default()
        );
        assert_eq!(postcard::from_bytes::<NameList>(&bytes).ok(), Some(list));
    }
}
