//! Syntax classes for the code view: a file's text cut into lines of (class, text) pieces, from
//! the leaves of its tree-sitter tree. Files in no known language come back as plain text.

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser};

use super::lang::Lang;

/// What a piece of source text is, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Anything else.
    Plain,
    /// A keyword.
    Keyword,
    /// A string literal.
    String,
    /// A number literal.
    Number,
    /// A comment.
    Comment,
    /// A type name.
    Type,
    /// A function or method name.
    Function,
    /// A built-in constant (`true`, `None`, `null` …).
    Constant,
}

/// One line of a file: its pieces in order; their texts joined give the line.
pub type Line = Vec<(Class, String)>;

/// Files longer than this are shown as plain text: the code view stays quick.
const MAX_HIGHLIGHT_BYTES: usize = 512 * 1024;

/// The lines of `text`, with classes when `path` is in a language Nexus parses.
pub fn highlight(path: &str, text: &str) -> Vec<Line> {
    let mut spans = Vec::new();
    if text.len() <= MAX_HIGHLIGHT_BYTES
        && let Some(lang) = Lang::of_source(path, text)
    {
        let mut parser = Parser::new();
        if parser.set_language(&lang.grammar()).is_ok()
            && let Some(tree) = parser.parse(text, None)
        {
            collect(tree.root_node(), &mut spans);
        }
    }
    lines(text, &spans)
}

/// Leaves and whole strings/comments with a class other than plain, in text order.
fn collect(node: Node, spans: &mut Vec<(usize, usize, Class)>) {
    let kind = node.kind();
    if let Some(class) = whole_class(kind) {
        spans.push((node.start_byte(), node.end_byte(), class));
        return;
    }
    if node.child_count() == 0 {
        if let Some(class) = leaf_class(node) {
            spans.push((node.start_byte(), node.end_byte(), class));
        }
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, spans);
    }
}

/// Nodes coloured as one piece, whatever is inside.
fn whole_class(kind: &str) -> Option<Class> {
    if kind.contains("comment") {
        return Some(Class::Comment);
    }
    match kind {
        // Elixir's `nil`, `true` and `false` hold their keyword.
        "nil" | "boolean" => Some(Class::Constant),
        "string"
        | "string_literal"
        | "raw_string_literal"
        | "template_string"
        | "interpreted_string_literal"
        | "char_literal"
        | "character_literal"
        | "text_block"
        | "verbatim_string_literal"
        | "interpolated_string_expression"
        | "rune_literal"
        | "encapsed_string"
        | "heredoc"
        | "nowdoc"
        // Ruby's heredocs, symbols and regular expressions.
        | "heredoc_body"
        | "simple_symbol"
        | "delimited_symbol"
        | "regex"
        // Swift's string literals.
        | "line_string_literal"
        | "multi_line_string_literal"
        // Kotlin's.
        | "multiline_string_literal"
        // Elixir's atoms, sigils and charlists.
        | "atom"
        | "quoted_atom"
        | "sigil"
        | "charlist" => Some(Class::String),
        // Bash's single-quoted and `$'…'` strings.
        | "raw_string"
        | "ansi_c_string" => Some(Class::String),
        _ => None,
    }
}

fn leaf_class(node: Node) -> Option<Class> {
    let kind = node.kind();
    if !node.is_named() {
        // Built-in constants some grammars write as anonymous leaves (Zig's `null`, `true`).
        if matches!(kind, "null" | "undefined" | "true" | "false") {
            return Some(Class::Constant);
        }
        // Anonymous leaves are punctuation or keywords; keywords are words.
        return kind
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_')
            .then_some(Class::Keyword);
    }
    if kind.contains("integer")
        || kind.contains("float")
        || kind.contains("number")
        || kind == "real_literal"
    {
        return Some(Class::Number);
    }
    match kind {
        "true" | "false" | "none" | "None" | "null" | "nil" | "undefined" | "boolean_literal"
        | "boolean" | "nil_literal" | "null_literal" => Some(Class::Constant),
        // Ruby's constants name classes and modules.
        "type_identifier" | "primitive_type" | "predefined_type" | "constant" => Some(Class::Type),
        // Zig's `u8`, `void`, `type` and its builtins (`@import`, `@This`).
        "builtin_type" => Some(Class::Type),
        "builtin_identifier" => Some(Class::Function),
        // Elixir's module names.
        "alias" => Some(Class::Type),
        // Swift's names: a function's own, what a call calls (`f(…)`, `x.f(…)`).
        "simple_identifier" => swift_function_name(node).then_some(Class::Function),
        // Bash's words: a function's own name, and the name a command runs.
        "word" => bash_function_name(node).then_some(Class::Function),
        // PHP's names are `name` leaves.
        "identifier" | "property_identifier" | "field_identifier" | "name" => {
            let parent = node.parent()?;
            if let Some(class) = kotlin_name_class(node, parent) {
                return Some(class);
            }
            if let Some(class) = zig_type_name(node, parent) {
                return Some(class);
            }
            if let Some(class) = dart_name_class(node, parent) {
                return Some(class);
            }
            if elixir_called(node, parent) {
                return Some(Class::Function);
            }
            if lua_member_function(node, parent) {
                return Some(Class::Function);
            }
            let is_field = |parent: Node, field: &str| {
                parent
                    .child_by_field_name(field)
                    .is_some_and(|n| n.id() == node.id())
            };
            // C++ names a function through a scope or an object (`A::f`, `obj.f()`): what the
            // whole name stands in decides.
            let (node, parent) = match parent.kind() {
                "qualified_identifier" if is_field(parent, "name") => (parent, parent.parent()?),
                "field_expression" if is_field(parent, "field") => (parent, parent.parent()?),
                // Zig's `obj.f()`.
                "field_expression" if is_field(parent, "member") => (parent, parent.parent()?),
                // C#'s `obj.M()`.
                "member_access_expression" if is_field(parent, "name") => {
                    (parent, parent.parent()?)
                }
                _ => (node, parent),
            };
            let named_by = |field: &str| {
                parent
                    .child_by_field_name(field)
                    .is_some_and(|n| n.id() == node.id())
            };
            // (Not Scala's `class_parameter`.)
            let declares_type = (parent.kind().contains("class")
                && !parent.kind().ends_with("parameter"))
                || matches!(
                    parent.kind(),
                    "struct_declaration"
                        | "interface_declaration"
                        | "trait_declaration"
                        | "enum_declaration"
                        | "record_declaration"
                        | "object_declaration"
                        // Scala's.
                        | "trait_definition"
                        | "object_definition"
                        | "enum_definition"
                );
            if (declares_type && named_by("name")) || parent.kind() == "named_type" {
                Some(Class::Type)
            } else if ((parent.kind().contains("function")
                || parent.kind().contains("method")
                || parent.kind() == "constructor_declaration"
                // PHP's `$o->f()`, `T::f()`.
                || parent.kind().ends_with("call_expression"))
                && named_by("name"))
                || ((parent.kind().contains("call") || parent.kind() == "invocation_expression")
                    && named_by("function"))
                // Ruby's `recv.m`, `m(x)`, `m x`.
                || (parent.kind() == "call" && named_by("method"))
                // C names a function in its declarator (`int add(int a)`).
                || (parent.kind() == "function_declarator" && named_by("declarator"))
            {
                Some(Class::Function)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether an Elixir name is what a call calls: `f(…)`, `Mod.f(…)`, and the macros that
/// define (`def`, `defmodule`), all calls in Elixir's tree.
fn elixir_called(node: Node, parent: Node) -> bool {
    let is_target = |call: Node, target: Node| {
        call.kind() == "call"
            && call
                .child_by_field_name("target")
                .is_some_and(|t| t.id() == target.id())
    };
    is_target(parent, node)
        || (parent.kind() == "dot"
            && parent
                .child_by_field_name("right")
                .is_some_and(|r| r.id() == node.id())
            && parent.parent().is_some_and(|call| is_target(call, parent)))
}

/// Whether a Swift name is a function's: the name a `func` declares, or the name a call calls
/// (`f(…)`, `x.f(…)`).
fn swift_function_name(node: Node) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    match parent.kind() {
        "function_declaration" | "protocol_function_declaration" => parent
            .child_by_field_name("name")
            .is_some_and(|n| n.id() == node.id()),
        "call_expression" => parent.child(0).is_some_and(|n| n.id() == node.id()),
        "navigation_suffix" => parent
            .parent()
            .and_then(|nav| Some((nav, nav.parent()?)))
            .is_some_and(|(nav, call)| {
                call.kind() == "call_expression"
                    && call.child(0).is_some_and(|c| c.id() == nav.id())
            }),
        _ => false,
    }
}

/// Whether a Bash word names a function: the name a function definition gives, or the name
/// of a command.
fn bash_function_name(node: Node) -> bool {
    node.parent().is_some_and(|parent| match parent.kind() {
        "function_definition" => parent
            .child_by_field_name("name")
            .is_some_and(|n| n.id() == node.id()),
        "command_name" => true,
        _ => false,
    })
}

/// Whether a Lua name is the function of a member: `f` in `function M.f()`, `function M:f()`,
/// `M.f(…)`, `obj:f(…)`.
fn lua_member_function(node: Node, parent: Node) -> bool {
    let member = match parent.kind() {
        "dot_index_expression" => parent.child_by_field_name("field"),
        "method_index_expression" => parent.child_by_field_name("method"),
        _ => return false,
    };
    member.is_some_and(|m| m.id() == node.id())
        && parent.parent().is_some_and(|outer| {
            matches!(outer.kind(), "function_call" | "function_declaration")
                && outer
                    .child_by_field_name("name")
                    .is_some_and(|n| n.id() == parent.id())
        })
}

/// Kotlin's names whose kinds carry no field: a type (`user_type`), what a call calls (`f` in
/// `f()`, `g` in `a.g()`); `None` for a name of another language or another place.
fn kotlin_name_class(node: Node, parent: Node) -> Option<Class> {
    let first_of =
        |outer: Node, inner: Node| outer.named_child(0).is_some_and(|c| c.id() == inner.id());
    match parent.kind() {
        "user_type" => Some(Class::Type),
        "call_expression" if first_of(parent, node) => Some(Class::Function),
        "navigation_expression" if !first_of(parent, node) => {
            let outer = parent.parent()?;
            (outer.kind() == "call_expression" && first_of(outer, parent))
                .then_some(Class::Function)
        }
        _ => None,
    }
}

/// Zig's names of types: a container's (`const Cart = struct { … }`) and a name written as a
/// type (`x: Cart`, `fn f() Cart`, `*Cart`); `None` for any other name.
fn zig_type_name(node: Node, parent: Node) -> Option<Class> {
    let declares_container = parent.kind() == "variable_declaration"
        && node.next_named_sibling().is_some_and(|value| {
            matches!(
                value.kind(),
                "struct_declaration"
                    | "enum_declaration"
                    | "union_declaration"
                    | "opaque_declaration"
            )
        });
    let typed = |holder: Node| {
        matches!(
            holder.kind(),
            "parameter" | "container_field" | "function_declaration" | "variable_declaration"
        ) && holder
            .child_by_field_name("type")
            .is_some_and(|t| t.id() == node.id())
    };
    let in_type = typed(parent)
        || (matches!(
            parent.kind(),
            "pointer_type" | "nullable_type" | "slice_type"
        ) && parent.parent().is_some_and(typed));
    (declares_container || in_type).then_some(Class::Type)
}

/// Dart's names the shared rules miss: a mixin's or extension's name, a getter's or setter's,
/// and the method a call or cascade calls (`x.f()`, `x?.f()`, `x..f()`); `None` elsewhere.
fn dart_name_class(node: Node, parent: Node) -> Option<Class> {
    let is_field = |outer: Node, field: &str, inner: Node| {
        outer
            .child_by_field_name(field)
            .is_some_and(|n| n.id() == inner.id())
    };
    match parent.kind() {
        "mixin_declaration" | "extension_declaration" if is_field(parent, "name", node) => {
            Some(Class::Type)
        }
        "getter_signature" | "setter_signature" | "cascade_call_expression"
            if is_field(parent, "name", node) || is_field(parent, "property", node) =>
        {
            Some(Class::Function)
        }
        "member_expression" | "null_aware_member_expression"
            if is_field(parent, "property", node) =>
        {
            let outer = parent.parent()?;
            (outer.kind() == "call_expression" && is_field(outer, "function", parent))
                .then_some(Class::Function)
        }
        _ => None,
    }
}

/// Cuts `text` into lines and the spans into pieces per line; gaps are plain.
fn lines(text: &str, spans: &[(usize, usize, Class)]) -> Vec<Line> {
    let mut out = Vec::new();
    let mut span = 0;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let (start, end) = (line_start, line_start + body.len());
        line_start += line.len();
        let mut pieces: Line = Vec::new();
        let mut at = start;
        while span < spans.len() && spans[span].1 <= start {
            span += 1;
        }
        let mut s = span;
        while s < spans.len() && spans[s].0 < end {
            let (from, to, class) = spans[s];
            let (from, to) = (from.max(at), to.min(end));
            if from > at {
                push(&mut pieces, Class::Plain, text.get(at..from));
            }
            if to > from {
                push(&mut pieces, class, text.get(from..to));
                at = to;
            }
            if spans[s].1 > end {
                break;
            }
            s += 1;
        }
        if at < end {
            push(&mut pieces, Class::Plain, text.get(at..end));
        }
        out.push(pieces);
    }
    out
}

fn push(pieces: &mut Line, class: Class, text: Option<&str>) {
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        pieces.push((class, text.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(line: &Line) -> String {
        line.iter().map(|(_, t)| t.as_str()).collect()
    }

    fn class_of(lines: &[Line], text: &str) -> Option<Class> {
        lines
            .iter()
            .flatten()
            .find(|(_, t)| t == text)
            .map(|(c, _)| *c)
    }

    #[test]
    fn pieces_rebuild_every_line() {
        let text =
            "def add(a, b):\n    \"\"\"Sum.\n    two lines\"\"\"\n    return a + b  # done\n";
        let lines = highlight("m.py", text);
        let rebuilt: Vec<String> = lines.iter().map(joined).collect();
        let expected: Vec<&str> = text.lines().collect();
        assert_eq!(rebuilt, expected);
    }

    #[test]
    fn python_keywords_strings_comments_and_names() {
        let lines = highlight(
            "m.py",
            "class Cart:\n    def add(self):\n        return len('x')  # n\n",
        );
        assert_eq!(class_of(&lines, "class"), Some(Class::Keyword));
        assert_eq!(class_of(&lines, "Cart"), Some(Class::Type));
        assert_eq!(class_of(&lines, "add"), Some(Class::Function));
        assert_eq!(class_of(&lines, "len"), Some(Class::Function));
        assert_eq!(class_of(&lines, "'x'"), Some(Class::String));
        assert_eq!(class_of(&lines, "# n"), Some(Class::Comment));
        assert_eq!(class_of(&lines, "return"), Some(Class::Keyword));
    }

    #[test]
    fn rust_and_typescript_are_coloured_too() {
        let rust = highlight("a.rs", "fn main() { let x: u32 = 1; }\n");
        assert_eq!(class_of(&rust, "fn"), Some(Class::Keyword));
        assert_eq!(class_of(&rust, "main"), Some(Class::Function));
        assert_eq!(class_of(&rust, "u32"), Some(Class::Type));
        assert_eq!(class_of(&rust, "1"), Some(Class::Number));
        let ts = highlight("a.ts", "const n: number = f(`t`);\n");
        assert_eq!(class_of(&ts, "const"), Some(Class::Keyword));
        assert_eq!(class_of(&ts, "f"), Some(Class::Function));
    }

    #[test]
    fn c_is_coloured_too() {
        let c = highlight(
            "a.c",
            "#include <stdio.h>\n/* note */\nint add(int a) { return helper(a, \"x\", 1); }\n",
        );
        assert_eq!(class_of(&c, "add"), Some(Class::Function));
        assert_eq!(class_of(&c, "helper"), Some(Class::Function));
        assert_eq!(class_of(&c, "int"), Some(Class::Type));
        assert_eq!(class_of(&c, "return"), Some(Class::Keyword));
        assert_eq!(class_of(&c, "\"x\""), Some(Class::String));
        assert_eq!(class_of(&c, "/* note */"), Some(Class::Comment));
        assert_eq!(class_of(&c, "1"), Some(Class::Number));
    }

    #[test]
    fn cpp_is_coloured_too() {
        let cpp = highlight(
            "a.cc",
            "namespace db {\nclass Table {\n  int size() const;\n};\nint Table::size() const { return rows.count() + Util::clamp(1); }\n}\n",
        );
        assert_eq!(class_of(&cpp, "Table"), Some(Class::Type));
        assert_eq!(class_of(&cpp, "size"), Some(Class::Function));
        assert_eq!(class_of(&cpp, "count"), Some(Class::Function));
        assert_eq!(class_of(&cpp, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&cpp, "namespace"), Some(Class::Keyword));
        assert_eq!(class_of(&cpp, "rows"), None);
        // A `.h` header written in C++ is coloured as C++.
        let header = highlight("a.h", "class Table {\n public:\n  int size() const;\n};\n");
        assert_eq!(class_of(&header, "public"), Some(Class::Keyword));
    }

    #[test]
    fn csharp_is_coloured_too() {
        let cs = highlight(
            "A.cs",
            "namespace Shop {\ninterface ITable { }\nclass Table : ITable {\n  Table() { }\n  int Size() { return rows.Count(@\"x\"); }\n}\n}\n",
        );
        assert_eq!(class_of(&cs, "ITable"), Some(Class::Type));
        assert_eq!(class_of(&cs, "Size"), Some(Class::Function));
        assert_eq!(class_of(&cs, "Count"), Some(Class::Function));
        assert_eq!(class_of(&cs, "@\"x\""), Some(Class::String));
        assert_eq!(class_of(&cs, "namespace"), Some(Class::Keyword));
        assert_eq!(class_of(&cs, "rows"), None);
    }

    #[test]
    fn kotlin_is_coloured_too() {
        let kt = highlight(
            "A.kt",
            "package shop\n// note\nclass Table(val rows: Rows) : Sized {\n  fun size(): Int = rows.count(\"x\") + clamp(1)\n}\nobject Util\n",
        );
        assert_eq!(class_of(&kt, "Table"), Some(Class::Type));
        assert_eq!(class_of(&kt, "Util"), Some(Class::Type));
        assert_eq!(class_of(&kt, "Rows"), Some(Class::Type));
        assert_eq!(class_of(&kt, "Sized"), Some(Class::Type));
        assert_eq!(class_of(&kt, "size"), Some(Class::Function));
        assert_eq!(class_of(&kt, "count"), Some(Class::Function));
        assert_eq!(class_of(&kt, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&kt, "fun"), Some(Class::Keyword));
        assert_eq!(class_of(&kt, "\"x\""), Some(Class::String));
        assert_eq!(class_of(&kt, "// note"), Some(Class::Comment));
        assert_eq!(class_of(&kt, "rows"), None);
    }

    #[test]
    fn dart_is_coloured_too() {
        let dart = highlight(
            "lib/a.dart",
            "// note\nmixin Sized {}\nclass Table extends Base with Sized {\n  Rows rows;\n  int get size => rows.count('x') + clamp(1);\n  void f() { rows?.drop(); rows..add(null)..clear(); }\n}\n",
        );
        assert_eq!(class_of(&dart, "Table"), Some(Class::Type));
        assert_eq!(class_of(&dart, "Sized"), Some(Class::Type));
        assert_eq!(class_of(&dart, "Rows"), Some(Class::Type));
        assert_eq!(class_of(&dart, "size"), Some(Class::Function));
        assert_eq!(class_of(&dart, "count"), Some(Class::Function));
        assert_eq!(class_of(&dart, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&dart, "drop"), Some(Class::Function));
        assert_eq!(class_of(&dart, "clear"), Some(Class::Function));
        assert_eq!(class_of(&dart, "f"), Some(Class::Function));
        assert_eq!(class_of(&dart, "class"), Some(Class::Keyword));
        assert_eq!(class_of(&dart, "null"), Some(Class::Constant));
        assert_eq!(class_of(&dart, "'x'"), Some(Class::String));
        assert_eq!(class_of(&dart, "// note"), Some(Class::Comment));
        assert_eq!(class_of(&dart, "rows"), None);
    }

    #[test]
    fn scala_is_coloured_too() {
        let scala = highlight(
            "A.scala",
            "package shop\n// note\ntrait Sized\nclass Table(val rows: Rows) extends Sized {\n  def size: Int = rows.count(\"x\") + clamp(1)\n}\nobject Util\n",
        );
        assert_eq!(class_of(&scala, "Table"), Some(Class::Type));
        assert_eq!(class_of(&scala, "Util"), Some(Class::Type));
        assert_eq!(class_of(&scala, "Rows"), Some(Class::Type));
        assert_eq!(class_of(&scala, "Sized"), Some(Class::Type));
        assert_eq!(class_of(&scala, "size"), Some(Class::Function));
        assert_eq!(class_of(&scala, "count"), Some(Class::Function));
        assert_eq!(class_of(&scala, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&scala, "def"), Some(Class::Keyword));
        assert_eq!(class_of(&scala, "\"x\""), Some(Class::String));
        assert_eq!(class_of(&scala, "// note"), Some(Class::Comment));
        assert_eq!(class_of(&scala, "rows"), None);
    }

    #[test]
    fn lua_is_coloured_too() {
        let lua = highlight(
            "a.lua",
            "-- note\nlocal M = {}\nfunction M.size(r)\n  return r:count(1) + clamp(\"x\") or nil\nend\nfunction M:grow() end\n",
        );
        assert_eq!(class_of(&lua, "size"), Some(Class::Function));
        assert_eq!(class_of(&lua, "grow"), Some(Class::Function));
        assert_eq!(class_of(&lua, "count"), Some(Class::Function));
        assert_eq!(class_of(&lua, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&lua, "local"), Some(Class::Keyword));
        assert_eq!(class_of(&lua, "\"x\""), Some(Class::String));
        assert_eq!(class_of(&lua, "1"), Some(Class::Number));
        assert_eq!(class_of(&lua, "-- note"), Some(Class::Comment));
        assert_eq!(class_of(&lua, "nil"), Some(Class::Constant));
        assert_eq!(class_of(&lua, "r"), None);
    }

    #[test]
    fn bash_is_coloured_too() {
        let sh = highlight(
            "a.sh",
            "# note\nbuild() {\n  local out='x'\n  grep -q \"$1\" file && build_more\n}\n",
        );
        assert_eq!(class_of(&sh, "build"), Some(Class::Function));
        assert_eq!(class_of(&sh, "grep"), Some(Class::Function));
        assert_eq!(class_of(&sh, "build_more"), Some(Class::Function));
        assert_eq!(class_of(&sh, "'x'"), Some(Class::String));
        assert_eq!(class_of(&sh, "\"$1\""), Some(Class::String));
        assert_eq!(class_of(&sh, "# note"), Some(Class::Comment));
        assert_eq!(class_of(&sh, "local"), Some(Class::Keyword));
        assert_eq!(class_of(&sh, "file"), None);
    }

    #[test]
    fn php_is_coloured_too() {
        let php = highlight(
            "a.php",
            "<p>hi</p><?php\n// note\ninterface Sized {}\nclass Table implements Sized {\n  public function size(Row $r): int { return $this->rows->count() + Util::clamp(1) + strlen(\"x$r\") && true; }\n}\n",
        );
        assert_eq!(class_of(&php, "Table"), Some(Class::Type));
        assert_eq!(class_of(&php, "Sized"), Some(Class::Type));
        assert_eq!(class_of(&php, "Row"), Some(Class::Type));
        assert_eq!(class_of(&php, "size"), Some(Class::Function));
        assert_eq!(class_of(&php, "count"), Some(Class::Function));
        assert_eq!(class_of(&php, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&php, "strlen"), Some(Class::Function));
        assert_eq!(class_of(&php, "function"), Some(Class::Keyword));
        assert_eq!(class_of(&php, "\"x$r\""), Some(Class::String));
        assert_eq!(class_of(&php, "// note"), Some(Class::Comment));
        assert_eq!(class_of(&php, "true"), Some(Class::Constant));
        assert_eq!(class_of(&php, "rows"), None);
    }

    #[test]
    fn ruby_is_coloured_too() {
        let rb = highlight(
            "a.rb",
            "# note\nclass Table < Base\n  def size(r)\n    rows.count + Util.clamp(1, :x) if true\n    log \"x#{r}\"\n  end\nend\n",
        );
        assert_eq!(class_of(&rb, "Table"), Some(Class::Type));
        assert_eq!(class_of(&rb, "Base"), Some(Class::Type));
        assert_eq!(class_of(&rb, "size"), Some(Class::Function));
        assert_eq!(class_of(&rb, "count"), Some(Class::Function));
        assert_eq!(class_of(&rb, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&rb, "log"), Some(Class::Function));
        assert_eq!(class_of(&rb, "def"), Some(Class::Keyword));
        assert_eq!(class_of(&rb, ":x"), Some(Class::String));
        assert_eq!(class_of(&rb, "\"x#{r}\""), Some(Class::String));
        assert_eq!(class_of(&rb, "# note"), Some(Class::Comment));
        assert_eq!(class_of(&rb, "true"), Some(Class::Constant));
        assert_eq!(class_of(&rb, "rows"), None);
    }

    #[test]
    fn elixir_is_coloured_too() {
        let ex = highlight(
            "a.ex",
            "# note\ndefmodule Shop.Cart do\n  def size(r) do\n    rows |> Enum.count() |> clamp(:x, 1.5, nil)\n    \"x#{r}\"\n  end\nend\n",
        );
        assert_eq!(class_of(&ex, "Shop.Cart"), Some(Class::Type));
        assert_eq!(class_of(&ex, "Enum"), Some(Class::Type));
        assert_eq!(class_of(&ex, "size"), Some(Class::Function));
        assert_eq!(class_of(&ex, "count"), Some(Class::Function));
        assert_eq!(class_of(&ex, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&ex, "do"), Some(Class::Keyword));
        assert_eq!(class_of(&ex, ":x"), Some(Class::String));
        assert_eq!(class_of(&ex, "1.5"), Some(Class::Number));
        assert_eq!(class_of(&ex, "nil"), Some(Class::Constant));
        assert_eq!(class_of(&ex, "\"x#{r}\""), Some(Class::String));
        assert_eq!(class_of(&ex, "# note"), Some(Class::Comment));
        assert_eq!(class_of(&ex, "rows"), None);
    }

    #[test]
    fn swift_is_coloured_too() {
        let swift = highlight(
            "A.swift",
            "// note\nprotocol Sized {}\nclass Table: Sized {\n  func size(r: Row) -> Int {\n    let n = rows.count(\"x\")\n    return clamp(1.5)\n  }\n  let x = nil\n}\n",
        );
        assert_eq!(class_of(&swift, "Table"), Some(Class::Type));
        assert_eq!(class_of(&swift, "Sized"), Some(Class::Type));
        assert_eq!(class_of(&swift, "Row"), Some(Class::Type));
        assert_eq!(class_of(&swift, "size"), Some(Class::Function));
        assert_eq!(class_of(&swift, "count"), Some(Class::Function));
        assert_eq!(class_of(&swift, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&swift, "func"), Some(Class::Keyword));
        assert_eq!(class_of(&swift, "\"x\""), Some(Class::String));
        assert_eq!(class_of(&swift, "1.5"), Some(Class::Number));
        assert_eq!(class_of(&swift, "nil"), Some(Class::Constant));
        assert_eq!(class_of(&swift, "// note"), Some(Class::Comment));
        assert_eq!(class_of(&swift, "rows"), None);
    }

    #[test]
    fn zig_is_coloured_too() {
        let zig = highlight(
            "a.zig",
            "// note\nconst Table = struct {\n    pub fn size(self: *Table, r: Row) u8 {\n        return rows.count(\"x\") + clamp(1.5) + @intCast(null);\n    }\n};\n",
        );
        assert_eq!(class_of(&zig, "Table"), Some(Class::Type));
        assert_eq!(class_of(&zig, "Row"), Some(Class::Type));
        assert_eq!(class_of(&zig, "u8"), Some(Class::Type));
        assert_eq!(class_of(&zig, "size"), Some(Class::Function));
        assert_eq!(class_of(&zig, "count"), Some(Class::Function));
        assert_eq!(class_of(&zig, "clamp"), Some(Class::Function));
        assert_eq!(class_of(&zig, "@intCast"), Some(Class::Function));
        assert_eq!(class_of(&zig, "fn"), Some(Class::Keyword));
        assert_eq!(class_of(&zig, "\"x\""), Some(Class::String));
        assert_eq!(class_of(&zig, "1.5"), Some(Class::Number));
        assert_eq!(class_of(&zig, "null"), Some(Class::Constant));
        assert_eq!(class_of(&zig, "// note"), Some(Class::Comment));
        assert_eq!(class_of(&zig, "rows"), None);
    }

    #[test]
    fn unknown_languages_and_odd_text_are_plain() {
        let lines = highlight("notes.txt", "a\r\n\nb");
        assert_eq!(lines.len(), 3);
        assert!(lines.iter().flatten().all(|(c, _)| *c == Class::Plain));
        assert_eq!(joined(&lines[0]), "a");
        assert!(highlight("x.py", "").is_empty());
        let broken = highlight("x.py", "def (:\n  é = '\n");
        assert_eq!(broken.len(), 2);
        assert_eq!(joined(&broken[1]), "  é = '");
    }
}
