//! The krew manifest obeys krew's rules and passes krew's own validator, the committed one is what
//! scripts/package.sh writes, the archive is reproducible, and it installs with the real krew and runs
//! through the real `kubectl` (krew v0.5.0 from tools/krew).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::support;

fn read_manifest(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    capz::manifest::parse_value(&text, &path.display().to_string()).expect("manifest is YAML").0
}

/// krew's validation (internal/index/validation/validate.go), as far as it can be checked offline.
/// Returns the (os, arch, uri, sha256, bin) of each platform.
fn check_krew_rules(manifest: &Value) -> Vec<(String, String, String, String, String)> {
    assert_eq!(manifest["apiVersion"], "krew.googlecontainertools.github.com/v1alpha2");
    assert_eq!(manifest["kind"], "Plugin");
    let name = manifest["metadata"]["name"].as_str().expect("metadata.name");
    assert!(regex::Regex::new(r"^[\w-]+$").unwrap().is_match(name), "plugin name {name:?}");
    assert_eq!(name, "capz");
    let spec = &manifest["spec"];
    let version = spec["version"].as_str().expect("spec.version");
    let bare = version.strip_prefix('v').expect("version starts with v");
    semver::Version::parse(bare).expect("version is semver");
    assert_eq!(bare, env!("CARGO_PKG_VERSION"), "krew version equals Cargo's");
    let short = spec["shortDescription"].as_str().expect("shortDescription");
    assert!(!short.is_empty() && !short.contains('\n'), "shortDescription is one line");
    assert!(spec["description"].as_str().is_some_and(|d| !d.trim().is_empty()));
    assert!(spec["homepage"].as_str().is_some_and(|h| h.starts_with("https://")));
    let platforms = spec["platforms"].as_array().expect("platforms");
    assert!(!platforms.is_empty(), "at least one platform");
    let supported: BTreeSet<(&str, &str)> =
        [("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64"), ("windows", "amd64")].into();
    let sha_pattern = regex::Regex::new("^[a-f0-9]{64}$").unwrap();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for platform in platforms {
        let labels = platform["selector"]["matchLabels"].as_object().expect("selector.matchLabels");
        assert!(labels.keys().all(|k| k == "os" || k == "arch"), "selector uses only os/arch: {labels:?}");
        let os = labels["os"].as_str().expect("os").to_string();
        let arch = labels["arch"].as_str().expect("arch").to_string();
        assert!(supported.contains(&(os.as_str(), arch.as_str())), "unsupported {os}/{arch}");
        assert!(seen.insert((os.clone(), arch.clone())), "{os}/{arch} matched by two platforms");
        let uri = platform["uri"].as_str().expect("uri").to_string();
        assert!(uri.ends_with(".tar.gz") || uri.ends_with(".zip"), "archive uri {uri}");
        let sha = platform["sha256"].as_str().expect("sha256").to_string();
        assert!(sha_pattern.is_match(&sha), "sha256 {sha:?}");
        let bin = platform["bin"].as_str().expect("bin").to_string();
        let expected_bin = if os == "windows" { "kubectl-capz.exe" } else { "kubectl-capz" };
        assert_eq!(bin, expected_bin);
        out.push((os, arch, uri, sha, bin));
    }
    out
}

fn sha256_hex(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("archive readable");
    Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// krew's own programs, built by tools/krew/build.sh (a missing one fails the test, never skips it).
fn krew_tool(name: &str) -> PathBuf {
    let path = support::repo_root().join("tools/krew/bin").join(name);
    assert!(path.is_file(), "{} is missing: run tools/krew/build.sh (scripts/test-all.sh does)", path.display());
    path
}

/// krew-index's validator (`validate-krew-manifest` v0.5.0) on `manifest`, copied to `capz.yaml` (the
/// validator takes the plugin name from the file name). `-skip-install`: its install step downloads
/// the uri; the install is done with the built archive by [`krew_install`] instead.
fn krew_validate(manifest: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let named = dir.path().join("capz.yaml");
    std::fs::copy(manifest, &named).unwrap();
    let out = Command::new(krew_tool("validate-krew-manifest"))
        .arg("-manifest")
        .arg(&named)
        .arg("-skip-install")
        .output()
        .expect("run validate-krew-manifest");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "validate-krew-manifest rejects {}:\n{log}", manifest.display());
    assert!(log.contains("structural validation OK") && log.contains("no overlapping"), "{log}");
}

/// Packages the test binary with scripts/package.sh into `out`; returns the manifest path and the
/// one archive.
fn package(out: &Path, path_env: &str) -> (PathBuf, PathBuf) {
    let manifest = out.join("capz.yaml");
    let dist = out.join("dist");
    let status = Command::new("bash")
        .arg(support::repo_root().join("scripts/package.sh"))
        .arg("--binary")
        .arg(support::capz_bin())
        .arg("--out")
        .arg(&dist)
        .arg("--manifest")
        .arg(&manifest)
        .env("PATH", path_env)
        .status()
        .expect("run scripts/package.sh");
    assert!(status.success(), "package.sh failed");
    let archives: Vec<PathBuf> = std::fs::read_dir(&dist).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(archives.len(), 1, "one archive built on this machine: {archives:?}");
    (manifest, archives[0].clone())
}

fn path_env() -> String {
    std::env::var("PATH").unwrap_or_default()
}

/// The manifest with every sha256 value blanked (the committed one is for the release binary).
fn without_checksums(text: &str) -> String {
    text.lines()
        .map(|l| if l.trim_start().starts_with("sha256:") { "    sha256: <sha256>" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The committed manifest follows krew's rules, passes krew's own validator and names this version.
#[test]
fn committed_manifest_follows_krew_rules() {
    let committed = support::repo_root().join("krew-manifest.yaml");
    let platforms = check_krew_rules(&read_manifest(&committed));
    assert!(platforms.iter().any(|(os, arch, ..)| os == "linux" && arch == "amd64"));
    krew_validate(&committed);
}

/// The committed manifest is what scripts/package.sh writes from an archive of the working tree:
/// the same text (a manifest edited by hand, or written by an older script, fails), the caveats
/// intact. Its sha256 is the release archive's; here the archive is built from the test binary, and
/// the manifest package.sh writes must carry exactly that archive's sha256.
#[test]
fn committed_manifest_is_the_package_output_of_the_working_tree() {
    let work = tempfile::tempdir().unwrap();
    let (manifest, archive) = package(work.path(), &path_env());
    let written = std::fs::read_to_string(&manifest).unwrap();
    let committed = std::fs::read_to_string(support::repo_root().join("krew-manifest.yaml")).unwrap();
    assert_eq!(
        without_checksums(&committed),
        without_checksums(&written),
        "krew-manifest.yaml is stale: regenerate it with scripts/package.sh"
    );
    let platforms = check_krew_rules(&read_manifest(&manifest));
    assert_eq!(platforms[0].3, sha256_hex(&archive), "manifest sha256 is the archive's checksum");
    assert!(platforms[0].2.ends_with(&format!("/{}", archive.file_name().unwrap().to_string_lossy())));
}

/// package.sh never evaluates the text it writes (a `kubectl` on PATH that prints something would
/// otherwise land in the caveats), and its archive is reproducible: the same binary gives the same
/// bytes whatever the time, umask or directory.
#[test]
fn package_script_never_evaluates_its_text_and_is_reproducible() {
    let work = tempfile::tempdir().unwrap();
    let trap = work.path().join("trap");
    std::fs::create_dir_all(&trap).unwrap();
    let marker = work.path().join("evaluated");
    for program in ["kubectl", "kubectl-capz"] {
        let script = format!("#!/bin/sh\ntouch '{}'\necho INJECTED\n", marker.display());
        std::fs::write(trap.join(program), script).unwrap();
        let mut perms = std::fs::metadata(trap.join(program)).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(trap.join(program), perms).unwrap();
    }
    let first = work.path().join("first");
    let (manifest_a, archive_a) = package(&first, &format!("{}:{}", trap.display(), path_env()));
    assert!(!marker.exists(), "package.sh ran a command found in the text it writes");
    let text = std::fs::read_to_string(&manifest_a).unwrap();
    assert!(!text.contains("INJECTED"), "{text}");
    assert!(text.contains("run `kubectl capz version` to see the exact versions."), "{text}");

    std::thread::sleep(std::time::Duration::from_millis(1100)); // a later mtime for every staged file
    let second = work.path().join("second/elsewhere");
    let (manifest_b, archive_b) = package(&second, &path_env());
    assert_eq!(std::fs::read(&archive_a).unwrap(), std::fs::read(&archive_b).unwrap(), "archive not reproducible");
    assert_eq!(std::fs::read_to_string(&manifest_b).unwrap(), text);

    // Entries sorted, owner 0, fixed mtime.
    let listing = Command::new("tar").arg("--numeric-owner").arg("-tvzf").arg(&archive_a).output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout).into_owned();
    let names: Vec<&str> = listing.lines().filter_map(|l| l.split_whitespace().last()).collect();
    assert_eq!(names, ["LICENSE", "kubectl-capz", "kubectl_complete-capz"], "{listing}");
    assert!(listing.lines().all(|l| l.contains(" 0/0 ") && l.contains("1970-01-01")), "{listing}");
}

/// Package the test binary, validate the manifest with krew's validator, install it with the real
/// `kubectl krew install --manifest --archive` (krew v0.5.0, KREW_ROOT in a temp dir) and run
/// `kubectl capz version` through the real kubectl from krew's bin directory.
#[test]
fn packaged_archive_installs_with_krew_and_runs_through_kubectl() {
    let work = tempfile::tempdir().unwrap();
    let (manifest, archive) = package(work.path(), &path_env());
    let platforms = check_krew_rules(&read_manifest(&manifest));
    assert_eq!(platforms[0].3, sha256_hex(&archive), "manifest sha256 is the archive's checksum");
    krew_validate(&manifest);

    // `kubectl krew` is krew's binary found on PATH as kubectl-krew, as krew installs itself.
    let tools = work.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(krew_tool("krew"), tools.join("kubectl-krew")).unwrap();
    let krew_root = work.path().join("krew-root");
    let path = format!("{}:{}:{}", krew_root.join("bin").display(), tools.display(), path_env());
    let install = Command::new("kubectl")
        .args(["krew", "install", "--manifest"])
        .arg(&manifest)
        .arg("--archive")
        .arg(&archive)
        .env("KREW_ROOT", &krew_root)
        .env("PATH", &path)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("kubectl on PATH");
    let log = String::from_utf8_lossy(&install.stderr).into_owned() + &String::from_utf8_lossy(&install.stdout);
    assert!(install.status.success(), "kubectl krew install: {log}");
    assert!(log.contains("Installed plugin: capz"), "{log}");
    assert!(log.contains("`kubectl capz version` to see the exact versions"), "caveats shown whole: {log}");
    let version = env!("CARGO_PKG_VERSION");
    let store = krew_root.join("store/capz").join(format!("v{version}"));
    assert!(store.join("LICENSE").is_file(), "krew extracted the LICENSE");
    assert!(krew_root.join("receipts/capz.yaml").is_file(), "krew wrote its receipt");

    // The caveats' one step for completion, then kubectl's own completion of `kubectl capz`.
    let link =
        Regex::new(r#"ln -sf "\$\{KREW_ROOT:-\$HOME/.krew\}/store/capz/([^/]+)/kubectl_complete-capz""#).unwrap();
    let caveat = std::fs::read_to_string(&manifest).unwrap();
    let linked_version = &link.captures(&caveat).expect("the caveats say how to link the helper")[1];
    assert_eq!(linked_version, format!("v{version}"));
    let helper = store.join("kubectl_complete-capz");
    assert!(helper.is_file(), "the archive ships kubectl_complete-capz");
    std::os::unix::fs::symlink(&helper, krew_root.join("bin/kubectl_complete-capz")).unwrap();
    let completed = Command::new("kubectl")
        .args(["__complete", "capz", "render", "--gitops", ""])
        .env("PATH", &path)
        .output()
        .unwrap();
    let completed = String::from_utf8_lossy(&completed.stdout).into_owned();
    assert_eq!(completed.lines().take(3).collect::<Vec<_>>(), ["flux", "argocd", ":4"], "{completed}");

    let listed = Command::new("kubectl").args(["plugin", "list"]).env("PATH", &path).output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(listed.contains(&krew_root.join("bin/kubectl-capz").display().to_string()), "{listed}");
    let output = Command::new("kubectl").args(["capz", "version"]).env("PATH", &path).output().unwrap();
    assert!(output.status.success(), "kubectl capz version: {}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with(&format!("kubectl-capz v{version}\n")), "{stdout}");
    assert!(stdout.contains("Cluster API Provider Azure"), "{stdout}");
}
