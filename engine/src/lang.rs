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
    /// C++ (`.h` headers whose text is C++: `Lang::of_source`).
    Cpp,
    /// C#.
    CSharp,
    /// PHP (HTML around `<?php … ?>` is text).
    Php,
    /// Ruby.
    Ruby,
    /// Swift.
    Swift,
    /// Kotlin (`.kt`, and `.kts` scripts).
    Kotlin,
    /// Zig.
    Zig,
    /// Dart.
    Dart,
    /// Elixir (`.ex`, and `.exs` scripts).
    Elixir,
    /// Scala (2 and 3; `.scala`, and `.sc` scripts).
    Scala,
    /// Lua.
    Lua,
    /// Bash (`.sh`, `.bash`).
    Bash,
}

impl Lang {
    /// Every language, in display order.
    pub const ALL: [Lang; 20] = [
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Rust,
        Lang::Go,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
        Lang::CSharp,
        Lang::Php,
        Lang::Ruby,
        Lang::Swift,
        Lang::Kotlin,
        Lang::Zig,
        Lang::Dart,
        Lang::Elixir,
        Lang::Scala,
        Lang::Lua,
        Lang::Bash,
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
            "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" | "tpp" => {
                Lang::Cpp
            }
            "cs" => Lang::CSharp,
            "php" => Lang::Php,
            "rb" | "rake" | "gemspec" => Lang::Ruby,
            "swift" => Lang::Swift,
            "kt" | "kts" => Lang::Kotlin,
            "zig" => Lang::Zig,
            "dart" => Lang::Dart,
            "ex" | "exs" => Lang::Elixir,
            "scala" | "sc" => Lang::Scala,
            "lua" => Lang::Lua,
            "sh" | "bash" => Lang::Bash,
            _ => return None,
        })
    }

    /// The language of a file from its path and text: as `of_path`, except that a `.h` header
    /// written in C++ (a line opening a class, namespace, template, access section or `using`,
    /// or including a standard C++ header such as `<string>`) is C++. A header of plain C
    /// declarations stays C even in a C++ project: both parse it alike, and C and C++ files
    /// resolve against each other's headers.
    /// A file whose name has no extension is Bash when its first line runs `bash` or `sh`
    /// (`#!/bin/bash`, `#!/usr/bin/env bash`): scripts are often installed without one.
    pub fn of_source(path: &str, text: &str) -> Option<Lang> {
        match Lang::of_path(path) {
            Some(Lang::C) if path.ends_with(".h") && reads_as_cpp(text) => Some(Lang::Cpp),
            Some(lang) => Some(lang),
            None if is_shell_script(path, text) => Some(Lang::Bash),
            None => None,
        }
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
            Lang::Cpp => "cpp",
            Lang::CSharp => "csharp",
            Lang::Php => "php",
            Lang::Ruby => "ruby",
            Lang::Swift => "swift",
            Lang::Kotlin => "kotlin",
            Lang::Zig => "zig",
            Lang::Dart => "dart",
            Lang::Elixir => "elixir",
            Lang::Scala => "scala",
            Lang::Lua => "lua",
            Lang::Bash => "bash",
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
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Lang::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Lang::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Lang::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Lang::Swift => tree_sitter_swift::LANGUAGE.into(),
            Lang::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
            Lang::Zig => tree_sitter_zig::LANGUAGE.into(),
            Lang::Dart => tree_sitter_dart::LANGUAGE.into(),
            Lang::Elixir => tree_sitter_elixir::LANGUAGE.into(),
            Lang::Scala => tree_sitter_scala::LANGUAGE.into(),
            Lang::Lua => tree_sitter_lua::LANGUAGE.into(),
            Lang::Bash => tree_sitter_bash::LANGUAGE.into(),
        }
    }

    /// JavaScript-family languages share one extractor and one resolver.
    pub fn is_js_family(self) -> bool {
        matches!(self, Lang::JavaScript | Lang::TypeScript | Lang::Tsx)
    }

    /// C and C++ share `#include` resolution and see each other's headers.
    pub fn is_c_family(self) -> bool {
        matches!(self, Lang::C | Lang::Cpp)
    }

    /// Java, C#, Swift, Kotlin, Dart and Scala share the resolver's class rules: a package
    /// (namespace, module) spread over files, implicit `this` (`self`), static imports (`using
    /// static`), overloads picked by argument count (Dart has no packages nor overloads: those
    /// rules never apply to it).
    pub fn is_java_family(self) -> bool {
        matches!(
            self,
            Lang::Java | Lang::CSharp | Lang::Swift | Lang::Kotlin | Lang::Dart | Lang::Scala
        )
    }
}

/// Whether a file without extension is a shell script: its first line is `#!` running `bash`
/// or `sh`, directly or through `env`.
fn is_shell_script(path: &str, text: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some(shebang) = text.lines().next().and_then(|l| l.strip_prefix("#!")) else {
        return false;
    };
    let mut words = shebang.split_whitespace();
    let mut program = words.next().and_then(|p| p.rsplit('/').next());
    if program == Some("env") {
        program = words.find(|w| !w.starts_with('-'));
    }
    !name.contains('.') && matches!(program, Some("bash" | "sh"))
}

/// Whether a header's text is C++: a line (outside comments, as the first word) opening a class,
/// namespace, template, access section or `using`, or an `#include` of a standard C++ header
/// (a name without extension: `<string>`, `<vector>`).
fn reads_as_cpp(text: &str) -> bool {
    const OPENERS: &[&str] = &[
        "class ",
        "namespace ",
        "template<",
        "template <",
        "public:",
        "private:",
        "protected:",
        "using ",
        "extern \"C++\"",
    ];
    text.lines().take(4000).any(|line| {
        let line = line.trim_start();
        if OPENERS.iter().any(|o| line.starts_with(o)) {
            return true;
        }
        line.strip_prefix("#include")
            .map(str::trim_start)
            .and_then(|l| l.strip_prefix('<'))
            .and_then(|l| l.split_once('>'))
            .is_some_and(|(name, _)| !name.contains('.') && !name.is_empty())
    })
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
        assert_eq!(Lang::of_path("src/db.cc"), Some(Lang::Cpp));
        assert_eq!(Lang::of_path("include/a.hpp"), Some(Lang::Cpp));
        assert_eq!(Lang::of_path("src/Cart.cs"), Some(Lang::CSharp));
        assert_eq!(Lang::of_path("src/Cart.php"), Some(Lang::Php));
        assert_eq!(Lang::of_path("lib/shop/cart.rb"), Some(Lang::Ruby));
        assert_eq!(Lang::of_path("Sources/Shop/Cart.swift"), Some(Lang::Swift));
        assert_eq!(Lang::of_path("src/Cart.kt"), Some(Lang::Kotlin));
        assert_eq!(Lang::of_path("build.gradle.kts"), Some(Lang::Kotlin));
        assert_eq!(Lang::of_path("src/Cart.zig"), Some(Lang::Zig));
        assert_eq!(Lang::of_path("lib/src/cart.dart"), Some(Lang::Dart));
        assert_eq!(Lang::of_path("lib/shop/cart.ex"), Some(Lang::Elixir));
        assert_eq!(Lang::of_path("test/cart_test.exs"), Some(Lang::Elixir));
        assert_eq!(
            Lang::of_path("src/main/scala/Cart.scala"),
            Some(Lang::Scala)
        );
        assert_eq!(Lang::of_path("lua/shop/cart.lua"), Some(Lang::Lua));
        assert_eq!(Lang::of_path("scripts/build.sh"), Some(Lang::Bash));
        assert_eq!(Lang::of_path("README"), None);
        assert_eq!(Lang::of_path("a.tar.gz"), None);
    }

    #[test]
    fn a_header_is_cpp_when_its_text_is() {
        let c = "#include <stdio.h>\n#ifdef __cplusplus\nextern \"C\" {\n#endif\nint add(int a);\n";
        assert_eq!(Lang::of_source("a.h", c), Some(Lang::C));
        for cpp in [
            "#pragma once\nnamespace db {\nint f();\n}\n",
            "/* A class. */\nclass Arena {\n public:\n  char* Allocate(size_t n);\n};\n",
            "template <typename T>\nT max(T a, T b);\n",
            "#include <string>\nint f();\n",
        ] {
            assert_eq!(Lang::of_source("a.h", cpp), Some(Lang::Cpp), "{cpp}");
        }
        // A script without extension is Bash by its `#!` line.
        assert_eq!(
            Lang::of_source("bin/run", "#!/usr/bin/env bash\nf\n"),
            Some(Lang::Bash)
        );
        assert_eq!(
            Lang::of_source("bin/run", "#!/bin/sh -e\n"),
            Some(Lang::Bash)
        );
        assert_eq!(Lang::of_source("bin/run", "#!/usr/bin/env python3\n"), None);
        assert_eq!(Lang::of_source("notes.txt", "#!/bin/bash\n"), None);
        assert_eq!(Lang::of_source("Makefile", "all:\n"), None);
        // Only `.h` is decided by its text.
        assert_eq!(Lang::of_source("a.c", "class A {};"), Some(Lang::C));
        assert_eq!(Lang::of_source("a.cc", "int f();"), Some(Lang::Cpp));
    }

    #[test]
    fn every_grammar_loads() {
        for lang in Lang::ALL {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).unwrap();
        }
    }
}
