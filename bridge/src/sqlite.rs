//! Opening the bridge's SQLite files (chat sessions, cached provider vectors, tool analyses):
//! the file is made private first (0600 in a 0700 folder, see `data.rs`), and errors name it.

use std::path::Path;

use rusqlite::Connection;

/// Opens (creating its folder and the file as needed) the database at `path`.
pub fn open(path: &Path) -> Result<Connection, String> {
    prepare(path)?;
    Connection::open(path).map_err(|err| format!("cannot open {}: {err}", path.display()))
}

/// Creates `path` as an empty 0600 file (its folder 0700) or tightens the existing one and its
/// `-wal`/`-shm`, before SQLite opens it: SQLite gives those companions the database's mode.
pub fn prepare(path: &Path) -> Result<(), String> {
    crate::data::private_file(path)
        .map_err(|err| format!("cannot make {} private: {err}", path.display()))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_database_in_wal_mode_and_its_companions_are_private_under_umask_022() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data/chat.sqlite3");
        // SAFETY: umask only changes this process's file-creation mask; the value is restored.
        let old = unsafe { libc::umask(0o022) };
        let db = open(&path).unwrap();
        db.pragma_update(None, "journal_mode", "WAL").unwrap();
        db.execute_batch("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('secret');")
            .unwrap();
        unsafe { libc::umask(old) };
        let mode = |name: &str| {
            std::fs::metadata(dir.path().join(name))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("data"), 0o700);
        assert_eq!(mode("data/chat.sqlite3"), 0o600);
        assert_eq!(mode("data/chat.sqlite3-wal"), 0o600);
        assert_eq!(mode("data/chat.sqlite3-shm"), 0o600);
    }
}
