//! The rule part of the shared corpus: every `tests/corpus/invalid/{capz,aks,aso,capi,clusterctl}-*.yaml` yields exactly the
//! error findings its `# expect:` lines name (rule id + JSON pointer), and no file in `tests/corpus/valid`
//! has a CAPZ-rule error. (`tests/corpora/validate_corpus.rs` runs the whole `validate`, schemas included.)

use std::path::{Path, PathBuf};

use capz::aks_versions::Date;
use capz::lint::{RuleSelection, check};
use capz::manifest::parse_documents;
use capz::report::Severity;

/// File name prefixes of the rule corpus: one per rejecter (see docs/rules.md).
const RULE_PREFIXES: &[&str] = &["capz-", "aks-", "aso-", "capi-", "clusterctl-"];

fn rule_files(dir: &str) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = RULE_PREFIXES.iter().flat_map(|prefix| files(dir, prefix)).collect();
    all.sort();
    all
}

fn files(dir: &str, prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{dir}: {err}"))
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with(prefix) && name.ends_with(".yaml")
        })
        .collect();
    files.sort();
    files
}

/// The `# expect:` lines at the top of a corpus file.
fn expectations(text: &str) -> Vec<String> {
    text.lines()
        .take_while(|line| line.starts_with('#'))
        .filter_map(|line| line.strip_prefix("# expect:"))
        .map(|rest| rest.trim().to_string())
        .collect()
}

/// The day a corpus file is judged on: its `# args: --at DAY`, as `validate` reads it (tests/corpora/validate_corpus.rs),
/// else the tests' day: never the wall clock.
fn day(text: &str) -> Date {
    let args: Vec<&str> = text
        .lines()
        .take_while(|line| line.starts_with('#'))
        .filter_map(|line| line.strip_prefix("# args:"))
        .flat_map(str::split_whitespace)
        .collect();
    let at = args.windows(2).find(|pair| pair[0] == "--at").map_or(crate::support::AKS_TEST_DAY, |pair| pair[1]);
    Date::parse(at).unwrap_or_else(|err| panic!("--at {at}: {err}"))
}

/// `rule pointer` of every error finding of the CAPZ rules (default selection, on the file's day).
fn errors(path: &Path) -> (Vec<String>, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let documents = parse_documents(&text, &path.display().to_string()).unwrap();
    let selection = RuleSelection::new(&[], &[]).unwrap().on_date(day(&text));
    let found: Vec<String> = check(&documents, &selection)
        .into_iter()
        .filter(|finding| finding.severity == Severity::Error)
        .map(|finding| format!("{} {}", finding.rule, finding.path))
        .collect();
    (found, text)
}

#[test]
fn invalid_capz_files_yield_exactly_their_expected_errors() {
    let files = rule_files("tests/corpus/invalid");
    assert!(files.len() >= 20, "the rule corpus is missing");
    for path in files {
        let (mut found, text) = errors(&path);
        // Only the expectations of lint rules (a file may also expect the schema's finding on the same field).
        let lint_rule = |line: &String| capz::lint::rules().iter().any(|rule| line.split(' ').next() == Some(rule.id));
        let mut expected: Vec<String> = expectations(&text).into_iter().filter(lint_rule).collect();
        assert!(
            !expected.is_empty() && !expected.contains(&"valid".to_string()),
            "{}: no expectations",
            path.display()
        );
        found.sort();
        expected.sort();
        assert_eq!(found, expected, "{}", path.display());
    }
}

#[test]
fn every_error_rule_has_an_invalid_corpus_file() {
    let names: Vec<String> = rule_files("tests/corpus/invalid")
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // The rules of a change review judge pairs (tests/referee/capz_update_referee.rs, tests/corpora/change_review.rs).
    for rule in capz::lint::rules().iter().filter(|rule| rule.severity == Severity::Error && !rule.judges_a_change()) {
        assert!(
            names.iter().any(|name| name.starts_with(&format!("{}-", rule.id))),
            "no tests/corpus/invalid/{}-*.yaml",
            rule.id
        );
    }
}

#[test]
fn valid_files_have_no_capz_errors() {
    let files = files("tests/corpus/valid", "");
    assert!(!files.is_empty());
    for path in files {
        let (found, text) = errors(&path);
        assert_eq!(expectations(&text), ["valid"], "{}", path.display());
        assert!(found.is_empty(), "{}: {found:?}", path.display());
    }
}
