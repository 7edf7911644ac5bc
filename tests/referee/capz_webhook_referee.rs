//! Replays CAPZ's real admission webhooks, recorded per target by tools/capz-webhook-oracle from that target's
//! CAPZ release (internal/webhooks of v1.26.0 and v1.27.0, src/versions.rs), against
//! `kubectl-capz validate --capz-version <target>`, case by case.
//!
//! The cases are shared (tests/fixtures/capz-webhooks/cases/); each target has its recordings and known
//! differences in tests/fixtures/capz-webhooks/<target>/: the newest target's recordings whole, an older one's as
//! the cases in which it differs (`recordings.delta.json`, laid over the newest's). The recordings' header names the CAPZ, CAPI and ASO
//! versions the referee was built with (and the ASO `replace` where the pinned ASO release is not served): they
//! must be the target's.
//!
//! For every CAPZ object of every case:
//! - CAPZ's webhook denies it (at create, or at Cluster API's first update that adds the
//!   cluster-name label): `validate` must report a `capz-*` error at each field path CAPZ names;
//! - the CRD schema denies it before any webhook runs: `validate` must report an error at that path;
//! - CAPZ's webhook cannot decode it (a value of the wrong JSON type, `json: cannot unmarshal ...`, which the
//!   mutating webhook meets before the schema check): `validate` must report an error at the field named;
//! - CAPZ accepts it at both phases: `validate` must report no `capz-*` error on it.
//!
//! Every disagreement must be listed, with its reason, in the target's known-differences.yaml; a listed
//! difference that no longer occurs fails the test too. `UPDATE_KNOWN_DIFFERENCES=1` rewrites those files from
//! the current disagreements (keeping the reasons already written, `why: TODO` for new ones, which the test
//! rejects). `REFEREE_REPORT=<file>` also writes the disagreement table there as Markdown (`<file>` gets the
//! target's name inserted before its extension).

use crate::support::{self, cli_runner};

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

const FIXTURES: &str = "tests/fixtures/capz-webhooks";
const TODO: &str = "TODO";

#[derive(Debug, Deserialize)]
struct Recordings {
    /// The CAPZ release the referee was built from.
    capz: String,
    /// The CAPI and ASO module versions linked into the referee (ASO's as CAPZ's go.mod pins it).
    capi: String,
    aso: String,
    /// The replace the referee's build used for ASO, where the pinned release is not served.
    #[serde(default)]
    aso_replace: Option<String>,
    cases: Vec<RecordedCase>,
}

#[derive(Debug, Deserialize)]
struct RecordedCase {
    case: String,
    /// FNV-1a 64-bit hash of the case file the verdicts were recorded from.
    input_fnv1a64: String,
    objects: Vec<RecordedObject>,
}

fn fnv1a64(bytes: &[u8]) -> String {
    format!("{:016x}", support::fnv1a64(bytes))
}

#[derive(Debug, Deserialize)]
struct RecordedObject {
    kind: String,
    name: String,
    create: Verdict,
    update: Option<Verdict>,
}

#[derive(Debug, Deserialize)]
struct Verdict {
    allowed: bool,
    #[serde(default)]
    stage: String,
    #[serde(default)]
    errors: Vec<FieldError>,
    /// What admission changed (CRD defaults and CAPZ's defaulting webhook), RFC 6902.
    #[serde(default)]
    patch: Vec<PatchOperation>,
}

#[derive(Debug, Deserialize)]
struct PatchOperation {
    path: String,
    #[serde(default)]
    value: Value,
}

#[derive(Debug, Deserialize)]
struct FieldError {
    field: String,
    #[serde(default)]
    message: String,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
struct KnownDifference {
    case: String,
    object: String,
    differs: String,
    why: String,
}

/// One error finding of ours.
#[derive(Debug, Clone)]
struct OurError {
    rule: String,
    object: String,
    path: Vec<String>,
}

/// One disagreement between CAPZ and us, with what the table shows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Disagreement {
    case: String,
    object: String,
    /// Stable key, matched against known-differences.yaml.
    differs: String,
    phase: String,
    capz: String,
    ours: String,
    /// What the per-rule count groups by: CAPZ's field for misses, our rule id for extras.
    group: String,
}

/// Lower-cased path segments without list indexes.
fn segments_of_pointer(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~").to_lowercase())
        .filter(|s| !s.is_empty() && s.parse::<usize>().is_err())
        .collect()
}

/// CAPZ's field path (`spec.virtualNetwork.Subnet.PrivateEndpoints[0].name`, `spec.extensions.[1].scope`)
/// as the object-relative segments it points at, and whether it names a field of the Cluster instead.
/// A few of CAPZ's paths do not spell a real field; they are mapped to the field they are about.
fn capz_field(kind: &str, field: &str) -> (bool, Vec<String>) {
    let mut segments: Vec<String> = field
        .replace('[', ".")
        .replace(']', "")
        .split('.')
        .map(str::to_lowercase)
        .filter(|s| !s.is_empty() && s.parse::<usize>().is_err())
        .collect();
    if segments.first().map(String::as_str) == Some("cluster") {
        segments.remove(0);
        return (true, segments);
    }
    let template = kind.ends_with("Template");
    let joined = segments.join(".");
    let alias = |from: &str, to: &str, segments: &mut Vec<String>| {
        if joined == from || joined.starts_with(&format!("{from}.")) {
            let rest: Vec<String> = segments[from.split('.').count()..].to_vec();
            *segments = to.split('.').map(String::from).chain(rest).collect();
            true
        } else {
            false
        }
    };
    let prefix = if template { "spec.template.spec" } else { "spec" };
    let _ = alias("name.name", "metadata.name", &mut segments)
        || alias("sshkey", "spec.sshpublickey", &mut segments)
        || alias("spec.aksextensions", &format!("{prefix}.extensions"), &mut segments)
        || alias(
            &format!("{prefix}.kubeletconfig.cpufsquotaperiod"),
            &format!("{prefix}.kubeletconfig.cpucfsquotaperiod"),
            &mut segments,
        )
        || alias(
            &format!("{prefix}.linuxosconfig.netipv4iplocalportrange"),
            &format!("{prefix}.linuxosconfig.sysctls.netipv4iplocalportrange"),
            &mut segments,
        );
    // Several validators shared with the templates hard-code `spec.<field>` (autoscalerProfile,
    // securityProfile, extensions): on a template they mean `spec.template.spec.<field>`.
    if template && segments.first().is_some_and(|s| s == "spec") && segments.get(1).is_some_and(|s| s != "template") {
        segments.splice(1..1, ["template".to_string(), "spec".to_string()]);
    }
    // `...netIpv4IpLocalPortRange.First/.Last` name a part of the value, not a field.
    if segments.last().is_some_and(|s| s == "first" || s == "last")
        && segments.iter().any(|s| s == "netipv4iplocalportrange")
    {
        segments.pop();
    }
    (false, segments)
}

/// Ours matches CAPZ's field when it names the same field or one inside it.
fn matches(ours: &[String], capz: &[String]) -> bool {
    ours.len() >= capz.len() && ours[..capz.len()] == *capz
}

fn run_validate(case_file: &Path, target: &str) -> Vec<OurError> {
    let output = cli_runner::capz(&[])
        .current_dir(support::repo_root())
        .args(["validate", case_file.to_str().unwrap(), "--capz-version", target, "-o", "json"])
        .output()
        .unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "validate {} exited {:?}: {}",
        case_file.display(),
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("validate {} -o json is not JSON: {e}", case_file.display()));
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| OurError {
            rule: f["rule"].as_str().unwrap().to_string(),
            object: f["object"].as_str().unwrap().to_string(),
            path: segments_of_pointer(f["path"].as_str().unwrap_or("")),
        })
        .collect()
}

fn describe(errors: &[&OurError]) -> String {
    if errors.is_empty() {
        return "no error".into();
    }
    errors.iter().map(|e| format!("{} /{}", e.rule, e.path.join("/"))).collect::<Vec<_>>().join("; ")
}

/// Fields CAPZ's defaulting filled from metadata.name (e.g. spec.name of a pool, spec.dnsPrefix): an
/// error CAPZ reports there is about metadata.name, the only place the manifest holds that value.
fn defaulted_from_name(object: &RecordedObject) -> Vec<Vec<String>> {
    object
        .create
        .patch
        .iter()
        .filter(|op| op.value.as_str() == Some(object.name.as_str()))
        .map(|op| segments_of_pointer(&op.path))
        .collect()
}

/// Rules that mirror CAPZ's mutators (pkg/mutators): they reject at reconcile time, not in a webhook,
/// so this referee cannot confirm or refute them on objects the webhooks accept.
fn mutator_rules() -> BTreeSet<&'static str> {
    capz::lint::rules().iter().filter(|r| r.mirrors.contains("pkg/mutators/")).map(|r| r.id).collect()
}

/// Compares one recorded object with our findings; returns the disagreements.
fn compare(case: &str, object: &RecordedObject, ours: &[OurError], cluster_objects: &[String]) -> Vec<Disagreement> {
    let id = format!("{}/{}", object.kind, object.name);
    let from_name = defaulted_from_name(object);
    let mutators = mutator_rules();
    let on_object: Vec<&OurError> = ours.iter().filter(|e| e.object == id).collect();
    let capz_on_object: Vec<&OurError> = on_object.iter().copied().filter(|e| e.rule.starts_with("capz-")).collect();
    let mut out = Vec::new();
    let denial = if !object.create.allowed {
        Some(("create", &object.create))
    } else {
        object.update.as_ref().filter(|u| !u.allowed).map(|u| ("first update", u))
    };
    let Some((phase, verdict)) = denial else {
        for error in capz_on_object.iter().filter(|e| !mutators.contains(e.rule.as_str())) {
            out.push(Disagreement {
                case: case.into(),
                object: id.clone(),
                differs: format!("extra {} /{}", error.rule, error.path.join("/")),
                phase: "-".into(),
                capz: "accepted (create and first update)".into(),
                ours: format!("{} /{}", error.rule, error.path.join("/")),
                group: error.rule.clone(),
            });
        }
        return out;
    };
    for error in &verdict.errors {
        // A value of the wrong JSON type fails the decode of CAPZ's (mutating) webhook before the schema
        // check runs; it is a type error at the field the message names, which the schema check reports.
        let decoded_field = decode_error_field(&error.message);
        let schema = verdict.stage == "schema" || decoded_field.is_some();
        let error_field = decoded_field.unwrap_or_else(|| error.field.clone());
        let (on_cluster, field) = capz_field(&object.kind, &error_field);
        let candidates: Vec<&OurError> = if on_cluster {
            ours.iter()
                .filter(|e| cluster_objects.contains(&e.object) || e.object == id)
                .filter(|e| schema || e.rule.starts_with("capz-"))
                .collect()
        } else if schema {
            on_object.clone()
        } else {
            capz_on_object.clone()
        };
        // For the Cluster's fields, a finding on the CAPZ object at its own field also counts
        // (e.g. /spec/dnsServiceIP for "DNSServiceIP must reside within the service CIDR").
        let named = !on_cluster && from_name.contains(&field);
        let found = candidates.iter().any(|e| {
            matches(&e.path, &field)
                || (on_cluster && e.object == id && e.rule.starts_with("capz-"))
                || (named && e.object == id && e.path == ["metadata", "name"])
        });
        if !found {
            let stage = if schema { "schema" } else { "webhook" };
            let field_text = if error_field.is_empty() { "(no field)".to_string() } else { error_field.clone() };
            out.push(Disagreement {
                case: case.into(),
                object: id.clone(),
                differs: format!("missed {phase} {stage} {field_text}"),
                phase: phase.into(),
                capz: format!("denied by {stage}: {field_text}: {}", truncate(&error.message, 110)),
                ours: describe(if schema { &on_object } else { &capz_on_object }),
                group: format!("{stage} {}", field.join(".")),
            });
        }
    }
    out
}

/// The JSON field of a Go decode error (`json: cannot unmarshal string into Go struct field
/// AzureManagedMachinePoolSpec.spec.AzureManagedMachinePoolClassSpec.maxPods of type int` -> `spec.maxPods`):
/// the struct's type name and the embedded structs' type names (capitalised) are not JSON fields.
fn decode_error_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("json: cannot unmarshal ")?;
    let (_, rest) = rest.split_once(" into Go struct field ")?;
    let (go_path, _) = rest.rsplit_once(" of type ")?;
    let fields: Vec<&str> = go_path
        .split('.')
        .skip(1)
        .filter(|segment| segment.chars().next().is_some_and(|c| !c.is_uppercase()))
        .collect();
    Some(fields.join("."))
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(max).collect::<String>())
    }
}

fn yaml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn write_known_differences(path: &Path, target: &str, current: &[Disagreement], previous: &[KnownDifference]) {
    let reasons: BTreeMap<(&str, &str, &str), &str> =
        previous.iter().map(|k| ((k.case.as_str(), k.object.as_str(), k.differs.as_str()), k.why.as_str())).collect();
    let mut text = format!(
        "# Where `kubectl capz validate --capz-version {target}` and the real webhooks of that target's CAPZ release\n\
         # (tests/fixtures/capz-webhooks/{target}/recordings.json) disagree, on purpose or not yet fixed.\n\
         # tests/referee/capz_webhook_referee.rs fails on any disagreement not listed here, on an entry that no longer\n\
         # occurs, and on `why: TODO`.\n\
         # Regenerate: UPDATE_KNOWN_DIFFERENCES=1 cargo test --test referee capz_webhook_referee (keeps written reasons).\n",
    );
    if current.is_empty() {
        text.push_str("[]\n");
    }
    for d in current {
        let why = reasons.get(&(d.case.as_str(), d.object.as_str(), d.differs.as_str())).copied().unwrap_or(TODO);
        let _ = writeln!(text, "- case: {}", yaml_string(&d.case));
        let _ = writeln!(text, "  object: {}", yaml_string(&d.object));
        let _ = writeln!(text, "  differs: {}", yaml_string(&d.differs));
        let _ = writeln!(text, "  why: {}", yaml_string(why));
    }
    std::fs::write(path, text).unwrap();
}

fn table(rows: &[&Disagreement]) -> String {
    let mut out = String::from("| case | object | phase | CAPZ | ours |\n|---|---|---|---|---|\n");
    for d in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            d.case,
            d.object,
            d.phase,
            d.capz.replace('|', "\\|"),
            d.ours.replace('|', "\\|")
        );
    }
    out
}

#[test]
fn validate_agrees_with_capz_v1_27_webhooks() {
    referee("v1.27");
}

#[test]
fn validate_agrees_with_capz_v1_26_webhooks() {
    referee("v1.26");
}

/// The recordings' header must name the target's CAPZ release and the CAPI and ASO releases it pins.
fn check_header(recordings: &Recordings, target: &capz::versions::Target) {
    assert_eq!(recordings.capz, target.capz, "{}: recorded from another CAPZ release", target.name);
    assert_eq!(recordings.capi, target.capi, "{}: the referee linked another CAPI release", target.name);
    assert_eq!(recordings.aso, target.aso, "{}: the referee's CAPZ pins another ASO release", target.name);
    if let Some(replace) = &recordings.aso_replace {
        assert!(
            replace.starts_with("github.com/Azure/azure-service-operator/v2 => "),
            "{}: unexpected replace {replace}",
            target.name
        );
        assert!(target.aso_note.is_some(), "{}: ASO replaced although {} is served", target.name, target.aso);
    }
}

fn referee(target_name: &str) {
    let target = capz::versions::find_target(target_name).expect("a supported target");
    let root = support::repo_root();
    let fixtures = root.join(FIXTURES);
    let recordings: Recordings = serde_json::from_value(support::recordings(&fixtures, target_name))
        .unwrap_or_else(|err| panic!("{target_name}'s recordings: {err}"));
    check_header(&recordings, target);
    let known_path = fixtures.join(target_name).join("known-differences.yaml");
    let known: Vec<KnownDifference> =
        serde_saphyr::from_str(&std::fs::read_to_string(&known_path).unwrap_or_else(|_| "[]".into())).unwrap();

    let case_files: BTreeSet<String> = std::fs::read_dir(fixtures.join("cases"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".yaml").to_string())
        .collect();
    let recorded: BTreeSet<String> = recordings.cases.iter().map(|c| c.case.clone()).collect();
    assert_eq!(
        case_files, recorded,
        "cases/ and {target_name}/recordings.json differ: run tools/capz-webhook-oracle/regen.sh {}",
        target.capz
    );
    assert!(recordings.cases.len() >= 150, "the corpus must hold at least 150 cases");

    let mut disagreements = Vec::new();
    let (mut objects, mut agreeing) = (0usize, 0usize);
    for case in &recordings.cases {
        let file = PathBuf::from(FIXTURES).join("cases").join(format!("{}.yaml", case.case));
        let ours = run_validate(&file, target_name);
        let text = std::fs::read_to_string(root.join(&file)).unwrap();
        assert_eq!(
            fnv1a64(text.as_bytes()),
            case.input_fnv1a64,
            "{} changed since it was recorded: run tools/capz-webhook-oracle/regen.sh {}",
            file.display(),
            target.capz
        );
        let cluster_objects: Vec<String> = capz::manifest::parse_documents(&text, "case")
            .unwrap()
            .iter()
            .filter(|d| d.kind() == "Cluster")
            .map(|d| d.display_name())
            .collect();
        for object in &case.objects {
            objects += 1;
            let found = compare(&case.case, object, &ours, &cluster_objects);
            if found.is_empty() {
                agreeing += 1;
            }
            disagreements.extend(found);
        }
    }
    disagreements.sort();
    disagreements.dedup();

    let mut by_group: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &disagreements {
        *by_group.entry(d.group.as_str()).or_default() += 1;
    }
    let mut summary = format!(
        "CAPZ {} ({target_name}): {} cases, {objects} CAPZ objects: {agreeing} agree, {} disagree ({} disagreements)\n\
         by rule / CAPZ field:\n",
        recordings.capz,
        recordings.cases.len(),
        objects - agreeing,
        disagreements.len()
    );
    for (group, n) in &by_group {
        let _ = writeln!(summary, "  {n:4}  {group}");
    }
    eprintln!("{summary}");

    if let Ok(report) = std::env::var("REFEREE_REPORT") {
        let rows: Vec<&Disagreement> = disagreements.iter().collect();
        let text = format!(
            "# kubectl-capz validate --capz-version {target_name} vs CAPZ's webhooks ({} internal/webhooks)\n\n\
             ```\n{summary}```\n\n{}",
            recordings.capz,
            table(&rows)
        );
        let report = Path::new(&report);
        let stem = report.file_stem().unwrap_or_default().to_string_lossy();
        let name = match report.extension() {
            Some(ext) => format!("{stem}-{target_name}.{}", ext.to_string_lossy()),
            None => format!("{stem}-{target_name}"),
        };
        std::fs::write(report.with_file_name(name), text).unwrap();
    }
    if std::env::var("UPDATE_KNOWN_DIFFERENCES").is_ok_and(|v| v == "1") {
        write_known_differences(&known_path, target_name, &disagreements, &known);
        eprintln!("rewrote {}", known_path.display());
    }

    let key = |case: &str, object: &str, differs: &str| (case.to_string(), object.to_string(), differs.to_string());
    let listed: BTreeMap<_, &KnownDifference> =
        known.iter().map(|k| (key(&k.case, &k.object, &k.differs), k)).collect();
    let current: BTreeSet<_> = disagreements.iter().map(|d| key(&d.case, &d.object, &d.differs)).collect();
    let unlisted: Vec<&Disagreement> =
        disagreements.iter().filter(|d| !listed.contains_key(&key(&d.case, &d.object, &d.differs))).collect();
    let stale: Vec<&&KnownDifference> = listed.iter().filter(|(k, _)| !current.contains(*k)).map(|(_, v)| v).collect();
    let todo: Vec<&KnownDifference> =
        known.iter().filter(|k| k.why.trim().is_empty() || k.why.trim() == TODO).collect();

    let mut failure = String::new();
    if !unlisted.is_empty() {
        let _ = write!(
            failure,
            "\n{} disagreement(s) with CAPZ's webhooks not in {target_name}/known-differences.yaml:\n{}",
            unlisted.len(),
            table(&unlisted)
        );
    }
    if !stale.is_empty() {
        let _ = writeln!(failure, "\n{} listed difference(s) no longer occur (remove them):", stale.len());
        for k in &stale {
            let _ = writeln!(failure, "  {} {} {}", k.case, k.object, k.differs);
        }
    }
    if !todo.is_empty() {
        let _ = writeln!(failure, "\n{} listed difference(s) without a reason (why: TODO):", todo.len());
        for k in &todo {
            let _ = writeln!(failure, "  {} {} {}", k.case, k.object, k.differs);
        }
    }
    assert!(failure.is_empty(), "{summary}{failure}");
}

#[test]
fn capz_field_paths_map_to_manifest_fields() {
    let seg = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(capz_field("AzureManagedControlPlane", "name.Name"), (false, seg(&["metadata", "name"])));
    assert_eq!(
        capz_field("AzureManagedControlPlane", "spec.extensions.[1].scope"),
        (false, seg(&["spec", "extensions", "scope"]))
    );
    assert_eq!(
        capz_field("AzureManagedControlPlane", "Cluster.spec.clusterNetwork.services.cidrBlocks"),
        (true, seg(&["spec", "clusternetwork", "services", "cidrblocks"]))
    );
    assert_eq!(
        capz_field("AzureManagedMachinePool", "spec.linuxOSConfig.NetIpv4IpLocalPortRange.First"),
        (false, seg(&["spec", "linuxosconfig", "sysctls", "netipv4iplocalportrange"]))
    );
    assert_eq!(
        capz_field("AzureManagedControlPlaneTemplate", "spec.extensions.Version"),
        (false, seg(&["spec", "template", "spec", "extensions", "version"]))
    );
    assert_eq!(
        capz_field("AzureManagedControlPlaneTemplate", "spec.template.spec.version"),
        (false, seg(&["spec", "template", "spec", "version"]))
    );
    assert_eq!(capz_field("AzureManagedControlPlaneTemplate", "name.Name"), (false, seg(&["metadata", "name"])));
    assert!(matches(&segments_of_pointer("/spec/nodeLabels/kubernetes.azure.com~1x"), &seg(&["spec", "nodelabels"])));
    assert!(!matches(&segments_of_pointer("/spec/dnsPrefix"), &seg(&["spec", "version"])));
}

#[test]
fn decode_errors_name_the_json_field() {
    let message = "json: cannot unmarshal string into Go struct field \
                   AzureManagedMachinePoolSpec.spec.AzureManagedMachinePoolClassSpec.maxPods of type int";
    assert_eq!(decode_error_field(message).as_deref(), Some("spec.maxPods"));
    let template = "json: cannot unmarshal bool into Go struct field AzureManagedMachinePoolTemplateResourceSpec.\
                    spec.template.spec.AzureManagedMachinePoolClassSpec.nodeLabels of type string";
    assert_eq!(decode_error_field(template).as_deref(), Some("spec.template.spec.nodeLabels"));
    assert_eq!(decode_error_field("spec.version: Invalid value"), None);
}
