//! The fuzz targets' bodies, shared by the cargo-fuzz binaries (fuzz/fuzz_targets/) and by
//! tests/corpora/fuzz_regressions.rs, which replays fuzz/regressions/<target>/* on stable Rust.
//!
//! Each function takes arbitrary bytes and must return without panicking, looping or allocating
//! without bound, whatever the input. Errors are fine; crashes are bugs.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use capz::manifest;
use capz::params::{self, InlineValues, Inputs};
use capz::render::{self, CapiVersion, Engine, clusterctl, envsubst};
use capz::schema::{Registry, ValidateOptions, Validator};
use capz::topology::gotemplate::{self, GoValue};
use serde_json::{Value, json};

/// A target's body: any bytes in, no panic out.
pub type Target = fn(&[u8]);

/// Every target, by the name of its fuzz binary and regressions directory.
pub const TARGETS: &[(&str, Target)] = &[
    ("envsubst", envsubst),
    ("manifest_roundtrip", manifest_roundtrip),
    ("params", params),
    ("gotemplate", gotemplate),
    ("validate", validate),
    ("plan", plan),
    ("escape", escape),
    ("read_budget", read_budget),
];

fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// `${VAR}` substitution as `render --from` / `clusterctl generate cluster --from` run it.
pub fn envsubst(data: &[u8]) {
    let text = text(data);
    let env: BTreeMap<String, String> = [("A", "abc"), ("B", "é-ü"), ("EMPTY", ""), ("N", "12")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let _ = envsubst::process(&text, |name| env.get(name).cloned());
    let _ = envsubst::variable_map(&text);
    let variables = clusterctl::Variables::new(env.clone(), &serde_json::Map::new());
    let _ = clusterctl::generate(&text, "fuzz.yaml", "fuzz-ns", &variables);
}

/// The manifest reader, and our emitter's output read back: it must re-read to the same values.
pub fn manifest_roundtrip(data: &[u8]) {
    let text = text(data);
    let Ok(documents) = manifest::parse_documents(&text, "fuzz.yaml") else { return };
    let values: Vec<&Value> = documents.iter().map(|d| &d.value).collect();
    let emitted = manifest::to_yaml_documents(values.iter().copied());
    let reread = match manifest::parse_documents(&emitted, "emitted.yaml") {
        Ok(reread) => reread,
        Err(err) => panic!("our YAML does not re-read: {err}\n--- input\n{text}\n--- emitted\n{emitted}"),
    };
    let reread: Vec<&Value> = reread.iter().map(|d| &d.value).collect();
    assert_eq!(values, reread, "emit/re-read changed the values\n--- emitted\n{emitted}");
}

thread_local! {
    static ENGINE: Engine = Engine::new(None);
}

/// Parameters: a values file, `--set` lines and `KEY=VALUE` environment lines (sections split
/// by a line `%%`), merged, checked and rendered with a flavor chosen by the first byte.
pub fn params(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let text = text(rest);
    let mut sections = text.splitn(3, "\n%%\n");
    let values_text = sections.next().unwrap_or_default();
    let set_text = sections.next().unwrap_or_default();
    let env_text = sections.next().unwrap_or_default();
    let Ok(value) = manifest::parse_plain_value(values_text, "values.yaml") else { return };
    let inputs = Inputs {
        env: env_text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        set: set_text.lines().map(str::to_string).collect(),
        cluster_name: Some("fuzz".into()),
        values_inline: vec![InlineValues {
            value,
            source: "values.yaml".into(),
            lines: Arc::new(manifest::LineIndex::default()),
            prefix: String::new(),
        }],
        ..Inputs::default()
    };
    let Ok(layered) = params::merge(&inputs) else { return };
    ENGINE.with(|engine| {
        let names = engine.source().flavor_names();
        let Some(name) = names.get(usize::from(selector) % names.len().max(1)) else { return };
        let Ok(flavor) = render::load_flavor(engine.source(), name) else { return };
        let Ok(resolved) = params::resolve(&layered, &flavor.name, &flavor.required, &flavor.unsupported) else {
            return;
        };
        let capi = if selector & 0x80 == 0 { CapiVersion::V1beta1 } else { CapiVersion::V1beta2 };
        let _ = render::render_flavor(engine, &flavor, &resolved, capi);
    });
}

/// The data CAPI passes to patch templates (`builtin`, variables), shaped as JSON gives it.
pub fn template_data() -> Value {
    json!({"builtin":{"cluster":{"name":"c1","namespace":"ns","topology":{"version":"v1.31.2","class":"aks"}},
        "machinePool":{"class":"default-worker","topologyName":"mp-1","replicas":3,"name":"c1-mp-1-abcde"}},
        "replicas":3,"ratio":2.5,"big":1000000,"name":"My-Cluster","list":["x","y","z"],"empty":"","nullish":null,
        "flag":true,"obj":{"b":1,"a":"two","nested":{"k":["v1","v2"]}},"nums":[1,2,3],"utf8":"héllo wörld ☃"})
}

/// The Go template engine of `plan` (patch `valueFrom.template`, names, `enabledIf`).
pub fn gotemplate(data: &[u8]) {
    static DATA: OnceLock<Value> = OnceLock::new();
    let text = text(data);
    let _ = gotemplate::render(&text, &GoValue::from_json(DATA.get_or_init(template_data)));
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::embedded)
}

/// `validate` on one file: schemas (with CEL) for every object and every lint rule.
pub fn validate(data: &[u8]) {
    let text = text(data);
    let Ok(documents) = manifest::parse_documents(&text, "fuzz.yaml") else { return };
    // One validator for the whole run, as `validate` keeps one for every document: it caches
    // compiled CEL and regexes, which would otherwise be rebuilt on every input.
    static VALIDATOR: OnceLock<Validator<'static>> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| Validator::new(registry(), ValidateOptions::default()));
    for document in &documents {
        let _ = validator.validate_document(document);
    }
    let selection = capz::lint::RuleSelection::all();
    let whole = capz::lint::check(&documents, &selection);
    // `validate` runs the rules per group of related objects (lint::StreamedBundle): it must find what the rules
    // find over the whole bundle.
    let mut bundle = capz::lint::StreamedBundle::default();
    bundle.add(&documents);
    let streamed = bundle.check(&selection);
    assert_eq!(
        as_report(whole),
        as_report(streamed),
        "grouped rules differ from whole-bundle rules\n--- input\n{text}"
    );
}

/// Findings as validate's report lists them: by file, line and column, then path, rule and message, once each.
fn as_report(mut findings: Vec<capz::report::Finding>) -> Vec<capz::report::Finding> {
    findings.sort_by(|a, b| {
        (&a.source, a.line, a.column, &a.path, &a.rule, &a.message)
            .cmp(&(&b.source, b.line, b.column, &b.path, &b.rule, &b.message))
    });
    findings.dedup();
    findings
}

/// `plan` on one file: every topology Cluster planned against the classes in the file.
pub fn plan(data: &[u8]) {
    let text = text(data);
    let Ok(documents) = manifest::parse_documents(&text, "fuzz.yaml") else { return };
    let _ = capz::topology::plan_all(&documents);
}

/// Whether a line would be a CI command: `::` after leading white space (GitHub Actions), or `##[` / `##vso[`
/// anywhere (GitHub Actions' older form, Azure Pipelines).
fn is_ci_command(line: &str) -> bool {
    line.trim_start_matches(char::is_whitespace).starts_with("::") || line.contains("##[") || line.contains("##vso[")
}

/// Asserts that no line of `output` is a CI command and that no character a terminal or log acts on is raw.
fn assert_log_safe(what: &str, input: &str, output: &str) {
    for line in output.split('\n') {
        assert!(
            !line.chars().any(capz::escape::is_unsafe_char),
            "{what} of {input:?}: raw control character: {line:?}"
        );
        assert!(!is_ci_command(line), "{what} of {input:?}: a CI command: {line:?}");
    }
}

/// The escaping of everything the repository gives: on one line, at the start of a line, as lines, as JSON and as
/// YAML (both of which must read back to the same data).
pub fn escape(data: &[u8]) {
    let text = text(data);
    let one = capz::escape::one_line(&text);
    assert!(!one.contains('\n'), "one_line kept a line break: {one:?}");
    // Text in the middle of a line (after our own `file:line: `): only its start may not be guarded.
    assert_log_safe("one_line after a prefix", &text, &format!("x: {one}"));
    assert_log_safe("line_start", &text, &capz::escape::line_start(&text));
    assert_log_safe("lines", &text, &capz::escape::lines(&text));
    let text = text.to_string();
    let value = json!({"message": text, text.clone(): [text, {"k": text}]});
    let json = capz::escape::json::to_string_pretty(&value).expect("JSON of a value");
    assert_log_safe("JSON", &text, &json);
    let back: Value = serde_json::from_str(&json).expect("our JSON reads back");
    assert_eq!(back, value, "JSON changed the data");
    let yaml = manifest::to_yaml(&value);
    assert_log_safe("YAML", &text, &yaml);
    let (back, _) = manifest::parse_value(&yaml, "emitted.yaml").expect("our YAML reads back");
    assert_eq!(back, value, "YAML changed the data\n{yaml}");
}

/// The YAML reader within a tight alias budget: streamed in pieces of 64 bytes, what aliases expand never passes the
/// run's limit, and the streamed documents and problems are exactly those of the whole text read at once within
/// the same limits (a differential check of the streaming cutter, the bounded line reading and the budget).
pub fn read_budget(data: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static FILE: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "capz-fuzz-{}-{}.yaml",
        std::process::id(),
        FILE.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, data).expect("temporary file");
    let paths = [path.display().to_string()];
    let (file_limit, run_limit) = (20_000, 30_000);
    let budget = manifest::ReadBudget::new(file_limit, run_limit);
    let mut numbering = manifest::DocumentNumbering::default();
    let (mut streamed, mut streamed_problems) = (Vec::new(), Vec::new());
    let result = manifest::stream_pieces(&paths, 64, &budget, &mut |piece| {
        let outcome = piece.read();
        let offset = numbering.offset(piece.is_first_of_source(), outcome.documents.len());
        for document in &outcome.documents {
            streamed.push((document.origin.index + offset, document.origin.line, document.value.clone()));
        }
        streamed_problems.extend(outcome.problems.iter().map(|p| (p.line, p.column, p.message.clone())));
    });
    let _ = std::fs::remove_file(&path);
    if result.is_err() {
        return;
    }
    assert!(budget.expanded() <= run_limit, "expanded {} past {run_limit}", budget.expanded());
    let whole_budget = manifest::ReadBudget::new(file_limit, run_limit);
    let source = paths[0].as_str();
    let whole = match std::str::from_utf8(data) {
        Ok(text) => manifest::parse_documents_tolerant_within(text, source, &whole_budget),
        // Not UTF-8: one problem, as the whole-file reader says.
        Err(_) => return,
    };
    let whole_documents: Vec<_> =
        whole.documents.iter().map(|d| (d.origin.index, d.origin.line, d.value.clone())).collect();
    let mut whole_problems: Vec<_> = whole.problems.iter().map(|p| (p.line, p.column, p.message.clone())).collect();
    assert_eq!(streamed, whole_documents, "streamed documents differ from the whole text's");
    // The same problems; their order is the report's (sorted by line and column): a piece's syntax error can come
    // before an earlier document's problem in the stream (found by this target), which the report reorders.
    streamed_problems.sort();
    whole_problems.sort();
    assert_eq!(streamed_problems, whole_problems, "streamed problems differ from the whole text's");
    assert_eq!(budget.expanded(), whole_budget.expanded());
}
