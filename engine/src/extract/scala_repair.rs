//! Scala 2 code tree-sitter-scala 0.26 misreads, rewritten before parsing so that the rest of the
//! file parses: Scala 3's soft keyword `inline` used as a name (`def inline(…)`, `inline(x)`,
//! `val i = inline`). Byte offsets are unchanged and names are read from the original text.

use std::borrow::Cow;

/// The soft keyword as a name, rewritten to an identifier of its length.
const SOFT_KEYWORD: &str = "inline";
const STAND_IN: &str = "_nline";

/// The source with each `inline` that is a name (the next thing after it is no identifier,
/// where Scala 3's modifier is followed by `def`, `val`, `if`, `match`, `given` or a parameter's
/// name) rewritten to `_nline`.
pub(super) fn repair(source: &str) -> Cow<'_, str> {
    let bytes = source.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    let mut out: Option<String> = None;
    for (at, _) in source.match_indices(SOFT_KEYWORD) {
        let end = at + SOFT_KEYWORD.len();
        let whole_word =
            (at == 0 || !is_word(bytes[at - 1])) && bytes.get(end).is_none_or(|&b| !is_word(b));
        let next = bytes[end..].iter().find(|b| !b.is_ascii_whitespace());
        let is_name = next.is_none_or(|&b| !(is_word(b) || b == b'`'));
        if whole_word && is_name {
            out.get_or_insert_with(|| source.to_owned())
                .replace_range(at..end, STAND_IN);
        }
    }
    out.map_or(Cow::Borrowed(source), Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::repair;

    #[test]
    fn inline_as_a_name_is_rewritten_and_the_modifier_kept() {
        let scala2 = "def inline(end: => Boolean) = 1\nval p = inline(x)\nval q = a.inline\n";
        assert_eq!(
            repair(scala2),
            "def _nline(end: => Boolean) = 1\nval p = _nline(x)\nval q = a._nline\n"
        );
        let scala3 = "inline def f(inline x: Int) = inline if x > 0 then 1 else 2\n// inliner\n";
        assert_eq!(repair(scala3), scala3);
    }
}
