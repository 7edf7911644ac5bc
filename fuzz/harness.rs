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
