//! Response budgets: results are cut at whole items (never mid-item) to stay within a token
//! budget (about 4 characters a token), and say that they were cut and how much remains.

/// Default answer size, in tokens.
pub const DEFAULT_TOKENS: u32 = 2_000;
/// Hard cap whatever the caller asks.
pub const MAX_TOKENS: u32 = 8_000;
const CHARS_PER_TOKEN: usize = 4;

/// Collects Markdown items until the budget is spent.
pub struct Budget {
    text: String,
    limit_chars: usize,
    dropped: usize,
}

/// The budget in characters for `max_tokens`: the default when absent, clamped to 100..=cap.
pub fn limit_chars(max_tokens: Option<u32>) -> usize {
    max_tokens.unwrap_or(DEFAULT_TOKENS).clamp(100, MAX_TOKENS) as usize * CHARS_PER_TOKEN
}

impl Budget {
    pub fn new(max_tokens: Option<u32>) -> Budget {
        Budget {
            text: String::new(),
            limit_chars: limit_chars(max_tokens),
            dropped: 0,
        }
    }

    /// Adds a header line; headers always fit.
    pub fn header(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// Adds one item (one or more lines) if it fits whole; otherwise counts it as dropped.
    pub fn item(&mut self, item: &str) -> bool {
        if self.dropped > 0 || self.text.len() + item.len() + 1 > self.limit_chars {
            self.dropped += 1;
            return false;
        }
        self.text.push_str(item);
        self.text.push('\n');
        true
    }

    /// The text, with a closing line when items were dropped.
    pub fn finish(mut self) -> String {
        if self.dropped > 0 {
            self.text.push_str(&format!(
                "truncated: {} more items not shown (raise max_tokens, lower limit, or page with offset)\n",
                self.dropped
            ));
        }
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_whole_items_and_reports_the_rest() {
        let mut b = Budget::new(Some(100));
        b.header("# head");
        let item = "x".repeat(150);
        let mut kept = 0;
        for _ in 0..5 {
            if b.item(&item) {
                kept += 1;
            }
        }
        assert_eq!((kept, b.dropped), (2, 3));
        let text = b.finish();
        assert!(text.ends_with("truncated: 3 more items not shown (raise max_tokens, lower limit, or page with offset)\n"));
        assert!(!text.contains(&"x".repeat(151)));
    }

    #[test]
    fn hard_cap_applies_whatever_is_asked() {
        let b = Budget::new(Some(1_000_000));
        assert_eq!(b.limit_chars, (MAX_TOKENS as usize) * 4);
    }
}
