//! The rules language's parser: Datalog clauses (`head(X) :- a(X), !b(X), X != "y".`), facts,
//! `#` and `%` comments. Errors name line and column; any input gives a program or an error.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Atom, Literal, Predicate, Program, Rule, RuleError, Term, Value};

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Var(String),
    Str(String),
    Int(i64),
    LParen,
    RParen,
    Comma,
    Dot,
    Implies,
    Bang,
    NotEqual,
    Equal,
    End,
}

#[derive(Debug, Clone)]
struct Spanned {
    token: Token,
    line: usize,
    column: usize,
}

fn error(line: usize, column: usize, message: impl Into<String>) -> RuleError {
    RuleError {
        line,
        column,
        message: message.into(),
    }
}

fn lex(text: &str) -> Result<Vec<Spanned>, RuleError> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let (mut line, mut column) = (1usize, 1usize);
    while let Some(&c) = chars.peek() {
        let (at_line, at_column) = (line, column);
        let mut bump = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            let c = chars.next();
            if c == Some('\n') {
                line += 1;
                column = 1;
            } else if c.is_some() {
                column += 1;
            }
            c
        };
        let token = match c {
            c if c.is_whitespace() => {
                bump(&mut chars);
                continue;
            }
            '#' | '%' => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    bump(&mut chars);
                }
                continue;
            }
            '(' => {
                bump(&mut chars);
                Token::LParen
            }
            ')' => {
                bump(&mut chars);
                Token::RParen
            }
            ',' => {
                bump(&mut chars);
                Token::Comma
            }
            '.' => {
                bump(&mut chars);
                Token::Dot
            }
            '=' => {
                bump(&mut chars);
                Token::Equal
            }
            ':' => {
                bump(&mut chars);
                if chars.peek() != Some(&'-') {
                    return Err(error(at_line, at_column, "expected ':-' after ':'"));
                }
                bump(&mut chars);
                Token::Implies
            }
            '!' => {
                bump(&mut chars);
                if chars.peek() == Some(&'=') {
                    bump(&mut chars);
                    Token::NotEqual
                } else {
                    Token::Bang
                }
            }
            '"' => {
                bump(&mut chars);
                let mut s = String::new();
                loop {
                    match bump(&mut chars) {
                        None | Some('\n') => {
                            return Err(error(at_line, at_column, "string not closed on its line"));
                        }
                        Some('"') => break,
                        Some('\\') => match bump(&mut chars) {
                            Some(e @ ('"' | '\\')) => s.push(e),
                            Some('n') => s.push('\n'),
                            _ => {
                                return Err(error(
                                    line,
                                    column.saturating_sub(1),
                                    "unknown escape in string (use \\\" \\\\ or \\n)",
                                ));
                            }
                        },
                        Some(other) => s.push(other),
                    }
                }
                Token::Str(s)
            }
            c if c.is_ascii_digit() || c == '-' => {
                let mut s = String::new();
                s.extend(bump(&mut chars));
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    s.extend(bump(&mut chars));
                }
                match s.parse::<i64>() {
                    Ok(n) => Token::Int(n),
                    Err(_) => return Err(error(at_line, at_column, format!("bad number '{s}'"))),
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut s = String::new();
                while chars
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    s.extend(bump(&mut chars));
                }
                if c.is_uppercase() || c == '_' {
                    Token::Var(s)
                } else {
                    Token::Ident(s)
                }
            }
            other => {
                return Err(error(
                    at_line,
                    at_column,
                    format!("unexpected character '{other}'"),
                ));
            }
        };
        out.push(Spanned {
            token,
            line: at_line,
            column: at_column,
        });
    }
    out.push(Spanned {
        token: Token::End,
        line,
        column,
    });
    Ok(out)
}

struct Parser {
    tokens: Vec<Spanned>,
    at: usize,
    predicates: Vec<Predicate>,
    by_name: HashMap<String, usize>,
    /// Variable names of the clause being parsed, by slot.
    vars: Vec<String>,
}

impl Parser {
    fn peek(&self) -> &Spanned {
        // `lex` always ends the list with `End`, and `next` never moves past it.
        &self.tokens[self.at.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Spanned {
        let t = self.peek().clone();
        if t.token != Token::End {
            self.at += 1;
        }
        t
    }

    fn expect(&mut self, want: Token, what: &str) -> Result<Spanned, RuleError> {
        let t = self.next();
        if t.token == want {
            Ok(t)
        } else {
            Err(error(
                t.line,
                t.column,
                format!("expected {what}, found {}", describe(&t.token)),
            ))
        }
    }

    fn predicate(&mut self, name: &str, arity: usize, at: &Spanned) -> Result<usize, RuleError> {
        if let Some(&id) = self.by_name.get(name) {
            let known = self.predicates[id].arity;
            if known != arity {
                return Err(error(
                    at.line,
                    at.column,
                    format!("'{name}' takes {known} argument(s) elsewhere, {arity} here"),
                ));
            }
            return Ok(id);
        }
        let id = self.predicates.len();
        self.predicates.push(Predicate {
            name: name.to_string(),
            arity,
        });
        self.by_name.insert(name.to_string(), id);
        Ok(id)
    }

    fn term(&mut self) -> Result<Term, RuleError> {
        let t = self.next();
        Ok(match t.token {
            Token::Var(name) if name == "_" => Term::Wildcard,
            Token::Var(name) => Term::Var(self.slot(&name)),
            Token::Ident(s) | Token::Str(s) => Term::Const(Value::Str(Arc::from(s))),
            Token::Int(n) => Term::Const(Value::Int(n)),
            other => {
                return Err(error(
                    t.line,
                    t.column,
                    format!("expected a term, found {}", describe(&other)),
                ));
            }
        })
    }

    fn slot(&mut self, name: &str) -> usize {
        match self.vars.iter().position(|v| v == name) {
            Some(i) => i,
            None => {
                self.vars.push(name.to_string());
                self.vars.len() - 1
            }
        }
    }

    fn atom(&mut self) -> Result<(Atom, Spanned), RuleError> {
        let start = self.next();
        let Token::Ident(name) = &start.token else {
            return Err(error(
                start.line,
                start.column,
                format!(
                    "expected a predicate name, found {}",
                    describe(&start.token)
                ),
            ));
        };
        let name = name.clone();
        let mut terms = Vec::new();
        if self.peek().token == Token::LParen {
            self.next();
            if self.peek().token != Token::RParen {
                loop {
                    terms.push(self.term()?);
                    if self.peek().token == Token::Comma {
                        self.next();
                    } else {
                        break;
                    }
                }
            }
            self.expect(Token::RParen, "',' or ')'")?;
        }
        let predicate = self.predicate(&name, terms.len(), &start)?;
        Ok((Atom { predicate, terms }, start))
    }

    fn literal(&mut self) -> Result<(Literal, Spanned), RuleError> {
        let start = self.peek().clone();
        match &start.token {
            Token::Bang => {
                self.next();
                let (atom, _) = self.atom()?;
                Ok((Literal::Not(atom), start))
            }
            Token::Ident(_) => {
                let (atom, at) = self.atom()?;
                Ok((Literal::Pos(atom), at))
            }
            _ => {
                let left = self.term()?;
                let op = self.next();
                let equal = match op.token {
                    Token::NotEqual => false,
                    Token::Equal => true,
                    other => {
                        return Err(error(
                            op.line,
                            op.column,
                            format!("expected '=' or '!=', found {}", describe(&other)),
                        ));
                    }
                };
                let right = self.term()?;
                Ok((Literal::Compare { left, right, equal }, start))
            }
        }
    }

    fn clause(&mut self) -> Result<Rule, RuleError> {
        self.vars.clear();
        let (head, head_at) = self.atom()?;
        let mut body = Vec::new();
        let mut spans = Vec::new();
        let end = self.next();
        match end.token {
            Token::Dot => {}
            Token::Implies => loop {
                let (lit, at) = self.literal()?;
                body.push(lit);
                spans.push(at);
                let sep = self.next();
                match sep.token {
                    Token::Comma => {}
                    Token::Dot => break,
                    other => {
                        return Err(error(
                            sep.line,
                            sep.column,
                            format!("expected ',' or '.', found {}", describe(&other)),
                        ));
                    }
                }
            },
            other => {
                return Err(error(
                    end.line,
                    end.column,
                    format!("expected '.' or ':-', found {}", describe(&other)),
                ));
            }
        }
        let rule = Rule {
            head,
            body,
            vars: self.vars.len(),
            line: head_at.line,
        };
        check_safety(&rule, &head_at, &spans, &self.vars)?;
        Ok(rule)
    }
}

/// Every variable of the head, of a negation and of a comparison must be bound by a positive
/// atom; a head has no wildcard. Without this a rule could derive unbounded facts.
fn check_safety(
    rule: &Rule,
    head_at: &Spanned,
    spans: &[Spanned],
    names: &[String],
) -> Result<(), RuleError> {
    let mut bound = vec![false; rule.vars];
    for lit in &rule.body {
        if let Literal::Pos(atom) = lit {
            for t in &atom.terms {
                if let Term::Var(v) = t {
                    bound[*v] = true;
                }
            }
        }
    }
    let unbound = |terms: &[&Term]| {
        terms.iter().find_map(|t| match t {
            Term::Var(v) if !bound[*v] => Some(names[*v].clone()),
            _ => None,
        })
    };
    let head_terms: Vec<&Term> = rule.head.terms.iter().collect();
    if head_terms.iter().any(|t| matches!(t, Term::Wildcard)) {
        return Err(error(
            head_at.line,
            head_at.column,
            "a head cannot hold '_'",
        ));
    }
    if let Some(name) = unbound(&head_terms) {
        return Err(error(
            head_at.line,
            head_at.column,
            format!("variable {name} of the head is not bound by a positive atom of the body"),
        ));
    }
    for (lit, at) in rule.body.iter().zip(spans) {
        let terms: Vec<&Term> = match lit {
            Literal::Pos(_) => continue,
            Literal::Not(atom) => atom.terms.iter().collect(),
            Literal::Compare { left, right, .. } => vec![left, right],
        };
        if let Some(name) = unbound(&terms) {
            return Err(error(
                at.line,
                at.column,
                format!("variable {name} is not bound by a positive atom of the body"),
            ));
        }
    }
    Ok(())
}

fn describe(token: &Token) -> String {
    match token {
        Token::Ident(s) => format!("'{s}'"),
        Token::Var(s) => format!("variable {s}"),
        Token::Str(s) => format!("string \"{s}\""),
        Token::Int(n) => format!("number {n}"),
        Token::LParen => "'('".into(),
        Token::RParen => "')'".into(),
        Token::Comma => "','".into(),
        Token::Dot => "'.'".into(),
        Token::Implies => "':-'".into(),
        Token::Bang => "'!'".into(),
        Token::NotEqual => "'!='".into(),
        Token::Equal => "'='".into(),
        Token::End => "the end of the rules".into(),
    }
}

/// Parses a whole rules text into a program (strata not yet computed).
pub(super) fn parse(text: &str) -> Result<(Vec<Predicate>, Vec<Rule>), RuleError> {
    let mut p = Parser {
        tokens: lex(text)?,
        at: 0,
        predicates: Vec::new(),
        by_name: HashMap::new(),
        vars: Vec::new(),
    };
    for (name, arity) in Program::BUILT_IN {
        let at = Spanned {
            token: Token::End,
            line: 1,
            column: 1,
        };
        p.predicate(name, *arity, &at)?;
    }
    let mut rules = Vec::new();
    while p.peek().token != Token::End {
        rules.push(p.clause()?);
    }
    Ok((p.predicates, rules))
}
