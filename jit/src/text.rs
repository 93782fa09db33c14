//! Code-aware words of a text: split at case changes, digits and punctuation, lowercased,
//! stop words dropped, plural and verb endings trimmed. The analysis, the rules and the vectors share it.

/// Words that carry no meaning for choosing a tool.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "has", "have", "how", "i", "if", "in", "is", "it", "its", "me", "my", "of", "on", "or", "our",
    "so", "than", "that", "the", "then", "this", "to", "us", "was", "we", "what", "when", "where",
    "which", "who", "why", "will", "with", "you", "your", "please", "there", "these", "those",
    "them", "they", "their", "into", "about", "would", "should", "could", "all", "one",
];

/// True for a word that carries no meaning for choosing a tool.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// Endings of verbs that keep their final `e` once `-ed`/`-ing` is gone ("changed", "creating").
const KEEPS_E: &[&str] = &["at", "v", "g", "z", "c", "ur", "rs", "ns"];

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// A verb without `-ed`/`-ing`: "logging" → "log", "changed" → "change", "opened" → "open".
fn verb_root(root: &str) -> String {
    let b = root.as_bytes();
    let n = b.len();
    if n >= 2 && b[n - 1] == b[n - 2] && !is_vowel(b[n - 1]) && !matches!(b[n - 1], b's' | b'l') {
        return root[..n - 1].to_string();
    }
    if KEEPS_E.iter().any(|end| root.ends_with(end)) {
        return format!("{root}e");
    }
    root.to_string()
}

/// Trims common English endings so "files", "reading", "changed" and "entities" meet "file",
/// "read", "change" and "entity". ASCII endings only, so slicing stays on character bounds.
pub fn stem(word: &str) -> String {
    let n = word.len();
    if n > 4 && (word.ends_with("ies") || word.ends_with("ied")) {
        return format!("{}y", &word[..n - 3]);
    }
    let has_vowel = |root: &str| root.bytes().any(is_vowel);
    if n > 5 && word.ends_with("ing") && has_vowel(&word[..n - 3]) {
        return verb_root(&word[..n - 3]);
    }
    if n > 4 && word.ends_with("ed") && !word.ends_with("eed") && has_vowel(&word[..n - 2]) {
        return verb_root(&word[..n - 2]);
    }
    if n > 4 && (word.ends_with("sses") || word.ends_with("shes") || word.ends_with("ches")) {
        return word[..n - 2].to_string();
    }
    if n > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        return word[..n - 1].to_string();
    }
    word.to_string()
}

/// The raw pieces of `text`: runs of letters split at lower→upper case changes, and runs of digits.
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    for c in text.chars() {
        let boundary = match previous {
            None => false,
            Some(p) => {
                !c.is_alphanumeric()
                    || (p.is_lowercase() && c.is_uppercase())
                    || (p.is_alphabetic() != c.is_alphabetic())
            }
        };
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
            previous = Some(c);
        } else {
            previous = None;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The meaningful, stemmed words of `text`, in order, repeats kept.
pub fn words(text: &str) -> Vec<String> {
    pieces(text)
        .into_iter()
        .filter(|w| w.chars().any(char::is_alphabetic) && !is_stop_word(w))
        .map(|w| stem(&w))
        .filter(|w| w.len() > 1)
        .collect()
}

/// Each meaningful word of `text` as written (lowercased) and its stem, without repeats: rule
/// tables match a word however it was written.
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in pieces(text) {
        if !w.chars().any(char::is_alphabetic) || is_stop_word(&w) || w.len() < 2 {
            continue;
        }
        let s = stem(&w);
        for t in [w, s] {
            if t.len() > 1 && !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_code_names_and_trims_endings() {
        assert_eq!(
            words("readMultipleFiles list_directory_with_sizes"),
            ["read", "multiple", "file", "list", "directory", "size"]
        );
        assert_eq!(
            words("Who calls parseHTTP2Header?"),
            ["call", "parse", "http", "header"]
        );
        assert_eq!(words("entities and searching"), ["entity", "search"]);
    }

    #[test]
    fn verb_forms_meet() {
        for (word, root) in [
            ("changed", "change"),
            ("changing", "change"),
            ("logging", "log"),
            ("opened", "open"),
            ("modified", "modify"),
            ("created", "create"),
            ("searching", "search"),
            ("calls", "call"),
            ("parsing", "parse"),
            ("string", "string"),
        ] {
            assert_eq!(stem(word), root, "{word}");
        }
        assert_eq!(terms("Logging files"), ["logging", "log", "files", "file"]);
    }

    #[test]
    fn stop_words_and_digits_go() {
        assert_eq!(words("what is the 42 of it"), Vec::<String>::new());
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(text in "\\PC{0,64}") {
            let _ = words(&text);
        }
    }
}
