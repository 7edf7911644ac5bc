//! `convert --aso`: ASO objects moved from API versions the target's ASO does not serve (or, with
//! `--aso-version`, from any version of a group) to one it serves ([`crate::schema::aso_versions`]), with the conversion semantics of
//! ASO's generated code ([`copy`]): standalone objects, the objects embedded in `AzureASOManaged*.spec.resources`
//! and their templates' `spec.template.spec.resources`, and whole objects a ClusterClass patch adds to them.

pub mod copy;

use std::collections::BTreeMap;

use serde_json::Value;

use self::copy::{DropReason, Dropped};
use super::{Conversion, ConvertError, Warning};
use crate::json_pointer::At;
use crate::schema::aso_versions::{self as select, Choice};
use crate::schema::{Gvk, Registry};
use crate::versions::{CAPZ_GROUP, Target};

/// What one `convert --aso` run converts to.
pub struct AsoPlan<'r> {
    /// The target's schemas: which versions it serves, and the destination versions' schemas.
    pub registry: &'r Registry,
    pub target: &'static Target,
    /// The versions asked for per API group (`--aso-version containerservice.azure.com/v1api20250801`).
    pub asked: BTreeMap<String, String>,
}

/// Where ASO objects sit inside one document: JSON pointers of the objects (the document itself for a standalone
/// ASO object).
fn aso_objects(document: &Value) -> Vec<String> {
    let api_version = document.str_at("/apiVersion").unwrap_or("");
    let kind = document.str_at("/kind").unwrap_or("");
    let group = api_version.split_once('/').map_or("", |(group, _)| group);
    let mut out = Vec::new();
    if Target::is_aso_group(group) {
        out.push(String::new());
    } else if group == CAPZ_GROUP && super::capz::is_aso_managed_kind(kind) {
        let list = if kind.ends_with("Template") { "/spec/template/spec/resources" } else { "/spec/resources" };
        for index in 0..document.pointer(list).and_then(Value::as_array).map_or(0, Vec::len) {
            out.push(format!("{list}/{index}"));
        }
    } else if kind == "ClusterClass" && group == "cluster.x-k8s.io" {
        for (p, patch) in document.items_at("/spec/patches").enumerate() {
            for (d, definition) in patch.items_at("/definitions").enumerate() {
                for (j, json_patch) in definition.items_at("/jsonPatches").enumerate() {
                    let at = format!("/spec/patches/{p}/definitions/{d}/jsonPatches/{j}/value");
                    match json_patch.get("value") {
                        Some(Value::Array(items)) => out.extend(
                            (0..items.len())
                                .map(|i| format!("{at}/{i}"))
                                .filter(|i| is_aso_object(document.pointer(i))),
                        ),
                        value if is_aso_object(value) => out.push(at),
                        _ => {}
                    }
                }
            }
        }
    }
    out
}

fn is_aso_object(value: Option<&Value>) -> bool {
    let Some(value) = value.filter(|v| v.is_object()) else { return false };
    let group = value.str_at("/apiVersion").and_then(|v| v.split_once('/')).map_or("", |(group, _)| group);
    Target::is_aso_group(group) && value.str_at("/kind").is_some()
}

/// A value for a message: compact JSON, cut short.
fn shown(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    if text.chars().count() > 80 { format!("{}...", text.chars().take(77).collect::<String>()) } else { text }
}

/// Converts the ASO objects of one document; `None` when none moves.
pub fn convert_document(document: &Value, plan: &AsoPlan<'_>) -> Result<Option<Conversion>, ConvertError> {
    let mut value = document.clone();
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let mut changed = false;
    for at in aso_objects(document) {
        let Some(object) = document.pointer(&at) else { continue };
        let (Some(api_version), Some(kind)) = (object.str_at("/apiVersion"), object.str_at("/kind")) else {
            continue;
        };
        let Some((group, version)) = api_version.split_once('/') else { continue };
        let served = plan.registry.versions_of(group, kind);
        if served.is_empty() {
            // Not a kind this tool has schemas for: nothing is known of its versions.
            continue;
        }
        let name = object.str_at("/metadata/name").unwrap_or("");
        let who = plan.target.served_by(group).unwrap_or_else(|| format!("CAPZ {}", plan.target.name));
        let (to, asked) = match select::choose(group, version, &served, &plan.asked) {
            Choice::Keep => continue,
            Choice::To { version, asked } => (version, asked),
            Choice::Nowhere => {
                let listed: Vec<&str> =
                    served.iter().map(String::as_str).filter(|v| !select::is_storage(v)).collect::<Vec<_>>();
                return Err(ConvertError {
                    pointer: format!("{at}/apiVersion"),
                    message: format!(
                        "{kind} {name}: {api_version} is not served by {who}, which serves {} of it",
                        if listed.is_empty() { "no version".to_string() } else { listed.join(", ") }
                    ),
                });
            }
        };
        let gvk = Gvk::new(group, &to, kind);
        let schema = match plan.registry.get(&gvk) {
            Ok(Some(schema)) => schema,
            Ok(None) | Err(_) => {
                return Err(ConvertError {
                    pointer: format!("{at}/apiVersion"),
                    message: format!("{kind} {name}: no schema of {group}/{to} is bundled"),
                });
            }
        };
        let mut dropped = Vec::new();
        let converted = convert_object(object, &gvk, &schema.schema, &mut dropped);
        // ASO carries such a value in a property bag and fails to read it back as the new type (ASO v2.18.0's
        // `virtualMachinesProfile.scale.autoscale`, a list in v1api20240402preview and an object in
        // v20251002preview): its conversion webhook refuses the object, so do we. The same for the shape of a
        // preview whose storage version the conversion passes through ([`crossed_previews`]).
        let crossed = crossed_previews(version, &to, &served)
            .into_iter()
            .filter_map(|preview| plan.registry.get(&Gvk::new(group, &preview, kind)).ok().flatten());
        let mut through = Vec::new();
        for preview in crossed {
            convert_object(object, &gvk, &preview.schema, &mut through);
        }
        let refusal = dropped.iter().chain(&through).find(|d| matches!(d.reason, DropReason::OtherType(_)));
        if let Some(Dropped { pointer, reason: DropReason::OtherType(ty), .. }) = refusal {
            return Err(ConvertError {
                pointer: format!("{at}{pointer}"),
                message: format!(
                    "{kind} {name}: {group}/{to} holds {ty} here, which ASO's conversion cannot make of this value                      (its conversion webhook fails on the object): rewrite the field by hand for {to}"
                ),
            });
        }
        let why = if asked { "as --aso-version asks".to_string() } else { format!("{version} is not served by {who}") };
        let why = if select::older(&to, version) { format!("{why}; an older version") } else { why };
        // A standalone object is the document the message names already.
        let whose = if at.is_empty() { String::new() } else { format!("{kind} {name}: ") };
        notes.push(Warning {
            pointer: format!("{at}/apiVersion"),
            message: format!("{whose}{api_version} -> {group}/{to} ({why})"),
        });
        for Dropped { pointer, value: lost, reason } in dropped {
            let message = match reason {
                DropReason::NoSuchField => format!("{group}/{to} {kind} has no such field"),
                DropReason::OtherType(ty) => format!("{group}/{to} {kind} holds {ty} there"),
            };
            warnings.push(Warning {
                pointer: format!("{at}{pointer}"),
                message: format!("dropped ({message}); it was {}", shown(&lost)),
            });
        }
        if at.is_empty() {
            value = converted;
        } else if let Some(slot) = value.pointer_mut(&at) {
            *slot = converted;
        }
        changed = true;
    }
    Ok(changed.then_some(Conversion { value, warnings, notes }))
}

/// The previews (other than `from` and `to`) whose shapes a conversion from `from` to `to` passes through, of a kind
/// the target serves in `served`: ASO chains each GA storage version to the next up to the hub (the newest GA), a
/// preview older than the hub into the storage version of the next GA after it, and keeps that preview's shape
/// there as a compatibility type; a newer preview converts to the hub directly. The storage versions crossed are
/// those between each end and the hub.
pub fn crossed_previews(from: &str, to: &str, served: &[String]) -> Vec<String> {
    let versions: Vec<&str> = served.iter().map(String::as_str).filter(|v| !select::is_storage(v)).collect();
    let mut ga: Vec<&str> = versions.iter().copied().filter(|v| !select::is_preview(v)).collect();
    ga.sort_by_key(|v| select::date_of(v));
    let Some(hub) = ga.last().copied() else { return Vec::new() };
    // The GA storage version an end enters the chain at.
    let entry = |end: &str| -> u64 {
        if select::is_preview(end) {
            select::date_of(ga.iter().copied().find(|g| select::date_of(g) > select::date_of(end)).unwrap_or(hub))
        } else {
            select::date_of(end)
        }
    };
    let low = entry(from).min(entry(to));
    let crossed: Vec<&str> = ga.iter().copied().filter(|g| select::date_of(g) >= low).collect();
    let mut out = Vec::new();
    for preview in versions.iter().copied().filter(|v| select::is_preview(v) && *v != from && *v != to) {
        let attached = ga.iter().copied().find(|g| select::date_of(g) > select::date_of(preview));
        if attached.is_some_and(|g| crossed.contains(&g)) {
            out.push(preview.to_string());
        }
    }
    out
}

/// One ASO object at the destination `gvk`, whose structural schema is `schema`: `apiVersion` replaced, `kind`
/// and `metadata` kept, every other top-level field (`spec`, a `status` if any) carried as ASO carries it.
pub fn convert_object(object: &Value, gvk: &Gvk, schema: &Value, dropped: &mut Vec<Dropped>) -> Value {
    let Value::Object(fields) = object else { return object.clone() };
    let mut out = serde_json::Map::new();
    for (key, field) in fields {
        match key.as_str() {
            "apiVersion" => {
                out.insert(key.clone(), Value::String(gvk.api_version()));
            }
            "kind" | "metadata" => {
                out.insert(key.clone(), field.clone());
            }
            _ => {
                let property = schema.pointer(&format!("/properties/{key}"));
                match property {
                    Some(property) => {
                        if let Some(kept) = copy::copy(field, property, &format!("/{key}"), dropped) {
                            out.insert(key.clone(), kept);
                        }
                    }
                    None if field.is_null() => {}
                    None => dropped.push(Dropped {
                        pointer: format!("/{key}"),
                        value: field.clone(),
                        reason: DropReason::NoSuchField,
                    }),
                }
            }
        }
    }
    Value::Object(out)
}
