//! Bash: functions (`f() {}`, `function f {}`), `source`/`.` of a literal or script-relative
//! path as imports, and commands named by a plain word as calls (the resolver keeps functions).

use tree_sitter::Node;

use super::{doc_line, field, header_before_body, named_children, new_def, push_call, text};
use crate::facts::{Callee, FileFacts, Import};
use crate::graph::NodeKind;

/// Expansions that stand for the running script's folder: `$(dirname "$0")`,
/// `$(dirname "${BASH_SOURCE[0]}")`, `${BASH_SOURCE%/*}`, `${0%/*}` (quotes and braces
/// dropped before comparing).
const SCRIPT_DIRS: &[&str] = &[
    "$(dirname $0)",
    "$(dirname ${0})",
    "$(dirname $BASH_SOURCE)",
    "$(dirname ${BASH_SOURCE})",
    "$(dirname ${BASH_SOURCE[0]})",
    "${BASH_SOURCE%/*}",
    "${BASH_SOURCE[0]%/*}",
    "${0%/*}",
    "$(cd $(dirname $0) && pwd)",
    "$(cd $(dirname ${BASH_SOURCE[0]}) && pwd)",
    "$(cd $(dirname $BASH_SOURCE) && pwd)",
    "$(cd -- $(dirname -- ${BASH_SOURCE[0]}) && pwd)",
    "$(cd $(dirname ${BASH_SOURCE[0]}) >/dev/null 2>&1 && pwd)",
    "$(cd -- $(dirname -- ${BASH_SOURCE[0]}) &> /dev/null && pwd)",
    "$(dirname $(readlink -f $0))",
    "$(dirname $(readlink -f ${BASH_SOURCE[0]}))",
];

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    // Variables assigned the script's folder at the top level (`DIR=$(dirname "$0")`).
    let mut script_dirs: Vec<String> = Vec::new();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    while let Some((node, scope)) = stack.pop() {
        let mut children = Vec::new();
        match node.kind() {
            "function_definition" => {
                let Some(name) = field(node, "name") else {
                    continue;
                };
                let body = field(node, "body");
                // A function is global once defined, wherever its definition runs.
                let mut def = new_def(facts, NodeKind::Function, text(name, src), None, node);
                def.signature = header_before_body(node, body, src);
                def.doc = doc_comment(node, src);
                facts.defs.push(def);
                let idx = (facts.defs.len() - 1) as u32;
                stack.extend(body.map(|b| (b, Some(idx))));
                continue;
            }
            "variable_assignment" => {
                if scope.is_none()
                    && let (Some(name), Some(value)) = (field(node, "name"), field(node, "value"))
                    && is_script_dir(text(value, src))
                {
                    script_dirs.push(text(name, src).to_owned());
                }
                children.extend(named_children(node));
            }
            "command" => {
                let name = field(node, "name");
                let word = name
                    .and_then(|n| n.named_child(0))
                    .filter(|w| w.kind() == "word")
                    .map(|w| text(w, src));
                let mut cursor = node.walk();
                let arguments: Vec<Node> = node
                    .children_by_field_name("argument", &mut cursor)
                    .collect();
                match word {
                    Some("source" | ".") => {
                        if let Some(path) = arguments
                            .first()
                            .and_then(|a| sourced_path(text(*a, src), &script_dirs))
                        {
                            facts.imports.push(Import {
                                module: path,
                                names: Vec::new(),
                                module_alias: None,
                                wildcard: true,
                                reexport: true,
                                line: super::line(node),
                            });
                        }
                    }
                    Some(command) if is_function_name(command) => {
                        push_call(facts, scope, Callee::Name(command.to_owned()), node);
                    }
                    _ => {}
                }
                // Command substitutions in the arguments run commands too.
                children.extend(arguments);
                children.extend(name.filter(|_| word.is_none()));
            }
            "comment" | "heredoc_body" | "raw_string" | "ansi_c_string" => {}
            _ => children.extend(named_children(node)),
        }
        stack.extend(children.into_iter().rev().map(|c| (c, scope)));
    }
}

/// A word a function can be named and called by (no expansion, quote or glob in it).
fn is_function_name(word: &str) -> bool {
    !word.is_empty() && !word.contains(['$', '"', '\'', '*', '?', '[', '/', '=', '`', '\\'])
}

/// The script folder's expansion, quotes dropped: `"$(dirname "$0")"` → `$(dirname $0)`.
fn unquoted(value: &str) -> String {
    value.chars().filter(|c| !matches!(c, '"' | '\'')).collect()
}

fn is_script_dir(value: &str) -> bool {
    SCRIPT_DIRS.contains(&unquoted(value).as_str())
}

/// The path a `source` argument names, as the resolver reads it: a literal path as written
/// (from the script's folder, else the project's root), or one under the script's folder
/// (`$(dirname "$0")/lib.sh`, `"$DIR/lib.sh"` with `DIR` the script's folder) as `./lib.sh`.
/// Anything else (another variable, a glob) is not guessed: `None`.
fn sourced_path(argument: &str, script_dirs: &[String]) -> Option<String> {
    let plain = unquoted(argument);
    let rest = SCRIPT_DIRS
        .iter()
        .find_map(|dir| plain.strip_prefix(dir))
        .or_else(|| {
            script_dirs.iter().find_map(|var| {
                plain.strip_prefix(&format!("${{{var}}}")).or_else(|| {
                    plain
                        .strip_prefix(&format!("${var}"))
                        .filter(|r| r.starts_with('/'))
                })
            })
        });
    let path = match rest {
        Some(rest) if rest.starts_with('/') => format!(".{rest}"),
        Some(_) => return None,
        None => plain,
    };
    let literal = !path.is_empty()
        && !path.starts_with('/')
        && !path.contains(['$', '*', '?', '`', '~', '{', '(']);
    literal.then_some(path)
}

/// The `#` comment lines right above a function, first line.
fn doc_comment(node: Node, src: &[u8]) -> String {
    let mut lines = Vec::new();
    let mut prev = node.prev_sibling();
    let mut row = node.start_position().row;
    while let Some(p) = prev {
        if p.kind() != "comment" || p.end_position().row + 1 < row {
            break;
        }
        lines.push(text(p, src).trim_start_matches('#').trim());
        row = p.start_position().row;
        prev = p.prev_sibling();
    }
    lines.reverse();
    doc_line(&lines.join("\n"))
}
