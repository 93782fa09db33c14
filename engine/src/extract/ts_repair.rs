//! TypeScript syntax tree-sitter-typescript 0.23 does not know, rewritten before parsing so that
//! the rest of the file parses (an error there swallows the declarations around it). Byte
//! offsets and line numbers are unchanged, and names are read from the original text.
//! - Variance annotations of type parameters (`<in out A, out E>`, TypeScript 4.7): the `in` /
//!   `out` modifiers are blanked.
//! - A call signature with type parameters starting a line of an object type or an interface
//!   after another member (`{ (a: A): B⏎ <C>(c: C): D }`): the grammar reads the `<` as
//!   continuing the member before, so a `;` is written in the indentation before it (TypeScript
//!   files only: in TSX a line starting with `<` is JSX).
//! - An escaped backtick in a template literal type (`` `a \`b\` ${T}` ``): the grammar ends the
//!   literal there; escaped backticks in template literals are blanked (their text is never
//!   read).

use std::borrow::Cow;

/// Words that, ending the code before a `/`, make it the start of a regular expression.
const BEFORE_REGEX: &[&[u8]] = &[
    b"return",
    b"typeof",
    b"case",
    b"in",
    b"of",
    b"void",
    b"yield",
    b"await",
    b"delete",
    b"instanceof",
    b"new",
    b"do",
    b"else",
];

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The last code token seen: its last byte, and where the word it ends started.
#[derive(Clone, Copy)]
struct Last {
    byte: u8,
    at: usize,
    word_start: usize,
}

struct Scan<'s> {
    src: &'s [u8],
    i: usize,
    last: Option<Last>,
    /// A line break since the last code token.
    line_start: bool,
    /// Brace depth inside each open template substitution (`${ … }`).
    templates: Vec<u32>,
    signatures: bool,
    /// Byte ranges to blank, and positions to write `;` at.
    blanks: Vec<(usize, usize)>,
    semicolons: Vec<usize>,
}

/// `source` with the constructs above rewritten; borrowed when there is none. `signatures`
/// turns on the call-signature repair (TypeScript, not TSX).
pub fn repair(source: &str, signatures: bool) -> Cow<'_, str> {
    let mut scan = Scan {
        src: source.as_bytes(),
        i: 0,
        last: None,
        line_start: true,
        templates: Vec::new(),
        signatures,
        blanks: Vec::new(),
        semicolons: Vec::new(),
    };
    scan.run();
    if scan.blanks.is_empty() && scan.semicolons.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut out = source.as_bytes().to_vec();
    for (from, to) in scan.blanks {
        out[from..to].fill(b' ');
    }
    for at in scan.semicolons {
        out[at] = b';';
    }
    // Only ASCII letters and ASCII whitespace were replaced, by ASCII bytes.
    String::from_utf8(out).map_or(Cow::Borrowed(source), Cow::Owned)
}

impl Scan<'_> {
    fn peek(&self, at: usize) -> u8 {
        self.src.get(at).copied().unwrap_or(0)
    }

    fn run(&mut self) {
        while self.i < self.src.len() {
            let b = self.src[self.i];
            match b {
                b'\n' => {
                    self.line_start = true;
                    self.i += 1;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'/' if self.peek(self.i + 1) == b'/' => self.skip_until_line_end(),
                b'/' if self.peek(self.i + 1) == b'*' => self.skip_block_comment(),
                b'/' if self.regex_allowed() => self.skip_regex(),
                b'\'' | b'"' => self.skip_string(b),
                b'`' => {
                    self.i += 1;
                    self.skip_template();
                }
                b'{' => {
                    if let Some(depth) = self.templates.last_mut() {
                        *depth += 1;
                    }
                    self.token(b);
                }
                b'}' => match self.templates.last_mut() {
                    Some(0) => {
                        self.templates.pop();
                        self.i += 1;
                        self.skip_template();
                    }
                    Some(depth) => {
                        *depth -= 1;
                        self.token(b);
                    }
                    None => self.token(b),
                },
                b'<' => {
                    if self.signatures && self.line_start && self.ends_member() {
                        let before = self.i.checked_sub(1).map(|p| (p, self.src[p]));
                        if let Some((p, b' ' | b'\t')) = before {
                            self.semicolons.push(p);
                        }
                    }
                    self.token(b);
                    self.variance();
                }
                b',' => {
                    self.token(b);
                    self.variance();
                }
                _ if is_ident(b) => {
                    let start = self.i;
                    while self.i < self.src.len() && is_ident(self.src[self.i]) {
                        self.i += 1;
                    }
                    self.last = Some(Last {
                        byte: self.src[self.i - 1],
                        at: self.i - 1,
                        word_start: start,
                    });
                    self.line_start = false;
                }
                _ => self.token(b),
            }
        }
    }

    /// One punctuation byte of code.
    fn token(&mut self, b: u8) {
        self.last = Some(Last {
            byte: b,
            at: self.i,
            word_start: self.i,
        });
        self.line_start = false;
        self.i += 1;
    }

    /// Whether the code before ends a type (a member of an object type can end there): a
    /// name, a closing bracket or quote, or the `>` of type arguments (not `=>`).
    fn ends_member(&self) -> bool {
        let Some(last) = self.last else {
            return false;
        };
        match last.byte {
            b')' | b']' | b'}' | b'\'' | b'"' | b'`' => true,
            b'>' => last.at == 0 || self.src[last.at - 1] != b'=',
            b => is_ident(b),
        }
    }

    /// After `<` or `,`: `in` / `out` modifiers followed by a type parameter's name are blanked.
    fn variance(&mut self) {
        let mut at = self.i;
        loop {
            while matches!(self.peek(at), b' ' | b'\t' | b'\r' | b'\n') {
                at += 1;
            }
            let word_end = (at..self.src.len())
                .find(|&p| !is_ident(self.src[p]))
                .unwrap_or(self.src.len());
            let word = &self.src[at..word_end];
            if word != b"in" && word != b"out" {
                return;
            }
            let mut next = word_end;
            while matches!(self.peek(next), b' ' | b'\t') {
                next += 1;
            }
            let follows_name = next > word_end && is_ident(self.peek(next));
            let follows_extends = self.src[next..].starts_with(b"extends")
                && !is_ident(self.peek(next + b"extends".len()));
            if !follows_name || follows_extends {
                return;
            }
            self.blanks.push((at, word_end));
            at = next;
        }
    }

    /// A `/` here starts a regular expression rather than a division.
    fn regex_allowed(&self) -> bool {
        let Some(last) = self.last else {
            return true;
        };
        if is_ident(last.byte) {
            return BEFORE_REGEX.contains(&&self.src[last.word_start..=last.at]);
        }
        !matches!(last.byte, b')' | b']' | b'}' | b'\'' | b'"' | b'`')
    }

    fn skip_until_line_end(&mut self) {
        while self.i < self.src.len() && self.src[self.i] != b'\n' {
            self.i += 1;
        }
    }

    fn skip_block_comment(&mut self) {
        self.i += 2;
        while self.i < self.src.len() && !self.src[self.i..].starts_with(b"*/") {
            if self.src[self.i] == b'\n' {
                self.line_start = true;
            }
            self.i += 1;
        }
        self.i = (self.i + 2).min(self.src.len());
    }

    /// A quoted string, up to its closing quote or the end of the line.
    fn skip_string(&mut self, quote: u8) {
        let start = self.i;
        self.i += 1;
        while self.i < self.src.len() {
            match self.src[self.i] {
                b'\\' => self.i += 2,
                b'\n' => break,
                b if b == quote => {
                    self.i += 1;
                    break;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.i.min(self.src.len());
        self.last = Some(Last {
            byte: quote,
            at: self.i.saturating_sub(1).max(start),
            word_start: start,
        });
        self.line_start = false;
    }

    /// A template literal's text from here, up to its closing backtick or a `${`. Escaped
    /// backticks are blanked: the grammar ends a template literal type at them.
    fn skip_template(&mut self) {
        while self.i < self.src.len() {
            match self.src[self.i] {
                b'\\' if self.peek(self.i + 1) == b'`' => {
                    self.blanks.push((self.i, self.i + 2));
                    self.i += 2;
                }
                b'\\' => self.i += 2,
                b'`' => {
                    self.i += 1;
                    self.last = Some(Last {
                        byte: b'`',
                        at: self.i - 1,
                        word_start: self.i - 1,
                    });
                    self.line_start = false;
                    return;
                }
                b'$' if self.peek(self.i + 1) == b'{' => {
                    self.i += 2;
                    self.templates.push(0);
                    self.last = None;
                    return;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.i.min(self.src.len());
    }

    /// A regular expression literal, up to its closing `/` (outside a class) or the line's end.
    fn skip_regex(&mut self) {
        let start = self.i;
        self.i += 1;
        let mut class = false;
        while self.i < self.src.len() {
            match self.src[self.i] {
                b'\\' => self.i += 2,
                b'\n' => break,
                b'[' => {
                    class = true;
                    self.i += 1;
                }
                b']' => {
                    class = false;
                    self.i += 1;
                }
                b'/' if !class => {
                    self.i += 1;
                    break;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.i.min(self.src.len());
        self.last = Some(Last {
            byte: b')',
            at: self.i.saturating_sub(1).max(start),
            word_start: start,
        });
        self.line_start = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variance_modifiers_are_blanked_in_place() {
        let text = "interface Nil<out A> {}\ninterface Q<in out A, out E, R> {}\n";
        let fixed = repair(text, true);
        assert_eq!(
            fixed,
            "interface Nil<    A> {}\ninterface Q<       A,     E, R> {}\n"
        );
    }

    #[test]
    fn a_call_signature_after_a_member_gets_a_separator() {
        let text = "const f: {\n  (a: A): Cons<A>\n  <B>(b: B): B\n} = g\n";
        assert_eq!(
            repair(text, true),
            "const f: {\n  (a: A): Cons<A>\n ;<B>(b: B): B\n} = g\n"
        );
        // TSX: a line starting with `<` is JSX.
        assert!(matches!(repair(text, false), Cow::Borrowed(_)));
    }

    #[test]
    fn escaped_backticks_in_template_literals_are_blanked() {
        let text = "type M<U extends string> = `use \\`${U}\\` here`\nconst x = 1\n";
        assert_eq!(
            repair(text, true),
            "type M<U extends string> = `use   ${U}   here`\nconst x = 1\n"
        );
    }

    #[test]
    fn expressions_strings_comments_and_names_are_left_alone() {
        for text in [
            // A generic arrow function as an argument on its own line.
            "dual(2,\n  <A>(self: A): A => self)\n",
            "const g = (x: number) =>\n  <A>(a: A) => a\n",
            // `in` / `out` as names, operators and words in strings.
            "for (const k in obj) { f(out, k) }\nconst s = \"a, in b\"\n",
            "type T<out> = out\nconst o = { a: 1, in: 2 }\n",
            "function f<out extends string>(x: out) {}\n",
            // A comment or a string ending with `>` before a line starting with `<`.
            "f(a, // x>\n  <A>(y: A) => y)\nconst r = /<a>/\n",
        ] {
            assert!(
                matches!(repair(text, true), Cow::Borrowed(_)),
                "changed: {text}"
            );
        }
    }
}
