//! Validation of objects against their schemas with the API server's semantics for custom
//! resources: unknown fields rejected (as `fieldValidation=Strict`) except under
//! `x-kubernetes-preserve-unknown-fields`; defaults applied, then non-nullable nulls pruned;
//! types (both int-or-string forms), enums, patterns, bounds, Kubernetes formats, list-type
//! map/set uniqueness, embedded resources, ObjectMeta rules, CEL; and the ASO objects embedded in
//! `AzureASOManaged*.spec.resources`, each against the schema of its own apiVersion/kind.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, PoisonError, RwLock};

use regex::Regex;
use serde::Serialize;
use serde_json::{Map, Value};

use super::cel::CelChecker;
use super::issue::Issue;
use super::meta::{self, NameRule};
use super::pointer::Pointer;
use super::{AsoInstall, Gvk, KindSchema, Registry, formats, holds_key, removed_apis};
use crate::fast_hash::HashMap;
use crate::json_pointer::At;
use crate::json_pointer::Fields;
use crate::json_pointer::escape_token;
use crate::manifest::{Document, SecretValues, is_secret_data_pointer, split_api_version};
use crate::report::{Finding, Severity};
use crate::versions::Target;

/// Ids of the findings this module produces.
pub const RULES: &[(&str, &str)] = &[
    ("schema", "a value the CRD schema rejects (type, enum, pattern, bounds, format, required, list uniqueness)"),
    ("unknown-field", "a field the schema does not declare (the API server rejects it with fieldValidation=Strict)"),
    ("metadata", "metadata the API server rejects (name, namespace, labels, annotations, finalizers)"),
    ("cel", "an x-kubernetes-validations CEL rule fails (or could not be evaluated: not-checked)"),
    (
        "api-version",
        "the apiVersion is not served for this kind by the target: the kind's own CRD in the target's CAPI, Cluster API Operator, CAPZ or ASO release, or the Kubernetes release's built-in kinds (a kind of none of them is never this error)",
    ),
    (
        "aso-crd-pattern",
        "an ASO kind outside CAPZ's --crd-pattern and the ADDITIONAL_ASO_CRDS the inputs set (warning: CAPZ does not install its CRD), checked against a CRD given with --crds, else not checked; a kind ADDITIONAL_ASO_CRDS adds whose schema is not bundled is not checked (not-checked)",
    ),
    (
        "schema-missing",
        "no schema for this apiVersion/kind: another provider's kind in a Cluster API group the target shares, a CAPZ kind whose schema is not bundled, or a kind nothing bundled knows (a warning; the object is counted skipped, not valid)",
    ),
    (
        "deprecated-api",
        "the apiVersion is deprecated (the API server would warn; for the CAPI and AzureASOManaged* versions `kubectl capz convert` is the fix); for CAPI v1beta1 objects shown only with `--enable capi-v1beta1`, which says the same",
    ),
];

/// Options of a validation run.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValidateOptions {
    /// Objects of unknown kinds are skipped silently (counted) instead of reported with a warning.
    pub ignore_missing_schemas: bool,
    /// Objects of unknown kinds are errors instead of warnings (`plan --require-schemas`).
    pub require_schemas: bool,
}

/// Verdict on one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectStatus {
    Valid,
    Invalid,
    Skipped,
}

/// Findings and verdict for one document.
#[derive(Debug, Clone)]
pub struct ValidationOutcome {
    pub findings: Vec<Finding>,
    pub status: ObjectStatus,
}

/// Validates documents; caches schemas, regexes and compiled CEL across documents and threads
/// (`Sync`: one validator serves every thread of a run).
pub struct Validator<'r> {
    pub(super) registry: &'r Registry,
    options: ValidateOptions,
    regexes: RwLock<HashMap<String, Option<Arc<Regex>>>>,
    pub(super) cel: CelChecker,
}

/// Where the embedded ASO objects of CAPZ's ASO kinds live.
pub(super) fn embedded_resources_pointer(gvk: &Gvk) -> Option<&'static str> {
    if gvk.group != "infrastructure.cluster.x-k8s.io" {
        return None;
    }
    match gvk.kind.as_str() {
        "AzureASOManagedCluster" | "AzureASOManagedControlPlane" | "AzureASOManagedMachinePool" => {
            Some("/spec/resources")
        }
        "AzureASOManagedClusterTemplate"
        | "AzureASOManagedControlPlaneTemplate"
        | "AzureASOManagedMachinePoolTemplate" => Some("/spec/template/spec/resources"),
        _ => None,
    }
}

/// Whether CAPZ's or CAPI's defaulting webhook changes objects of this kind before the schema is checked (such
/// kinds are read whole: the webhook adds fields to walk).
fn has_defaulting_webhook(group: &str, version: &str, kind: &str) -> bool {
    super::defaulting::has_webhook(group, version, kind) || super::capi_defaulting::has_webhook(group, version, kind)
}

/// Applies the defaulting webhook of the object's kind; whether the kind has one.
fn apply_defaulting_webhook(gvk: &Gvk, object: &mut Value) -> bool {
    super::defaulting::apply(&gvk.group, &gvk.version, &gvk.kind, object)
        || super::capi_defaulting::apply(&gvk.group, &gvk.version, &gvk.kind, object)
}

fn flag(schema: &Map<String, Value>, key: &str) -> bool {
    schema.field(key).and_then(Value::as_bool).unwrap_or(false)
}

fn nullable(schema: &Value) -> bool {
    schema.field("nullable").and_then(Value::as_bool).unwrap_or(false)
}

/// Whether the declared `property` of an object gets its default: the object lacks `key`, or holds a null there
/// that the property does not allow.
fn lacks_default(map: &Map<String, Value>, key: &str, property: &Value) -> bool {
    match map.field(key) {
        None => true,
        Some(Value::Null) => !nullable(property),
        Some(_) => false,
    }
}

/// What an object's schema says about normalizing (pruning, defaulting) its fields: shared by the walk that
/// normalizes and the dry walk that says whether it would change anything, so the two cannot drift apart.
struct ObjectShape<'s> {
    properties: Option<&'s Map<String, Value>>,
    additional: Option<&'s Value>,
    /// Unknown fields are kept (`x-kubernetes-preserve-unknown-fields`, or `additionalProperties: true`).
    preserve: bool,
    /// A Kubernetes object: its `metadata` is ObjectMeta, its `apiVersion` and `kind` are always known.
    resource: bool,
}

/// What normalizing does with one field of an object.
enum FieldStep<'s> {
    /// The field stays as it is.
    Keep,
    /// The field is removed (a null the API server prunes).
    Prune,
    /// The field is removed and reported: the schema does not declare it.
    Unknown,
    /// The field is normalized against this schema, typed or not.
    Walk(&'s Value, bool),
}

impl<'s> ObjectShape<'s> {
    fn of(schema: &'s Map<String, Value>, resource_root: bool) -> ObjectShape<'s> {
        let additional = schema.field("additionalProperties");
        ObjectShape {
            properties: schema.field("properties").and_then(Value::as_object),
            additional,
            preserve: flag(schema, "x-kubernetes-preserve-unknown-fields") || additional == Some(&Value::Bool(true)),
            resource: resource_root || flag(schema, "x-kubernetes-embedded-resource"),
        }
    }

    fn step(&self, key: &str, child: &Value, typed: bool) -> FieldStep<'s> {
        if self.resource && key == "metadata" {
            return if child.is_null() { FieldStep::Prune } else { FieldStep::Walk(&meta::OBJECT_META, true) };
        }
        let declared = self.properties.and_then(|p| p.field(key));
        if self.resource && (key == "apiVersion" || key == "kind") && declared.is_none() {
            return FieldStep::Keep;
        }
        let Some(child_schema) = declared.or(self.additional.filter(|a| a.is_object())) else {
            return if self.preserve { FieldStep::Keep } else { FieldStep::Unknown };
        };
        if child.is_null() {
            // Declared properties and map values (additionalProperties) alike: the API server prunes a null that is
            // neither nullable nor defaulted (list items are kept).
            let pruned = typed || (!nullable(child_schema) && child_schema.field("default").is_none());
            return if pruned { FieldStep::Prune } else { FieldStep::Keep };
        }
        FieldStep::Walk(child_schema, typed)
    }
}

/// Integers as the API server reads YAML: a whole float (`3.0`) is the integer 3.
fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
        }
        _ => false,
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Whether decoding `value` into the Go type behind `schema` fails (`json: cannot unmarshal ...`): a non-null value
/// of another JSON type than the schema's, at any depth the schema describes.
fn go_decode_fails(value: &Value, schema: &Value) -> bool {
    let Some(schema) = schema.as_object() else { return false };
    if value.is_null() {
        return false;
    }
    if let Some(expected) = schema.field("type").and_then(Value::as_str)
        && !type_matches(expected, value)
    {
        return true;
    }
    match value {
        Value::Object(map) => map.iter().any(|(key, item)| {
            let item_schema = schema
                .field("properties")
                .and_then(|properties| properties.field(key))
                .or_else(|| schema.field("additionalProperties").filter(|s| s.is_object()));
            item_schema.is_some_and(|item_schema| go_decode_fails(item, item_schema))
        }),
        Value::Array(items) => {
            schema.field("items").is_some_and(|item_schema| items.iter().any(|item| go_decode_fails(item, item_schema)))
        }
        _ => false,
    }
}

fn type_matches(expected: &str, value: &Value) -> bool {
    match expected {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => is_integer(value),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        _ => true,
    }
}

fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// `value` as compact JSON, cut to 80 characters (never inside a character) for a message.
pub fn compact(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    if text.chars().count() > 80 { format!("{}...", text.chars().take(77).collect::<String>()) } else { text }
}

/// The object's apiVersion and kind, or `None` (with an issue for each that is missing or empty).
#[inline]
fn type_meta<'v>(map: &'v Map<String, Value>, prefix: &str, out: &mut Vec<Issue>) -> Option<(&'v str, &'v str)> {
    let api_version = map.field("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind_name = map.field("kind").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() {
        out.push(Issue::error("schema", format!("{prefix}/apiVersion"), "apiVersion is required".into()));
    }
    if kind_name.is_empty() {
        out.push(Issue::error("schema", format!("{prefix}/kind"), "kind is required".into()));
    }
    if api_version.is_empty() || kind_name.is_empty() {
        return None;
    }
    Some((api_version, kind_name))
}

/// The `deprecated-api` warning for a kind its CRD marks deprecated, with the fix when `kubectl capz convert`
/// upgrades it (kept here, not imported: convert depends on schema's neighbours, not the reverse).
fn deprecated_api(gvk: &Gvk, warning: &str, prefix: &str) -> Issue {
    let convertible = (gvk.group.ends_with("cluster.x-k8s.io")
        && gvk.version == "v1beta1"
        && gvk.group != "infrastructure.cluster.x-k8s.io")
        || (gvk.group == "infrastructure.cluster.x-k8s.io"
            && gvk.version == "v1alpha1"
            && gvk.kind.starts_with("AzureASOManaged"));
    let fix = if convertible { " (fix: `kubectl capz convert -w FILE|DIR`)" } else { "" };
    Issue::new("deprecated-api", Severity::Warning, format!("{prefix}/apiVersion"), format!("{warning}{fix}"))
}

impl<'r> Validator<'r> {
    pub fn new(registry: &'r Registry, options: ValidateOptions) -> Self {
        Validator { registry, options, regexes: RwLock::new(HashMap::default()), cel: CelChecker::new() }
    }

    /// Validates one document: its schema, metadata, CEL rules and embedded ASO objects.
    pub fn validate_document(&self, document: &Document) -> ValidationOutcome {
        let (issues, skipped) = self.issues_of(&document.value);
        let object = document.display_name();
        let findings: Vec<Finding> = issues
            .into_iter()
            .map(|issue| Finding {
                rule: issue.rule.to_string(),
                severity: issue.severity,
                source: document.origin.source.to_string(),
                line: document.line_of(&issue.path),
                column: None,
                object: object.clone(),
                path: issue.path,
                message: issue.message,
            })
            .collect();
        let status = if findings.iter().any(|f| f.severity == Severity::Error) {
            ObjectStatus::Invalid
        } else if skipped {
            ObjectStatus::Skipped
        } else {
            ObjectStatus::Valid
        };
        ValidationOutcome { findings, status }
    }

    /// The schema errors of `value` (an object of no file: what the checks of the objects CAPZ creates read) as
    /// `(path, message)`, in the order [`Validator::validate_document`] reports them, without copying `value` into a
    /// [`Document`] first.
    pub fn errors_of(&self, value: &Value) -> Vec<(String, String)> {
        let (issues, _) = self.issues_of(value);
        issues
            .into_iter()
            .filter(|issue| issue.severity == Severity::Error)
            .map(|issue| (issue.path, issue.message))
            .collect()
    }

    /// `value` as the API server stores it after admission: unknown fields pruned, the CRD's structural defaults,
    /// the kind's defaulting webhook (CAPZ's or CAPI's), pruned and defaulted again; status dropped where the
    /// status subresource is on. What a webhook's `ValidateUpdate` compares. `None` when the kind has no schema
    /// or a value of the wrong JSON type makes the defaulting webhook's decode fail (the API server stops there).
    pub fn admitted(&self, value: &Value) -> Option<Value> {
        let api_version = value.field("apiVersion")?.as_str()?;
        let kind_name = value.field("kind")?.as_str()?;
        let (group, version) = crate::manifest::split_api_version(api_version);
        let gvk = Gvk::new(group, version, kind_name);
        let kind = self.registry.get(&gvk).ok()??;
        let walk = Walk { validator: self, typed: kind.typed, defaults: defaults_possible(&kind) };
        let root = Pointer::Root("");
        let mut object = value.clone();
        walk.normalize(&mut object, &kind.schema, &root, true, &mut Vec::new());
        if has_defaulting_webhook(group, version, kind_name) {
            if go_decode_fails(&object, &kind.schema) {
                return None;
            }
            if apply_defaulting_webhook(&gvk, &mut object) {
                walk.normalize(&mut object, &kind.schema, &root, true, &mut Vec::new());
            }
        }
        if kind.status_subresource
            && let Some(map) = object.as_object_mut()
        {
            map.remove("status");
        }
        Some(object)
    }

    /// The issues of a top-level object (secret values masked in the messages) and whether it was skipped.
    fn issues_of(&self, value: &Value) -> (Vec<Issue>, bool) {
        let mut issues = Vec::new();
        let mut skipped = false;
        self.validate_object(value, "", false, &mut issues, &mut skipped);
        if let Some(secrets) = SecretValues::of(value) {
            for issue in &mut issues {
                issue.message = secrets.mask(&issue.message, is_secret_data_pointer(&issue.path));
            }
        }
        (issues, skipped)
    }

    /// The findings on an ASO object whose CRD the target's ASO does not have: a kind outside CAPZ's
    /// `--crd-pattern` and `ADDITIONAL_ASO_CRDS` (a warning: its CRD is not installed, so it is not checked), or
    /// one `ADDITIONAL_ASO_CRDS` adds but whose schema is not bundled (not checked). `None`: the kind is
    /// installed and its schemas are bundled.
    fn aso_kind_not_installed(
        &self,
        target: &Target,
        group: &str,
        kind_name: &str,
        api_version: &str,
        prefix: &str,
        embedded: bool,
    ) -> Option<Vec<Issue>> {
        match self.registry.aso_install(group, kind_name) {
            AsoInstall::ByCapz => None,
            AsoInstall::Added { .. } if !self.registry.versions_of(group, kind_name).is_empty() => None,
            AsoInstall::Added { .. } if self.options.ignore_missing_schemas && !embedded => Some(Vec::new()),
            AsoInstall::Added { entry, origin } => Some(vec![Issue::new(
                "aso-crd-pattern",
                Severity::NotChecked,
                prefix.to_string(),
                format!(
                    "{group}/{kind_name} is installed by ASO (`{}` of {origin}), but its schema is not bundled; not \
                     checked (add its CRD with --crds DIR)",
                    entry.as_str()
                ),
            )]),
            AsoInstall::No => {
                let unless = match self.registry.additional_aso_crds() {
                    Some(added) => format!("; {} does not name it either", added.origin),
                    None => " unless it is added to ADDITIONAL_ASO_CRDS".to_string(),
                };
                Some(vec![
                    Issue::new(
                        "aso-crd-pattern",
                        Severity::Warning,
                        format!("{prefix}/kind"),
                        format!(
                            "{group}/{kind_name} is not in the --crd-pattern CAPZ {} gives ASO {}: CAPZ does not \
                             install this CRD{unless}",
                            target.name, target.aso
                        ),
                    ),
                    Issue::new(
                        "aso-crd-pattern",
                        Severity::NotChecked,
                        prefix.to_string(),
                        format!(
                            "no CRD for {kind_name} {api_version} on CAPZ {}; not checked (add its CRD with --crds DIR)",
                            target.name
                        ),
                    ),
                ])
            }
        }
    }

    /// Why an object has no schema, for the `schema-missing` finding: a CAPZ kind whose schema is not bundled, another
    /// provider's kind in a Cluster API group the target shares (its CRD is not bundled: the target does not judge
    /// it), or a kind nothing bundled knows.
    fn no_schema_reason(&self, gvk: &Gvk, api_version: &str) -> String {
        let kind = &gvk.kind;
        let Some(target) = self.registry.target() else {
            return format!("no schema for {kind} {api_version}");
        };
        if target.capz_kind_without_schema(&gvk.group, kind).is_some() {
            return format!(
                "{kind} {api_version} is CAPZ {}'s, but its schema is not bundled (its CRD needs CAPZ's defaulting \
                 webhook, which is not modelled)",
                target.capz
            );
        }
        match target.served_by(&gvk.group) {
            Some(by) if Target::is_capi_family_group(&gvk.group) => format!(
                "no schema for {kind} {api_version}: not a kind of {by}; another provider's kind in a shared Cluster \
                 API group, whose CRD is not bundled"
            ),
            _ => format!("no schema for {kind} {api_version}"),
        }
    }

    fn validate_object(&self, value: &Value, prefix: &str, embedded: bool, out: &mut Vec<Issue>, skipped: &mut bool) {
        let Some(map) = value.as_object() else {
            out.push(Issue::error("schema", prefix.to_string(), format!("must be an object, got {}", describe(value))));
            return;
        };
        let Some((api_version, kind_name)) = type_meta(map, prefix, out) else { return };
        let (group, version) = split_api_version(api_version);
        let gvk = Gvk::new(group, version, kind_name);
        let target = self.registry.target();
        if let Some(target) = target.filter(|_| Target::is_aso_group(group))
            && !self.registry.user_has_kind(group, kind_name)
            && let Some(not_installed) =
                self.aso_kind_not_installed(target, group, kind_name, api_version, prefix, embedded)
        {
            out.extend(not_installed);
            if !embedded {
                *skipped = true;
            }
            return;
        }
        let kind = match self.lookup_kind(&gvk, value) {
            Ok(Some(kind)) => kind,
            Ok(None) => {
                self.report_unserved_kind(&gvk, api_version, prefix, embedded, out, skipped);
                return;
            }
            Err(err) => {
                out.push(Issue::error("schema-missing", prefix.to_string(), err.to_string()));
                return;
            }
        };
        if let Some(warning) = &kind.deprecation_warning {
            out.push(deprecated_api(&gvk, warning, prefix));
        }
        let walk = Walk { validator: self, typed: kind.typed, defaults: defaults_possible(&kind) };
        // Strict field validation decodes the whole body first, status included: an undeclared field under
        // status is rejected even though status is dropped afterwards.
        let root = Pointer::Root(prefix);
        // The object as the API server holds it after pruning and defaulting: a copy only when something changes
        // (most objects of a rendered manifest are already in that form).
        let mut object = Cow::Borrowed(value);
        if walk.normalize_changes(value, &kind.schema, true) {
            walk.normalize(object.to_mut(), &kind.schema, &root, true, out);
        }
        // CAPZ's or CAPI's defaulting webhook runs next (admission order: structural defaults, mutating webhooks, then the
        // schema); the API server prunes and defaults the webhook's result again.
        // A value of the wrong JSON type makes that webhook's decode fail: the API server returns the decode error
        // and stops there, so the type errors are the only findings (no default is applied, and the schema's
        // other checks, which would report what the webhook defaults, never run).
        let has_webhook = !embedded && has_defaulting_webhook(&gvk.group, &gvk.version, &gvk.kind);
        if has_webhook && go_decode_fails(&object, &kind.schema) {
            let mut found = Vec::new();
            walk.check(&object, &kind.schema, &root, true, &mut found);
            out.extend(found.into_iter().filter(|issue| issue.message.starts_with("must be of type ")));
            return;
        }
        // Only the kinds with a webhook are changed by `apply`.
        if has_webhook && apply_defaulting_webhook(&gvk, object.to_mut()) {
            walk.normalize(object.to_mut(), &kind.schema, &root, true, &mut Vec::new());
        }
        if kind.status_subresource && object.field("status").is_some() {
            // The API server drops status on create when the status subresource is on: its values are not
            // validated.
            if let Some(map) = object.to_mut().as_object_mut() {
                map.remove("status");
            }
        }
        walk.check(&object, &kind.schema, &root, true, out);
        let name_rule = meta::name_rule(&gvk.group, &gvk.kind);
        let built_in = meta::is_built_in_group(&gvk.group);
        meta::check(
            object.field("metadata"),
            &format!("{prefix}/metadata"),
            name_rule,
            kind.namespaced(),
            true,
            built_in,
            out,
        );
        if gvk.group.is_empty() {
            check_core_data(&gvk.kind, &object, prefix, out);
        }
        if kind.cel {
            self.cel.check(&kind, &object, prefix, out);
        }
        if let Some(pointer) = embedded_resources_pointer(&gvk)
            && let Some(Value::Array(resources)) = object.at(pointer)
        {
            self.validate_embedded(resources, &format!("{prefix}{pointer}"), out, skipped);
        }
    }

    /// The schema of `gvk` for `value`. An object without status never consults the status schema: the kind is
    /// read without it. Kinds without a CAPZ defaulting webhook (which adds fields to walk) may be read for this
    /// one object only.
    #[inline]
    fn lookup_kind(&self, gvk: &Gvk, value: &Value) -> Result<Option<Arc<KindSchema>>, super::SchemaError> {
        if !has_defaulting_webhook(&gvk.group, &gvk.version, &gvk.kind) {
            self.registry.get_for_object(gvk, value)
        } else if value.as_object().is_some_and(|map| map.contains_key("status")) {
            self.registry.get(gvk)
        } else {
            self.registry.get_without_status(gvk)
        }
    }

    /// The ASO objects of `spec.resources` (at `pointer`), each checked as an object of its own, its findings
    /// labelled `embedded Kind/name: `.
    fn validate_embedded(&self, resources: &[Value], pointer: &str, out: &mut Vec<Issue>, skipped: &mut bool) {
        for (i, resource) in resources.iter().enumerate() {
            let path = format!("{pointer}/{i}");
            let start = out.len();
            self.validate_object(resource, &path, true, out, skipped);
            let label = format!(
                "{}/{}",
                resource.field("kind").and_then(Value::as_str).unwrap_or("?"),
                resource.at("/metadata/name").and_then(Value::as_str).unwrap_or("")
            );
            for issue in &mut out[start..] {
                issue.message = format!("embedded {label}: {}", issue.message);
            }
        }
    }

    /// What to say for a kind without a schema: its group or version is not served (moved out of `exp.`, another
    /// version, another Kubernetes release, a removed API), or no schema is known (skipped, a warning, or an
    /// error with --require-schemas).
    #[cold]
    fn report_unserved_kind(
        &self,
        gvk: &Gvk,
        api_version: &str,
        prefix: &str,
        embedded: bool,
        out: &mut Vec<Issue>,
        skipped: &mut bool,
    ) {
        let (group, version, kind_name) = (gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str());
        let target = self.registry.target();
        // An old experimental group (`exp.cluster.x-k8s.io`): the kind lives on in the group without `exp.`.
        let moved_to = group.strip_prefix("exp.").filter(|rest| rest.ends_with("cluster.x-k8s.io"));
        let versions = self.registry.owned_versions(moved_to.unwrap_or(group), kind_name);
        if let Some(now) = moved_to.filter(|_| !versions.is_empty()) {
            out.push(Issue::error(
                "api-version",
                format!("{prefix}/apiVersion"),
                format!(
                    "{api_version} {kind_name} is not served: the experimental group {group} is gone, the kind \
                     is served as {now} {}; only `clusterctl upgrade` of a management cluster that stores it \
                     converts it",
                    versions.join(", ")
                ),
            ));
        } else if !versions.is_empty() && !versions.iter().any(|v| v == version) {
            // The target's own kind (its CRD decides, whatever the group serves for other kinds).
            let release = target
                .and_then(|t| t.served_by(group))
                .or_else(|| {
                    self.registry
                        .is_builtin_group(group)
                        .then(|| format!("Kubernetes {}", self.registry.kubernetes_version()))
                })
                .map(|by| format!(" by {by}"))
                .unwrap_or_default();
            // An ASO object: the version `convert --aso` moves it to.
            let moves_to = match super::aso_versions::choose(group, version, &versions, &Default::default()) {
                super::aso_versions::Choice::To { version: to, .. } if Target::is_aso_group(group) => {
                    let older = super::aso_versions::older(&to, version);
                    format!(
                        "; `kubectl capz convert --aso` moves it to {to}{}",
                        if older { " (an older version)" } else { "" }
                    )
                }
                _ => String::new(),
            };
            out.push(Issue::error(
                "api-version",
                format!("{prefix}/apiVersion"),
                format!("{api_version} {kind_name} is not served{release}; served: {}{moves_to}", versions.join(", ")),
            ));
        } else if let elsewhere = self.registry.other_kubernetes_releases_serving(gvk)
            && !elsewhere.is_empty()
        {
            // A built-in kind of another Kubernetes release: that kube-apiserver serves it, this one not.
            out.push(Issue::error(
                "api-version",
                format!("{prefix}/apiVersion"),
                format!(
                    "{api_version} {kind_name} is not served by Kubernetes {} (served by Kubernetes {}; the \
                     management cluster's release is picked with --management-kubernetes-version)",
                    self.registry.kubernetes_version(),
                    elsewhere.join(", ")
                ),
            ));
        } else if let Some(message) = removed_apis::unserved_version_of_known_group(self.registry, gvk, api_version) {
            out.push(Issue::error("api-version", format!("{prefix}/apiVersion"), message));
        } else if self.options.ignore_missing_schemas {
            if embedded {
                out.push(Issue::new(
                    "schema-missing",
                    Severity::NotChecked,
                    prefix.to_string(),
                    format!("no schema for {kind_name} {api_version}; not checked"),
                ));
            } else {
                *skipped = true;
            }
        } else {
            // Not an error unless asked: nothing says the object is wrong, only that it was not checked.
            let severity = if self.options.require_schemas { Severity::Error } else { Severity::Warning };
            out.push(Issue::new(
                "schema-missing",
                severity,
                prefix.to_string(),
                format!(
                    "{}; not checked: add its CRD with --crds DIR or --crds-from-cluster, or skip such objects \
                     silently with --ignore-missing-schemas",
                    self.no_schema_reason(gvk, api_version)
                ),
            ));
            *skipped = true;
        }
    }

    fn regex(&self, pattern: &str) -> Option<Arc<Regex>> {
        if let Some(hit) = self.regexes.read().unwrap_or_else(PoisonError::into_inner).get(pattern) {
            return hit.clone();
        }
        let compiled = Regex::new(&super::go_regex::ascii_perl_classes(pattern)).ok().map(Arc::new);
        let mut regexes = self.regexes.write().unwrap_or_else(PoisonError::into_inner);
        regexes.entry(pattern.to_string()).or_insert(compiled).clone()
    }
}

/// One walk over one object.
struct Walk<'v, 'r> {
    validator: &'v Validator<'r>,
    /// A Go-typed (built-in) kind: null decodes to the zero value anywhere.
    typed: bool,
    /// The kind's schema, or ObjectMeta's, may declare a default: otherwise no object node is searched for them.
    defaults: bool,
}

/// Whether a walk over an object of `kind` may meet a `default` (see [`Walk::defaults`]): in the kind's schema, or in
/// ObjectMeta's, which the walk takes for `metadata`.
fn defaults_possible(kind: &KindSchema) -> bool {
    static META_HAS_DEFAULTS: LazyLock<bool> = LazyLock::new(|| holds_key(&meta::OBJECT_META, "default"));
    kind.has_defaults() || *META_HAS_DEFAULTS
}

impl Walk<'_, '_> {
    /// Unknown fields (reported, then pruned), defaults, and pruning of nulls, in the API
    /// server's order.
    fn normalize(
        &self,
        value: &mut Value,
        schema: &Value,
        path: &Pointer<'_>,
        resource_root: bool,
        out: &mut Vec<Issue>,
    ) {
        self.normalize_typed(value, schema, path, resource_root, self.typed, out);
    }

    /// Whether [`Walk::normalize`] would change `value` (a default to insert, a field to prune): when it would not,
    /// it reports nothing either (it reports only the fields it prunes). Mirrors [`Walk::normalize_typed`].
    fn normalize_changes(&self, value: &Value, schema: &Value, resource_root: bool) -> bool {
        self.normalize_changes_typed(value, schema, resource_root, self.typed)
    }

    fn normalize_changes_typed(&self, value: &Value, schema: &Value, resource_root: bool, typed: bool) -> bool {
        let Some(schema) = schema.as_object() else { return false };
        match value {
            Value::Object(map) => {
                let shape = ObjectShape::of(schema, resource_root);
                let defaulted = self.defaults
                    && shape.properties.is_some_and(|properties| {
                        properties.iter().any(|(key, property)| {
                            property.field("default").is_some() && lacks_default(map, key, property)
                        })
                    });
                defaulted
                    || map.iter().any(|(key, child)| match shape.step(key, child, typed) {
                        FieldStep::Keep => false,
                        FieldStep::Prune | FieldStep::Unknown => true,
                        FieldStep::Walk(child_schema, typed) => {
                            self.normalize_changes_typed(child, child_schema, false, typed)
                        }
                    })
            }
            Value::Array(items) => match schema.field("items").filter(|s| s.is_object()) {
                Some(item_schema) => items
                    .iter()
                    .any(|item| !item.is_null() && self.normalize_changes_typed(item, item_schema, false, typed)),
                None => false,
            },
            _ => false,
        }
    }

    fn normalize_typed(
        &self,
        value: &mut Value,
        schema: &Value,
        path: &Pointer<'_>,
        resource_root: bool,
        typed: bool,
        out: &mut Vec<Issue>,
    ) {
        let Some(schema) = schema.as_object() else { return };
        match value {
            Value::Object(map) => {
                let shape = ObjectShape::of(schema, resource_root);
                for (key, property) in shape.properties.filter(|_| self.defaults).into_iter().flatten() {
                    if let Some(default) = property.field("default")
                        && lacks_default(map, key, property)
                    {
                        map.insert(key.clone(), default.clone());
                    }
                }
                // Fields are pruned once all are walked, in walking order: the same map as removing each where it
                // is met (lookups are by key), without a copy of every key.
                let mut pruned: Vec<String> = Vec::new();
                for (key, child) in map.iter_mut() {
                    let child_path = Pointer::Key(path, key);
                    match shape.step(key, child, typed) {
                        FieldStep::Keep => {}
                        FieldStep::Prune => pruned.push(key.clone()),
                        FieldStep::Unknown => {
                            out.push(Issue::error(
                                "unknown-field",
                                child_path.to_string(),
                                format!("unknown field {key:?} (not declared in the schema)"),
                            ));
                            pruned.push(key.clone());
                        }
                        FieldStep::Walk(child_schema, typed) => {
                            self.normalize_typed(child, child_schema, &child_path, false, typed, out)
                        }
                    }
                }
                for key in pruned {
                    map.remove(&key);
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = schema.field("items").filter(|s| s.is_object()) {
                    for (i, item) in items.iter_mut().enumerate() {
                        if !item.is_null() {
                            self.normalize_typed(item, item_schema, &Pointer::Index(path, i), false, typed, out);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Value validations of the (normalized) value against `schema`.
    fn check(
        &self,
        value: &Value,
        schema_value: &Value,
        path: &Pointer<'_>,
        resource_root: bool,
        out: &mut Vec<Issue>,
    ) {
        let Some(schema) = schema_value.as_object() else { return };
        let expected = schema.field("type").and_then(Value::as_str);
        if value.is_null() {
            if nullable(schema_value) || (self.typed && expected.is_some()) {
                return;
            }
            if let Some(expected) = expected {
                out.push(Issue::error("schema", path.to_string(), format!("must be of type {expected}, got null")));
                return;
            }
        }
        if let Some(expected) = expected {
            if !type_matches(expected, value) {
                let mut message = format!("must be of type {expected}, got {}", describe(value));
                if expected == "string" && value.is_boolean() {
                    message.push_str(" (YAML 1.1 reads unquoted yes/no/on/off/y/n as booleans: quote the value)");
                }
                out.push(Issue::error("schema", path.to_string(), message));
                return;
            }
        } else if flag(schema, "x-kubernetes-int-or-string") && !(is_integer(value) || value.is_string()) {
            out.push(Issue::error(
                "schema",
                path.to_string(),
                format!("must be an integer or a string, got {}", describe(value)),
            ));
            return;
        }
        if let Some(Value::Array(allowed)) = schema.field("enum")
            && !allowed.iter().any(|a| json_equal(a, value))
        {
            let list: Vec<String> = allowed.iter().map(compact).collect();
            out.push(Issue::error(
                "schema",
                path.to_string(),
                format!("unsupported value {}: supported values: {}", compact(value), list.join(", ")),
            ));
        }
        match value {
            Value::String(s) => self.check_string(s, schema, path, out),
            Value::Number(_) => check_number(value, schema, path, out),
            Value::Array(items) => self.check_array(items, schema, path, out),
            Value::Object(map) => self.check_object(map, schema, path, resource_root, out),
            _ => {}
        }
        self.check_junctors(value, schema, path, out);
    }

    fn check_string(&self, s: &str, schema: &Map<String, Value>, path: &Pointer<'_>, out: &mut Vec<Issue>) {
        let length = s.chars().count() as u64;
        if let Some(max) = schema.field("maxLength").and_then(Value::as_u64)
            && length > max
        {
            out.push(Issue::error(
                "schema",
                path.to_string(),
                format!("may not be longer than {max} characters (is {length})"),
            ));
        }
        if let Some(min) = schema.field("minLength").and_then(Value::as_u64)
            && length < min
        {
            out.push(Issue::error(
                "schema",
                path.to_string(),
                format!("must be at least {min} characters long (is {length})"),
            ));
        }
        if let Some(pattern) = schema.field("pattern").and_then(Value::as_str) {
            match self.validator.regex(pattern) {
                Some(re) if !re.is_match(s) => {
                    // Quantities (built-in kinds and controller-gen's resource.Quantity fields) share one pattern.
                    let message = if pattern == super::openapi::QUANTITY_PATTERN {
                        format!("{s:?} is not a quantity (such as 500m, 2, 128Mi, 1.5Gi)")
                    } else {
                        format!("{s:?} does not match the pattern {pattern}")
                    };
                    out.push(Issue::error("schema", path.to_string(), message))
                }
                Some(_) => {}
                None => out.push(Issue::new(
                    "schema",
                    Severity::NotChecked,
                    path.to_string(),
                    format!("pattern {pattern} is not supported by the offline regex engine; not checked"),
                )),
            }
        }
        if let Some(format) = schema.field("format").and_then(Value::as_str)
            && let Some(message) = formats::check(format, s)
        {
            out.push(Issue::error("schema", path.to_string(), message));
        }
    }

    fn check_array(&self, items: &[Value], schema: &Map<String, Value>, path: &Pointer<'_>, out: &mut Vec<Issue>) {
        let count = items.len() as u64;
        if let Some(max) = schema.field("maxItems").and_then(Value::as_u64)
            && count > max
        {
            out.push(Issue::error("schema", path.to_string(), format!("must have at most {max} items (has {count})")));
        }
        if let Some(min) = schema.field("minItems").and_then(Value::as_u64)
            && count < min
        {
            out.push(Issue::error("schema", path.to_string(), format!("must have at least {min} items (has {count})")));
        }
        let list_type = schema.field("x-kubernetes-list-type").and_then(Value::as_str);
        let item_schema = schema.field("items").filter(|s| s.is_object());
        if flag(schema, "uniqueItems") || list_type == Some("set") {
            for (j, item) in items.iter().enumerate() {
                if items[..j].iter().any(|earlier| json_equal(earlier, item)) {
                    out.push(Issue::error(
                        "schema",
                        format!("{path}/{j}"),
                        format!("duplicate value {}", compact(item)),
                    ));
                }
            }
        }
        if list_type == Some("map")
            && let Some(Value::Array(keys)) = schema.field("x-kubernetes-list-map-keys")
        {
            let keys: Vec<&str> = keys.iter().filter_map(Value::as_str).collect();
            let key_of = |item: &Value| -> Vec<Value> {
                keys.iter()
                    .map(|k| {
                        item.get(*k)
                            .cloned()
                            .or_else(|| {
                                item_schema
                                    .and_then(|s| s.pointer(&format!("/properties/{}/default", escape_token(k))))
                                    .cloned()
                            })
                            .unwrap_or(Value::Null)
                    })
                    .collect()
            };
            let tuples: Vec<Vec<Value>> = items.iter().map(key_of).collect();
            for (j, tuple) in tuples.iter().enumerate() {
                if tuples[..j].iter().any(|earlier| earlier.iter().zip(tuple).all(|(a, b)| json_equal(a, b))) {
                    let described: Vec<String> =
                        keys.iter().zip(tuple).map(|(k, v)| format!("{k}={}", compact(v))).collect();
                    out.push(Issue::error(
                        "schema",
                        format!("{path}/{j}"),
                        format!("duplicate entry with key {}", described.join(", ")),
                    ));
                }
            }
        }
        if let Some(item_schema) = item_schema {
            for (i, item) in items.iter().enumerate() {
                self.check(item, item_schema, &Pointer::Index(path, i), false, out);
            }
        }
    }

    fn check_object(
        &self,
        map: &Map<String, Value>,
        schema: &Map<String, Value>,
        path: &Pointer<'_>,
        resource_root: bool,
        out: &mut Vec<Issue>,
    ) {
        if let Some(Value::Array(required)) = schema.field("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if map.field(key).is_none() {
                    out.push(Issue::error(
                        "schema",
                        format!("{path}/{}", escape_token(key)),
                        format!("required field {key:?} is missing"),
                    ));
                }
            }
        }
        let count = map.len() as u64;
        if let Some(max) = schema.field("maxProperties").and_then(Value::as_u64)
            && count > max
        {
            out.push(Issue::error(
                "schema",
                path.to_string(),
                format!("must have at most {max} properties (has {count})"),
            ));
        }
        if let Some(min) = schema.field("minProperties").and_then(Value::as_u64)
            && count < min
        {
            out.push(Issue::error(
                "schema",
                path.to_string(),
                format!("must have at least {min} properties (has {count})"),
            ));
        }
        let resource = resource_root || flag(schema, "x-kubernetes-embedded-resource");
        if resource && !resource_root {
            for key in ["apiVersion", "kind"] {
                match map.field(key) {
                    None => out.push(Issue::error(
                        "schema",
                        format!("{path}/{key}"),
                        format!("{key} is required in an embedded resource"),
                    )),
                    Some(Value::String(s)) if s.is_empty() => {
                        out.push(Issue::error("schema", format!("{path}/{key}"), format!("{key} must not be empty")))
                    }
                    Some(Value::String(_)) => {}
                    Some(other) => out.push(Issue::error(
                        "schema",
                        format!("{path}/{key}"),
                        format!("{key} must be a string, got {}", describe(other)),
                    )),
                }
            }
        }
        let properties = schema.field("properties").and_then(Value::as_object);
        let additional = schema.field("additionalProperties").filter(|a| a.is_object());
        for (key, child) in map {
            let child_path = Pointer::Key(path, key);
            if resource && key == "metadata" {
                self.check(child, &meta::OBJECT_META, &child_path, false, out);
                if !resource_root {
                    let child_path = child_path.to_string();
                    meta::check(Some(child), &child_path, NameRule::Dns1123Subdomain, true, false, false, out);
                }
                continue;
            }
            if let Some(child_schema) = properties.and_then(|p| p.field(key)).or(additional) {
                self.check(child, child_schema, &child_path, false, out);
            }
        }
    }

    fn check_junctors(&self, value: &Value, schema: &Map<String, Value>, path: &Pointer<'_>, out: &mut Vec<Issue>) {
        let passes = |sub: &Value| {
            let mut scratch = Vec::new();
            self.check(value, sub, path, false, &mut scratch);
            scratch.iter().all(|i| i.severity != Severity::Error)
        };
        if let Some(Value::Array(all)) = schema.field("allOf") {
            for sub in all {
                self.check(value, sub, path, false, out);
            }
        }
        if let Some(Value::Array(any)) = schema.field("anyOf")
            && !any.iter().any(passes)
        {
            out.push(Issue::error(
                "schema",
                path.to_string(),
                format!("{} matches none of the allowed forms (anyOf)", compact(value)),
            ));
        }
        if let Some(Value::Array(one)) = schema.field("oneOf") {
            let matching = one.iter().filter(|s| passes(s)).count();
            if matching != 1 {
                out.push(Issue::error(
                    "schema",
                    path.to_string(),
                    format!("must match exactly one of the allowed forms (oneOf), matches {matching}"),
                ));
            }
        }
        if let Some(not) = schema.field("not")
            && passes(not)
        {
            out.push(Issue::error("schema", path.to_string(), "must not match the schema in `not`".into()));
        }
    }
}

fn check_number(value: &Value, schema: &Map<String, Value>, path: &Pointer<'_>, out: &mut Vec<Issue>) {
    let Some(x) = value.as_f64() else { return };
    if let Some(max) = schema.field("maximum").and_then(Value::as_f64) {
        let exclusive = flag(schema, "exclusiveMaximum");
        if x > max || (exclusive && x == max) {
            let op = if exclusive { "less than" } else { "less than or equal to" };
            out.push(Issue::error("schema", path.to_string(), format!("must be {op} {max} (is {value})")));
        }
    }
    if let Some(min) = schema.field("minimum").and_then(Value::as_f64) {
        let exclusive = flag(schema, "exclusiveMinimum");
        if x < min || (exclusive && x == min) {
            let op = if exclusive { "greater than" } else { "greater than or equal to" };
            out.push(Issue::error("schema", path.to_string(), format!("must be {op} {min} (is {value})")));
        }
    }
    if let Some(m) = schema.field("multipleOf").and_then(Value::as_f64)
        && m > 0.0
        && ((x / m) - (x / m).round()).abs() > 1e-9
    {
        out.push(Issue::error("schema", path.to_string(), format!("must be a multiple of {m} (is {value})")));
    }
}

/// Secret values never reach an output: a finding on a field of a Secret's `data` or `stringData`
/// names the field, not its value.
fn config_key_error(key: &str) -> Option<&'static str> {
    let valid_chars = key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if key.is_empty() || key.len() > 253 || !valid_chars {
        Some("must consist of alphanumeric characters, '-', '_' or '.' (at most 253)")
    } else if key == "." || key == ".." || key.starts_with("..") {
        Some("must not be '.' or '..' or start with '..'")
    } else {
        None
    }
}

/// The API server's own checks of Secret and ConfigMap data (keys, overlap, size).
fn check_core_data(kind: &str, object: &Value, prefix: &str, out: &mut Vec<Issue>) {
    let fields: &[&str] = match kind {
        "Secret" => &["data", "stringData"],
        "ConfigMap" => &["data", "binaryData"],
        _ => return,
    };
    let mut total = 0usize;
    for field in fields {
        let Some(Value::Object(entries)) = object.get(*field) else { continue };
        for (key, value) in entries {
            if let Some(reason) = config_key_error(key) {
                out.push(Issue::error(
                    "schema",
                    format!("{prefix}/{field}/{}", escape_token(key)),
                    format!("invalid key {key:?}: {reason}"),
                ));
            }
            total += value.as_str().map_or(0, str::len);
        }
    }
    if kind == "ConfigMap"
        && let (Some(Value::Object(data)), Some(Value::Object(binary))) = (object.get("data"), object.get("binaryData"))
    {
        for key in binary.keys().filter(|k| data.contains_key(*k)) {
            out.push(Issue::error(
                "schema",
                format!("{prefix}/binaryData/{}", escape_token(key)),
                format!("duplicate of key {key:?} in data"),
            ));
        }
    }
    if total > 1024 * 1024 {
        out.push(Issue::error(
            "schema",
            prefix.to_string(),
            format!("{kind} data is {total} bytes, more than the 1 MiB limit"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_documents;

    /// The walk skips copying and normalizing an object only when normalizing would leave it as it is (same text)
    /// and report nothing: checked on every object of the corpus and fixtures, typed and untyped, with its embedded
    /// ASO resources.
    #[test]
    fn objects_said_to_need_no_normalizing_are_left_as_they_are_by_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let files: Vec<String> = ["corpus", "fixtures"]
            .iter()
            .flat_map(|dir| crate::test_files::files_under(&root.join(dir), &["yaml"]))
            .map(|path| path.display().to_string())
            .collect();
        let registry = Registry::embedded();
        let validator = Validator::new(&registry, ValidateOptions::default());
        let (mut unchanged, mut changed) = (0, 0);
        for file in &files {
            let Ok(read) = crate::manifest::read_paths_tolerant(std::slice::from_ref(file)) else { continue };
            let mut objects: Vec<Value> = Vec::new();
            for document in &read.documents {
                objects.push(document.value.clone());
                if let Some(Value::Array(resources)) = document.value.pointer("/spec/resources") {
                    objects.extend(resources.iter().cloned());
                }
            }
            for object in &objects {
                let api_version = object.field("apiVersion").and_then(Value::as_str).unwrap_or("");
                let (group, version) = crate::manifest::split_api_version(api_version);
                let kind = object.field("kind").and_then(Value::as_str).unwrap_or("");
                let gvk = Gvk::new(group, version, kind);
                let Ok(Some(schema)) = registry.get(&gvk) else { continue };
                for typed in [false, true] {
                    let walk = Walk { validator: &validator, typed, defaults: defaults_possible(&schema) };
                    let mut copy = object.clone();
                    let mut found = Vec::new();
                    walk.normalize(&mut copy, &schema.schema, &Pointer::Root(""), true, &mut found);
                    if walk.normalize_changes(object, &schema.schema, true) {
                        changed += 1;
                    } else {
                        assert!(found.is_empty(), "{file}: {kind}: {found:?}");
                        assert_eq!(copy.to_string(), object.to_string(), "{file}: {kind}");
                        unchanged += 1;
                    }
                }
            }
        }
        assert!(unchanged > 200 && changed > 50, "{unchanged} unchanged, {changed} changed");
    }

    fn errors(yaml: &str) -> Vec<(String, String)> {
        let registry = Registry::embedded();
        let validator = Validator::new(&registry, ValidateOptions::default());
        let documents = parse_documents(yaml, "test.yaml").expect("test YAML parses");
        validator
            .validate_document(&documents[0])
            .findings
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| (f.rule, f.path))
            .collect()
    }

    #[test]
    fn a_wrong_json_type_is_not_hidden_by_capz_defaulting() {
        // YAML 1.1 reads `y` as true: CAPZ's defaulting webhook cannot decode it (it would otherwise default the
        // empty cidrBlock), so the type error stands.
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: c1, namespace: default}
spec:
  location: eastus
  resourceGroupName: rg
  version: v1.33.2
  virtualNetwork: {name: v, cidrBlock: 10.0.0.0/8, subnet: {name: s, cidrBlock: y}}
";
        assert!(
            errors(yaml).contains(&("schema".to_string(), "/spec/virtualNetwork/subnet/cidrBlock".to_string())),
            "{:?}",
            errors(yaml)
        );
        let quoted = errors(&yaml.replace("cidrBlock: y", "cidrBlock: 10.240.0.0/16"));
        assert!(!quoted.iter().any(|(_, path)| path.contains("subnet")), "{quoted:?}");
    }

    /// `errors_of` (the checks of the objects CAPZ creates, which have no file) gives the error findings of
    /// `validate_document`, path and message, in order: an ASO ManagedCluster with errors, and a Secret whose
    /// message holds a secret value (masked in both).
    #[test]
    fn errors_of_a_value_are_the_error_findings_of_its_document() {
        let registry = Registry::embedded();
        let validator = Validator::new(&registry, ValidateOptions::default());
        let yaml = "apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedCluster
metadata: {name: Bad_Name, namespace: default}
spec:
  location: westeurope
  owner: {name: rg}
  dnsPrefix: 42
  unknownField: x
  agentPoolProfiles: [{name: pool0, count: many, mode: System}]
---
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: default}
data: {password: \"hunter2!!\"}
stringData: {token: 42}
";
        let documents = parse_documents(yaml, "test.yaml").expect("test YAML parses");
        for document in &documents {
            let findings: Vec<(String, String)> = validator
                .validate_document(document)
                .findings
                .into_iter()
                .filter(|f| f.severity == Severity::Error)
                .map(|f| (f.path, f.message))
                .collect();
            assert!(!findings.is_empty(), "{}: the case has errors", document.kind());
            assert!(!findings.iter().any(|(_, message)| message.contains("hunter2")), "{findings:?}");
            assert_eq!(validator.errors_of(&document.value), findings, "{}", document.kind());
        }
    }

    /// The first objects of a kind are checked against only the part of the schema their walk reads, later ones
    /// against the whole schema (`Registry::get_for_object`): both give the same findings, for every object of
    /// the corpus (the embedded ASO objects included).
    #[test]
    fn a_schema_read_for_one_object_gives_the_findings_of_the_whole_schema() {
        let mut files: Vec<std::path::PathBuf> = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus"))];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("the corpus is readable") {
                let path = entry.expect("a corpus entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "yaml") {
                    files.push(path);
                }
            }
        }
        files.sort();
        let mut compared = 0;
        for file in &files {
            let text = std::fs::read_to_string(file).expect("a corpus file is readable");
            let Ok(documents) = parse_documents(&text, &file.display().to_string()) else { continue };
            for document in &documents {
                let registry = Registry::embedded();
                let validator = Validator::new(&registry, ValidateOptions::default());
                let first = validator.validate_document(document);
                for _ in 1..crate::schema::registry::OBJECTS_READ_FOR_THEMSELVES {
                    validator.validate_document(document);
                }
                let whole = validator.validate_document(document);
                assert_eq!(first.findings, whole.findings, "{} {}", file.display(), document.display_name());
                assert_eq!(first.status, whole.status, "{} {}", file.display(), document.display_name());
                compared += 1;
            }
        }
        assert!(compared > 100, "only {compared} objects compared");
    }

    const WITH_STATUS: &str = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedCluster
metadata:
  name: demo
spec:
  resources: []
status:
";

    #[test]
    fn secret_values_are_masked_in_findings() {
        let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: default\ndata:\n  password: \"hunter2-not-base64!\"\nstringData:\n  token: 12345\n";
        let registry = Registry::embedded();
        let validator = Validator::new(&registry, ValidateOptions::default());
        let documents = parse_documents(secret, "s.yaml").expect("test YAML parses");
        let findings = validator.validate_document(&documents[0]).findings;
        let messages: Vec<(&str, &str)> = findings.iter().map(|f| (f.path.as_str(), f.message.as_str())).collect();
        assert_eq!(
            messages,
            vec![
                ("/data/password", "\"***\" is not a valid byte"),
                ("/stringData/token", "must be of type string, got number ***"),
            ]
        );
    }

    /// kube-apiserver 1.36 stores `tags: {env: null, team: a}` of a ResourceGroup (tags: additionalProperties
    /// string) as `tags: {team: a}`: a null map value is pruned like a null property; a null list item is
    /// not (rejected), seen in tests/live/live_validate.rs.
    #[test]
    fn null_map_values_are_pruned_null_list_items_rejected() {
        let group = "apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: demo
spec:
  location: westeurope
";
        assert_eq!(errors(&format!("{group}  tags:\n    env: null\n    team: a\n")), vec![]);
        assert_eq!(
            errors(&format!("{group}  tags:\n    env: 1\n")),
            vec![("schema".to_string(), "/spec/tags/env".to_string())]
        );
        let pool = "apiVersion: cluster.x-k8s.io/v1beta2
kind: MachinePool
metadata:
  name: demo-pool0
spec:
  clusterName: demo
  template:
    spec:
      bootstrap:
        dataSecretName: \"\"
      clusterName: demo
      infrastructureRef:
        apiGroup: infrastructure.cluster.x-k8s.io
        kind: AzureASOManagedMachinePool
        name: demo-pool0
      taints:
      - null
";
        assert_eq!(errors(pool), vec![("schema".to_string(), "/spec/template/spec/taints/0".to_string())]);
    }

    /// kube-apiserver 1.36, create with fieldValidation=Strict on a kind with the status subresource:
    /// `status.ready: maybe` is accepted (status is dropped before validation), `status.whatever` is
    /// rejected by the strict decoder (`unknown field "status.whatever"`), seen in tests/live/live_validate.rs.
    #[test]
    fn dropped_status_is_not_validated_but_its_undeclared_fields_are_rejected() {
        assert_eq!(errors(&format!("{WITH_STATUS}  ready: maybe\n")), vec![]);
        assert_eq!(
            errors(&format!("{WITH_STATUS}  ready: true\n  whatever: 1\n")),
            vec![("unknown-field".to_string(), "/status/whatever".to_string())]
        );
    }

    #[test]
    fn capz_defaulting_runs_before_the_schema() {
        // CAPZ's Default() fills the virtual network and subnet, and its Go round trip writes "" for location and
        // resourceGroupName: none of them is a missing required field. identityRef (a nil pointer) still is.
        let amcp = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlane
metadata: {name: c1, namespace: default}
spec:
  version: v1.33.2
";
        assert_eq!(errors(amcp), [("schema".to_string(), "/spec/identityRef".to_string())]);
        // A missing version becomes "", which the CRD's minLength rejects at the same path.
        let no_version = amcp.replace("  version: v1.33.2\n", "  identityRef: {name: id}\n");
        assert_eq!(errors(&no_version), [("schema".to_string(), "/spec/version".to_string())]);
        // The pool's sku is written back as "" (accepted); mode "" fails the enum.
        let pool = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {name: pool0}
spec: {}
";
        assert_eq!(errors(pool), [("schema".to_string(), "/spec/mode".to_string())]);
        // Kinds without a CAPZ defaulting webhook keep their required fields.
        let identity = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureClusterIdentity
metadata: {name: id}
spec: {type: WorkloadIdentity, clientID: c}
";
        assert_eq!(errors(identity), [("schema".to_string(), "/spec/tenantID".to_string())]);
    }
}
