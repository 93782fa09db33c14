//! What a query can name: labels (node kinds), relationship types, and the properties of nodes
//! and relationships, with errors that list the valid choices.

use super::value::Value;
use crate::graph::{Edge, EdgeKind, NodeKind, NodeRef};

/// GitNexus's single relationship label; its `type` property carries the real type.
pub(super) const CODE_RELATION: &str = "CodeRelation";

/// A set of node kinds, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct KindSet(u32);

impl KindSet {
    pub const ANY: KindSet = KindSet(u32::MAX);

    pub fn of(kinds: &[NodeKind]) -> KindSet {
        KindSet(kinds.iter().fold(0, |bits, k| bits | 1 << *k as u32))
    }

    pub fn contains(self, kind: NodeKind) -> bool {
        self.0 & (1 << kind as u32) != 0
    }

    pub fn is_any(self) -> bool {
        self == KindSet::ANY
    }

    pub fn kinds(self) -> impl Iterator<Item = NodeKind> {
        NodeKind::ALL.into_iter().filter(move |k| self.contains(*k))
    }
}

/// A set of relationship types, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TypeSet(u32);

impl TypeSet {
    pub const ANY: TypeSet = TypeSet(u32::MAX);

    pub fn of(kinds: &[EdgeKind]) -> TypeSet {
        TypeSet(kinds.iter().fold(0, |bits, k| bits | 1 << *k as u32))
    }

    pub fn contains(self, kind: EdgeKind) -> bool {
        self.0 & (1 << kind as u32) != 0
    }

    pub fn intersect(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 & other.0)
    }
}

fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> String {
    all.iter().map(|k| name(*k)).collect::<Vec<_>>().join(", ")
}

pub(super) fn label(name: &str) -> Result<NodeKind, String> {
    NodeKind::parse(name).ok_or_else(|| {
        format!(
            "unknown label {name}; labels: {}",
            names(&NodeKind::ALL, NodeKind::as_str)
        )
    })
}

/// A relationship type; `None` for `CodeRelation`, which stands for every type.
pub(super) fn rel_type(name: &str) -> Result<Option<EdgeKind>, String> {
    if name.eq_ignore_ascii_case(CODE_RELATION) {
        return Ok(None);
    }
    EdgeKind::parse(name).map(Some).ok_or_else(|| {
        format!(
            "unknown relationship type {name}; types: {} (or {CODE_RELATION} with {{type: 'CALLS'}})",
            names(&EdgeKind::ALL, EdgeKind::as_str)
        )
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NodeProp {
    Id,
    Name,
    Kind,
    QualifiedName,
    File,
    StartLine,
    EndLine,
    Signature,
    Doc,
    Exported,
}

const NODE_PROPS: [(&str, NodeProp); 16] = [
    ("id", NodeProp::Id),
    ("name", NodeProp::Name),
    ("kind", NodeProp::Kind),
    ("label", NodeProp::Kind),
    ("qualified_name", NodeProp::QualifiedName),
    ("qualifiedName", NodeProp::QualifiedName),
    ("file", NodeProp::File),
    ("filePath", NodeProp::File),
    ("path", NodeProp::File),
    ("start_line", NodeProp::StartLine),
    ("startLine", NodeProp::StartLine),
    ("end_line", NodeProp::EndLine),
    ("endLine", NodeProp::EndLine),
    ("signature", NodeProp::Signature),
    ("doc", NodeProp::Doc),
    ("exported", NodeProp::Exported),
];

/// Empty text reads as null, so `IS NULL` finds missing signatures and docs.
fn text(s: &str) -> Value {
    if s.is_empty() {
        Value::Null
    } else {
        Value::Str(s.to_owned())
    }
}

impl NodeProp {
    pub fn parse(name: &str) -> Result<NodeProp, String> {
        NODE_PROPS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, p)| *p)
            .ok_or_else(|| {
                format!(
                    "unknown node property {name}; node properties: {}",
                    names(&NODE_PROPS, |(n, _)| n)
                )
            })
    }

    pub fn read(self, node: NodeRef<'_>) -> Value {
        match self {
            NodeProp::Id => Value::Str(node.stable_id()),
            NodeProp::Name => text(node.name()),
            NodeProp::Kind => Value::Str(node.kind().as_str().to_owned()),
            NodeProp::QualifiedName => text(node.qualified()),
            NodeProp::File => text(node.file()),
            NodeProp::StartLine => Value::Int(node.start_line().into()),
            NodeProp::EndLine => Value::Int(node.end_line().into()),
            NodeProp::Signature => text(node.signature()),
            NodeProp::Doc => text(node.doc()),
            NodeProp::Exported => Value::Bool(node.data.exported),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RelProp {
    Type,
    Confidence,
    Reason,
}

const REL_PROPS: [(&str, RelProp); 3] = [
    ("type", RelProp::Type),
    ("confidence", RelProp::Confidence),
    ("reason", RelProp::Reason),
];

impl RelProp {
    pub fn parse(name: &str) -> Result<RelProp, String> {
        REL_PROPS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, p)| *p)
            .ok_or_else(|| {
                format!(
                    "unknown relationship property {name}; relationship properties: {}",
                    names(&REL_PROPS, |(n, _)| n)
                )
            })
    }

    pub fn read(self, edge: &Edge) -> Value {
        match self {
            RelProp::Type => Value::Str(edge.kind.as_str().to_owned()),
            // Round away f32 noise so `r.confidence >= 0.9` holds for an edge stored as 0.9.
            RelProp::Confidence => Value::Float((f64::from(edge.confidence) * 1e6).round() / 1e6),
            RelProp::Reason => Value::Str(edge.reason.as_str().to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_case_insensitively_and_errors_list_choices() {
        assert_eq!(label("function"), Ok(NodeKind::Function));
        assert!(label("Funtion").unwrap_err().contains("Function, Method"));
        assert_eq!(rel_type("calls"), Ok(Some(EdgeKind::Calls)));
        assert_eq!(rel_type("CodeRelation"), Ok(None));
        assert!(rel_type("CALL").unwrap_err().contains("STEP_IN_PROCESS"));
        assert_eq!(NodeProp::parse("filePath"), Ok(NodeProp::File));
        assert!(
            NodeProp::parse("size")
                .unwrap_err()
                .contains("qualified_name")
        );
        assert!(RelProp::parse("weight").unwrap_err().contains("confidence"));
    }

    #[test]
    fn confidence_reads_without_float_noise() {
        let edge = Edge {
            from: 0,
            to: 1,
            kind: EdgeKind::Calls,
            confidence: 0.9,
            reason: crate::graph::Reason::SameFile,
        };
        assert_eq!(RelProp::Confidence.read(&edge), Value::Float(0.9));
    }

    #[test]
    fn sets_hold_their_members() {
        let kinds = KindSet::of(&[NodeKind::Class, NodeKind::Method]);
        assert!(kinds.contains(NodeKind::Method) && !kinds.contains(NodeKind::File));
        assert_eq!(kinds.kinds().count(), 2);
        assert!(KindSet::ANY.is_any());
        let types = TypeSet::of(&[EdgeKind::Calls]).intersect(TypeSet::ANY);
        assert!(types.contains(EdgeKind::Calls) && !types.contains(EdgeKind::Imports));
    }
}
