//! `kubectl capz plan`: the objects a ClusterClass topology produces for each topology Cluster,
//! as YAML on stdout; CAPZ rule findings on the planned objects go to stderr.

use anyhow::Context as _;

use crate::cli::PlanArgs;
use crate::exit::ExitStatus;
use crate::manifest::{self, Document};
use crate::report::Severity;

pub(crate) fn run(args: PlanArgs) -> anyhow::Result<ExitStatus> {
    if args.filenames.is_empty() {
        anyhow::bail!("no input: give the topology Cluster (and, without --from-cluster, its ClusterClass and templates) with -f");
    }
    let documents = manifest::read_paths(&args.filenames)?;
    if args.from_cluster {
        anyhow::bail!("--from-cluster is not available yet: pass the ClusterClass and its templates with -f");
    }
    let planned = crate::topology::plan_all(&documents).context("cannot plan the topology")?;
    let objects: Vec<serde_json::Value> = planned.iter().flat_map(|p| p.objects.iter().cloned()).collect();
    let source: std::sync::Arc<str> = std::sync::Arc::from("<planned>");
    let planned_docs: Vec<Document> =
        objects.iter().enumerate().map(|(i, v)| Document::from_value(v.clone(), &source, i)).collect();

    let mut out = std::io::stdout().lock();
    std::io::Write::write_all(&mut out, manifest::to_yaml_documents(objects.iter()).as_bytes())?;
    std::io::Write::flush(&mut out)?;

    if args.no_validate {
        return Ok(ExitStatus::Success);
    }
    let selection = crate::lint::RuleSelection::new(&[], &[])?;
    let findings = crate::lint::check(&planned_docs, &selection);
    let mut stderr = anstream::stderr().lock();
    let mut errors = 0;
    for f in &findings {
        if f.severity == Severity::Error {
            errors += 1;
        }
        let _ = writeln!(stderr, "{}: {:?} [{}] {}: {}", f.object, f.severity, f.rule, f.path, f.message);
    }
    Ok(if errors > 0 { ExitStatus::Findings } else { ExitStatus::Success })
}

use std::io::Write as _;
