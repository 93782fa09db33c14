//! Code-aware tokens: identifier parts and whole identifiers, lowercased. One tokenizer for
//! indexing and queries; indexing goes through [`each_token`], which reuses its buffers and
//! allocates nothing for ASCII words.

/// Buffers [`each_token`] reuses from one call to the next.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// The current word, lowercased.
    lower: String,
    /// The byte ranges of its parts in `lower`.
    parts: Vec<(usize, usize)>,
}

/// Splits code text into lowercase tokens: identifier parts (`getUserName` → get, user, name),
/// whole identifiers (`getusername`), and path pieces.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_token(text, &mut Scratch::default(), &mut |t| {
        out.push(t.to_owned())
    });
    out
}

/// Calls `f` with each token of `text`, in the order [`tokens`] lists them.
pub(super) fn each_token(text: &str, scratch: &mut Scratch, f: &mut impl FnMut(&str)) {
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.is_ascii() {
            ascii_word(word, scratch, f);
        } else {
            unicode_word(word, f);
        }
    }
}

/// An ASCII word's tokens: its parts (when it has more than itself), then the whole word without
/// leading and trailing underscores.
fn ascii_word(word: &str, scratch: &mut Scratch, f: &mut impl FnMut(&str)) {
    let Scratch { lower, parts } = scratch;
    lower.clear();
    lower.push_str(word);
    lower.make_ascii_lowercase();
    parts.clear();
    let mut start: Option<usize> = None;
    let mut prev: Option<u8> = None;
    for (i, &c) in word.as_bytes().iter().enumerate() {
        let boundary = c == b'_'
            || (c.is_ascii_uppercase()
                && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit()));
        if boundary && let Some(s) = start.take() {
            parts.push((s, i));
        }
        if c != b'_' {
            start.get_or_insert(i);
        }
        prev = Some(c);
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
    if parts.as_slice() != [(0, word.len())] {
        for &(s, e) in parts.iter() {
            f(lower.get(s..e).unwrap_or_default());
        }
    }
    let whole = lower.trim_matches('_');
    if !whole.is_empty() {
        f(whole);
    }
}

/// The same for a word with other characters, by Unicode's case rules (the whole word lowercased
/// as a string, its parts character by character).
fn unicode_word(word: &str, f: &mut impl FnMut(&str)) {
    let whole = word.to_lowercase();
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut prev: Option<char> = None;
    for c in word.chars() {
        let boundary = c == '_'
            || (c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()));
        if boundary && !current.is_empty() {
            parts.push(std::mem::take(&mut current));
        }
        if c != '_' {
            current.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    if !current.is_empty() {
        parts.push(current);
    }
    if parts.len() > 1 || parts.first() != Some(&whole) {
        for part in parts.iter().filter(|p| !p.is_empty()) {
            f(part);
        }
    }
    let whole = whole.trim_matches('_');
    if !whole.is_empty() {
        f(whole);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The tokenizer as first written (one allocation per token), which the fast path must equal.
    fn reference(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if word.is_empty() {
                continue;
            }
            let whole = word.to_lowercase();
            let mut parts = Vec::new();
            let mut current = String::new();
            let mut prev: Option<char> = None;
            for c in word.chars() {
                let boundary = c == '_'
                    || (c.is_uppercase()
                        && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()));
                if boundary && !current.is_empty() {
                    parts.push(std::mem::take(&mut current));
                }
                if c != '_' {
                    current.extend(c.to_lowercase());
                }
                prev = Some(c);
            }
            if !current.is_empty() {
                parts.push(current);
            }
            if parts.len() > 1 || parts.first() != Some(&whole) {
                out.extend(parts.into_iter().filter(|p| !p.is_empty()));
            }
            out.push(whole.trim_matches('_').to_owned());
        }
        out.retain(|t| !t.is_empty());
        out
    }

    #[test]
    fn tokens_split_identifiers_and_keep_the_whole() {
        assert_eq!(
            tokens("getUserName"),
            ["get", "user", "name", "getusername"]
        );
        assert_eq!(tokens("add_item"), ["add", "item", "add_item"]);
        assert_eq!(tokens("_private"), ["private", "private"]);
        assert_eq!(tokens("___ x"), ["x"]);
        assert_eq!(tokens("shop/cart.py"), ["shop", "cart", "py"]);
        assert_eq!(tokens("HTTPServer"), ["httpserver"]);
        assert_eq!(tokens("v2Api"), ["v2", "api", "v2api"]);
        assert_eq!(tokens("ΣΑΣ_Όνομα"), reference("ΣΑΣ_Όνομα"));
    }

    proptest! {
        #[test]
        fn the_fast_path_equals_the_reference(text in "[a-zA-Z0-9_ ./:ΣσςÉéİı()-]{0,40}") {
            prop_assert_eq!(tokens(&text), reference(&text));
        }

        #[test]
        fn any_text_tokenizes_as_the_reference(text in any::<String>()) {
            prop_assert_eq!(tokens(&text), reference(&text));
        }
    }
}
