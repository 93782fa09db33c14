//! Chat sessions in SQLite (one file in the user's data folder): each session's messages in order
//! and its token usage, so a bridge restart or a page reload resumes the conversation.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use nexus_shared::chat::{ChatMessage, ChatRole, SessionSummary, TokenUsage};
use rusqlite::{Connection, OptionalExtension, params};

/// The database's default place: `nexus/chat.sqlite3` in the user's data folder.
pub fn default_path() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join("nexus").join("chat.sqlite3"))
}

/// Longest session title (characters of the first user message).
const TITLE_CHARS: usize = 60;

pub struct Store {
    db: Mutex<Connection>,
}

impl Store {
    /// Opens (creating folder, file and tables as needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, String> {
        let db = crate::sqlite::open(path)?;
        Self::init(db).map_err(|err| format!("{}: {err}", path.display()))
    }

    /// A database in memory (tests and benchmarks).
    pub fn in_memory() -> Result<Store, String> {
        let db = Connection::open_in_memory().map_err(|err| err.to_string())?;
        Self::init(db).map_err(|err| err.to_string())
    }

    fn init(db: Connection) -> rusqlite::Result<Store> {
        // WAL: readers (another socket's history) do not wait for a turn's writes.
        db.pragma_update(None, "journal_mode", "WAL")?;
        // WAL with NORMAL sync: a crash may lose the last messages, never corrupt the file; a
        // full fsync per message cost most of a turn's overhead.
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.busy_timeout(std::time::Duration::from_secs(5))?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS sessions (
                id TEXT PRIMARY KEY,
                title TEXT NOT NULL DEFAULT '',
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                prompt_tokens INTEGER NOT NULL DEFAULT 0,
                completion_tokens INTEGER NOT NULL DEFAULT 0,
                total_tokens INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE IF NOT EXISTS messages (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                id TEXT NOT NULL,
                role TEXT NOT NULL,
                content TEXT,
                data TEXT,
                tool_name TEXT,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX IF NOT EXISTS messages_by_session ON messages(session_id, seq);",
        )?;
        // Databases from before conversations kept their project gain the column (empty).
        let has_project = db
            .prepare("SELECT 1 FROM pragma_table_info('sessions') WHERE name = 'project'")?
            .exists([])?;
        if !has_project {
            db.execute_batch("ALTER TABLE sessions ADD COLUMN project TEXT NOT NULL DEFAULT ''")?;
        }
        Ok(Store { db: Mutex::new(db) })
    }

    /// Files the conversation under `project` unless it already has one.
    pub fn set_project(&self, session: &str, project: &str) -> Result<(), String> {
        self.db()
            .execute(
                "UPDATE sessions SET project = ?2 WHERE id = ?1 AND project = ''",
                params![session, project],
            )
            .map(|_| ())
            .map_err(|err| err.to_string())
    }

    fn db(&self) -> MutexGuard<'_, Connection> {
        self.db
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Creates an empty session.
    pub fn create(&self, id: &str, now_ms: u64) -> Result<(), String> {
        self.db()
            .execute(
                "INSERT OR IGNORE INTO sessions (id, created_at, updated_at) VALUES (?1, ?2, ?2)",
                params![id, now_ms as i64],
            )
            .map(|_| ())
            .map_err(|err| err.to_string())
    }

    pub fn exists(&self, id: &str) -> bool {
        self.db()
            .query_row("SELECT 1 FROM sessions WHERE id = ?1", params![id], |_| {
                Ok(())
            })
            .optional()
            .ok()
            .flatten()
            .is_some()
    }

    /// Appends a message; the first user message names the session.
    pub fn append(&self, session: &str, message: &ChatMessage) -> Result<(), String> {
        let data = message.data.as_ref().map(|d| d.to_string());
        let db = self.db();
        db.execute(
            "INSERT INTO messages (session_id, id, role, content, data, tool_name, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                session,
                message.id,
                role_name(message.role),
                message.content,
                data,
                message.tool_name,
                message.created_at as i64
            ],
        )
        .map_err(|err| err.to_string())?;
        let title: String = match (message.role, &message.content) {
            (ChatRole::User, Some(text)) => text.chars().take(TITLE_CHARS).collect(),
            _ => String::new(),
        };
        db.execute(
            "UPDATE sessions SET updated_at = ?2,
                 title = CASE WHEN title = '' THEN ?3 ELSE title END
             WHERE id = ?1",
            params![session, message.created_at as i64, title],
        )
        .map(|_| ())
        .map_err(|err| err.to_string())
    }

    /// The session's messages, oldest first.
    pub fn messages(&self, session: &str) -> Result<Vec<ChatMessage>, String> {
        let db = self.db();
        let mut statement = db
            .prepare_cached(
                "SELECT id, role, content, data, tool_name, created_at FROM messages
                 WHERE session_id = ?1 ORDER BY seq",
            )
            .map_err(|err| err.to_string())?;
        let rows = statement
            .query_map(params![session], |row| {
                let role: String = row.get(1)?;
                let data: Option<String> = row.get(3)?;
                Ok(ChatMessage {
                    id: row.get(0)?,
                    role: role_from(&role),
                    content: row.get(2)?,
                    data: data.and_then(|d| serde_json::from_str(&d).ok()),
                    tool_name: row.get(4)?,
                    created_at: row.get::<_, i64>(5)?.max(0) as u64,
                })
            })
            .map_err(|err| err.to_string())?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|err| err.to_string())
    }

    /// Adds a turn's tokens to the session's count.
    pub fn add_usage(&self, session: &str, usage: TokenUsage) -> Result<(), String> {
        self.db()
            .execute(
                "UPDATE sessions SET prompt_tokens = prompt_tokens + ?2,
                     completion_tokens = completion_tokens + ?3,
                     total_tokens = total_tokens + ?4
                 WHERE id = ?1",
                params![
                    session,
                    usage.prompt_tokens as i64,
                    usage.completion_tokens as i64,
                    usage.total_tokens as i64
                ],
            )
            .map(|_| ())
            .map_err(|err| err.to_string())
    }

    pub fn usage(&self, session: &str) -> TokenUsage {
        self.db()
            .query_row(
                "SELECT prompt_tokens, completion_tokens, total_tokens FROM sessions WHERE id = ?1",
                params![session],
                |row| {
                    Ok(TokenUsage {
                        prompt_tokens: row.get::<_, i64>(0)?.max(0) as u64,
                        completion_tokens: row.get::<_, i64>(1)?.max(0) as u64,
                        total_tokens: row.get::<_, i64>(2)?.max(0) as u64,
                    })
                },
            )
            .unwrap_or_default()
    }

    /// Deletes every conversation (and its messages) last touched before `cutoff_ms`, in one
    /// transaction; how many.
    pub fn delete_untouched_since(&self, cutoff_ms: u64) -> Result<usize, String> {
        let mut db = self.db();
        let tx = db.transaction().map_err(|err| err.to_string())?;
        let cutoff = i64::try_from(cutoff_ms).unwrap_or(i64::MAX);
        tx.execute(
            "DELETE FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE updated_at < ?1)",
            params![cutoff],
        )
        .map_err(|err| err.to_string())?;
        let deleted = tx
            .execute(
                "DELETE FROM sessions WHERE updated_at < ?1",
                params![cutoff],
            )
            .map_err(|err| err.to_string())?;
        tx.commit().map_err(|err| err.to_string())?;
        Ok(deleted)
    }

    /// Stored sessions, newest first, at most `limit`; with `project`, that project's and the
    /// unfiled ones (no message yet, or stored before conversations kept their project).
    pub fn sessions(
        &self,
        limit: usize,
        project: Option<&str>,
    ) -> Result<Vec<SessionSummary>, String> {
        let db = self.db();
        let mut statement = db
            .prepare_cached(
                "SELECT s.id, s.title, s.updated_at, s.prompt_tokens, s.completion_tokens,
                        s.total_tokens, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id),
                        s.project
                 FROM sessions s WHERE ?2 IS NULL OR s.project = ?2 OR s.project = ''
                 ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?1",
            )
            .map_err(|err| err.to_string())?;
        let rows = statement
            .query_map(params![limit as i64, project], |row| {
                Ok(SessionSummary {
                    session_id: row.get(0)?,
                    title: row.get(1)?,
                    project: row.get(7)?,
                    updated_at: row.get::<_, i64>(2)?.max(0) as u64,
                    usage: TokenUsage {
                        prompt_tokens: row.get::<_, i64>(3)?.max(0) as u64,
                        completion_tokens: row.get::<_, i64>(4)?.max(0) as u64,
                        total_tokens: row.get::<_, i64>(5)?.max(0) as u64,
                    },
                    messages: row.get::<_, i64>(6)?.clamp(0, u32::MAX as i64) as u32,
                })
            })
            .map_err(|err| err.to_string())?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|err| err.to_string())
    }
}

fn role_name(role: ChatRole) -> &'static str {
    match role {
        ChatRole::User => "user",
        ChatRole::Assistant => "assistant",
        ChatRole::System => "system",
        ChatRole::Tool => "tool",
    }
}

fn role_from(name: &str) -> ChatRole {
    match name {
        "user" => ChatRole::User,
        "assistant" => ChatRole::Assistant,
        "tool" => ChatRole::Tool,
        _ => ChatRole::System,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(id: &str, role: ChatRole, content: &str, at: u64) -> ChatMessage {
        ChatMessage {
            id: id.into(),
            role,
            content: Some(content.into()),
            data: None,
            created_at: at,
            tool_name: None,
        }
    }

    #[test]
    fn conversations_untouched_since_the_cutoff_are_deleted_with_their_messages() {
        let store = Store::in_memory().unwrap();
        store.create("old", 1_000).unwrap();
        store
            .append("old", &message("m1", ChatRole::User, "hi", 1_000))
            .unwrap();
        store.create("recent", 1_000).unwrap();
        store
            .append("recent", &message("m2", ChatRole::User, "hi", 5_000))
            .unwrap();
        assert_eq!(store.delete_untouched_since(2_000).unwrap(), 1);
        assert!(!store.exists("old"));
        assert!(store.exists("recent"));
        assert_eq!(store.messages("recent").unwrap().len(), 1);
        let orphans: i64 = store
            .db()
            .query_row(
                "SELECT COUNT(*) FROM messages WHERE session_id = 'old'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(orphans, 0);
        assert_eq!(store.delete_untouched_since(2_000).unwrap(), 0);
    }

    #[test]
    fn messages_usage_and_sessions_survive_reopening_the_file() {
        let dir = std::env::temp_dir().join(format!("nexus-chat-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("sub/chat.sqlite3");
        {
            let store = Store::open(&path).unwrap();
            store.create("s1", 1).unwrap();
            store
                .append("s1", &message("m1", ChatRole::User, "where is main?", 2))
                .unwrap();
            let mut call = message("m2", ChatRole::Assistant, "", 3);
            call.content = None;
            call.data = Some(
                json!({"call_id": "c1", "tool": "nexus:search", "arguments": {"query": "main"}}),
            );
            call.tool_name = Some("nexus:search".into());
            store.append("s1", &call).unwrap();
            store
                .append("s1", &message("m3", ChatRole::Assistant, "in main.rs", 4))
                .unwrap();
            store
                .add_usage(
                    "s1",
                    TokenUsage {
                        prompt_tokens: 10,
                        completion_tokens: 5,
                        total_tokens: 15,
                    },
                )
                .unwrap();
            store.create("s2", 5).unwrap();
            store.set_project("s1", "shop").unwrap();
            store.set_project("s1", "other").unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert!(store.exists("s1"));
        assert!(!store.exists("nope"));
        let messages = store.messages("s1").unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1].tool_name.as_deref(), Some("nexus:search"));
        assert_eq!(
            messages[1].data.as_ref().unwrap()["arguments"]["query"],
            "main"
        );
        assert_eq!(store.usage("s1").total_tokens, 15);
        let sessions = store.sessions(10, None).unwrap();
        assert_eq!(sessions.len(), 2);
        assert_eq!(sessions[0].session_id, "s2");
        assert_eq!(sessions[1].title, "where is main?");
        assert_eq!(sessions[1].messages, 3);
        assert_eq!(
            sessions[1].project, "shop",
            "a conversation keeps the project of its first message"
        );
        let shop = store.sessions(10, Some("shop")).unwrap();
        let ids: Vec<&str> = shop.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(
            ids,
            ["s2", "s1"],
            "the unfiled s2 is listed under every project"
        );
        let other = store.sessions(10, Some("other")).unwrap();
        assert_eq!(other.len(), 1);
        assert_eq!(other[0].session_id, "s2");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_database_from_before_projects_gains_the_column() {
        let dir = std::env::temp_dir().join(format!("nexus-store-old-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("chat.sqlite3");
        {
            let db = Connection::open(&path).unwrap();
            db.execute_batch(
                "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '',
                    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                    prompt_tokens INTEGER NOT NULL DEFAULT 0,
                    completion_tokens INTEGER NOT NULL DEFAULT 0,
                    total_tokens INTEGER NOT NULL DEFAULT 0);
                 INSERT INTO sessions (id, created_at, updated_at) VALUES ('old', 1, 1);",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let sessions = store.sessions(10, None).unwrap();
        assert_eq!(
            (
                sessions[0].session_id.as_str(),
                sessions[0].project.as_str()
            ),
            ("old", "")
        );
        store.set_project("old", "shop").unwrap();
        assert_eq!(store.sessions(10, Some("shop")).unwrap().len(), 1);
        assert!(store.sessions(10, Some("other")).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
