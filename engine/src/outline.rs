//! A file's definitions read from its path and text alone, without a graph: what `diff` needs to
//! name the symbols a file had at an older commit. The same extraction as indexing, so names match.

use super::extract::Extractor;
use super::graph::NodeKind;
use super::lang::Lang;

/// One definition of a file, as indexing would name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// Its kind (function, method, class…).
    pub kind: NodeKind,
    /// Its dotted path inside the file (`Cart.add`), as in the graph's qualified names.
    pub qualified: String,
    /// Its first line, 1-based.
    pub start_line: u32,
    /// Its last line, 1-based.
    pub end_line: u32,
}

/// The definitions of `text` read as the file `path` (its extension picks the language), in
/// source order; none for a language Nexus does not parse. Never panics on any text.
pub fn outline(path: &str, text: &str) -> Vec<Definition> {
    let Some(lang) = Lang::of_source(path, text) else {
        return Vec::new();
    };
    Extractor::default()
        .extract(path, lang, text)
        .defs
        .into_iter()
        .map(|d| Definition {
            kind: d.kind,
            qualified: d.qualified,
            start_line: d.start_line,
            end_line: d.end_line,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_definitions_as_indexing_does() {
        let defs = outline(
            "shop/cart.py",
            "class Cart:\n    def total(self):\n        return 1\n\ndef main():\n    pass\n",
        );
        let named: Vec<(NodeKind, &str, u32, u32)> = defs
            .iter()
            .map(|d| (d.kind, d.qualified.as_str(), d.start_line, d.end_line))
            .collect();
        assert_eq!(
            named,
            [
                (NodeKind::Class, "Cart", 1, 3),
                (NodeKind::Method, "Cart.total", 2, 3),
                (NodeKind::Function, "main", 5, 6),
            ]
        );
    }

    #[test]
    fn unknown_languages_and_broken_text_give_what_can_be_read() {
        assert!(outline("README.md", "# def f():").is_empty());
        assert!(outline("noext", "def f(): pass").is_empty());
        assert!(
            outline("a.rs", "fn ((( {{{ \u{0}")
                .iter()
                .all(|d| d.start_line >= 1)
        );
        assert_eq!(outline("a.go", "").len(), 0);
    }
}
