//! A ClusterClass's references that CAPI matches by `apiVersion`, moved together: when a template
//! reference follows a template converted to v1beta2 in the same run, the patch selectors that
//! match it move with it, and so do the other references those selectors match (CAPI's webhook
//! rejects a selector that matches no reference), unless a patch would then no longer apply:
//! CAPI applies a selected patch to the template in the version the reference names, so a JSON
//! patch whose path or value only fits the v1beta1 shape, or an external patch extension (written
//! against one version), keeps the whole group at v1beta1, with a warning.

use serde_json::Value;

use super::{ConvertedTemplate, Warning};
use crate::json_pointer::At;
use crate::schema::{Gvk, Registry};

/// (apiVersion, kind) of references CAPI matches together.
type Group = (String, String);

/// A reference inside the class: its JSON pointer, apiVersion, kind and name.
struct Reference {
    pointer: String,
    api_version: String,
    kind: String,
    name: String,
}

/// Every `{apiVersion, kind, name}` map below `value` (the patches left out: their values are not
/// references).
fn references(value: &Value, pointer: &str, out: &mut Vec<Reference>) {
    match value {
        Value::Object(map) => {
            let text = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or("").to_string();
            if map.contains_key("apiVersion") && map.contains_key("kind") && map.contains_key("name") {
                out.push(Reference {
                    pointer: pointer.to_string(),
                    api_version: text("apiVersion"),
                    kind: text("kind"),
                    name: text("name"),
                });
            }
            for (key, child) in map {
                if pointer == "/spec" && key == "patches" {
                    continue;
                }
                references(child, &format!("{pointer}/{}", crate::json_pointer::escape_token(key)), out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                references(item, &format!("{pointer}/{index}"), out);
            }
        }
        _ => {}
    }
}

/// The v1beta2 apiVersion of a `group/v1beta1` one.
fn v1beta2(api_version: &str) -> Option<String> {
    match api_version.split_once('/') {
        Some((group, "v1beta1")) => Some(format!("{group}/v1beta2")),
        _ => None,
    }
}

/// Where a template reference sits, as a patch selector's `matchResources` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    InfrastructureCluster,
    ControlPlane,
    /// A worker class of `machineDeployments` or `machinePools`, by class name.
    Worker {
        list: String,
        class: String,
    },
    Other,
}

fn slot_of(class: &Value, pointer: &str) -> Slot {
    let parts: Vec<&str> = pointer.split('/').skip(1).collect();
    match parts.as_slice() {
        ["spec", "infrastructure", _] => Slot::InfrastructureCluster,
        ["spec", "controlPlane", _] | ["spec", "controlPlane", "machineInfrastructure", _] => Slot::ControlPlane,
        ["spec", "workers", list, index, ..] => {
            let name = class.str_at(&format!("/spec/workers/{list}/{index}/class")).unwrap_or("").to_string();
            Slot::Worker { list: list.to_string(), class: name }
        }
        _ => Slot::Other,
    }
}

/// A patch selector: its pointer, apiVersion, kind and `matchResources`.
struct Selector {
    pointer: String,
    group: Group,
    match_resources: Value,
}

/// CAPI's `class_name_matches` of a selector name (`*`, `prefix*`, `*suffix`) and a class name.
fn class_name_matches(selector_name: &str, class: &str) -> bool {
    selector_name == "*"
        || selector_name == class
        || selector_name.strip_prefix('*').is_some_and(|suffix| class.ends_with(suffix))
        || selector_name.strip_suffix('*').is_some_and(|prefix| class.starts_with(prefix))
}

impl Selector {
    /// Whether the selector matches the reference, as CAPI's webhook and patch engine match them.
    fn binds(&self, reference: &Reference, slot: &Slot) -> bool {
        if self.group != (reference.api_version.clone(), reference.kind.clone()) {
            return false;
        }
        let m = &self.match_resources;
        let flag = |key: &str| m.get(key).and_then(Value::as_bool) == Some(true);
        match slot {
            Slot::InfrastructureCluster => flag("infrastructureCluster"),
            Slot::ControlPlane => flag("controlPlane"),
            Slot::Worker { list, class } => {
                let key = if list == "machinePools" { "machinePoolClass" } else { "machineDeploymentClass" };
                let names = m.items_at(&format!("/{key}/names"));
                names.filter_map(Value::as_str).any(|name| class_name_matches(name, class))
            }
            Slot::Other => false,
        }
    }
}

/// Moves the class's references (see the module doc): each reference that follows a converted
/// template moves with the patch selectors that match it and the other references those
/// selectors match. Returns whether the class changed and the warnings for references kept back.
pub(super) fn follow(class: &mut Value, templates: &[ConvertedTemplate]) -> (bool, Vec<Warning>) {
    let namespace = class.str_at("/metadata/namespace").unwrap_or("").to_string();
    let Some(spec) = class.get("spec") else { return (false, Vec::new()) };
    let mut refs = Vec::new();
    references(spec, "/spec", &mut refs);
    let slots: Vec<Slot> = refs.iter().map(|r| slot_of(class, &r.pointer)).collect();
    let selectors = selectors(class);
    let followed: Vec<usize> = (0..refs.len())
        .filter(|&i| {
            let r = &refs[i];
            let Some((group, "v1beta1")) = r.api_version.split_once('/') else { return false };
            templates
                .iter()
                .any(|t| t.group == group && t.kind == r.kind && t.name == r.name && t.namespace == namespace)
        })
        .collect();
    if followed.is_empty() {
        return (false, Vec::new());
    }
    // Components: references and the selectors that bind them, closed under "binds".
    let mut ref_done = vec![false; refs.len()];
    let mut selector_done = vec![false; selectors.len()];
    let mut warnings = Vec::new();
    let mut registry = None;
    let mut move_refs = Vec::new();
    let mut move_selectors = Vec::new();
    for seed in followed {
        if ref_done[seed] {
            continue;
        }
        ref_done[seed] = true;
        let (mut component_refs, mut component_selectors) = (vec![seed], Vec::new());
        let mut queue = vec![seed];
        while let Some(r) = queue.pop() {
            for (s, selector) in selectors.iter().enumerate() {
                if selector_done[s] || !selector.binds(&refs[r], &slots[r]) {
                    continue;
                }
                selector_done[s] = true;
                component_selectors.push(s);
                for (other, done) in ref_done.iter_mut().enumerate() {
                    if !*done && selector.binds(&refs[other], &slots[other]) {
                        *done = true;
                        component_refs.push(other);
                        queue.push(other);
                    }
                }
            }
        }
        let group = (refs[seed].api_version.clone(), refs[seed].kind.clone());
        let bound_templates: Vec<&ConvertedTemplate> = component_refs
            .iter()
            .filter_map(|&r| {
                let reference = &refs[r];
                let group = reference.api_version.split_once('/').map_or("", |(g, _)| g);
                templates.iter().find(|t| {
                    t.group == group && t.kind == reference.kind && t.name == reference.name && t.namespace == namespace
                })
            })
            .collect();
        let component: Vec<&Selector> = component_selectors.iter().map(|&s| &selectors[s]).collect();
        let blocked = blockers(class, &group, &component, &bound_templates, &mut registry);
        if blocked.is_empty() {
            move_refs.append(&mut component_refs);
            move_selectors.append(&mut component_selectors);
        } else {
            warnings.extend(blocked);
        }
    }
    let mut changed = false;
    let pointers = move_refs
        .iter()
        .map(|&r| (&refs[r].pointer, &refs[r].api_version))
        .chain(move_selectors.iter().map(|&s| (&selectors[s].pointer, &selectors[s].group.0)));
    for (pointer, api_version) in pointers {
        let Some(new) = v1beta2(api_version) else { continue };
        if let Some(map) = class.pointer_mut(pointer).and_then(Value::as_object_mut) {
            map.insert("apiVersion".into(), Value::String(new));
            changed = true;
        }
    }
    warnings.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    warnings.dedup();
    (changed, warnings)
}

/// Every inline patch selector.
fn selectors(class: &Value) -> Vec<Selector> {
    let mut out = Vec::new();
    let patches = class.items_at("/spec/patches");
    for (p, patch) in patches.enumerate() {
        let definitions = patch.get("definitions").and_then(Value::as_array).into_iter().flatten();
        for (d, definition) in definitions.enumerate() {
            let Some(selector) = definition.get("selector") else { continue };
            let text = |key: &str| selector.get(key).and_then(Value::as_str).unwrap_or("").to_string();
            out.push(Selector {
                pointer: format!("/spec/patches/{p}/definitions/{d}/selector"),
                group: (text("apiVersion"), text("kind")),
                match_resources: selector.get("matchResources").cloned().unwrap_or(Value::Null),
            });
        }
    }
    out
}

/// Why the references of `group` cannot move: an external patch extension (it would receive the
/// templates at v1beta2), or a JSON patch of one of the component's `selectors` that does not fit
/// the v1beta2 schema.
fn blockers(
    class: &Value,
    group: &Group,
    selectors: &[&Selector],
    templates: &[&ConvertedTemplate],
    registry: &mut Option<Registry>,
) -> Vec<Warning> {
    let (api_version, kind) = group;
    let keep = format!(
        "the references to {kind} stay at {api_version} (CAPI applies a patch to the template in the version its reference names)"
    );
    let mut out = Vec::new();
    let patches = class.items_at("/spec/patches");
    for (p, patch) in patches.enumerate() {
        let name = patch.get("name").and_then(Value::as_str).unwrap_or("");
        let external = patch.get("external");
        let extension = ["generateExtension", "generatePatchesExtension"]
            .iter()
            .find_map(|key| external.and_then(|e| e.get(*key)).and_then(Value::as_str))
            .filter(|e| !e.is_empty());
        if let Some(extension) = extension {
            out.push(Warning {
                pointer: format!("/spec/patches/{p}/external"),
                message: format!(
                    "patch {name:?}: the external extension {extension:?} would receive {kind} at v1beta2; {keep}: move them once the extension handles v1beta2"
                ),
            });
        }
    }
    for selector in selectors {
        let definition = selector.pointer.trim_end_matches("/selector");
        let patch = definition.split("/definitions/").next().unwrap_or("");
        let name = class.str_at(&format!("{patch}/name")).unwrap_or("");
        let json_patches = class.items_at(&format!("{definition}/jsonPatches"));
        for (j, json_patch) in json_patches.enumerate() {
            let path = json_patch.get("path").and_then(Value::as_str).unwrap_or("");
            let registry = registry.get_or_insert_with(Registry::embedded);
            let (selector_api_version, selector_kind) = &selector.group;
            let problem =
                v1beta2_mismatch(registry, selector_api_version, selector_kind, path, json_patch.get("value"))
                    .or_else(|| lost_target(templates, json_patch));
            if let Some(problem) = problem {
                out.push(Warning {
                    pointer: format!("{definition}/jsonPatches/{j}/path"),
                    message: format!(
                        "patch {name:?} would not apply to v1beta2 {selector_kind}: {problem}; {keep}: rewrite the patch for v1beta2, then move them"
                    ),
                });
            }
        }
    }
    out
}

/// A field a JSON patch needs (the parent of an `add`, the target of a `replace` or `remove`) that
/// a template of the run has at v1beta1 and no longer has once converted (CAPI's conversion drops
/// empty fields, such as an empty `spec.template.spec`): the patch would not apply.
fn lost_target(templates: &[&ConvertedTemplate], json_patch: &Value) -> Option<String> {
    let path = json_patch.get("path").and_then(Value::as_str)?;
    let op = json_patch.get("op").and_then(Value::as_str).unwrap_or("");
    let target = if op == "add" { path.rsplit_once('/').map_or("", |(parent, _)| parent) } else { path };
    if target.is_empty() {
        return None;
    }
    let template =
        templates.iter().find(|t| t.before.pointer(target).is_some() && t.after.pointer(target).is_none())?;
    Some(format!(
        "{op} at {path} needs {target}, which {} {} has at v1beta1 and no longer has once converted (CAPI's conversion drops empty fields)",
        template.kind, template.name
    ))
}

/// What makes a JSON patch at `path` (with `value`) not fit the v1beta2 schema of `kind`: a path
/// the schema does not have, or a value of another JSON type; also a kind whose schema is not
/// built in (the patch cannot be shown to fit); `None` when it fits.
fn v1beta2_mismatch(
    registry: &Registry,
    api_version: &str,
    kind: &str,
    path: &str,
    value: Option<&Value>,
) -> Option<String> {
    let group = api_version.split_once('/')?.0;
    let Some(schema) = registry.get(&Gvk::new(group, "v1beta2", kind)).ok().flatten() else {
        return Some(format!("path {path} cannot be checked (no v1beta2 schema of {kind} is built in)"));
    };
    let mut node = &schema.schema;
    for raw in path.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
            && node.get("properties").is_none()
        {
            return None;
        }
        let next = node
            .pointer(&format!("/properties/{}", crate::json_pointer::escape_token(&token)))
            .or_else(|| {
                let index = token == "-" || token.parse::<usize>().is_ok();
                node.get("items").filter(|_| index)
            })
            .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()));
        match next {
            Some(child) => node = child,
            None => return Some(format!("path {path} does not exist")),
        }
    }
    let wanted = node.get("type").and_then(Value::as_str)?;
    let fits = match value? {
        Value::Object(_) => wanted == "object",
        Value::Array(_) => wanted == "array",
        Value::String(_) => wanted == "string" || node.get("x-kubernetes-int-or-string").is_some(),
        Value::Bool(_) => wanted == "boolean",
        Value::Number(_) => matches!(wanted, "integer" | "number") || node.get("x-kubernetes-int-or-string").is_some(),
        Value::Null => true,
    };
    (!fits).then(|| format!("the value at {path} is not of type {wanted}"))
}
