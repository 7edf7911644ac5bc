//! The deployments of one bundle: the default target (the bundle's own options, what a cluster matching no
//! customization gets) and one variant per `targetCustomizations` entry (the bundle's options merged with that
//! entry's, what a cluster whose first match it is gets), with the values in the order Fleet merges them.
//!
//! The rules, each from rancher/fleet:
//! - internal/bundlereader/resources.go `generateValues`: a `helm:` block's values are its `values`, then each of
//!   its `valuesFiles` merged over them in order (wrangler `data.MergeMaps`: maps merged key by key, anything else
//!   replaced), so a values file wins over the inline values of the same block;
//! - internal/cmd/controller/options/calculate.go `Merge`: a customization's `defaultNamespace`, `namespace`,
//!   `kustomize.dir`, `helm.chart`/`repo`/`version`/`releaseName` replace the bundle's when set; its values are
//!   merged over the bundle's (`data.MergeMaps`); `yaml.overlays` and `valuesFrom` are added to the bundle's;
//! - internal/cmd/controller/target/builder.go `Targets`: a cluster gets the first customization it matches
//!   (`FirstMatch`, the default), or with `targetCustomizationMode: AllMatches` every matching one merged in order;
//!   `doNotDeploy: true` deploys nothing there;
//! - internal/bundlereader/read.go `setTargetNames`: an unnamed target is `target%03d`, its position.

use serde_json::Value;

use super::spec::{Customization, FleetYaml, Helm, Options};

/// Where one layer of values is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Layer {
    /// `values` of a `helm:` block of fleet.yaml, at its JSON pointer there.
    Inline { value: Value, pointer: String },
    /// A `valuesFiles` entry: the path as written (relative to the bundle directory) and the entry's line.
    File { path: String, line: usize },
}

/// One deployment of the bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// `None` for the default target.
    pub target: Option<String>,
    /// Line of the customization in fleet.yaml (1 for the default target).
    pub line: usize,
    /// The merged options.
    pub options: Options,
    /// The values, lowest first.
    pub layers: Vec<Layer>,
}

impl Variant {
    /// The merged `helm:` options (empty when none is set).
    pub fn helm(&self) -> Helm {
        self.options.helm.clone().unwrap_or_default()
    }
}

/// The layers of one `helm:` block, in Fleet's order (values, then values files).
fn layers_of(helm: &Helm) -> Vec<Layer> {
    let mut layers = Vec::new();
    if let Some((value, pointer)) = &helm.values {
        layers.push(Layer::Inline { value: value.clone(), pointer: pointer.clone() });
    }
    layers.extend(helm.values_files.iter().map(|(path, line)| Layer::File { path: path.clone(), line: *line }));
    layers
}

/// `options.Merge(base, custom)`, for the options that decide what is rendered.
pub fn merge(base: &Options, custom: &Options) -> Options {
    let mut result = base.clone();
    if custom.default_namespace.is_some() {
        result.default_namespace = custom.default_namespace.clone();
    }
    if custom.target_namespace.is_some() {
        result.target_namespace = custom.target_namespace.clone();
    }
    if let Some(custom_helm) = &custom.helm {
        let helm = result.helm.get_or_insert_with(Helm::default);
        for (field, value) in [
            (&mut helm.chart, &custom_helm.chart),
            (&mut helm.repo, &custom_helm.repo),
            (&mut helm.version, &custom_helm.version),
            (&mut helm.release_name, &custom_helm.release_name),
        ] {
            if !value.is_empty() {
                *field = value.clone();
            }
        }
        helm.values_from.extend(custom_helm.values_from.iter().cloned());
        helm.template_values = helm.template_values.or(custom_helm.template_values);
        helm.disable_pre_process |= custom_helm.disable_pre_process;
        // The values are kept as layers (see `variants`); these fields only say that some are set.
        if helm.values.is_none() {
            helm.values = custom_helm.values.clone();
        }
        helm.values_files.extend(custom_helm.values_files.iter().cloned());
    }
    if custom.kustomize_dir.is_some() {
        result.kustomize_dir = custom.kustomize_dir.clone();
    }
    result.overlays.extend(custom.overlays.iter().cloned());
    result
}

/// The default target, then one variant per customization that deploys something, in fleet.yaml's order.
pub fn variants(spec: &FleetYaml) -> Vec<Variant> {
    let base_layers = spec.options.helm.as_ref().map(layers_of).unwrap_or_default();
    let mut out = vec![Variant { target: None, line: 1, options: spec.options.clone(), layers: base_layers.clone() }];
    for Customization { name, line, do_not_deploy, options, .. } in &spec.customizations {
        if *do_not_deploy {
            continue;
        }
        let mut layers = base_layers.clone();
        layers.extend(options.helm.as_ref().map(layers_of).unwrap_or_default());
        out.push(Variant { target: Some(name.clone()), line: *line, options: merge(&spec.options, options), layers });
    }
    out
}

/// The first value Fleet would template per cluster: a string holding `${` (Go template actions with `${ }`
/// delimiters, unless `disablePreProcess`) or starting with `global.fleet.clusterLabels.` (replaced by that
/// cluster label), as its JSON pointer below the values and the text.
pub fn per_cluster_value(value: &Value, disable_pre_process: bool) -> Option<(String, String)> {
    const CLUSTER_LABEL_PREFIX: &str = "global.fleet.clusterLabels.";
    fn first_string(value: &Value, pointer: &mut String, wanted: &dyn Fn(&str) -> bool) -> Option<(String, String)> {
        match value {
            Value::String(text) if wanted(text) => Some((pointer.clone(), text.clone())),
            Value::Object(map) => map.iter().find_map(|(key, child)| {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::json_pointer::escape_token(key));
                let found = first_string(child, pointer, wanted);
                pointer.truncate(length);
                found
            }),
            Value::Array(items) => items.iter().enumerate().find_map(|(index, child)| {
                let length = pointer.len();
                pointer.push_str(&format!("/{index}"));
                let found = first_string(child, pointer, wanted);
                pointer.truncate(length);
                found
            }),
            _ => None,
        }
    }
    let wanted = |text: &str| (!disable_pre_process && text.contains("${")) || text.starts_with(CLUSTER_LABEL_PREFIX);
    let mut found = first_string(value, &mut String::new(), &wanted);
    if found.is_none() && !disable_pre_process {
        // Keys are part of the text Fleet templates too.
        fn key_with_template(value: &Value, pointer: &mut String) -> Option<String> {
            let Value::Object(map) = value else {
                return match value {
                    Value::Array(items) => items.iter().enumerate().find_map(|(index, item)| {
                        let length = pointer.len();
                        pointer.push_str(&format!("/{index}"));
                        let found = key_with_template(item, pointer);
                        pointer.truncate(length);
                        found
                    }),
                    _ => None,
                };
            };
            for (key, child) in map {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::json_pointer::escape_token(key));
                if key.contains("${") {
                    return Some(pointer.clone());
                }
                if let Some(found) = key_with_template(child, pointer) {
                    return Some(found);
                }
                pointer.truncate(length);
            }
            None
        }
        if let Some(pointer) = key_with_template(value, &mut String::new()) {
            let key = pointer.rsplit('/').next().unwrap_or("").to_string();
            found = Some((pointer, key));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(text: &str) -> FleetYaml {
        let (value, lines) = crate::manifest::parse_value(text, "fleet.yaml").unwrap();
        super::super::spec::read(&value, &lines).unwrap()
    }

    #[test]
    fn the_default_target_then_each_deploying_customization_with_values_in_fleets_order() {
        let spec = spec(
            "defaultNamespace: classes\nhelm:\n  chart: ./chart\n  values: {a: 1}\n  valuesFiles: [common.yaml]\n\
             targetCustomizations:\n- name: prod\n  namespace: prod\n  helm:\n    releaseName: aks-prod\n    \
             values: {b: 2}\n    valuesFiles: [prod.yaml]\n- name: paused\n  doNotDeploy: true\n- name: dev\n  \
             defaultNamespace: dev\n  kustomize: {dir: overlays/dev}\n",
        );
        let variants = variants(&spec);
        let targets: Vec<Option<&str>> = variants.iter().map(|v| v.target.as_deref()).collect();
        assert_eq!(targets, [None, Some("prod"), Some("dev")]);
        let file = |path: &str, line: usize| Layer::File { path: path.into(), line };
        let inline = |value: Value, pointer: &str| Layer::Inline { value, pointer: pointer.into() };
        // calculate.go Merge over resources.go generateValues: each block's values, then its files.
        assert_eq!(
            variants[1].layers,
            [
                inline(json!({"a": 1}), "/helm/values"),
                file("common.yaml", 5),
                inline(json!({"b": 2}), "/targetCustomizations/0/helm/values"),
                file("prod.yaml", 12),
            ]
        );
        let prod = &variants[1].options;
        assert_eq!(prod.default_namespace.as_deref(), Some("classes"));
        assert_eq!(prod.target_namespace.as_deref(), Some("prod"));
        assert_eq!(variants[1].helm().release_name, "aks-prod");
        assert_eq!(variants[1].helm().chart, "./chart");
        let dev = &variants[2].options;
        assert_eq!(dev.default_namespace.as_deref(), Some("dev"));
        assert_eq!(dev.kustomize_dir.as_deref(), Some("overlays/dev"));
        assert_eq!(variants[2].layers.len(), 2, "the bundle's values only");
    }

    #[test]
    fn values_fleet_templates_per_cluster_are_found() {
        let templated = json!({"a": {"b": "${ .ClusterName }-x"}});
        assert_eq!(per_cluster_value(&templated, false), Some(("/a/b".into(), "${ .ClusterName }-x".into())));
        assert_eq!(per_cluster_value(&templated, true), None, "disablePreProcess");
        let label = json!({"env": "global.fleet.clusterLabels.env"});
        assert_eq!(per_cluster_value(&label, true).map(|found| found.0), Some("/env".into()));
        assert_eq!(
            per_cluster_value(&json!({"${ .ClusterName }": 1}), false).map(|found| found.0),
            Some("/${ .ClusterName }".into())
        );
        assert_eq!(per_cluster_value(&json!({"plain": "$HOME"}), false), None);
    }
}
