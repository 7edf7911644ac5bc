//! Cluster API v1beta1 → v1beta2 for the core, addons, kubeadm bootstrap and kubeadm control
//! plane groups, field by field as CAPI v1.14.2's conversion webhooks do it (the generated functions
//! of sigs.k8s.io/cluster-api/api plus the converters under */webhooks/conversion).

mod bootstrap;
mod class;
mod controlplane;
mod core;
pub(crate) mod fields;
mod marshal;
mod status;
mod typed;

use serde_json::{Map, Value};

use super::{ConvertError, Warning};
use crate::json_pointer::At;

/// The annotation in which CAPI keeps hub-only fields of an object served as v1beta1.
pub const CONVERSION_DATA_ANNOTATION: &str = "cluster.x-k8s.io/conversion-data";

/// The CAPI groups converted here.
pub const CORE_GROUP: &str = "cluster.x-k8s.io";
pub const BOOTSTRAP_GROUP: &str = "bootstrap.cluster.x-k8s.io";
pub const CONTROL_PLANE_GROUP: &str = "controlplane.cluster.x-k8s.io";
pub const ADDONS_GROUP: &str = "addons.cluster.x-k8s.io";

/// Whether `group`/`kind` at v1beta1 is converted to v1beta2 here.
pub fn converts(group: &str, kind: &str) -> bool {
    match group {
        CORE_GROUP => matches!(
            kind,
            "Cluster"
                | "ClusterClass"
                | "Machine"
                | "MachineSet"
                | "MachineDeployment"
                | "MachinePool"
                | "MachineHealthCheck"
                | "MachineDrainRule"
        ),
        BOOTSTRAP_GROUP => matches!(kind, "KubeadmConfig" | "KubeadmConfigTemplate"),
        CONTROL_PLANE_GROUP => matches!(kind, "KubeadmControlPlane" | "KubeadmControlPlaneTemplate"),
        ADDONS_GROUP => matches!(kind, "ClusterResourceSet" | "ClusterResourceSetBinding"),
        _ => false,
    }
}

/// State of one object's conversion: its namespace, the restored hub data, the warnings.
pub(crate) struct Context {
    pub(crate) namespace: String,
    /// The hub object kept in the conversion-data annotation, when there was one.
    pub(crate) restored: Option<Value>,
    pub(crate) warnings: Vec<Warning>,
}

impl Context {
    /// Records that the field at `pointer` (in the v1beta1 object) is dropped.
    pub(crate) fn dropped(&mut self, pointer: &str, why: &str) {
        self.warnings.push(Warning { pointer: pointer.to_string(), message: format!("dropped: {why}") });
    }

    /// The restored hub value at `pointer`, when the object carried conversion data.
    pub(crate) fn restored_at(&self, pointer: &str) -> Option<&Value> {
        self.restored.as_ref().and_then(|restored| restored.pointer(pointer))
    }

    /// CAPI's `Convert_bool_To_Pointer_bool`: true stays, false stays only when the restored
    /// hub object had an explicit false at `restored_pointer`.
    pub(crate) fn bool_intent(&self, map: &mut Map<String, Value>, key: &str, restored_pointer: &str) {
        if matches!(map.get(key), Some(Value::Bool(true))) {
            return;
        }
        let restored_false = matches!(self.restored_at(restored_pointer), Some(Value::Bool(false)));
        if restored_false {
            map.insert(key.to_string(), Value::Bool(false));
        } else {
            map.shift_remove(key);
        }
    }
}

/// Converts one v1beta1 object (whose group and kind [`converts`] accepts) to v1beta2.
pub(crate) fn convert(object: &Value) -> Result<(Value, Vec<Warning>), ConvertError> {
    let mut value = object.clone();
    let map = value.as_object_mut().ok_or_else(|| ConvertError::invalid("", "not an object"))?;
    let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string();
    let group = api_version.split('/').next().unwrap_or("").to_string();
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
    let namespace = object.str_at("/metadata/namespace").unwrap_or("").to_string();
    let mut context = Context { namespace, restored: None, warnings: Vec::new() };
    typed::decode_v1beta1(&mut context, &mut value, &group, &kind)?;
    let map = value.as_object_mut().expect("checked above");
    // The converters that call `UnmarshalData` consume the annotation; the MachineSet,
    // MachineDrainRule and addons converters leave it in place.
    let consumes = !matches!(
        kind.as_str(),
        "MachineSet" | "MachineDrainRule" | "ClusterResourceSet" | "ClusterResourceSetBinding"
    );
    if consumes {
        context.restored = take_conversion_data(map)?;
    }
    if let Some(restored) = &context.restored {
        let pointer = format!("/metadata/annotations/{}", CONVERSION_DATA_ANNOTATION.replace('/', "~1"));
        typed::check_v1beta2(restored, &group, &kind, &pointer)?;
    }
    map.insert("apiVersion".into(), Value::String(format!("{group}/v1beta2")));
    match kind.as_str() {
        "Cluster" => core::cluster(&mut context, map)?,
        "ClusterClass" => class::cluster_class(&mut context, map)?,
        "Machine" => core::machine(&mut context, map)?,
        "MachineSet" => core::machine_set(&mut context, map)?,
        "MachineDeployment" => core::machine_deployment(&mut context, map)?,
        "MachinePool" => core::machine_pool(&mut context, map)?,
        "MachineHealthCheck" => core::machine_health_check(&mut context, map)?,
        "MachineDrainRule" | "ClusterResourceSetBinding" => {}
        "ClusterResourceSet" => status::cluster_resource_set(&mut context, map)?,
        "KubeadmConfig" => bootstrap::kubeadm_config(&mut context, map)?,
        "KubeadmConfigTemplate" => bootstrap::kubeadm_config_template(&mut context, map)?,
        "KubeadmControlPlane" => controlplane::kubeadm_control_plane(&mut context, map)?,
        "KubeadmControlPlaneTemplate" => controlplane::kubeadm_control_plane_template(&mut context, map)?,
        _ => unreachable!("checked by converts"),
    }
    marshal::write(&mut value, &group, &kind);
    Ok((value, context.warnings))
}

/// Reads and removes the conversion-data annotation (an empty annotation map goes too).
fn take_conversion_data(map: &mut Map<String, Value>) -> Result<Option<Value>, ConvertError> {
    let Some(metadata) = fields::object_mut(map, "metadata") else { return Ok(None) };
    let Some(annotations) = fields::object_mut(metadata, "annotations") else { return Ok(None) };
    let Some(data) = annotations.shift_remove(CONVERSION_DATA_ANNOTATION) else { return Ok(None) };
    fields::drop_if_empty(metadata, "annotations");
    let pointer = format!("/metadata/annotations/{}", CONVERSION_DATA_ANNOTATION.replace('/', "~1"));
    let text = data.as_str().unwrap_or("");
    let restored: Value = serde_json::from_str(text)
        .map_err(|err| ConvertError::invalid(&pointer, &format!("the conversion data is not JSON: {err}")))?;
    Ok(Some(restored))
}
