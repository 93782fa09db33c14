//! The error every Cypher failure turns into: a message an agent can act on, and where in the
//! query it happened (a byte offset inside the engine, a character offset once returned).

use std::fmt;

/// A query the lexer, parser or planner refused, or one that ran out of budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CypherError {
    /// What went wrong and what is supported instead.
    pub message: String,
    /// Offset of the offending text in the query, in characters.
    pub position: Option<usize>,
}

impl CypherError {
    pub(super) fn new(message: impl Into<String>) -> Self {
        CypherError {
            message: message.into(),
            position: None,
        }
    }

    pub(super) fn at(position: usize, message: impl Into<String>) -> Self {
        CypherError {
            message: message.into(),
            position: Some(position),
        }
    }

    /// Turns a byte offset into `query` into a character offset.
    pub(super) fn in_characters(mut self, query: &str) -> Self {
        self.position = self
            .position
            .map(|byte| query.char_indices().take_while(|(i, _)| *i < byte).count());
        self
    }
}

impl fmt::Display for CypherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(at) => write!(f, "{} (at character {at})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for CypherError {}
