//! `kubectl capz diff`: what applying manifests (or a rendered flavor) would change in a live
//! cluster, from a server-side-apply dry run, ASO-aware. Never writes to the cluster.

use std::io::Write;
use std::process::Command;

use anyhow::{Context, anyhow, bail};
use serde_json::Value;

use crate::cli::{DiffArgs, DiffOutput};
use crate::cluster::{Cluster, ClusterError, ClusterOptions};
use crate::diff::{self, DiffOptions, LiveReader, ObjectDiff, ObjectRef, Status};
use crate::escape;
use crate::exit::ExitStatus;
use crate::json_pointer::At;
use crate::manifest::{self, Document};
use crate::render::from_template;
use crate::schema::{Gvk, Registry};
use crate::source::Budget;
use crate::target_schemas::TargetSchemas;
use crate::versions::Target;

use super::target::{RunTarget, search_start};
use crate::config::RepoConfig;

/// CAPZ's field manager for the ASO objects it applies (`--aso-live` predicts its apply).
const CAPZ_FIELD_MANAGER: &str = "capz-manager";

/// The topology controller's field manager: objects planned from a topology Cluster are diffed
/// as its (forced) apply, which is what the controller does.
const TOPOLOGY_FIELD_MANAGER: &str = "capi-topology";

/// Source label of documents planned from a topology Cluster.
const PLANNED_PREFIX: &str = "<planned from ";

pub(crate) fn run(args: DiffArgs) -> anyhow::Result<ExitStatus> {
    if let Some(base) = args.base.as_deref() {
        return super::diff_base::run(&args, base);
    }
    if args.output == DiffOutput::Markdown {
        bail!("-o markdown is the change review's pull-request comment: use it with --base");
    }
    let options = super::cluster_options(&args.cluster)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // The config file is looked for from the first -f path or --from file, else from the current directory.
    let input_files =
        if args.filenames.is_empty() { args.input.from.iter().cloned().collect() } else { args.filenames.clone() };
    let mut run_target = RunTarget::resolve(&args.target, &search_start(&input_files))?;
    // A rendered flavor's patches are checked with the pinned (or default) target: the inputs are read before the
    // cluster is asked which CAPZ it runs, so that input errors come first.
    let documents = inputs(&args, &runtime, &options, run_target.target(), run_target.config.as_ref())?;
    for doc in &documents {
        check_document(doc)?;
    }
    let diff_options = DiffOptions { include_capz_managed: args.include_capz_managed, show_secrets: args.show_secrets };
    let (fetched, removed) = runtime.block_on(fetch_all(&documents, &args, &options, &mut run_target))?;
    let diffs = compare(fetched, &diff_options, run_target.target());
    let differs = !removed.is_empty() || diffs.iter().any(|d| d.status != Status::Unchanged);
    if !removed.is_empty() {
        let mut stderr = anstream::stderr().lock();
        for note in &removed {
            writeln!(stderr, "{}", escape::lines(note))?;
        }
    }

    if args.output == DiffOutput::Json {
        let mut stdout = super::output::stdout();
        crate::escape::json::to_writer_pretty(&mut stdout, &diff::json_report(&diffs))?;
        writeln!(stdout)?;
    } else if args.output == DiffOutput::Yaml {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(manifest::to_yaml(&diff::json_report(&diffs)).as_bytes())?;
    } else if let Some(external) = std::env::var("KUBECTL_EXTERNAL_DIFF").ok().filter(|v| !v.trim().is_empty()) {
        return run_external(&external, &diffs);
    } else {
        let mut stdout = super::output::QuietPipe::new(anstream::stdout().lock());
        for d in &diffs {
            stdout.write_all(diff::unified(d, true).as_bytes())?;
        }
        stdout.flush()?;
    }
    Ok(if differs { ExitStatus::Findings } else { ExitStatus::Success })
}

/// The desired objects: `-f` files, a rendered flavor or a rendered clusterctl template.
fn inputs(
    args: &DiffArgs,
    runtime: &tokio::runtime::Runtime,
    options: &ClusterOptions,
    target: &'static Target,
    config: Option<&RepoConfig>,
) -> anyhow::Result<Vec<Document>> {
    let input = super::render::with_clusterctl_flags(&args.input)?;
    let rendering = input.flavor.is_some() || input.from.is_some();
    match (args.filenames.is_empty(), rendering) {
        (false, true) => bail!("give either -f FILE|DIR|-, FLAVOR NAME or --from TEMPLATE, not both"),
        (true, false) => bail!("nothing to diff: give -f FILE|DIR|-, FLAVOR NAME or --from TEMPLATE"),
        (false, false) => repository_documents(args, config),
        (true, true) if input.from.is_some() => {
            // Without -n the target namespace is the kubeconfig context's, as clusterctl asks the
            // management cluster's kubeconfig (reading it sends no request).
            let request = super::render_from::template_request(&input, || {
                Ok(runtime.block_on(Cluster::connect(options))?.default_namespace().to_string())
            })?;
            Ok(from_template::render_template(&request)?.documents()?)
        }
        (true, true) => super::render::render_input(&input, TargetSchemas::builtin(target)),
    }
}

/// The objects of `-f`: files as they are, directories as repositories (what Flux, kustomize and Helm would apply)
/// unless `--no-build`. Sources that could not be built are named on stderr; a Flux substitution that fails stops
/// the diff (the controller would apply nothing of it).
fn repository_documents(args: &DiffArgs, config: Option<&RepoConfig>) -> anyhow::Result<Vec<Document>> {
    let (paths, repositories) = crate::validate::read_sources(
        &args.filenames,
        args.no_build,
        &args.exclude,
        config,
        false,
        args.helm_cache.as_deref(),
        &Budget::default(),
    )?;
    let mut documents = manifest::read_paths(&paths)?;
    let mut stderr = anstream::stderr().lock();
    for repository in &repositories {
        for note in &repository.notes {
            // The notes quote the repository (file names, tools' messages): one line each, escaped.
            let (source, message) = (escape::one_line(&note.source), escape::one_line(&note.message));
            if note.severity == crate::report::Severity::Error {
                bail!("{source}:{}: {message}", note.line);
            }
            if note.severity == crate::report::Severity::Warning {
                writeln!(stderr, "warning: {source}:{}: {message}", note.line)?;
            }
        }
        documents.extend(repository.applied_documents());
    }
    Ok(documents)
}

fn check_document(doc: &Document) -> anyhow::Result<()> {
    let missing = |what: &str| anyhow!("{}: {} has no {what}", doc.origin, doc.display_name());
    if doc.api_version().is_empty() {
        return Err(missing("apiVersion"));
    }
    if doc.kind().is_empty() {
        return Err(missing("kind"));
    }
    if doc.name().is_empty() {
        return Err(missing("metadata.name (generateName cannot be diffed)"));
    }
    Ok(())
}

/// One object as fetched: the live object (if any) and the dry-run result.
struct Fetched {
    object: ObjectRef,
    aso_owner: Option<String>,
    /// The field manager of the dry run (other managers of changed fields are named).
    field_manager: String,
    live: Option<Value>,
    merged: Value,
}

/// Fetches every object (topology Clusters expanded first); also returns the notes about objects
/// the topology controller would delete.
async fn fetch_all(
    documents: &[Document],
    args: &DiffArgs,
    options: &ClusterOptions,
    run_target: &mut RunTarget,
) -> anyhow::Result<(Vec<Fetched>, Vec<String>)> {
    let cluster = Cluster::connect(options).await?;
    let (documents, removed) = expand_topologies(&cluster, documents, args).await?;
    let reader = LiveReader::new(&cluster, &documents, args.aso_live);
    let tasks = documents.iter().map(|doc| fetch_document(&reader, doc, args));
    let results = futures::future::join_all(tasks).await;
    let mut fetched = Vec::new();
    for result in results {
        fetched.extend(result?);
    }
    // Asked once the cluster answered the reads: a cluster error is reported alone, not after a note.
    run_target.detect(&cluster).await;
    run_target.announce();
    Ok((fetched, removed))
}

/// Compares what was fetched; list items are matched by the list-map keys of the embedded
/// schemas where a kind has one.
fn compare(fetched: Vec<Fetched>, diff_options: &DiffOptions, target: &'static Target) -> Vec<ObjectDiff> {
    let registry = Registry::for_target(target);
    fetched
        .into_iter()
        .map(|f| {
            let (group, version) = manifest::split_api_version(&f.object.api_version);
            let schema = registry.get(&Gvk::new(group, version, &f.object.kind)).ok().flatten();
            let managed_fields = f.live.as_ref().and_then(|l| l.pointer("/metadata/managedFields")).cloned();
            let mut d = diff::diff_object(
                f.object,
                f.aso_owner,
                f.live,
                f.merged,
                schema.as_ref().map(|s| &s.schema),
                diff_options,
            );
            if let Some(managed_fields) = managed_fields {
                diff::name_other_managers(&mut d, &managed_fields, &f.field_manager);
            }
            d
        })
        .collect()
}

/// Replaces each topology Cluster by the objects the topology controller makes from it, planned
/// against the live cluster (ClusterClass from the inputs or the server, names of existing
/// objects reused). Also returns a note for every live object of a pool or deployment that the
/// topology no longer has (the controller deletes those).
async fn expand_topologies(
    cluster: &Cluster,
    documents: &[Document],
    args: &DiffArgs,
) -> anyhow::Result<(Vec<Document>, Vec<String>)> {
    if !documents.iter().any(crate::topology::plan::is_topology_cluster) {
        return Ok((documents.to_vec(), Vec::new()));
    }
    let mut out = Vec::new();
    let mut removed = Vec::new();
    for doc in documents {
        if !crate::topology::plan::is_topology_cluster(doc) {
            out.push(doc.clone());
            continue;
        }
        let mut cluster_doc = doc.clone();
        if doc.namespace().is_none() {
            let ns = args.input.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
            cluster_doc.value["metadata"]["namespace"] = Value::from(ns);
        }
        let live = crate::topology::live::plan_against_live(cluster, &cluster_doc, documents)
            .await
            .with_context(|| format!("{}: cannot plan topology Cluster {}", doc.origin, doc.name()))?;
        let source: std::sync::Arc<str> = std::sync::Arc::from(format!("{PLANNED_PREFIX}{}>", doc.origin));
        out.extend(live.planned.into_iter().enumerate().map(|(i, v)| Document::from_value(v, &source, i)));
        for object in &live.removed {
            let text = |p: &str| object.str_at(p).unwrap_or("").to_string();
            removed.push(format!(
                "{}: {}/{} in namespace {} belongs to a pool or deployment no longer in the topology; the topology controller deletes it",
                doc.origin,
                text("/kind"),
                text("/metadata/name"),
                text("/metadata/namespace"),
            ));
        }
    }
    Ok((out, removed))
}

async fn fetch_document(reader: &LiveReader<'_>, doc: &Document, args: &DiffArgs) -> anyhow::Result<Vec<Fetched>> {
    let cluster = reader.cluster;
    let place = || format!("{} {}", doc.origin, doc.display_name());
    let resource = cluster.resource(doc.api_version(), doc.kind()).await.map_err(|e| locate(e, &place()))?;
    let namespace = if resource.namespaced {
        let flag = args.input.namespace.as_deref();
        match (doc.namespace(), flag) {
            (Some(own), Some(flag)) if own != flag => {
                bail!("{}: the namespace of the object (`{own}`) does not match --namespace `{flag}`", place())
            }
            (Some(own), _) => Some(own.to_string()),
            (None, Some(flag)) => Some(flag.to_string()),
            (None, None) => Some(cluster.default_namespace().to_string()),
        }
    } else {
        None
    };
    let mut body = doc.value.clone();
    if let Some(meta) = body.get_mut("metadata").and_then(Value::as_object_mut) {
        match &namespace {
            Some(ns) => {
                meta.insert("namespace".into(), Value::from(ns.as_str()));
            }
            None => {
                meta.remove("namespace");
            }
        }
    }
    let ns = namespace.as_deref();
    // Forced by default, as Flux's diff: a dry run takes nothing over, and an object another
    // manager applied (Flux, `kubectl apply --server-side`, a patch) must not fail the diff.
    // --no-force-conflicts gives `kubectl diff --server-side`'s conflict errors.
    let (field_manager, force) = if doc.origin.source.starts_with(PLANNED_PREFIX) {
        (TOPOLOGY_FIELD_MANAGER, true)
    } else {
        (args.field_manager.as_str(), !args.no_force_conflicts)
    };
    let (live, merged) = futures::try_join!(
        reader.get(&resource, ns, doc.name()),
        cluster.dry_run_apply(&resource, ns, doc.name(), &body, field_manager, force),
    )
    .map_err(|e| locate(e, &place()))?;
    let object = ObjectRef {
        api_version: doc.api_version().to_string(),
        kind: resource.kind.clone(),
        namespace: namespace.clone(),
        name: doc.name().to_string(),
    };
    let mut out = vec![Fetched { object, aso_owner: None, field_manager: field_manager.to_string(), live, merged }];

    if args.aso_live && diff::is_aso_wrapper(&doc.value) {
        let owner_ns = namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
        let owner = format!("{} {owner_ns}/{}", doc.kind(), doc.name());
        let embedded = doc.value.array_at("/spec/resources").cloned().unwrap_or_default();
        let tasks = embedded.iter().enumerate().map(|(i, item)| {
            let owner = owner.clone();
            let owner_ns = owner_ns.clone();
            async move {
                let api_version = item.get("apiVersion").and_then(Value::as_str).unwrap_or("");
                let kind = item.get("kind").and_then(Value::as_str).unwrap_or("");
                let name = item.str_at("/metadata/name").unwrap_or("");
                let at = || {
                    format!(
                        "{}: spec.resources[{i}] ({kind}/{name}) of {owner}",
                        doc.location_of(&format!("/spec/resources/{i}"))
                    )
                };
                if api_version.is_empty() || kind.is_empty() || name.is_empty() {
                    bail!("{}: needs apiVersion, kind and metadata.name", at());
                }
                let resource = cluster.resource(api_version, kind).await.map_err(|e| locate(e, &at()))?;
                let ns = resource.namespaced.then_some(owner_ns.as_str());
                let live = reader.get(&resource, ns, name).await.map_err(|e| locate(e, &at()))?;
                let body = diff::aso_apply_body(item, &owner_ns, live.as_ref());
                let merged = cluster
                    .dry_run_apply(&resource, ns, name, &body, CAPZ_FIELD_MANAGER, true)
                    .await
                    .map_err(|e| locate(e, &at()))?;
                let object = ObjectRef {
                    api_version: api_version.to_string(),
                    kind: resource.kind.clone(),
                    namespace: ns.map(str::to_string),
                    name: name.to_string(),
                };
                Ok(Fetched {
                    object,
                    aso_owner: Some(owner),
                    field_manager: CAPZ_FIELD_MANAGER.to_string(),
                    live,
                    merged,
                })
            }
        });
        for result in futures::future::join_all(tasks).await {
            out.push(result?);
        }
    }
    Ok(out)
}

/// Errors about the connection stand alone (they are the same for every object); errors about
/// one object start with its file:line and Kind/name.
fn locate(err: ClusterError, place: &str) -> anyhow::Error {
    match err {
        ClusterError::Unreachable { .. }
        | ClusterError::Timeout { .. }
        | ClusterError::Unauthorized { .. }
        | ClusterError::BadKubeconfig { .. } => anyhow::Error::new(err),
        other => anyhow!("{place}: {other}"),
    }
}

/// Runs `KUBECTL_EXTERNAL_DIFF` on LIVE-*/MERGED-* directories like kubectl; its exit code
/// 0 or 1 is ours, anything else is an error.
fn run_external(value: &str, diffs: &[ObjectDiff]) -> anyhow::Result<ExitStatus> {
    let (program, program_args) =
        diff::external_command(value).ok_or_else(|| anyhow!("KUBECTL_EXTERNAL_DIFF is empty"))?;
    let live = tempfile::Builder::new().prefix("LIVE-").tempdir().context("cannot create the LIVE directory")?;
    let merged = tempfile::Builder::new().prefix("MERGED-").tempdir().context("cannot create the MERGED directory")?;
    diff::write_external(diffs, live.path(), merged.path()).context("cannot write the objects to diff")?;
    let status = Command::new(&program)
        .args(&program_args)
        .arg(live.path())
        .arg(merged.path())
        .status()
        .with_context(|| format!("cannot run KUBECTL_EXTERNAL_DIFF program `{program}`"))?;
    match status.code() {
        Some(0) => Ok(ExitStatus::Success),
        Some(1) => Ok(ExitStatus::Findings),
        Some(code) => bail!("KUBECTL_EXTERNAL_DIFF program `{program}` failed with exit code {code}"),
        None => bail!("KUBECTL_EXTERNAL_DIFF program `{program}` was killed by a signal"),
    }
}
