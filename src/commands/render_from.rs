//! `kubectl capz render --from FILE`: a clusterctl template rendered with clusterctl's semantics.
//!
//! Like `clusterctl generate cluster NAME --from FILE -n NS`, offline: variables come from
//! `--set NAME=value` (like clusterctl's flags), then the environment, then `--values FILE` (a flat
//! map like clusterctl.yaml). Without `-n` the target namespace is `default` (clusterctl would ask
//! the management cluster for the kubeconfig's current namespace; there is none here).

use std::io::{Read, Write};

use anyhow::{Context, bail};
use serde_json::{Map, Value};

use crate::cli::{CapiApi, RenderArgs, RenderOutput};
use crate::exit::ExitStatus;
use crate::render::clusterctl::{self, GenerateOptions, Variables};

use super::render::{format_documents, write_out_dir};

pub(crate) fn run(args: RenderArgs) -> anyhow::Result<ExitStatus> {
    let input = &args.input;
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

    let (text, source_name) = read_template(from)?;
    let mut config = Map::new();
    for path in &input.values {
        let body = std::fs::read_to_string(path).with_context(|| format!("cannot read --values {}", path.display()))?;
        config.extend(clusterctl::parse_config(&body, &path.display().to_string())?);
    }
    let env = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
    let mut variables = Variables::new(env, &config);
    for assignment in &input.set {
        let Some((name, value)) = assignment.split_once('=') else {
            bail!("--set {assignment}: expected NAME=VALUE");
        };
        if name.is_empty() {
            bail!("--set {assignment}: the variable name is empty");
        }
        variables.set(name, value);
    }
    let options = GenerateOptions {
        cluster_name,
        target_namespace: input.namespace.clone().unwrap_or_else(|| "default".to_string()),
        kubernetes_version: input.kubernetes_version.clone(),
        control_plane_machine_count: None,
        worker_machine_count: None,
    };

    // clusterctl validates the options (and the counts found in env/config) even to list variables;
    // the list shows the values as they were before the injection.
    let shown = variables.clone();
    clusterctl::inject_options(&options, &mut variables)?;
    if args.list_variables {
        let map = clusterctl::variable_map(&text, &source_name)?;
        write_stdout(&clusterctl::list_variables_output(&map, &options, &shown))?;
        return Ok(ExitStatus::Success);
    }

    let generated = clusterctl::generate(&text, &source_name, &options.target_namespace, &variables)
        .with_context(|| format!("cannot render {source_name}"))?;
    let values: Vec<&Value> = generated.objects.iter().collect();
    let yaml = clusterctl::to_yaml(&generated.objects);
    match (&args.out_dir, args.output) {
        (Some(dir), output) => write_out_dir(dir, &values, output)?,
        (None, RenderOutput::Yaml) => write_stdout(&yaml)?,
        (None, RenderOutput::Json) => write_stdout(&format_documents(&values, RenderOutput::Json))?,
    }
    if args.validate {
        // Findings name lines of the YAML as clusterctl prints it.
        return super::validate::validate_rendered_text(&yaml);
    }
    Ok(ExitStatus::Success)
}

fn read_template(from: &str) -> anyhow::Result<(String, String)> {
    if from == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("cannot read the template from stdin")?;
        return Ok((text, "<stdin>".to_string()));
    }
    let text = std::fs::read_to_string(from).with_context(|| format!("cannot read --from {from}"))?;
    Ok((text, from.to_string()))
}

fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).context("cannot write to stdout")?;
    stdout.flush().context("cannot write to stdout")
}
