//! `kubectl capz render --from FILE`: a clusterctl template rendered with clusterctl's semantics.
//!
//! Like `clusterctl generate cluster NAME --from FILE -n NS`, offline: variables come from
//! `--set NAME=value` (like clusterctl's flags), then the environment, then `--values FILE` (a flat
//! map like clusterctl.yaml), then clusterctl's own config file (`--config`, or the one clusterctl
//! finds in `$XDG_CONFIG_HOME/cluster-api` or `~/.cluster-api`). Without `-n` the target namespace is `default` (clusterctl would ask
//! the management cluster for the kubeconfig's current namespace; there is none here).
//! The rendering itself is [`crate::render::from_template`], shared with `diff --from`.

use anyhow::bail;
use serde_json::Value;

use crate::cli::{CapiApi, RenderArgs, RenderInputArgs, RenderOutput};
use crate::exit::ExitStatus;
use crate::render::from_template::{self, TemplateRequest};

use super::output::{format_documents, write_objects, write_stdout};
use super::target::RunTarget;

pub(crate) fn run(args: RenderArgs, run_target: &RunTarget) -> anyhow::Result<ExitStatus> {
    let request = template_request(&args.input, || Ok("default".to_string()))?;
    let prepared = from_template::prepare(&request)?;
    if args.list_variables {
        write_stdout(&prepared.list_variables()?)?;
        return Ok(ExitStatus::Success);
    }

    let rendered = prepared.render()?;
    let values: Vec<&Value> = rendered.objects.iter().collect();
    match (&args.out_dir, args.output) {
        (Some(dir), output) => write_objects(dir, &values, output)?,
        (None, RenderOutput::Yaml) => write_stdout(&rendered.yaml)?,
        (None, RenderOutput::Json) => write_stdout(&format_documents(&values, RenderOutput::Json))?,
    }
    if args.validate {
        // Findings name lines of the YAML as clusterctl prints it.
        return super::validate::validate_rendered_text(&rendered.yaml, run_target);
    }
    Ok(ExitStatus::Success)
}

/// The template request of `--from` from the shared render flags (`render --from`, `diff --from`)
/// and the process environment. `default_namespace` gives the target namespace when `-n` is not
/// given; it is called only after the flags were checked.
pub(crate) fn template_request(
    input: &RenderInputArgs,
    default_namespace: impl FnOnce() -> anyhow::Result<String>,
) -> anyhow::Result<TemplateRequest> {
    let Some(from) = input.from.as_deref() else { bail!("render --from needs a template file or `-`") };
    if input.with_class {
        bail!("--with-class does not apply to --from (clusterctl does not add ClusterClasses for --from either)");
    }
    if input.flavor_dir.is_some() {
        bail!("--flavor-dir does not apply to --from");
    }
    if input.capi_api != CapiApi::V1beta1 {
        bail!("--capi-api does not apply to --from: the template decides the API versions");
    }
    // With --from there is no flavor: the one positional argument is the cluster name.
    let cluster_name = match (&input.flavor, &input.name) {
        (Some(name), None) => Some(name.clone()),
        (None, None) => None,
        (Some(first), Some(second)) => {
            bail!("with --from, give only the cluster name; got `{first}` and `{second}`")
        }
        (None, Some(name)) => Some(name.clone()),
    };
    let target_namespace = match &input.namespace {
        Some(namespace) => namespace.clone(),
        None => default_namespace()?,
    };
    let env: Vec<(String, String)> =
        std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect();
    let config_file = match &input.config {
        Some(path) => Some(path.clone()),
        None => {
            let lookup = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
            let home = lookup("HOME").filter(|home| !home.is_empty()).map(std::path::Path::new);
            from_template::default_config_file(lookup("XDG_CONFIG_HOME"), home)?
        }
    };
    Ok(TemplateRequest {
        template: from.to_string(),
        config_file,
        values_files: input.values.clone(),
        set: input.set.clone(),
        env,
        cluster_name,
        target_namespace,
        kubernetes_version: input.kubernetes_version.clone(),
        control_plane_machine_count: input.control_plane_machine_count,
        worker_machine_count: input.worker_machine_count,
    })
}
