//! A per-file filter for `grep`: a bitset of each file's case-folded byte trigrams, built once per
//! graph on the first grep, and the literals every match of a pattern must start with.
//! A file whose bitset lacks a trigram of every such literal cannot match and is not scanned.

use nexus_engine::Sources;
use regex_syntax::ParserBuilder;
use regex_syntax::hir::literal::Extractor;

/// Shortest literal worth filtering by: it must hold one trigram.
const MIN_LITERAL: usize = 3;
/// Bits per byte of a file's text (rounded up to a power of two): few enough to keep the filter
/// near an eighth of the text, enough that a literal's few trigrams rarely all collide.
const BITS_PER_BYTE: usize = 1;

/// The trigram bitsets of every file, in the order of `Sources`.
#[derive(Debug, Default)]
pub struct TrigramFilter {
    files: Vec<Bits>,
}

#[derive(Debug)]
struct Bits {
    /// `words.len() * 64` bits, a power of two.
    words: Vec<u64>,
}

impl Bits {
    fn of(text: &[u8]) -> Bits {
        let bits = (text.len() * BITS_PER_BYTE).next_power_of_two().max(64);
        let mut words = vec![0u64; bits / 64];
        for w in text.windows(3) {
            let at = slot(trigram(w), bits);
            words[at / 64] |= 1 << (at % 64);
        }
        Bits { words }
    }

    fn has(&self, trigram: u32) -> bool {
        let at = slot(trigram, self.words.len() * 64);
        self.words[at / 64] & (1 << (at % 64)) != 0
    }
}

fn trigram(w: &[u8]) -> u32 {
    u32::from(w[0].to_ascii_lowercase()) << 16
        | u32::from(w[1].to_ascii_lowercase()) << 8
        | u32::from(w[2].to_ascii_lowercase())
}

/// The bit of `trigram` among `bits` (a power of two): a multiplicative hash's top bits.
fn slot(trigram: u32, bits: usize) -> usize {
    let hash = u64::from(trigram).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (hash >> (64 - bits.trailing_zeros())) as usize
}

impl TrigramFilter {
    pub fn build(sources: &Sources) -> TrigramFilter {
        TrigramFilter {
            files: sources
                .keys()
                .map(|path| Bits::of(sources.get(path).as_deref().unwrap_or("").as_bytes()))
                .collect(),
        }
    }

    /// Whether file number `index` (in the order of `Sources`) may hold a match of `needs`.
    pub fn may_match(&self, index: usize, needs: &Needs) -> bool {
        let Some(bits) = self.files.get(index) else {
            return true;
        };
        needs
            .0
            .iter()
            .any(|literal| literal.iter().all(|&t| bits.has(t)))
    }
}

/// What every match of a pattern starts with: one of these literals, each as its case-folded
/// trigrams. `None` when some match may start otherwise (a short or unknown prefix).
#[derive(Debug, PartialEq)]
pub struct Needs(Vec<Vec<u32>>);

impl Needs {
    pub fn of(pattern: &str, case_insensitive: bool) -> Option<Needs> {
        let hir = ParserBuilder::new()
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .crlf(true)
            .build()
            .parse(pattern)
            .ok()?;
        let seq = Extractor::new().extract(&hir);
        let literals = seq.literals()?;
        if literals.is_empty() || literals.iter().any(|l| l.as_bytes().len() < MIN_LITERAL) {
            return None;
        }
        Some(Needs(
            literals
                .iter()
                .map(|l| l.as_bytes().windows(3).map(trigram).collect())
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(files: &[(&str, &str)]) -> Sources {
        files
            .iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect()
    }

    #[test]
    fn files_without_the_literal_are_skipped_and_case_is_folded() {
        let s = sources(&[("a.py", "# TODO later\n"), ("b.py", "nothing here\n")]);
        let filter = TrigramFilter::build(&s);
        let needs = Needs::of("todo", true).unwrap();
        assert!(filter.may_match(0, &needs));
        assert!(!filter.may_match(1, &needs));
        let exact = Needs::of("TODO", false).unwrap();
        assert!(filter.may_match(0, &exact));
    }

    #[test]
    fn patterns_without_a_required_prefix_are_not_filtered() {
        for pattern in ["\\w+_view", "a|bc", ".*x", "(?:ab)?cd", "", "[a-z]{3}"] {
            assert_eq!(Needs::of(pattern, true), None, "{pattern}");
        }
        assert!(Needs::of("def \\w+_view\\(", true).is_some());
        assert!(Needs::of("get_object_or_404|render", false).is_some());
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Whatever the filter skips, the regex finds nothing in.
        #[test]
        fn a_skipped_file_never_matches(
            text in "(ab|TODO|tOdO|x\\n|é|Kk|\\r\\n| ){0,40}",
            pattern in proptest::sample::select(vec!["todo", "TODO", "ab x", "k", "ékk", "odo|abab", "(?i)kab"]),
            case_insensitive in proptest::bool::ANY,
        ) {
            let s = sources(&[("f", text.as_str())]);
            if let Some(needs) = Needs::of(pattern, case_insensitive) {
                let re = regex::RegexBuilder::new(pattern)
                    .case_insensitive(case_insensitive)
                    .build()
                    .unwrap();
                if !TrigramFilter::build(&s).may_match(0, &needs) {
                    proptest::prop_assert!(!re.is_match(&text));
                }
            }
        }
    }
}
