//! The output directories as a trust boundary and an atomic unit. `render --fleet`: hostile markers, names
//! and links change nothing outside the out-dir; a kill, a full disk or a refused write leaves the old tree or
//! the new one; concurrent runs are refused. `render --out-dir`: leftovers of the earlier writer removed, no link
//! followed; and the three commands agree about a linked out-dir. Each case reproduces the attack or the fault
//! first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support;

/// The binary under test; `FLEET_OUT_DIR_TEST_BIN` replays these tests against another build (e.g. main's
/// before this hardening, where each attack succeeds).
fn bin() -> String {
    std::env::var("FLEET_OUT_DIR_TEST_BIN").unwrap_or_else(|_| support::capz_bin().display().to_string())
}

fn capz() -> Command {
    let mut cmd = Command::new(bin());
    cmd.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd
}

fn render(fleet: &Path, out: &Path, extra: &[&str]) -> Output {
    capz().arg("render").args(extra).arg("--fleet").arg(fleet).arg("--out-dir").arg(out).output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[track_caller]
fn assert_exit(output: &Output, code: i32) {
    assert_eq!(output.status.code(), Some(code), "stderr:\n{}", stderr(output));
}

/// Every file below `dir` (links not followed, recorded as `-> target`) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                files.insert(rel, format!("-> {}", std::fs::read_link(&path).unwrap().display()).into_bytes());
            } else if kind.is_dir() {
                stack.push(path);
            } else {
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// Asserts two trees are the same, naming the paths that differ (not dumping their bytes).
#[track_caller]
fn assert_same_tree(got: &BTreeMap<PathBuf, Vec<u8>>, want: &BTreeMap<PathBuf, Vec<u8>>, what: &str) {
    if got == want {
        return;
    }
    let differ: Vec<String> = got
        .keys()
        .chain(want.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|p| got.get(*p) != want.get(*p))
        .take(12)
        .map(|p| {
            let state = match (got.contains_key(p), want.contains_key(p)) {
                (true, false) => "unexpected",
                (false, true) => "missing",
                _ => "different",
            };
            format!("{state} {}", p.display())
        })
        .collect();
    panic!("{what}: the trees differ (first 12):\n  {}", differ.join("\n  "));
}

fn reserved(tree: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<&PathBuf> {
    tree.keys()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(".kubectl-capz-") && name != ".kubectl-capz-owned"
        })
        .collect()
}

/// A fleet of `n` aks-aso clusters over 4 namespaces, every node pool with `replicas`.
fn write_fleet(dir: &Path, n: usize, replicas: u32, extra: &str) -> PathBuf {
    let mut text = String::from(
        "apiVersion: kubectl-capz/v1alpha1\nkind: Fleet\ndefaults:\n  kubernetesVersion: v1.33.2\n  location: westeurope\n  asoCredentialSecret:\n    name: aso-credentials\n  poolDefaults:\n    vmSize: Standard_D4s_v5\n",
    );
    text.push_str(&format!("    replicas: {replicas}\n"));
    text.push_str(extra);
    text.push_str("clusters:\n");
    for i in 0..n {
        text.push_str(&format!("- name: c{i:04}\n  namespace: team-{}\n  flavor: aks-aso\n", i % 4));
    }
    let path = dir.join("fleet.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A marker line with `../../victim` or an absolute path: exit 2 naming the marker and line, the victim
/// outside the output directory survives, nothing in the tree changes (and `--check` says the same).
#[test]
fn hostile_marker_entries_delete_nothing() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let victim = work.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    // The fleet file decides the GitOps objects (flux: a marker in flux/clusters too).
    let fleet = write_fleet(work.path(), 3, 1, "gitops:\n  kind: flux\n");
    assert_exit(&render(&fleet, &out, &[]), 0);
    // Two clusters fewer: a run deletes what the markers list and no longer renders (deletions allowed, so
    // the hostile marker is the only reason to refuse).
    let fleet = write_fleet(work.path(), 1, 1, "gitops:\n  kind: flux\n");
    let marker = out.join("flux/clusters/.kubectl-capz-owned");
    let original = std::fs::read_to_string(&marker).unwrap();
    // From flux/clusters, `../../victim` is the file beside the output directory.
    for entry in ["../../victim".to_string(), victim.display().to_string()] {
        std::fs::write(&marker, format!("{original}{entry}\n")).unwrap();
        let line = original.lines().count() + 1;
        let before = snapshot(&out);
        for extra in [&["--allow-deletions"][..], &["--check"][..]] {
            let output = render(&fleet, &out, extra);
            assert_exit(&output, 2);
            let message = stderr(&output);
            assert!(message.contains(&format!("{}:{line}: `{entry}`", marker.display())), "{message}");
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
            assert_same_tree(&snapshot(&out), &before, "nothing deleted or written");
        }
    }
}

/// Path-forming names of the fleet file are checked even with `--no-validate`: nothing is written anywhere.
#[test]
fn path_forming_names_are_checked_even_without_validation() {
    let work = tempfile::tempdir().unwrap();
    let deep = work.path().join("a/b/c");
    std::fs::create_dir_all(&deep).unwrap();
    let out = deep.join("repo");
    let cases = [
        (
            "clusterClasses:\n- name: ../../../escaped\n  class: aks-aso\n",
            "clusterClasses.0.name: ClusterClass name `../../../escaped` is not allowed",
        ),
        ("clusterClasses:\n- name: std\n  namespace: /tmp\n  class: aks-aso\n", "namespace `/tmp` is not allowed"),
        ("clusterClasses:\n- name: std\n  class: ../aks-aso\n", "class `../aks-aso` is not allowed"),
    ];
    for (extra, expected) in cases {
        let fleet = write_fleet(&deep, 1, 1, extra);
        let output = render(&fleet, &out, &["--no-validate"]);
        assert_exit(&output, 2);
        assert!(stderr(&output).contains(expected), "{expected}: {}", stderr(&output));
        assert!(stderr(&output).contains("fleet.yaml:"), "{}", stderr(&output));
        assert!(!out.exists());
        assert!(!work.path().join("a/escaped").exists() && !work.path().join("escaped").exists());
    }
    let fleet = deep.join("fleet.yaml");
    let text = std::fs::read_to_string(write_fleet(&deep, 2, 1, "")).unwrap().replace("name: c0001", "name: ../../x");
    std::fs::write(&fleet, text).unwrap();
    let output = render(&fleet, &out, &["--no-validate"]);
    assert_exit(&output, 2);
    assert!(stderr(&output).contains("cluster name `../../x` is not allowed"), "{}", stderr(&output));
    assert!(!out.exists());
}

/// A symbolic link to a directory outside, in place of a cluster directory: refused, nothing written
/// through it.
#[cfg(unix)]
#[test]
fn symlinked_subdirectory_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let fleet = write_fleet(work.path(), 4, 1, "");
    assert_exit(&render(&fleet, &out, &["--no-validate"]), 0);
    let elsewhere = work.path().join("elsewhere");
    std::fs::rename(out.join("clusters/team-1"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("clusters/team-1")).unwrap();
    let outside = snapshot(&elsewhere);
    let before = snapshot(&out);
    let fleet = write_fleet(work.path(), 4, 2, "");
    for extra in [&["--no-validate"][..], &["--no-validate", "--check"][..]] {
        let output = render(&fleet, &out, extra);
        assert_exit(&output, 2);
        assert!(stderr(&output).contains("is a symbolic link"), "{}", stderr(&output));
        assert_same_tree(&snapshot(&elsewhere), &outside, "tree");
        assert_same_tree(&snapshot(&out), &before, "tree");
    }
}

/// Another run holding the output directory: refused with exit 2, the tree untouched.
#[test]
fn concurrent_run_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let fleet = write_fleet(work.path(), 2, 1, "");
    assert_exit(&render(&fleet, &out, &["--no-validate"]), 0);
    let before = snapshot(&out);
    // The same lock a running kubectl-capz takes: flock on the directory.
    let held = std::fs::File::open(&out).unwrap();
    held.try_lock().unwrap();
    let fleet = write_fleet(work.path(), 2, 3, "");
    let output = render(&fleet, &out, &["--no-validate"]);
    assert_exit(&output, 2);
    assert!(stderr(&output).contains("another kubectl-capz run is writing"), "{}", stderr(&output));
    assert_same_tree(&snapshot(&out), &before, "tree");
    held.unlock().unwrap();
    assert_exit(&render(&fleet, &out, &["--no-validate"]), 0);
}

/// Temporary files an earlier (killed) run left: `--check` lists them, the next run removes them.
#[test]
fn leftover_temporaries_are_reported_and_removed() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let fleet = write_fleet(work.path(), 2, 1, "");
    assert_exit(&render(&fleet, &out, &["--no-validate"]), 0);
    let stray = out.join("clusters/team-1/c0001/.kubectl-capz-Xy12Ab");
    std::fs::write(&stray, "half a file").unwrap();
    let output = render(&fleet, &out, &["--no-validate", "--check"]);
    assert_exit(&output, 1);
    assert_eq!(String::from_utf8_lossy(&output.stdout), format!("leftover {}\n", stray.display()));
    let output = render(&fleet, &out, &["--no-validate"]);
    assert_exit(&output, 0);
    assert!(stderr(&output).contains("removed 1 leftover files"), "{}", stderr(&output));
    assert!(!stray.exists());
    assert_exit(&render(&fleet, &out, &["--no-validate", "--check"]), 0);
}

/// Runs `command` (a shell-free argv) and tells whether it succeeded, for the test's own setup steps.
fn setup(program: &str, args: &[&str]) -> Result<(), String> {
    match Command::new(program).args(args).stdin(Stdio::null()).output() {
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => {
            Err(format!("`{program} {}` failed: {}", args.join(" "), String::from_utf8_lossy(&output.stderr)))
        }
        Err(err) => Err(format!("cannot run `{program}`: {err}")),
    }
}

/// Unmounts (lazily) when dropped, so a failing assertion does not leave a mount behind.
struct Mounted(PathBuf);
impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).output();
    }
}

/// A full disk (a 1 MiB tmpfs): the run fails with exit 2 naming the write, the old tree is intact and no
/// temporary file or empty directory is left; into a new directory, no directory at all is left.
#[test]
fn full_disk_leaves_the_old_tree() {
    let work = tempfile::tempdir().unwrap();
    let mnt = work.path().join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    if let Err(reason) = setup("mount", &["-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt.to_str().unwrap()]) {
        println!("SKIPPED full_disk_leaves_the_old_tree: cannot mount a 1 MiB tmpfs: {reason}");
        return;
    }
    let _mounted = Mounted(mnt.clone());
    let out = mnt.join("repo");
    let small = write_fleet(work.path(), 8, 1, "");
    assert_exit(&render(&small, &out, &["--no-validate"]), 0);
    let before = snapshot(&out);
    let mut dirs_before = walkdirs(&out);
    dirs_before.sort();
    let big = write_fleet(work.path(), 300, 2, "");
    let output = render(&big, &out, &["--no-validate"]);
    assert_exit(&output, 2);
    assert!(stderr(&output).contains("No space left on device"), "{}", stderr(&output));
    assert_same_tree(&snapshot(&out), &before, "the old tree, nothing left behind");
    let mut dirs = walkdirs(&out);
    dirs.sort();
    assert!(
        dirs == dirs_before,
        "{} directories, expected the old tree's {} (first: {:?})",
        dirs.len(),
        dirs_before.len(),
        dirs.iter().take(5).collect::<Vec<_>>()
    );
    let output = render(&big, &out, &["--no-validate", "--check"]);
    assert_exit(&output, 1);
    assert!(!stderr(&output).contains("interrupted"), "{}", stderr(&output));

    let fresh = mnt.join("fresh");
    assert_exit(&render(&big, &fresh, &["--no-validate"]), 2);
    assert!(!fresh.exists(), "a run into a new directory that fails leaves no directory");
    // The disk has the old tree's room again: a run that fits still succeeds.
    let small2 = write_fleet(work.path(), 8, 3, "");
    assert_exit(&render(&small2, &out, &["--no-validate"]), 0);
}

fn walkdirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                dirs.push(entry.path());
                stack.push(entry.path());
            }
        }
    }
    dirs
}

/// A directory the run cannot write: immutable (`chattr +i`, which binds root too), mode 555 with the
/// process's capabilities dropped (a real EACCES), a read-only bind mount (EROFS), an immutable file.
/// Each: exit 2 naming the path, and no other cluster rewritten.
#[test]
fn unwritable_subdirectory_leaves_the_old_tree() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("repo");
    let fleet = write_fleet(work.path(), 12, 1, "");
    assert_exit(&render(&fleet, &out, &["--no-validate"]), 0);
    let update = write_fleet(work.path(), 12, 2, "");
    let before = snapshot(&out);
    let dir = out.join("clusters/team-1/c0005");
    let dir_s = dir.to_str().unwrap();
    let file = out.join("clusters/team-2/c0006/cluster.yaml");
    let file_s = file.to_str().unwrap();
    let mut tried = 0;

    let mut expect_refused = |case: &str, output: Output, needle: &str| {
        assert_exit(&output, 2);
        assert!(stderr(&output).contains(needle), "{case}: {}", stderr(&output));
        assert_same_tree(&snapshot(&out), &before, &format!("{case}: no cluster rewritten, nothing left behind"));
        tried += 1;
    };

    match setup("chattr", &["+i", dir_s]) {
        Ok(()) => {
            let output = render(&update, &out, &["--no-validate"]);
            setup("chattr", &["-i", dir_s]).unwrap();
            expect_refused("immutable directory", output, "Operation not permitted");
        }
        Err(reason) => println!("SKIPPED immutable directory: {reason}"),
    }
    match setup("chattr", &["+i", file_s]) {
        Ok(()) => {
            let output = render(&update, &out, &["--no-validate"]);
            setup("chattr", &["-i", file_s]).unwrap();
            expect_refused("immutable file", output, "Operation not permitted");
        }
        Err(reason) => println!("SKIPPED immutable file: {reason}"),
    }
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o555)).unwrap();
    let dropped = Command::new("capsh")
        .args(["--drop=cap_dac_override,cap_dac_read_search,cap_fowner", "--", "-c", "exec \"$0\" \"$@\""])
        .arg(bin())
        .args(["render", "--no-validate", "--fleet"])
        .arg(&update)
        .arg("--out-dir")
        .arg(&out)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .output();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    match dropped {
        Ok(output) if !String::from_utf8_lossy(&output.stderr).contains("capsh") => {
            expect_refused("mode 555 without CAP_DAC_OVERRIDE", output, "Permission denied")
        }
        Ok(output) => println!("SKIPPED mode 555: capsh cannot drop capabilities: {}", stderr(&output)),
        Err(err) => println!("SKIPPED mode 555: cannot run capsh: {err}"),
    }
    let bound = setup("mount", &["--bind", dir_s, dir_s]).and_then(|()| {
        setup("mount", &["-o", "remount,ro,bind", dir_s]).inspect_err(|_| {
            let _ = setup("umount", &["-l", dir_s]);
        })
    });
    match bound {
        Ok(()) => {
            let mounted = Mounted(dir.clone());
            let output = render(&update, &out, &["--no-validate"]);
            drop(mounted);
            expect_refused("read-only bind mount", output, "Read-only file system");
        }
        Err(reason) => println!("SKIPPED read-only bind mount: {reason}"),
    }
    assert!(tried >= 1, "no way to make a directory unwritable here");
    assert_exit(&render(&update, &out, &["--no-validate"]), 0);
}

/// The state line of the journal, if there is one.
fn journal_state(out: &Path) -> Option<String> {
    use std::io::Read;
    // The state is the first line: read 64 bytes, not the whole journal, while polling.
    let mut text = [0u8; 64];
    let read = std::fs::File::open(out.join(".kubectl-capz-journal")).ok()?.read(&mut text).ok()?;
    let first = text[..read].split(|b| *b == b'\n').next()?;
    Some(String::from_utf8_lossy(first).trim_start_matches("state\t").to_string())
}

enum KillAt {
    /// This long after the start.
    After(Duration),
    /// This long after the journal appears (the write has begun).
    AfterJournal(Duration),
    /// As soon as the journal is in this state.
    State(&'static str),
}

/// Starts a run and kills it (SIGKILL) at the given point; `false` if it finished first.
fn run_and_kill(fleet: &Path, out: &Path, at: &KillAt) -> bool {
    let mut child = capz()
        .args(["render", "--no-validate", "--fleet"])
        .arg(fleet)
        .arg("--out-dir")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut journal_seen: Option<Instant> = None;
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        let state = journal_state(out);
        if state.is_some() && journal_seen.is_none() {
            journal_seen = Some(Instant::now());
        }
        let now = match at {
            KillAt::After(delay) => start.elapsed() >= *delay,
            KillAt::AfterJournal(delay) => journal_seen.is_some_and(|seen| seen.elapsed() >= *delay),
            KillAt::State(wanted) => state.as_deref() == Some(*wanted),
        };
        if now {
            child.kill().unwrap();
            child.wait().unwrap();
            return true;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// A scratch directory in the machine's memory file system (`/dev/shm`) when it has room, else in the temporary
/// directory. The kill test writes and deletes about 4,000 files per run, a dozen times: on ext4 without a journal
/// (this project's machines) every new inode is then searched for past the recently deleted ones, and the kernel
/// time of a run grew from 1 to 9 s over the test. What the test checks (what a killed run leaves, what the next
/// run recovers) happens through `rename` and `mkdir` within one directory tree, the same on tmpfs.
fn scratch_in_memory() -> tempfile::TempDir {
    const ROOM: u64 = 1 << 30;
    let shm = Path::new("/dev/shm");
    let roomy = rustix::fs::statvfs(shm).is_ok_and(|fs| fs.f_bavail.saturating_mul(fs.f_frsize) >= ROOM);
    if roomy && let Ok(dir) = tempfile::Builder::new().prefix("kubectl-capz-test-").tempdir_in(shm) {
        return dir;
    }
    tempfile::tempdir().unwrap()
}

/// SIGKILL during a 2,000-cluster write, at several points: during rendering (a fixed delay), as the
/// journal enters `staging` and `switching`, and fixed delays after the journal appears. After each kill:
/// while staging, the files a user sees are the old tree; without a journal the tree is exactly old or new;
/// `--check` reports an interrupted run and writes nothing; the next run recovers and leaves exactly the new
/// tree (nothing left behind), which `--check` then finds up to date.
#[test]
fn sigkill_during_a_2000_cluster_write() {
    let work = scratch_in_memory();
    let fleets = [
        write_fleet(&work.path().join("v1").tap_mkdir(), 2000, 1, ""),
        write_fleet(&work.path().join("v2").tap_mkdir(), 2000, 2, ""),
    ];
    // The two trees, written without interruption; the first run's time places the kill during rendering.
    let out = work.path().join("repo");
    let reference = work.path().join("reference");
    let start = Instant::now();
    assert_exit(&render(&fleets[0], &out, &["--no-validate"]), 0);
    let full = start.elapsed();
    assert_exit(&render(&fleets[1], &reference, &["--no-validate"]), 0);
    let trees = [snapshot(&out), snapshot(&reference)];
    let mut current = 0;
    let points = [
        KillAt::After(full.mul_f64(0.3)),
        KillAt::State("staging"),
        KillAt::State("switching"),
        KillAt::AfterJournal(Duration::from_millis(20)),
        KillAt::AfterJournal(Duration::from_millis(80)),
        KillAt::AfterJournal(Duration::from_millis(250)),
    ];
    let mut interrupted = Vec::new();
    for (index, at) in points.iter().enumerate() {
        let (old, new) = (current, 1 - current);
        if !run_and_kill(&fleets[new], &out, at) {
            // Finished before the kill: it must be the new tree.
            assert_same_tree(&snapshot(&out), &trees[new], "a run that finished");
            interrupted.push("finished".to_string());
            current = new;
            continue;
        }
        let state = journal_state(&out);
        let after_kill = snapshot(&out);
        let leftovers = reserved(&after_kill);
        let visible: BTreeMap<_, _> =
            after_kill.iter().filter(|(p, _)| !leftovers.contains(p)).map(|(p, c)| (p.clone(), c.clone())).collect();
        match state.as_deref() {
            None => {
                assert!(after_kill == trees[old] || after_kill == trees[new], "point {index}: no journal, old or new")
            }
            Some("staging") => {
                assert_same_tree(&visible, &trees[old], "killed while staging: the user sees the old tree")
            }
            Some(_) => {}
        }
        interrupted.push(state.clone().unwrap_or_else(|| "none".into()));
        let check = render(&fleets[new], &out, &["--no-validate", "--check"]);
        if state.is_some() {
            assert_exit(&check, 1);
            assert!(stderr(&check).contains("was interrupted"), "{}", stderr(&check));
        } else {
            assert_exit(&check, if after_kill == trees[new] { 0 } else { 1 });
        }
        assert_same_tree(&snapshot(&out), &after_kill, "--check writes nothing");
        let next = render(&fleets[new], &out, &["--no-validate"]);
        assert_exit(&next, 0);
        if state.is_some() {
            assert!(stderr(&next).contains("interrupted earlier run"), "{}", stderr(&next));
        }
        assert_same_tree(&snapshot(&out), &trees[new], "the next run leaves exactly the new tree");
        if index == points.len() - 1 {
            assert_exit(&render(&fleets[new], &out, &["--no-validate", "--check"]), 0);
        }
        current = new;
    }
    println!("journal states at the kills: {interrupted:?}");
    assert!(interrupted.iter().any(|s| s == "staging" || s == "switching"), "no kill inside a write: {interrupted:?}");
}

trait TapMkdir {
    fn tap_mkdir(self) -> Self;
}
impl TapMkdir for PathBuf {
    fn tap_mkdir(self) -> Self {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}

const RENDER_ENV: &[(&str, &str)] = &[
    ("CLUSTER_NAME", "demo"),
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "westeurope"),
    ("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000001"),
    ("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002"),
    ("AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY", "00000000-0000-0000-0000-000000000003"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("CLUSTER_IDENTITY_NAME", "cluster-identity"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
    ("WORKER_MACHINE_COUNT", "2"),
];

fn render_out_dir(out: &Path) -> Output {
    capz().envs(RENDER_ENV.iter().copied()).args(["render", "aks-aso", "--out-dir"]).arg(out).output().unwrap()
}

/// `render --out-dir`: the staging directories a killed render left beside the output (`.<name>.new-*`,
/// and `.<name>.old-*` of earlier versions) are removed by the next render when they hold only rendered
/// files; one holding anything else is left alone.
#[test]
fn render_out_dir_removes_leftover_staging_directories() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    assert_exit(&render_out_dir(&out), 0);
    let first = snapshot(&out);
    for leftover in [".out.new-AbC123", ".out.old-XyZ789"] {
        std::fs::create_dir(work.path().join(leftover)).unwrap();
        std::fs::write(work.path().join(leftover).join("01-cluster-demo.yaml"), "half").unwrap();
    }
    std::fs::create_dir(work.path().join(".out.new-mine")).unwrap();
    std::fs::write(work.path().join(".out.new-mine/notes.txt"), "user").unwrap();
    assert_exit(&render_out_dir(&out), 0);
    let mut beside: Vec<String> = std::fs::read_dir(work.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, [".out.new-mine", "out"]);
    assert_same_tree(&snapshot(&out), &first, "the same render");
}

/// `render --out-dir` onto a symbolic link: refused, nothing changed where it points.
#[cfg(unix)]
#[test]
fn render_out_dir_refuses_a_symbolic_link() {
    let work = tempfile::tempdir().unwrap();
    let real = work.path().join("real");
    assert_exit(&render_out_dir(&real), 0);
    let before = snapshot(&real);
    let link = work.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let output = render_out_dir(&link);
    assert_exit(&output, 2);
    assert!(stderr(&output).contains("is a symbolic link"), "{}", stderr(&output));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_same_tree(&snapshot(&real), &before, "the directory behind the link");
}

/// An out-dir that is a symbolic link (one a repository could have committed where the tree goes): `render
/// --out-dir`, `render --fleet` and `migrate --out-dir` write with one writer and all refuse it (exit 2), writing
/// nothing where it points.
#[cfg(unix)]
#[test]
fn every_writer_refuses_a_symbolic_link_as_out_dir() {
    let work = tempfile::tempdir().unwrap();
    let real = work.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = work.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let fleet = write_fleet(work.path(), 1, 1, "");
    let classic =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capz-translation/cases/23-windows-pool.yaml");
    let runs = [
        ("render --out-dir", render_out_dir(&link)),
        ("render --fleet", render(&fleet, &link, &["--no-validate"])),
        (
            "migrate --out-dir",
            capz().arg("migrate").arg("-f").arg(&classic).arg("--out-dir").arg(&link).output().unwrap(),
        ),
    ];
    for (command, output) in runs {
        assert_exit(&output, 2);
        assert!(stderr(&output).contains("is a symbolic link"), "{command}: {}", stderr(&output));
        assert!(snapshot(&real).is_empty(), "{command} wrote through the link");
    }
}
