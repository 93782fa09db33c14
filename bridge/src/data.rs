//! The bridge's private places on disk: the data folder (0700) with its SQLite files and their
//! `-wal`/`-shm`/`-journal` companions (0600), and hosted servers' empty working folders (0700).

use std::fs::{DirBuilder, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Mode of every folder the bridge keeps its data in.
pub const FOLDER_MODE: u32 = 0o700;
/// Mode of every file the bridge writes there.
pub const FILE_MODE: u32 = 0o600;
/// The files SQLite writes beside a database, named by suffix.
const SQLITE_COMPANIONS: [&str; 3] = ["-wal", "-shm", "-journal"];
/// Where hosted servers without a `cwd` run, inside the data folder.
const HOSTED_FOLDER: &str = "hosted";

/// `nexus` in the user's data folder (`$XDG_DATA_HOME`, else `~/.local/share`).
pub fn folder() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join("nexus"))
}

/// Creates `dir` (and missing parents) as 0700. An existing `dir` keeps its mode unless
/// `tighten` is set; the folders created are always 0700.
pub fn private_dir(dir: &Path, tighten: bool) -> io::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(FOLDER_MODE)
        .create(dir)?;
    if tighten {
        std::fs::set_permissions(dir, Permissions::from_mode(FOLDER_MODE))?;
    }
    Ok(())
}

/// Makes `path` a 0600 file (created empty when missing) and tightens its SQLite companions that
/// exist, so SQLite (which gives a database's `-wal`/`-shm` the database's mode) never writes a
/// file others can read. A missing folder is created 0700; the data folder itself is tightened.
pub fn private_file(path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        let is_data_folder = folder().is_some_and(|data| same_place(&data, dir));
        private_dir(dir, is_data_folder)?;
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(FILE_MODE)
        .open(path)?;
    std::fs::set_permissions(path, Permissions::from_mode(FILE_MODE))?;
    for suffix in SQLITE_COMPANIONS {
        let companion = with_suffix(path, suffix);
        if companion.is_file() {
            std::fs::set_permissions(&companion, Permissions::from_mode(FILE_MODE))?;
        }
    }
    Ok(())
}

/// At start: the data folder 0700, its files 0600 and its folders 0700 (one level into each
/// folder, which is all the bridge writes). Returns how many entries were tightened.
pub fn tighten() -> io::Result<usize> {
    match folder() {
        Some(dir) if dir.is_dir() => tighten_folder(&dir),
        _ => Ok(0),
    }
}

fn tighten_folder(dir: &Path) -> io::Result<usize> {
    let mut changed = usize::from(set_mode(dir, FOLDER_MODE)?);
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        // Never follow a link: its target is not the bridge's.
        let kind = entry.file_type()?;
        if kind.is_file() {
            changed += usize::from(set_mode(&entry.path(), FILE_MODE)?);
        } else if kind.is_dir() {
            changed += usize::from(set_mode(&entry.path(), FOLDER_MODE)?);
            for inner in std::fs::read_dir(entry.path())? {
                let inner = inner?;
                if inner.file_type()?.is_dir() {
                    changed += usize::from(set_mode(&inner.path(), FOLDER_MODE)?);
                }
            }
        }
    }
    Ok(changed)
}

/// Sets `mode` when the permission bits differ; true when it did.
fn set_mode(path: &Path, mode: u32) -> io::Result<bool> {
    let current = std::fs::symlink_metadata(path)?.permissions().mode() & 0o7777;
    if current == mode {
        return Ok(false);
    }
    std::fs::set_permissions(path, Permissions::from_mode(mode))?;
    Ok(true)
}

/// The empty private folder a hosted server without `cwd` runs in: `hosted/<id>` in the data
/// folder, 0700, created on demand.
pub fn hosted_folder(server: &str) -> Result<PathBuf, String> {
    let data = folder().ok_or_else(|| {
        "no data folder for this user (HOME unset?) to run the server in; set its `cwd`".to_owned()
    })?;
    private_dir(&data, true).map_err(|err| format!("cannot create {}: {err}", data.display()))?;
    let dir = data.join(HOSTED_FOLDER).join(server);
    private_dir(&dir, true).map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    Ok(dir)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn same_place(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_file_and_its_folders_are_private_and_companions_are_tightened() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a/b/chat.sqlite3");
        let wal = dir.path().join("a/b/chat.sqlite3-wal");
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(&wal, "x").unwrap();
        std::fs::set_permissions(&wal, Permissions::from_mode(0o644)).unwrap();
        std::fs::remove_dir_all(dir.path().join("a")).unwrap();
        private_file(&db).unwrap();
        assert_eq!(mode(&db), 0o600);
        assert_eq!(mode(&dir.path().join("a")), 0o700);
        assert_eq!(mode(&dir.path().join("a/b")), 0o700);
        // An existing file keeps its content and loses others' access, and so does its -wal.
        std::fs::write(&db, "kept").unwrap();
        std::fs::write(&wal, "x").unwrap();
        std::fs::set_permissions(&db, Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(&wal, Permissions::from_mode(0o664)).unwrap();
        private_file(&db).unwrap();
        assert_eq!(mode(&db), 0o600);
        assert_eq!(mode(&wal), 0o600);
        assert_eq!(std::fs::read_to_string(&db).unwrap(), "kept");
    }

    #[test]
    fn an_existing_folder_the_user_chose_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), Permissions::from_mode(0o755)).unwrap();
        private_file(&dir.path().join("chat.sqlite3")).unwrap();
        assert_eq!(mode(dir.path()), 0o755);
        assert_eq!(mode(&dir.path().join("chat.sqlite3")), 0o600);
    }

    #[test]
    fn tightening_covers_files_folders_and_one_level_below_but_not_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("nexus");
        std::fs::create_dir_all(root.join("hosted/fs")).unwrap();
        std::fs::write(root.join("chat.sqlite3"), "").unwrap();
        std::fs::write(root.join("chat.sqlite3-shm"), "").unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        for path in [&root, &root.join("hosted"), &root.join("hosted/fs")] {
            std::fs::set_permissions(path, Permissions::from_mode(0o755)).unwrap();
        }
        for path in [
            &root.join("chat.sqlite3"),
            &root.join("chat.sqlite3-shm"),
            &outside,
        ] {
            std::fs::set_permissions(path, Permissions::from_mode(0o644)).unwrap();
        }
        assert_eq!(tighten_folder(&root).unwrap(), 5);
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join("hosted")), 0o700);
        assert_eq!(mode(&root.join("hosted/fs")), 0o700);
        assert_eq!(mode(&root.join("chat.sqlite3")), 0o600);
        assert_eq!(mode(&root.join("chat.sqlite3-shm")), 0o600);
        assert_eq!(mode(&outside), 0o644, "a link's target is left alone");
        assert_eq!(tighten_folder(&root).unwrap(), 0, "nothing left to change");
    }
}
