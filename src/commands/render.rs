//! `kubectl capz render`: flavors, ClusterClasses and topology Clusters from typed parameters.

use anyhow::bail;
use serde_json::Value;

use crate::cli::{CapiApi, RenderArgs, RenderInputArgs};
use crate::exit::ExitStatus;
use crate::manifest::Document;
use crate::params::{self, Inputs};
use crate::render::{self, CapiVersion, Engine};

use super::output::{format_documents, write_objects, write_stdout};
use super::target::{RunTarget, search_start};
use super::{render_fleet, render_from};
use crate::target_schemas::TargetSchemas;

pub(crate) fn run(mut args: RenderArgs) -> anyhow::Result<ExitStatus> {
    args.input = with_clusterctl_flags(&args.input)?;
    // The config file is looked for from the input file (--from, --fleet), else from the current directory.
    let input_file = args.fleet.as_ref().map(|f| f.display().to_string()).or_else(|| args.input.from.clone());
    let run_target = RunTarget::resolve(&args.target, &search_start(input_file.as_slice()))?;
    run_target.announce();
    if args.input.from.is_some() {
        return render_from::run(args, &run_target);
    }
    if args.fleet.is_some() {
        return render_fleet::run(args, &run_target);
    }
    if args.list_variables {
        bail!("--list-variables needs --from; list a flavor's parameters with `kubectl capz params FLAVOR`");
    }
    let documents = render_input(&args.input, TargetSchemas::builtin(run_target.target()))?;
    let values: Vec<&Value> = documents.iter().map(|d| &d.value).collect();
    match &args.out_dir {
        Some(dir) => write_objects(dir, &values, args.output)?,
        None => write_stdout(&format_documents(&values, args.output))?,
    }
    if args.validate {
        return super::validate::validate_rendered(&documents, &run_target);
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

/// Renders a flavor from flags, env and values: every check runs before anything is printed (patches as the
/// CAPZ of `schemas` applies them). Shared with `diff FLAVOR NAME`.
pub fn render_input(input: &RenderInputArgs, schemas: &TargetSchemas) -> anyhow::Result<Vec<Document>> {
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
    let documents = match &class_flavor {
        None => render::render_flavor(&engine, &flavor, &params, capi)?,
        Some(class_flavor) => with_class(&engine, class_flavor, &flavor, &params, capi)?,
    };
    check_patches(&engine, &flavor, &params, &layered, capi, &documents, schemas)?;
    Ok(documents)
}

/// The ClusterClass and templates first, then the Cluster, indexed as one bundle.
fn with_class(
    engine: &Engine,
    class_flavor: &render::Flavor,
    flavor: &render::Flavor,
    params: &params::Params,
    capi: CapiVersion,
) -> anyhow::Result<Vec<Document>> {
    let mut values: Vec<Value> =
        render::render_flavor(engine, class_flavor, params, capi)?.into_iter().map(|d| d.value).collect();
    values.extend(render::render_flavor(engine, flavor, params, capi)?.into_iter().map(|d| d.value));
    let label: std::sync::Arc<str> = std::sync::Arc::from(format!("<rendered {} --with-class>", flavor.name));
    Ok(values.into_iter().enumerate().map(|(i, value)| Document::from_value(value, &label, i)).collect())
}

/// `asoManagedClusterPatches` and the pools' patches checked as CAPZ applies them, on the classic objects: the
/// flavor's own, or for a topology flavor the objects CAPI's topology controller makes from its class (rendered
/// with the same parameters) and the Cluster.
fn check_patches(
    engine: &Engine,
    flavor: &render::Flavor,
    params: &params::Params,
    layered: &params::Layered,
    capi: CapiVersion,
    documents: &[Document],
    schemas: &TargetSchemas,
) -> anyhow::Result<()> {
    let Some(class) = &flavor.class else {
        return Ok(params::check_rendered_patches(params, layered, documents, schemas)?);
    };
    let has = |overlay: &params::Overlay, field: &str| overlay.get("spec").and_then(|s| s.get(field)).is_some();
    let any_patch = !params.aso_managed_cluster_patches.is_empty()
        || has(&params.control_plane, "asoManagedClusterPatches")
        || params.pools.iter().any(|pool| {
            !pool.aso_managed_clusters_agent_pool_patches.is_empty()
                || has(&pool.managed_machine_pool, "asoManagedClustersAgentPoolPatches")
        });
    if !any_patch {
        return Ok(());
    }
    let bundle = with_class(engine, &render::load_flavor(engine.source(), class)?, flavor, params, capi)?;
    // A Cluster the planner rejects is reported by `plan` / `validate`; its patches cannot be placed.
    let Ok(planned) = crate::topology::plan_all(&bundle) else { return Ok(()) };
    let label: std::sync::Arc<str> = std::sync::Arc::from(format!("<planned {}>", flavor.name));
    let objects: Vec<Document> = planned
        .into_iter()
        .flat_map(|p| p.objects)
        .enumerate()
        .map(|(i, value)| Document::from_value(value, &label, i))
        .collect();
    Ok(params::check_rendered_patches(params, layered, &objects, schemas)?)
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
