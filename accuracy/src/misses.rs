//! Why a reference edge is missing from Nexus's graph: a heuristic cause read from the call's
//! source text (the receiver before the name) and from what Nexus did resolve at that caller.

use std::collections::HashSet;

use crate::reference::{CallPlace, Callable, Site};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    Aliasing,
    ResolvedElsewhere,
    Decorated,
    SuperCall,
    Inheritance,
    SameClass,
    AttributeReceiver,
    CallResult,
    VariableReceiver,
    ClassOrModuleReceiver,
    DottedReceiver,
    ImportedName,
    SameFileName,
}

impl Cause {
    pub fn describe(self) -> &'static str {
        match self {
            Cause::Aliasing => "aliasing: called under another name than its definition's",
            Cause::ResolvedElsewhere => {
                "resolved elsewhere: Nexus chose another definition of the same name"
            }
            Cause::Decorated => "decorators: the callee is decorated",
            Cause::SuperCall => "inheritance: super() call",
            Cause::Inheritance => {
                "inheritance / dynamic dispatch: self/this call to another class's method"
            }
            Cause::SameClass => "self/this call to a method of the caller's own class",
            Cause::AttributeReceiver => "attribute receiver: self.x.f() needs the attribute's type",
            Cause::CallResult => {
                "call-result receiver: f().g() or chained call needs a return type"
            }
            Cause::VariableReceiver => "variable receiver: a local or parameter's type is needed",
            Cause::ClassOrModuleReceiver => "class or module name receiver: Name.f()",
            Cause::DottedReceiver => "dotted receiver: a.b.f() through modules or attributes",
            Cause::ImportedName => "bare name from another file: re-export or import not followed",
            Cause::SameFileName => "bare name from the same file: nested, shadowed or callback",
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The identifier written at `column` of `line`.
pub fn word_at(line: &str, column: usize) -> &str {
    let rest = line.get(column..).unwrap_or("");
    let end = rest.find(|c| !is_ident(c)).unwrap_or(rest.len());
    &rest[..end]
}

/// The receiver expression before `.name` at `column`: `None` for a bare call, `Some("")` when
/// the chain starts on an earlier line.
pub fn receiver_before(line: &str, column: usize) -> Option<String> {
    let before = line.get(..column)?.trim_end();
    let before = before
        .strip_suffix("?.")
        .or_else(|| before.strip_suffix('.'))?
        .trim_end();
    let mut depth = 0i32;
    let mut start = before.len();
    for (i, c) in before.char_indices().rev() {
        match c {
            ')' | ']' => depth += 1,
            '(' | '[' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            c if is_ident(c) || c == '.' || c == '?' || c == '!' => {}
            _ => break,
        }
        start = i;
    }
    Some(before[start..].to_owned())
}

/// What the classifier knows about one missing edge.
pub struct Miss<'a> {
    pub caller: &'a Callable,
    pub callee_site: &'a Site,
    pub callee: &'a Callable,
    pub place: &'a CallPlace,
    pub line: &'a str,
    /// The line before the callee's definition.
    pub callee_previous_line: &'a str,
}

/// Classifies a missing edge; `nexus_names` holds the callee names Nexus resolved at the caller.
pub fn classify(miss: &Miss<'_>, nexus_names: &HashSet<&str>) -> Cause {
    let written = word_at(miss.line, miss.place.column);
    if written != miss.callee.name {
        return Cause::Aliasing;
    }
    if nexus_names.contains(miss.callee.name.as_str()) {
        return Cause::ResolvedElsewhere;
    }
    match receiver_before(miss.line, miss.place.column) {
        None => {
            if miss.callee_previous_line.trim_start().starts_with('@') {
                Cause::Decorated
            } else if miss.callee_site.path == miss.place.path {
                Cause::SameFileName
            } else {
                Cause::ImportedName
            }
        }
        Some(receiver) => {
            let receiver = receiver.trim_end_matches(['?', '!']);
            if receiver.is_empty() || receiver.ends_with(')') || receiver.ends_with(']') {
                if receiver.starts_with("super(") || receiver == "super()" {
                    Cause::SuperCall
                } else {
                    Cause::CallResult
                }
            } else if receiver == "super" {
                Cause::SuperCall
            } else if matches!(receiver, "self" | "this" | "cls") {
                if miss.caller.owner.is_some() && miss.caller.owner == miss.callee.owner {
                    Cause::SameClass
                } else {
                    Cause::Inheritance
                }
            } else if ["self.", "this.", "cls."]
                .iter()
                .any(|p| receiver.starts_with(p))
            {
                Cause::AttributeReceiver
            } else if receiver.contains('.') {
                Cause::DottedReceiver
            } else if receiver.starts_with(|c: char| c.is_uppercase()) {
                Cause::ClassOrModuleReceiver
            } else {
                Cause::VariableReceiver
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn callable(name: &str, owner: Option<&str>) -> Callable {
        Callable {
            name: name.into(),
            owner: owner.map(Into::into),
            qualified: name.into(),
        }
    }

    fn cause(line: &str, name: &str, caller_owner: &str, callee_owner: &str) -> Cause {
        let column = line.rfind(name).unwrap_or(0);
        let caller = callable("caller", Some(caller_owner));
        let callee = callable(name, Some(callee_owner));
        let callee_site = Site::new("b.py", 3);
        let place = CallPlace {
            path: "a.py".into(),
            line: 1,
            column,
        };
        let miss = Miss {
            caller: &caller,
            callee_site: &callee_site,
            callee: &callee,
            place: &place,
            line,
            callee_previous_line: "",
        };
        classify(&miss, &HashSet::new())
    }

    #[test]
    fn receivers_are_read_back_over_brackets() {
        assert_eq!(
            receiver_before("x = a.b(c).f(1)", 11).as_deref(),
            Some("a.b(c)")
        );
        assert_eq!(receiver_before("return f(1)", 7), None);
        assert_eq!(receiver_before("    .then(x)", 5).as_deref(), Some(""));
        assert_eq!(receiver_before("a?.f()", 3).as_deref(), Some("a"));
        assert_eq!(word_at("x = run_all(1)", 4), "run_all");
    }

    #[test]
    fn causes_follow_the_receiver() {
        assert_eq!(cause("self.save()", "save", "A", "A"), Cause::SameClass);
        assert_eq!(
            cause("self.save()", "save", "A", "Base"),
            Cause::Inheritance
        );
        assert_eq!(
            cause("super().save()", "save", "A", "Base"),
            Cause::SuperCall
        );
        assert_eq!(
            cause("self.db.save()", "save", "A", "Db"),
            Cause::AttributeReceiver
        );
        assert_eq!(cause("get().save()", "save", "A", "Db"), Cause::CallResult);
        assert_eq!(
            cause("db.save()", "save", "A", "Db"),
            Cause::VariableReceiver
        );
        assert_eq!(
            cause("Db.save()", "save", "A", "Db"),
            Cause::ClassOrModuleReceiver
        );
        assert_eq!(
            cause("models.db.save()", "save", "A", "Db"),
            Cause::DottedReceiver
        );
        assert_eq!(cause("save()", "save", "A", "Db"), Cause::ImportedName);
        assert_eq!(cause("store()", "store", "A", "Db"), Cause::ImportedName);
    }

    #[test]
    fn a_name_resolved_to_another_definition_is_its_own_cause() {
        let caller = callable("run", None);
        let callee = callable("save", None);
        let site = Site::new("a.py", 9);
        let place = CallPlace {
            path: "a.py".into(),
            line: 1,
            column: 0,
        };
        let miss = Miss {
            caller: &caller,
            callee_site: &site,
            callee: &callee,
            place: &place,
            line: "save_all()",
            callee_previous_line: "",
        };
        assert_eq!(classify(&miss, &HashSet::new()), Cause::Aliasing);
        let miss = Miss {
            line: "save()",
            callee_previous_line: "@decorated",
            ..miss
        };
        assert_eq!(classify(&miss, &HashSet::new()), Cause::Decorated);
        assert_eq!(
            classify(&miss, &HashSet::from(["save"])),
            Cause::ResolvedElsewhere
        );
    }
}
