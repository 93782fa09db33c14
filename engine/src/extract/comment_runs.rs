//! Long runs of full-line `#` comments are blanked before tree-sitter-python parses a file: its
//! line-end scanner looks ahead across all the comment lines that follow, so a run of n comment
//! lines costs n² (12,000 lines took 40 s). Byte offsets and line numbers are unchanged.

use std::borrow::Cow;

/// Runs with fewer comment lines than this are left as they are.
const LONG_RUN: usize = 16;

/// `source` with the comments of each long run of comment-only lines (blank lines between them
/// do not end a run) turned into spaces. Lines holding a quote are never touched (they may sit
/// inside a string). Borrowed when there is no long run.
pub fn blank_long_comment_runs(source: &str) -> Cow<'_, str> {
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut run: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for line in source.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let trimmed = content.trim_start();
        if trimmed.starts_with('#') && !trimmed.contains(['"', '\'']) {
            let hash = start + content.len() - trimmed.len();
            run.push((hash, start + content.len()));
        } else if !trimmed.is_empty() {
            end_run(&mut run, &mut blanks);
        }
        start += line.len();
    }
    end_run(&mut run, &mut blanks);
    if blanks.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut out = String::with_capacity(source.len());
    let mut copied = 0;
    for (from, to) in blanks {
        out.push_str(&source[copied..from]);
        out.extend(std::iter::repeat_n(' ', to - from));
        copied = to;
    }
    out.push_str(&source[copied..]);
    Cow::Owned(out)
}

fn end_run(run: &mut Vec<(usize, usize)>, blanks: &mut Vec<(usize, usize)>) {
    if run.len() >= LONG_RUN {
        blanks.append(run);
    }
    run.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_runs_and_code_are_left_alone() {
        let text = "# one\n# two\nx = 1  # not a full line\n\n# three\ndef f():\n    pass\n";
        assert!(matches!(blank_long_comment_runs(text), Cow::Borrowed(_)));
    }

    #[test]
    fn long_runs_become_spaces_of_the_same_length() {
        let mut text = String::from("def f():\n    return 1\n");
        for i in 0..40 {
            text.push_str(&format!("    # comment {i} é\r\n"));
            if i % 7 == 0 {
                text.push('\n');
            }
        }
        text.push_str("# it's quoted\nclass C:\n    pass\n");
        let blanked = blank_long_comment_runs(&text);
        assert_eq!(blanked.len(), text.len());
        assert_eq!(blanked.lines().count(), text.lines().count());
        assert!(!blanked.contains("comment"));
        assert!(blanked.contains("# it's quoted\nclass C:\n    pass\n"));
        assert!(blanked.starts_with("def f():\n    return 1\n"));
        for (a, b) in blanked.lines().zip(text.lines()) {
            assert!(a == b || a.trim().is_empty(), "{a:?} from {b:?}");
        }
    }
}
