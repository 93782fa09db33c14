//! What is embedded for each node: a symbol's name (twice: it says most), signature, doc and first
//! code lines; a file's path, symbol names and summary; a folder's or community's summary.

use crate::graph::{Graph, NodeKind, NodeRef};
use crate::ingest::Sources;

/// Code lines of a body that are embedded after the signature.
pub const BODY_LINES: usize = 8;
/// Symbol names of a file that are embedded with its path.
pub const FILE_SYMBOLS: usize = 40;

/// The text embedded for `node`, `None` for nodes that are not embedded (processes).
pub fn node_text(graph: &Graph, node: &NodeRef, sources: &Sources) -> Option<String> {
    let kind = node.kind();
    if matches!(
        kind,
        NodeKind::File | NodeKind::Folder | NodeKind::Community
    ) {
        let mut text = node.qualified().replace(['/', '.', '_', '-'], " ");
        if kind == NodeKind::File {
            for &id in graph.nodes_in_file(node.file()).iter().take(FILE_SYMBOLS) {
                if let Some(n) = graph.node(id).filter(|n| n.kind().is_symbol()) {
                    text.push(' ');
                    text.push_str(n.name());
                }
            }
        }
        text.push('\n');
        text.push_str(node.doc());
        return Some(text);
    }
    if !kind.is_symbol() {
        return None;
    }
    let mut text = String::new();
    for part in [node.name(), node.qualified(), node.signature(), node.doc()] {
        text.push_str(part);
        text.push('\n');
    }
    if let Some(source) = sources.get(node.file()) {
        for line in body_lines(&source, node) {
            text.push_str(line);
            text.push('\n');
        }
    }
    Some(text)
}

/// Up to [`BODY_LINES`] non-blank lines after the symbol's first line, skipping a leading
/// docstring (its words are the doc, which is embedded on its own).
fn body_lines<'s>(source: &'s str, node: &NodeRef) -> Vec<&'s str> {
    let start = node.start_line() as usize;
    let len = node.end_line().saturating_sub(node.start_line()) as usize;
    let mut lines = source
        .lines()
        .skip(start)
        .take(len)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .peekable();
    if let Some(quote) = lines.peek().and_then(|l| docstring_quote(l)) {
        let first = lines.next().unwrap_or_default();
        let closed_on_first = first
            .trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .get(3..)
            .is_some_and(|rest| rest.contains(quote));
        if !closed_on_first {
            for line in lines.by_ref() {
                if line.contains(quote) {
                    break;
                }
            }
        }
    }
    lines.take(BODY_LINES).collect()
}

/// The triple quote a line opens a docstring with (`"""`, `'''`, with an `r`/`u`/`b` prefix).
fn docstring_quote(line: &str) -> Option<&'static str> {
    let rest = line.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B']);
    ["\"\"\"", "'''"].into_iter().find(|q| rest.starts_with(q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{SourceFile, index_with_sources};

    #[test]
    fn symbols_get_words_signature_doc_and_code_but_not_the_docstring_twice() {
        let src = "def make_password(raw):\n    \"\"\"Turn a plain password\n    into a hash.\"\"\"\n    salt = new_salt()\n    return digest(salt, raw)\n\ndef one():\n    '''Short.'''\n    return 1\n";
        let (g, _, sources) = index_with_sources(
            "t",
            vec![SourceFile {
                path: "auth/hashers.py".into(),
                bytes: src.as_bytes().to_vec(),
            }],
            &|| 0.0,
            &mut |_, _, _| true,
        )
        .unwrap();
        let text = |name: &str| {
            let id = g.nodes_named(name)[0];
            node_text(&g, &g.node(id).unwrap(), &sources).unwrap()
        };
        let t = text("make_password");
        assert!(
            t.contains("make_password") && t.contains("salt = new_salt()"),
            "{t}"
        );
        assert!(
            t.contains("Turn a plain password") && !t.contains("into a hash"),
            "{t}"
        );
        let t = text("one");
        assert!(
            t.contains("return 1") && t.matches("Short").count() == 1,
            "{t}"
        );
        assert!(
            t.starts_with("one\none\ndef one()"),
            "the name comes twice: {t}"
        );
        let file = g.find_id("File:auth/hashers.py").unwrap();
        let t = node_text(&g, &g.node(file).unwrap(), &sources).unwrap();
        assert!(
            t.starts_with("auth hashers py") && t.contains("make_password"),
            "{t}"
        );
        assert!(t.ends_with("2 functions"), "the file's summary: {t}");
        let folder = g.find_id("Folder:auth").unwrap();
        let t = node_text(&g, &g.node(folder).unwrap(), &sources).unwrap();
        assert_eq!(t, "auth\n1 file; 2 functions");
    }
}
