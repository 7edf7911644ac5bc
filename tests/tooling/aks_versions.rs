//! The AKS version lifecycle data (src/aks_versions/data.json): what tools/aks-versions/generate.py makes of the
//! committed calendar excerpt, its shape, and its agreement with endoflife.date's release data (a committed excerpt).

use std::path::Path;
use std::process::Command;

use capz::aks_versions::{Date, Lifecycle};
use serde_json::Value;

const DATA: &str = "src/aks_versions/data.json";
const CALENDAR: &str = "tests/fixtures/aks-versions/calendar-excerpt.md";
const ENDOFLIFE: &str = "tests/fixtures/aks-versions/endoflife-excerpt.json";

fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn json(path: &str) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|err| panic!("{path}: {err}"))
}

#[test]
fn the_generator_makes_the_committed_data_from_the_calendar() {
    let data = json(DATA);
    let commit = data["commit"].as_str().unwrap();
    let output = Command::new("python3")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tools/aks-versions/generate.py", CALENDAR, "--commit", commit, "--endoflife", ENDOFLIFE])
        .output()
        .unwrap_or_else(|err| panic!("python3 (runs tools/aks-versions/generate.py): {err}"));
    assert!(output.status.success(), "generate.py: {}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        read(DATA),
        "regenerate {DATA} (tools/aks-versions/README.md)"
    );
}

#[test]
fn the_generator_refuses_a_disagreement_with_endoflife() {
    let mut endoflife = json(ENDOFLIFE);
    endoflife["releases"]["1.33"]["eol"] = Value::from("2026-08-31");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), endoflife.to_string()).unwrap();
    let output = Command::new("python3")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tools/aks-versions/generate.py", CALENDAR, "--commit", "c", "--endoflife"])
        .arg(file.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("1.33: endOfSupport 2026-07-31, endoflife.date's eol 2026-08-31"), "{stderr}");
}

#[test]
fn the_data_has_its_shape_and_date() {
    let data = json(DATA);
    let keys: Vec<&str> = data.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["source", "commit", "asOf", "versions"]);
    let commit = data["commit"].as_str().unwrap();
    assert!(commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()), "{commit}");
    let lifecycle = Lifecycle::from_json(&read(DATA)).unwrap();
    assert_eq!(&lifecycle, Lifecycle::bundled(), "the binary bundles the committed file");
    let minors: Vec<u32> = lifecycle.versions.iter().map(|entry| entry.minor.minor).collect();
    assert!(minors.windows(2).all(|pair| pair[1] == pair[0] + 1), "no minor is missing: {minors:?}");
    for entry in data["versions"].as_array().unwrap() {
        let keys: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["minor", "ga", "endOfSupport", "platformSupportUntil", "platformSupportEnd", "ltsEnd"]);
    }
    // The calendar's own date is the date of the commit it was read at (the README's regeneration steps).
    assert!(lifecycle.as_of >= Date::parse("2026-08-05").unwrap());
}

#[test]
fn the_data_agrees_with_endoflife() {
    let lifecycle = Lifecycle::bundled();
    let endoflife = json(ENDOFLIFE);
    let releases = endoflife["releases"].as_object().unwrap();
    assert!(releases.len() >= 8, "the excerpt covers the calendar's minors");
    for (minor, theirs) in releases {
        let ours = lifecycle
            .versions
            .iter()
            .find(|entry| entry.minor.to_string() == *minor)
            .unwrap_or_else(|| panic!("{minor}: in endoflife.date, not in the data"));
        let date = |key: &str| theirs[key].as_str().map(|text| Date::parse(text).unwrap());
        assert_eq!(date("eol"), Some(ours.end_of_support), "{minor}: end of support");
        assert_eq!(date("eoes"), ours.lts_end, "{minor}: LTS end");
        // endoflife.date dates releases by another source than the calendar's GA month: close, not equal.
        let released = date("releaseDate").unwrap();
        assert!(released.days_since(ours.ga).abs() <= 95, "{minor}: released {released}, GA month {}", ours.ga);
    }
}
