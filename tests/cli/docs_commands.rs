//! Docs that do what they say: every command shown in README.md and docs/*.md (fenced shell blocks and
//! inline `kubectl capz ...` spans) is checked here.
//! - A synopsis (placeholders such as FILE, NAME, `[...]`, `a|b`): its subcommand exists and every flag it
//!   shows is in that subcommand's `--help`.
//! - A concrete command must be listed in [`CONCRETE`]: it runs in a real bash, with `kubectl-capz` on PATH
//!   (so `kubectl capz` goes through the real kubectl), in a scratch directory holding the files it names,
//!   and its exit code and output are checked; or it names the test or CI step that runs it.
//!
//! A command added to the docs and not listed fails this test, so the docs cannot drift.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// How a concrete command is checked.
enum Check {
    /// Run in the scratch directory; expect this exit code and this text in stdout + stderr.
    Run { exit: i32, output_contains: &'static str },
    /// Run elsewhere: the file named must contain the text (the test or script that runs it).
    RunBy { file: &'static str, contains: &'static str },
}

/// Every concrete command of the docs, as written there (comments stripped, continuations joined).
const CONCRETE: &[(&str, Check)] = &[
    (
        "cargo run --profile quick -- render aks-aso --values examples/aks-aso.values.yaml",
        // Run as the built binary: the same program, without a second (quick-profile) build inside a test.
        Check::Run { exit: 0, output_contains: "kind: AzureASOManagedControlPlane" },
    ),
    ("./scripts/test-all.sh", Check::RunBy { file: ".ci/run", contains: "./scripts/test-all.sh" }),
    (
        "cargo install --locked --path .",
        // `--locked` fails when Cargo.lock is stale: checked by `cargo metadata --locked` below.
        Check::RunBy { file: "tests/cli/docs_commands.rs", contains: "fn cargo_lock_is_current" },
    ),
    (
        "kubectl krew install --manifest=krew-manifest.yaml --archive=dist/kubectl-capz_v0.1.0_linux_amd64.tar.gz",
        Check::RunBy { file: "tests/tooling/krew.rs", contains: "install" },
    ),
    (
        "kubectl capz diff --base origin/main .",
        // A git repository made by the test, against a revision and against a directory.
        Check::RunBy {
            file: "tests/corpora/change_review.rs",
            contains: "fn each_seeded_change_is_reported_as_what_it_is",
        },
    ),
    (
        "kubectl capz diff --base ../main-checkout clusters/",
        Check::RunBy { file: "tests/corpora/change_review.rs", contains: "fn a_second_directory_is_a_base_too" },
    ),
    ("kubectl capz version", Check::Run { exit: 0, output_contains: "kubectl-capz" }),
    (
        "kubectl capz validate tests/fixtures/validate-targets/labelled-admin-secret.yaml --capz-version v1.27,v1.28",
        Check::Run {
            exit: 1,
            output_contains: "(not declared in the schema) (on v1.27; not on v1.28) [unknown-field]",
        },
    ),
    ("kubectl capz params aks", Check::Run { exit: 0, output_contains: "asoManagedClusterPatches" }),
    (
        "kubectl capz render aks --values examples/aks-patches.values.yaml --validate",
        Check::Run { exit: 0, output_contains: "asoManagedClustersAgentPoolPatches:" },
    ),
    ("kubectl capz completion kubectl", Check::Run { exit: 0, output_contains: "kubectl-capz" }),
    ("kubectl capz params --schema", Check::Run { exit: 0, output_contains: "\"$schema\"" }),
    (
        "kubectl-capz import-schemas --from upstream-crds --fetched target/schema-inputs --out schemas",
        Check::Run { exit: 0, output_contains: "" },
    ),
    (
        "kubectl capz plan -f clusterclass.yaml -f cluster.yaml",
        Check::Run { exit: 0, output_contains: "kind: Cluster" },
    ),
    (
        "kubectl capz plan --from-cluster -f cluster.yaml",
        Check::RunBy { file: "tests/live/live_plan.rs", contains: "--from-cluster" },
    ),
    // Every kind of CAPZ's AKS classes has a schema (KubeadmConfig is CAPI's): nothing is left unchecked.
    ("kubectl capz plan --require-schemas -f dir/", Check::Run { exit: 0, output_contains: "0 skipped" }),
    ("kubectl capz convert clusterclass.yaml --check", Check::Run { exit: 1, output_contains: "clusterclass.yaml" }),
    (
        "kubectl capz convert cluster.yaml",
        Check::Run { exit: 0, output_contains: "apiVersion: cluster.x-k8s.io/v1beta2" },
    ),
];

/// A command as the docs show it, and where.
struct Shown {
    text: String,
    place: String,
}

fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![Path::new(ROOT).join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

fn looks_like_command(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let first =
        words.iter().position(|w| !(w.contains('=') && w.chars().next().is_some_and(|c| c.is_ascii_uppercase())));
    let Some(first) = first else { return false };
    let rest = &words[first..];
    matches!(rest.first(), Some(&"kubectl-capz") | Some(&"cargo") | Some(&"./scripts/test-all.sh"))
        || rest.first().is_some_and(|w| w.starts_with("scripts/") || w.starts_with("tools/"))
        || (rest.first() == Some(&"kubectl") && rest.get(1).is_some_and(|w| *w == "capz" || *w == "krew"))
}

/// Commands of fenced shell blocks (and untyped blocks) and of inline code spans.
fn shown_commands() -> Vec<Shown> {
    let mut shown = Vec::new();
    for file in doc_files() {
        let name = file.strip_prefix(ROOT).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let mut in_block: Option<String> = None;
        let mut pending = String::new();
        for (index, line) in text.lines().enumerate() {
            let place = format!("{}:{}", name.trim_start_matches('/'), index + 1);
            if let Some(fence) = line.trim_start().strip_prefix("```") {
                in_block = match in_block {
                    Some(_) => None,
                    None => Some(fence.trim().to_string()),
                };
                continue;
            }
            match &in_block {
                Some(lang) if matches!(lang.as_str(), "" | "sh" | "bash" | "console" | "shell") => {
                    let without_comment = match line.find("  #") {
                        Some(at) => &line[..at],
                        None => line,
                    };
                    let joined = format!("{pending}{}", without_comment.trim());
                    if let Some(head) = joined.strip_suffix('\\') {
                        pending = format!("{} ", head.trim_end());
                        continue;
                    }
                    pending.clear();
                    if looks_like_command(&joined) {
                        shown.push(Shown { text: joined, place });
                    }
                }
                Some(_) => {}
                None => {
                    for span in line.split('`').skip(1).step_by(2) {
                        if span.starts_with("kubectl capz ") || span.starts_with("kubectl-capz ") {
                            shown.push(Shown { text: span.replace("\\|", "|"), place: place.clone() });
                        }
                    }
                }
            }
        }
    }
    shown
}

/// A synopsis shows placeholders (FILE, NAME, FLEET.yaml, `[...]`, `a|b`, `...`) instead of real
/// arguments; a mention is just `kubectl capz SUBCOMMAND`.
fn is_synopsis(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let placeholder = |word: &str| {
        let bare = word.trim_matches(|c: char| "()`.,;:'\"".contains(c));
        let stem = bare.split(['.', '=']).next().unwrap_or("");
        !stem.is_empty()
            && stem.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && stem.chars().any(|c| c.is_ascii_uppercase())
    };
    let capz = words.iter().position(|w| *w == "capz" || *w == "kubectl-capz").unwrap_or(0);
    // `kubectl capz SUB` and `kubectl capz SUB -f` mention a subcommand (and flags), they run nothing.
    words.len() <= capz + 2
        || words[capz + 2..].iter().all(|w| w.starts_with('-') && !w.contains('='))
            && !CONCRETE.iter().any(|(c, _)| *c == command)
        || words
            .iter()
            .any(|w| w.contains('[') || w.contains("...") || (w.contains('|') && *w != "|") || placeholder(w))
}

fn help_of(subcommand: &str) -> String {
    let out = Command::new(support::capz_bin()).args([subcommand, "--help"]).output().unwrap();
    assert!(out.status.success(), "`kubectl capz {subcommand}` is shown in the docs but has no --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommand and flags of a synopsis exist.
fn check_synopsis(command: &str) -> Result<(), String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "capz" || *w == "kubectl-capz").ok_or("no kubectl capz")?;
    let Some(subcommand) =
        words.get(at + 1).filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-') && !w.starts_with('-'))
    else {
        return Ok(());
    };
    let help = help_of(subcommand);
    for word in &words[at + 2..] {
        for part in word.split('|') {
            let flag = part.trim_matches(|c: char| "[]().,".contains(c)).split('=').next().unwrap();
            let is_flag = (flag.starts_with("--") && flag.len() > 2) || (flag.len() == 2 && flag.starts_with('-'));
            let in_help = help.match_indices(flag).any(|(at, _)| {
                let before = help[..at].chars().next_back();
                let after = help[at + flag.len()..].chars().next();
                before.is_some_and(char::is_whitespace) && after.is_none_or(|c| !(c.is_alphanumeric() || c == '-'))
            });
            if is_flag && !in_help {
                return Err(format!("`{subcommand}` has no flag {flag}"));
            }
        }
    }
    Ok(())
}

/// The scratch directory: the files the concrete commands name.
/// The directory tools/schema-inputs/fetch.sh fills from the Go module proxy (cached in target/schema-inputs).
fn fetched_inputs() -> PathBuf {
    let out = Command::new("bash").arg(Path::new(ROOT).join("tools/schema-inputs/fetch.sh")).output().unwrap();
    assert!(out.status.success(), "tools/schema-inputs/fetch.sh failed:\n{}", String::from_utf8_lossy(&out.stderr));
    PathBuf::from(String::from_utf8_lossy(&out.stdout).lines().last().expect("fetch.sh prints its output directory"))
}

fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join("examples")).unwrap();
    for entry in std::fs::read_dir(Path::new(ROOT).join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, work.join("examples").join(path.file_name().unwrap())).unwrap();
        }
    }
    // The importer's inputs, as seen from the project root of a checkout: the committed upstream CRDs and
    // the cache tools/schema-inputs/fetch.sh fills.
    std::os::unix::fs::symlink(Path::new(ROOT).join("upstream-crds"), work.join("upstream-crds")).unwrap();
    std::fs::create_dir_all(work.join("target")).unwrap();
    std::os::unix::fs::symlink(fetched_inputs(), work.join("target/schema-inputs")).unwrap();
    // docs/config.md's repository that holds on one target and not on the other.
    let targets = "tests/fixtures/validate-targets/labelled-admin-secret.yaml";
    std::fs::create_dir_all(work.join("tests/fixtures/validate-targets")).unwrap();
    std::fs::copy(Path::new(ROOT).join(targets), work.join(targets)).unwrap();
    // A ClusterClass and a topology Cluster of it (plan's examples).
    let values = Path::new(ROOT).join("tests/fixtures/clusterclass/aks-aso-topology.values.yaml");
    let render = |args: &[&str]| {
        let out = Command::new(support::capz_bin()).arg("render").args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    std::fs::write(work.join("clusterclass.yaml"), render(&["aks-aso-clusterclass"])).unwrap();
    let values = values.to_str().unwrap();
    std::fs::write(work.join("cluster.yaml"), render(&["aks-aso-topology", "--values", values])).unwrap();
    std::fs::create_dir_all(work.join("dir")).unwrap();
    std::fs::copy(work.join("clusterclass.yaml"), work.join("dir/clusterclass.yaml")).unwrap();
    std::fs::copy(work.join("cluster.yaml"), work.join("dir/cluster.yaml")).unwrap();
    dir
}

fn run_in_bash(command: &str, dir: &Path) -> (i32, String) {
    let bin_dir = support::capz_bin().parent().unwrap().to_path_buf();
    // `cargo run --profile quick -- ARGS` is the plugin with ARGS.
    let command = command.replace("cargo run --profile quick --", "kubectl-capz");
    let out = Command::new("bash")
        .args(["-c", &command])
        .current_dir(dir)
        .env_clear()
        .env("PATH", format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default()))
        .env("HOME", dir)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn every_command_in_the_docs_works() {
    let shown = shown_commands();
    assert!(shown.len() >= 15, "found only {} commands: the extraction broke", shown.len());
    let scratch = scratch();
    let work = scratch.path().join("work");
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for Shown { text, place } in &shown {
        let Some((_, check)) = CONCRETE.iter().find(|(command, _)| command == text) else {
            if !is_synopsis(text) {
                failures.push(format!(
                    "{place}: `{text}` is not checked: add it to CONCRETE in tests/cli/docs_commands.rs"
                ));
            } else if let Err(message) = check_synopsis(text) {
                failures.push(format!("{place}: `{text}`: {message}"));
            }
            continue;
        };
        seen.insert(text.clone());
        match check {
            Check::Run { exit, output_contains } => {
                let (code, output) = run_in_bash(text, &work);
                if code != *exit || !output.contains(output_contains) {
                    failures.push(format!("{place}: `{text}` exited {code} (want {exit}):\n{output}"));
                }
            }
            Check::RunBy { file, contains } => {
                let body = std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap_or_default();
                if !body.contains(contains) {
                    failures.push(format!("{place}: `{text}`: {file} does not run it"));
                }
            }
        }
    }
    for (command, _) in CONCRETE {
        if !seen.contains(*command) {
            failures.push(format!("`{command}` is listed in CONCRETE but no longer shown in the docs"));
        }
    }
    assert!(failures.is_empty(), "{} docs commands fail:\n{}", failures.len(), failures.join("\n"));
}

/// import-schemas, run above in the scratch directory, wrote what is committed.
#[test]
fn the_documented_import_reproduces_the_committed_schemas() {
    let scratch = scratch();
    let work = scratch.path().join("work");
    let (code, output) = run_in_bash(
        "kubectl-capz import-schemas --from upstream-crds --fetched target/schema-inputs --out schemas",
        &work,
    );
    assert_eq!(code, 0, "{output}");
    let fresh = capz::schema::import::read_tree(&work.join("schemas")).unwrap();
    let committed = capz::schema::import::read_tree(&Path::new(ROOT).join("schemas")).unwrap();
    assert!(
        fresh.files == committed.files,
        "the documented import-schemas command writes other schemas than committed"
    );
}

/// `cargo install --locked` needs a Cargo.lock that matches Cargo.toml.
#[test]
fn cargo_lock_is_current() {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--locked", "--offline", "--format-version", "1", "--no-deps"])
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(out.status.success(), "Cargo.lock is stale: {}", String::from_utf8_lossy(&out.stderr));
}

/// The README's fleet excerpt works as pasted: saved as fleet.yaml beside the example's values file,
/// it renders (exit 0) into a tree with its Argo CD objects.
#[test]
fn readme_fleet_excerpt_renders_as_pasted() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let start = readme.find("# examples/fleet/fleet.yaml (abridged)\n").expect("the README shows the fleet excerpt");
    let body = &readme[start..];
    let excerpt = &body[..body.find("```").expect("the excerpt's block ends")];
    let dir = tempfile::tempdir().unwrap();
    let fleet = dir.path().join("fleet");
    std::fs::create_dir_all(&fleet).unwrap();
    std::fs::copy(Path::new(ROOT).join("examples/fleet/production.values.yaml"), fleet.join("production.values.yaml"))
        .unwrap();
    std::fs::write(fleet.join("fleet.yaml"), excerpt).unwrap();
    let (code, output) = run_in_bash("kubectl capz render --fleet fleet/fleet.yaml --out-dir repo", dir.path());
    assert_eq!(code, 0, "{output}");
    assert!(dir.path().join("repo/clusters/payments/payments-prod-weu/cluster.yaml").is_file(), "{output}");
    assert!(dir.path().join("repo/argocd").is_dir(), "{output}");
}
