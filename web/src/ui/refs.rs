//! References to the graph inside free text: symbol ids (`Method:shop/cart.py:Cart.add`) and
//! `file:line` (`shop/cart.py:12`, `shop/cart.py:12-20`, also as a session's alias is given:
//! `f3=shop/cart.py:12`), kept only when the graph has them.

use nexus_engine::NodeKind;

/// What a reference points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A node by its stable id.
    Node(String),
    /// A line of a file (the file's node is `File:<path>`).
    Line { path: String, line: u32 },
}

impl Target {
    /// The node this reference selects: the node itself, or the file of a line.
    pub fn node_id(&self) -> String {
        match self {
            Target::Node(id) => id.clone(),
            Target::Line { path, .. } => format!("File:{path}"),
        }
    }
}

/// A run of text: plain, or a reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Ref { text: &'a str, target: Target },
}

/// Characters that end a reference (besides whitespace): quotes, brackets, separators.
fn is_boundary(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '"' | '\'' | '`' | ',' | ';' | '|'
        )
}

/// Punctuation a sentence may put right after a reference.
fn is_trailing(c: char) -> bool {
    matches!(c, '.' | ':' | '!' | '?' | '-')
}

/// The reference `candidate` stands for, if the graph (`known`, asked with node ids) has it.
fn target_of(candidate: &str, known: &dyn Fn(&str) -> bool) -> Option<Target> {
    if let Some(path_and_line) = alias_given(candidate) {
        return target_of(path_and_line, known);
    }
    let (head, rest) = candidate.split_once(':')?;
    if NodeKind::parse(head).is_some_and(|k| k.as_str() == head) && !rest.is_empty() {
        return known(candidate).then(|| Target::Node(candidate.to_owned()));
    }
    let (path, lines) = candidate.rsplit_once(':')?;
    let first = lines.split_once('-').map_or(lines, |(first, _)| first);
    let line = first.parse::<u32>().ok()?;
    let all_digits = lines.bytes().all(|b| b.is_ascii_digit() || b == b'-');
    (all_digits && !path.is_empty() && line > 0 && known(&format!("File:{path}"))).then(|| {
        Target::Line {
            path: path.to_owned(),
            line,
        }
    })
}

/// What follows a session's file alias where it is given (`f3=shop/cart.py:12` → `shop/cart.py:12`).
fn alias_given(candidate: &str) -> Option<&str> {
    let (alias, rest) = candidate.split_once('=')?;
    let number = alias.strip_prefix('f')?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then_some(rest)
}

/// The reference a word starts with: the longest known prefix left after dropping trailing
/// punctuation, and its length.
fn reference_in(word: &str, known: &dyn Fn(&str) -> bool) -> Option<(usize, Target)> {
    let mut end = word.len();
    loop {
        let candidate = &word[..end];
        if let Some(target) = target_of(candidate, known) {
            return Some((end, target));
        }
        let last = candidate.chars().next_back()?;
        if !is_trailing(last) {
            return None;
        }
        end -= last.len_utf8();
    }
}

/// Splits `text` into plain runs and references. Only references `known` accepts are links, so
/// a link never points at nothing.
pub fn split<'a>(text: &'a str, known: &dyn Fn(&str) -> bool) -> Vec<Piece<'a>> {
    let mut pieces = Vec::new();
    let mut plain_from = 0;
    let mut at = 0;
    while at < text.len() {
        let word_end = text[at..]
            .find(is_boundary)
            .map_or(text.len(), |offset| at + offset);
        if word_end == at {
            at += text[at..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        if let Some((length, target)) = reference_in(&text[at..word_end], known) {
            if plain_from < at {
                pieces.push(Piece::Text(&text[plain_from..at]));
            }
            pieces.push(Piece::Ref {
                text: &text[at..at + length],
                target,
            });
            plain_from = at + length;
        }
        at = word_end;
    }
    if plain_from < text.len() {
        pieces.push(Piece::Text(&text[plain_from..]));
    }
    pieces
}

/// The node ids the references in `text` select, once each, in order.
pub fn node_ids(text: &str, known: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for piece in split(text, known) {
        if let Piece::Ref { target, .. } = piece {
            let id = target.node_id();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// Names written as code spans (`` `Cart.checkout` ``): how a session's answers name symbols.
/// Spans with whitespace are code, not names.
pub fn quoted_names(text: &str) -> impl Iterator<Item = &str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| !span.is_empty() && !span.contains(char::is_whitespace))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(id: &str) -> bool {
        matches!(
            id,
            "Method:shop/cart.py:Cart.checkout" | "File:shop/cart.py" | "Function:pay.py:charge"
        )
    }

    #[test]
    fn symbol_ids_and_lines_become_references_with_sentence_punctuation_left_out() {
        let pieces = split(
            "See Method:shop/cart.py:Cart.checkout. It calls (Function:pay.py:charge) at shop/cart.py:12-20, ok",
            &known,
        );
        assert_eq!(
            pieces,
            [
                Piece::Text("See "),
                Piece::Ref {
                    text: "Method:shop/cart.py:Cart.checkout",
                    target: Target::Node("Method:shop/cart.py:Cart.checkout".into())
                },
                Piece::Text(". It calls ("),
                Piece::Ref {
                    text: "Function:pay.py:charge",
                    target: Target::Node("Function:pay.py:charge".into())
                },
                Piece::Text(") at "),
                Piece::Ref {
                    text: "shop/cart.py:12-20",
                    target: Target::Line {
                        path: "shop/cart.py".into(),
                        line: 12
                    }
                },
                Piece::Text(", ok"),
            ]
        );
    }

    #[test]
    fn a_session_alias_given_with_its_path_links_the_line() {
        assert_eq!(
            split("— f1=shop/cart.py:7 ·", &known),
            [
                Piece::Text("— "),
                Piece::Ref {
                    text: "f1=shop/cart.py:7",
                    target: Target::Line {
                        path: "shop/cart.py".into(),
                        line: 7
                    }
                },
                Piece::Text(" ·"),
            ]
        );
        for text in ["f=shop/cart.py:7", "fx=shop/cart.py:7", "f1=nowhere.py:7"] {
            assert_eq!(split(text, &known), [Piece::Text(text)], "{text}");
        }
    }

    #[test]
    fn unknown_or_malformed_references_stay_text() {
        for text in [
            "Method:shop/cart.py:Cart.nothing",
            "nowhere.py:3",
            "shop/cart.py:0",
            "shop/cart.py:x",
            "Widget:shop/cart.py",
            "method:shop/cart.py:Cart.checkout",
            "http://example.com:80",
        ] {
            assert_eq!(split(text, &known), [Piece::Text(text)], "{text}");
        }
    }

    #[test]
    fn code_spans_without_spaces_are_names() {
        let names: Vec<&str> =
            quoted_names("# Method `Cart.checkout` — `a b` calls `charge`, see `").collect();
        assert_eq!(names, ["Cart.checkout", "charge"]);
    }

    #[test]
    fn node_ids_name_each_target_once() {
        let ids = node_ids(
            "shop/cart.py:3 and shop/cart.py:9 call Function:pay.py:charge",
            &known,
        );
        assert_eq!(ids, ["File:shop/cart.py", "Function:pay.py:charge"]);
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn the_pieces_put_back_together_are_the_text(text in "[ -~é→]{0,80}") {
                let joined: String = split(&text, &|_| true)
                    .iter()
                    .map(|p| match p {
                        Piece::Text(t) => *t,
                        Piece::Ref { text, .. } => *text,
                    })
                    .collect();
                prop_assert_eq!(joined, text);
            }
        }
    }
}
