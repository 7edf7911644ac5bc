//! The krew manifest obeys krew's rules, and a packaged archive installs as krew installs it and runs
//! through the real `kubectl`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

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

/// The committed manifest follows krew's rules and names this version.
#[test]
fn committed_manifest_follows_krew_rules() {
    let platforms = check_krew_rules(&read_manifest(&repo().join("krew-manifest.yaml")));
    assert!(platforms.iter().any(|(os, arch, ..)| os == "linux" && arch == "amd64"));
}

/// Package the test binary, check the manifest against the archive, install it as krew does and run
/// `kubectl capz version` through the real kubectl.
#[test]
fn packaged_archive_installs_and_runs_through_kubectl() {
    let work = tempfile::tempdir().unwrap();
    let dist = work.path().join("dist");
    let manifest_path = work.path().join("capz.yaml");
    let status = Command::new("bash")
        .arg(repo().join("scripts/package.sh"))
        .args(["--binary", env!("CARGO_BIN_EXE_kubectl-capz")])
        .arg("--out")
        .arg(&dist)
        .arg("--manifest")
        .arg(&manifest_path)
        .status()
        .expect("run scripts/package.sh");
    assert!(status.success(), "package.sh failed");

    let platforms = check_krew_rules(&read_manifest(&manifest_path));
    assert_eq!(platforms.len(), 1, "one archive built on this machine");
    let (_, _, uri, sha, bin) = &platforms[0];
    let archive = dist.join(uri.rsplit('/').next().unwrap());
    assert_eq!(&sha256_hex(&archive), sha, "manifest sha256 is the archive's checksum");

    // krew: download, verify, extract everything into the plugin's directory, link `bin` onto PATH.
    let install = work.path().join("store/capz").join(sha);
    std::fs::create_dir_all(&install).unwrap();
    let status = Command::new("tar").arg("-xzf").arg(&archive).arg("-C").arg(&install).status().unwrap();
    assert!(status.success(), "archive extracts");
    assert!(install.join("LICENSE").is_file(), "archive holds a LICENSE");
    let bin_dir = work.path().join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(install.join(bin), bin_dir.join("kubectl-capz")).unwrap();

    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let listed = Command::new("kubectl").args(["plugin", "list"]).env("PATH", &path).output().expect("kubectl on PATH");
    assert!(String::from_utf8_lossy(&listed.stdout).contains("kubectl-capz"), "kubectl plugin list finds it");
    let output = Command::new("kubectl").args(["capz", "version"]).env("PATH", &path).output().unwrap();
    assert!(output.status.success(), "kubectl capz version: {}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with(&format!("kubectl-capz v{}\n", env!("CARGO_PKG_VERSION"))), "{stdout}");
    assert!(stdout.contains("Cluster API Provider Azure"), "{stdout}");
}
