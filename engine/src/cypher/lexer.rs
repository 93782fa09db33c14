//! Cypher lexer: query text to tokens with byte offsets. Keywords stay identifiers (the parser
//! matches them case-insensitively); comments and whitespace are dropped.

use super::error::CypherError;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// A bare identifier or keyword.
    Ident(String),
    /// A `backtick-quoted` identifier: never a keyword.
    Quoted(String),
    Str(String),
    Int(i64),
    Float(f64),
    Param(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Semicolon,
    Dot,
    DotDot,
    Pipe,
    Star,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    RegexMatch,
    Minus,
    Plus,
    Slash,
    Percent,
    Caret,
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => s.clone(),
            Tok::Quoted(s) => format!("`{s}`"),
            Tok::Str(s) => format!("'{s}'"),
            Tok::Int(n) => n.to_string(),
            Tok::Float(x) => x.to_string(),
            Tok::Param(p) => format!("${p}"),
            Tok::Eof => "end of query".to_owned(),
            other => format!("'{}'", other.symbol()),
        }
    }

    fn symbol(&self) -> &'static str {
        match self {
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Semicolon => ";",
            Tok::Dot => ".",
            Tok::DotDot => "..",
            Tok::Pipe => "|",
            Tok::Star => "*",
            Tok::Eq => "=",
            Tok::Ne => "<>",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::RegexMatch => "=~",
            Tok::Minus => "-",
            Tok::Plus => "+",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Caret => "^",
            _ => "",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub tok: Tok,
    /// Byte offsets of the token in the query.
    pub start: usize,
    pub end: usize,
}

/// Splits a query into tokens, ending with `Tok::Eof`.
pub(super) fn tokenize(src: &str) -> Result<Vec<Token>, CypherError> {
    let mut lexer = Lexer {
        src,
        chars: src.char_indices().peekable(),
        tokens: Vec::new(),
    };
    lexer.run()?;
    Ok(lexer.tokens)
}

struct Lexer<'a> {
    src: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    tokens: Vec<Token>,
}

impl Lexer<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    /// The character after the next one.
    fn peek_second(&self) -> Option<char> {
        let mut ahead = self.chars.clone();
        ahead.next();
        ahead.next().map(|(_, c)| c)
    }

    fn offset(&mut self) -> usize {
        self.chars.peek().map_or(self.src.len(), |&(i, _)| i)
    }

    fn eat(&mut self, expected: char) -> bool {
        if self.peek() == Some(expected) {
            self.chars.next();
            true
        } else {
            false
        }
    }

    fn push(&mut self, tok: Tok, start: usize) {
        let end = self.offset();
        self.tokens.push(Token { tok, start, end });
    }

    fn run(&mut self) -> Result<(), CypherError> {
        while let Some((start, c)) = self.chars.next() {
            let tok = match c {
                c if c.is_whitespace() => continue,
                '/' if self.eat('/') => {
                    while self.chars.next_if(|&(_, c)| c != '\n').is_some() {}
                    continue;
                }
                '/' if self.eat('*') => {
                    self.block_comment(start)?;
                    continue;
                }
                '(' => Tok::LParen,
                ')' => Tok::RParen,
                '[' => Tok::LBracket,
                ']' => Tok::RBracket,
                '{' => Tok::LBrace,
                '}' => Tok::RBrace,
                ',' => Tok::Comma,
                ':' => Tok::Colon,
                ';' => Tok::Semicolon,
                '|' => Tok::Pipe,
                '*' => Tok::Star,
                '-' => Tok::Minus,
                '+' => Tok::Plus,
                '/' => Tok::Slash,
                '%' => Tok::Percent,
                '^' => Tok::Caret,
                '.' if self.eat('.') => Tok::DotDot,
                '.' => Tok::Dot,
                '=' if self.eat('~') => Tok::RegexMatch,
                '=' => Tok::Eq,
                '!' if self.eat('=') => Tok::Ne,
                '<' if self.eat('>') => Tok::Ne,
                '<' if self.eat('=') => Tok::Le,
                '<' => Tok::Lt,
                '>' if self.eat('=') => Tok::Ge,
                '>' => Tok::Gt,
                '\'' | '"' => Tok::Str(self.string(start, c)?),
                '`' => Tok::Quoted(self.quoted(start)?),
                '$' => Tok::Param(self.param(start)?),
                c if c.is_ascii_digit() => self.number(start)?,
                c if c.is_alphabetic() || c == '_' => Tok::Ident(self.word(start)),
                other => {
                    return Err(CypherError::at(
                        start,
                        format!("unexpected character '{other}'"),
                    ));
                }
            };
            self.push(tok, start);
        }
        let end = self.src.len();
        self.tokens.push(Token {
            tok: Tok::Eof,
            start: end,
            end,
        });
        Ok(())
    }

    fn block_comment(&mut self, start: usize) -> Result<(), CypherError> {
        while let Some((_, c)) = self.chars.next() {
            if c == '*' && self.eat('/') {
                return Ok(());
            }
        }
        Err(CypherError::at(start, "unterminated /* comment"))
    }

    /// The rest of an identifier whose first character was at `start`.
    fn word(&mut self, start: usize) -> String {
        while self
            .chars
            .next_if(|&(_, c)| c.is_alphanumeric() || c == '_')
            .is_some()
        {}
        let end = self.offset();
        self.src.get(start..end).unwrap_or_default().to_owned()
    }

    fn quoted(&mut self, start: usize) -> Result<String, CypherError> {
        let mut text = String::new();
        loop {
            match self.chars.next() {
                Some((_, '`')) if self.eat('`') => text.push('`'),
                Some((_, '`')) => return Ok(text),
                Some((_, c)) => text.push(c),
                None => return Err(CypherError::at(start, "unterminated `quoted name`")),
            }
        }
    }

    fn param(&mut self, start: usize) -> Result<String, CypherError> {
        if self.eat('`') {
            return self.quoted(start);
        }
        let from = self.offset();
        let name = self.word(from);
        if name.is_empty() {
            return Err(CypherError::at(
                start,
                "expected a parameter name after '$'",
            ));
        }
        Ok(name)
    }

    fn string(&mut self, start: usize, quote: char) -> Result<String, CypherError> {
        let mut text = String::new();
        loop {
            let Some((_, c)) = self.chars.next() else {
                return Err(CypherError::at(start, "unterminated string literal"));
            };
            match c {
                c if c == quote => return Ok(text),
                '\\' => self.escape(start, &mut text)?,
                c => text.push(c),
            }
        }
    }

    /// One escape sequence after a backslash. Unknown escapes stay as written, so regular
    /// expressions such as `'\.py$'` keep working.
    fn escape(&mut self, start: usize, text: &mut String) -> Result<(), CypherError> {
        let Some((_, c)) = self.chars.next() else {
            return Err(CypherError::at(start, "unterminated string literal"));
        };
        match c {
            'n' => text.push('\n'),
            't' => text.push('\t'),
            'r' => text.push('\r'),
            '\\' | '\'' | '"' => text.push(c),
            'u' => {
                let mut code = 0u32;
                for _ in 0..4 {
                    let digit = self
                        .chars
                        .next()
                        .and_then(|(_, d)| d.to_digit(16))
                        .ok_or_else(|| {
                            CypherError::at(start, "\\u needs four hexadecimal digits")
                        })?;
                    code = code * 16 + digit;
                }
                let ch = char::from_u32(code)
                    .ok_or_else(|| CypherError::at(start, "\\u escape is not a character"))?;
                text.push(ch);
            }
            other => {
                text.push('\\');
                text.push(other);
            }
        }
        Ok(())
    }

    fn number(&mut self, start: usize) -> Result<Tok, CypherError> {
        while self.chars.next_if(|&(_, c)| c.is_ascii_digit()).is_some() {}
        let mut float = false;
        if self.peek() == Some('.') && self.peek_second().is_some_and(|c| c.is_ascii_digit()) {
            float = true;
            self.chars.next();
            while self.chars.next_if(|&(_, c)| c.is_ascii_digit()).is_some() {}
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let exponent_follows = match self.peek_second() {
                Some(c) if c.is_ascii_digit() => true,
                Some('+' | '-') => true,
                _ => false,
            };
            if exponent_follows {
                float = true;
                self.chars.next();
                self.chars.next_if(|&(_, c)| c == '+' || c == '-');
                while self.chars.next_if(|&(_, c)| c.is_ascii_digit()).is_some() {}
            }
        }
        if self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Err(CypherError::at(start, "malformed number"));
        }
        let end = self.offset();
        let text = self.src.get(start..end).unwrap_or_default();
        if float {
            text.parse::<f64>()
                .map(Tok::Float)
                .map_err(|_| CypherError::at(start, format!("malformed number {text}")))
        } else {
            text.parse::<i64>()
                .map(Tok::Int)
                .map_err(|_| CypherError::at(start, format!("integer {text} is out of range")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        tokenize(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn splits_patterns_and_operators() {
        assert_eq!(
            toks("(a)<-[:X*1..3]-(b)"),
            [
                Tok::LParen,
                Tok::Ident("a".into()),
                Tok::RParen,
                Tok::Lt,
                Tok::Minus,
                Tok::LBracket,
                Tok::Colon,
                Tok::Ident("X".into()),
                Tok::Star,
                Tok::Int(1),
                Tok::DotDot,
                Tok::Int(3),
                Tok::RBracket,
                Tok::Minus,
                Tok::LParen,
                Tok::Ident("b".into()),
                Tok::RParen,
                Tok::Eof,
            ]
        );
        assert_eq!(
            toks("<> != <= >= =~ = 1.5 2e3 $p `we ird`"),
            [
                Tok::Ne,
                Tok::Ne,
                Tok::Le,
                Tok::Ge,
                Tok::RegexMatch,
                Tok::Eq,
                Tok::Float(1.5),
                Tok::Float(2000.0),
                Tok::Param("p".into()),
                Tok::Quoted("we ird".into()),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn strings_escapes_and_comments() {
        assert_eq!(
            toks(
                r#"'it\'s' "a\nb" '\.py$' '\u00e9' // rest
            /* block */ x"#
            ),
            [
                Tok::Str("it's".into()),
                Tok::Str("a\nb".into()),
                Tok::Str("\\.py$".into()),
                Tok::Str("é".into()),
                Tok::Ident("x".into()),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn positions_are_byte_offsets() {
        let tokens = tokenize("MATCH (n)").unwrap();
        assert_eq!((tokens[1].start, tokens[1].end), (6, 7));
        assert_eq!(tokens.last().unwrap().start, 9);
    }

    #[test]
    fn bad_input_is_an_error_with_position() {
        for (src, at, message) in [
            ("'open", 0, "unterminated string"),
            ("a § b", 2, "unexpected character"),
            ("99999999999999999999", 0, "out of range"),
            ("/* never closed", 0, "unterminated /*"),
            ("$ x", 0, "parameter name"),
            ("'\\u12'", 0, "four hexadecimal"),
            ("12abc", 0, "malformed number"),
        ] {
            let err = tokenize(src).unwrap_err();
            assert_eq!(err.position, Some(at), "{src}");
            assert!(err.message.contains(message), "{src}: {}", err.message);
        }
    }
}
