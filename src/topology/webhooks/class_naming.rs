//! The ClusterClass webhook's checks of naming templates (`naming.template` / `namingStrategy.template`).

use serde_json::Value;

use super::field_error::{FieldError, invalid, quoted};
use super::names::{DNS1123_SUBDOMAIN, is_dns1123_subdomain};
use crate::json_pointer::At;
use crate::topology::gotemplate;

/// CAPI's `validateNamingStrategies`: the template is run on a sample Cluster `cluster` (topology
/// `mdtopology` / `mptopology`) and the name must be a DNS-1123 subdomain.
fn check_template(
    template: &str,
    path: String,
    what: &str,
    worker: Option<(&str, &str)>,
    errors: &mut Vec<FieldError>,
) {
    let mut data = std::collections::BTreeMap::new();
    let map = |pairs: &[(&str, &str)]| {
        gotemplate::GoValue::Map(
            pairs.iter().map(|(k, v)| (k.to_string(), gotemplate::GoValue::Str(v.to_string()))).collect(),
        )
    };
    data.insert("cluster".to_string(), map(&[("name", "cluster")]));
    data.insert("random".to_string(), gotemplate::GoValue::Str("abcde".into()));
    if let Some((key, topology)) = worker {
        data.insert(key.to_string(), map(&[("topologyName", topology)]));
    }
    let data = gotemplate::GoValue::Map(gotemplate::GoMap::new(data));
    let naming = gotemplate::Options { go_builtins_only: true, missing_key_error: true };
    match gotemplate::Template::parse_with("template name generator", template, naming) {
        Err(e) => errors.push(invalid(
            path,
            quoted(template),
            format!("invalid {what} name template: parsing template {}: {e}", quoted(template)),
        )),
        Ok(parsed) => match parsed.execute(&data) {
            Err(e) => errors.push(invalid(
                path,
                quoted(template),
                format!("invalid {what} name template: rendering template: {e}"),
            )),
            Ok(name) => {
                let name = if name.len() > 63 { format!("{}abcde", &name[..58]) } else { name };
                if !is_dns1123_subdomain(&name) {
                    errors.push(invalid(path, quoted(template), DNS1123_SUBDOMAIN));
                }
            }
        },
    }
}

pub(super) fn validate_naming(class: &Value, errors: &mut Vec<FieldError>) {
    for (base, what) in [("infrastructure", "InfraCluster"), ("controlPlane", "ControlPlane")] {
        let v1beta1 =
            if base == "infrastructure" { "infrastructureNamingStrategy" } else { "controlPlane/namingStrategy" };
        for (ptr, field) in [
            (format!("/spec/{v1beta1}/template"), format!("spec.{}.template", v1beta1.replace('/', "."))),
            (format!("/spec/{base}/naming/template"), format!("spec.{base}.naming.template")),
        ] {
            if let Some(t) = class.str_at(&ptr) {
                check_template(t, field, what, None, errors);
            }
        }
    }
    for (key, what, data_key, sample) in [
        ("machineDeployments", "MachineDeployment", "machineDeployment", "mdtopology"),
        ("machinePools", "MachinePool", "machinePool", "mptopology"),
    ] {
        let Some(items) = class.array_at(&format!("/spec/workers/{key}")) else { continue };
        for item in items {
            let name = item.get("class").and_then(Value::as_str).unwrap_or("");
            for field in ["namingStrategy", "naming"] {
                if let Some(t) = item.str_at(&format!("/{field}/template")) {
                    let path = format!("spec.workers.{key}[{name}].{field}.template");
                    check_template(t, path, what, Some((data_key, sample)), errors);
                }
            }
        }
    }
}
