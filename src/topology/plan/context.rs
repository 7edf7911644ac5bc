//! What every step of a plan reads: the inputs, the class, the Cluster, its templates, and the naming rule.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use sha2::Digest as _;

use super::error::TopologyError;
use super::inputs::namespace_matches;
use crate::json_pointer::At;
use crate::manifest::{Document, split_api_version};
use crate::topology::gotemplate::{self, GoValue};

/// A template reference of the class, in either API shape.
#[derive(Debug, Clone)]
pub(super) struct TemplateRef {
    api_version: String,
    kind: String,
    name: String,
    namespace: String,
    field: String,
}

pub(super) fn read_ref(class: &Value, base: &str, class_ns: &str) -> Option<TemplateRef> {
    for (suffix, field_suffix) in [("/templateRef", "templateRef"), ("/ref", "ref")] {
        if let Some(r) = class.pointer(&format!("{base}{suffix}")).filter(|r| r.is_object()) {
            return Some(TemplateRef {
                api_version: r.str_at("/apiVersion").unwrap_or("").to_string(),
                kind: r.str_at("/kind").unwrap_or("").to_string(),
                name: r.str_at("/name").unwrap_or("").to_string(),
                // CAPI v1.14 reads templates in the class's namespace: a v1beta1 `ref.namespace` is
                // dropped by the conversion to v1beta2 (`templateRef` has none).
                namespace: class_ns.to_string(),
                field: format!("{}.{field_suffix}", base.trim_start_matches('/').replace('/', ".")),
            });
        }
    }
    None
}

pub(super) struct Ctx<'a> {
    pub(super) documents: &'a [Document],
    pub(super) class: &'a Value,
    pub(super) class_label: String,
    pub(super) class_ns: String,
    pub(super) v1beta2: bool,
    pub(super) cluster: &'a Value,
    pub(super) cluster_name: String,
    pub(super) namespace: String,
    pub(super) location: String,
}

impl Ctx<'_> {
    pub(super) fn template(&self, r: &TemplateRef) -> Result<Value, TopologyError> {
        let group = split_api_version(&r.api_version).0;
        let found = self.documents.iter().find(|d| {
            d.kind() == r.kind && d.name() == r.name && d.group() == group && namespace_matches(d, &r.namespace)
        });
        let Some(doc) = found else {
            return Err(TopologyError::TemplateNotFound {
                class: self.class_label.clone(),
                field: r.field.clone(),
                kind: r.kind.clone(),
                namespace: r.namespace.clone(),
                name: r.name.clone(),
            });
        };
        let mut value = doc.value.clone();
        // CAPI reads the template at the ref's apiVersion.
        if !r.api_version.is_empty() {
            // A v1beta2 template read at v1beta1 always has `spec.template.spec`: the v1beta1 Go types
            // write those structs even when empty, where v1beta2 leaves them out (`omitzero`).
            if doc.version() == "v1beta2"
                && split_api_version(&r.api_version).1 == "v1beta1"
                && value.pointer("/spec/template/spec").is_none()
                && let Some(object) = value.as_object_mut()
            {
                let spec = object.entry("spec").or_insert_with(|| json!({}));
                if let Some(spec) = spec.as_object_mut() {
                    let template = spec.entry("template").or_insert_with(|| json!({}));
                    if let Some(template) = template.as_object_mut() {
                        template.entry("spec").or_insert_with(|| json!({}));
                    }
                }
            }
            value["apiVersion"] = Value::String(r.api_version.clone());
        }
        Ok(value)
    }

    pub(super) fn required_ref(&self, base: &str) -> Result<TemplateRef, TopologyError> {
        read_ref(self.class, base, &self.class_ns).ok_or_else(|| TopologyError::InvalidClass {
            class: self.class_label.clone(),
            field: format!("{}.templateRef", base.trim_start_matches('/').replace('/', ".")),
            message: "Required value".into(),
        })
    }

    pub(super) fn cluster_err(&self, field: &str, message: String) -> TopologyError {
        TopologyError::InvalidCluster {
            location: self.location.clone(),
            cluster: format!("{}/{}", self.namespace, self.cluster_name),
            field: field.into(),
            message,
        }
    }

    /// `.random` of the naming rule (see the module docs).
    pub(super) fn random(&self, role: &str) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        let digest = sha2::Sha256::digest(format!("{}/{}/{role}", self.namespace, self.cluster_name).as_bytes());
        digest.iter().take(5).map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char).collect()
    }

    pub(super) fn name_from_template(
        &self,
        template: &str,
        role: &str,
        extra: Option<(&str, &str)>,
    ) -> Result<String, TopologyError> {
        let mut data = BTreeMap::new();
        data.insert(
            "cluster".to_string(),
            GoValue::Map([("name".to_string(), GoValue::Str(self.cluster_name.clone()))].into_iter().collect()),
        );
        data.insert("random".to_string(), GoValue::Str(self.random(role)));
        if let Some((key, topology_name)) = extra {
            data.insert(
                key.to_string(),
                GoValue::Map(
                    [("topologyName".to_string(), GoValue::Str(topology_name.to_string()))].into_iter().collect(),
                ),
            );
        }
        let name = gotemplate::render(template, &GoValue::Map(gotemplate::GoMap::new(data))).map_err(|e| {
            TopologyError::InvalidClass {
                class: self.class_label.clone(),
                field: format!("naming template of {role}"),
                message: e.to_string(),
            }
        })?;
        Ok(if name.len() > 63 {
            format!("{}{}", go_prefix(&name, 58), self.random(&format!("{role}/trim")))
        } else {
            name
        })
    }

    pub(super) fn prefixed_name(&self, prefix: &str, role: &str) -> String {
        format!("{}{}", go_prefix(prefix, 58), self.random(role))
    }

    /// A reference to `obj` in the shape of the Cluster's API version.
    pub(super) fn reference(&self, obj: &Value) -> Value {
        let api_version = obj.str_at("/apiVersion").unwrap_or("");
        if self.v1beta2 {
            json!({"apiGroup": split_api_version(api_version).0, "kind": obj.str_at("/kind"), "name": obj.str_at("/metadata/name")})
        } else {
            json!({"apiVersion": v1beta1_view_api_version(api_version), "kind": obj.str_at("/kind"), "name": obj.str_at("/metadata/name"), "namespace": self.namespace})
        }
    }
}

/// The apiVersion a v1beta1 client reads in a reference of a core CAPI object. CAPI v1.14 stores
/// references as `apiGroup` + kind (v1beta2) and its conversion webhook writes back the CRD's
/// latest version for the current contract (`contract.GetAPIVersion`): `v1beta2` for CAPI's own
/// kubeadm bootstrap and control plane kinds, whatever version the template used; the version of the
/// reference otherwise (CAPZ's CRDs declare the v1beta1 contract only).
fn v1beta1_view_api_version(api_version: &str) -> String {
    match split_api_version(api_version).0 {
        group @ ("bootstrap.cluster.x-k8s.io" | "controlplane.cluster.x-k8s.io") => format!("{group}/v1beta2"),
        _ => api_version.to_string(),
    }
}

/// The first `n` bytes of `s` as CAPI's Go slices a name (`name[:n]`): a cut multi-byte character becomes U+FFFD per
/// byte, as Go's JSON prints it (such a name is then refused as not DNS-1123 anyway).
fn go_prefix(s: &str, n: usize) -> String {
    gotemplate::go_lossy(&s.as_bytes()[..n.min(s.len())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_at_byte_58_as_go_slices_them() {
        let ascii = "a".repeat(70);
        assert_eq!(go_prefix(&ascii, 58), "a".repeat(58));
        // 57 ASCII bytes then a three-byte character: byte 58 is inside it; Go keeps one byte of it (U+FFFD).
        let cut = format!("{}€tail", "a".repeat(57));
        assert_eq!(go_prefix(&cut, 58), format!("{}\u{fffd}", "a".repeat(57)));
        let two_cut = format!("{}€tail", "a".repeat(56));
        assert_eq!(go_prefix(&two_cut, 58), format!("{}\u{fffd}\u{fffd}", "a".repeat(56)));
        assert_eq!(go_prefix("short", 58), "short");
    }
}
