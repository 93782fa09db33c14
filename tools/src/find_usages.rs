//! `find_usages`: every place a symbol is used — calls (CALLS edges) and the references the
//! engine records (imports, types, bases, values passed, reads, writes) — grouped by file.

use std::collections::BTreeMap;

use nexus_shared::params::{FindUsagesParams, Format};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::budget::Budget;
use super::neighbours::{self, hint_once, list_ref, seen_in};
use super::session::by_default;
use super::target::short_ref;
use super::{ToolContext, target};
use nexus_engine::{EdgeKind, RefKind};

/// Usages listed when the call sets no limit (in a session: the rest is one `offset` away),
/// and the most it may ask for.
const DEFAULT_LIMIT: u32 = 50;
const SESSION_LIMIT: u32 = 10;
const MAX_LIMIT: u32 = 500;

/// What every answer says it cannot see.
const UNSEEN: &str = "Not seen: dynamic uses (getattr, strings, reflection), uses inside macros, and names resolved only by guessing; constants and variables are not symbols.";

/// One use of the target.
struct Usage {
    file: String,
    /// The reference's line; for a call, the caller's first line (calls keep no line).
    line: u32,
    /// `call`, or a reference kind.
    kind: &'static str,
    from: u32,
    confidence: f32,
    reason: &'static str,
}

fn kind_filter(kinds: &Option<Vec<String>>) -> Result<Vec<&'static str>, ToolError> {
    let all: Vec<&'static str> = std::iter::once("call")
        .chain(RefKind::ALL.iter().map(|k| k.as_str()))
        .collect();
    let Some(asked) = kinds else {
        return Ok(all);
    };
    asked
        .iter()
        .map(|k| {
            all.iter()
                .find(|a| a.eq_ignore_ascii_case(k.trim()))
                .copied()
                .ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::InvalidParams,
                        format!("unknown usage kind `{k}`"),
                    )
                    .with_hint(format!("kinds are {}", all.join(", ")))
                })
        })
        .collect()
}

pub fn run(ctx: &ToolContext, p: &FindUsagesParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    let node = target::resolve(ctx, &p.target)?;
    let kinds = kind_filter(&p.kinds)?;
    let min_confidence = p.min_confidence.clamp(0.0, 1.0) as f32;
    let mut cut = 0usize;
    let mut usages: Vec<Usage> = Vec::new();
    let calls = g
        .incoming(node.id)
        .filter(|e| e.kind == EdgeKind::Calls)
        .map(|e| (e.from, e.from, 0, "call", e.confidence, e.reason.as_str()));
    let references = g.references_to(node.id).iter().map(|r| {
        (
            r.from,
            r.from,
            r.line,
            r.kind.as_str(),
            r.confidence,
            r.reason.as_str(),
        )
    });
    for (from, _, line, kind, confidence, reason) in calls.chain(references) {
        if !kinds.contains(&kind) {
            continue;
        }
        if confidence < min_confidence {
            cut += 1;
            continue;
        }
        let Some(user) = g.node(from) else { continue };
        usages.push(Usage {
            file: user.file().to_owned(),
            line: if line == 0 { user.start_line() } else { line },
            kind,
            from,
            confidence,
            reason,
        });
    }
    // By file (most used first), then line.
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for u in &usages {
        *per_file.entry(u.file.as_str()).or_default() += 1;
    }
    let rank: BTreeMap<String, usize> = per_file.iter().map(|(f, n)| (f.to_string(), *n)).collect();
    usages.sort_by(|a, b| {
        rank[&b.file]
            .cmp(&rank[&a.file])
            .then_with(|| a.file.cmp(&b.file))
            .then(a.line.cmp(&b.line))
            .then(a.kind.cmp(b.kind))
    });
    let total = usages.len();
    let files = rank.len();
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for u in &usages {
        *by_kind.entry(u.kind).or_default() += 1;
    }
    let limit = p
        .limit
        .unwrap_or(by_default(ctx.session, DEFAULT_LIMIT, SESSION_LIMIT))
        .clamp(1, MAX_LIMIT) as usize;
    let page: Vec<&Usage> = usages.iter().skip(p.offset as usize).take(limit).collect();
    let has_more = p.offset as usize + page.len() < total;
    let lower_bound = (cut > 0).then(|| {
        format!("Lower bound: {cut} usages below min_confidence {min_confidence:.2} left out; lower it to see guesses.")
    });
    let seen = seen_in(ctx, page.iter().map(|u| u.from));
    let title_ref = list_ref(ctx, &node);
    ctx.memory.sessions.borrow_mut().record(
        ctx.session,
        page.iter().map(|u| u.from).chain([node.id]),
        Some(node.id),
    );

    if p.format == Some(Format::Json) {
        let items: Vec<_> = page
            .iter()
            .filter_map(|u| {
                let from = g.node(u.from)?;
                Some(json!({
                    "file": u.file, "line": u.line, "kind": u.kind, "from": from.stable_id(),
                    "confidence": u.confidence, "reason": u.reason,
                }))
            })
            .collect();
        return Ok(json!({
            "target": node.stable_id(), "total": total, "files": files, "by_kind": by_kind,
            "lower_bound": lower_bound, "not_seen": UNSEEN, "offset": p.offset,
            "has_more": has_more, "items": items,
        })
        .to_string());
    }

    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# usages of `{title_ref}` ({})",
        neighbours::place(ctx, &node)
    ));
    let counts: Vec<String> = by_kind.iter().map(|(k, n)| format!("{n} {k}")).collect();
    out.header(&format!(
        "{total} usages in {files} files{}",
        if counts.is_empty() {
            String::new()
        } else {
            format!(": {}", counts.join(", "))
        }
    ));
    if let Some(note) = &lower_bound {
        out.header(note);
    }
    if hint_once(ctx, UNSEEN) {
        out.header(UNSEEN);
    }
    let mut current = "";
    for u in &page {
        let Some(from) = g.node(u.from) else { continue };
        if u.file != current {
            current = &u.file;
            out.header(&format!(
                "## {} ({})",
                neighbours::path_ref(ctx, &u.file),
                rank[&u.file]
            ));
        }
        let place = if u.kind == "call" {
            format!("L{} call from", u.line)
        } else {
            format!("L{} {} in", u.line, u.kind)
        };
        if seen.contains(&u.from) {
            out.item(&format!("- {place} `{}` (seen)", short_ref(ctx, &from)));
        } else {
            out.item(&format!(
                "- {place} `{}` · {:.2} {}",
                neighbours::list_ref(ctx, &from),
                u.confidence,
                u.reason
            ));
        }
    }
    if has_more {
        out.header(&format!(
            "has_more: true — next page with offset={}",
            p.offset as usize + limit
        ));
    }
    Ok(out.finish())
}

#[cfg(test)]
mod tests {
    use crate::dispatch;
    use crate::test_support::{error_code, indexed, text, with};
    use nexus_engine::SourceFile;
    use nexus_shared::ErrorCode;
    use serde_json::json;

    fn shop() -> nexus_engine::Graph {
        let files = [
            (
                "shop/cart.py",
                "class Cart:\n    pass\n\ndef total(items):\n    return 0\n",
            ),
            (
                "shop/order.py",
                "from shop.cart import Cart, total\n\nclass Order(Cart):\n    def add(self, cart: Cart):\n        sorted([], key=total)\n        return Cart()\n",
            ),
        ];
        let files = files
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.to_string(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect();
        indexed(files).0
    }

    #[test]
    fn usages_are_grouped_by_file_with_their_kind_and_filtered_by_kind() {
        with(shop(), |ctx| {
            let out = text(dispatch(
                Some(ctx),
                "find_usages",
                json!({"target": "Cart"}),
            ));
            assert!(
                out.contains("# usages of `Class:shop/cart.py:Cart`"),
                "{out}"
            );
            assert!(
                out.contains("4 usages in 1 files: 1 call, 1 import, 1 inherit, 1 type"),
                "{out}"
            );
            assert!(out.contains("## shop/order.py (4)"), "{out}");
            assert!(
                out.contains("- L1 import in `File:shop/order.py` · 0.97 import-resolved"),
                "{out}"
            );
            assert!(
                out.contains("- L4 type in `Method:shop/order.py:Order.add`"),
                "{out}"
            );
            assert!(
                out.contains("- L3 inherit in `Class:shop/order.py:Order`"),
                "{out}"
            );
            assert!(
                out.contains("call from `Method:shop/order.py:Order.add`"),
                "{out}"
            );

            let values = text(dispatch(
                Some(ctx),
                "find_usages",
                json!({"target": "total", "kinds": ["value"], "format": "json"}),
            ));
            let v: serde_json::Value = serde_json::from_str(&values).unwrap_or_default();
            assert_eq!(v["total"], 1, "{values}");
            assert_eq!(v["items"][0]["kind"], "value", "{values}");
            assert_eq!(v["items"][0]["line"], 5, "{values}");

            assert_eq!(
                error_code(dispatch(
                    Some(ctx),
                    "find_usages",
                    json!({"target": "Cart", "kinds": ["poke"]})
                )),
                ErrorCode::InvalidParams
            );
        });
    }

    #[test]
    fn route_answers_what_uses_a_symbol_with_its_usages() {
        with(shop(), |ctx| {
            let out = text(dispatch(
                Some(ctx),
                "route",
                json!({"query": "what uses Cart?"}),
            ));
            assert!(
                out.contains("# usages of `Class:shop/cart.py:Cart`"),
                "{out}"
            );
            assert!(
                out.contains("L3 inherit in `Class:shop/order.py:Order`"),
                "{out}"
            );
        });
    }

    #[test]
    fn a_session_names_users_it_was_shown_briefly_and_limits_page() {
        with(shop(), |ctx| {
            let ask = || {
                text(dispatch(
                    Some(ctx),
                    "find_usages",
                    json!({"target": "Cart", "session": "s", "limit": 2}),
                ))
            };
            let first = ask();
            assert!(
                first.contains("has_more: true — next page with offset=2")
                    && !first.contains("(seen)")
                    && first.contains("Not seen: dynamic uses"),
                "the first answer lists every user in full: {first}"
            );
            let again = ask();
            assert!(again.contains("(seen)"), "{again}");
            assert!(
                !again.contains("Not seen: dynamic uses"),
                "the caveat is given once: {again}"
            );
            assert!(!again.contains("· 0.97"), "{again}");
        });
    }
}
