//! Code-aware words for the embedding model: identifiers split at camelCase, snake_case and
//! digits, lowercased, then cut into the model's WordPiece tokens (greedy longest match).
//!
//! Written here rather than with the `tokenizers` crate: that crate builds for wasm only behind
//! its `unstable_wasm` feature and brings a regex engine and more; BERT's uncased WordPiece over
//! words that are already split and lowercased is the short greedy loop below.

use rustc_hash::FxHashMap as HashMap;

/// Words longer than this are one unknown token, as BERT's tokenizer treats them.
const MAX_WORD_CHARS: usize = 100;

/// The lowercase words of `text`: identifier parts and plain words; punctuation is dropped.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let mut current = String::new();
        let mut prev: Option<char> = None;
        let chars: Vec<char> = run.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = prev.is_some_and(|p| {
                (c.is_uppercase() && (p.is_lowercase() || (p.is_uppercase() && next_lower)))
                    || (c.is_ascii_digit() != p.is_ascii_digit())
            });
            if boundary && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            current.extend(c.to_lowercase());
            prev = Some(c);
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
    out
}

/// Greedy longest-match-first WordPiece of one lowercase word; `None` when a piece is unknown.
pub fn pieces(word: &str, vocab: &HashMap<String, u32>) -> Option<Vec<u32>> {
    if word.chars().count() > MAX_WORD_CHARS {
        return None;
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut piece = String::new();
    while start < word.len() {
        let mut end = word.len();
        let mut found = None;
        while end > start {
            if word.is_char_boundary(end) {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[start..end]);
                if let Some(&id) = vocab.get(&piece) {
                    found = Some(id);
                    break;
                }
            }
            end -= 1;
        }
        out.push(found?);
        start = end;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_words() {
        assert_eq!(words("getUserName"), ["get", "user", "name"]);
        assert_eq!(
            words("HTTPServer_v2 parse"),
            ["http", "server", "v", "2", "parse"]
        );
        assert_eq!(words("make_password(raw)"), ["make", "password", "raw"]);
        assert!(words("  ..  ").is_empty());
    }

    #[test]
    fn wordpiece_takes_the_longest_known_pieces() {
        let vocab: HashMap<String, u32> = [("pass", 1), ("##word", 2), ("##w", 3), ("p", 4)]
            .into_iter()
            .map(|(t, i)| (t.to_owned(), i))
            .collect();
        assert_eq!(pieces("password", &vocab), Some(vec![1, 2]));
        assert_eq!(pieces("passw", &vocab), Some(vec![1, 3]));
        assert_eq!(pieces("pxz", &vocab), None);
        assert_eq!(pieces(&"p".repeat(200), &vocab), None);
    }
}
