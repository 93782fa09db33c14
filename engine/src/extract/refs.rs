//! Names used without being called or defined — types, values passed, reads, writes — as
//! `FileFacts::refs`, one walk per file driven by each language's `RefSyntax` table.

use std::borrow::Cow;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tree_sitter::{Node, TreeCursor};

use super::text;
use crate::facts::{DefIdx, FileFacts, NameRef};
use crate::graph::RefKind;
use crate::lang::Lang;

/// Names that never stand for a project symbol.
const NEVER_SYMBOLS: &[&str] = &[
    "self",
    "Self",
    "this",
    "cls",
    "super",
    "None",
    "True",
    "False",
    "null",
    "undefined",
    "nil",
    "true",
    "false",
    "_",
    "NULL",
];

/// A language's syntax as far as references go: which nodes name things, which are chains of
/// names (`a.b.C`), calls (their function is left to call extraction), and which places make
/// a name a type, a binding, a write or an argument.
struct RefSyntax {
    /// Leaves naming something.
    names: &'static [&'static str],
    /// Leaves that always name a type.
    type_names: &'static [&'static str],
    /// Chains: (kind, object field, member field).
    chains: &'static [(&'static str, &'static str, &'static str)],
    /// Chains that always name a type.
    type_chains: &'static [&'static str],
    /// Calls: (kind, the field holding what is called).
    calls: &'static [(&'static str, &'static str)],
    /// Subtrees never read: literals, comments, preprocessor conditions.
    skipped: &'static [&'static str],
    /// Import statements: each name in them is an import reference.
    imports: &'static [&'static str],
    /// Heritage lists, as nodes or (kind, field): names in them are bases.
    heritage: &'static [&'static str],
    heritage_fields: &'static [(&'static str, &'static str)],
    /// Nodes whose names are types.
    type_contexts: &'static [&'static str],
    /// Nodes whose names are bound (parameters, patterns): locals, not references.
    bindings: &'static [&'static str],
    /// Fields that bind names: (kind, field).
    binding_fields: &'static [(&'static str, &'static str)],
    /// Fields written to: (kind, field).
    written_fields: &'static [(&'static str, &'static str)],
    /// Argument lists: names in them are passed as values.
    arguments: &'static [&'static str],
    /// Fields read even inside a binding (a parameter's default value).
    read_fields: &'static [&'static str],
    /// Parents whose `name` field is a use, not a definition (JSX elements, C `struct s` with
    /// no body).
    name_uses: &'static [&'static str],
}

const PYTHON: RefSyntax = RefSyntax {
    names: &["identifier"],
    type_names: &[],
    chains: &[("attribute", "object", "attribute")],
    type_chains: &[],
    calls: &[("call", "function")],
    skipped: &[
        "future_import_statement",
        "string",
        "comment",
        "global_statement",
        "nonlocal_statement",
    ],
    imports: &["import_statement", "import_from_statement"],
    heritage: &[],
    heritage_fields: &[("class_definition", "superclasses")],
    type_contexts: &["type"],
    bindings: &["parameters", "lambda_parameters"],
    binding_fields: &[
        ("for_statement", "left"),
        ("for_in_clause", "left"),
        ("as_pattern", "alias"),
    ],
    written_fields: &[("assignment", "left"), ("augmented_assignment", "left")],
    arguments: &["argument_list"],
    read_fields: &["value", "type"],
    name_uses: &[],
};

const JS: RefSyntax = RefSyntax {
    names: &["identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[
        ("member_expression", "object", "property"),
        ("nested_type_identifier", "module", "name"),
    ],
    type_chains: &["nested_type_identifier"],
    calls: &[
        ("call_expression", "function"),
        ("new_expression", "constructor"),
    ],
    skipped: &["string", "template_string", "comment", "regex"],
    imports: &["import_statement"],
    heritage: &["class_heritage", "extends_type_clause"],
    heritage_fields: &[],
    type_contexts: &["type_annotation", "type_arguments"],
    bindings: &["formal_parameters"],
    binding_fields: &[
        ("variable_declarator", "name"),
        ("for_in_statement", "left"),
        ("catch_clause", "parameter"),
    ],
    written_fields: &[
        ("assignment_expression", "left"),
        ("augmented_assignment_expression", "left"),
    ],
    arguments: &["arguments"],
    read_fields: &["value", "type"],
    name_uses: &[
        "jsx_opening_element",
        "jsx_self_closing_element",
        "jsx_closing_element",
    ],
};

const RUST: RefSyntax = RefSyntax {
    names: &["identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[
        ("scoped_identifier", "path", "name"),
        ("scoped_type_identifier", "path", "name"),
    ],
    type_chains: &["scoped_type_identifier"],
    calls: &[
        ("call_expression", "function"),
        ("macro_invocation", "macro"),
    ],
    skipped: &[
        "line_comment",
        "block_comment",
        "string_literal",
        "raw_string_literal",
        "attribute_item",
        "inner_attribute_item",
        "lifetime",
        "field_identifier",
        "extern_crate_declaration",
    ],
    imports: &["use_declaration"],
    heritage: &[],
    heritage_fields: &[("impl_item", "trait")],
    type_contexts: &[],
    bindings: &["parameters", "closure_parameters", "match_pattern"],
    binding_fields: &[
        ("let_declaration", "pattern"),
        ("for_expression", "pattern"),
        ("let_condition", "pattern"),
    ],
    written_fields: &[
        ("assignment_expression", "left"),
        ("compound_assignment_expr", "left"),
    ],
    arguments: &["arguments"],
    read_fields: &["type", "value"],
    name_uses: &[],
};

const GO: RefSyntax = RefSyntax {
    names: &["identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[
        ("selector_expression", "operand", "field"),
        ("qualified_type", "package", "name"),
    ],
    type_chains: &["qualified_type"],
    calls: &[("call_expression", "function")],
    skipped: &[
        "import_declaration",
        "package_clause",
        "comment",
        "interpreted_string_literal",
        "raw_string_literal",
    ],
    imports: &[],
    heritage: &[],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &["parameter_list"],
    binding_fields: &[
        ("short_var_declaration", "left"),
        ("range_clause", "left"),
        ("var_spec", "name"),
    ],
    written_fields: &[("assignment_statement", "left")],
    arguments: &["argument_list"],
    read_fields: &["type"],
    name_uses: &[],
};

const JAVA: RefSyntax = RefSyntax {
    names: &["identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[
        ("field_access", "object", "field"),
        ("scoped_type_identifier", "scope", "name"),
    ],
    type_chains: &["scoped_type_identifier"],
    calls: &[
        ("method_invocation", "name"),
        ("object_creation_expression", "type"),
    ],
    skipped: &[
        "package_declaration",
        "line_comment",
        "block_comment",
        "string_literal",
        "marker_annotation",
        "annotation",
    ],
    imports: &["import_declaration"],
    heritage: &["superclass", "super_interfaces", "extends_interfaces"],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &["formal_parameters", "catch_formal_parameter"],
    binding_fields: &[("variable_declarator", "name")],
    written_fields: &[("assignment_expression", "left")],
    arguments: &["argument_list"],
    read_fields: &["type", "value"],
    name_uses: &[],
};

/// C#'s table: type names are plain identifiers, `using` directives name namespaces (no
/// references), attributes are left out as Java's annotations are.
const CSHARP: RefSyntax = RefSyntax {
    names: &["identifier"],
    type_names: &[],
    chains: &[
        ("member_access_expression", "expression", "name"),
        ("qualified_name", "qualifier", "name"),
    ],
    type_chains: &["qualified_name"],
    calls: &[
        ("invocation_expression", "function"),
        ("object_creation_expression", "type"),
    ],
    skipped: &[
        "using_directive",
        "comment",
        "string_literal",
        "verbatim_string_literal",
        "raw_string_literal",
        "attribute_list",
    ],
    imports: &[],
    heritage: &["base_list"],
    heritage_fields: &[],
    type_contexts: &["type_argument_list"],
    bindings: &["parameter_list"],
    binding_fields: &[("variable_declarator", "name")],
    written_fields: &[("assignment_expression", "left")],
    arguments: &["argument_list"],
    read_fields: &["type", "value"],
    name_uses: &[],
};

/// Kotlin's calls and navigations have no field names: `""` stands for the first named child
/// (what is called, what is navigated from).
const KOTLIN: RefSyntax = RefSyntax {
    names: &["identifier"],
    type_names: &[],
    chains: &[("navigation_expression", "", "")],
    type_chains: &[],
    calls: &[("call_expression", "")],
    skipped: &[
        "import",
        "package_header",
        "line_comment",
        "block_comment",
        "string_literal",
        "multiline_string_literal",
        "annotation",
    ],
    imports: &[],
    heritage: &["delegation_specifiers"],
    heritage_fields: &[],
    type_contexts: &["user_type"],
    bindings: &[
        "function_value_parameters",
        "lambda_parameters",
        "variable_declaration",
        "class_parameter",
    ],
    binding_fields: &[],
    written_fields: &[("assignment", "left")],
    arguments: &["value_arguments"],
    read_fields: &[],
    name_uses: &[],
};

const C: RefSyntax = RefSyntax {
    names: &["identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[],
    type_chains: &[],
    calls: &[("call_expression", "function")],
    skipped: &[
        "preproc_include",
        "comment",
        "string_literal",
        "system_lib_string",
        "field_identifier",
        "preproc_defined",
    ],
    imports: &[],
    heritage: &[],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &["parameter_list"],
    binding_fields: &[],
    written_fields: &[("assignment_expression", "left")],
    arguments: &["argument_list"],
    read_fields: &["type", "value", "size"],
    name_uses: &["struct_specifier", "union_specifier", "enum_specifier"],
};

/// C's table with C++'s classes: base-class lists are inheritance, `new T` is the call
/// extractor's, and namespace names are no references (a namespace holds no code to reach).
const CPP: RefSyntax = RefSyntax {
    names: &["identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[],
    type_chains: &[],
    calls: &[("call_expression", "function"), ("new_expression", "type")],
    skipped: &[
        "preproc_include",
        "comment",
        "string_literal",
        "raw_string_literal",
        "system_lib_string",
        "field_identifier",
        "preproc_defined",
        "namespace_identifier",
        "using_declaration",
    ],
    imports: &[],
    heritage: &["base_class_clause"],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &["parameter_list"],
    binding_fields: &[],
    written_fields: &[("assignment_expression", "left")],
    arguments: &["argument_list"],
    read_fields: &["type", "value", "size"],
    name_uses: &[
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "class_specifier",
    ],
};

/// PHP: variables (`$x`) are never symbols; what a property, constant or method access names
/// belongs to its object (as a call's name does), the object is read; a qualified name
/// (`\A\B`) is one name; `use` lines are imports, `use` in a class body a base (a trait).
const PHP: RefSyntax = RefSyntax {
    names: &["name", "qualified_name"],
    type_names: &[],
    chains: &[],
    type_chains: &[],
    calls: &[
        ("function_call_expression", "function"),
        ("member_call_expression", "name"),
        ("nullsafe_member_call_expression", "name"),
        ("scoped_call_expression", "name"),
        ("member_access_expression", "name"),
        ("nullsafe_member_access_expression", "name"),
        ("scoped_property_access_expression", "name"),
    ],
    skipped: &[
        "variable_name",
        "comment",
        "string",
        "encapsed_string",
        "heredoc",
        "nowdoc",
        "text",
        "namespace_name",
        "relative_scope",
        "primitive_type",
        "named_label_statement",
        "goto_statement",
        "class_constant_access_expression",
    ],
    imports: &["namespace_use_declaration"],
    heritage: &["base_clause", "class_interface_clause", "use_declaration"],
    heritage_fields: &[],
    type_contexts: &["named_type"],
    bindings: &[],
    binding_fields: &[],
    written_fields: &[("assignment_expression", "left")],
    arguments: &["arguments"],
    read_fields: &["type", "default_value"],
    name_uses: &[],
};

const RUBY: RefSyntax = RefSyntax {
    names: &["constant"],
    type_names: &[],
    chains: &[("scope_resolution", "scope", "name")],
    type_chains: &[],
    calls: &[("call", "method")],
    skipped: &[
        "comment",
        "string",
        "heredoc_body",
        "simple_symbol",
        "delimited_symbol",
        "regex",
        "identifier",
        "instance_variable",
    ],
    imports: &[],
    heritage: &["superclass"],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &[],
    binding_fields: &[],
    written_fields: &[("assignment", "left")],
    arguments: &["argument_list"],
    read_fields: &[],
    name_uses: &[],
};

const SWIFT: RefSyntax = RefSyntax {
    names: &["simple_identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[],
    type_chains: &[],
    calls: &[],
    skipped: &[
        "comment",
        "multiline_comment",
        "line_string_literal",
        "multi_line_string_literal",
        "raw_string_literal",
        "navigation_suffix",
        "value_argument_label",
        "enum_entry",
    ],
    imports: &["import_declaration"],
    heritage: &["inheritance_specifier"],
    heritage_fields: &[],
    type_contexts: &["type_annotation"],
    bindings: &["parameter", "lambda_parameter"],
    binding_fields: &[
        ("pattern", "bound_identifier"),
        ("if_statement", "bound_identifier"),
        ("guard_statement", "bound_identifier"),
        ("for_statement", "item"),
    ],
    written_fields: &[("assignment", "target")],
    arguments: &["value_arguments"],
    read_fields: &["value", "default_value"],
    name_uses: &[],
};

const LUA: RefSyntax = RefSyntax {
    names: &["identifier"],
    type_names: &[],
    chains: &[("dot_index_expression", "table", "field")],
    type_chains: &[],
    calls: &[("function_call", "name")],
    skipped: &["comment", "string", "method_index_expression"],
    imports: &[],
    heritage: &[],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &["parameters", "variable_list"],
    binding_fields: &[("for_numeric_clause", "name")],
    written_fields: &[],
    arguments: &["arguments"],
    read_fields: &[],
    name_uses: &[],
};

/// Bash names no symbol outside calls: its variables are no definitions.
const BASH: RefSyntax = RefSyntax {
    names: &[],
    type_names: &[],
    chains: &[],
    type_chains: &[],
    calls: &[],
    skipped: &["comment", "heredoc_body", "string", "raw_string"],
    imports: &[],
    heritage: &[],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &[],
    binding_fields: &[],
    written_fields: &[],
    arguments: &[],
    read_fields: &[],
    name_uses: &[],
};

/// Scala's table: types are `type_identifier` leaves, member accesses `field_expression`,
/// `new T` is a call of `T`; parameters, class parameters and patterns bind.
const SCALA: RefSyntax = RefSyntax {
    names: &["identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[
        ("field_expression", "value", "field"),
        ("stable_type_identifier", "", ""),
    ],
    type_chains: &["stable_type_identifier"],
    calls: &[("call_expression", "function")],
    skipped: &[
        "package_clause",
        "comment",
        "block_comment",
        "string",
        "interpolated_string_expression",
        "annotation",
    ],
    imports: &["import_declaration"],
    heritage: &["extends_clause"],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &[
        "parameters",
        "class_parameters",
        "bindings",
        "typed_pattern",
    ],
    binding_fields: &[
        ("val_definition", "pattern"),
        ("var_definition", "pattern"),
        ("case_clause", "pattern"),
    ],
    written_fields: &[("assignment_expression", "left")],
    arguments: &["arguments"],
    read_fields: &["default_value"],
    name_uses: &[],
};

const ZIG: RefSyntax = RefSyntax {
    names: &["identifier"],
    type_names: &[],
    chains: &[("field_expression", "object", "member")],
    type_chains: &[],
    calls: &[("call_expression", "function")],
    skipped: &[
        "comment",
        "string",
        "multiline_string",
        "character",
        "builtin_identifier",
        "test_declaration_name",
    ],
    imports: &[],
    heritage: &[],
    heritage_fields: &[],
    type_contexts: &[],
    bindings: &["parameter", "payload"],
    binding_fields: &[],
    written_fields: &[("assignment_expression", "left")],
    arguments: &["arguments"],
    read_fields: &["type"],
    name_uses: &[],
};

/// Dart: `this` and `super` are keywords, not names. A cascade's call section (`..add(x)`)
/// is skipped whole: its method name would read as a bare name.
const DART: RefSyntax = RefSyntax {
    names: &["identifier", "type_identifier"],
    type_names: &["type_identifier"],
    chains: &[
        ("member_expression", "object", "property"),
        ("null_aware_member_expression", "object", "property"),
    ],
    type_chains: &[],
    calls: &[("call_expression", "function")],
    skipped: &[
        "library_name",
        "import_or_export",
        "part_directive",
        "part_of_directive",
        "comment",
        "documentation_comment",
        "block_comment",
        "documentation_block_comment",
        "string_literal",
        "annotation",
        "cascade_call_expression",
    ],
    imports: &[],
    heritage: &["superclass", "mixins", "interfaces"],
    heritage_fields: &[],
    type_contexts: &["type", "type_arguments"],
    bindings: &["formal_parameter_list"],
    binding_fields: &[
        ("initialized_variable_declaration", "name"),
        ("initialized_identifier", "name"),
        ("static_final_declaration", "name"),
    ],
    written_fields: &[("assignment_expression", "left")],
    arguments: &["arguments"],
    read_fields: &["value", "default_value"],
    name_uses: &[],
};

/// The language's reference syntax; `None` for Elixir, whose extractor records references.
fn syntax(lang: Lang) -> Option<&'static RefSyntax> {
    Some(match lang {
        Lang::Python => &PYTHON,
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &JS,
        Lang::Rust => &RUST,
        Lang::Go => &GO,
        Lang::Java => &JAVA,
        Lang::C => &C,
        Lang::Cpp => &CPP,
        Lang::CSharp => &CSHARP,
        Lang::Php => &PHP,
        Lang::Ruby => &RUBY,
        Lang::Swift => &SWIFT,
        Lang::Kotlin => &KOTLIN,
        Lang::Lua => &LUA,
        Lang::Bash => &BASH,
        Lang::Scala => &SCALA,
        Lang::Zig => &ZIG,
        Lang::Dart => &DART,
        Lang::Elixir => return None,
    })
}

/// What the place a name stands in makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Use(RefKind),
    /// Bound there (a parameter, a pattern, a loop variable): a local of its scope.
    Bound,
    /// Declared there (a C declarator): neither a use nor a local worth hiding names with.
    Declared,
}

/// What a node kind is to the walk, as bits of `RefKinds::flags`.
const SKIPPED: u16 = 1;
const IMPORT: u16 = 1 << 1;
const NAME: u16 = 1 << 2;
const TYPE_NAME: u16 = 1 << 3;
const TYPE_CHAIN: u16 = 1 << 4;
const HERITAGE: u16 = 1 << 5;
const TYPE_CONTEXT: u16 = 1 << 6;
const BINDING: u16 = 1 << 7;
const ARGUMENT: u16 = 1 << 8;
const NAME_USE: u16 = 1 << 9;

/// A language's `RefSyntax` by node kind id, made once per language: the walk looks each
/// node's kind up here instead of comparing its name with every list's (the walk visits every
/// node of every file; the comparisons were a measurable share of extraction).
pub(crate) struct RefKinds {
    syntax: &'static RefSyntax,
    /// `SKIPPED` … `NAME_USE` per kind id.
    flags: Vec<u16>,
    /// Per kind id, 1 + its index in `syntax.chains`, or 0.
    chain: Vec<u8>,
    /// Per kind id, 1 + its index in `syntax.calls`, or 0.
    call: Vec<u8>,
    /// Each kind id's name and each field id's name: `Node::kind` and `TreeCursor::field_name`
    /// measure the C string and check it is UTF-8 on every call.
    kind_names: Vec<String>,
    field_names: Vec<Option<String>>,
}

impl RefKinds {
    /// The table for `lang`; `None` for Elixir, whose extractor records references.
    pub(crate) fn new(lang: Lang) -> Option<Self> {
        let syntax = syntax(lang)?;
        let grammar = lang.grammar();
        let count = grammar.node_kind_count();
        let mut kinds = Self {
            syntax,
            flags: vec![0; count],
            chain: vec![0; count],
            call: vec![0; count],
            kind_names: (0..count)
                .map(|id| grammar.node_kind_for_id(id as u16).unwrap_or("").to_owned())
                .collect(),
            field_names: (0..=grammar.field_count())
                .map(|id| grammar.field_name_for_id(id as u16).map(str::to_owned))
                .collect(),
        };
        // Several ids may share a name (aliases, a keyword and a rule): each gets the name's
        // flags, as comparing names did.
        for id in 0..count {
            let Some(kind) = grammar.node_kind_for_id(id as u16) else {
                continue;
            };
            let lists: [(&[&str], u16); 10] = [
                (syntax.skipped, SKIPPED),
                (syntax.imports, IMPORT),
                (syntax.names, NAME),
                (syntax.type_names, TYPE_NAME),
                (syntax.type_chains, TYPE_CHAIN),
                (syntax.heritage, HERITAGE),
                (syntax.type_contexts, TYPE_CONTEXT),
                (syntax.bindings, BINDING),
                (syntax.arguments, ARGUMENT),
                (syntax.name_uses, NAME_USE),
            ];
            for (list, flag) in lists {
                if list.contains(&kind) {
                    kinds.flags[id] |= flag;
                }
            }
            if let Some(i) = syntax.chains.iter().position(|(k, _, _)| *k == kind) {
                kinds.chain[id] = i as u8 + 1;
            }
            if let Some(i) = syntax.calls.iter().position(|(k, _)| *k == kind) {
                kinds.call[id] = i as u8 + 1;
            }
        }
        Some(kinds)
    }

    /// `node.kind()`, looked up.
    pub(crate) fn kind_name<'a>(&'a self, node: Node<'a>) -> &'a str {
        match self.kind_names.get(usize::from(node.kind_id())) {
            Some(name) => name,
            None => node.kind(),
        }
    }

    /// `cursor.field_name()`, looked up.
    fn field_name(&self, cursor: &TreeCursor) -> Option<&str> {
        let id = cursor.field_id()?;
        self.field_names.get(usize::from(id.get()))?.as_deref()
    }

    fn is(&self, node: Node, flag: u16) -> bool {
        self.flags
            .get(usize::from(node.kind_id()))
            .is_some_and(|f| f & flag != 0)
    }

    /// The chain `node` is: (kind, object field, member field).
    fn chain(&self, node: Node) -> Option<&'static (&'static str, &'static str, &'static str)> {
        let i = *self.chain.get(usize::from(node.kind_id()))?;
        self.syntax.chains.get(usize::from(i).checked_sub(1)?)
    }

    /// The call `node` is: (kind, the field holding what is called).
    fn call(&self, node: Node) -> Option<&'static (&'static str, &'static str)> {
        let i = *self.call.get(usize::from(node.kind_id()))?;
        self.syntax.calls.get(usize::from(i).checked_sub(1)?)
    }
}

/// A node still to walk: the node, what its place makes of names, the field it is in, its
/// parent (carried: tree-sitter finds a node's parent by descending from the root again), and
/// the tag a rider gave it.
type Pending<'t, T> = (Node<'t>, Place, Option<&'t str>, Option<Node<'t>>, T);

/// A language's own extraction riding on this walk, so the tree is walked once instead of
/// twice (the walk itself was a fifth of C's extraction): `visit` sees every node the walk
/// reaches, in source order, before the walk looks at it, with the tag its parent's visit gave
/// its children; every node of the kinds a rider acts on is reached (the walk does not enter
/// literals, comments, names nor import statements, and no definition, declaration or call of
/// C is inside one).
pub(crate) trait Rider {
    /// What a rider carries down the tree (the C extractor: the enclosing function).
    type Tag: Copy;
    /// The root's tag.
    fn root(&self) -> Self::Tag;
    /// Records what `node` holds; returns its children's tag, and another tag for one child.
    fn visit<'t>(
        &mut self,
        node: Node<'t>,
        tag: Self::Tag,
        kinds: &RefKinds,
        src: &[u8],
        facts: &mut FileFacts,
    ) -> Children<'t, Self::Tag>;
}

/// The tags `Rider::visit` gives a node's children: `all`, except `one`'s child.
pub(crate) struct Children<'t, T> {
    pub all: T,
    pub one: Option<(Node<'t>, T)>,
}

impl<'t, T: Copy> Children<'t, T> {
    fn of(&self, child: Node<'t>) -> T {
        match self.one {
            Some((one, tag)) if one == child => tag,
            _ => self.all,
        }
    }
}

/// No rider: the languages whose extractors walk the tree themselves.
pub(crate) struct Alone;

impl Rider for Alone {
    type Tag = ();
    fn root(&self) {}
    fn visit<'t>(
        &mut self,
        _: Node<'t>,
        _: (),
        _: &RefKinds,
        _: &[u8],
        _: &mut FileFacts,
    ) -> Children<'t, ()> {
        Children { all: (), one: None }
    }
}

/// Collects the file's references into `facts.ref_names` and `facts.refs`, with `rider`
/// visiting every node on the way. A reference's scope is the innermost definition around its
/// line, placed once the walk is done (the file's definitions extracted, a rider's included).
/// A bare name bound in a function around it (parameter, local) is that local, not a
/// reference.
pub(crate) fn extract<'t, R: Rider>(
    root: Node<'t>,
    src: &[u8],
    kinds: &'t RefKinds,
    facts: &mut FileFacts,
    rider: &mut R,
) {
    let syntax = kinds.syntax;
    // Names borrow the source (a file names thousands; only the distinct ones are copied).
    let mut found: Vec<(Cow<str>, u32, RefKind)> = Vec::new();
    let mut bound: Vec<(Cow<str>, u32)> = Vec::new();
    let mut cursor = root.walk();
    let mut stack: Vec<Pending<R::Tag>> =
        vec![(root, Place::Use(RefKind::Read), None, None, rider.root())];
    while let Some((node, place, field, parent, tag)) = stack.pop() {
        let children = rider.visit(node, tag, kinds, src, facts);
        if kinds.is(node, SKIPPED) {
            continue;
        }
        let line = node.start_position().row as u32 + 1;
        if kinds.is(node, IMPORT) {
            imported_names(node, src, kinds, &mut found);
            continue;
        }
        if kinds.is(node, NAME) {
            let defines = field == Some("name")
                && parent.is_some_and(|p| {
                    !kinds.is(p, NAME_USE) || p.child_by_field_name("body").is_some()
                });
            if defines {
                if place == Place::Bound {
                    bound.push((Cow::Borrowed(text(node, src)), line));
                }
                continue;
            }
            let name = text(node, src);
            let as_type = kinds.is(node, TYPE_NAME) && place != Place::Use(RefKind::Inherit);
            let name = Cow::Borrowed(name);
            match place {
                _ if as_type => found.push((name, line, RefKind::Type)),
                Place::Use(use_kind) => found.push((name, line, use_kind)),
                Place::Bound => bound.push((name, line)),
                Place::Declared => {}
            }
            continue;
        }
        if let Some(&(_, object, _)) = kinds.chain(node) {
            let raw = text(node, src);
            let written: Cow<str> = if raw.contains(char::is_whitespace) {
                Cow::Owned(raw.split_whitespace().collect())
            } else {
                Cow::Borrowed(raw)
            };
            let pure = written
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '$'));
            let as_type = kinds.is(node, TYPE_CHAIN) && place != Place::Use(RefKind::Inherit);
            if pure && matches!(place, Place::Use(_)) {
                // What the chain is read through is read too: `Cart` and `Cart.Meta` in
                // `Cart.Meta.ordering`.
                let mut end = 0;
                while let Some(at) = written[end..].find(['.', ':']).map(|i| i + end) {
                    if at > 0 && !written[..at].ends_with(':') {
                        let read = match &written {
                            Cow::Borrowed(whole) => Cow::Borrowed(&whole[..at]),
                            Cow::Owned(whole) => Cow::Owned(whole[..at].to_owned()),
                        };
                        found.push((read, line, RefKind::Read));
                    }
                    end = at + 1;
                }
            }
            match place {
                _ if pure && as_type => found.push((written, line, RefKind::Type)),
                Place::Use(use_kind) if pure => found.push((written, line, use_kind)),
                _ if pure => {}
                _ => {
                    if let Some(child) = field_or_first(node, object) {
                        let tag = children.of(child);
                        stack.push((child, place, Some(object), Some(node), tag));
                    }
                }
            }
            continue;
        }
        if let Some(&(_, callee)) = kinds.call(node) {
            let function = field_or_first(node, callee);
            push_fields(
                kinds,
                &mut cursor,
                node,
                &children,
                &mut stack,
                |child, child_field| {
                    let is_function = if callee.is_empty() {
                        function == Some(child)
                    } else {
                        child_field == Some(callee)
                    };
                    if !is_function {
                        return Some(Place::Use(RefKind::Read));
                    }
                    // What is called is call extraction's; what it is called on is read
                    // (`Cart.create()` reads `Cart`).
                    if kinds.chain(child).is_some() || kinds.is(child, NAME) {
                        None
                    } else {
                        Some(Place::Use(RefKind::Read))
                    }
                },
            );
            if let Some(function) = function
                && let Some(&(_, object, _)) = kinds.chain(function)
                && let Some(receiver) = field_or_first(function, object)
            {
                let tag = children.of(function);
                stack.push((
                    receiver,
                    Place::Use(RefKind::Read),
                    Some(object),
                    Some(function),
                    tag,
                ));
            }
            continue;
        }
        let inner = if kinds.is(node, HERITAGE) {
            Place::Use(RefKind::Inherit)
        } else if kinds.is(node, TYPE_CONTEXT) {
            Place::Use(RefKind::Type)
        } else if kinds.is(node, BINDING) {
            Place::Bound
        } else if kinds.is(node, ARGUMENT) && place != Place::Use(RefKind::Inherit) {
            Place::Use(RefKind::Value)
        } else {
            place
        };
        let c_declarations = facts.lang.is_c_family();
        let kind = kinds.kind_name(node);
        push_fields(
            kinds,
            &mut cursor,
            node,
            &children,
            &mut stack,
            |_, child_field| {
                let Some(f) = child_field else {
                    return Some(inner);
                };
                if syntax.heritage_fields.contains(&(kind, f)) {
                    Some(Place::Use(RefKind::Inherit))
                } else if syntax.binding_fields.contains(&(kind, f)) {
                    Some(Place::Bound)
                } else if syntax.written_fields.contains(&(kind, f)) {
                    Some(Place::Use(RefKind::Write))
                } else if c_declarations && f == "declarator" {
                    Some(Place::Declared)
                } else if syntax.read_fields.contains(&f)
                    && matches!(inner, Place::Bound | Place::Declared)
                {
                    Some(Place::Use(RefKind::Read))
                } else {
                    Some(inner)
                }
            },
        );
    }
    if facts.lang == Lang::Python {
        // Python: a name assigned in a function is that function's local.
        bound.extend(
            found
                .iter()
                .filter(|(name, _, kind)| *kind == RefKind::Write && !name.contains('.'))
                .map(|(name, line, _)| (name.clone(), *line)),
        );
    }
    store(facts, found, bound);
}

/// The child in field `name`, or with `""`, the first named child.
fn field_or_first<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    if name.is_empty() {
        node.named_child(0)
    } else {
        node.child_by_field_name(name)
    }
}

/// Every name in an import statement, as an import reference at its own line (the resolver
/// keeps those the file's imports bind).
fn imported_names<'s>(
    node: Node,
    src: &'s [u8],
    kinds: &RefKinds,
    found: &mut Vec<(Cow<'s, str>, u32, RefKind)>,
) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if kinds.is(n, NAME) {
            found.push((
                Cow::Borrowed(text(n, src)),
                n.start_position().row as u32 + 1,
                RefKind::Import,
            ));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}

/// Pushes `node`'s named children with the place `place_of` gives each (none: skipped) and
/// their tags, first child on top.
fn push_fields<'t, T: Copy>(
    kinds: &'t RefKinds,
    cursor: &mut TreeCursor<'t>,
    node: Node<'t>,
    tags: &Children<'t, T>,
    stack: &mut Vec<Pending<'t, T>>,
    mut place_of: impl FnMut(Node<'t>, Option<&'t str>) -> Option<Place>,
) {
    let start = stack.len();
    cursor.reset(node);
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            let child_field = kinds.field_name(cursor);
            if child.is_named()
                && let Some(place) = place_of(child, child_field)
            {
                stack.push((child, place, child_field, Some(node), tags.of(child)));
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    stack[start..].reverse();
}

/// Places each reference in its innermost definition, drops bare names bound in a function
/// around them, and stores the rest once each (names interned per file).
fn store(
    facts: &mut FileFacts,
    mut found: Vec<(Cow<str>, u32, RefKind)>,
    bound: Vec<(Cow<str>, u32)>,
) {
    // The walk finds names in source order but for a few (import names, a chain's prefixes):
    // a stable sort would mostly allocate its scratch room to move nothing.
    if !found.is_sorted_by_key(|&(_, line, _)| line) {
        found.sort_by_key(|&(_, line, _)| line);
    }
    let scopes = scopes_at(facts, found.iter().map(|&(_, line, _)| line));
    let bound_scopes = scopes_at(facts, {
        let mut lines: Vec<u32> = bound.iter().map(|&(_, line)| line).collect();
        lines.sort_unstable();
        lines.into_iter()
    });
    let mut bound_sorted = bound;
    if !bound_sorted.is_sorted_by_key(|&(_, line)| line) {
        bound_sorted.sort_by_key(|&(_, line)| line);
    }
    let mut locals: HashSet<(DefIdx, &str)> = HashSet::default();
    for ((name, _), scope) in bound_sorted.iter().zip(&bound_scopes) {
        if let Some(def) = *scope
            && facts
                .defs
                .get(def as usize)
                .is_some_and(|d| d.kind.is_callable())
        {
            locals.insert((def, name.as_ref()));
        }
    }
    let mut names: HashMap<Cow<str>, u32> = HashMap::default();
    let mut seen: HashSet<NameRef> = HashSet::default();
    for (&(ref name, line, kind), scope) in found.iter().zip(scopes) {
        if NEVER_SYMBOLS.contains(&name.as_ref()) || name.is_empty() {
            continue;
        }
        let head = name.split(['.', ':']).next().unwrap_or(name.as_ref());
        if NEVER_SYMBOLS.contains(&head) && head != "self" && head != "this" && head != "cls" {
            continue;
        }
        // A bare name bound in a function around it is that function's local.
        let mut around = scope;
        let mut local = false;
        while let Some(def) = around {
            if locals.contains(&(def, head)) && !name.contains(['.', ':']) {
                local = true;
                break;
            }
            around = facts.defs.get(def as usize).and_then(|d| d.parent);
        }
        if local {
            continue;
        }
        let next = names.len() as u32;
        let index = match names.get(name.as_ref()) {
            Some(&index) => index,
            None => {
                names.insert(name.clone(), next);
                next
            }
        };
        let reference = NameRef::new(index, scope, line, kind);
        if seen.insert(reference) {
            facts.refs.push(reference);
        }
    }
    let mut ref_names: Vec<(Cow<str>, u32)> = names.into_iter().collect();
    ref_names.sort_unstable_by_key(|&(_, index)| index);
    facts.ref_names = ref_names.iter().map(|(name, _)| name.as_ref()).collect();
}

/// The innermost definition around each of `lines` (ascending): definitions are in source
/// order, a nested one after its parent.
fn scopes_at(facts: &FileFacts, lines: impl Iterator<Item = u32>) -> Vec<Option<DefIdx>> {
    let defs = &facts.defs;
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|&i| (defs[i].start_line, std::cmp::Reverse(defs[i].end_line)));
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for line in lines {
        while let Some(&i) = order.get(next)
            && defs[i].start_line <= line
        {
            while open
                .last()
                .is_some_and(|&o| defs[o].end_line < defs[i].start_line)
            {
                open.pop();
            }
            open.push(i);
            next += 1;
        }
        while open.last().is_some_and(|&o| defs[o].end_line < line) {
            open.pop();
        }
        out.push(open.last().map(|&i| i as DefIdx));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Extractor;
    use crate::graph::RefKind;
    use crate::lang::Lang;

    /// (name, scope's qualified name or "", line, kind) of each reference.
    fn refs(lang: Lang, path: &str, source: &str) -> Vec<(String, String, u32, RefKind)> {
        let facts = Extractor::default().extract(path, lang, source);
        facts
            .refs
            .iter()
            .map(|r| {
                (
                    facts
                        .ref_names
                        .get(r.name as usize)
                        .unwrap_or_default()
                        .to_owned(),
                    r.scope()
                        .map(|d| facts.defs[d as usize].qualified.clone())
                        .unwrap_or_default(),
                    r.line(),
                    r.kind(),
                )
            })
            .collect()
    }

    fn has(found: &[(String, String, u32, RefKind)], name: &str, line: u32, kind: RefKind) -> bool {
        found
            .iter()
            .any(|(n, _, l, k)| n == name && *l == line && *k == kind)
    }

    #[test]
    fn python_types_values_reads_and_writes_but_not_calls_locals_or_definitions() {
        let source = "\
from shop.cart import Cart, total
import shop.models as models

class Order(models.Model):
    def add(self, cart: Cart, n: int = LIMIT) -> Cart:
        item = Cart()
        for line in cart.lines:
            print(line)
        sorted(cart.lines, key=total)
        if isinstance(item, models.Item):
            return item
        Cart.registry = item
        handler = self.add
        return Cart.create(n)
";
        let found = refs(Lang::Python, "shop/order.py", source);
        assert!(has(&found, "Cart", 1, RefKind::Import), "{found:?}");
        assert!(
            has(&found, "models.Model", 4, RefKind::Inherit),
            "{found:?}"
        );
        assert!(has(&found, "models", 4, RefKind::Read), "{found:?}");
        assert!(has(&found, "Cart", 5, RefKind::Type), "{found:?}");
        assert!(has(&found, "LIMIT", 5, RefKind::Read), "{found:?}");
        assert!(has(&found, "total", 9, RefKind::Value), "{found:?}");
        assert!(has(&found, "models.Item", 10, RefKind::Value), "{found:?}");
        assert!(
            has(&found, "Cart.registry", 12, RefKind::Write),
            "{found:?}"
        );
        assert!(has(&found, "self.add", 13, RefKind::Read), "{found:?}");
        assert!(has(&found, "Cart", 14, RefKind::Read), "{found:?}");
        // Calls, parameters, locals, loop variables and definitions are not references.
        let body: Vec<_> = found.iter().filter(|(_, _, l, _)| *l >= 5).collect();
        for absent in [
            "cart", "item", "line", "n", "add", "Order", "print", "sorted",
        ] {
            assert!(
                !body.iter().any(|(n, ..)| n == absent),
                "{absent}: {found:?}"
            );
        }
        assert!(body.iter().all(|(_, scope, ..)| scope == "Order.add"));
    }

    #[test]
    fn typescript_rust_go_java_and_c_types_and_values() {
        let ts = refs(
            Lang::TypeScript,
            "a.ts",
            "import { Cart } from './cart';\nexport function f(c: Cart, n = MAX): ns.Order {\n  const h = g(handler);\n  return c;\n}\n",
        );
        assert!(has(&ts, "Cart", 2, RefKind::Type), "{ts:?}");
        assert!(has(&ts, "ns.Order", 2, RefKind::Type), "{ts:?}");
        assert!(has(&ts, "MAX", 2, RefKind::Read), "{ts:?}");
        assert!(has(&ts, "handler", 3, RefKind::Value), "{ts:?}");
        assert!(
            !ts.iter().any(|(n, ..)| n == "c" || n == "g" || n == "h"),
            "{ts:?}"
        );

        let rust = refs(
            Lang::Rust,
            "src/a.rs",
            "use crate::cart::Cart;\nfn f(c: &Cart, v: Vec<cart::Item>) -> Cart {\n    let x = run(handler);\n    MAX + x\n}\n",
        );
        assert!(has(&rust, "Cart", 2, RefKind::Type), "{rust:?}");
        assert!(has(&rust, "cart::Item", 2, RefKind::Type), "{rust:?}");
        assert!(has(&rust, "handler", 3, RefKind::Value), "{rust:?}");
        assert!(has(&rust, "MAX", 4, RefKind::Read), "{rust:?}");
        assert!(
            !rust
                .iter()
                .any(|(n, ..)| n == "x" || n == "c" || n == "run"),
            "{rust:?}"
        );

        let go = refs(
            Lang::Go,
            "a/a.go",
            "package a\nfunc F(c *Cart, o pkg.Order) {\n\tx := c\n\tRun(Handler, x)\n}\n",
        );
        assert!(has(&go, "Cart", 2, RefKind::Type), "{go:?}");
        assert!(has(&go, "pkg.Order", 2, RefKind::Type), "{go:?}");
        assert!(has(&go, "Handler", 4, RefKind::Value), "{go:?}");

        let java = refs(
            Lang::Java,
            "A.java",
            "class A extends B {\n  Cart f(Item i) {\n    return Util.make(i, Order.MAX);\n  }\n}\n",
        );
        assert!(has(&java, "Cart", 2, RefKind::Type), "{java:?}");
        assert!(has(&java, "Item", 2, RefKind::Type), "{java:?}");
        assert!(has(&java, "Util", 3, RefKind::Read), "{java:?}");
        assert!(has(&java, "Order.MAX", 3, RefKind::Value), "{java:?}");
        assert!(has(&java, "B", 1, RefKind::Inherit), "{java:?}");

        let c = refs(
            Lang::C,
            "a.c",
            "static int f(struct cart *c, item_t n) {\n  int local = 0;\n  register_cb(handler);\n  order_t *o = 0;\n  return local;\n}\n",
        );
        assert!(has(&c, "cart", 1, RefKind::Type), "{c:?}");
        assert!(has(&c, "item_t", 1, RefKind::Type), "{c:?}");
        assert!(has(&c, "handler", 3, RefKind::Value), "{c:?}");
        assert!(has(&c, "order_t", 4, RefKind::Type), "{c:?}");
        assert!(
            !c.iter().any(|(n, ..)| n == "f" || n == "register_cb"),
            "{c:?}"
        );

        let cpp = refs(
            Lang::Cpp,
            "a.cpp",
            "namespace shop {\nclass Order : public Base {\n  Cart *f(Item i) {\n    Cart *c = new Cart();\n    register_cb(handler);\n    return c;\n  }\n};\n}\n",
        );
        assert!(has(&cpp, "Base", 2, RefKind::Inherit), "{cpp:?}");
        assert!(has(&cpp, "Item", 3, RefKind::Type), "{cpp:?}");
        assert!(has(&cpp, "Cart", 4, RefKind::Type), "{cpp:?}");
        assert!(has(&cpp, "handler", 5, RefKind::Value), "{cpp:?}");
        assert!(
            !cpp.iter()
                .any(|(n, ..)| n == "shop" || n == "register_cb" || n == "Order"),
            "{cpp:?}"
        );

        let csharp = refs(
            Lang::CSharp,
            "A.cs",
            "using Shop.Pay;\nnamespace Shop {\nclass Order : Base, IOrder {\n  Cart F(Item i) {\n    var c = new Cart();\n    Register(Handler, Limits.Max);\n    return c;\n  }\n}\n}\n",
        );
        assert!(has(&csharp, "Base", 3, RefKind::Inherit), "{csharp:?}");
        assert!(has(&csharp, "IOrder", 3, RefKind::Inherit), "{csharp:?}");
        assert!(has(&csharp, "Handler", 6, RefKind::Value), "{csharp:?}");
        assert!(has(&csharp, "Limits.Max", 6, RefKind::Value), "{csharp:?}");
        assert!(
            csharp.iter().any(|(n, _, l, _)| n == "Item" && *l == 4),
            "{csharp:?}"
        );
        assert!(
            !csharp
                .iter()
                .any(|(n, ..)| n == "Register" || n == "c" || n == "i" || n == "Pay"),
            "{csharp:?}"
        );
    }

    #[test]
    fn php_types_values_bases_and_imports() {
        let php = refs(
            Lang::Php,
            "a.php",
            "<?php\nuse App\\Cart;\nclass Order extends Base {\n  use Totals;\n  function f(Item $i, $n = MAX): Cart {\n    register_cb(handler, $this->items, Cart::KIND);\n    return new \\App\\Line($i->qty);\n  }\n}\n?><p>Base</p>\n",
        );
        assert!(has(&php, "Cart", 2, RefKind::Import), "{php:?}");
        assert!(has(&php, "Base", 3, RefKind::Inherit), "{php:?}");
        assert!(has(&php, "Totals", 4, RefKind::Inherit), "{php:?}");
        assert!(has(&php, "Item", 5, RefKind::Type), "{php:?}");
        assert!(has(&php, "Cart", 5, RefKind::Type), "{php:?}");
        assert!(has(&php, "MAX", 5, RefKind::Read), "{php:?}");
        assert!(has(&php, "handler", 6, RefKind::Value), "{php:?}");
        assert!(has(&php, "\\App\\Line", 7, RefKind::Read), "{php:?}");
        // Variables, properties, called names, definitions and HTML are no references.
        for absent in [
            "i",
            "n",
            "items",
            "qty",
            "register_cb",
            "Order",
            "f",
            "this",
        ] {
            assert!(!php.iter().any(|(n, ..)| n == absent), "{absent}: {php:?}");
        }
        assert!(!php.iter().any(|(_, _, l, _)| *l == 10), "{php:?}");
    }
}
