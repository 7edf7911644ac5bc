//! `fleet.yaml` read as Fleet reads it (rancher/fleet pkg/apis/fleet.cattle.io/v1alpha1 `FleetYAML`, `BundleSpec`,
//! `BundleDeploymentOptions`, `HelmOptions`, `BundleTarget`), each setting with the line it is written on.
//!
//! Fleet unmarshals the file with sigs.k8s.io/yaml into those types: unknown keys are ignored, a value of the wrong
//! type makes the whole file unreadable (`fleet apply` fails, nothing of the bundle is deployed).

use serde_json::{Map, Value};

use crate::manifest::LineIndex;

/// The options of one deployment (`BundleDeploymentOptions`): the bundle's own, or a target customization's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// `defaultNamespace`: the Helm release namespace when `namespace` is not set.
    pub default_namespace: Option<String>,
    /// `namespace` (`TargetNamespace`): every object is put in it.
    pub target_namespace: Option<String>,
    pub helm: Option<Helm>,
    /// `kustomize.dir`.
    pub kustomize_dir: Option<String>,
    /// `yaml.overlays`.
    pub overlays: Vec<String>,
}

/// `helm:` of an options block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Helm {
    pub chart: String,
    pub repo: String,
    pub version: String,
    pub release_name: String,
    /// `values`, with the JSON pointer of `values` in fleet.yaml.
    pub values: Option<(Value, String)>,
    /// `valuesFiles`, relative to the bundle directory, each with its line.
    pub values_files: Vec<(String, usize)>,
    /// `valuesFrom` entries (ConfigMaps and Secrets of the downstream cluster), each as `Kind/name` with its line.
    pub values_from: Vec<(String, usize)>,
    /// The line of `templateValues`, when set.
    pub template_values: Option<usize>,
    pub disable_pre_process: bool,
}

/// One entry of `targetCustomizations`.
#[derive(Debug, Clone, PartialEq)]
pub struct Customization {
    /// `name`, or Fleet's default `target%03d` (its position among the bundle's targets).
    pub name: String,
    /// Line of the entry in fleet.yaml.
    pub line: usize,
    /// JSON pointer of the entry (`/targetCustomizations/1`).
    pub pointer: String,
    pub do_not_deploy: bool,
    pub options: Options,
}

/// What fleet.yaml says.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetYaml {
    /// `name`: the bundle's name instead of the one `fleet apply` derives.
    pub name: Option<String>,
    pub options: Options,
    pub customizations: Vec<Customization>,
    /// `targetCustomizationMode: AllMatches`: a cluster gets every matching customization merged in order.
    pub all_matches: bool,
}

/// Why fleet.yaml cannot be read, at a line of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub line: usize,
    pub message: String,
}

/// Reads the parsed fleet.yaml `value` (with its `lines`).
pub fn read(value: &Value, lines: &LineIndex) -> Result<FleetYaml, SpecError> {
    let reader = Reader { lines };
    let top = match value {
        Value::Null => {
            return Ok(FleetYaml {
                name: None,
                options: Options::default(),
                customizations: Vec::new(),
                all_matches: false,
            });
        }
        Value::Object(map) => map,
        other => return Err(reader.error("", format!("fleet.yaml is {}, not a mapping", kind_of(other)))),
    };
    let name = reader.string(top, "", "name")?;
    let options = reader.options(top, "")?;
    let mode = reader.string(top, "", "targetCustomizationMode")?;
    let all_matches = mode.as_deref() == Some("AllMatches");
    // Fleet names unnamed targets by their position among `targets` and then `targetCustomizations`
    // (internal/bundlereader/read.go `setTargetNames`, after appending the customizations).
    let targets_before = match top.get("targets") {
        Some(Value::Array(items)) => items.len(),
        Some(Value::Null) | None => 0,
        Some(other) => return Err(reader.error("/targets", format!("`targets` is {}, not a list", kind_of(other)))),
    };
    let mut customizations = Vec::new();
    match top.get("targetCustomizations") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (index, item) in items.iter().enumerate() {
                let pointer = format!("/targetCustomizations/{index}");
                let Value::Object(entry) = item else {
                    return Err(reader.error(&pointer, format!("`targetCustomizations[{index}]` is not a mapping")));
                };
                let name = reader
                    .string(entry, &pointer, "name")?
                    .filter(|name| !name.is_empty())
                    .unwrap_or_else(|| format!("target{:03}", targets_before + index));
                let do_not_deploy = reader.bool(entry, &pointer, "doNotDeploy")?;
                let options = reader.options(entry, &pointer)?;
                customizations.push(Customization {
                    name,
                    line: reader.line(&pointer),
                    pointer,
                    do_not_deploy,
                    options,
                });
            }
        }
        Some(other) => {
            return Err(reader
                .error("/targetCustomizations", format!("`targetCustomizations` is {}, not a list", kind_of(other))));
        }
    }
    Ok(FleetYaml { name: name.filter(|name| !name.is_empty()), options, customizations, all_matches })
}

struct Reader<'a> {
    lines: &'a LineIndex,
}

impl Reader<'_> {
    fn line(&self, pointer: &str) -> usize {
        self.lines.line_of(pointer).unwrap_or(1)
    }

    fn error(&self, pointer: &str, message: String) -> SpecError {
        SpecError { line: self.line(pointer), message }
    }

    fn string(&self, map: &Map<String, Value>, at: &str, key: &str) -> Result<Option<String>, SpecError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            // sigs.k8s.io/yaml reads a number or boolean into a string field as an error.
            Some(other) => Err(self
                .error(&format!("{at}/{key}"), format!("`{}` is {}, not a string", dotted(at, key), kind_of(other)))),
        }
    }

    fn bool(&self, map: &Map<String, Value>, at: &str, key: &str) -> Result<bool, SpecError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(value)) => Ok(*value),
            Some(other) => Err(self.error(
                &format!("{at}/{key}"),
                format!("`{}` is {}, not true or false", dotted(at, key), kind_of(other)),
            )),
        }
    }

    fn object<'m>(
        &self,
        map: &'m Map<String, Value>,
        at: &str,
        key: &str,
    ) -> Result<Option<&'m Map<String, Value>>, SpecError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(inner)) => Ok(Some(inner)),
            Some(other) => Err(self
                .error(&format!("{at}/{key}"), format!("`{}` is {}, not a mapping", dotted(at, key), kind_of(other)))),
        }
    }

    fn list<'m>(&self, map: &'m Map<String, Value>, at: &str, key: &str) -> Result<&'m [Value], SpecError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => {
                Err(self
                    .error(&format!("{at}/{key}"), format!("`{}` is {}, not a list", dotted(at, key), kind_of(other))))
            }
        }
    }

    fn options(&self, map: &Map<String, Value>, at: &str) -> Result<Options, SpecError> {
        let mut options = Options {
            default_namespace: self.string(map, at, "defaultNamespace")?.filter(|ns| !ns.is_empty()),
            target_namespace: self.string(map, at, "namespace")?.filter(|ns| !ns.is_empty()),
            ..Options::default()
        };
        if let Some(kustomize) = self.object(map, at, "kustomize")? {
            options.kustomize_dir =
                self.string(kustomize, &format!("{at}/kustomize"), "dir")?.filter(|d| !d.is_empty());
        }
        if let Some(yaml) = self.object(map, at, "yaml")? {
            let pointer = format!("{at}/yaml");
            for (index, overlay) in self.list(yaml, &pointer, "overlays")?.iter().enumerate() {
                match overlay {
                    Value::String(name) => options.overlays.push(name.clone()),
                    other => {
                        return Err(self.error(
                            &format!("{pointer}/overlays/{index}"),
                            format!("`yaml.overlays[{index}]` is {}, not a string", kind_of(other)),
                        ));
                    }
                }
            }
        }
        if let Some(helm) = self.object(map, at, "helm")? {
            options.helm = Some(self.helm(helm, &format!("{at}/helm"))?);
        }
        Ok(options)
    }

    fn helm(&self, map: &Map<String, Value>, at: &str) -> Result<Helm, SpecError> {
        let text = |key: &str| self.string(map, at, key).map(Option::unwrap_or_default);
        let mut helm = Helm {
            chart: text("chart")?,
            repo: text("repo")?,
            version: text("version")?,
            release_name: text("releaseName")?,
            disable_pre_process: self.bool(map, at, "disablePreProcess")?,
            ..Helm::default()
        };
        match map.get("values") {
            None | Some(Value::Null) => {}
            Some(values @ Value::Object(_)) => helm.values = Some((values.clone(), format!("{at}/values"))),
            Some(other) => {
                return Err(
                    self.error(&format!("{at}/values"), format!("`helm.values` is {}, not a mapping", kind_of(other)))
                );
            }
        }
        for (index, file) in self.list(map, at, "valuesFiles")?.iter().enumerate() {
            let pointer = format!("{at}/valuesFiles/{index}");
            match file {
                Value::String(path) => helm.values_files.push((path.clone(), self.line(&pointer))),
                other => {
                    return Err(self
                        .error(&pointer, format!("`helm.valuesFiles[{index}]` is {}, not a string", kind_of(other))));
                }
            }
        }
        for (index, entry) in self.list(map, at, "valuesFrom")?.iter().enumerate() {
            let pointer = format!("{at}/valuesFrom/{index}");
            let reference = ["configMapKeyRef", "secretKeyRef"].iter().find_map(|key| {
                let name = entry.get(*key)?.get("name").and_then(Value::as_str).unwrap_or("?");
                let kind = if *key == "configMapKeyRef" { "ConfigMap" } else { "Secret" };
                Some(format!("{kind}/{name}"))
            });
            helm.values_from.push((reference.unwrap_or_else(|| "an empty reference".to_string()), self.line(&pointer)));
        }
        if map.get("templateValues").is_some_and(|value| value.as_object().is_some_and(|m| !m.is_empty())) {
            helm.template_values = Some(self.line(&format!("{at}/templateValues")));
        }
        Ok(helm)
    }
}

fn dotted(at: &str, key: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for part in at.split('/').filter(|part| !part.is_empty()) {
        match part.parse::<usize>() {
            Ok(index) => {
                if let Some(last) = parts.last_mut() {
                    last.push_str(&format!("[{index}]"));
                }
            }
            Err(_) => parts.push(part.to_string()),
        }
    }
    parts.push(key.to_string());
    parts.join(".")
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FleetYaml, SpecError> {
        let (value, lines) = crate::manifest::parse_value(text, "fleet.yaml").unwrap();
        read(&value, &lines)
    }

    #[test]
    fn options_and_customizations_with_their_lines_and_default_names() {
        let spec = parse(
            "defaultNamespace: capi-classes\nhelm:\n  chart: ./chart\n  releaseName: aks\n  values:\n    a: 1\n  \
             valuesFiles:\n    - values/common.yaml\ntargetCustomizations:\n  - name: prod\n    namespace: prod\n    \
             helm:\n      valuesFiles: [values/prod.yaml]\n  - clusterSelector: {}\n    kustomize:\n      dir: k/dev\n  \
             - name: paused\n    doNotDeploy: true\n",
        )
        .unwrap();
        assert_eq!(spec.options.default_namespace.as_deref(), Some("capi-classes"));
        let helm = spec.options.helm.as_ref().unwrap();
        assert_eq!((helm.chart.as_str(), helm.release_name.as_str()), ("./chart", "aks"));
        assert_eq!(helm.values, Some((serde_json::json!({"a": 1}), "/helm/values".to_string())));
        assert_eq!(helm.values_files, [("values/common.yaml".to_string(), 8)]);
        let names: Vec<&str> = spec.customizations.iter().map(|c| c.name.as_str()).collect();
        // Fleet's `setTargetNames`: an unnamed target is `target` and its position.
        assert_eq!(names, ["prod", "target001", "paused"]);
        assert_eq!(spec.customizations[0].line, 10);
        assert_eq!(spec.customizations[0].options.target_namespace.as_deref(), Some("prod"));
        assert_eq!(spec.customizations[1].options.kustomize_dir.as_deref(), Some("k/dev"));
        assert!(spec.customizations[2].do_not_deploy);
    }

    #[test]
    fn a_value_of_the_wrong_type_makes_the_file_unreadable_at_its_line() {
        let error = parse("helm:\n  chart: ./c\n  valuesFiles: values.yaml\n").unwrap_err();
        assert_eq!(error, SpecError { line: 3, message: "`helm.valuesFiles` is a string, not a list".into() });
        let error = parse("targetCustomizations:\n  - name: a\n    helm:\n      values: [1]\n").unwrap_err();
        assert_eq!(error.line, 4);
        assert!(error.message.contains("not a mapping"), "{error:?}");
        assert_eq!(parse("").unwrap().customizations, []);
        // YAML 1.1, as sigs.k8s.io/yaml reads it: `off` is a boolean, which a name cannot be.
        let error = parse("targetCustomizations:\n  - name: off\n").unwrap_err();
        assert_eq!(
            error,
            SpecError { line: 2, message: "`targetCustomizations[0].name` is a boolean, not a string".into() }
        );
    }
}
