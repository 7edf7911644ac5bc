//! The writer on real directories: plans, ownership, hostile markers and journals, links, and a kill at every
//! step of a run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::journal::{JOURNAL, Journal};
use super::*;

fn tree(files: &[(&str, &str)]) -> DesiredTree {
    let mut t = DesiredTree::default();
    for (p, c) in files {
        t.insert(*p, c.as_bytes());
    }
    t
}

#[test]
fn first_write_then_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    let desired = tree(&[("clusters/a/x.yaml", "x"), ("clusters/b/y.yaml", "y")]);
    let plan = Plan::compute(&root, &desired, Ownership::Marked).unwrap();
    assert_eq!(plan.changes().len(), 2);
    plan.apply().unwrap();
    assert_eq!(std::fs::read_to_string(root.join("clusters/a/x.yaml")).unwrap(), "x");
    assert!(Plan::compute(&root, &desired, Ownership::Marked).unwrap().is_up_to_date());
}

#[test]
fn stale_files_removed_but_user_files_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    Plan::compute(root, &tree(&[("c/a/x.yaml", "x"), ("c/a/old.yaml", "o"), ("c/b/y.yaml", "y")]), Ownership::Marked)
        .unwrap()
        .apply()
        .unwrap();
    std::fs::write(root.join("c/a/mine.txt"), "user").unwrap();
    std::fs::write(root.join("c/b/notes.md"), "user").unwrap();
    let plan = Plan::compute(root, &tree(&[("c/a/x.yaml", "x2")]), Ownership::Marked).unwrap();
    assert_eq!(
        plan.changes(),
        &[
            Change::Delete("c/a/old.yaml".into()),
            Change::Update("c/a/x.yaml".into()),
            Change::Delete("c/b/y.yaml".into())
        ]
    );
    plan.apply().unwrap();
    assert!(root.join("c/a/mine.txt").exists());
    assert!(root.join("c/b/notes.md").exists(), "user file in a dropped directory survives");
    assert!(!root.join("c/b/y.yaml").exists());
    assert!(!root.join("c/a/old.yaml").exists());
}

#[test]
fn refuses_to_overwrite_unowned_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("c/a")).unwrap();
    std::fs::write(root.join("c/a/x.yaml"), "user").unwrap();
    let err = Plan::compute(root, &tree(&[("c/a/x.yaml", "x")]), Ownership::Marked).unwrap_err();
    assert!(matches!(err, TreeError::NotOwned(_)), "{err}");
    assert_eq!(std::fs::read_to_string(root.join("c/a/x.yaml")).unwrap(), "user");
}

#[test]
fn out_dir_that_is_a_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    assert!(matches!(
        Plan::compute(&file, &tree(&[("a/b", "c")]), Ownership::Marked),
        Err(TreeError::NotADirectory(_))
    ));
    std::fs::create_dir_all(dir.path().join("d")).unwrap();
    std::fs::write(dir.path().join("d/a"), "x").unwrap();
    assert!(matches!(
        Plan::compute(&dir.path().join("d"), &tree(&[("a/b", "c")]), Ownership::Marked),
        Err(TreeError::FileInTheWay(_))
    ));
}

/// Every file below `dir` (not following links) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn hostile_marker_entries_delete_nothing() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("out");
    let victim = work.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    Plan::compute(&root, &tree(&[("c/a/x.yaml", "x")]), Ownership::Marked).unwrap().apply().unwrap();
    for entry in ["../../victim", victim.to_str().unwrap()] {
        std::fs::write(root.join("c/a").join(OWNER_MARKER), format!("# ours\nx.yaml\n{entry}\n")).unwrap();
        let err = Plan::compute(&root, &tree(&[("c/b/y.yaml", "y")]), Ownership::Marked).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, TreeError::BadMarker { line: 3, .. }), "{message}");
        assert!(message.contains(&format!("c/a/{OWNER_MARKER}:3: `{entry}`")), "{message}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(root.join("c/a/x.yaml")).unwrap(), "x");
    }
}

#[cfg(unix)]
#[test]
fn symlinked_subdirectory_is_not_followed() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("out");
    let elsewhere = work.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(root.join("c")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("c/a")).unwrap();
    let err = Plan::compute(&root, &tree(&[("c/a/x.yaml", "x")]), Ownership::Marked).unwrap_err();
    assert!(matches!(&err, TreeError::Symlink(p) if p.ends_with("c/a")), "{err}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    // An owned directory behind a link is not walked into either: its marker is never read.
    std::fs::write(elsewhere.join(OWNER_MARKER), "victim\n").unwrap();
    std::fs::write(elsewhere.join("victim"), "v").unwrap();
    let plan = Plan::compute(&root, &tree(&[("d/x.yaml", "x")]), Ownership::Marked).unwrap();
    assert!(plan.changes().iter().all(|c| !matches!(c, Change::Delete(_))), "{:?}", plan.changes());
    plan.apply().unwrap();
    assert!(elsewhere.join("victim").exists());
}

#[test]
fn desired_paths_must_stay_inside() {
    for path in ["../escaped/x.yaml", "/abs/x.yaml", "a/.kubectl-capz-owned"] {
        let err = Plan::compute(Path::new("/nonexistent-out"), &tree(&[(path, "x")]), Ownership::Marked).unwrap_err();
        assert!(matches!(err, TreeError::BadPath { .. }), "{path}: {err}");
    }
}

/// File contents by path.
type Files = BTreeMap<PathBuf, Vec<u8>>;

/// Writes `old` into `root` with the user's files beside it; returns the tree before and the tree a run
/// writing `new` over it leaves (computed in a copy).
fn old_and_new(
    root: &Path,
    ownership: Ownership,
    old: &DesiredTree,
    user: &[&str],
    new: &DesiredTree,
) -> (Files, Files) {
    let write_old = |root: &Path| {
        Plan::compute(root, old, ownership).unwrap().apply().unwrap();
        for path in user {
            std::fs::write(root.join(path), "user").unwrap();
        }
    };
    write_old(root);
    let before = snapshot(root);
    let copy = tempfile::tempdir().unwrap();
    let copy_root = copy.path().join("out");
    write_old(&copy_root);
    Plan::compute(&copy_root, new, ownership).unwrap().apply().unwrap();
    (before, snapshot(&copy_root))
}

/// A kill at every step of a run writing `new` over `old`, then the next run's recovery: the tree is the old one
/// or the new one, byte for byte, with nothing left behind. Returns how many kills ended on each side.
fn interrupted_at_every_step(ownership: Ownership, old: &DesiredTree, user: &[&str], new: &DesiredTree) -> (u32, u32) {
    let mut step = 0;
    let mut seen = (0, 0);
    loop {
        let work = tempfile::tempdir().unwrap();
        let root = work.path().join("out");
        let (before, after) = old_and_new(&root, ownership, old, user, new);
        let plan = Plan::compute(&root, new, ownership).unwrap();
        let mut count = 0;
        let completed = plan
            .apply_with(false, &mut || {
                count += 1;
                count > step
            })
            .unwrap();
        if completed {
            assert_eq!(snapshot(&root), after);
            return seen;
        }
        let journal = Journal::read(&root).unwrap();
        let state = journal.as_ref().map(|j| j.state);
        if matches!(state, None | Some(JournalState::Staging)) {
            let visible: BTreeMap<_, _> = snapshot(&root)
                .into_iter()
                .filter(|(p, _)| !p.file_name().unwrap().to_string_lossy().starts_with(".kubectl-capz-new"))
                .filter(|(p, _)| !p.file_name().unwrap().to_string_lossy().starts_with(".kubectl-capz-old"))
                .filter(|(p, _)| !p.ends_with(JOURNAL))
                .collect();
            assert_eq!(visible, before, "step {step}: staging changes nothing a user sees");
        }
        let recovery = transaction::recover(&root, ownership).unwrap();
        let result = snapshot(&root);
        if result == before {
            seen.0 += 1;
            assert!(state.is_none() || matches!(recovery, Some(Recovery::RolledBack(_))), "step {step}");
        } else {
            assert_eq!(result, after, "step {step} ({state:?}): neither old nor new");
            seen.1 += 1;
        }
        // And the next run finds nothing to clean.
        let plan = Plan::compute(&root, new, ownership).unwrap();
        assert!(plan.leftovers().is_empty(), "step {step}: {:?}", plan.leftovers());
        step += 1;
    }
}

/// Marked directories: a file to update, one to delete, a directory to drop and one to add, user files kept.
#[test]
fn interrupted_at_every_step_recovers_to_old_or_new() {
    let old = tree(&[("c/a/x.yaml", "x1"), ("c/a/gone.yaml", "g"), ("c/b/y.yaml", "y"), ("c/k/same.yaml", "s")]);
    let new = tree(&[("c/a/x.yaml", "x2"), ("c/k/same.yaml", "s"), ("d/n/z.yaml", "z")]);
    let seen = interrupted_at_every_step(Ownership::Marked, &old, &["README.md", "c/a/notes.md"], &new);
    assert!(seen.0 >= 5 && seen.1 >= 5, "crash points on both sides of the switch: {seen:?}");
}

/// A directory owned whole (`render --out-dir`): a file to update, one to delete, one to add, no marker.
#[test]
fn interrupted_at_every_step_of_a_whole_directory_recovers_to_old_or_new() {
    let old = tree(&[("01-a.yaml", "x1"), ("02-gone.yaml", "g"), ("03-same.yaml", "s")]);
    let new = tree(&[("01-a.yaml", "x2"), ("03-same.yaml", "s"), ("04-new.yaml", "z")]);
    let seen = interrupted_at_every_step(WHOLE, &old, &[], &new);
    assert!(seen.0 >= 4 && seen.1 >= 4, "crash points on both sides of the switch: {seen:?}");
}

/// Whether a test file is one of a directory owned whole: `NN-*`.
fn numbered(name: &str) -> bool {
    name.len() > 3 && name.as_bytes()[..2].iter().all(u8::is_ascii_digit) && name.as_bytes()[2] == b'-'
}

const WHOLE: Ownership = Ownership::Whole { is_ours: numbered };

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// A directory owned whole holds exactly the last run's files (no marker); anything else in it (a user's file, a
/// directory, a marker of a shared tree) refuses the run, naming the entry, and changes nothing.
#[test]
fn whole_directory_replaces_its_files_and_refuses_anything_else() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("out");
    write(&root, &tree(&[("01-a.yaml", "a"), ("02-b.yaml", "b")]), WHOLE).unwrap();
    assert_eq!(listing(&root), ["01-a.yaml", "02-b.yaml"]);
    let plan = write(&root, &tree(&[("01-a.yaml", "a2")]), WHOLE).unwrap();
    assert_eq!(plan.changes(), &[Change::Update("01-a.yaml".into()), Change::Delete("02-b.yaml".into())]);
    assert_eq!(listing(&root), ["01-a.yaml"]);
    for (entry, is_dir) in [("notes.txt", false), ("02-sub.yaml", true), (OWNER_MARKER, false)] {
        let path = root.join(entry);
        if is_dir {
            std::fs::create_dir(&path).unwrap();
        } else {
            std::fs::write(&path, "01-a.yaml\n").unwrap();
        }
        let before = snapshot(&root);
        let err = write(&root, &tree(&[("01-a.yaml", "a3")]), WHOLE).unwrap_err();
        assert!(matches!(&err, TreeError::Foreign { name, .. } if name == entry), "{err}");
        assert!(err.to_string().contains(&format!("contains `{entry}`")), "{err}");
        assert_eq!(snapshot(&root), before, "{entry}: nothing changed");
        assert_eq!(std::fs::read_to_string(root.join("01-a.yaml")).unwrap(), "a2");
        if path.is_dir() {
            std::fs::remove_dir(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
    // Only files directly in the directory.
    let err = Plan::compute(&root, &tree(&[("sub/01-a.yaml", "a")]), WHOLE).unwrap_err();
    assert!(matches!(err, TreeError::BadPath { .. }), "{err}");
}

/// A run into a new directory that fails leaves no directory; the staging directories beside the output that an
/// earlier version's render left are removed when they hold only its files.
#[test]
fn whole_directory_failure_and_earlier_staging_directories() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("out");
    let long = format!("02-{}.yaml", "x".repeat(300));
    let err = write(&root, &tree(&[("01-a.yaml", "a"), (long.as_str(), "b")]), WHOLE).unwrap_err();
    assert!(matches!(err, TreeError::BadPath { .. }), "{err}");
    assert!(!root.exists() && listing(work.path()).is_empty());
    for (dir, file) in [(".out.new-AbC123", "01-a.yaml"), (".out.old-XyZ789", "01-a.yaml"), (".out.new-mine", "notes")]
    {
        std::fs::create_dir(work.path().join(dir)).unwrap();
        std::fs::write(work.path().join(dir).join(file), "half").unwrap();
    }
    let plan = Plan::compute(&root, &tree(&[("01-a.yaml", "a")]), WHOLE).unwrap();
    assert!(!plan.is_up_to_date());
    plan.apply().unwrap();
    assert_eq!(listing(work.path()), [".out.new-mine", "out"]);
}

/// The output directory itself may not be a symbolic link, in either ownership: nothing is written where it points.
#[cfg(unix)]
#[test]
fn symlinked_output_directory_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let real = work.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = work.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    for ownership in [Ownership::Marked, WHOLE] {
        let err = write(&link, &tree(&[("01-a.yaml", "a")]), ownership).unwrap_err();
        assert!(matches!(err, TreeError::SymlinkedRoot(_)), "{err}");
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        let planned = Plan::compute(&link, &tree(&[("01-a.yaml", "a")]), ownership);
        assert!(matches!(planned, Err(TreeError::SymlinkedRoot(_))));
    }
    assert!(matches!(inspect(&link), Err(TreeError::SymlinkedRoot(_))));
    assert!(listing(&real).is_empty());
}

#[test]
fn leftover_temporaries_are_found_and_removed() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("out");
    let desired = tree(&[("c/a/x.yaml", "x")]);
    Plan::compute(&root, &desired, Ownership::Marked).unwrap().apply().unwrap();
    // What the earlier tempfile-based writer left when killed, and a stray of this one.
    std::fs::write(root.join("c/a/.kubectl-capz-Ab3xYz"), "half").unwrap();
    std::fs::create_dir_all(root.join("c/new")).unwrap();
    std::fs::write(root.join("c/new/.kubectl-capz-new.1.0"), "half").unwrap();
    let plan = Plan::compute(&root, &desired, Ownership::Marked).unwrap();
    assert!(!plan.is_up_to_date());
    assert_eq!(plan.leftovers(), &[PathBuf::from("c/a/.kubectl-capz-Ab3xYz"), "c/new/.kubectl-capz-new.1.0".into()]);
    plan.apply().unwrap();
    assert!(Plan::compute(&root, &desired, Ownership::Marked).unwrap().is_up_to_date());
    assert!(!root.join("c/a/.kubectl-capz-Ab3xYz").exists());
}

#[test]
fn forged_journal_changes_nothing_outside_or_unowned() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("out");
    Plan::compute(&root, &tree(&[("c/a/x.yaml", "x")]), Ownership::Marked).unwrap().apply().unwrap();
    std::fs::write(work.path().join("victim"), "v").unwrap();
    std::fs::write(root.join("kubeconfig"), "mine").unwrap();
    for (body, needle) in [
        ("state\tswitching\nrun\tab\ndelete\t..\tvictim\t.kubectl-capz-old.ab.0\nend\n", "contains `..`"),
        ("state\tswitching\nrun\tab\ndelete\t.\tkubeconfig\t.kubectl-capz-old.ab.0\nend\n", "which no"),
    ] {
        std::fs::write(root.join(JOURNAL), body).unwrap();
        let err = OutDir::open(&root, Ownership::Marked).unwrap_err();
        assert!(matches!(err, TreeError::BadJournal { .. }), "{err}");
        assert!(err.to_string().contains(needle), "{err}");
        assert!(work.path().join("victim").exists() && root.join("kubeconfig").exists());
    }
}

/// In a directory owned whole, recovery changes only the root's files a run writes: a journal naming another file
/// there, or one in a subdirectory (a shared tree's journal), changes nothing.
#[test]
fn forged_journal_of_a_whole_directory_changes_nothing_else() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("out");
    write(&root, &tree(&[("01-a.yaml", "a")]), WHOLE).unwrap();
    std::fs::create_dir(root.join("c")).unwrap();
    std::fs::write(root.join("c/01-x.yaml"), "mine").unwrap();
    std::fs::write(root.join("kubeconfig"), "mine").unwrap();
    for body in [
        "state\tswitching\nrun\tab\ndelete\t.\tkubeconfig\t.kubectl-capz-old.ab.0\nend\n",
        "state\tswitching\nrun\tab\ndelete\tc\t01-x.yaml\t.kubectl-capz-old.ab.0\nend\n",
    ] {
        std::fs::write(root.join(JOURNAL), body).unwrap();
        let err = OutDir::open(&root, WHOLE).unwrap_err();
        assert!(err.to_string().contains("which is not a file kubectl-capz writes there"), "{err}");
        assert!(root.join("kubeconfig").exists() && root.join("c/01-x.yaml").exists());
        assert!(root.join("01-a.yaml").exists());
    }
}
