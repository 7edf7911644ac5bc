//! A clusterctl template rendered end to end (`render --from`, `diff --from`): the template and
//! values files read, the variables gathered with clusterctl's precedence, the options injected,
//! and the objects generated as clusterctl prints them.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::clusterctl::{self, ClusterctlError, GenerateOptions, Variables};
use crate::manifest::{self, Document, ManifestError};

/// What to render: the template, the variable sources and the `generate cluster` options.
#[derive(Debug, Clone, Default)]
pub struct TemplateRequest {
    /// The template file, or `-` for stdin.
    pub template: String,
    /// clusterctl's config file (`--config`, or the one found by [`default_config_file`]): a flat
    /// map of variables, the lowest precedence.
    pub config_file: Option<PathBuf>,
    /// Values files (flat maps like clusterctl.yaml), later files win; above the config file.
    pub values_files: Vec<PathBuf>,
    /// `NAME=VALUE` assignments, the highest precedence (like clusterctl's flags).
    pub set: Vec<String>,
    /// The environment (`name -> value`), between `set` and the values files.
    pub env: Vec<(String, String)>,
    /// The cluster name (`CLUSTER_NAME`), if given.
    pub cluster_name: Option<String>,
    /// The target namespace every namespaced object is moved into (`NAMESPACE`).
    pub target_namespace: String,
    /// `KUBERNETES_VERSION`, if given.
    pub kubernetes_version: Option<String>,
    /// `--control-plane-machine-count`, if given.
    pub control_plane_machine_count: Option<i64>,
    /// `--worker-machine-count`, if given.
    pub worker_machine_count: Option<i64>,
}

/// The extensions viper tries for clusterctl's config file, in its order (`viper.SupportedExts`).
const VIPER_EXTENSIONS: [&str; 12] =
    ["json", "toml", "yaml", "yml", "properties", "props", "prop", "hcl", "tfvars", "dotenv", "env", "ini"];

/// The clusterctl config file that `clusterctl generate cluster` reads without `--config`: the first
/// `clusterctl.<ext>` in `$XDG_CONFIG_HOME/cluster-api` (an absolute `XDG_CONFIG_HOME`, `~` expanded,
/// else `$HOME/.config`), then in `$HOME/.cluster-api`, extensions in viper's order. Only YAML and
/// JSON files are read; a file in another of viper's formats is an error, not silently skipped.
pub fn default_config_file(
    xdg_config_home: Option<&str>,
    home: Option<&Path>,
) -> Result<Option<PathBuf>, TemplateError> {
    let xdg = xdg_config_home
        .map(|dir| match (dir.strip_prefix('~'), home) {
            (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
                home.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(dir),
        })
        .filter(|dir| dir.is_absolute())
        .or_else(|| home.map(|home| home.join(".config")));
    let folders = [xdg.map(|dir| dir.join("cluster-api")), home.map(|home| home.join(".cluster-api"))];
    for folder in folders.iter().flatten() {
        for ext in VIPER_EXTENSIONS {
            let candidate = folder.join(format!("clusterctl.{ext}"));
            if candidate.is_file() {
                if !matches!(ext, "json" | "yaml" | "yml") {
                    return Err(TemplateError::ConfigFormat { path: candidate });
                }
                return Ok(Some(candidate));
            }
        }
    }
    Ok(None)
}

/// Why a template could not be rendered. Messages name the file or the assignment concerned.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("cannot read the template from stdin")]
    ReadStdin(#[source] std::io::Error),
    #[error("cannot read --from {path}")]
    ReadTemplate {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read --values {}", .path.display())]
    ReadValues {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read clusterctl's config file {}", .path.display())]
    ReadConfig {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: kubectl capz reads clusterctl config files in YAML or JSON only", .path.display())]
    ConfigFormat { path: PathBuf },
    #[error(
        "--from {0}: kubectl capz does not download templates (no network access is assumed); \
         download it first, e.g. `curl -fsSLo template.yaml URL`, then `--from template.yaml`"
    )]
    RemoteTemplate(String),
    #[error("--set {0}: expected NAME=VALUE")]
    SetSyntax(String),
    #[error("--set {0}: the variable name is empty")]
    SetEmptyName(String),
    /// Bad options or values file, or a template whose variables cannot be listed.
    #[error(transparent)]
    Clusterctl(#[from] Box<ClusterctlError>),
    /// Substitution, parsing or namespacing of the template failed.
    #[error("cannot render {source_name}")]
    Render {
        source_name: String,
        #[source]
        source: Box<ClusterctlError>,
    },
    /// The printed objects do not read back (a bug if it happens: they were just printed).
    #[error("cannot re-read the objects rendered from {source_name}")]
    Reread {
        source_name: String,
        #[source]
        source: Box<ManifestError>,
    },
}

impl From<ClusterctlError> for TemplateError {
    fn from(err: ClusterctlError) -> Self {
        TemplateError::Clusterctl(Box::new(err))
    }
}

/// A template with its variables gathered and the options injected, ready to render or to list
/// its variables. Nothing has been substituted yet.
#[derive(Debug, Clone)]
pub struct PreparedTemplate {
    text: String,
    source_name: String,
    options: GenerateOptions,
    /// The variables as given, before the options were injected (what `--list-variables` shows).
    given: Variables,
    variables: Variables,
}

/// The objects of a rendered template.
#[derive(Debug, Clone)]
pub struct RenderedTemplate {
    /// The template's name in messages (its path, or `<stdin>`).
    pub source_name: String,
    /// The objects, in template order, in the target namespace, as clusterctl re-marshals them.
    pub objects: Vec<Value>,
    /// The objects as clusterctl prints them (documents joined by `---`).
    pub yaml: String,
}

/// Reads the template and the values files and gathers the variables with clusterctl's
/// precedence (`set`, then the environment, then the values files), then validates and injects
/// the options like clusterctl's `templateOptionsToVariables`.
pub fn prepare(request: &TemplateRequest) -> Result<PreparedTemplate, TemplateError> {
    let (text, source_name) = read_template(&request.template)?;
    let mut config = Map::new();
    if let Some(path) = &request.config_file {
        let body = crate::manifest::read_input_file(path)
            .map_err(|source| TemplateError::ReadConfig { path: path.clone(), source })?;
        config.extend(clusterctl::parse_config(&body, &path.display().to_string())?);
    }
    for path in &request.values_files {
        let body = crate::manifest::read_input_file(path)
            .map_err(|source| TemplateError::ReadValues { path: path.clone(), source })?;
        config.extend(clusterctl::parse_config(&body, &path.display().to_string())?);
    }
    let mut variables = Variables::new(request.env.iter().cloned(), &config);
    for assignment in &request.set {
        let Some((name, value)) = assignment.split_once('=') else {
            return Err(TemplateError::SetSyntax(assignment.clone()));
        };
        if name.is_empty() {
            return Err(TemplateError::SetEmptyName(assignment.clone()));
        }
        variables.set(name, value);
    }
    let options = GenerateOptions {
        cluster_name: request.cluster_name.clone(),
        target_namespace: request.target_namespace.clone(),
        kubernetes_version: request.kubernetes_version.clone(),
        control_plane_machine_count: request.control_plane_machine_count,
        worker_machine_count: request.worker_machine_count,
    };
    // clusterctl validates the options (and the counts found in env/config) even to list variables.
    let given = variables.clone();
    clusterctl::inject_options(&options, &mut variables)?;
    Ok(PreparedTemplate { text, source_name, options, given, variables })
}

impl PreparedTemplate {
    /// The template's name in messages (its path, or `<stdin>`).
    pub fn source_name(&self) -> &str {
        &self.source_name
    }

    /// clusterctl's `--list-variables` output: the template's variables and the values they
    /// would take, as they were before the options were injected.
    pub fn list_variables(&self) -> Result<String, TemplateError> {
        let map = clusterctl::variable_map(&self.text, &self.source_name)?;
        Ok(clusterctl::list_variables_output(&map, &self.options, &self.given))
    }

    /// Substitutes the variables (every missing one reported at once) and generates the objects.
    pub fn render(&self) -> Result<RenderedTemplate, TemplateError> {
        let generated =
            clusterctl::generate(&self.text, &self.source_name, &self.options.target_namespace, &self.variables)
                .map_err(|source| TemplateError::Render {
                    source_name: self.source_name.clone(),
                    source: Box::new(source),
                })?;
        let yaml = clusterctl::to_yaml(&generated.objects);
        Ok(RenderedTemplate { source_name: self.source_name.clone(), objects: generated.objects, yaml })
    }
}

impl RenderedTemplate {
    /// The objects as documents read back from the printed YAML, exactly what `render --from ... |
    /// diff -f -` would see; origins name lines of that output (`<rendered from TEMPLATE>`).
    pub fn documents(&self) -> Result<Vec<Document>, TemplateError> {
        let label = format!("<rendered from {}>", self.source_name);
        manifest::parse_documents(&self.yaml, &label)
            .map_err(|source| TemplateError::Reread { source_name: self.source_name.clone(), source: Box::new(source) })
    }
}

/// Renders a template in one go (prepare, then render).
pub fn render_template(request: &TemplateRequest) -> Result<RenderedTemplate, TemplateError> {
    prepare(request)?.render()
}

fn read_template(from: &str) -> Result<(String, String), TemplateError> {
    if from == "-" {
        let text = crate::manifest::read_input_stdin().map_err(TemplateError::ReadStdin)?;
        return Ok((text, "<stdin>".to_string()));
    }
    if from.starts_with("https://") || from.starts_with("http://") {
        return Err(TemplateError::RemoteTemplate(from.to_string()));
    }
    let text = crate::manifest::read_input_file(from)
        .map_err(|source| TemplateError::ReadTemplate { path: from.to_string(), source })?;
    Ok((text, from.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${CLUSTER_NAME}-cfg\ndata:\n  location: ${AZURE_LOCATION}\n  replicas: \"${WORKER_MACHINE_COUNT}\"\n";

    fn request(dir: &std::path::Path) -> TemplateRequest {
        let path = dir.join("t.yaml");
        std::fs::write(&path, TEMPLATE).unwrap();
        TemplateRequest {
            template: path.display().to_string(),
            cluster_name: Some("demo".into()),
            target_namespace: "team-a".into(),
            env: vec![("AZURE_LOCATION".into(), "westeurope".into())],
            ..TemplateRequest::default()
        }
    }

    #[test]
    fn set_wins_over_env_which_wins_over_values() {
        let dir = tempfile::tempdir().unwrap();
        let mut req = request(dir.path());
        let values = dir.path().join("v.yaml");
        std::fs::write(&values, "AZURE_LOCATION: northeurope\nWORKER_MACHINE_COUNT: 3\n").unwrap();
        req.values_files = vec![values];
        let out = render_template(&req).unwrap();
        assert_eq!(out.objects[0]["data"]["location"], "westeurope");
        assert_eq!(out.objects[0]["data"]["replicas"], "3");
        assert_eq!(out.objects[0]["metadata"]["namespace"], "team-a");
        req.set = vec!["azure_location=eastus".into()];
        let out = render_template(&req).unwrap();
        assert_eq!(out.objects[0]["data"]["location"], "eastus");
    }

    #[test]
    fn config_file_is_below_values_files_and_env() {
        let dir = tempfile::tempdir().unwrap();
        let mut req = request(dir.path());
        let config = dir.path().join("clusterctl.yaml");
        std::fs::write(&config, "AZURE_LOCATION: northeurope\nWORKER_MACHINE_COUNT: 3\nCLUSTER_NAME: x\n").unwrap();
        let values = dir.path().join("v.yaml");
        std::fs::write(&values, "WORKER_MACHINE_COUNT: 4\n").unwrap();
        req.config_file = Some(config);
        let out = render_template(&req).unwrap();
        assert_eq!(out.objects[0]["data"]["location"], "westeurope");
        assert_eq!(out.objects[0]["data"]["replicas"], "3");
        req.values_files = vec![values];
        assert_eq!(render_template(&req).unwrap().objects[0]["data"]["replicas"], "4");
        req.worker_machine_count = Some(6);
        assert_eq!(render_template(&req).unwrap().objects[0]["data"]["replicas"], "6");
    }

    #[test]
    fn default_config_file_follows_clusterctl_search_order() {
        let home = tempfile::tempdir().unwrap();
        let home_path = home.path();
        assert_eq!(default_config_file(None, Some(home_path)).unwrap(), None);
        let legacy = home_path.join(".cluster-api");
        std::fs::create_dir_all(&legacy).unwrap();
        std::fs::write(legacy.join("clusterctl.yaml"), "A: 1\n").unwrap();
        assert_eq!(default_config_file(None, Some(home_path)).unwrap(), Some(legacy.join("clusterctl.yaml")));
        // $HOME/.config/cluster-api comes first; json before yaml (viper's order).
        let xdg = home_path.join(".config/cluster-api");
        std::fs::create_dir_all(&xdg).unwrap();
        std::fs::write(xdg.join("clusterctl.yml"), "A: 2\n").unwrap();
        assert_eq!(default_config_file(None, Some(home_path)).unwrap(), Some(xdg.join("clusterctl.yml")));
        std::fs::write(xdg.join("clusterctl.json"), "{}").unwrap();
        assert_eq!(default_config_file(None, Some(home_path)).unwrap(), Some(xdg.join("clusterctl.json")));
        // A relative XDG_CONFIG_HOME is ignored, `~/` is expanded, an absolute one is used.
        assert_eq!(default_config_file(Some("rel"), Some(home_path)).unwrap(), Some(xdg.join("clusterctl.json")));
        let other = home_path.join("xdg");
        std::fs::create_dir_all(other.join("cluster-api")).unwrap();
        std::fs::write(other.join("cluster-api/clusterctl.toml"), "A = 1\n").unwrap();
        let err = default_config_file(Some("~/xdg"), Some(home_path)).unwrap_err().to_string();
        assert!(
            err.ends_with("clusterctl.toml: kubectl capz reads clusterctl config files in YAML or JSON only"),
            "{err}"
        );
        std::fs::remove_file(other.join("cluster-api/clusterctl.toml")).unwrap();
        let abs = other.to_str().unwrap();
        assert_eq!(default_config_file(Some(abs), Some(home_path)).unwrap(), Some(legacy.join("clusterctl.yaml")));
    }

    #[test]
    fn remote_templates_are_a_clear_error() {
        let req = TemplateRequest { template: "https://example.invalid/t.yaml".into(), ..TemplateRequest::default() };
        let err = prepare(&req).unwrap_err().to_string();
        assert!(err.contains("does not download templates") && err.contains("download it first"), "{err}");
    }

    #[test]
    fn documents_read_back_the_printed_yaml_with_lines() {
        let dir = tempfile::tempdir().unwrap();
        let out = render_template(&request(dir.path())).unwrap();
        let docs = out.documents().unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].value, out.objects[0]);
        assert!(docs[0].origin.to_string().starts_with("<rendered from "), "{}", docs[0].origin);
        // Unset WORKER_MACHINE_COUNT is clusterctl's injected default 0.
        assert_eq!(docs[0].value["data"]["replicas"], "0");
    }

    #[test]
    fn missing_variables_and_bad_assignments_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut req = request(dir.path());
        req.env.clear();
        let err = render_template(&req).unwrap_err();
        let chain = format!("{err}: {}", std::error::Error::source(&err).map(|s| s.to_string()).unwrap_or_default());
        assert!(chain.starts_with("cannot render ") && chain.contains("[AZURE_LOCATION]"), "{chain}");
        req.set = vec!["NOEQUALS".into()];
        assert_eq!(prepare(&req).unwrap_err().to_string(), "--set NOEQUALS: expected NAME=VALUE");
        req.set = vec!["=x".into()];
        assert_eq!(prepare(&req).unwrap_err().to_string(), "--set =x: the variable name is empty");
        req.set.clear();
        req.template = dir.path().join("missing.yaml").display().to_string();
        assert!(prepare(&req).unwrap_err().to_string().starts_with("cannot read --from "), "bad path");
    }
}
