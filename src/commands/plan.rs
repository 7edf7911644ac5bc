//! `kubectl capz plan`: the objects a ClusterClass topology produces for each topology Cluster,
//! as YAML on stdout; findings of the validate engine (schemas, CEL, CAPZ rules) on the planned
//! objects go to stderr and set the exit code.

use std::io::Write as _;

use anyhow::Context as _;

use crate::cli::PlanArgs;
use crate::exit::ExitStatus;
use crate::manifest::{self, Document};

pub(crate) fn run(args: PlanArgs) -> anyhow::Result<ExitStatus> {
    if args.filenames.is_empty() {
        anyhow::bail!(
            "no input: give the topology Cluster (and, without --from-cluster, its ClusterClass and templates) with -f"
        );
    }
    let run_target = super::target::RunTarget::resolve(&args.target, &super::target::search_start(&args.filenames))?;
    run_target.announce();
    let documents = manifest::read_paths(&args.filenames)?;
    let objects: Vec<serde_json::Value> = if args.from_cluster {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let options = super::cluster_options(&args.cluster)?;
        runtime.block_on(plan_live(&options, &documents))?
    } else {
        let planned = crate::topology::plan_all(&documents).context("cannot plan the topology")?;
        planned.into_iter().flat_map(|p| p.objects).collect()
    };
    let values: Vec<&serde_json::Value> = objects.iter().collect();
    let printed = super::output::format_documents(&values, args.output);
    let mut out = super::output::stdout();
    std::io::Write::write_all(&mut out, printed.as_bytes())?;
    std::io::Write::flush(&mut out)?;
    drop(out);

    if args.no_validate {
        return Ok(ExitStatus::Success);
    }
    // The validate engine: built-in schemas (incl. embedded ASO objects, CEL) and the CAPZ rules.
    let filter = super::validate::rule_filter(&run_target, &[], &[])?;
    let mut registry = run_target.registry()?;
    for dir in run_target.config_crd_dirs()?.iter().chain(&args.crds) {
        registry.add_crd_dir(dir).with_context(|| format!("cannot load CRDs from `{}`", dir.display()))?;
    }
    // Findings name lines of the plan as printed (YAML); with -o json, of the same plan printed as YAML.
    let (yaml, label) = match args.output {
        crate::cli::RenderOutput::Yaml => (printed, "<plan output>"),
        crate::cli::RenderOutput::Json => {
            (super::output::format_documents(&values, crate::cli::RenderOutput::Yaml), "<plan output as YAML>")
        }
    };
    let planned_docs: Vec<Document> =
        manifest::parse_documents(&yaml, label).context("cannot re-read the planned objects (a bug)")?;
    let options = crate::schema::ValidateOptions {
        ignore_missing_schemas: !args.require_schemas,
        require_schemas: args.require_schemas,
    };
    // The other inputs (a credential Secret, an AzureClusterIdentity) go along, so cross-object
    // rules see them; the class, its templates and the topology Clusters are what was planned.
    let mut bundle = planned_docs;
    bundle.extend(
        documents
            .iter()
            .filter(|d| {
                !crate::topology::plan::is_topology_cluster(d)
                    && d.kind() != "ClusterClass"
                    && !d.kind().ends_with("Template")
            })
            .cloned(),
    );
    let validator = crate::schema::Validator::new(&registry, options);
    let report = crate::validate::validate_documents(&bundle, &validator, &filter);
    let mut stderr = anstream::stderr().lock();
    stderr.write_all(crate::validate::format_text(&report).as_bytes())?;
    stderr.write_all(crate::validate::format_summary(&report.summary).as_bytes())?;
    Ok(report.exit_status())
}

/// Plans every topology Cluster of the inputs against the live cluster: the ClusterClass and
/// templates are read from it (unless given with -f), and objects the topology controller already
/// created keep their names, as the controller itself does.
async fn plan_live(
    options: &crate::cluster::ClusterOptions,
    documents: &[Document],
) -> anyhow::Result<Vec<serde_json::Value>> {
    let client = crate::cluster::Cluster::connect(options).await?;
    let clusters: Vec<&Document> = documents.iter().filter(|d| crate::topology::plan::is_topology_cluster(d)).collect();
    if clusters.is_empty() {
        return Err(crate::topology::TopologyError::NoTopologyCluster).context("cannot plan the topology");
    }
    let mut objects = Vec::new();
    for doc in clusters {
        let (ns, name) = crate::topology::plan::class_ref(&doc.value);
        let live = crate::topology::live::plan_against_live(&client, doc, documents).await.with_context(|| {
            format!("{}: cannot plan Cluster {} (ClusterClass {ns}/{name}) against the cluster", doc.origin, doc.name())
        })?;
        objects.extend(live.planned);
    }
    Ok(objects)
}
