//! Finding the node a tool is about: a stable id, or a name matched against the real symbol
//! table. An ambiguous name returns ranked candidates instead of a guess.

use nexus_shared::{ErrorCode, ToolError};

use super::ToolContext;
use super::neighbours::{list_ref, place};
use nexus_engine::NodeRef;

/// Candidates listed when a name is ambiguous or unknown.
const CANDIDATES: usize = 8;

/// Resolves `target` (stable id, `Class.method`, or a plain name) to one node.
pub fn resolve<'g>(ctx: &ToolContext<'g>, target: &str) -> Result<NodeRef<'g>, ToolError> {
    let id = resolve_id(ctx, target)?;
    ctx.graph.node(id).ok_or_else(|| {
        ToolError::new(
            ErrorCode::Internal,
            format!("`{target}` resolved to a missing node"),
        )
    })
}

/// The symbols a name finds: its qualified name, its plain name, or a dotted tail of it.
fn named(ctx: &ToolContext, target: &str) -> Vec<u32> {
    let name = target.rsplit(['.', ':']).next().unwrap_or(target);
    // `qualified` is `target` or ends with `.target`, checked without an allocation: a common
    // name (`run`, `get`) can have a candidate in every file of a large tree.
    let found = |qualified: &str| {
        qualified
            .strip_suffix(target)
            .is_some_and(|head| head.is_empty() || head.ends_with('.'))
    };
    let mut exact: Vec<u32> = ctx
        .search
        .by_name(name)
        .iter()
        .copied()
        .filter(|&n| {
            ctx.graph.node(n).is_some_and(|x| {
                x.kind().is_symbol() && (found(x.qualified()) || x.name() == target)
            })
        })
        .collect();
    exact.sort_unstable();
    exact
}

/// The shortest way to name `node` that every tool resolves back to it: its qualified name
/// when that finds this symbol alone, else its stable id.
pub fn short_ref(ctx: &ToolContext, node: &NodeRef) -> String {
    let qualified = node.qualified();
    if !qualified.is_empty() && named(ctx, qualified) == [node.id] {
        qualified.to_owned()
    } else {
        node.stable_id()
    }
}

/// A candidate in an error: `` `id` (file:line) `` — in a session its short reference and the
/// file's alias (see `neighbours::list_ref`).
fn candidate(ctx: &ToolContext, node: &NodeRef) -> String {
    format!("`{}` ({})", list_ref(ctx, node), place(ctx, node))
}

fn resolve_id(ctx: &ToolContext, target: &str) -> Result<u32, ToolError> {
    let target = target.trim();
    if let Some(id) = ctx.graph.find_id(target) {
        return Ok(id);
    }
    match named(ctx, target).as_slice() {
        [one] => Ok(*one),
        [] => {
            let suggestions: Vec<String> = ctx
                .search
                .search_top(
                    target,
                    &|n| ctx.graph.node(n).is_some_and(|x| x.kind().is_symbol()),
                    CANDIDATES,
                )
                .iter()
                .filter_map(|h| ctx.graph.node(h.node).map(|n| candidate(ctx, &n)))
                .collect();
            let mut err =
                ToolError::new(ErrorCode::NotFound, format!("no symbol named `{target}`"));
            err = if suggestions.is_empty() {
                err.with_hint("check the spelling, or use `search` to find the symbol")
            } else {
                err.with_hint(format!("did you mean: {}", suggestions.join(", ")))
            };
            Err(err)
        }
        many => {
            let listed: Vec<String> = many
                .iter()
                .take(CANDIDATES)
                .filter_map(|&n| ctx.graph.node(n).map(|x| candidate(ctx, &x)))
                .collect();
            Err(ToolError::new(
                ErrorCode::Ambiguous,
                format!("`{target}` names {} symbols", many.len()),
            )
            .with_hint(format!("pass one of these ids: {}", listed.join(", "))))
        }
    }
}
