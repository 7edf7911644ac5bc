//! ClusterClass inline patches: selectors (`matchResources`), `enabledIf`, value sources
//! (`value`, `valueFrom.variable`, `valueFrom.template`) and RFC 6902 add/replace/remove, applied
//! to the templates of one topology in patch order as CAPI's patch engine does.

use std::collections::BTreeMap;

use serde_json::Value;

use super::gotemplate::{self, GoValue};
use super::variables;
use crate::json_pointer::At;

/// Which object holds the reference to a template, as CAPI's `HolderReference`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// `Cluster.spec.infrastructureRef`.
    InfrastructureCluster,
    /// `Cluster.spec.controlPlaneRef`.
    ControlPlane,
    /// The control plane's `spec.machineTemplate.infrastructureRef`.
    ControlPlaneMachineInfrastructure,
    /// `MachineDeployment.spec.template.spec.{bootstrap.configRef,infrastructureRef}` of a class.
    MachineDeployment { class: String, topology: String },
    /// `MachinePool.spec.template.spec.{bootstrap.configRef,infrastructureRef}` of a class.
    MachinePool { class: String, topology: String },
}

/// One template being patched, with its template-specific variables.
#[derive(Debug, Clone)]
pub struct Item {
    pub holder: Holder,
    /// The template object (`spec.template.spec` is what patches usually change).
    pub object: Value,
    /// Template-specific variables (`builtin.controlPlane`, `builtin.machinePool`, overrides).
    pub variables: BTreeMap<String, Value>,
}

/// A patch failure: which patch, which definition, which JSON patch, why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("ClusterClass {class}: spec.patches[{patch_index}] ({patch_name:?}){}: {reason}", definition_text(.definition, .json_patch))]
pub struct PatchError {
    pub class: String,
    pub patch_index: usize,
    pub patch_name: String,
    pub definition: Option<usize>,
    pub json_patch: Option<usize>,
    pub reason: String,
}

fn definition_text(definition: &Option<usize>, json_patch: &Option<usize>) -> String {
    match (definition, json_patch) {
        (Some(d), Some(j)) => format!(" definitions[{d}].jsonPatches[{j}]"),
        (Some(d), None) => format!(" definitions[{d}]"),
        _ => String::new(),
    }
}

/// (item index, definition index, its JSON patches by index) of one patch.
type PlannedOps = (usize, usize, Vec<(usize, Op)>);

/// Applies every patch of `class` to `items`, in order; each patch sees the result of the ones
/// before it. Only `spec` of a patched template is kept (CAPI ignores changes to metadata).
pub fn apply(class: &Value, global: &BTreeMap<String, Value>, items: &mut [Item]) -> Result<(), PatchError> {
    let class_name = format!(
        "{}/{}",
        class.str_at("/metadata/namespace").unwrap_or("default"),
        class.str_at("/metadata/name").unwrap_or("")
    );
    let patches = class.array_at("/spec/patches").cloned().unwrap_or_default();
    for (pi, patch) in patches.iter().enumerate() {
        let name = patch.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let err = |definition: Option<usize>, json_patch: Option<usize>, reason: String| PatchError {
            class: class_name.clone(),
            patch_index: pi,
            patch_name: name.clone(),
            definition,
            json_patch,
            reason,
        };
        let definitions = patch.get("definitions").and_then(Value::as_array);
        let Some(definitions) = definitions.filter(|d| !d.is_empty()) else {
            if patch.get("external").is_some() {
                return Err(err(
                    None,
                    None,
                    "external patches need a Runtime Extension and cannot be planned offline".into(),
                ));
            }
            return Err(err(None, None, "neither definitions nor external is set".into()));
        };
        let enabled_if = patch.get("enabledIf").and_then(Value::as_str);
        // Generate every JSON patch first (against the state before this patch), then apply.
        let mut planned: Vec<PlannedOps> = Vec::new();
        for (ii, item) in items.iter().enumerate() {
            let matching: Vec<(usize, &Value)> = definitions
                .iter()
                .enumerate()
                .filter(|(_, d)| matches_selector(item, d.get("selector").unwrap_or(&Value::Null)))
                .collect();
            if matching.is_empty() {
                continue;
            }
            let vars = variables::merge(global, &item.variables);
            if let Some(expr) = enabled_if {
                let enabled = render_value(expr, &vars).map_err(|e| err(None, None, format!("enabledIf: {e}")))?;
                if enabled != Value::Bool(true) {
                    continue;
                }
            }
            for (di, definition) in matching {
                let mut ops = Vec::new();
                let json_patches = definition.get("jsonPatches").and_then(Value::as_array).cloned().unwrap_or_default();
                for (ji, jp) in json_patches.iter().enumerate() {
                    let op = generate_op(jp, &vars).map_err(|reason| err(Some(di), Some(ji), reason))?;
                    ops.push((ji, op));
                }
                planned.push((ii, di, ops));
            }
        }
        for (ii, di, ops) in planned {
            let item = &mut items[ii];
            let mut patched = item.object.clone();
            for (ji, op) in ops {
                apply_op(&mut patched, &op).map_err(|reason| {
                    err(
                        Some(di),
                        Some(ji),
                        format!("{} {}: {reason}", item_kind(&item.object), describe_holder(&item.holder)),
                    )
                })?;
            }
            match patched.get("spec").cloned() {
                Some(spec) => {
                    if let Some(obj) = item.object.as_object_mut() {
                        obj.insert("spec".into(), spec);
                    }
                }
                None => {
                    if let Some(obj) = item.object.as_object_mut() {
                        obj.remove("spec");
                    }
                }
            }
        }
    }
    Ok(())
}

fn item_kind(object: &Value) -> String {
    format!(
        "{}/{}",
        object.get("kind").and_then(Value::as_str).unwrap_or(""),
        object.str_at("/metadata/name").unwrap_or("")
    )
}

fn describe_holder(holder: &Holder) -> String {
    match holder {
        Holder::InfrastructureCluster => "(infrastructure cluster)".into(),
        Holder::ControlPlane => "(control plane)".into(),
        Holder::ControlPlaneMachineInfrastructure => "(control plane machine infrastructure)".into(),
        Holder::MachineDeployment { topology, .. } => format!("(machine deployment {topology})"),
        Holder::MachinePool { topology, .. } => format!("(machine pool {topology})"),
    }
}

/// Does a definition's selector pick this template? apiVersion and kind must match exactly, then
/// one of `matchResources` must hold (class names accept `*`, `prefix*` and `*suffix`).
pub fn matches_selector(item: &Item, selector: &Value) -> bool {
    let api_version = item.object.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = item.object.get("kind").and_then(Value::as_str).unwrap_or("");
    if selector.get("apiVersion").and_then(Value::as_str) != Some(api_version)
        || selector.get("kind").and_then(Value::as_str) != Some(kind)
    {
        return false;
    }
    let Some(m) = selector.get("matchResources") else { return false };
    let flag = |key: &str| m.get(key).and_then(Value::as_bool) == Some(true);
    let class_matches = |key: &str, class: &str| {
        m.array_at(&format!("/{key}/names")).is_some_and(|names| {
            names.iter().filter_map(Value::as_str).any(|n| {
                n == "*"
                    || n == class
                    || (n.starts_with('*') && class.ends_with(&n[1..]))
                    || (n.ends_with('*') && class.starts_with(&n[..n.len() - 1]))
            })
        })
    };
    match &item.holder {
        Holder::InfrastructureCluster => flag("infrastructureCluster"),
        Holder::ControlPlane | Holder::ControlPlaneMachineInfrastructure => flag("controlPlane"),
        Holder::MachineDeployment { class, .. } => class_matches("machineDeploymentClass", class),
        Holder::MachinePool { class, .. } => class_matches("machinePoolClass", class),
    }
}

/// One RFC 6902 operation with its computed value.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub op: String,
    pub path: String,
    pub value: Option<Value>,
}

fn generate_op(jp: &Value, vars: &BTreeMap<String, Value>) -> Result<Op, String> {
    let op = jp.get("op").and_then(Value::as_str).unwrap_or("").to_string();
    let path = jp.get("path").and_then(Value::as_str).unwrap_or("").to_string();
    if !matches!(op.as_str(), "add" | "replace" | "remove") {
        return Err(format!("op {op:?} is not supported: only add, replace and remove are"));
    }
    if !path.starts_with("/spec/") {
        return Err(format!("path {path:?} must start with \"/spec/\""));
    }
    let value = if op == "remove" {
        None
    } else {
        let value = jp.get("value");
        let value_from = jp.get("valueFrom");
        Some(match (value, value_from) {
            (None, None) => return Err("failed to calculate value: neither .value nor .valueFrom are set".into()),
            (Some(_), Some(_)) => return Err("failed to calculate value: both .value and .valueFrom are set".into()),
            (Some(v), None) => v.clone(),
            (None, Some(from)) => {
                match (from.get("variable").and_then(Value::as_str), from.get("template").and_then(Value::as_str)) {
                    (Some(_), Some(_)) => {
                        return Err("failed to calculate value: .valueFrom is set, but both .valueFrom.variable and .valueFrom.template are set".into());
                    }
                    (Some(variable), None) => {
                        variables::lookup(vars, variable).map_err(|e| format!("failed to calculate value: {e}"))?
                    }
                    (None, Some(template)) => render_value(template, vars)
                        .map_err(|e| format!("failed to calculate value for template: {e}"))?,
                    (None, None) => {
                        return Err("failed to calculate value: .valueFrom is set, but neither .valueFrom.variable nor .valueFrom.template are set".into());
                    }
                }
            }
        })
    };
    Ok(Op { op, path, value })
}

/// Renders a patch template with the variables as data and parses the output as YAML, as CAPI
/// does (`sigs.k8s.io/yaml`), so `true`, `3` and block YAML become typed values.
pub fn render_value(template: &str, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    let data = GoValue::Map(vars.iter().map(|(k, v)| (k.clone(), GoValue::from_json(v))).collect());
    let text = gotemplate::render(template, &data).map_err(|e| e.to_string())?;
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    crate::manifest::parse_plain_value(&text, "<template output>")
        .map_err(|e| format!("failed to unmarshal rendered template {text:?}: {e}"))
}

/// Splits a JSON pointer into unescaped tokens (`~1` is `/`, `~0` is `~`).
fn pointer_tokens(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(format!("path {path:?} is not a JSON pointer"));
    };
    Ok(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

fn array_index(token: &str, len: usize, allow_end: bool, path: &str) -> Result<usize, String> {
    if token == "-" && allow_end {
        return Ok(len);
    }
    if token.is_empty() || !token.chars().all(|c| c.is_ascii_digit()) || (token.len() > 1 && token.starts_with('0')) {
        return Err(format!("{path}: invalid array index {token:?}"));
    }
    let i: usize = token.parse().map_err(|_| format!("{path}: invalid array index {token:?}"))?;
    let max = if allow_end { len } else { len.saturating_sub(1) };
    if i > max || (!allow_end && len == 0) {
        return Err(format!("{path}: array index {i} out of bounds (length {len})"));
    }
    Ok(i)
}

/// Applies one operation with RFC 6902 semantics (add to an existing parent, `-` appends,
/// replace and remove need an existing target).
pub fn apply_op(doc: &mut Value, op: &Op) -> Result<(), String> {
    let tokens = pointer_tokens(&op.path)?;
    let Some((last, parents)) = tokens.split_last() else {
        match op.op.as_str() {
            "add" | "replace" => {
                *doc = op.value.clone().unwrap_or(Value::Null);
                return Ok(());
            }
            _ => return Err("cannot remove the whole document".into()),
        }
    };
    let mut parent = &mut *doc;
    let mut walked = String::new();
    for token in parents {
        walked.push('/');
        walked.push_str(&crate::json_pointer::escape_token(token));
        parent = match parent {
            Value::Object(map) => map
                .get_mut(token)
                .ok_or_else(|| format!("{} operation does not apply: doc is missing path: {walked}", op.op))?,
            Value::Array(items) => {
                let len = items.len();
                let i = array_index(token, len, false, &walked)?;
                &mut items[i]
            }
            _ => return Err(format!("{} operation does not apply: {walked} is not an object or array", op.op)),
        };
    }
    let value = op.value.clone().unwrap_or(Value::Null);
    match (op.op.as_str(), parent) {
        ("add", Value::Object(map)) => {
            map.insert(last.clone(), value);
        }
        ("add", Value::Array(items)) => {
            let i = array_index(last, items.len(), true, &op.path)?;
            items.insert(i, value);
        }
        ("replace", Value::Object(map)) => match map.get_mut(last) {
            Some(slot) => *slot = value,
            None => return Err(format!("replace operation does not apply: doc is missing key: {}", op.path)),
        },
        ("replace", Value::Array(items)) => {
            let i = array_index(last, items.len(), false, &op.path)?;
            items[i] = value;
        }
        ("remove", Value::Object(map)) => {
            if map.shift_remove(last).is_none() {
                return Err(format!("remove operation does not apply: doc is missing key: {}", op.path));
            }
        }
        ("remove", Value::Array(items)) => {
            let i = array_index(last, items.len(), false, &op.path)?;
            items.remove(i);
        }
        (name, _) => {
            return Err(format!("{name} operation does not apply: parent of {} is not an object or array", op.path));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(op: &str, path: &str, value: Option<Value>) -> Op {
        Op { op: op.into(), path: path.into(), value }
    }

    #[test]
    fn json_patch_add_replace_remove() {
        let mut doc = json!({"spec": {"a": 1, "list": ["x", "y"], "k/e~y": 0}});
        apply_op(&mut doc, &op("add", "/spec/b", Some(json!({"c": 2})))).unwrap();
        apply_op(&mut doc, &op("add", "/spec/list/-", Some(json!("z")))).unwrap();
        apply_op(&mut doc, &op("add", "/spec/list/0", Some(json!("w")))).unwrap();
        apply_op(&mut doc, &op("replace", "/spec/a", Some(json!(5)))).unwrap();
        apply_op(&mut doc, &op("replace", "/spec/k~1e~0y", Some(json!(9)))).unwrap();
        apply_op(&mut doc, &op("remove", "/spec/list/1", None)).unwrap();
        assert_eq!(doc, json!({"spec": {"a": 5, "list": ["w", "y", "z"], "k/e~y": 9, "b": {"c": 2}}}));
    }

    #[test]
    fn json_patch_errors_name_the_path() {
        let mut doc = json!({"spec": {"list": []}});
        assert_eq!(
            apply_op(&mut doc, &op("replace", "/spec/nope", Some(json!(1)))).unwrap_err(),
            "replace operation does not apply: doc is missing key: /spec/nope"
        );
        assert_eq!(
            apply_op(&mut doc, &op("add", "/spec/missing/child", Some(json!(1)))).unwrap_err(),
            "add operation does not apply: doc is missing path: /spec/missing"
        );
        assert!(apply_op(&mut doc, &op("remove", "/spec/list/0", None)).unwrap_err().contains("out of bounds"));
        assert!(apply_op(&mut doc, &op("add", "/spec/list/2", Some(json!(1)))).unwrap_err().contains("out of bounds"));
    }
}

#[cfg(test)]
mod selector_tests {
    use super::*;
    use serde_json::json;

    const API: &str = "infrastructure.cluster.x-k8s.io/v1beta1";

    fn item(kind: &str, holder: Holder) -> Item {
        Item {
            holder,
            object: json!({"apiVersion": API, "kind": kind, "metadata": {"name": "t"}, "spec": {"template": {"spec": {}}}}),
            variables: BTreeMap::new(),
        }
    }

    fn pool(class: &str) -> Holder {
        Holder::MachinePool { class: class.into(), topology: "mp".into() }
    }

    fn deployment(class: &str) -> Holder {
        Holder::MachineDeployment { class: class.into(), topology: "md".into() }
    }

    fn selector(kind: &str, match_resources: Value) -> Value {
        json!({"apiVersion": API, "kind": kind, "matchResources": match_resources})
    }

    #[test]
    fn infrastructure_cluster_selector() {
        let s = selector("AzureASOManagedClusterTemplate", json!({"infrastructureCluster": true}));
        assert!(matches_selector(&item("AzureASOManagedClusterTemplate", Holder::InfrastructureCluster), &s));
        // Same kind held by a different holder, or another kind: no match.
        assert!(!matches_selector(&item("AzureASOManagedClusterTemplate", Holder::ControlPlane), &s));
        assert!(!matches_selector(&item("AzureManagedClusterTemplate", Holder::InfrastructureCluster), &s));
        let other_version = json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "AzureASOManagedClusterTemplate",
            "matchResources": {"infrastructureCluster": true}});
        assert!(!matches_selector(
            &item("AzureASOManagedClusterTemplate", Holder::InfrastructureCluster),
            &other_version
        ));
        let off = selector("AzureASOManagedClusterTemplate", json!({"infrastructureCluster": false}));
        assert!(!matches_selector(&item("AzureASOManagedClusterTemplate", Holder::InfrastructureCluster), &off));
    }

    #[test]
    fn control_plane_selector_covers_its_machine_template() {
        let s = selector("T", json!({"controlPlane": true}));
        assert!(matches_selector(&item("T", Holder::ControlPlane), &s));
        assert!(matches_selector(&item("T", Holder::ControlPlaneMachineInfrastructure), &s));
        assert!(!matches_selector(&item("T", Holder::InfrastructureCluster), &s));
        assert!(!matches_selector(&item("T", pool("x")), &s));
    }

    #[test]
    fn machine_pool_class_selector_with_wildcards() {
        let exact = selector("T", json!({"machinePoolClass": {"names": ["default-worker"]}}));
        assert!(matches_selector(&item("T", pool("default-worker")), &exact));
        assert!(!matches_selector(&item("T", pool("default-system")), &exact));
        assert!(!matches_selector(&item("T", deployment("default-worker")), &exact));
        let any = selector("T", json!({"machinePoolClass": {"names": ["*"]}}));
        assert!(matches_selector(&item("T", pool("whatever")), &any));
        let prefix = selector("T", json!({"machinePoolClass": {"names": ["default-*"]}}));
        assert!(matches_selector(&item("T", pool("default-system")), &prefix));
        assert!(!matches_selector(&item("T", pool("gpu-system")), &prefix));
        let suffix = selector("T", json!({"machinePoolClass": {"names": ["*-system"]}}));
        assert!(matches_selector(&item("T", pool("gpu-system")), &suffix));
        assert!(!matches_selector(&item("T", pool("gpu-user")), &suffix));
    }

    #[test]
    fn machine_deployment_class_selector() {
        let s = selector("T", json!({"machineDeploymentClass": {"names": ["md-a", "md-*"]}}));
        assert!(matches_selector(&item("T", deployment("md-a")), &s));
        assert!(matches_selector(&item("T", deployment("md-zz")), &s));
        assert!(!matches_selector(&item("T", deployment("other")), &s));
        assert!(!matches_selector(&item("T", pool("md-a")), &s));
    }

    fn class(patches: Value) -> Value {
        json!({"metadata": {"name": "cc", "namespace": "ns"}, "spec": {"patches": patches}})
    }

    fn globals(vars: Value) -> BTreeMap<String, Value> {
        vars.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    fn pool_patch(enabled_if: Option<&str>, json_patch: Value) -> Value {
        let mut p = json!({"name": "p", "definitions": [{
            "selector": {"apiVersion": API, "kind": "T", "matchResources": {"machinePoolClass": {"names": ["*"]}}},
            "jsonPatches": [json_patch]}]});
        if let Some(e) = enabled_if {
            p["enabledIf"] = json!(e);
        }
        p
    }

    #[test]
    fn enabled_if_uses_merged_variables_and_needs_true() {
        let mut items = vec![item("T", pool("a")), item("T", pool("b"))];
        items[0].variables = globals(json!({"builtin": {"machinePool": {"class": "a"}}}));
        items[1].variables = globals(json!({"builtin": {"machinePool": {"class": "b"}}}));
        let set = json!({"op": "add", "path": "/spec/template/spec/x", "value": 1});
        let c = class(json!([
            pool_patch(Some("{{ eq .builtin.machinePool.class \"a\" }}"), set.clone()),
            pool_patch(
                Some("{{ if .flag }}enabled{{ end }}"),
                json!({"op": "add", "path": "/spec/template/spec/y", "value": 2})
            ),
            // YAML 1.1, as sigs.k8s.io/yaml reads the output: `yes` is true.
            pool_patch(
                Some("{{ if .flag }}yes{{ end }}"),
                json!({"op": "add", "path": "/spec/template/spec/z", "value": 3})
            ),
        ]));
        apply(&c, &globals(json!({"flag": true, "builtin": {"cluster": {"name": "c"}}})), &mut items).unwrap();
        // Only pool "a" got x; "enabled" is not `true`, so y is never added.
        assert_eq!(items[0].object["spec"]["template"]["spec"], json!({"x": 1, "z": 3}));
        assert_eq!(items[1].object["spec"]["template"]["spec"], json!({"z": 3}));
    }

    #[test]
    fn later_patches_see_earlier_results_and_metadata_changes_are_dropped() {
        let mut items = vec![item("T", pool("a"))];
        let c = class(json!([
            pool_patch(None, json!({"op": "add", "path": "/spec/template/spec/list", "value": ["a"]})),
            pool_patch(
                None,
                json!({"op": "add", "path": "/spec/template/spec/list/-", "valueFrom": {"template": "b"}})
            ),
            pool_patch(
                None,
                json!({"op": "replace", "path": "/spec/template/spec/list/0", "valueFrom": {"variable": "v.items[1]"}})
            ),
        ]));
        apply(&c, &globals(json!({"v": {"items": [0, "z"]}})), &mut items).unwrap();
        assert_eq!(items[0].object["spec"]["template"]["spec"]["list"], json!(["z", "b"]));
        // A path outside /spec is refused like CAPI's webhook does.
        let bad = class(json!([pool_patch(None, json!({"op": "add", "path": "/metadata/labels/x", "value": "y"}))]));
        let err = apply(&bad, &BTreeMap::new(), &mut items).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ClusterClass ns/cc: spec.patches[0] (\"p\") definitions[0].jsonPatches[0]: path \"/metadata/labels/x\" must start with \"/spec/\""
        );
    }

    #[test]
    fn template_values_are_parsed_as_yaml() {
        let vars = globals(json!({"n": 3, "name": "x"}));
        assert_eq!(render_value("{{ .n }}", &vars).unwrap(), json!(3));
        assert_eq!(render_value("\"{{ .n }}\"", &vars).unwrap(), json!("3"));
        assert_eq!(render_value("true", &vars).unwrap(), json!(true));
        assert_eq!(render_value("a: {{ .name }}\nb: [1, 2]", &vars).unwrap(), json!({"a": "x", "b": [1, 2]}));
        let mut items = vec![item("T", pool("a"))];
        let both = class(json!([pool_patch(
            None,
            json!({"op": "add", "path": "/spec/template/spec/x", "value": 1, "valueFrom": {"variable": "n"}})
        )]));
        assert!(apply(&both, &vars, &mut items).unwrap_err().reason.contains("both .value and .valueFrom are set"));
    }
}
