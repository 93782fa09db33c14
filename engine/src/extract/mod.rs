//! Extractors: one tree-sitter walk per file turns source into `FileFacts`.
//! Walks are iterative (an explicit stack), so deeply nested code cannot overflow the wasm stack.

mod bash;
mod c;
mod comment_runs;
mod cpp;
mod csharp;
mod dart;
mod elixir;
mod go;
mod go_build;
mod java;
mod js;
mod kotlin;
mod lua;
mod php;
mod python;
mod receiver;
mod refs;
pub(crate) mod ruby;
mod rust;
mod rust_cfg;
mod scala;
mod scala_bare;
mod scala_repair;
mod swift;
#[cfg(test)]
mod test_facts;
mod ts_repair;
pub(crate) mod zig;

use tree_sitter::{Node, Parser, TreeCursor};

use super::facts::{CallSite, Callee, Def, FileFacts};
use super::graph::NodeKind;
use super::lang::Lang;
pub(crate) use dart::extension_on as dart_extension_on;
pub(crate) use kotlin::extension_receiver as kotlin_extension_receiver;
pub(crate) use receiver::ReceiverSyntax;
pub(crate) use scala::extension_receiver as scala_extension_receiver;

/// Longest signature kept, in characters.
const SIGNATURE_CHARS: usize = 160;
/// Longest doc line kept, in characters.
const DOC_CHARS: usize = 160;

/// Rust macros inside opened macros are opened on the next parse, at most this many times.
const MACRO_ROUNDS: usize = 3;

/// Reusable parsers, one per language (creating a parser per file is measurable on big repos),
/// and each language's reference syntax by node kind id.
#[derive(Default)]
pub struct Extractor {
    parsers: Vec<(Lang, Parser)>,
    ref_kinds: Vec<(Lang, Option<refs::RefKinds>)>,
}

impl Extractor {
    /// Parses and extracts one file. A file that cannot be parsed at all yields empty facts
    /// with one syntax error counted; partial parses keep what was understood.
    pub fn extract(&mut self, path: &str, lang: Lang, source: &str) -> FileFacts {
        let mut facts = FileFacts::new(path, lang);
        facts.lines = line_count(source);
        let parser = self.parser(lang);
        let parsed_text = match lang {
            Lang::Python => comment_runs::blank_long_comment_runs(source),
            Lang::TypeScript => ts_repair::repair(source, true),
            Lang::Tsx => ts_repair::repair(source, false),
            Lang::Scala => scala_repair::repair(source),
            _ => std::borrow::Cow::Borrowed(source),
        };
        let Some(tree) = parser.and_then(|p| p.parse(parsed_text.as_ref(), None)) else {
            facts.syntax_errors = 1;
            return facts;
        };
        // Rust items written inside brace-delimited macros (`cfg_x! { pub fn f() … }`) are
        // read as items: the macros' names and braces are blanked and the file parsed again.
        let mut tree = tree;
        if lang == Lang::Rust {
            let mut opened: Option<String> = None;
            for _ in 0..MACRO_ROUNDS {
                let now = opened.as_deref().unwrap_or(source);
                let Some((next, invocations)) = rust::unwrap_macros(tree.root_node(), now) else {
                    break;
                };
                facts.item_macros.extend(invocations);
                let Some(reparsed) = self.parser(lang).and_then(|p| p.parse(&next, None)) else {
                    break;
                };
                tree = reparsed;
                opened = Some(next);
            }
        }
        let root = tree.root_node();
        let src = source.as_bytes();
        match lang {
            Lang::Python => python::extract(root, src, &mut facts),
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js::extract(root, src, &mut facts),
            Lang::Rust => rust::extract(root, src, &mut facts),
            Lang::Go => go::extract(root, src, &mut facts),
            Lang::Java => java::extract(root, src, &mut facts),
            // C's extraction rides on the references walk below.
            Lang::C => {}
            Lang::Cpp => cpp::extract(root, src, &mut facts),
            Lang::CSharp => csharp::extract(root, src, &mut facts),
            Lang::Php => php::extract(root, src, &mut facts),
            Lang::Ruby => ruby::extract(root, src, &mut facts),
            Lang::Swift => swift::extract(root, src, &mut facts),
            Lang::Kotlin => kotlin::extract(root, src, &mut facts),
            Lang::Zig => zig::extract(root, src, &mut facts),
            Lang::Dart => dart::extract(root, src, &mut facts),
            // Elixir's extractor records its references itself (aliases expanded).
            Lang::Elixir => elixir::extract(root, src, &mut facts),
            Lang::Scala => scala::extract(root, src, &mut facts),
            Lang::Lua => lua::extract(root, src, &mut facts),
            Lang::Bash => bash::extract(root, src, &mut facts),
        }
        // Every language but Elixir has reference syntax (C's extraction needs it).
        if let Some(kinds) = self.ref_kinds(lang) {
            if lang == Lang::C {
                refs::extract(root, src, kinds, &mut facts, &mut c::Extraction);
                c::drop_repeated_calls(&mut facts);
            } else {
                refs::extract(root, src, kinds, &mut facts, &mut refs::Alone);
            }
        }
        facts.drop_repeated_locals();
        if root.has_error() {
            facts.syntax_errors = count_errors(root);
        }
        facts
    }

    /// `lang`'s reference syntax by kind id, made on first use; `None` where the extractor
    /// records references itself.
    fn ref_kinds(&mut self, lang: Lang) -> Option<&refs::RefKinds> {
        let index = match self.ref_kinds.iter().position(|(l, _)| *l == lang) {
            Some(index) => index,
            None => {
                self.ref_kinds.push((lang, refs::RefKinds::new(lang)));
                self.ref_kinds.len() - 1
            }
        };
        self.ref_kinds.get(index).and_then(|(_, k)| k.as_ref())
    }

    fn parser(&mut self, lang: Lang) -> Option<&mut Parser> {
        let index = match self.parsers.iter().position(|(l, _)| *l == lang) {
            Some(index) => index,
            None => {
                let mut parser = Parser::new();
                parser.set_language(&lang.grammar()).ok()?;
                self.parsers.push((lang, parser));
                self.parsers.len() - 1
            }
        };
        self.parsers.get_mut(index).map(|(_, p)| p)
    }
}

/// The lines `str::lines` yields (a last line needs no line break), counted without splitting.
fn line_count(source: &str) -> u32 {
    let breaks = source.bytes().filter(|&b| b == b'\n').count();
    let unterminated = !source.is_empty() && !source.ends_with('\n');
    (breaks + usize::from(unterminated)) as u32
}

fn count_errors(root: Node) -> u32 {
    let mut count = 0;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
            continue;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    count.max(1)
}

/// The source text of a node ("" if it is not valid UTF-8 at those bytes).
pub(crate) fn text<'s>(node: Node, src: &'s [u8]) -> &'s str {
    node.utf8_text(src).unwrap_or("")
}

pub(crate) fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
}

pub(crate) fn line(node: Node) -> u32 {
    node.start_position().row as u32 + 1
}

pub(crate) fn end_line(node: Node) -> u32 {
    node.end_position().row as u32 + 1
}

/// Pushes the named children of `node` onto a walk stack, first child on top, reusing one cursor
/// (the walk visits millions of nodes; a fresh cursor and vector per node was the main cost).
pub(crate) fn push_children<'t, T: Clone>(
    cursor: &mut TreeCursor<'t>,
    node: Node<'t>,
    tag: T,
    stack: &mut Vec<(Node<'t>, T)>,
) {
    let start = stack.len();
    cursor.reset(node);
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if child.is_named() {
                stack.push((child, tag.clone()));
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    stack[start..].reverse();
}

/// Records a call at `node`, made inside definition `scope` (`None`: at the file's top level).
pub(crate) fn push_call(facts: &mut FileFacts, scope: Option<u32>, callee: Callee, node: Node) {
    facts.calls.push(CallSite {
        caller: scope,
        callee,
        line: line(node),
        args: None,
    });
}

/// The named children of a node, collected (tree-sitter's iterator borrows a cursor).
pub(crate) fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Collapses whitespace and caps the length of a declaration header.
pub(crate) fn signature(header: &str) -> String {
    let mut out = String::with_capacity(header.len().min(SIGNATURE_CHARS));
    for word in header.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > SIGNATURE_CHARS {
            break;
        }
    }
    cap(out, SIGNATURE_CHARS)
}

/// The source from `node`'s start up to (not including) its `body` child.
pub(crate) fn header_before_body(node: Node, body: Option<Node>, src: &[u8]) -> String {
    let end = body.map_or(node.end_byte(), |b| b.start_byte());
    let bytes = src.get(node.start_byte()..end).unwrap_or_default();
    signature(String::from_utf8_lossy(bytes).trim_end_matches([':', '{', ' ', '\n']))
}

/// First non-empty line of a doc text with comment markers and quotes removed.
pub(crate) fn doc_line(raw: &str) -> String {
    let line = raw
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches("///")
                .trim_start_matches("//!")
                .trim_start_matches("//")
                .trim_start_matches("/**")
                .trim_start_matches("/*")
                .trim_start_matches('*')
                .trim_end_matches("*/")
                .trim_matches(|c| c == '"' || c == '\'')
                .trim_start_matches(['r', 'u', 'b', 'f'])
                .trim_matches(|c| c == '"' || c == '\'')
                .trim()
        })
        .find(|l| !l.is_empty())
        .unwrap_or("");
    cap(line.to_owned(), DOC_CHARS)
}

fn cap(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut cut = max;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

/// A definition with defaults, placed under `parent` (qualified name derived from it).
pub(crate) fn new_def(
    facts: &FileFacts,
    kind: NodeKind,
    name: &str,
    parent: Option<u32>,
    node: Node,
) -> Def {
    let qualified = match parent.and_then(|p| facts.defs.get(p as usize)) {
        Some(p) => format!("{}.{name}", p.qualified),
        None => name.to_owned(),
    };
    Def {
        kind,
        name: name.to_owned(),
        qualified,
        parent,
        start_line: line(node),
        end_line: end_line(node),
        signature: String::new(),
        doc: String::new(),
        extends: Vec::new(),
        implements: Vec::new(),
        exported: true,
        decorators: Vec::new(),
        returns: String::new(),
        returns_variable: String::new(),
        conditional: false,
    }
}

/// `raw` split at `separator` outside brackets (`<>`, `()`, `[]`, `{}`; the `>` of `=>` and
/// `->` closes none), each part trimmed, empty parts dropped: generic arguments, `cfg`
/// predicate lists, the members of a union type.
pub(crate) fn split_outside_brackets(raw: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut previous) = (0usize, 0, ' ');
    for (i, c) in raw.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' if matches!(previous, '=' | '-') => {}
            '>' | ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ if c == separator && depth == 0 => {
                parts.push(raw[start..i].trim());
                start = i + c.len_utf8();
            }
            _ => {}
        }
        previous = c;
    }
    parts.push(raw[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

/// Strips generic arguments and call parentheses: `Base[T]` → `Base`, `List<T>` → `List`.
pub(crate) fn strip_generics(expr: &str) -> String {
    let end = expr.find(['[', '<', '(']).unwrap_or(expr.len());
    expr[..end].trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_split_at_separators_outside_brackets_only() {
        assert_eq!(
            split_outside_brackets("HashMap<K, V>, Box<dyn Fn(A, B) -> C>, T", ','),
            ["HashMap<K, V>", "Box<dyn Fn(A, B) -> C>", "T"]
        );
        assert_eq!(
            split_outside_brackets("unix, not(any(a, b)),", ','),
            ["unix", "not(any(a, b))"]
        );
        assert_eq!(
            split_outside_brackets("A<B | C> | (() => D | E) | undefined", '|'),
            ["A<B | C>", "(() => D | E)", "undefined"]
        );
        assert!(split_outside_brackets("  ", ',').is_empty());
    }

    #[test]
    fn lines_are_counted_as_str_lines_yields_them() {
        for source in ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\n", "a\n\nb\n"] {
            assert_eq!(
                line_count(source),
                source.lines().count() as u32,
                "{source:?}"
            );
        }
    }

    #[test]
    fn signatures_collapse_whitespace_and_cap() {
        assert_eq!(signature("def  f(a,\n    b)"), "def f(a, b)");
        let long = format!("def f({})", "x, ".repeat(200));
        let sig = signature(&long);
        assert!(sig.chars().count() <= SIGNATURE_CHARS + 1 && sig.ends_with('…'));
    }

    #[test]
    fn doc_lines_lose_markers() {
        assert_eq!(
            doc_line("\"\"\"\n  Adds an item.\n  More.\"\"\""),
            "Adds an item."
        );
        assert_eq!(doc_line("/** Totals the cart. */"), "Totals the cart.");
        assert_eq!(doc_line("/// Runs it"), "Runs it");
    }

    #[test]
    fn generics_are_stripped() {
        assert_eq!(strip_generics("Base[T]"), "Base");
        assert_eq!(strip_generics("Map<K, V>"), "Map");
        assert_eq!(strip_generics("models.Model"), "models.Model");
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod fuzz_tests;
