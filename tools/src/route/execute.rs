//! Running a plan: each step through `tools::dispatch` (answers cached by tool and arguments),
//! `$result[N].field` filled from the step depended on, answers cut at whole steps to the budget.

use nexus_shared::params::{Format, RouteParams};
use nexus_shared::{ErrorCode, Outcome, ToolError};
use serde_json::{Map, Value, json};

use super::plan::{Plan, Step};
use crate::budget::{self, Budget};
use crate::{ToolContext, dispatch};

/// One step as run.
struct StepRun {
    step: Step,
    answer: Result<String, ToolError>,
    cached: bool,
}

pub fn run(ctx: &ToolContext, plan: &Plan, p: &RouteParams) -> Result<String, ToolError> {
    let started = (ctx.clock)();
    let format = p.format.unwrap_or_default();
    let steps = plan.steps.len().max(1) as u32;
    let total_tokens = p
        .max_tokens
        .unwrap_or(budget::DEFAULT_TOKENS)
        .clamp(100, budget::MAX_TOKENS);
    // Each tool gets a share, a little under, so that its whole answer fits with its heading.
    let step_tokens = (total_tokens / steps * 9 / 10).max(100);
    let mut items_of: Vec<Vec<Value>> = vec![Vec::new(); plan.steps.len()];
    let mut runs: Vec<StepRun> = Vec::new();
    for (i, planned) in plan.steps.iter().enumerate() {
        let mut step = planned.clone();
        let answer = match substitute(&step.args, &step.depends_on, &items_of) {
            Ok(args) => {
                step.args = args;
                call(ctx, &step.tool, with_output(&step, format, step_tokens))
            }
            Err(err) => (Err(err), false),
        };
        let (answer, cached) = answer;
        let needed_later = plan
            .steps
            .iter()
            .skip(i + 1)
            .any(|later| later.depends_on.contains(&i));
        if let (true, Ok(text), Some(slot)) = (needed_later, &answer, items_of.get_mut(i)) {
            *slot = if format == Format::Json {
                result_items(text)
            } else {
                // Read for its items only: the session was already told by the answer above.
                let unrecorded = ToolContext {
                    session: None,
                    ..*ctx
                };
                let (json_answer, _) = call(
                    &unrecorded,
                    &step.tool,
                    with_output(&step, Format::Json, step_tokens),
                );
                json_answer.map(|t| result_items(&t)).unwrap_or_default()
            };
        }
        runs.push(StepRun {
            step,
            answer,
            cached,
        });
    }
    if let [only] = runs.as_slice()
        && let Err(err) = &only.answer
    {
        let mut err = err.clone();
        err.message = format!("{} (route ran `{}`)", err.message, only.step.call_line());
        return Err(err);
    }
    let answered = Answered {
        project: &ctx.graph.project,
        ms: ((ctx.clock)() - started).max(0.0).round(),
    };
    Ok(match format {
        Format::Json => render_json(plan, &runs, total_tokens, &answered),
        Format::Markdown => render_markdown(plan, &runs, total_tokens, &answered),
    })
}

/// What the answer says about the whole route: the project asked about and the time all its
/// steps took.
struct Answered<'a> {
    project: &'a str,
    ms: f64,
}

/// The step's arguments plus the output format and token share. The route's session reaches each
/// step through the context it runs in.
fn with_output(step: &Step, format: Format, tokens: u32) -> Map<String, Value> {
    let mut args = step.args.clone();
    if format == Format::Json {
        args.insert("format".into(), json!("json"));
    }
    if step.tool != "context" {
        args.insert("max_tokens".into(), json!(tokens));
    }
    args
}

/// Answers one call from the cache, or runs it and caches a successful answer.
fn call(
    ctx: &ToolContext,
    tool: &str,
    args: Map<String, Value>,
) -> (Result<String, ToolError>, bool) {
    if tool == "route" {
        return (
            Err(ToolError::new(
                ErrorCode::InvalidParams,
                "a route step cannot call `route`",
            )),
            false,
        );
    }
    // Answers within a session depend on what it was told before: never cached.
    let key = (ctx.session.is_none() && !args.contains_key("session"))
        .then(|| format!("{tool} {}", Value::Object(args.clone())));
    if let Some(answer) = key
        .as_ref()
        .and_then(|key| ctx.memory.route_cache.borrow_mut().get(key, ctx.now_ms))
    {
        return (Ok(answer), true);
    }
    match dispatch(Some(ctx), tool, Value::Object(args)) {
        Outcome::Ok(out) => {
            if let Some(key) = key {
                ctx.memory
                    .route_cache
                    .borrow_mut()
                    .put(key, out.text.clone(), ctx.now_ms);
            }
            (Ok(out.text), false)
        }
        Outcome::Err(err) => (Err(err), false),
    }
}

/// Replaces every `$result[N].field` argument with that field of result N of the step depended
/// on (the first of `depends_on`).
fn substitute(
    args: &Map<String, Value>,
    depends_on: &[usize],
    items_of: &[Vec<Value>],
) -> Result<Map<String, Value>, ToolError> {
    let mut out = Map::new();
    for (key, value) in args {
        let filled = match value.as_str().and_then(reference) {
            None => value.clone(),
            Some((n, field)) => {
                let step = depends_on.first().copied().unwrap_or_default();
                items_of
                    .get(step)
                    .and_then(|items| items.get(n))
                    .and_then(|item| item.get(field))
                    .filter(|v| !v.is_null())
                    .cloned()
                    .ok_or_else(|| {
                        ToolError::new(
                            ErrorCode::NotFound,
                            format!("step {step} has no result {n} with a `{field}` to pass on"),
                        )
                        .with_hint("ask with a symbol name, or search with other words first")
                    })?
            }
        };
        out.insert(key.clone(), filled);
    }
    Ok(out)
}

/// `$result[N].field` → (N, field).
fn reference(text: &str) -> Option<(usize, &str)> {
    let rest = text.strip_prefix("$result[")?;
    let (n, field) = rest.split_once("].")?;
    let field = field.trim();
    (!field.is_empty()).then_some(())?;
    Some((n.trim().parse().ok()?, field))
}

/// The list of results in a tool's JSON answer: `hits`, `matches`, `results`, `items`, `rows`,
/// or else its first list of objects.
fn result_items(text: &str) -> Vec<Value> {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    for key in ["hits", "matches", "results", "items", "rows"] {
        if let Some(list) = value.get(key).and_then(Value::as_array) {
            return list.clone();
        }
    }
    value
        .as_object()
        .and_then(|map| {
            map.values()
                .filter_map(Value::as_array)
                .find(|list| list.iter().any(Value::is_object))
                .cloned()
        })
        .unwrap_or_default()
}

fn all_cached(runs: &[StepRun]) -> bool {
    !runs.is_empty() && runs.iter().all(|r| r.cached)
}

fn render_markdown(
    plan: &Plan,
    runs: &[StepRun],
    total_tokens: u32,
    answered: &Answered,
) -> String {
    let mut out = Budget::new(Some(total_tokens));
    let tools: Vec<&str> = runs.iter().map(|r| r.step.tool.as_str()).collect();
    out.header(&format!(
        "# route \"{}\" — {} step{}: {} · project `{}` · {} ms",
        plan.query,
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        tools.join(", "),
        answered.project,
        answered.ms
    ));
    if all_cached(runs) {
        out.header("cached: true (the same calls were answered less than 5 minutes ago)");
    }
    for (i, run) in runs.iter().enumerate() {
        let mut heading = format!("## step {i} · {}", run.step.call_line());
        if run.cached {
            heading.push_str(" · cached");
        }
        let body = match &run.answer {
            Ok(text) => text.trim_end().to_owned(),
            Err(err) => err.render(),
        };
        out.item(&format!("{heading}\n{body}"));
    }
    out.finish()
}

fn render_json(plan: &Plan, runs: &[StepRun], total_tokens: u32, answered: &Answered) -> String {
    let limit = budget::limit_chars(Some(total_tokens));
    let mut used = 0;
    let mut shown = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let mut entry = json!({"step": i, "tool": run.step.tool, "args": run.step.args, "depends_on": run.step.depends_on, "cached": run.cached});
        match &run.answer {
            Ok(text) => {
                entry["result"] = serde_json::from_str(text).unwrap_or_else(|_| json!(text));
            }
            Err(err) => entry["error"] = json!(err),
        }
        let size = entry.to_string().len();
        if used + size > limit {
            break;
        }
        used += size;
        shown.push(entry);
    }
    let remaining = runs.len() - shown.len();
    json!({"query": plan.query, "project": answered.project, "ms": answered.ms, "cached": all_cached(runs), "steps": shown, "truncated": remaining > 0, "remaining": remaining}).to_string()
}
