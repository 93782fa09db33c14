//! A per-file filter for `grep`: a Bloom filter of each file's case-folded byte trigrams (two bits
//! per trigram), built once per graph on the first grep, and the literals every match of a pattern
//! must start with and end with. A file whose filter lacks a trigram of every such starting (or
//! ending) literal cannot match and is not scanned.

use std::collections::HashSet;

use nexus_engine::Sources;
use regex_syntax::ParserBuilder;
use regex_syntax::hir::Hir;
use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// Shortest literal worth filtering by: it must hold one trigram.
const MIN_LITERAL: usize = 3;
/// Bits per byte of a file's text (rounded up to a power of two): few enough to keep the filter
/// near an eighth of the text, enough that a literal's few trigrams rarely all collide.
const BITS_PER_BYTE: usize = 1;
/// Odd multipliers of the multiplicative hashes giving a trigram's bits. Source files hold about
/// 0.28 distinct trigrams per byte, so one bit per trigram let 2.3 times the files holding `todo`
/// through on the kernel (149 of a sample of 1,500 files; 66 hold it) and two bits 1.7 times
/// (110), in the same room.
const HASHES: [u64; 2] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F];

/// The trigram bitsets of every file with its path, in the order of `Sources`.
#[derive(Debug, Default, PartialEq)]
pub struct TrigramFilter {
    files: Vec<(Box<str>, Bits)>,
}

#[derive(Debug, PartialEq)]
struct Bits {
    /// `words.len() * 64` bits, a power of two.
    words: Vec<u64>,
}

impl Bits {
    fn of(text: &[u8]) -> Bits {
        let bits = (text.len() * BITS_PER_BYTE).next_power_of_two().max(64);
        let mut words = vec![0u64; bits / 64];
        for w in text.windows(3) {
            for at in slots(trigram(w), bits) {
                words[at / 64] |= 1 << (at % 64);
            }
        }
        Bits { words }
    }

    fn has(&self, trigram: u32) -> bool {
        slots(trigram, self.words.len() * 64)
            .into_iter()
            .all(|at| self.words[at / 64] & (1 << (at % 64)) != 0)
    }
}

fn trigram(w: &[u8]) -> u32 {
    u32::from(w[0].to_ascii_lowercase()) << 16
        | u32::from(w[1].to_ascii_lowercase()) << 8
        | u32::from(w[2].to_ascii_lowercase())
}

/// The bits of `trigram` among `bits` (a power of two): each a multiplicative hash's top bits.
fn slots(trigram: u32, bits: usize) -> [usize; HASHES.len()] {
    HASHES.map(|multiplier| {
        let hash = u64::from(trigram).wrapping_mul(multiplier);
        (hash >> (64 - bits.trailing_zeros())) as usize
    })
}

impl TrigramFilter {
    pub fn build(sources: &Sources) -> TrigramFilter {
        TrigramFilter {
            files: sources
                .iter()
                .map(|(path, text)| (path.as_str().into(), Bits::of(text.as_bytes())))
                .collect(),
        }
    }

    /// The filter of `sources`, equal to [`TrigramFilter::build`]`(sources)`, made from this one
    /// (of an earlier version of the same files): only the files in `changed` (written since) and
    /// those it lacks are read and hashed; files no longer in `sources` are dropped.
    pub fn patched(self, sources: &Sources, changed: &HashSet<&str>) -> TrigramFilter {
        let mut kept = self.files.into_iter().peekable();
        let mut files = Vec::with_capacity(sources.len());
        for path in sources.keys() {
            while kept.next_if(|(old, _)| **old < **path).is_some() {}
            let same = kept
                .next_if(|(old, _)| **old == **path)
                .filter(|_| !changed.contains(path.as_str()));
            let bits = match same {
                Some((_, bits)) => bits,
                None => Bits::of(sources.get(path).as_deref().unwrap_or("").as_bytes()),
            };
            files.push((path.as_str().into(), bits));
        }
        TrigramFilter { files }
    }

    /// Whether file number `index` (in the order of `Sources`) may hold a match of `needs`.
    pub fn may_match(&self, index: usize, needs: &Needs) -> bool {
        let Some((_, bits)) = self.files.get(index) else {
            return true;
        };
        needs.0.iter().all(|one_of| {
            one_of
                .iter()
                .any(|literal| literal.iter().all(|&t| bits.has(t)))
        })
    }
}

/// What every match of a pattern starts with and what it ends with: each a set of literals (as
/// their case-folded trigrams) of which a match holds one. A set is left out when some match may
/// start (or end) otherwise: a short or unknown prefix (suffix). `None` when both are left out.
#[derive(Debug, PartialEq)]
pub struct Needs(Vec<Vec<Vec<u32>>>);

impl Needs {
    pub fn of(pattern: &str, case_insensitive: bool) -> Option<Needs> {
        let hir = ParserBuilder::new()
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .crlf(true)
            .build()
            .parse(pattern)
            .ok()?;
        let mut sets: Vec<Vec<Vec<u32>>> = [ExtractKind::Prefix, ExtractKind::Suffix]
            .into_iter()
            .filter_map(|kind| literal_trigrams(&hir, kind))
            .collect();
        // A literal pattern is its own prefix and suffix.
        sets.dedup();
        (!sets.is_empty()).then_some(Needs(sets))
    }
}

/// The literals of `kind` (prefixes or suffixes) one of which every match of `hir` holds, each as
/// its case-folded trigrams; `None` when there is no such set of literals of at least
/// `MIN_LITERAL` bytes.
fn literal_trigrams(hir: &Hir, kind: ExtractKind) -> Option<Vec<Vec<u32>>> {
    let seq = Extractor::new().kind(kind).extract(hir);
    let literals = seq.literals()?;
    if literals.is_empty() || literals.iter().any(|l| l.as_bytes().len() < MIN_LITERAL) {
        return None;
    }
    // Case-insensitive patterns give every spelling of a literal (`TODO`, `ToDo` …), which
    // fold to the same trigrams: each folded list is checked once.
    let mut folded: Vec<Vec<u32>> = literals
        .iter()
        .map(|l| l.as_bytes().windows(3).map(trigram).collect())
        .collect();
    folded.sort_unstable();
    folded.dedup();
    Some(folded)
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
    fn a_patched_filter_equals_one_built_from_the_new_texts() {
        let before = sources(&[
            ("a.py", "# TODO later\n"),
            ("b.py", "nothing here\n"),
            ("c.py", "def view(request):\n"),
            ("d.md", "notes\n"),
        ]);
        // b.py edited, c.py removed, a new file before and after the others, d.md unchanged.
        let after = sources(&[
            ("0.py", "import os\n"),
            ("a.py", "# TODO later\n"),
            ("b.py", "a FIXME here now\n"),
            ("d.md", "notes\n"),
            ("e.py", "def other():\n"),
        ]);
        let changed: HashSet<&str> = ["b.py", "c.py", "0.py", "e.py"].into_iter().collect();
        let patched = TrigramFilter::build(&before).patched(&after, &changed);
        assert_eq!(patched, TrigramFilter::build(&after));
        // An unchanged file keeps its bits, a written one gets its new text's.
        let fixme = Needs::of("fixme", true).unwrap();
        assert!(patched.may_match(2, &fixme));
        assert!(!TrigramFilter::build(&before).may_match(1, &fixme));
    }

    #[test]
    fn every_spelling_of_a_case_insensitive_literal_is_one_check() {
        let todo = vec![trigram(b"tod"), trigram(b"odo")];
        assert_eq!(
            Needs::of("TODO", true),
            Some(Needs(vec![vec![todo.clone()]]))
        );
        assert_eq!(Needs::of("todo", false), Some(Needs(vec![vec![todo]])));
        let Some(Needs(sets)) = Needs::of("kmem_cache_alloc", true) else {
            panic!("a long literal has trigrams");
        };
        assert_eq!(sets.len(), 2, "a prefix and a suffix: {sets:?}");
        // Only the Kelvin sign (which `k` matches case-insensitively) spells `kmem` otherwise.
        assert!(sets.iter().all(|one_of| one_of.len() <= 2), "{sets:?}");
    }

    #[test]
    fn a_file_holding_the_start_of_a_match_but_not_its_end_is_skipped() {
        let s = sources(&[
            ("a.c", "#ifdef CONFIG_X\n#endif\n"),
            ("b.py", "def index_view(request):\n"),
        ]);
        let filter = TrigramFilter::build(&s);
        let needs = Needs::of("def \\w+_view\\(", true).unwrap();
        assert!(!filter.may_match(0, &needs));
        assert!(filter.may_match(1, &needs));
    }

    #[test]
    fn patterns_without_a_required_prefix_or_suffix_are_not_filtered() {
        for pattern in [
            "\\w+_\\w",
            "a|bc",
            ".*x.*",
            "(?:ab)?c(?:de)?",
            "",
            "[a-z]{3}",
        ] {
            assert_eq!(Needs::of(pattern, true), None, "{pattern}");
        }
        assert!(Needs::of("def \\w+_view\\(", true).is_some());
        assert!(Needs::of("\\w+_view\\(", true).is_some());
        assert!(Needs::of("get_object_or_404|render", false).is_some());
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Whatever the filter skips, the regex finds nothing in.
        #[test]
        fn a_skipped_file_never_matches(
            text in "(ab|TODO|tOdO|x\\n|é|Kk|\\r\\n| ){0,40}",
            pattern in proptest::sample::select(vec!["todo", "TODO", "ab x", "k", "ékk", "odo|abab", "(?i)kab", "\\w+ODO", "[a-z]*b x", "(?:x|ab)\\s*TODO", "T\\w*do"]),
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
