//! cluster.x-k8s.io v1beta1 → v1beta2 ClusterClass: template references (`ref` → `templateRef`,
//! worker classes lose their `template:` level), health checks, naming, variables (their schema
//! bools and metadata) and patches (external extension names, selector bools).

use serde_json::{Map, Value};

use super::Context;
use super::core::{HealthCheckKind, deletion_timeouts, health_check_move, naming_move, strategy_move};
use super::fields::{
    default_false, drop_empty_string, drop_false, drop_if_empty, items_mut, object_mut, put, rename, take, take_some,
};
use super::status;
use crate::convert::ConvertError;

type Object = Map<String, Value>;

pub(super) fn cluster_class(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    let namespace = context.namespace.clone();
    if let Some(spec) = object_mut(object, "spec") {
        if let Some((position, infrastructure)) = take_some(spec, "infrastructure") {
            let mut out = Object::new();
            if let Some(reference) = context.template_ref(&infrastructure, "/spec/infrastructure", &namespace) {
                out.insert("templateRef".into(), reference);
            }
            put(spec, position, &["infrastructure"], Value::Object(out));
        }
        if let Some((position, naming)) = take_some(spec, "infrastructureNamingStrategy")
            && let Some(template) = naming.get("template").filter(|t| t.as_str().is_some_and(|s| !s.is_empty()))
        {
            put(spec, position, &["infrastructure", "naming", "template"], template.clone());
        }
        drop_if_empty(spec, "infrastructure");
        if let Some(control_plane) = object_mut(spec, "controlPlane") {
            let pointer = "/spec/controlPlane";
            if let Some(reference) = context.template_ref(&Value::Object(control_plane.clone()), pointer, &namespace) {
                let (position, _) = take(control_plane, "ref").expect("template_ref found it");
                put(control_plane, position, &["templateRef"], reference);
            } else {
                take(control_plane, "ref");
            }
            if let Some((position, machine)) = take_some(control_plane, "machineInfrastructure")
                && let Some(reference) =
                    context.template_ref(&machine, &format!("{pointer}/machineInfrastructure"), &namespace)
            {
                put(control_plane, position, &["machineInfrastructure", "templateRef"], reference);
            }
            health_check_move(context, control_plane, pointer, HealthCheckKind::Class)?;
            naming_move(control_plane, "namingStrategy", "naming");
            deletion_timeouts(context, control_plane, pointer)?;
            drop_if_empty(control_plane, "metadata");
        }
        drop_if_empty(spec, "controlPlane");
        if let Some(workers) = object_mut(spec, "workers") {
            for (index, class) in items_mut(workers, "machineDeployments") {
                let pointer = format!("/spec/workers/machineDeployments/{index}");
                class_template(context, class, &pointer, &namespace);
                health_check_move(context, class, &pointer, HealthCheckKind::Class)?;
                drop_empty_string(class, "failureDomain");
                naming_move(class, "namingStrategy", "naming");
                deletion_timeouts(context, class, &pointer)?;
                strategy_move(class, &["healthCheck", "remediation", "maxInFlight"]);
            }
            for (index, class) in items_mut(workers, "machinePools") {
                let pointer = format!("/spec/workers/machinePools/{index}");
                class_template(context, class, &pointer, &namespace);
                naming_move(class, "namingStrategy", "naming");
                deletion_timeouts(context, class, &pointer)?;
            }
        }
        drop_if_empty(spec, "workers");
        for (_, variable) in items_mut(spec, "variables") {
            class_variable(context, variable);
        }
        for (_, patch) in items_mut(spec, "patches") {
            class_patch(context, patch);
        }
    }
    status::cluster_class(context, object)
}

/// A worker class's `template: {metadata, bootstrap: {ref}, infrastructure: {ref}}` flattened to
/// `metadata`, `bootstrap.templateRef`, `infrastructure.templateRef`.
fn class_template(context: &mut Context, class: &mut Object, pointer: &str, namespace: &str) {
    let Some((mut position, template)) = take_some(class, "template") else { return };
    let pointer = format!("{pointer}/template");
    if let Some(metadata) = template.get("metadata").filter(|m| m.as_object().is_some_and(|m| !m.is_empty())) {
        put(class, position, &["metadata"], metadata.clone());
        position += 1;
    }
    for key in ["bootstrap", "infrastructure"] {
        let Some(local) = template.get(key) else { continue };
        if let Some(reference) = context.template_ref(local, &format!("{pointer}/{key}"), namespace) {
            put(class, position, &[key, "templateRef"], reference);
            position += 1;
        }
    }
}

fn class_variable(context: &mut Context, variable: &mut Object) {
    default_false(variable, "required");
    if let Some((position, metadata)) = take_some(variable, "metadata") {
        let mut out = Object::new();
        for key in ["labels", "annotations"] {
            if let Some(map) = metadata.get(key).filter(|m| m.as_object().is_some_and(|m| !m.is_empty())) {
                out.insert(key.into(), map.clone());
            }
        }
        if !out.is_empty() {
            put(variable, position, &["deprecatedV1Beta1Metadata"], Value::Object(out));
        }
    }
    let restored = context
        .restored
        .as_ref()
        .and_then(|r| r.pointer("/spec/variables"))
        .and_then(Value::as_array)
        .and_then(|vars| vars.iter().find(|v| v.get("name") == variable.get("name")))
        .and_then(|v| v.pointer("/schema/openAPIV3Schema"))
        .cloned();
    if let Some(schema) =
        variable.get_mut("schema").and_then(|s| s.get_mut("openAPIV3Schema")).and_then(Value::as_object_mut)
    {
        json_schema(schema, restored.as_ref());
    }
}

/// The schema bools that become `*bool`.
const SCHEMA_BOOLS: [&str; 5] = [
    "uniqueItems",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
];

/// A variable schema: its bools are `*bool` in v1beta2; CAPI keeps a false only when the restored
/// hub schema (conversion data) had an explicit false there.
fn json_schema(schema: &mut Object, restored: Option<&Value>) {
    for key in SCHEMA_BOOLS {
        let restored_false = restored.and_then(|r| r.get(key)) == Some(&Value::Bool(false));
        if !restored_false {
            drop_false(schema, key);
        } else if schema.get(key) != Some(&Value::Bool(true)) {
            schema.insert(key.to_string(), Value::Bool(false));
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        let restored_child = restored.and_then(|r| r.get(key)).filter(|_| key != "not");
        if let Some(child) = object_mut(schema, key) {
            json_schema(child, restored_child);
        }
    }
    if let Some(properties) = object_mut(schema, "properties") {
        for (name, property) in properties.iter_mut() {
            let restored_child =
                restored.and_then(|r| r.pointer(&format!("/properties/{}", crate::json_pointer::escape_token(name))));
            if let Some(property) = property.as_object_mut() {
                json_schema(property, restored_child);
            }
        }
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for (index, child) in items_mut(schema, key) {
            let restored_child = restored.and_then(|r| r.get(key)).and_then(|r| r.get(index));
            json_schema(child, restored_child);
        }
    }
}

fn class_patch(context: &mut Context, patch: &mut Object) {
    drop_empty_string(patch, "enabledIf");
    let name = patch.get("name").cloned();
    let definition_count = patch.get("definitions").and_then(Value::as_array).map_or(0, Vec::len);
    // The restored patch of the same name, its definitions used when there are as many (as CAPI).
    let restored_definitions = context
        .restored
        .as_ref()
        .and_then(|r| r.pointer("/spec/patches"))
        .and_then(Value::as_array)
        .and_then(|patches| patches.iter().find(|p| p.get("name") == name.as_ref()))
        .and_then(|p| p.get("definitions"))
        .and_then(Value::as_array)
        .filter(|definitions| definitions.len() == definition_count)
        .cloned();
    for (definition_index, definition) in items_mut(patch, "definitions") {
        if let Some(matches) =
            definition.get_mut("selector").and_then(|s| s.get_mut("matchResources")).and_then(Value::as_object_mut)
        {
            for key in ["controlPlane", "infrastructureCluster"] {
                let restored = restored_definitions
                    .as_ref()
                    .and_then(|d| d.get(definition_index))
                    .and_then(|d| d.pointer(&format!("/selector/matchResources/{key}")));
                match (matches.get(key), restored) {
                    (Some(Value::Bool(true)), _) => {}
                    (_, Some(Value::Bool(false))) => {
                        matches.insert(key.to_string(), Value::Bool(false));
                    }
                    _ => drop_false(matches, key),
                }
            }
        }
        for (_, json_patch) in items_mut(definition, "jsonPatches") {
            if let Some(value_from) = object_mut(json_patch, "valueFrom") {
                drop_empty_string(value_from, "variable");
                drop_empty_string(value_from, "template");
            }
        }
    }
    if let Some(external) = object_mut(patch, "external") {
        rename(external, "generateExtension", &["generatePatchesExtension"]);
        rename(external, "validateExtension", &["validateTopologyExtension"]);
        for key in ["generatePatchesExtension", "validateTopologyExtension", "discoverVariablesExtension"] {
            drop_empty_string(external, key);
        }
    }
}
