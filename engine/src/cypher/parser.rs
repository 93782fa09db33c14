//! Recursive-descent parser from tokens to the syntax tree. Nesting is capped (`MAX_DEPTH`) and
//! AND/OR/XOR chains are flat lists, so no input can overflow the stack here or later.

use super::ast::{
    BinaryOp, Direction, Expr, ExprKind, Length, MatchClause, Name, NodePattern, PathPattern,
    Query, RelPattern, Return, ReturnItem, SortItem,
};
use super::error::CypherError;
use super::lexer::{Tok, Token, tokenize};
use super::value::Value;

/// Deepest nesting of parentheses, lists, NOTs and predicates in one expression.
const MAX_DEPTH: usize = 40;
/// Most node patterns in one query.
const MAX_NODE_PATTERNS: usize = 32;

pub(super) const SUPPORTED_CLAUSES: &str =
    "MATCH, OPTIONAL MATCH, WHERE, RETURN, ORDER BY, SKIP, LIMIT";

const WRITE_CLAUSES: [&str; 11] = [
    "CREATE", "MERGE", "SET", "DELETE", "REMOVE", "DETACH", "LOAD", "CALL", "FOREACH", "DROP",
    "INSERT",
];

/// Clause keywords that are valid only after a MATCH or RETURN.
const MISPLACED_KEYWORDS: [&str; 5] = ["WHERE", "ORDER", "SKIP", "LIMIT", "MATCH"];

pub(super) fn parse(src: &str) -> Result<Query, CypherError> {
    let tokens = tokenize(src)?;
    let mut parser = Parser {
        src,
        tokens,
        at: 0,
        depth: 0,
        node_patterns: 0,
    };
    parser.query()
}

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
    node_patterns: usize,
}

impl Parser<'_> {
    fn token(&self) -> &Token {
        let last = self.tokens.len().saturating_sub(1);
        &self.tokens[self.at.min(last)]
    }

    fn tok(&self) -> &Tok {
        &self.token().tok
    }

    fn tok_after(&self) -> &Tok {
        let last = self.tokens.len().saturating_sub(1);
        &self.tokens[(self.at + 1).min(last)].tok
    }

    fn pos(&self) -> usize {
        self.token().start
    }

    /// End of the last consumed token.
    fn prev_end(&self) -> usize {
        self.at
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(0, |t| t.end)
    }

    fn advance(&mut self) -> Tok {
        let tok = self.tok().clone();
        if self.at < self.tokens.len() {
            self.at += 1;
        }
        tok
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.tok() == tok {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &Tok, what: &str) -> Result<(), CypherError> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    fn unexpected(&self, what: &str) -> CypherError {
        CypherError::at(
            self.pos(),
            format!("expected {what}, found {}", self.tok().describe()),
        )
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.tok(), Tok::Ident(w) if w.eq_ignore_ascii_case(kw))
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect_kw(&mut self, kw: &str) -> Result<(), CypherError> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.unexpected(kw))
        }
    }

    fn enter(&mut self) -> Result<(), CypherError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CypherError::at(
                self.pos(),
                format!("expression nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self, levels: usize) {
        self.depth = self.depth.saturating_sub(levels);
    }

    fn name(&mut self, what: &str) -> Result<Name, CypherError> {
        let pos = self.pos();
        match self.tok() {
            Tok::Ident(text) | Tok::Quoted(text) => {
                let text = text.clone();
                self.advance();
                Ok(Name { text, pos })
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn query(&mut self) -> Result<Query, CypherError> {
        let mut clauses = Vec::new();
        loop {
            if self.eat_kw("MATCH") {
                clauses.push(self.match_clause(false)?);
            } else if self.eat_kw("OPTIONAL") {
                self.expect_kw("MATCH")?;
                clauses.push(self.match_clause(true)?);
            } else if self.eat_kw("RETURN") {
                break;
            } else {
                return Err(self.clause_error());
            }
        }
        let ret = self.return_clause()?;
        self.eat(&Tok::Semicolon);
        if *self.tok() != Tok::Eof {
            return Err(self.clause_error());
        }
        Ok(Query { clauses, ret })
    }

    /// The error for a token where a clause should start (or the query should end).
    fn clause_error(&self) -> CypherError {
        let pos = self.pos();
        let word = match self.tok() {
            Tok::Ident(w) => w.to_ascii_uppercase(),
            Tok::Eof => {
                return CypherError::at(
                    pos,
                    format!("the query has no RETURN clause; supported: {SUPPORTED_CLAUSES}"),
                );
            }
            other => {
                return CypherError::at(pos, format!("unexpected {}", other.describe()));
            }
        };
        if WRITE_CLAUSES.contains(&word.as_str()) {
            CypherError::at(
                pos,
                format!(
                    "Nexus's Cypher is read-only: {word} is not supported; supported: {SUPPORTED_CLAUSES}"
                ),
            )
        } else if MISPLACED_KEYWORDS.contains(&word.as_str()) {
            CypherError::at(
                pos,
                format!(
                    "{word} is out of place; a query reads [OPTIONAL] MATCH pattern [WHERE condition] ... RETURN items [ORDER BY keys] [SKIP n] [LIMIT n]"
                ),
            )
        } else {
            CypherError::at(
                pos,
                format!("unsupported clause {word}; supported: {SUPPORTED_CLAUSES}"),
            )
        }
    }

    fn match_clause(&mut self, optional: bool) -> Result<MatchClause, CypherError> {
        let mut patterns = vec![self.path_pattern()?];
        while self.eat(&Tok::Comma) {
            patterns.push(self.path_pattern()?);
        }
        let filter = if self.eat_kw("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(MatchClause {
            optional,
            patterns,
            filter,
        })
    }

    fn path_pattern(&mut self) -> Result<PathPattern, CypherError> {
        if matches!(self.tok(), Tok::Ident(_) | Tok::Quoted(_)) {
            let pos = self.pos();
            return Err(match self.tok_after() {
                Tok::Eq => CypherError::at(
                    pos,
                    "named paths (p = ...) are not supported; name the nodes and relationships instead",
                ),
                Tok::LParen => CypherError::at(
                    pos,
                    format!(
                        "{} is not supported; use a variable-length pattern such as (a)-[:CALLS*1..5]->(b)",
                        self.tok().describe()
                    ),
                ),
                _ => self.unexpected("'(' to start a node pattern"),
            });
        }
        let start = self.node_pattern()?;
        let mut hops = Vec::new();
        while matches!(self.tok(), Tok::Minus | Tok::Lt) {
            let rel = self.rel_pattern()?;
            let node = self.node_pattern()?;
            hops.push((rel, node));
        }
        Ok(PathPattern { start, hops })
    }

    fn node_pattern(&mut self) -> Result<NodePattern, CypherError> {
        self.node_patterns += 1;
        if self.node_patterns > MAX_NODE_PATTERNS {
            return Err(CypherError::at(
                self.pos(),
                format!("a query may have at most {MAX_NODE_PATTERNS} node patterns"),
            ));
        }
        self.expect(&Tok::LParen, "'(' to start a node pattern")?;
        let var = match self.tok() {
            Tok::Ident(_) | Tok::Quoted(_) => Some(self.name("a variable")?),
            _ => None,
        };
        let labels = self.alternatives(
            "a label",
            "a node has one label; use alternation such as (n:Class|Interface)",
        )?;
        let props = self.property_map()?;
        self.expect(&Tok::RParen, "')' to close the node pattern")?;
        Ok(NodePattern { var, labels, props })
    }

    /// `:A|B|:C` after a variable; empty when there is no colon.
    fn alternatives(&mut self, what: &str, one_only: &str) -> Result<Vec<Name>, CypherError> {
        let mut names = Vec::new();
        if !self.eat(&Tok::Colon) {
            return Ok(names);
        }
        names.push(self.name(what)?);
        while self.eat(&Tok::Pipe) {
            self.eat(&Tok::Colon);
            names.push(self.name(what)?);
        }
        if *self.tok() == Tok::Colon {
            return Err(CypherError::at(self.pos(), one_only));
        }
        Ok(names)
    }

    fn property_map(&mut self) -> Result<Vec<(Name, Expr)>, CypherError> {
        let mut props = Vec::new();
        if matches!(self.tok(), Tok::Param(_)) {
            return Err(CypherError::at(
                self.pos(),
                "a parameter as a whole property map is not supported; write {name: $name}",
            ));
        }
        if !self.eat(&Tok::LBrace) {
            return Ok(props);
        }
        if self.eat(&Tok::RBrace) {
            return Ok(props);
        }
        loop {
            let key = self.name("a property name")?;
            self.expect(&Tok::Colon, "':' after the property name")?;
            props.push((key, self.expr()?));
            if self.eat(&Tok::RBrace) {
                return Ok(props);
            }
            self.expect(&Tok::Comma, "',' or '}' in the property map")?;
        }
    }

    fn rel_pattern(&mut self) -> Result<RelPattern, CypherError> {
        let pos = self.pos();
        let left = self.eat(&Tok::Lt);
        self.expect(&Tok::Minus, "'-' in the relationship pattern")?;
        let mut rel = RelPattern {
            var: None,
            types: Vec::new(),
            direction: Direction::Both,
            length: None,
            props: Vec::new(),
            pos,
        };
        if self.eat(&Tok::LBracket) {
            if matches!(self.tok(), Tok::Ident(_) | Tok::Quoted(_)) {
                rel.var = Some(self.name("a variable")?);
            }
            rel.types = self.alternatives(
                "a relationship type",
                "a relationship has one type; use alternation such as [:CALLS|IMPORTS]",
            )?;
            if self.eat(&Tok::Star) {
                rel.length = Some(self.length()?);
            }
            rel.props = self.property_map()?;
            self.expect(&Tok::RBracket, "']' to close the relationship pattern")?;
        }
        self.expect(&Tok::Minus, "'-' to finish the relationship pattern")?;
        let right = self.eat(&Tok::Gt);
        rel.direction = match (left, right) {
            (true, false) => Direction::In,
            (false, true) => Direction::Out,
            _ => Direction::Both,
        };
        Ok(rel)
    }

    fn hop_count(&mut self) -> Result<Option<u32>, CypherError> {
        let pos = self.pos();
        match *self.tok() {
            Tok::Int(n) => {
                self.advance();
                u32::try_from(n)
                    .map(Some)
                    .map_err(|_| CypherError::at(pos, format!("hop count {n} is out of range")))
            }
            _ => Ok(None),
        }
    }

    fn length(&mut self) -> Result<Length, CypherError> {
        let min = self.hop_count()?;
        if self.eat(&Tok::DotDot) {
            let max = self.hop_count()?;
            return Ok(Length { min, max });
        }
        Ok(Length { min, max: min })
    }

    fn return_clause(&mut self) -> Result<Return, CypherError> {
        let distinct = self.eat_kw("DISTINCT");
        let star = self.eat(&Tok::Star);
        let mut items = Vec::new();
        if !star || self.eat(&Tok::Comma) {
            items.push(self.return_item()?);
            while self.eat(&Tok::Comma) {
                items.push(self.return_item()?);
            }
        }
        let mut order = Vec::new();
        if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            loop {
                let expr = self.expr()?;
                let descending = self.eat_kw("DESC") || self.eat_kw("DESCENDING");
                if !descending && !self.eat_kw("ASC") {
                    self.eat_kw("ASCENDING");
                }
                order.push(SortItem { expr, descending });
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        let skip = if self.eat_kw("SKIP") {
            Some(self.expr()?)
        } else {
            None
        };
        let limit = if self.eat_kw("LIMIT") {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Return {
            distinct,
            star,
            items,
            order,
            skip,
            limit,
        })
    }

    fn return_item(&mut self) -> Result<ReturnItem, CypherError> {
        let start = self.pos();
        let expr = self.expr()?;
        let text = self
            .src
            .get(start..self.prev_end())
            .unwrap_or_default()
            .to_owned();
        let alias = if self.eat_kw("AS") {
            Some(self.name("a column name after AS")?)
        } else {
            None
        };
        Ok(ReturnItem { expr, alias, text })
    }

    fn expr(&mut self) -> Result<Expr, CypherError> {
        self.enter()?;
        let expr = self.chain("OR", ExprKind::Or, Self::xor_expr);
        self.leave(1);
        expr
    }

    fn xor_expr(&mut self) -> Result<Expr, CypherError> {
        self.chain("XOR", ExprKind::Xor, Self::and_expr)
    }

    fn and_expr(&mut self) -> Result<Expr, CypherError> {
        self.chain("AND", ExprKind::And, Self::not_expr)
    }

    /// `operand (KW operand)*` as one flat node.
    fn chain(
        &mut self,
        keyword: &str,
        make: fn(Vec<Expr>) -> ExprKind,
        operand: fn(&mut Self) -> Result<Expr, CypherError>,
    ) -> Result<Expr, CypherError> {
        let first = operand(self)?;
        if !self.is_kw(keyword) {
            return Ok(first);
        }
        let pos = first.pos;
        let mut all = vec![first];
        while self.eat_kw(keyword) {
            all.push(operand(self)?);
        }
        Ok(Expr {
            kind: make(all),
            pos,
        })
    }

    fn not_expr(&mut self) -> Result<Expr, CypherError> {
        let pos = self.pos();
        if self.eat_kw("NOT") {
            self.enter()?;
            let inner = self.not_expr();
            self.leave(1);
            return Ok(Expr {
                kind: ExprKind::Not(Box::new(inner?)),
                pos,
            });
        }
        self.comparison()
    }

    fn comparison_op(&self) -> Option<BinaryOp> {
        Some(match self.tok() {
            Tok::Eq => BinaryOp::Eq,
            Tok::Ne => BinaryOp::Ne,
            Tok::Lt => BinaryOp::Lt,
            Tok::Le => BinaryOp::Le,
            Tok::Gt => BinaryOp::Gt,
            Tok::Ge => BinaryOp::Ge,
            _ => return None,
        })
    }

    fn comparison(&mut self) -> Result<Expr, CypherError> {
        let left = self.predicate()?;
        let Some(op) = self.comparison_op() else {
            return Ok(left);
        };
        self.advance();
        let right = self.predicate()?;
        if self.comparison_op().is_some() {
            return Err(CypherError::at(
                self.pos(),
                "chained comparisons are not supported; join them with AND",
            ));
        }
        let pos = left.pos;
        Ok(Expr {
            kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
            pos,
        })
    }

    /// A primary followed by string, list, null and regex predicates.
    fn predicate(&mut self) -> Result<Expr, CypherError> {
        let mut expr = self.primary()?;
        let mut wraps = 0;
        let result = loop {
            let op = if self.eat_kw("CONTAINS") {
                BinaryOp::Contains
            } else if self.eat_kw("STARTS") {
                self.expect_kw("WITH")?;
                BinaryOp::StartsWith
            } else if self.eat_kw("ENDS") {
                self.expect_kw("WITH")?;
                BinaryOp::EndsWith
            } else if self.eat_kw("IN") {
                BinaryOp::In
            } else if self.eat(&Tok::RegexMatch) {
                let right = self.primary()?;
                let pos = expr.pos;
                expr = Expr {
                    kind: ExprKind::Regex(Box::new(expr), Box::new(right)),
                    pos,
                };
                wraps += 1;
                self.enter()?;
                continue;
            } else if self.eat_kw("IS") {
                let negated = self.eat_kw("NOT");
                self.expect_kw("NULL")?;
                let pos = expr.pos;
                expr = Expr {
                    kind: ExprKind::IsNull(Box::new(expr), negated),
                    pos,
                };
                wraps += 1;
                self.enter()?;
                continue;
            } else {
                break Ok(expr);
            };
            let right = self.primary()?;
            let pos = expr.pos;
            expr = Expr {
                kind: ExprKind::Binary(op, Box::new(expr), Box::new(right)),
                pos,
            };
            wraps += 1;
            self.enter()?;
        };
        self.leave(wraps);
        if *self.tok() == Tok::LBracket {
            return Err(CypherError::at(
                self.pos(),
                "list indexing and slicing are not supported",
            ));
        }
        if matches!(
            self.tok(),
            Tok::Plus | Tok::Minus | Tok::Star | Tok::Slash | Tok::Percent | Tok::Caret
        ) {
            return Err(CypherError::at(
                self.pos(),
                "arithmetic (+ - * / % ^) is not supported",
            ));
        }
        result
    }

    fn primary(&mut self) -> Result<Expr, CypherError> {
        let pos = self.pos();
        let kind = match self.advance() {
            Tok::Int(n) => ExprKind::Literal(Value::Int(n)),
            Tok::Float(x) => ExprKind::Literal(Value::Float(x)),
            Tok::Str(s) => ExprKind::Literal(Value::Str(s)),
            Tok::Param(p) => ExprKind::Param(p),
            Tok::Minus => match self.advance() {
                Tok::Int(n) => ExprKind::Literal(Value::Int(-n)),
                Tok::Float(x) => ExprKind::Literal(Value::Float(-x)),
                _ => {
                    return Err(CypherError::at(
                        pos,
                        "arithmetic (+ - * / % ^) is not supported; '-' may only start a number",
                    ));
                }
            },
            Tok::LBracket => ExprKind::List(self.list()?),
            Tok::LParen => {
                let inner = self.expr()?;
                self.expect(&Tok::RParen, "')'")?;
                if matches!(self.tok(), Tok::Minus | Tok::Lt) {
                    return Err(CypherError::at(
                        pos,
                        "pattern predicates in WHERE are not supported; put the pattern in a MATCH (or OPTIONAL MATCH) clause",
                    ));
                }
                return Ok(inner);
            }
            Tok::LBrace => {
                return Err(CypherError::at(pos, "map literals are not supported"));
            }
            Tok::Ident(word) => self.word(word, pos)?,
            Tok::Quoted(name) => self.variable(name)?,
            other => {
                return Err(CypherError::at(
                    pos,
                    format!("expected an expression, found {}", other.describe()),
                ));
            }
        };
        Ok(Expr { kind, pos })
    }

    fn list(&mut self) -> Result<Vec<Expr>, CypherError> {
        let mut items = Vec::new();
        if self.eat(&Tok::RBracket) {
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            if self.eat(&Tok::RBracket) {
                return Ok(items);
            }
            self.expect(&Tok::Comma, "',' or ']' in the list")?;
        }
    }

    /// An expression starting with a bare word: a literal keyword, a call, or a variable.
    fn word(&mut self, word: String, pos: usize) -> Result<ExprKind, CypherError> {
        if *self.tok() == Tok::LParen {
            return self.call(Name { text: word, pos });
        }
        match word.to_ascii_uppercase().as_str() {
            "TRUE" => Ok(ExprKind::Literal(Value::Bool(true))),
            "FALSE" => Ok(ExprKind::Literal(Value::Bool(false))),
            "NULL" => Ok(ExprKind::Literal(Value::Null)),
            "CASE" | "EXISTS" => Err(CypherError::at(
                pos,
                format!(
                    "{} expressions are not supported",
                    word.to_ascii_uppercase()
                ),
            )),
            _ => self.variable(word),
        }
    }

    /// A variable, optionally with `.property` or `:Label` after it.
    fn variable(&mut self, var: String) -> Result<ExprKind, CypherError> {
        if self.eat(&Tok::Dot) {
            let key = self.name("a property name after '.'")?;
            if *self.tok() == Tok::Dot {
                return Err(CypherError::at(
                    self.pos(),
                    "nested property access is not supported",
                ));
            }
            return Ok(ExprKind::Property(var, key));
        }
        if *self.tok() == Tok::Colon {
            let labels = self.alternatives(
                "a label",
                "a node has one label; use alternation such as n:Class|Interface",
            )?;
            return Ok(ExprKind::HasLabels(var, labels));
        }
        Ok(ExprKind::Var(var))
    }

    fn call(&mut self, name: Name) -> Result<ExprKind, CypherError> {
        self.expect(&Tok::LParen, "'('")?;
        let distinct = self.eat_kw("DISTINCT");
        if self.eat(&Tok::Star) {
            self.expect(&Tok::RParen, "')' after '*'")?;
            if !name.text.eq_ignore_ascii_case("count") || distinct {
                return Err(CypherError::at(
                    name.pos,
                    format!("{}(*) is not supported; only count(*)", name.text),
                ));
            }
            return Ok(ExprKind::CountStar);
        }
        let mut args = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                args.push(self.expr()?);
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(&Tok::Comma, "',' or ')' in the argument list")?;
            }
        }
        Ok(ExprKind::Call {
            name,
            distinct,
            args,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr_of(src: &str) -> ExprKind {
        let query = parse(&format!("RETURN {src}")).unwrap();
        query.ret.items[0].expr.kind.clone()
    }

    fn var(name: &str) -> Box<Expr> {
        Box::new(Expr {
            kind: ExprKind::Var(name.into()),
            pos: 0,
        })
    }

    fn lit(value: Value) -> Expr {
        Expr {
            kind: ExprKind::Literal(value),
            pos: 0,
        }
    }

    fn err(src: &str) -> CypherError {
        parse(src).unwrap_err()
    }

    #[test]
    fn parses_match_patterns() {
        let q = parse(
            "MATCH (a:Function {name: 'f', file: $p})-[r:CALLS|IMPORTS*1..3]->(b), (:Class|:Interface)<--(c) \
             OPTIONAL MATCH (c)-[:CodeRelation {type: 'CALLS'}]-(d) WHERE a.name = 'x' RETURN a",
        )
        .unwrap();
        assert_eq!(q.clauses.len(), 2);
        let first = &q.clauses[0].patterns[0];
        assert_eq!(first.start.var.as_ref().unwrap().text, "a");
        assert_eq!(first.start.labels[0].text, "Function");
        assert_eq!(first.start.props.len(), 2);
        let (rel, b) = &first.hops[0];
        assert_eq!(rel.var.as_ref().unwrap().text, "r");
        assert_eq!(rel.types.len(), 2);
        assert_eq!(rel.direction, Direction::Out);
        assert_eq!(
            rel.length,
            Some(Length {
                min: Some(1),
                max: Some(3)
            })
        );
        assert_eq!(b.var.as_ref().unwrap().text, "b");
        let second = &q.clauses[0].patterns[1];
        assert!(second.start.var.is_none());
        assert_eq!(second.start.labels.len(), 2);
        assert_eq!(second.hops[0].0.direction, Direction::In);
        assert!(second.hops[0].0.types.is_empty());
        let optional = &q.clauses[1];
        assert!(optional.optional && optional.filter.is_some());
        assert_eq!(optional.patterns[0].hops[0].0.direction, Direction::Both);
        assert_eq!(optional.patterns[0].hops[0].0.props[0].0.text, "type");
    }

    #[test]
    fn parses_lengths() {
        let len = |src: &str| {
            let q = parse(&format!("MATCH (a)-[{src}]->(b) RETURN a")).unwrap();
            q.clauses[0].patterns[0].hops[0].0.length
        };
        assert_eq!(len(":X"), None);
        assert_eq!(
            len("*"),
            Some(Length {
                min: None,
                max: None
            })
        );
        assert_eq!(
            len("*2"),
            Some(Length {
                min: Some(2),
                max: Some(2)
            })
        );
        assert_eq!(
            len("*..3"),
            Some(Length {
                min: None,
                max: Some(3)
            })
        );
        assert_eq!(
            len("*2.."),
            Some(Length {
                min: Some(2),
                max: None
            })
        );
    }

    #[test]
    fn parses_return_modifiers() {
        let q = parse(
            "MATCH (a) RETURN DISTINCT a.name AS n, count(DISTINCT a) ORDER BY n DESC, a.file SKIP 2 LIMIT $k;",
        )
        .unwrap();
        let ret = q.ret;
        assert!(ret.distinct);
        assert_eq!(ret.items[0].alias.as_ref().unwrap().text, "n");
        assert_eq!(ret.items[0].text, "a.name");
        assert_eq!(ret.items[1].text, "count(DISTINCT a)");
        assert_eq!(ret.order.len(), 2);
        assert!(ret.order[0].descending && !ret.order[1].descending);
        assert_eq!(ret.skip.unwrap().kind, ExprKind::Literal(Value::Int(2)));
        assert_eq!(ret.limit.unwrap().kind, ExprKind::Param("k".into()));
        assert!(parse("MATCH (a) RETURN *").unwrap().ret.star);
    }

    #[test]
    fn expression_precedence() {
        assert_eq!(
            expr_of("a OR b AND NOT c XOR d"),
            ExprKind::Or(vec![
                *var("a"),
                Expr {
                    kind: ExprKind::Xor(vec![
                        Expr {
                            kind: ExprKind::And(vec![
                                *var("b"),
                                Expr {
                                    kind: ExprKind::Not(var("c")),
                                    pos: 0
                                }
                            ]),
                            pos: 0
                        },
                        *var("d"),
                    ]),
                    pos: 0
                },
            ])
        );
        assert_eq!(
            expr_of("x STARTS WITH 'a' = true"),
            ExprKind::Binary(
                BinaryOp::Eq,
                Box::new(Expr {
                    kind: ExprKind::Binary(
                        BinaryOp::StartsWith,
                        var("x"),
                        Box::new(lit(Value::Str("a".into())))
                    ),
                    pos: 0
                }),
                Box::new(lit(Value::Bool(true)))
            )
        );
        assert_eq!(expr_of("x IS NOT NULL"), ExprKind::IsNull(var("x"), true));
        assert_eq!(
            expr_of("[1, -2.5, 'a', null]"),
            ExprKind::List(vec![
                lit(Value::Int(1)),
                lit(Value::Float(-2.5)),
                lit(Value::Str("a".into())),
                lit(Value::Null),
            ])
        );
        assert!(
            matches!(expr_of("a:Function|Method"), ExprKind::HasLabels(v, l) if v == "a" && l.len() == 2)
        );
        assert_eq!(expr_of("count(*)"), ExprKind::CountStar);
        assert!(matches!(expr_of("a.name =~ 'x.*'"), ExprKind::Regex(_, _)));
    }

    #[test]
    fn refuses_writes_and_unsupported_clauses() {
        for (src, needle) in [
            ("CREATE (a)", "read-only: CREATE"),
            ("MATCH (a) DETACH DELETE a", "read-only: DETACH"),
            ("MATCH (a) SET a.x = 1", "read-only: SET"),
            ("MERGE (a)", "read-only: MERGE"),
            ("CALL db.labels()", "read-only: CALL"),
            (
                "MATCH (a) RETURN a UNION MATCH (b) RETURN b",
                "unsupported clause UNION; supported: MATCH",
            ),
            ("MATCH (a) WITH a RETURN a", "unsupported clause WITH"),
            ("UNWIND [1] AS x RETURN x", "unsupported clause UNWIND"),
            ("MATCH (a)", "no RETURN clause"),
            ("RETURN 1 WHERE", "WHERE is out of place"),
        ] {
            let e = err(src);
            assert!(e.message.contains(needle), "{src}: {}", e.message);
        }
    }

    #[test]
    fn reports_unsupported_syntax_clearly() {
        for (src, needle) in [
            ("MATCH p = (a)-->(b) RETURN p", "named paths"),
            (
                "MATCH shortestPath((a)-->(b)) RETURN a",
                "shortestPath is not supported",
            ),
            ("MATCH (a:A:B) RETURN a", "one label"),
            ("MATCH (a)-[:A:B]->(b) RETURN a", "one type"),
            ("MATCH (a $props) RETURN a", "whole property map"),
            ("MATCH (a) WHERE (a)-->() RETURN a", "pattern predicates"),
            ("RETURN 1 + 2", "arithmetic"),
            ("RETURN -a", "arithmetic"),
            ("RETURN {a: 1}", "map literals"),
            ("RETURN CASE WHEN true THEN 1 END", "CASE expressions"),
            ("RETURN a.b.c", "nested property"),
            ("MATCH (n) RETURN labels(n)[0]", "list indexing"),
            ("RETURN 1 < 2 < 3", "chained comparisons"),
            ("RETURN sum(*)", "only count(*)"),
            ("MATCH (a)-[*1..x]->(b) RETURN a", "expected ']'"),
            ("MATCH (a)-[*99999999999]->(b) RETURN a", "out of range"),
            ("RETURN", "expected an expression, found end of query"),
        ] {
            let e = err(src);
            assert!(e.message.contains(needle), "{src}: {}", e.message);
            assert!(e.position.is_some(), "{src}");
        }
    }

    #[test]
    fn caps_nesting_and_size() {
        let deep = format!("RETURN {}1{}", "(".repeat(200), ")".repeat(200));
        assert!(err(&deep).message.contains("nests deeper"));
        let nots = format!("RETURN {}true", "NOT ".repeat(200));
        assert!(err(&nots).message.contains("nests deeper"));
        let lists = format!("RETURN {}1{}", "[".repeat(200), "]".repeat(200));
        assert!(err(&lists).message.contains("nests deeper"));
        let preds = format!("RETURN 1{}", " IS NULL".repeat(200));
        assert!(err(&preds).message.contains("nests deeper"));
        let long_or = format!("RETURN {}", vec!["true"; 5000].join(" OR "));
        assert!(parse(&long_or).is_ok());
        let many = format!("MATCH {} RETURN 1", vec!["(a)"; 40].join(", "));
        assert!(err(&many).message.contains("at most 32 node patterns"));
    }
}
