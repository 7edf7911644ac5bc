//! docs/rules.md is generated from `capz::lint::rules()`; this test fails when it is stale.
//! Regenerate with `UPDATE_RULES_DOC=1 cargo test --test lint_rules_doc`.

use capz::lint::rules;
use capz::report::Severity;

const PATH: &str = "docs/rules.md";

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
        Severity::NotChecked => "not-checked",
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn render() -> String {
    let mut out = String::from(
        "# CAPZ rules of `kubectl capz validate`\n\n\
         Generated from `capz::lint::rules()` by `tests/lint_rules_doc.rs`; do not edit by hand.\n\n\
         Each rule reproduces, offline and across the whole bundle, a check that CAPZ (or CAPI/ASO) only makes in a \
         webhook or a controller after the objects are applied. `--disable RULE` turns a rule off, `--enable RULE` \
         turns on a rule that is off by default. Only `error` findings make `validate` exit 1.\n\n\
         Cross-object rules match objects by namespace and name; an object without `metadata.namespace` matches any \
         namespace (it lands wherever the apply puts it).\n\n\
         | id | severity | default | mirrors | what it checks |\n|---|---|---|---|---|\n",
    );
    for rule in rules() {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            rule.id,
            severity(rule.severity),
            if rule.enabled_by_default { "on" } else { "off" },
            cell(rule.mirrors),
            cell(rule.summary),
        ));
    }
    out.push_str(
        "\n## Rules of the reader and the schema checks\n\n\
         Every finding of these is an error unless said otherwise. Text that cannot be read into objects \
         (`yaml-syntax`, `yaml-duplicate-key`, `not-an-object`) is reported at file:line:col and validation goes \
         on with every other document and file; these rules and `schema-missing` cannot be disabled.\n\n\
         | id | what it checks |\n|---|---|\n",
    );
    for (id, summary) in capz::manifest::READ_RULES.iter().chain(capz::schema::validate::RULES) {
        out.push_str(&format!("| `{id}` | {} |\n", cell(summary)));
    }
    out
}

#[test]
fn rules_doc_is_up_to_date() {
    let expected = render();
    if std::env::var_os("UPDATE_RULES_DOC").is_some() {
        std::fs::create_dir_all("docs").unwrap();
        std::fs::write(PATH, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        actual == expected,
        "{PATH} is stale; regenerate it with `UPDATE_RULES_DOC=1 cargo test --test lint_rules_doc`"
    );
}

#[test]
fn every_rule_is_in_the_doc() {
    let doc = render();
    for rule in rules() {
        assert!(doc.contains(&format!("| `{}` |", rule.id)), "{} missing", rule.id);
    }
}
