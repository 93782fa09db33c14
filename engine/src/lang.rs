//! The languages Nexus parses, detected from file extensions, with their tree-sitter grammars.
//! Adding a language means a variant here and an extractor in `extract/`.

use serde::{Deserialize, Serialize};

/// A language Nexus parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lang {
    /// Python.
    Python,
    /// JavaScript (also JSX).
    JavaScript,
    /// TypeScript.
    TypeScript,
    /// TypeScript with JSX.
    Tsx,
    /// Rust.
    Rust,
    /// Go.
    Go,
    /// Java.
    Java,
    /// C (headers `.h` included).
    C,
}

impl Lang {
    /// Every language, in display order.
    pub const ALL: [Lang; 8] = [
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Rust,
        Lang::Go,
        Lang::Java,
        Lang::C,
    ];

    /// The language of a path, from its extension; `None` for files Nexus does not parse.
    pub fn of_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1;
        Some(match ext {
            "py" | "pyi" => Lang::Python,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "rs" => Lang::Rust,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" | "h" => Lang::C,
            _ => return None,
        })
    }

    /// The language's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Rust => "rust",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::C => "c",
        }
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
        }
    }

    /// JavaScript-family languages share one extractor and one resolver.
    pub fn is_js_family(self) -> bool {
        matches!(self, Lang::JavaScript | Lang::TypeScript | Lang::Tsx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_map_to_languages() {
        assert_eq!(Lang::of_path("a/b.py"), Some(Lang::Python));
        assert_eq!(Lang::of_path("x.test.tsx"), Some(Lang::Tsx));
        assert_eq!(Lang::of_path("lib.rs"), Some(Lang::Rust));
        assert_eq!(Lang::of_path("src/util.h"), Some(Lang::C));
        assert_eq!(Lang::of_path("src/util.c"), Some(Lang::C));
        assert_eq!(Lang::of_path("README"), None);
        assert_eq!(Lang::of_path("a.tar.gz"), None);
    }

    #[test]
    fn every_grammar_loads() {
        for lang in Lang::ALL {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).unwrap();
        }
    }
}
