//! The hub's watch over the configuration file: read again when it (or its key file) changes,
//! the chat's provider and limits and the hosted tools' call limits replaced without a restart;
//! and the chat's expired conversations deleted at start and every [`RETENTION_SWEEP`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Loaded, load};
use crate::chat::{Chat, Live, RETENTION_SWEEP};
use crate::host::quota::Quotas;

/// How often the file is looked at. Polling, not inotify: the file and its folder may not exist
/// yet, and editors replace files by renaming, which a watch on the file itself loses.
pub const POLL: Duration = Duration::from_millis(500);

/// What a change is noticed by: the file's bytes and the key file's metadata (a `chmod 600` on
/// it makes a refused key usable without touching the file).
#[derive(Debug, PartialEq)]
struct Stamp {
    text: Option<Vec<u8>>,
    key_file: Option<(u32, u64, Option<std::time::SystemTime>)>,
}

fn stamp(path: &Path, key_file: Option<&Path>) -> Stamp {
    use std::os::unix::fs::PermissionsExt;
    Stamp {
        text: std::fs::read(path).ok(),
        key_file: key_file
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| (m.permissions().mode(), m.len(), m.modified().ok())),
    }
}

fn key_file(loaded: &Loaded) -> Option<PathBuf> {
    loaded
        .file
        .llm
        .api_key_file
        .as_ref()
        .map(|p| p.get_ref().clone())
}

/// Runs for the life of the hub: `set_limits` receives the hosted tools' limits on each change.
pub async fn run(
    path: PathBuf,
    first: Option<Loaded>,
    chat: Arc<Chat>,
    set_limits: impl Fn(Quotas) + Send + 'static,
) {
    let lookup = |name: &str| std::env::var(name).ok();
    let tool_selection = first.as_ref().map(|l| l.file.tool_selection.clone());
    let mut key = first.as_ref().and_then(key_file);
    let mut last = stamp(&path, key.as_deref());
    let mut swept = Instant::now();
    chat.expire(crate::host::unix_ms());
    let mut ticker = tokio::time::interval(POLL);
    loop {
        ticker.tick().await;
        if swept.elapsed() >= RETENTION_SWEEP {
            swept = Instant::now();
            chat.expire(crate::host::unix_ms());
        }
        let now = stamp(&path, key.as_deref());
        if now == last {
            continue;
        }
        match load(&path) {
            Ok(loaded) => {
                key = key_file(&loaded);
                last = stamp(&path, key.as_deref());
                if tool_selection
                    .as_ref()
                    .is_some_and(|start| *start != loaded.file.tool_selection)
                {
                    tracing::warn!(
                        "tool_selection changed in {}: it takes effect when the bridge starts again",
                        path.display()
                    );
                }
                set_limits(loaded.quotas.clone());
                if chat.set_live(Live::read(&loaded, &lookup)) {
                    tracing::info!("read the configuration file again: {}", path.display());
                }
                chat.expire(crate::host::unix_ms());
            }
            Err(err) => {
                last = now;
                tracing::warn!("{err}; the settings in force stay");
                if matches!(chat.live().setup, crate::chat::config::Setup::Missing(_)) {
                    chat.set_live(Live::unreadable(&err, &lookup));
                }
            }
        }
    }
}
