//! The API server's structural defaulting of the classic kinds' CRDs, with each schema read once per process into
//! the parts that have defaults (the translation defaults every classic object twice).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::fast_hash::{HashMap, HashSet};
use crate::json_pointer::field;
use crate::schema::Gvk;
use crate::target_schemas::TargetSchemas;

const INFRA_GROUP: &str = "infrastructure.cluster.x-k8s.io";

/// What defaulting reads of one schema node: the defaults of its properties and the nodes below it that hold
/// defaults; a subtree without any is not walked.
#[derive(Debug, Default)]
struct Plan {
    /// The properties with a default, in the schema's order.
    defaults: Vec<(String, Value)>,
    /// The properties with defaults below them.
    properties: HashMap<String, Plan>,
    /// Every declared property, kept only when `additional` is set: a declared field is never read as a map value.
    declared: HashSet<String>,
    additional: Option<Box<Plan>>,
    items: Option<Box<Plan>>,
}

impl Plan {
    /// The plan of `schema`, `None` when nothing in it has a default.
    fn of(schema: &Value) -> Option<Plan> {
        let schema = schema.as_object()?;
        let mut plan = Plan::default();
        let properties = field(schema, "properties").and_then(Value::as_object);
        for (key, child) in properties.into_iter().flatten() {
            if let Some(default) = child.as_object().and_then(|child| field(child, "default")) {
                plan.defaults.push((key.clone(), default.clone()));
            }
            if let Some(below) = Plan::of(child) {
                plan.properties.insert(key.clone(), below);
            }
        }
        plan.additional =
            field(schema, "additionalProperties").filter(|a| a.is_object()).and_then(Plan::of).map(Box::new);
        if plan.additional.is_some() {
            plan.declared = properties.map(|properties| properties.keys().cloned().collect()).unwrap_or_default();
        }
        plan.items = field(schema, "items").and_then(Plan::of).map(Box::new);
        let empty =
            plan.defaults.is_empty() && plan.properties.is_empty() && plan.additional.is_none() && plan.items.is_none();
        (!empty).then_some(plan)
    }

    /// A missing (or null) property with a default gets it; present objects and arrays are walked.
    fn apply(&self, value: &mut Value) {
        match value {
            Value::Object(map) => self.apply_to_object(map),
            Value::Array(items) => {
                if let Some(item) = &self.items {
                    items.iter_mut().for_each(|value| item.apply(value));
                }
            }
            _ => {}
        }
    }

    fn apply_to_object(&self, map: &mut Map<String, Value>) {
        for (key, default) in &self.defaults {
            if field(map, key).is_none_or(Value::is_null) {
                map.insert(key.clone(), default.clone());
            }
        }
        if self.properties.is_empty() && self.additional.is_none() {
            return;
        }
        for (key, child) in map.iter_mut() {
            if let Some(below) = self.properties.get(key.as_str()) {
                below.apply(child);
            } else if let Some(additional) = &self.additional
                && !self.declared.contains(key.as_str())
            {
                additional.apply(child);
            }
        }
    }
}

/// The classic `kind`'s structural defaults (of the target's v1beta1 CRD) applied to `value`.
pub(super) fn apply(kind: &str, schemas: &TargetSchemas, value: &mut Value) {
    if let Some(plan) = plan(kind, schemas).as_ref() {
        plan.apply(value);
    }
}

/// The plan of `kind`'s schema, built once per kind and kept with the target's schemas.
fn plan(kind: &str, schemas: &TargetSchemas) -> Arc<Option<Plan>> {
    schemas.derived(kind, |registry| {
        let schema = registry.get(&Gvk::new(INFRA_GROUP, "v1beta1", kind)).ok().flatten();
        schema.and_then(|schema| Plan::of(&schema.schema))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The walk this plan replaces: every property of every schema node looked at for every object.
    fn apply_by_walking(value: &mut Value, schema: &Value) {
        let Some(schema) = schema.as_object() else { return };
        match value {
            Value::Object(map) => {
                let properties = schema.get("properties").and_then(Value::as_object);
                if let Some(properties) = properties {
                    for (key, child) in properties {
                        if let Some(default) = child.get("default")
                            && map.get(key).is_none_or(Value::is_null)
                        {
                            map.insert(key.clone(), default.clone());
                        }
                    }
                }
                let additional = schema.get("additionalProperties").filter(|a| a.is_object());
                for (key, child) in map.iter_mut() {
                    if let Some(child_schema) = properties.and_then(|p| p.get(key)) {
                        apply_by_walking(child, child_schema);
                    } else if let Some(additional) = additional {
                        apply_by_walking(child, additional);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = schema.get("items") {
                    items.iter_mut().for_each(|item| apply_by_walking(item, item_schema));
                }
            }
            _ => {}
        }
    }

    #[test]
    fn plan_defaults_as_the_full_walk_does() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "default": "x"},
                "b": {"type": "object", "properties": {"c": {"type": "integer", "default": 3}, "d": {"type": "string"}}},
                "list": {"type": "array", "items": {"type": "object", "properties": {"e": {"default": true}}}},
                "plain": {"type": "object", "properties": {"f": {"type": "string"}}},
                "declared": {"type": "object", "properties": {"z": {"type": "string"}}}
            },
            "additionalProperties": {"type": "object", "properties": {"g": {"default": "m"}}}
        });
        let values = [
            json!({}),
            json!({"a": null, "b": {}, "list": [{}, {"e": false}, 1], "plain": {"f": "y"}}),
            json!({"b": {"c": null, "d": "k"}, "other": {}, "declared": {}, "more": {"g": null}}),
            json!({"b": 4, "list": {"e": 1}, "other": 7}),
            json!([1, 2]),
        ];
        let plan = Plan::of(&schema).expect("the schema has defaults");
        for value in values {
            let (mut walked, mut planned) = (value.clone(), value.clone());
            apply_by_walking(&mut walked, &schema);
            plan.apply(&mut planned);
            assert_eq!(planned, walked, "{value}");
            assert_eq!(planned.to_string(), walked.to_string(), "key order of {value}");
        }
        assert!(Plan::of(&json!({"properties": {"a": {"type": "string"}}})).is_none());
    }

    #[test]
    fn the_classic_kinds_are_defaulted_as_the_full_walk_does() {
        let schemas = TargetSchemas::builtin(crate::versions::default_target());
        for (kind, value) in [
            ("AzureManagedControlPlane", json!({"spec": {"virtualNetwork": {"subnet": {}}, "sku": {}}})),
            ("AzureManagedMachinePool", json!({"spec": {"scaling": {}, "taints": [{}]}})),
        ] {
            let schema =
                schemas.registry().get(&Gvk::new(INFRA_GROUP, "v1beta1", kind)).unwrap().expect("a classic CRD");
            let (mut walked, mut planned) = (value.clone(), value.clone());
            apply_by_walking(&mut walked, &schema.schema);
            apply(kind, schemas, &mut planned);
            assert_ne!(walked, value, "{kind}: the CRD defaults something");
            assert_eq!(planned.to_string(), walked.to_string(), "{kind}");
        }
    }
}
