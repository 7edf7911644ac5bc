//! `kubectl capz render`: flavors, ClusterClasses and topology Clusters from typed parameters.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::cli::{CapiApi, RenderArgs, RenderInputArgs, RenderOutput};
use crate::exit::ExitStatus;
use crate::manifest::{self, Document};
use crate::params::{self, Inputs};
use crate::render::{self, CapiVersion, Engine};

use super::{render_fleet, render_from};

pub(crate) fn run(mut args: RenderArgs) -> anyhow::Result<ExitStatus> {
    args.input = with_clusterctl_flags(&args.input)?;
    if args.input.from.is_some() {
        return render_from::run(args);
    }
    if args.fleet.is_some() {
        return render_fleet::run(args);
    }
    if args.list_variables {
        bail!("--list-variables needs --from; list a flavor's parameters with `kubectl capz params FLAVOR`");
    }
    let documents = render_input(&args.input)?;
    let values: Vec<&Value> = documents.iter().map(|d| &d.value).collect();
    match &args.out_dir {
        Some(dir) => write_out_dir(dir, &values, args.output)?,
        None => {
            let text = format_documents(&values, args.output);
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes()).context("cannot write to stdout")?;
            stdout.flush().context("cannot write to stdout")?;
        }
    }
    if args.validate {
        return super::validate::validate_rendered(&documents);
    }
    Ok(ExitStatus::Success)
}

/// The render flags with clusterctl's spellings folded in: `--flavor F NAME` becomes `F NAME`;
/// `--infrastructure` must name Azure; flags that do not fit the template source are errors, as in
/// `clusterctl generate cluster` ("only one template can be used at time").
pub(crate) fn with_clusterctl_flags(input: &RenderInputArgs) -> anyhow::Result<RenderInputArgs> {
    let mut input = input.clone();
    if let Some(provider) = &input.infrastructure {
        let name = provider.split_once(':').map_or(provider.as_str(), |(name, _)| name);
        if name != "azure" {
            bail!("--infrastructure {provider}: kubectl capz renders the Azure provider's (CAPZ's) flavors only");
        }
    }
    if input.from.is_some() && (input.flavor_flag.is_some() || input.infrastructure.is_some()) {
        bail!(
            "--from and --flavor/--infrastructure name two template sources; give one              (clusterctl: only one template can be used at time)"
        );
    }
    if input.from.is_none() && input.config.is_some() {
        bail!("--config (clusterctl's config file) applies to --from; a flavor takes --values FILE");
    }
    if let Some(flavor) = input.flavor_flag.take() {
        match (input.flavor.take(), input.name.take()) {
            (Some(_), Some(_)) => {
                bail!("--flavor {flavor} takes the place of the positional FLAVOR: give only the cluster name")
            }
            (name, None) | (None, name) => {
                input.flavor = Some(flavor);
                input.name = name;
            }
        }
    } else if input.infrastructure.is_some() {
        // clusterctl's spelling: the one positional argument is the cluster name, and CAPZ's default
        // flavor (self-managed clusters) is not one of ours.
        bail!("--infrastructure azure needs a flavor: --flavor aks, aks-aso, ... (`kubectl capz params` lists them)");
    }
    if input.from.is_none() && input.control_plane_machine_count.is_some() {
        eprintln!(
            "warning: AKS has no control plane machines: --control-plane-machine-count is not used by the flavors"
        );
    }
    Ok(input)
}

/// The inputs of the parameter model from the flags and the process environment.
pub(crate) fn inputs_of(input: &RenderInputArgs) -> Inputs {
    Inputs {
        env: Inputs::process_env(),
        values_files: input.values.clone(),
        set: input.set.clone(),
        cluster_name: input.name.clone(),
        namespace: input.namespace.clone(),
        kubernetes_version: input.kubernetes_version.clone(),
        worker_machine_count: input.worker_machine_count,
        values_inline: Vec::new(),
    }
}

/// Renders a flavor from flags, env and values: every check runs before anything is printed.
/// Shared with `diff FLAVOR NAME`.
pub fn render_input(input: &RenderInputArgs) -> anyhow::Result<Vec<Document>> {
    let engine = Engine::new(input.flavor_dir.as_deref());
    let Some(flavor_name) = &input.flavor else {
        bail!("no flavor given; available flavors: {}", engine.source().flavor_names().join(", "));
    };
    let flavor = render::load_flavor(engine.source(), flavor_name)?;
    let class_flavor = match (&flavor.class, input.with_class) {
        (Some(class), true) => Some(render::load_flavor(engine.source(), class)?),
        (None, true) => bail!(
            "--with-class applies to topology flavors ({}); flavor {} has no ClusterClass",
            topology_flavors(&engine).join(", "),
            flavor.name
        ),
        (_, false) => None,
    };
    let layered = params::merge(&inputs_of(input))?;
    // The topology flavor's parameters cover its class's (the class takes only clusterClassName).
    let params = params::resolve(&layered, &flavor.name, &flavor.required, &flavor.unsupported)?;
    let capi = match input.capi_api {
        CapiApi::V1beta1 => CapiVersion::V1beta1,
        CapiApi::V1beta2 => CapiVersion::V1beta2,
    };
    let Some(class_flavor) = &class_flavor else {
        return Ok(render::render_flavor(&engine, &flavor, &params, capi)?);
    };
    // ClusterClass and templates first, then the Cluster, indexed as one bundle.
    let mut values: Vec<Value> =
        render::render_flavor(&engine, class_flavor, &params, capi)?.into_iter().map(|d| d.value).collect();
    values.extend(render::render_flavor(&engine, &flavor, &params, capi)?.into_iter().map(|d| d.value));
    let label: std::sync::Arc<str> = std::sync::Arc::from(format!("<rendered {} --with-class>", flavor.name));
    Ok(values.into_iter().enumerate().map(|(i, value)| Document::from_value(value, &label, i)).collect())
}

/// Flavors that have a ClusterClass (`class:` in flavor.yaml), for the `--with-class` error.
fn topology_flavors(engine: &Engine) -> Vec<String> {
    let source = engine.source();
    source
        .flavor_names()
        .into_iter()
        .filter(|name| render::load_flavor(source, name).is_ok_and(|f| f.class.is_some()))
        .collect()
}

/// Multi-document YAML, or a `v1` List as JSON.
pub(crate) fn format_documents(values: &[&Value], output: RenderOutput) -> String {
    match output {
        RenderOutput::Yaml => manifest::to_yaml_documents(values.iter().copied()),
        RenderOutput::Json => {
            let list = json!({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": values});
            let mut text = serde_json::to_string_pretty(&list).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// `NN-<kind>-<name>.<ext>`: NN is the 1-based position (2 digits, more when needed), kind lowercased.
pub(crate) fn file_name(index: usize, total: usize, value: &Value, ext: &str) -> String {
    let width = total.to_string().len().max(2);
    let kind = value.pointer("/kind").and_then(Value::as_str).unwrap_or("object").to_ascii_lowercase();
    let name = value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("unnamed");
    let safe = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect::<String>()
    };
    format!("{:0width$}-{}-{}.{ext}", index + 1, safe(&kind), safe(name))
}

fn is_our_file(name: &str) -> bool {
    let Some((number, rest)) = name.split_once('-') else { return false };
    !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit())
        && (rest.ends_with(".yaml") || rest.ends_with(".json"))
}

/// Writes one file per object into `dir`, atomically: the files go into a fresh directory beside
/// `dir`, which then replaces `dir`. An existing `dir` may only hold files of an earlier render.
pub(crate) fn write_out_dir(dir: &Path, values: &[&Value], output: RenderOutput) -> anyhow::Result<()> {
    let ext = match output {
        RenderOutput::Yaml => "yaml",
        RenderOutput::Json => "json",
    };
    let existing = match std::fs::read_dir(dir) {
        Ok(entries) => {
            let mut names = Vec::new();
            for entry in entries {
                let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if !entry.file_type().map(|t| t.is_file()).unwrap_or(false) || !is_our_file(&name) {
                    bail!(
                        "--out-dir {}: contains `{name}`, which is not a file an earlier render wrote; choose an empty or new directory",
                        dir.display()
                    );
                }
                names.push(name);
            }
            Some(names)
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(err).with_context(|| format!("cannot read --out-dir {}", dir.display())),
    };
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let base = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{base}.new-"))
        .tempdir_in(&parent)
        .with_context(|| format!("cannot create a staging directory in {}", parent.display()))?;
    for (i, value) in values.iter().enumerate() {
        let name = file_name(i, values.len(), value, ext);
        let text = format_documents(&[value], output);
        let text = match output {
            // One object per file, not a List.
            RenderOutput::Json => {
                let mut t = serde_json::to_string_pretty(value).unwrap_or_default();
                t.push('\n');
                t
            }
            RenderOutput::Yaml => text,
        };
        std::fs::write(staging.path().join(&name), text).with_context(|| format!("cannot write {name}"))?;
    }
    let staged = staging.keep();
    let result = (|| -> anyhow::Result<()> {
        match existing {
            None => {
                std::fs::rename(&staged, dir).with_context(|| format!("cannot move the output into {}", dir.display()))
            }
            Some(_) => {
                let old = tempfile::Builder::new()
                    .prefix(&format!(".{base}.old-"))
                    .tempdir_in(&parent)
                    .with_context(|| format!("cannot create a scratch directory in {}", parent.display()))?
                    .keep();
                std::fs::remove_dir(&old).ok();
                std::fs::rename(dir, &old).with_context(|| format!("cannot move the old {} aside", dir.display()))?;
                if let Err(err) = std::fs::rename(&staged, dir) {
                    let _ = std::fs::rename(&old, dir);
                    return Err(err).with_context(|| format!("cannot move the output into {}", dir.display()));
                }
                std::fs::remove_dir_all(&old).with_context(|| format!("cannot remove the old output {}", old.display()))
            }
        }
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staged);
    }
    result
}
