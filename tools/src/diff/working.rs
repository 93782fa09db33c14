//! `diff` with `base`: the working tree's changes against a git commit read in the graph — the
//! changed symbols, their callers, the processes they are steps of and the tests to run.

use std::collections::BTreeSet;

use nexus_shared::params::{ChangeType, DiffParams, Format};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::{Value, json};

use super::changes::{self, Change, Changes, FileChange};
use super::{DEFAULT_LIMIT, kept_note, section, wanted};
use crate::ToolContext;
use crate::budget::{Budget, limit_chars};
use crate::neighbours::processes;
use crate::test_impact::reach;
use nexus_engine::{EdgeKind, NodeRef, Reached, Toward, Walk, is_test};

/// Deepest caller walk allowed whatever is asked.
const MAX_DEPTH: u32 = 3;
/// Tests are looked for at least this far upstream (`test_impact`'s default).
const TEST_DEPTH: u32 = 2;
/// Call edges below this confidence are not followed (and counted).
const MIN_CONFIDENCE: f32 = nexus_shared::params::FOLLOWED_CONFIDENCE as f32;

pub fn run(ctx: &ToolContext, p: &DiffParams, base: &str) -> Result<String, ToolError> {
    let base = base.trim();
    if base.is_empty() {
        return Err(ToolError::new(ErrorCode::InvalidParams, "`base` is empty")
            .with_hint("name a commit, e.g. \"HEAD\" or \"main\", or leave `base` out"));
    }
    let Some(working) = ctx.working_changes else {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("comparing the working tree with `{base}` needs git: only a repository the bridge serves has it"),
        )
        .with_hint("run `nexus-bridge serve --repo DIR` and load that repository in the tab, or call `diff` without `base` to compare with the previous snapshot"));
    };
    let g = ctx.graph;
    let mut found = changes::read(g, ctx.sources, working);
    found.symbols.retain(|s| {
        wanted(
            p,
            match s.change {
                Change::Added => ChangeType::Added,
                Change::Modified => ChangeType::Modified,
                Change::Deleted => ChangeType::Deleted,
            },
        )
    });
    let start: Vec<u32> = found.symbols.iter().filter_map(|s| s.node).collect();
    let depth = p.depth.unwrap_or(1).clamp(1, MAX_DEPTH);
    let walked = g.walk(
        &start,
        &Walk {
            toward: Toward::Upstream,
            edges: &[EdgeKind::Calls],
            min_confidence: MIN_CONFIDENCE,
            max_depth: depth,
            stop: &|_| false,
            skip: &|n: &NodeRef| is_test(n),
            until: None,
        },
    );
    let mut callers: Vec<(NodeRef, Reached)> = walked
        .reached
        .iter()
        .filter_map(|r| g.node(r.node).map(|n| (n, *r)))
        .filter(|(n, _)| n.kind().is_symbol())
        .collect();
    callers.sort_by(|(a, x), (b, y)| {
        x.depth
            .cmp(&y.depth)
            .then(y.via.confidence.total_cmp(&x.via.confidence))
            .then(a.id.cmp(&b.id))
    });
    let tests = reach(g, &start, depth.max(TEST_DEPTH)).tests;
    let flows: BTreeSet<String> = start
        .iter()
        .flat_map(|&n| processes(g, n))
        .map(|x| x.name().to_owned())
        .collect();
    let count = |c: Change| found.symbols.iter().filter(|s| s.change == c).count();
    let sha: String = working.commit.chars().take(7).collect();
    let summary = format!(
        "{} files changed vs {base} ({sha}): {} symbols modified, {} added, {} deleted; {} callers; {} processes; {} tests",
        found.files.len(),
        count(Change::Modified),
        count(Change::Added),
        count(Change::Deleted),
        callers.len(),
        flows.len(),
        tests.len()
    );
    let mut notes: Vec<String> = kept_note(p).into_iter().collect();
    if working.base.trim() != base {
        notes.push(format!(
            "note: the changes given were taken against `{}`, not `{base}`",
            working.base
        ));
    }
    if walked.cut > 0 {
        notes.push(format!(
            "Lower bound: {} call edges below confidence {MIN_CONFIDENCE} were not followed.",
            walked.cut
        ));
    }
    let view = View {
        found: &found,
        callers: &callers,
        flows: &flows,
        tests: &tests,
    };
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT).max(1) as usize;
    if p.format == Some(Format::Json) {
        return Ok(view.json(working, &summary, &notes, limit, p.max_tokens));
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&summary);
    for note in &notes {
        out.header(note);
    }
    view.markdown(&mut out, depth, limit);
    Ok(out.finish())
}

/// What the answer shows, rendered as Markdown or JSON.
struct View<'v, 'g> {
    found: &'v Changes,
    callers: &'v [(NodeRef<'g>, Reached)],
    flows: &'v BTreeSet<String>,
    tests: &'v BTreeSet<String>,
}

impl View<'_, '_> {
    fn markdown(&self, out: &mut Budget, depth: u32, limit: usize) {
        let symbols = &self.found.symbols;
        section(out, "Changed symbols", symbols.len(), limit);
        for s in symbols.iter().take(limit) {
            let base = if s.change == Change::Deleted {
                " (at base)"
            } else {
                ""
            };
            out.item(&format!(
                "- {} {} `{}` — {}{base}",
                s.change.as_str(),
                s.kind,
                s.id,
                s.at
            ));
        }
        section(out, "Tests to run", self.tests.len(), limit);
        for t in self.tests.iter().take(limit) {
            out.item(&format!("- {t}"));
        }
        section(out, "Processes touched", self.flows.len(), limit);
        for f in self.flows.iter().take(limit) {
            out.item(&format!("- {f}"));
        }
        section(
            out,
            &format!("Callers, depth ≤ {depth}"),
            self.callers.len(),
            limit,
        );
        for (n, r) in self.callers.iter().take(limit) {
            out.item(&format!(
                "- depth {}: {} `{}` — {} · {:.2} {}",
                r.depth,
                n.kind(),
                n.stable_id(),
                n.location(),
                r.via.confidence,
                r.via.reason.as_str()
            ));
        }
        section(out, "Files", self.found.files.len(), limit);
        for f in self.found.files.iter().take(limit) {
            out.item(&format!("- {}", file_line(f)));
        }
    }

    /// The JSON answer, lists cut to `limit` and further (halving) until it fits `max_tokens`.
    fn json(
        &self,
        working: &changes::WorkingChanges,
        summary: &str,
        notes: &[String],
        limit: usize,
        max_tokens: Option<u32>,
    ) -> String {
        let budget = limit_chars(max_tokens);
        let mut shown = limit;
        loop {
            let text = self.json_with(working, summary, notes, shown).to_string();
            if text.len() <= budget || shown == 1 {
                return text;
            }
            shown /= 2;
        }
    }

    fn json_with(
        &self,
        working: &changes::WorkingChanges,
        summary: &str,
        notes: &[String],
        shown: usize,
    ) -> Value {
        let found = self.found;
        let count = |c: Change| found.symbols.iter().filter(|s| s.change == c).count();
        json!({
            "base": working.base, "commit": working.commit, "summary": summary, "notes": notes,
            "symbols": found.symbols.iter().take(shown).map(|s| json!({
                "change": s.change.as_str(), "kind": s.kind.as_str(), "id": s.id, "at": s.at,
            })).collect::<Vec<_>>(),
            "callers": self.callers.iter().take(shown).map(|(n, r)| json!({
                "kind": n.kind().as_str(), "id": n.stable_id(), "at": n.location(), "depth": r.depth,
                "confidence": r.via.confidence,
            })).collect::<Vec<_>>(),
            "processes": self.flows.iter().take(shown).collect::<Vec<_>>(),
            "tests": self.tests.iter().take(shown).collect::<Vec<_>>(),
            "files": found.files.iter().take(shown).map(|f| json!({
                "path": f.path, "status": f.status.as_str(), "old_path": f.old_path, "in_graph": f.in_graph,
                "outside_symbols": f.outside_symbols, "ignored_hunks": f.ignored_hunks,
            })).collect::<Vec<_>>(),
            "totals": {
                "files": found.files.len(), "modified": count(Change::Modified),
                "added": count(Change::Added), "deleted": count(Change::Deleted),
                "callers": self.callers.len(), "processes": self.flows.len(), "tests": self.tests.len(),
            },
            "shown_per_list": shown,
        })
    }
}

/// `path (status, what the graph says about it)`.
fn file_line(f: &FileChange) -> String {
    let mut notes = vec![match &f.old_path {
        Some(old) => format!("{} from {old}", f.status.as_str()),
        None => f.status.as_str().to_owned(),
    }];
    if !f.in_graph {
        notes.push("not in the graph".into());
    }
    if f.outside_symbols {
        notes.push("lines outside any symbol changed".into());
    }
    if f.ignored_hunks > 0 {
        notes.push(format!("{} hunks past its end ignored", f.ignored_hunks));
    }
    format!("{} ({})", f.path, notes.join(", "))
}

#[cfg(test)]
mod tests {
    use super::changes::{ChangedFile, FileStatus, Hunk, WorkingChanges};
    use crate::test_support::{error_code, fixture_files, indexed, text, with_sources};
    use crate::{ToolContext, dispatch};
    use nexus_engine::SourceFile;
    use nexus_shared::ErrorCode;
    use serde_json::{Value, json};

    const PAY_AT_BASE: &str = "def charge(x):\n    return x\n\ndef validate(x):\n    return x\n\ndef refund(x):\n    return -x\n";

    /// The shop fixture with a test of `charge` and a new `shop/ship.py`, as the working tree.
    fn working_tree() -> Vec<SourceFile> {
        let mut files = fixture_files();
        files.push(SourceFile {
            path: "tests/test_pay.py".into(),
            bytes:
                b"from shop.pay import charge\n\ndef test_charge():\n    assert charge(1) == 1\n"
                    .to_vec(),
        });
        files.push(SourceFile {
            path: "shop/ship.py".into(),
            bytes: b"def ship():\n    pass\n\nclass Parcel:\n    pass\n".to_vec(),
        });
        files
    }

    fn file(
        path: &str,
        status: FileStatus,
        hunks: &[(u32, u32)],
        old: Option<&str>,
    ) -> ChangedFile {
        ChangedFile {
            path: path.into(),
            status,
            old_path: None,
            hunks: hunks
                .iter()
                .map(|&(new_start, new_lines)| Hunk {
                    old_start: new_start,
                    old_lines: 1,
                    new_start,
                    new_lines,
                })
                .collect(),
            old_text: old.map(str::to_owned),
        }
    }

    fn changes(files: Vec<ChangedFile>) -> WorkingChanges {
        WorkingChanges {
            base: "HEAD".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            files,
        }
    }

    /// Answers `diff` with `args` over the working tree, given `working` as the git changes.
    fn diff(working: Option<&WorkingChanges>, args: Value) -> nexus_shared::Outcome {
        let (graph, sources) = indexed(working_tree());
        let mut outcome = None;
        with_sources(graph, sources, |ctx| {
            let ctx = ToolContext {
                working_changes: working,
                ..*ctx
            };
            outcome = Some(dispatch(Some(&ctx), "diff", args));
        });
        outcome.unwrap_or(nexus_shared::Outcome::Err(nexus_shared::ToolError::new(
            ErrorCode::Internal,
            "not run",
        )))
    }

    #[test]
    fn a_modified_function_comes_with_its_callers_processes_and_tests() {
        // `charge`'s body changed (line 2); `refund` was deleted from the same file.
        let working = changes(vec![
            file(
                "shop/pay.py",
                FileStatus::Modified,
                &[(2, 1)],
                Some(PAY_AT_BASE),
            ),
            file(
                "README.md",
                FileStatus::Modified,
                &[(1, 1)],
                Some("# Old\n"),
            ),
            // Outside the graph (say, a vendored file): listed, its old symbols not "deleted".
            file(
                "vendor/lib.py",
                FileStatus::Modified,
                &[(1, 1)],
                Some("def f():\n    pass\n"),
            ),
        ]);
        let out = text(diff(Some(&working), json!({"base": "HEAD"})));
        let first = out.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            "3 files changed vs HEAD (0123456): 1 symbols modified, 0 added, 1 deleted; 1 callers; 1 processes; 1 tests",
            "{out}"
        );
        assert!(
            out.contains("- modified Function `Function:shop/pay.py:charge` — shop/pay.py:1\n"),
            "{out}"
        );
        assert!(
            out.contains(
                "- deleted Function `Function:shop/pay.py:refund` — shop/pay.py:7 (at base)"
            ),
            "{out}"
        );
        assert!(!out.contains("validate`"), "untouched symbol listed: {out}");
        assert!(
            out.contains("## Tests to run (1)\n- tests/test_pay.py\n"),
            "{out}"
        );
        assert!(
            out.contains("- depth 1: Method `Method:shop/cart.py:Cart.checkout` — shop/cart.py:7"),
            "{out}"
        );
        assert!(out.contains("## Processes touched (1)\n- main → "), "{out}");
        let deleted = text(diff(
            Some(&working),
            json!({"base": "HEAD", "change_types": ["deleted"]}),
        ));
        assert!(
            deleted.starts_with(
                "3 files changed vs HEAD (0123456): 0 symbols modified, 0 added, 1 deleted; 0 callers; 0 processes; 0 tests\nOnly deleted changes (change_types)."
            ),
            "{deleted}"
        );
        assert!(
            out.contains(
                "- README.md (modified, not in the graph)\n- vendor/lib.py (modified, not in the graph)\n"
            ),
            "{out}"
        );
        let deeper = text(diff(Some(&working), json!({"base": "HEAD", "depth": 2})));
        assert!(
            deeper.contains("- depth 2: Function `Function:shop/cart.py:main`"),
            "{deeper}"
        );
        let value: Value = serde_json::from_str(&text(diff(
            Some(&working),
            json!({"base": "HEAD", "format": "json"}),
        )))
        .unwrap_or_default();
        assert_eq!(value["totals"]["modified"], 1, "{value}");
        assert_eq!(value["symbols"][0]["id"], "Function:shop/pay.py:charge");
        assert_eq!(
            value["callers"][0]["id"],
            "Method:shop/cart.py:Cart.checkout"
        );
        assert_eq!(value["tests"], json!(["tests/test_pay.py"]));
    }

    #[test]
    fn added_and_deleted_files_list_all_their_symbols() {
        let working = changes(vec![
            file("shop/ship.py", FileStatus::Added, &[(1, 5)], None),
            file(
                "shop/old.py",
                FileStatus::Deleted,
                &[(0, 0)],
                Some("def legacy():\n    pass\n\nclass Old:\n    def gone(self):\n        pass\n"),
            ),
            file("docs/notes.txt", FileStatus::Deleted, &[], None),
        ]);
        let out = text(diff(Some(&working), json!({"base": "main"})));
        assert!(
            out.starts_with(
                "3 files changed vs main (0123456): 0 symbols modified, 2 added, 3 deleted;"
            ),
            "{out}"
        );
        for line in [
            "- added Function `Function:shop/ship.py:ship` — shop/ship.py:1\n",
            "- added Class `Class:shop/ship.py:Parcel` — shop/ship.py:4\n",
            "- deleted Function `Function:shop/old.py:legacy` — shop/old.py:1 (at base)\n",
            "- deleted Method `Method:shop/old.py:Old.gone` — shop/old.py:5 (at base)\n",
            "- shop/ship.py (added)\n",
            "- shop/old.py (deleted)\n",
            "- docs/notes.txt (deleted, not in the graph)\n",
        ] {
            assert!(out.contains(line), "{line} missing from {out}");
        }
    }

    #[test]
    fn lines_outside_symbols_go_to_the_file_and_new_symbols_are_added() {
        // An import line changed (outside every symbol), and `validate` is new since the base.
        let working = changes(vec![file(
            "shop/pay.py",
            FileStatus::Modified,
            &[(3, 0)],
            Some("def charge(x):\n    return validate(x)\n"),
        )]);
        let out = text(diff(Some(&working), json!({"base": "HEAD"})));
        assert!(
            out.contains("- added Function `Function:shop/pay.py:validate`"),
            "{out}"
        );
        assert!(!out.contains("modified Function"), "{out}");
        assert!(
            out.contains("- shop/pay.py (modified, lines outside any symbol changed)"),
            "{out}"
        );
    }

    #[test]
    fn a_renamed_file_names_its_old_path_and_what_left_it() {
        let mut moved = file(
            "shop/ship.py",
            FileStatus::Renamed,
            &[(2, 1)],
            Some(
                "def ship():\n    return 1\n\nclass Parcel:\n    pass\n\ndef track():\n    pass\n",
            ),
        );
        moved.old_path = Some("shop/post.py".into());
        let out = text(diff(Some(&changes(vec![moved])), json!({"base": "HEAD"})));
        assert!(
            out.starts_with(
                "1 files changed vs HEAD (0123456): 1 symbols modified, 0 added, 1 deleted;"
            ),
            "{out}"
        );
        assert!(
            out.contains("- modified Function `Function:shop/ship.py:ship` — shop/ship.py:1\n"),
            "{out}"
        );
        assert!(
            out.contains(
                "- deleted Function `Function:shop/post.py:track` — shop/post.py:7 (at base)"
            ),
            "{out}"
        );
        assert!(
            out.contains("- shop/ship.py (renamed from shop/post.py)\n"),
            "{out}"
        );
    }

    #[test]
    fn base_without_the_bridges_repository_is_a_clear_error() {
        let outcome = diff(None, json!({"base": "HEAD"}));
        let nexus_shared::Outcome::Err(err) = outcome else {
            panic!("expected an error");
        };
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert!(
            err.message.contains("`HEAD`") && err.message.contains("git"),
            "{err}"
        );
        assert!(
            err.hint
                .as_deref()
                .is_some_and(|h| h.contains("nexus-bridge serve --repo DIR")),
            "{err:?}"
        );
        assert_eq!(
            error_code(diff(None, json!({"base": " "}))),
            ErrorCode::InvalidParams
        );
        assert_eq!(
            error_code(diff(None, json!({"base": "HEAD", "depth": "deep"}))),
            ErrorCode::InvalidParams
        );
    }

    #[test]
    fn malformed_hunks_give_a_sane_answer() {
        let huge = u32::MAX;
        let working = WorkingChanges {
            base: "HEAD".into(),
            commit: String::new(),
            files: vec![
                file(
                    "shop/pay.py",
                    FileStatus::Modified,
                    &[(0, 0), (0, huge), (huge, huge), (40, 3)],
                    Some("\u{0}((( def"),
                ),
                file(
                    "shop/cart.py",
                    FileStatus::Renamed,
                    &[(huge, 0), (9_999, 1)],
                    None,
                ),
                file("", FileStatus::Added, &[(1, huge)], Some("")),
                file(
                    "../../etc/passwd",
                    FileStatus::Deleted,
                    &[(huge, 0)],
                    Some("x"),
                ),
            ],
        };
        let out = text(diff(Some(&working), json!({"base": "main", "depth": 99})));
        assert!(out.starts_with("4 files changed vs main (): "), "{out}");
        assert!(
            out.contains("note: the changes given were taken against `HEAD`, not `main`"),
            "{out}"
        );
        assert!(
            out.contains("- shop/cart.py (renamed, 2 hunks past its end ignored)"),
            "{out}"
        );
        assert!(out.contains("shop/pay.py (modified, lines outside any symbol changed, 2 hunks past its end ignored)"), "{out}");
        let one = text(diff(Some(&working), json!({"base": "HEAD", "limit": 0})));
        assert!(one.contains("## Files (4, first 1)"), "{one}");
        let small = text(diff(
            Some(&working),
            json!({"base": "HEAD", "format": "json", "max_tokens": 1}),
        ));
        assert!(serde_json::from_str::<Value>(&small).is_ok(), "{small}");
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Whatever the bridge sends, `diff` answers and never panics.
        #[test]
        fn random_working_changes_never_panic(
            files in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["shop/pay.py", "shop/cart.py", "shop/ship.py", "README.md", "", "nope.rs", "tests/test_pay.py"]),
                    proptest::sample::select(vec![FileStatus::Modified, FileStatus::Added, FileStatus::Deleted, FileStatus::Renamed]),
                    proptest::option::of(proptest::sample::select(vec!["shop/old.go", "a.ts", "x"])),
                    proptest::collection::vec(proptest::array::uniform4(proptest::prop_oneof![0u32..40, proptest::prelude::any::<u32>()]), 0..6),
                    proptest::option::of("(def f\\(\\):\n    pass\n|class C:\n  def m\\(s\\): pass\n|fn x\\(\\) \\{\\}\n|\\}\\{\\(|[a-z \n]){0,12}"),
                ),
                0..6,
            ),
            json_format in proptest::prelude::any::<bool>(),
            max_tokens in proptest::option::of(0u32..3000),
            limit in proptest::option::of(0u32..5),
        ) {
            let working = WorkingChanges {
                base: "HEAD".into(),
                commit: "abc".into(),
                files: files
                    .into_iter()
                    .map(|(path, status, old_path, hunks, old_text)| ChangedFile {
                        path: path.into(),
                        status,
                        old_path: old_path.map(str::to_owned),
                        hunks: hunks
                            .into_iter()
                            .map(|[old_start, old_lines, new_start, new_lines]| Hunk { old_start, old_lines, new_start, new_lines })
                            .collect(),
                        old_text,
                    })
                    .collect(),
            };
            let format = if json_format { "json" } else { "markdown" };
            let out = text(diff(
                Some(&working),
                json!({"base": "HEAD", "format": format, "max_tokens": max_tokens, "limit": limit}),
            ));
            if json_format {
                proptest::prop_assert!(serde_json::from_str::<Value>(&out).is_ok(), "{}", out);
            } else {
                proptest::prop_assert!(out.contains(" files changed vs HEAD (abc): "), "{}", out);
            }
        }
    }
}
