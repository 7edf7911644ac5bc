//! The flavors: `flavors/<name>/flavor.yaml` (description, required and unsupported parameters)
//! plus its `*.yaml.j2` templates, rendered in file-name order into one list of objects.

use serde::Deserialize;
use serde_json::{Value, json};

use super::RenderError;
use super::engine::{Engine, TemplateSource};
use crate::manifest::{self, Document};
use crate::params::{Params, Requirement};

/// CAPI API version of the rendered core objects (Cluster, MachinePool).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CapiVersion {
    #[default]
    V1beta1,
    V1beta2,
}

impl CapiVersion {
    /// `v1beta1` or `v1beta2`.
    pub fn as_str(self) -> &'static str {
        match self {
            CapiVersion::V1beta1 => "v1beta1",
            CapiVersion::V1beta2 => "v1beta2",
        }
    }
}

/// One flavor, as its `flavor.yaml` describes it.
#[derive(Debug, Clone)]
pub struct Flavor {
    /// Directory name, e.g. `aks-aso`.
    pub name: String,
    /// One line for `kubectl capz params` and the flavor list.
    pub description: String,
    /// The CAPZ template it mirrors, if any (e.g. `cluster-template-aks-aso.yaml`).
    pub upstream: Option<String>,
    /// Parameters this flavor needs.
    pub required: Vec<Requirement>,
    /// Parameters this flavor ignores: hidden from `params`, an error when set explicitly.
    pub unsupported: Vec<String>,
    /// Template names (`flavors/<name>/<file>`), rendered in this order.
    pub templates: Vec<String>,
    /// Topology flavors: the flavor rendering their ClusterClass (`--with-class` renders it first).
    pub class: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FlavorFile {
    description: String,
    #[serde(default)]
    upstream: Option<String>,
    #[serde(default)]
    required: Vec<RequirementEntry>,
    #[serde(default)]
    unsupported: Vec<String>,
    /// Explicit template order; default: every `*.yaml.j2` not starting with `_`, sorted.
    #[serde(default)]
    templates: Option<Vec<String>>,
    /// Topology flavors: the flavor of their ClusterClass.
    #[serde(default)]
    class: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RequirementEntry {
    Path(String),
    Full(Requirement),
}

/// Reads a flavor's metadata; an unknown name lists the available flavors.
pub fn load_flavor(source: &TemplateSource, name: &str) -> Result<Flavor, RenderError> {
    let known = source.flavor_names();
    if name.starts_with('_') || name.contains('/') || !known.iter().any(|k| k == name) {
        return Err(RenderError::UnknownFlavor { name: name.to_string(), known });
    }
    let meta_name = format!("flavors/{name}/flavor.yaml");
    let metadata_error = |message: String| RenderError::Metadata { flavor: name.to_string(), message };
    let text = source
        .read(&meta_name)
        .map_err(|err| metadata_error(format!("cannot read flavor.yaml: {err}")))?
        .ok_or_else(|| metadata_error("flavor.yaml is missing".into()))?;
    let value = manifest::parse_plain_value(&text, &meta_name).map_err(|err| metadata_error(err.to_string()))?;
    let file: FlavorFile =
        serde_json::from_value(value).map_err(|err| metadata_error(format!("{meta_name}: {err}")))?;
    let templates: Vec<String> = match file.templates {
        Some(list) => {
            list.into_iter().map(|t| if t.contains('/') { t } else { format!("flavors/{name}/{t}") }).collect()
        }
        None => source
            .flavor_files(name)
            .into_iter()
            .filter(|f| f.ends_with(".yaml.j2") && !f.starts_with('_'))
            .map(|f| format!("flavors/{name}/{f}"))
            .collect(),
    };
    if templates.is_empty() {
        return Err(metadata_error("no *.yaml.j2 templates".into()));
    }
    Ok(Flavor {
        name: name.to_string(),
        description: file.description,
        upstream: file.upstream,
        required: file
            .required
            .into_iter()
            .map(|entry| match entry {
                RequirementEntry::Path(path) => Requirement { path, when: None },
                RequirementEntry::Full(requirement) => requirement,
            })
            .collect(),
        unsupported: file.unsupported,
        templates,
        class: file.class,
    })
}

/// Kinds that have no namespace (the ones a flavor could plausibly render).
const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "StorageClass",
    "PriorityClass",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
];

/// The template context of a flavor: `params` (checked, defaulted), `capi`, `flavor`.
pub fn context(flavor: &str, params: &Params, capi: CapiVersion) -> Value {
    json!({
        "params": params,
        "capi": {"version": capi.as_str(), "apiVersion": format!("cluster.x-k8s.io/{}", capi.as_str())},
        "flavor": flavor,
    })
}

/// Renders a flavor into objects; every namespaced object without a namespace gets
/// `params.namespace` (as clusterctl sets the target namespace).
pub fn render_flavor(
    engine: &Engine,
    flavor: &Flavor,
    params: &Params,
    capi: CapiVersion,
) -> Result<Vec<Document>, RenderError> {
    let context = context(&flavor.name, params, capi);
    let mut documents = engine.render_all(&flavor.templates, &context, &format!("<rendered {}>", flavor.name))?;
    for doc in &mut documents {
        let kind = doc.kind().to_string();
        if CLUSTER_SCOPED.contains(&kind.as_str()) {
            continue;
        }
        if let Some(Value::Object(metadata)) = doc.value.get_mut("metadata")
            && metadata.get("namespace").is_none_or(Value::is_null)
        {
            metadata.insert("namespace".into(), Value::String(params.namespace.clone()));
        }
    }
    Ok(documents)
}
