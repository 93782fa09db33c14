//! Opening the bridge's SQLite files (chat sessions, cached provider vectors): the folder is
//! created first, and errors name the file.

use std::path::Path;

use rusqlite::Connection;

/// Opens (creating its folder and the file as needed) the database at `path`.
pub fn open(path: &Path) -> Result<Connection, String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    }
    Connection::open(path).map_err(|err| format!("cannot open {}: {err}", path.display()))
}
