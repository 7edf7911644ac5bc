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
    let documents = manifest::read_paths(&args.filenames)?;
    let objects: Vec<serde_json::Value> = if args.from_cluster {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        runtime.block_on(plan_live(&args.cluster, &documents))?
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
    let mut registry = crate::schema::Registry::embedded();
    for dir in &args.crds {
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
    let report = super::validate::validate_documents(&bundle, &validator, &Default::default());
    let mut stderr = anstream::stderr().lock();
    stderr.write_all(super::validate::format_text(&report).as_bytes())?;
    stderr.write_all(super::validate::format_summary(&report.summary).as_bytes())?;
    Ok(report.exit_status())
}

/// Plans every topology Cluster of the inputs against the live cluster: the ClusterClass and
/// templates are read from it (unless given with -f), and objects the topology controller already
/// created keep their names, as the controller itself does.
async fn plan_live(
    cluster: &crate::cli::ClusterArgs,
    documents: &[Document],
) -> anyhow::Result<Vec<serde_json::Value>> {
    let client = client(cluster).await?;
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

/// A client for the kubeconfig and context kubectl would use (`--kubeconfig`, `KUBECONFIG`,
/// `~/.kube/config`; `--context`; `--request-timeout`).
async fn client(args: &crate::cli::ClusterArgs) -> anyhow::Result<kube::Client> {
    let options = kube::config::KubeConfigOptions { context: args.context.clone(), ..Default::default() };
    let mut config = match &args.kubeconfig {
        Some(path) => {
            let kubeconfig = kube::config::Kubeconfig::read_from(path)
                .with_context(|| format!("cannot read kubeconfig {}", path.display()))?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &options).await?
        }
        None => kube::Config::from_kubeconfig(&options).await.context("cannot load the kubeconfig")?,
    };
    if let Some(text) = &args.request_timeout {
        let timeout = parse_timeout(text).with_context(|| format!("invalid --request-timeout {text:?}"))?;
        config.connect_timeout = Some(timeout);
        config.read_timeout = Some(timeout);
        config.write_timeout = Some(timeout);
    }
    config.headers.push((http::header::USER_AGENT, http::HeaderValue::from_static(crate::cluster::USER_AGENT)));
    Ok(kube::Client::try_from(config)?)
}

/// kubectl's `--request-timeout`: a number of seconds or a duration with unit (ms, s, m, h).
fn parse_timeout(text: &str) -> anyhow::Result<std::time::Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: f64 = number.parse()?;
    let seconds = match unit {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        other => anyhow::bail!("unknown unit {other:?}"),
    };
    Ok(std::time::Duration::from_secs_f64(seconds))
}
