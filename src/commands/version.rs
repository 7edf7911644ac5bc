//! `kubectl capz version`: the plugin version and the targets it supports (CAPZ release with the CAPI and ASO
//! releases it pins, the Cluster API Operator release, and where their schemas came from).

use std::fmt::Write;

use crate::exit::ExitStatus;
use crate::schema::Registry;
use crate::versions::{ASO_EXTRA_KINDS, PLUGIN, TARGETS, default_target};

pub(crate) fn run() -> anyhow::Result<ExitStatus> {
    // Written once: the process's stdout flushes each line, one system call per line (39 of them).
    let mut out = String::new();
    writeln!(out, "kubectl-capz v{PLUGIN}")?;
    writeln!(out, "Targets (management clusters it checks against; the default is marked *):")?;
    for target in TARGETS {
        let mark = if target.name == default_target().name { "*" } else { " " };
        writeln!(out, "{mark} {}", target.labelled_name())?;
        match (target.provisional, target.capz_revision) {
            (Some(reason), _) => {
                writeln!(out, "    Cluster API Provider Azure {} (provisional: {reason})", target.capz)?;
            }
            (None, Some(revision)) => {
                writeln!(out, "    Cluster API Provider Azure {} (revision {revision})", target.capz)?;
            }
            (None, None) => writeln!(out, "    Cluster API Provider Azure {}", target.capz)?,
        }
        // A provisional release's pins are those of CAPZ's main branch.
        let pinned_by = if target.provisional.is_some() { "CAPZ main's go.mod" } else { "CAPZ's go.mod" };
        writeln!(out, "    Cluster API {} (pinned by {pinned_by})", target.capi)?;
        writeln!(out, "    Azure Service Operator {} (pinned by {pinned_by})", target.aso)?;
        writeln!(out, "    Cluster API Operator {} (its provider kinds)", target.capi_operator)?;
        writeln!(out, "    schemas: {}", target.schema_sets.join(", "))?;
        writeln!(
            out,
            "      CAPZ, CAPI and the Cluster API Operator: config/crd/bases of \
             sigs.k8s.io/cluster-api-provider-azure@{}, sigs.k8s.io/cluster-api@{} and \
             sigs.k8s.io/cluster-api-operator@{} (Go module proxy)",
            target.capz_source, target.capi, target.capi_operator
        )?;
        match target.aso_note {
            Some(note) => writeln!(out, "      ASO: {note}")?,
            None => writeln!(
                out,
                "      ASO: generated with controller-gen from the Go types of \
                 github.com/Azure/azure-service-operator/v2@{}",
                target.aso
            )?,
        }
        writeln!(
            out,
            "      ASO kinds CAPZ installs (--crd-pattern): {}",
            target
                .aso_crd_pattern
                .iter()
                .map(|e| e.split_once('/').map_or(*e, |(_, k)| k))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        writeln!(
            out,
            "      ASO kinds also bundled, checked once ADDITIONAL_ASO_CRDS adds them: {}",
            ASO_EXTRA_KINDS.iter().map(|e| e.split_once('/').map_or(*e, |(_, k)| k)).collect::<Vec<_>>().join(", ")
        )?;
    }
    let kubernetes = Registry::kubernetes_versions();
    writeln!(
        out,
        "Kubernetes built-in kinds (any target; the default is the newest): {}",
        kubernetes
            .iter()
            .enumerate()
            .map(|(i, v)| if i == 0 { format!("{v}*") } else { v.to_string() })
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    writeln!(
        out,
        "  from the OpenAPI v3 spec of k8s.io/kubernetes (api/openapi-spec/v3, Go module proxy); Flux and Argo CD \
         (schemas: gitops) from their Go modules (tools/schema-inputs/README.md)"
    )?;
    let aks = crate::aks_versions::Lifecycle::bundled();
    let (oldest, newest) = aks.range();
    writeln!(
        out,
        "AKS versions (the aks-version-* rules): {oldest} to {newest}, release calendar as of {} ({}, commit {})",
        aks.as_of,
        aks.source,
        &aks.commit[..aks.commit.len().min(12)]
    )?;
    writeln!(out, "Sources: upstream-crds/SOURCES.md and schemas/README.md in the repository.")?;
    super::output::write_stdout(&out)?;
    super::run_date::warn_if_stale(super::run_date::run_date(None)?);
    Ok(ExitStatus::Success)
}
