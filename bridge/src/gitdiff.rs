//! `GET /api/repo/git-diff?base=REF`: the working tree (untracked files included) against a commit
//! through the `git` binary, as `--unified=0` hunks and each file's text at that commit.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use axum::response::{IntoResponse, Response};
use nexus_shared::source_rules::MAX_FILE_BYTES;
use serde::{Deserialize, Serialize};

use crate::repo::{self, Repo, Rules};

/// The query of `GET /api/repo/git-diff`.
#[derive(Debug, Deserialize)]
pub struct DiffQuery {
    pub base: Option<String>,
}

/// The answer: what changed between `commit` (the resolved `base`) and the working tree.
#[derive(Debug, Serialize)]
pub struct Diff {
    pub base: String,
    pub commit: String,
    pub files: Vec<FileDiff>,
}

/// One changed file that the serving rules let out.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct FileDiff {
    pub path: String,
    pub status: Status,
    /// Always `None`: renames are reported as a deletion and an addition (`--no-renames`).
    pub old_path: Option<String>,
    pub hunks: Vec<Hunk>,
    /// The file's text at the commit; `None` when added, not UTF-8 or over the size cap.
    pub old_text: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Modified,
    Added,
    Deleted,
}

/// One `@@ -old_start,old_lines +new_start,new_lines @@` range.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u64,
    pub old_lines: u64,
    pub new_start: u64,
    pub new_lines: u64,
}

/// Answers the route: the diff as JSON, or 400 with `{"error": …}` saying why there is none.
pub async fn answer(repo: Option<Repo>, base: Option<String>) -> Response {
    let Some(repo) = repo else {
        return (
            axum::http::StatusCode::NOT_FOUND,
            "this bridge serves no repository",
        )
            .into_response();
    };
    let base = base.unwrap_or_else(|| "HEAD".to_owned());
    // One comparison at a time: each runs several git commands over the whole tree.
    static BUSY: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);
    let Ok(_turn) = BUSY.acquire().await else {
        return repo::bad_request("the comparison with git is shut down");
    };
    match tokio::task::spawn_blocking(move || diff(&repo, &base)).await {
        Ok(Ok(diff)) => axum::Json(diff).into_response(),
        Ok(Err(error)) => repo::bad_request(&error),
        Err(err) => repo::bad_request(&format!("the diff task failed: {err}")),
    }
}

/// Compares the working tree of `repo` with `base`. `Err` is a sentence for the user.
pub fn diff(repo: &Repo, base: &str) -> Result<Diff, String> {
    check_ref(base)?;
    let prefix = git(repo, &["rev-parse", "--show-prefix"]).map_err(|err| {
        if err.contains("not a git repository") {
            format!("{} is not in a git repository", repo.name)
        } else {
            err
        }
    })?;
    let prefix = text(&prefix).trim_end_matches('\n').to_owned();
    let commit = git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{base}^{{commit}}"),
        ],
    )
    .map_err(|_| format!("`{base}` names no commit in this repository"))?;
    let commit = text(&commit).trim().to_owned();
    let diff_args = |extra: &[&'static str]| -> Vec<String> {
        let mut args: Vec<String> = ["diff", "--no-ext-diff", "--no-textconv", "--no-color"]
            .into_iter()
            .chain(["--no-renames", "--relative"])
            // Submodules print no `diff --git` header of their own (`diff.submodule=log`), which
            // would pair later files with the wrong hunks: they are left out.
            .chain(["--submodule=short", "--ignore-submodules=all"])
            .chain(extra.iter().copied())
            .map(str::to_owned)
            .collect();
        args.extend([commit.clone(), "--".to_owned()]);
        args
    };
    let names = git(repo, &diff_args(&["--name-status", "-z"]))?;
    let patch = git(repo, &diff_args(&["--unified=0"]))?;
    let untracked = git(
        repo,
        &["ls-files", "--others", "--exclude-standard", "-z", "--"],
    )?;

    let mut rules = Rules::new(repo);
    let mut files = Vec::new();
    let mut wanted = Vec::new();
    for ((status, path), hunks) in name_status(&names).into_iter().zip(patch_hunks(&patch)) {
        let served = match status {
            Status::Deleted => rules.would_serve(&path),
            Status::Added | Status::Modified => rules.stat(&path).is_some(),
        };
        if served {
            if status != Status::Added {
                wanted.push(path.clone());
            }
            files.push(FileDiff {
                path,
                status,
                old_path: None,
                hunks,
                old_text: None,
            });
        }
    }
    for path in text(&untracked).split('\0').filter(|p| !p.is_empty()) {
        if rules.stat(path).is_none() {
            continue;
        }
        let Ok(bytes) = repo.read(&repo.root.join(path)) else {
            continue;
        };
        files.push(FileDiff {
            path: path.to_owned(),
            status: Status::Added,
            old_path: None,
            hunks: whole_file(&bytes),
            old_text: None,
        });
    }
    let old = old_texts(repo, &commit, &prefix, &wanted)?;
    for (file, blob) in files
        .iter_mut()
        .filter(|f| f.status != Status::Added)
        .zip(old)
    {
        file.old_text = blob.and_then(|bytes| String::from_utf8(bytes).ok());
    }
    // A deleted file that was over the cap at the commit stays out.
    files.retain(|f| f.status != Status::Deleted || f.old_text.is_some());
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Diff {
        base: base.to_owned(),
        commit,
        files,
    })
}

/// A revision name git will not read as an option, without whitespace or control characters.
fn check_ref(base: &str) -> Result<(), String> {
    if base.is_empty()
        || base.starts_with('-')
        || base.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "`{}` is not a usable revision: it must not be empty, start with `-` or hold spaces or control characters",
            base.escape_debug()
        ));
    }
    Ok(())
}

/// A deleted path the rules would have served by its name (its folders and size are gone).
/// Runs `git -C ROOT args` without pager, locks, fsmonitor hooks or external diff programs;
/// answers its stdout, or its stderr as the error.
fn git<S: AsRef<std::ffi::OsStr>>(repo: &Repo, args: &[S]) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut child = command(repo, args)
        .stdin(Stdio::null())
        .spawn()
        .map_err(spawn_error)?;
    let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("cannot read git's output".to_owned());
    };
    // Read on their own threads; this one keeps the deadline and kills git past it.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = stdout.take(MAX_GIT_OUTPUT + 1).read_to_end(&mut out);
        read.map(|_| out)
    });
    let errors = std::thread::spawn(move || {
        let mut err = Vec::new();
        let _ = (&mut stderr).take(64 * 1024).read_to_end(&mut err);
        err
    });
    let started = std::time::Instant::now();
    let mut output_ended: Option<std::time::Instant> = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {
                // The reader stops at the cap: git, blocked on a full pipe, is stopped.
                let ended = reader
                    .is_finished()
                    .then(|| *output_ended.get_or_insert_with(std::time::Instant::now));
                let stuck = ended.is_some_and(|at| at.elapsed() > OUTPUT_GRACE);
                if stuck || started.elapsed() > GIT_DEADLINE {
                    let _ = child.kill();
                    let status = child.wait();
                    if stuck {
                        break status.map_err(|err| format!("cannot wait for git: {err}"))?;
                    }
                    return Err(format!(
                        "git took longer than {} s; compare with a nearer commit",
                        GIT_DEADLINE.as_secs()
                    ));
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(err) => return Err(format!("cannot wait for git: {err}")),
        }
    };
    let out = reader
        .join()
        .map_err(|_| "git's output was lost".to_owned())?
        .map_err(|err| format!("cannot read git's output: {err}"))?;
    let err = errors.join().unwrap_or_default();
    if out.len() as u64 > MAX_GIT_OUTPUT {
        return Err(format!(
            "the changes are larger than {} MB; compare with a nearer commit",
            MAX_GIT_OUTPUT / 1_000_000
        ));
    }
    if status.success() {
        Ok(out)
    } else {
        Err(text(&err).trim().to_owned())
    }
}

/// Most bytes one git command may print (a diff of a whole kernel is refused, not buffered).
const MAX_GIT_OUTPUT: u64 = 64 * 1024 * 1024;
/// Longest a git command may run.
const GIT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);
/// How long git may go on once its output ended before it counts as stuck on the cap.
const OUTPUT_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

fn command<S: AsRef<std::ffi::OsStr>>(repo: &Repo, args: &[S]) -> Command {
    let mut command = Command::new("git");
    command.arg("-C").arg(&repo.root).args([
        "--no-pager",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.quotepath=false",
        // Nothing may reach the network (a partial clone's missing blobs stay missing).
        "-c",
        "protocol.allow=never",
    ]);
    // The repository's own filter drivers (`.gitattributes` `filter=x` with `filter.x.clean` in
    // its config) would run a program of its choosing on every changed file: each is emptied.
    for name in filter_drivers(repo) {
        for part in ["clean", "smudge", "process"] {
            command.arg("-c").arg(format!("filter.{name}.{part}="));
        }
    }
    // No inherited `GIT_*` variable may change what runs or what is read (`GIT_DIFF_OPTS`,
    // `GIT_CONFIG_PARAMETERS`, `GIT_EXTERNAL_DIFF`, `GIT_DIR` …).
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GIT_") {
            command.env_remove(key);
        }
    }
    command
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_PAGER", "cat")
        .env("GIT_NO_LAZY_FETCH", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// The names of the filter drivers the repository's configuration defines (reading the
/// configuration runs nothing).
fn filter_drivers(repo: &Repo) -> Vec<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(&repo.root)
        .args(["config", "--name-only", "--get-regexp", r"^filter\."])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(output) = output else {
        return Vec::new();
    };
    let mut names: Vec<String> = text(&output.stdout)
        .lines()
        .filter_map(|key| key.strip_prefix("filter."))
        .filter_map(|rest| rest.rsplit_once('.').map(|(name, _)| name.to_owned()))
        .collect();
    names.sort();
    names.dedup();
    names
}

fn spawn_error(err: std::io::Error) -> String {
    if err.kind() == std::io::ErrorKind::NotFound {
        "git is not installed (no `git` on the bridge's PATH)".to_owned()
    } else {
        format!("cannot run git: {err}")
    }
}

fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// `--name-status -z` output: status letter, then the path, each NUL-terminated.
fn name_status(out: &[u8]) -> Vec<(Status, String)> {
    let text = text(out);
    let mut parts = text.split('\0');
    let mut entries = Vec::new();
    while let (Some(code), Some(path)) = (parts.next(), parts.next()) {
        let status = match code.chars().next() {
            Some('A') => Status::Added,
            Some('D') => Status::Deleted,
            _ => Status::Modified,
        };
        entries.push((status, path.to_owned()));
    }
    entries
}

/// The hunks of each file of a `--unified=0` patch, in the order of its `diff --git` headers.
fn patch_hunks(out: &[u8]) -> Vec<Vec<Hunk>> {
    let mut files: Vec<Vec<Hunk>> = Vec::new();
    for line in text(out).lines() {
        if line.starts_with("diff --git ") {
            files.push(Vec::new());
        } else if let (Some(hunk), Some(file)) = (parse_hunk(line), files.last_mut()) {
            file.push(hunk);
        }
    }
    files
}

/// `@@ -3,2 +3,5 @@ …` → the four numbers (a missing count is 1).
fn parse_hunk(line: &str) -> Option<Hunk> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(u64, u64)> {
        match r.split_once(',') {
            Some((start, lines)) => Some((start.parse().ok()?, lines.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_lines) = range(old)?;
    let (new_start, new_lines) = range(new)?;
    Some(Hunk {
        old_start,
        old_lines,
        new_start,
        new_lines,
    })
}

/// The one hunk of a new file (none when it is empty).
fn whole_file(bytes: &[u8]) -> Vec<Hunk> {
    let breaks = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    let lines = breaks + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    if lines == 0 {
        return Vec::new();
    }
    vec![Hunk {
        old_start: 0,
        old_lines: 0,
        new_start: 1,
        new_lines: lines,
    }]
}

/// The blobs of `paths` at `commit`, in order, through one `git cat-file --batch`; `None` for a
/// path git does not have there or one over the size cap.
fn old_texts(
    repo: &Repo,
    commit: &str,
    prefix: &str,
    paths: &[String],
) -> Result<Vec<Option<Vec<u8>>>, String> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut child = command(repo, &["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .spawn()
        .map_err(spawn_error)?;
    let input: String = paths
        .iter()
        .map(|path| format!("{commit}:{prefix}{}\n", path.replace('\n', "")))
        .collect();
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            // A failed write shows as missing blobs below.
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout
            .read_to_end(&mut out)
            .map_err(|err| format!("cannot read git's answer: {err}"))?;
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(parse_batch(&out, paths.len()))
}

/// `git cat-file --batch` output: per object `<oid> <type> <size>\n<bytes>\n`, or
/// `<name> missing\n`.
fn parse_batch(out: &[u8], count: usize) -> Vec<Option<Vec<u8>>> {
    let mut blobs = Vec::with_capacity(count);
    let mut at = 0;
    while blobs.len() < count && at < out.len() {
        let Some(end) = out[at..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let header = text(&out[at..at + end]).into_owned();
        at += end + 1;
        let mut fields = header.rsplitn(3, ' ');
        let size = fields.next().and_then(|s| s.parse::<usize>().ok());
        let kind = fields.next();
        match (kind, size) {
            (Some(kind), Some(size)) if at + size <= out.len() => {
                let blob = &out[at..at + size];
                at += size + 1;
                blobs.push((kind == "blob" && size <= MAX_FILE_BYTES).then(|| blob.to_vec()));
            }
            _ => blobs.push(None),
        }
    }
    blobs.resize(count, None);
    blobs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_git(dir: &std::path::Path, args: &[&str]) {
        let status = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    fn write(dir: &std::path::Path, path: &str, text: &str) {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    /// A git repository whose first commit holds `files` (ignored ones too).
    fn committed(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        run_git(dir.path(), &["init", "-q"]);
        for (path, text) in files {
            write(dir.path(), path, text);
        }
        run_git(dir.path(), &["add", "-A", "-f"]);
        run_git(dir.path(), &["commit", "-q", "-m", "first"]);
        dir
    }

    #[test]
    fn a_deleted_file_the_rules_now_keep_out_shows_no_old_text() {
        let dir = committed(&[
            ("build/out.py", "generated\n"),
            ("gone/deep/kept.py", "kept\n"),
            ("src/a.py", "a\n"),
        ]);
        let root = dir.path();
        write(root, ".gitignore", "build/\n");
        std::fs::remove_file(root.join("build/out.py")).unwrap();
        std::fs::remove_dir_all(root.join("gone")).unwrap();
        let repo = Repo::open(root).unwrap();
        let diff = diff(&repo, "HEAD").unwrap();
        let paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
        assert!(!paths.contains(&"build/out.py"), "{paths:?}");
        assert!(paths.contains(&"gone/deep/kept.py"), "{paths:?}");
    }

    #[test]
    fn a_repository_cannot_make_the_diff_run_its_programs() {
        let dir = committed(&[("a.py", "one\n")]);
        let root = dir.path();
        let ran = root.join("ran");
        // A clean filter on every file, as a hostile repository would configure it.
        let program = format!("touch {}; cat", ran.display());
        run_git(root, &["config", "filter.evil.clean", &program]);
        write(root, ".gitattributes", "* filter=evil\n");
        write(root, "a.py", "one\ntwo\n");
        let repo = Repo::open(root).unwrap();
        let diff = diff(&repo, "HEAD").unwrap();
        assert!(diff.files.iter().any(|f| f.path == "a.py"));
        assert!(!ran.exists(), "the repository's filter program ran");
    }

    #[test]
    fn working_tree_against_head_with_untracked_files_and_no_secrets() {
        let dir = committed(&[
            ("a.py", "one\ntwo\nthree\n"),
            ("b.py", "gone\n"),
            (".env", "KEY=1\n"),
            ("node_modules/x.js", "x\n"),
            (".gitignore", "ignored.py\n"),
        ]);
        let root = dir.path();
        write(root, "a.py", "one\n2\n2b\nthree\n");
        std::fs::remove_file(root.join("b.py")).unwrap();
        write(root, "new/c.py", "c1\nc2\n");
        write(root, "ignored.py", "no\n");
        write(root, ".env", "KEY=2\n");
        std::fs::remove_file(root.join("node_modules/x.js")).unwrap();
        write(root, "new/.env.local", "KEY=3\n");

        let repo = Repo::open(root).unwrap();
        let diff = diff(&repo, "HEAD").unwrap();
        assert_eq!(diff.base, "HEAD");
        assert_eq!(diff.commit.len(), 40);
        let summary: Vec<(&str, Status)> = diff
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.status))
            .collect();
        assert_eq!(
            summary,
            [
                ("a.py", Status::Modified),
                ("b.py", Status::Deleted),
                ("new/c.py", Status::Added)
            ]
        );
        let a = &diff.files[0];
        assert_eq!(
            a.hunks,
            [Hunk {
                old_start: 2,
                old_lines: 1,
                new_start: 2,
                new_lines: 2
            }]
        );
        assert_eq!(a.old_text.as_deref(), Some("one\ntwo\nthree\n"));
        assert_eq!(diff.files[1].old_text.as_deref(), Some("gone\n"));
        let c = &diff.files[2];
        assert_eq!(c.old_text, None);
        assert_eq!(
            c.hunks,
            [Hunk {
                old_start: 0,
                old_lines: 0,
                new_start: 1,
                new_lines: 2
            }]
        );
        let json = serde_json::to_string(&diff).unwrap();
        assert!(!json.contains("KEY="), "{json}");
        assert!(
            json.contains(r#""status":"modified","old_path":null"#),
            "{json}"
        );

        let err = super::diff(&repo, "no-such-branch").unwrap_err();
        assert!(err.contains("names no commit"), "{err}");
        for bad in ["--output=/tmp/x", "HEAD foo", "a\nb", ""] {
            assert!(super::diff(&repo, bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_folder_outside_git_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.py", "x\n");
        let repo = Repo::open(dir.path()).unwrap();
        let err = diff(&repo, "HEAD").unwrap_err();
        assert!(err.contains("not in a git repository"), "{err}");
    }

    #[test]
    fn hunk_headers_and_batches_parse() {
        assert_eq!(
            parse_hunk("@@ -3 +3,0 @@ fn x()"),
            Some(Hunk {
                old_start: 3,
                old_lines: 1,
                new_start: 3,
                new_lines: 0
            })
        );
        assert_eq!(parse_hunk("@@ nonsense"), None);
        let out = b"abc blob 3\nxyz\nHEAD:b missing\n";
        assert_eq!(parse_batch(out, 3), [Some(b"xyz".to_vec()), None, None]);
        assert_eq!(whole_file(b"a\nb"), whole_file(b"a\nb\n"));
        assert!(whole_file(b"").is_empty());
    }
}
