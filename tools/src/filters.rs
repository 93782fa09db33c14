//! Traversal filters the walking tools share (`impact`, `trace_flow`): relation types and node
//! kinds named by the caller, each unknown name refused with the names that exist.

use std::collections::HashSet;

use nexus_engine::{EdgeKind, NodeKind};
use nexus_shared::{ErrorCode, ToolError};

/// The edge kinds `names` asks for, or `default` when none are named.
pub fn relation_kinds(
    names: &Option<Vec<String>>,
    default: &[EdgeKind],
) -> Result<Vec<EdgeKind>, ToolError> {
    let Some(names) = names else {
        return Ok(default.to_vec());
    };
    names
        .iter()
        .map(|n| {
            EdgeKind::parse(n).ok_or_else(|| {
                ToolError::new(
                    ErrorCode::InvalidParams,
                    format!("unknown relation type `{n}`"),
                )
                .with_hint("use CALLS, IMPORTS, EXTENDS, IMPLEMENTS, CONTAINS, DEFINES, MEMBER_OF")
            })
        })
        .collect()
}

/// The node kinds `names` lists (none when absent).
pub fn node_kinds(names: &Option<Vec<String>>) -> Result<HashSet<NodeKind>, ToolError> {
    names
        .iter()
        .flatten()
        .map(|n| {
            NodeKind::parse(n).ok_or_else(|| {
                ToolError::new(ErrorCode::InvalidParams, format!("unknown node kind `{n}`"))
                    .with_hint("e.g. Function, Method, Class, Interface, File, Folder")
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_kinds_and_unknown_names_are_refused() {
        let calls = [EdgeKind::Calls];
        assert_eq!(relation_kinds(&None, &calls).unwrap(), calls);
        let named = Some(vec!["IMPORTS".to_owned(), "extends".to_owned()]);
        assert_eq!(
            relation_kinds(&named, &calls).unwrap(),
            [EdgeKind::Imports, EdgeKind::Extends]
        );
        let bad = Some(vec!["CALLZ".to_owned()]);
        assert_eq!(
            relation_kinds(&bad, &calls).unwrap_err().code,
            ErrorCode::InvalidParams
        );
        let kinds = node_kinds(&Some(vec!["Method".to_owned()])).unwrap();
        assert!(kinds.contains(&NodeKind::Method) && kinds.len() == 1);
        assert!(node_kinds(&None).unwrap().is_empty());
        assert!(node_kinds(&Some(vec!["Gizmo".to_owned()])).is_err());
    }
}
