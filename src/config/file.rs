//! `.kubectl-capz.yaml`: the repository config file, found by walking up from the input, read strictly.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::argo_cluster::{ArgoCluster, SECRET_TYPE_CLUSTER, SECRET_TYPE_LABEL};
use crate::manifest::{self, LineIndex};
use crate::versions::{self, Target};

/// The file name looked for in the input's directory and each of its parents.
pub const FILE_NAME: &str = ".kubectl-capz.yaml";

/// The top-level settings of the file, in the order the docs list them.
const SETTINGS: &[&str] = &[
    "capzVersion",
    "kubernetesVersion",
    "rules",
    "crds",
    "exclude",
    "strict",
    "additionalAsoCrds",
    "argocd",
    "aksVersions",
];

/// The settings under `rules:`.
const RULE_SETTINGS: &[&str] = &["enable", "disable"];

/// The settings under `argocd:`, and those of each of its `clusters`.
const ARGOCD_SETTINGS: &[&str] = &["clusters"];
const CLUSTER_SETTINGS: &[&str] = &["name", "server", "project", "labels", "annotations"];

/// One value of the file with the line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub line: usize,
}

/// The settings of one `.kubectl-capz.yaml`; relative paths are already joined to the file's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoConfig {
    /// The file itself.
    pub path: PathBuf,
    /// The repository root its relative paths and globs start from: the file's folder (for a file given with
    /// `--config`, the current directory).
    root: PathBuf,
    /// `capzVersion`: the target CAPZ release.
    pub capz_version: Option<Setting<&'static Target>>,
    /// `kubernetesVersion`: the management cluster's Kubernetes (a bundled minor line, `v1.36`).
    pub kubernetes_version: Option<Setting<&'static str>>,
    /// `rules.enable`: rule ids turned on (the command line's `--disable` wins).
    pub enable: Vec<Setting<String>>,
    /// `rules.disable`: rule ids turned off (the command line's `--enable` wins).
    pub disable: Vec<Setting<String>>,
    /// `crds`: extra CRD folders, as `--crds`.
    pub crds: Vec<Setting<PathBuf>>,
    /// `exclude`: globs of paths (relative to [`RepoConfig::root`]) never read.
    pub exclude: Vec<Setting<String>>,
    /// `strict`: a source repository mode cannot build is an error, as `validate --strict`.
    pub strict: Option<Setting<bool>>,
    /// `additionalAsoCrds`: the management cluster's `ADDITIONAL_ASO_CRDS` (`;`-separated, as the variable; a list
    /// is joined with `;`).
    pub additional_aso_crds: Option<Setting<String>>,
    /// `argocd.clusters`: clusters Argo CD knows besides the cluster Secrets of the repository (for ApplicationSets'
    /// `clusters` generators), each as if it were a cluster Secret.
    pub argo_clusters: Vec<Setting<ArgoCluster>>,
    /// `aksVersions`: a file of the repository holding `az aks get-versions --location L -o json`, as
    /// `--aks-versions FILE`.
    pub aks_versions: Option<Setting<PathBuf>>,
}

impl RepoConfig {
    /// The repository root its relative paths and globs start from: the directory holding the file, or the one
    /// given to [`load_with_root`].
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `FILE:LINE`, for messages about one setting.
    pub fn location(&self, line: usize) -> String {
        format!("{}:{line}", self.path.display())
    }

    /// The `exclude` globs as written.
    pub fn exclude_globs(&self) -> Vec<&str> {
        self.exclude.iter().map(|glob| glob.value.as_str()).collect()
    }
}

/// Why the config file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but cannot be read.
    #[error("cannot read `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not YAML.
    #[error(transparent)]
    Syntax(#[from] manifest::ManifestError),
    /// A setting is unknown or its value is wrong.
    #[error("{file}:{line}: {key}: {message}")]
    Invalid { file: String, line: usize, key: String, message: String },
}

/// The nearest `.kubectl-capz.yaml` at or above `start` (a file's directory, or the directory itself), up to the
/// filesystem root, as linters find their config.
pub fn find(start: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(start).ok()?;
    let mut dir = if start.is_dir() { Some(start.as_path()) } else { start.parent() };
    while let Some(current) = dir {
        let candidate = current.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = current.parent();
    }
    None
}

/// The config file found from `start` ([`find`]), read; None when there is none.
pub fn discover(start: &Path) -> Result<Option<RepoConfig>, ConfigError> {
    find(start).map(|path| load(&path)).transpose()
}

/// Reads one config file; its folder is the repository root.
pub fn load(path: &Path) -> Result<RepoConfig, ConfigError> {
    load_with_root(path, path.parent().unwrap_or(Path::new(".")))
}

/// Reads one config file whose relative paths and globs start at `root` (a file given with `--config`, kept
/// outside the tree it configures: the base branch's, for a pull request).
pub fn load_with_root(path: &Path, root: &Path) -> Result<RepoConfig, ConfigError> {
    let text = crate::manifest::read_input_file(path)
        .map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
    parse_with_root(&text, path, root)
}

/// Parses config text; `path` names the file in messages and its folder anchors relative `crds` folders.
pub fn parse(text: &str, path: &Path) -> Result<RepoConfig, ConfigError> {
    parse_with_root(text, path, path.parent().unwrap_or(Path::new(".")))
}

/// `rules`: the rule IDs to `enable` and to `disable`, added to `config`.
fn read_rules(
    reader: &Reader<'_>,
    value: &Value,
    pointer: &str,
    key: &str,
    config: &mut RepoConfig,
) -> Result<(), ConfigError> {
    let Value::Object(rules) = value else {
        return Err(reader.invalid(
            pointer,
            key,
            format!("expected a mapping with `enable` and/or `disable`, got {}", type_name(value)),
        ));
    };
    reader.known_keys(rules, pointer, RULE_SETTINGS)?;
    for (list, ids) in rules {
        let list_pointer = format!("{pointer}/{list}");
        let ids = reader.strings(ids, &list_pointer, &format!("rules.{list}"))?;
        if list == "enable" { &mut config.enable } else { &mut config.disable }.extend(ids);
    }
    Ok(())
}

/// `crds`: folders of the repository (below `root`), added to `config`.
fn read_crds(
    reader: &Reader<'_>,
    value: &Value,
    pointer: &str,
    key: &str,
    root: &Path,
    config: &mut RepoConfig,
) -> Result<(), ConfigError> {
    for (index, dir) in reader.strings(value, pointer, key)?.into_iter().enumerate() {
        // The file may come with a pull request: it names folders of its repository, nothing else.
        if !stays_inside(&dir.value) {
            return Err(ConfigError::Invalid {
                file: reader.file.to_string(),
                line: dir.line,
                key: format!("crds[{index}]"),
                message: format!(
                    "`{}` is outside the repository (the folder of {FILE_NAME}); only its own folders \
                     are read, give others with --crds DIR",
                    dir.value
                ),
            });
        }
        config.crds.push(Setting { value: root.join(&dir.value), line: dir.line });
    }
    Ok(())
}

/// Parses config text whose relative paths start at `root`; `path` names the file in messages.
fn parse_with_root(text: &str, path: &Path, root: &Path) -> Result<RepoConfig, ConfigError> {
    let file = path.display().to_string();
    let mut config = RepoConfig {
        path: path.to_path_buf(),
        root: root.to_path_buf(),
        capz_version: None,
        kubernetes_version: None,
        enable: Vec::new(),
        disable: Vec::new(),
        crds: Vec::new(),
        exclude: Vec::new(),
        strict: None,
        additional_aso_crds: None,
        argo_clusters: Vec::new(),
        aks_versions: None,
    };
    if text.trim().is_empty() {
        return Ok(config);
    }
    let (value, lines) = manifest::parse_value(text, &file)?;
    let reader = Reader { file: &file, lines: &lines };
    let settings = match &value {
        Value::Null => return Ok(config),
        Value::Object(settings) => settings,
        other => {
            return Err(reader.invalid(
                "",
                "(top level)",
                format!("expected a mapping of settings, got {}", type_name(other)),
            ));
        }
    };
    reader.known_keys(settings, "", SETTINGS)?;
    let root = config.root().to_path_buf();
    for (key, value) in settings {
        let pointer = format!("/{}", crate::json_pointer::escape_token(key));
        let line = reader.line(&pointer);
        match key.as_str() {
            "capzVersion" => {
                let text = reader.string(value, &pointer, key)?;
                let target =
                    versions::find_target(text).map_err(|err| reader.invalid(&pointer, key, err.to_string()))?;
                config.capz_version = Some(Setting { value: target, line });
            }
            "kubernetesVersion" => {
                let text = reader.string(value, &pointer, key)?;
                let version = versions::find_kubernetes_version(text)
                    .map_err(|err| reader.invalid(&pointer, key, err.to_string()))?;
                config.kubernetes_version = Some(Setting { value: version, line });
            }
            "rules" => read_rules(&reader, value, &pointer, key, &mut config)?,
            "crds" => read_crds(&reader, value, &pointer, key, &root, &mut config)?,
            "exclude" => config.exclude = reader.strings(value, &pointer, key)?,
            "strict" => match value {
                Value::Bool(strict) => config.strict = Some(Setting { value: *strict, line }),
                other => {
                    return Err(reader.invalid(
                        &pointer,
                        key,
                        format!("expected true or false, got {}", type_name(other)),
                    ));
                }
            },
            "additionalAsoCrds" => {
                let text = match value {
                    Value::Array(_) => {
                        reader.strings(value, &pointer, key)?.into_iter().map(|s| s.value).collect::<Vec<_>>().join(";")
                    }
                    _ => reader.string(value, &pointer, key)?.to_string(),
                };
                config.additional_aso_crds = Some(Setting { value: text, line });
            }
            "argocd" => config.argo_clusters = reader.argocd(value, &pointer)?,
            "aksVersions" => {
                let file = reader.string(value, &pointer, key)?;
                // The file may come with a pull request: it names a file of its repository, nothing else.
                if !stays_inside(file) {
                    return Err(reader.invalid(
                        &pointer,
                        key,
                        format!(
                            "`{file}` is outside the repository (the folder of {FILE_NAME}); only its own files are \
                             read, give others with --aks-versions FILE"
                        ),
                    ));
                }
                config.aks_versions = Some(Setting { value: root.join(file), line });
            }
            _ => unreachable!("known_keys checked the settings"),
        }
    }
    Ok(config)
}

/// Reads values of the parsed file with their lines.
struct Reader<'a> {
    file: &'a str,
    lines: &'a LineIndex,
}

impl Reader<'_> {
    fn line(&self, pointer: &str) -> usize {
        self.lines.line_of(pointer).unwrap_or(1)
    }

    fn invalid(&self, pointer: &str, key: &str, message: String) -> ConfigError {
        ConfigError::Invalid { file: self.file.to_string(), line: self.line(pointer), key: key.to_string(), message }
    }

    /// Every key of `map` is one of `known`; else an error naming the closest known one.
    fn known_keys(&self, map: &Map<String, Value>, pointer: &str, known: &[&str]) -> Result<(), ConfigError> {
        let Some(unknown) = map.keys().find(|key| !known.contains(&key.as_str())) else { return Ok(()) };
        let closest = crate::suggest::closest(unknown, known.iter().copied())
            .map(|candidate| format!("did you mean `{candidate}`? "))
            .unwrap_or_default();
        let place =
            if pointer.is_empty() { FILE_NAME.to_string() } else { format!("`{}`", pointer.trim_start_matches('/')) };
        let key =
            if pointer.is_empty() { unknown.clone() } else { format!("{}.{unknown}", pointer.trim_start_matches('/')) };
        Err(self.invalid(
            &format!("{pointer}/{}", crate::json_pointer::escape_token(unknown)),
            &key,
            format!("unknown setting of {place}; {closest}known: {}", known.join(", ")),
        ))
    }

    /// `argocd:`: a mapping with `clusters`, a list of `{name, server, project, labels, annotations}`.
    fn argocd(&self, value: &Value, pointer: &str) -> Result<Vec<Setting<ArgoCluster>>, ConfigError> {
        let Value::Object(argocd) = value else {
            return Err(self.invalid(
                pointer,
                "argocd",
                format!("expected a mapping with `clusters`, got {}", type_name(value)),
            ));
        };
        self.known_keys(argocd, pointer, ARGOCD_SETTINGS)?;
        let Some(clusters) = argocd.get("clusters") else { return Ok(Vec::new()) };
        let list_pointer = format!("{pointer}/clusters");
        let Value::Array(items) = clusters else {
            return Err(self.invalid(
                &list_pointer,
                "argocd.clusters",
                format!("expected a list of clusters, got {}", type_name(clusters)),
            ));
        };
        let mut out = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let item_pointer = format!("{list_pointer}/{index}");
            let key = format!("argocd.clusters[{index}]");
            let Value::Object(cluster) = item else {
                return Err(self.invalid(
                    &item_pointer,
                    &key,
                    format!("expected a mapping with `name` and `server`, got {}", type_name(item)),
                ));
            };
            if let Some(unknown) = cluster.keys().find(|name| !CLUSTER_SETTINGS.contains(&name.as_str())) {
                let closest = crate::suggest::closest(unknown, CLUSTER_SETTINGS.iter().copied())
                    .map(|candidate| format!("did you mean `{candidate}`? "))
                    .unwrap_or_default();
                return Err(self.invalid(
                    &format!("{item_pointer}/{}", crate::json_pointer::escape_token(unknown)),
                    &format!("{key}.{unknown}"),
                    format!("unknown setting of a cluster; {closest}known: {}", CLUSTER_SETTINGS.join(", ")),
                ));
            }
            let required = |field: &str| -> Result<String, ConfigError> {
                match cluster.get(field) {
                    Some(value) => Ok(self
                        .string(value, &format!("{item_pointer}/{field}"), &format!("{key}.{field}"))?
                        .to_string()),
                    None => Err(self.invalid(&item_pointer, &key, format!("`{field}` is required"))),
                }
            };
            let map = |field: &str| -> Result<std::collections::BTreeMap<String, String>, ConfigError> {
                let field_pointer = format!("{item_pointer}/{field}");
                match cluster.get(field) {
                    None => Ok(Default::default()),
                    Some(Value::Object(map)) => map
                        .iter()
                        .map(|(name, value)| match value {
                            Value::String(text) => Ok((name.clone(), text.clone())),
                            other => Err(self.invalid(
                                &format!("{field_pointer}/{}", crate::json_pointer::escape_token(name)),
                                &format!("{key}.{field}.{name}"),
                                format!("expected a string, got {}", type_name(other)),
                            )),
                        })
                        .collect(),
                    Some(other) => Err(self.invalid(
                        &field_pointer,
                        &format!("{key}.{field}"),
                        format!("expected a mapping of strings, got {}", type_name(other)),
                    )),
                }
            };
            let mut labels = map("labels")?;
            // As a cluster Secret, which carries the label that makes it one.
            labels.insert(SECRET_TYPE_LABEL.to_string(), SECRET_TYPE_CLUSTER.to_string());
            let project = match cluster.get("project") {
                Some(value) => {
                    Some(self.string(value, &format!("{item_pointer}/project"), &format!("{key}.project"))?.to_string())
                }
                None => None,
            };
            let line = self.line(&item_pointer);
            let value = ArgoCluster {
                name: required("name")?,
                server: required("server")?,
                project,
                labels,
                annotations: map("annotations")?,
                declared_at: format!("{}:{line}", self.file),
            };
            out.push(Setting { value, line });
        }
        Ok(out)
    }

    fn string<'v>(&self, value: &'v Value, pointer: &str, key: &str) -> Result<&'v str, ConfigError> {
        match value {
            Value::String(text) if !text.trim().is_empty() => Ok(text),
            Value::String(_) => Err(self.invalid(pointer, key, "is empty".into())),
            other => Err(self.invalid(pointer, key, format!("expected a string, got {}", type_name(other)))),
        }
    }

    /// A list of non-empty strings, each with its line.
    fn strings(&self, value: &Value, pointer: &str, key: &str) -> Result<Vec<Setting<String>>, ConfigError> {
        let Value::Array(items) = value else {
            return Err(self.invalid(pointer, key, format!("expected a list of strings, got {}", type_name(value))));
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let item_pointer = format!("{pointer}/{index}");
                let text = self.string(item, &item_pointer, &format!("{key}[{index}]"))?;
                Ok(Setting { value: text.trim().to_string(), line: self.line(&item_pointer) })
            })
            .collect()
    }
}

/// Whether the relative path `path` stays inside the folder it is relative to, read lexically (no absolute path,
/// no `..` above it); where it leads through symlinks is checked when it is read ([`RepoConfig::root`]).
fn stays_inside(path: &str) -> bool {
    let mut depth = 0usize;
    for part in Path::new(path).components() {
        match part {
            std::path::Component::Normal(_) => depth += 1,
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return false,
            },
            std::path::Component::RootDir | std::path::Component::Prefix(_) => return false,
        }
    }
    true
}

pub(super) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing (null)",
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

    fn parse_text(text: &str) -> Result<RepoConfig, ConfigError> {
        parse(text, Path::new("/repo/.kubectl-capz.yaml"))
    }

    #[test]
    fn every_setting_is_read_with_its_line() {
        let config = parse_text(
            "capzVersion: v1.26.2\nkubernetesVersion: \"1.36\"\nrules:\n  enable: [capi-v1beta1]\n  disable:\n    - capz-empty-ssh-key\ncrds: [crds, vendor/../more-crds]\nexclude: [\"vendor/**\"]\n",
        )
        .unwrap();
        assert_eq!(config.capz_version, Some(Setting { value: versions::find_target("v1.26").unwrap(), line: 1 }));
        assert_eq!(config.kubernetes_version, Some(Setting { value: "v1.36", line: 2 }));
        assert_eq!(config.enable, vec![Setting { value: "capi-v1beta1".to_string(), line: 4 }]);
        assert_eq!(config.disable, vec![Setting { value: "capz-empty-ssh-key".to_string(), line: 6 }]);
        let crds: Vec<_> = config.crds.iter().map(|c| (c.value.clone(), c.line)).collect();
        assert_eq!(crds, [(PathBuf::from("/repo/crds"), 7), (PathBuf::from("/repo/vendor/../more-crds"), 7)]);
        assert_eq!(config.exclude_globs(), ["vendor/**"]);
        assert_eq!(config.root(), Path::new("/repo"));
        assert_eq!(config.additional_aso_crds, None);
        let string =
            parse_text("# mgmt\nadditionalAsoCrds: managedidentity.azure.com/*;cache.azure.com/Redis\n").unwrap();
        assert_eq!(
            string.additional_aso_crds,
            Some(Setting { value: "managedidentity.azure.com/*;cache.azure.com/Redis".to_string(), line: 2 })
        );
        let list =
            parse_text("additionalAsoCrds:\n  - managedidentity.azure.com/*\n  - cache.azure.com/Redis\n").unwrap();
        assert_eq!(list.additional_aso_crds, string.additional_aso_crds.map(|s| Setting { line: 1, ..s }));
    }

    #[test]
    fn argo_cd_clusters_are_read_as_cluster_secrets() {
        let config = parse_text(
            "argocd:\n  clusters:\n    - name: prod-weu\n      server: https://prod.example.com\n      labels:\n        env: prod\n    - {name: dev, server: https://dev.example.com, project: platform}\n",
        )
        .unwrap();
        let clusters: Vec<(&str, &str, usize, Option<&str>)> = config
            .argo_clusters
            .iter()
            .map(|c| (c.value.name.as_str(), c.value.server.as_str(), c.line, c.value.project.as_deref()))
            .collect();
        assert_eq!(
            clusters,
            [
                ("prod-weu", "https://prod.example.com", 3, None),
                ("dev", "https://dev.example.com", 7, Some("platform"))
            ]
        );
        let labels = &config.argo_clusters[0].value.labels;
        assert_eq!(labels.get("env").map(String::as_str), Some("prod"));
        assert_eq!(labels.get(SECRET_TYPE_LABEL).map(String::as_str), Some(SECRET_TYPE_CLUSTER));
        assert_eq!(config.argo_clusters[1].value.declared_at, "/repo/.kubectl-capz.yaml:7");
    }

    #[test]
    fn empty_files_set_nothing() {
        for text in ["", "\n# only a comment\n", "---\n"] {
            let config = parse_text(text).unwrap();
            assert!(config.capz_version.is_none() && config.crds.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn bad_settings_name_file_line_and_key() {
        let cases = [
            (
                "capzVersion: v1.27\ncapzVersoin: v1.26\n",
                "/repo/.kubectl-capz.yaml:2: capzVersoin: unknown setting of .kubectl-capz.yaml; did you mean `capzVersion`? known: capzVersion, kubernetesVersion, rules, crds, exclude, strict, additionalAsoCrds, argocd, aksVersions",
            ),
            (
                "capzVersion: v1.25\n",
                "/repo/.kubectl-capz.yaml:1: capzVersion: CAPZ version `v1.25` is not supported; supported: v1.28 (provisional), v1.27, v1.26",
            ),
            ("capzVersion: 1.27\n", "/repo/.kubectl-capz.yaml:1: capzVersion: expected a string, got a number"),
            (
                "kubernetesVersion: v1.20\n",
                "/repo/.kubectl-capz.yaml:1: kubernetesVersion: Kubernetes version `v1.20` is not bundled; bundled: v1.36, v1.35",
            ),
            (
                "rules:\n  enabled: [x]\n",
                "/repo/.kubectl-capz.yaml:2: rules.enabled: unknown setting of `rules`; did you mean `enable`? known: enable, disable",
            ),
            (
                "rules: [x]\n",
                "/repo/.kubectl-capz.yaml:1: rules: expected a mapping with `enable` and/or `disable`, got a list",
            ),
            ("crds: crds/\n", "/repo/.kubectl-capz.yaml:1: crds: expected a list of strings, got a string"),
            ("exclude:\n  - a\n  - \"\"\n", "/repo/.kubectl-capz.yaml:3: exclude[1]: is empty"),
            (
                "additionalAsoCrds: 3\n",
                "/repo/.kubectl-capz.yaml:1: additionalAsoCrds: expected a string, got a number",
            ),
            ("additionalAsoCrds: \"\"\n", "/repo/.kubectl-capz.yaml:1: additionalAsoCrds: is empty"),
            ("- capzVersion\n", "/repo/.kubectl-capz.yaml:1: (top level): expected a mapping of settings, got a list"),
            ("strict: \"true\"\n", "/repo/.kubectl-capz.yaml:1: strict: expected true or false, got a string"),
            (
                "argocd:\n  cluster: []\n",
                "/repo/.kubectl-capz.yaml:2: argocd.cluster: unknown setting of `argocd`; did you mean `clusters`? known: clusters",
            ),
            (
                "argocd:\n  clusters:\n    - name: a\n",
                "/repo/.kubectl-capz.yaml:3: argocd.clusters[0]: `server` is required",
            ),
            (
                "argocd:\n  clusters:\n    - {name: a, server: s, labels: {env: 1}}\n",
                "/repo/.kubectl-capz.yaml:3: argocd.clusters[0].labels.env: expected a string, got a number",
            ),
            (
                "argocd:\n  clusters:\n    - {name: a, server: s, label: {}}\n",
                "/repo/.kubectl-capz.yaml:3: argocd.clusters[0].label: unknown setting of a cluster; did you mean `labels`? known: name, server, project, labels, annotations",
            ),
            (
                "crds:\n  - crds\n  - ../shared-crds\n",
                "/repo/.kubectl-capz.yaml:3: crds[1]: `../shared-crds` is outside the repository (the folder of \
                 .kubectl-capz.yaml); only its own folders are read, give others with --crds DIR",
            ),
            (
                "crds: [/etc]\n",
                "/repo/.kubectl-capz.yaml:1: crds[0]: `/etc` is outside the repository (the folder of \
                 .kubectl-capz.yaml); only its own folders are read, give others with --crds DIR",
            ),
            (
                "crds: [a/../../b]\n",
                "/repo/.kubectl-capz.yaml:1: crds[0]: `a/../../b` is outside the repository (the folder of \
                 .kubectl-capz.yaml); only its own folders are read, give others with --crds DIR",
            ),
            (
                "# the region of our clusters\naksVersions: ../az/westeurope.json\n",
                "/repo/.kubectl-capz.yaml:2: aksVersions: `../az/westeurope.json` is outside the repository (the \
                 folder of .kubectl-capz.yaml); only its own files are read, give others with --aks-versions FILE",
            ),
            ("aksVersions: [a.json]\n", "/repo/.kubectl-capz.yaml:1: aksVersions: expected a string, got a list"),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_text(text).unwrap_err().to_string(), expected, "{text:?}");
        }
        assert!(parse_text("capzVersion: [\n").unwrap_err().to_string().starts_with("/repo/.kubectl-capz.yaml:"));
    }

    #[test]
    fn the_nearest_file_upwards_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("clusters/prod");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(nested.join("cluster.yaml"), "").unwrap();
        assert_eq!(find(&nested.join("cluster.yaml")), find(dir.path()));
        std::fs::write(dir.path().join(FILE_NAME), "capzVersion: v1.26\n").unwrap();
        assert_eq!(find(&nested.join("cluster.yaml")), Some(dir.path().join(FILE_NAME)));
        assert_eq!(find(&nested), Some(dir.path().join(FILE_NAME)));
        std::fs::write(nested.join(FILE_NAME), "").unwrap();
        assert_eq!(find(&nested.join("cluster.yaml")), Some(nested.join(FILE_NAME)));
        let config = discover(&nested.join("missing.yaml")).unwrap().unwrap();
        assert_eq!(config.path, nested.join(FILE_NAME));
    }
}
