//! The file contract: paths are relative to the repository root; absolute paths, `..`,
//! `.git/`, secrets (`.env*`, keys) and files over 1 MB are refused with a clear error.

use nexus_shared::{ErrorCode, ToolError};

use super::ToolContext;
use nexus_engine::{DEFAULT_MAX_FILE_BYTES, Text, is_secret};

/// Checks a requested path and returns its text.
/// In a session, a file alias it was given (`f3`) stands for its path.
pub fn open<'a>(ctx: &'a ToolContext, path: &str) -> Result<(&'a str, Text), ToolError> {
    let path = path.trim().trim_start_matches("./");
    let expanded = ctx
        .sources
        .get(path)
        .is_none()
        .then(|| ctx.memory.sessions.borrow().expand_path(ctx.session, path))
        .flatten();
    let path = expanded.as_deref().unwrap_or(path);
    let refuse = |why: &str| {
        Err(ToolError::new(
            ErrorCode::PathRefused,
            format!("`{path}` is refused: {why}"),
        )
        .with_hint("pass a path relative to the repository root, e.g. src/app.py"))
    };
    if path.is_empty() {
        return refuse("the path is empty");
    }
    if path.starts_with('/')
        || path.starts_with('\\')
        || path.get(1..3) == Some(":\\")
        || path.get(1..3) == Some(":/")
    {
        return refuse("absolute paths are not allowed");
    }
    if path.split(['/', '\\']).any(|part| part == "..") {
        return refuse("`..` would leave the repository");
    }
    if path.split('/').any(|part| part == ".git") {
        return refuse("`.git/` is never read");
    }
    if is_secret(path) {
        return refuse("it may hold secrets and is never indexed");
    }
    match ctx.sources.get_key_value(path) {
        Some((key, text)) if text.len() <= DEFAULT_MAX_FILE_BYTES => Ok((key.as_str(), text)),
        Some(_) => Err(ToolError::new(
            ErrorCode::TooLarge,
            format!("`{path}` is over 1 MB"),
        )),
        None => {
            let name = path.rsplit('/').next().unwrap_or(path);
            let similar: Vec<&str> = ctx
                .sources
                .keys()
                .filter(|k| k.rsplit('/').next() == Some(name))
                .take(5)
                .map(String::as_str)
                .collect();
            let err = ToolError::new(ErrorCode::NotFound, format!("no indexed file `{path}`"));
            Err(if similar.is_empty() {
                err.with_hint("paths are relative to the repository root; binary, ignored and secret files are not indexed")
            } else {
                err.with_hint(format!("files with that name: {}", similar.join(", ")))
            })
        }
    }
}
