//! The ManagedCluster and ManagedClustersAgentPools CAPZ creates with the patches applied, checked as ASO objects
//! embedded in AzureASOManaged*.spec.resources are: ASO's schema of their apiVersion (or "not checked" when
//! schemas/ lacks that version), then every lint rule on the AzureASOManaged* bundle of the cluster (`migrate`'s),
//! with and without the patches; what only the patched bundle fails is reported at the patch that caused it.

use std::sync::Arc;

use serde_json::Value;

use crate::manifest::{Document, parse_plain_value, split_api_version};
use crate::migrate::{ClassicCluster, MigrateOptions, Translation, to_aso_bundle, without_patches};
use crate::report::Finding;
use crate::schema::{Gvk, Validator};

use super::super::{RuleSelection, Sink, Work, rule_info};
use super::{Locator, PATCH_RULES, PATCH_SCHEMA, PATCH_UNCHECKED, touched};
use crate::json_pointer::At;

const CP_FIELD: &str = "asoManagedClusterPatches";
const POOL_FIELD: &str = "asoManagedClustersAgentPoolPatches";

/// One object with patches: the classic document holding them, their field, and the object CAPZ creates.
struct Target<'a> {
    holder: &'a Document,
    field: &'static str,
    patches: Vec<String>,
    object: &'a Value,
    /// What CAPZ creates without any patch of the cluster.
    unpatched: Option<&'a Value>,
}

impl Target<'_> {
    fn pointer(&self, index: usize) -> String {
        format!("/spec/{}/{index}", self.field)
    }
}

fn patch_texts(holder: &Document, field: &str) -> Vec<String> {
    holder
        .value
        .array_at(&format!("/spec/{field}"))
        .map(|list| list.iter().map(|p| p.as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default()
}

fn targets<'a>(
    cluster: &'a ClassicCluster<'a>,
    translation: &'a Translation,
    unpatched: Option<&'a Translation>,
) -> Vec<Target<'a>> {
    let mut out = Vec::new();
    let patches = patch_texts(&cluster.control_plane, CP_FIELD);
    if !patches.is_empty() {
        out.push(Target {
            holder: &cluster.control_plane,
            field: CP_FIELD,
            patches,
            object: &translation.managed_cluster,
            unpatched: unpatched.map(|t| &t.managed_cluster),
        });
    }
    for (index, ((_, pool), object)) in cluster.pools.iter().zip(&translation.agent_pools).enumerate() {
        let patches = patch_texts(pool, POOL_FIELD);
        if !patches.is_empty() {
            let unpatched = unpatched.and_then(|t| t.agent_pools.get(index));
            out.push(Target { holder: pool, field: POOL_FIELD, patches, object, unpatched });
        }
    }
    out
}

/// `translation` is what CAPZ creates for `cluster`, `unpatched` what it creates without the cluster's patches.
pub(super) fn check(
    locator: &Locator<'_>,
    cluster: &ClassicCluster<'_>,
    translation: &Translation,
    unpatched: Option<&Translation>,
    sink: &mut Sink<'_>,
) {
    let targets = targets(cluster, translation, unpatched);
    if targets.is_empty() {
        return;
    }
    check_schemas(locator, &targets, sink);
    check_embedded_rules(locator, cluster, &targets, sink);
}

/// The schema errors of `object` as `(path, message)`.
pub(super) fn schema_errors(validator: &Validator<'_>, object: &Value) -> Vec<(String, String)> {
    validator.errors_of(object)
}

/// ASO's schema of the patched object's apiVersion; an error the object without patches does not have is reported
/// at the last patch of the object.
fn check_schemas(locator: &Locator<'_>, targets: &[Target<'_>], sink: &mut Sink<'_>) {
    let schemas = sink.selection.schemas();
    let validator = schemas.aso_validator();
    for target in targets {
        let Some((doc, pointer)) = locator.locate(&target.holder.origin, &target.pointer(target.patches.len() - 1))
        else {
            continue;
        };
        let patched = Document::from_value(target.object.clone(), &target.holder.origin.source, 0);
        let api_version = patched.api_version().to_string();
        let kind = patched.kind().to_string();
        let (group, version) = split_api_version(&api_version);
        if !matches!(schemas.registry().get(&Gvk::new(group, version, &kind)), Ok(Some(_))) {
            let served = schemas.registry().versions_of(group, &kind);
            if !served.is_empty() {
                // A version the target does not serve: ASO's API server rejects the object CAPZ creates.
                let by = schemas.target().served_by(group).map(|by| format!(" by {by}")).unwrap_or_default();
                sink.emit(
                    PATCH_SCHEMA,
                    doc,
                    &pointer,
                    format!(
                        "with the patches applied, the {kind} CAPZ creates is {api_version}, which is not served{by}; \
                         served: {}",
                        served.join(", ")
                    ),
                );
                continue;
            }
            let why = if version.contains("preview") {
                " (CAPZ uses this preview version because enablePreviewFeatures is true)"
            } else {
                ""
            };
            sink.emit(
                PATCH_UNCHECKED,
                doc,
                &pointer,
                format!(
                    "not checked: no ASO schema for {api_version} {kind}{why}; the {kind} CAPZ creates with the patches \
                     applied is neither validated against ASO's schema nor known to be valid"
                ),
            );
            continue;
        }
        let before = target.unpatched.map(|u| schema_errors(validator, u)).unwrap_or_default();
        for (path, message) in schema_errors(validator, target.object) {
            if before.contains(&(path.clone(), message.clone())) {
                continue;
            }
            sink.emit(
                PATCH_SCHEMA,
                doc,
                &pointer,
                format!(
                    "with the patches applied, the {kind} CAPZ creates fails ASO's schema ({api_version}) at {path}: \
                     {message}"
                ),
            );
        }
    }
}

/// The lint findings of the AzureASOManaged* bundle of `cluster`; each finding's `source` is its object's index.
fn bundle_findings(cluster: &ClassicCluster<'_>, selection: &RuleSelection, work: &Work) -> Option<Vec<Finding>> {
    let options = MigrateOptions { schemas: selection.schemas(), ..MigrateOptions::default() };
    // `to_aso_bundle` translates the cluster first, once.
    work.count_translation();
    let bundle = to_aso_bundle(cluster, &options).ok()?;
    let documents: Vec<Document> = bundle
        .objects
        .into_iter()
        .enumerate()
        .map(|(i, value)| Document::from_value(value, &Arc::from(i.to_string()), i))
        .collect();
    Some(super::super::check_counting(&documents, selection, work))
}

/// The target a finding on object `index` of the bundle (Cluster, AzureASOManagedCluster, control plane, then a
/// MachinePool and its AzureASOManagedMachinePool per pool) belongs to: the object's own patches, else the only
/// object of the cluster with patches.
fn target_of<'t, 'a>(index: usize, cluster: &ClassicCluster<'_>, targets: &'t [Target<'a>]) -> Option<&'t Target<'a>> {
    let own: Option<&Document> = match index {
        0..=2 => Some(&cluster.control_plane),
        _ => cluster.pools.get((index - 3) / 2).map(|(_, pool)| &**pool),
    };
    own.and_then(|holder| targets.iter().find(|t| std::ptr::eq(t.holder, holder))).or(if let [only] = targets {
        Some(only)
    } else {
        None
    })
}

/// The last patch that touches `inner` (a pointer in the patched object), or one of its parents or children;
/// else the last patch.
fn culprit(target: &Target<'_>, inner: Option<&str>) -> usize {
    let last = target.patches.len() - 1;
    let Some(inner) = inner else { return last };
    let related =
        |path: &str| path == inner || inner.starts_with(&format!("{path}/")) || path.starts_with(&format!("{inner}/"));
    (0..target.patches.len())
        .rev()
        .find(|&i| {
            let Ok(patch) = parse_plain_value(&target.patches[i], "the patch") else { return false };
            let mut paths = Vec::new();
            touched(&patch, "", &mut paths);
            paths.iter().any(|p| related(p))
        })
        .unwrap_or(last)
}

/// The rules of ASO objects embedded in AzureASOManaged*.spec.resources (and every other rule of the bundle),
/// on the bundle with and without the patches.
fn check_embedded_rules(
    locator: &Locator<'_>,
    cluster: &ClassicCluster<'_>,
    targets: &[Target<'_>],
    sink: &mut Sink<'_>,
) {
    let selection = RuleSelection {
        enabled: sink.selection.enabled.iter().copied().filter(|id| !PATCH_RULES.contains(id)).collect(),
        schemas: sink.selection.schemas,
        on: sink.selection.on,
        region: sink.selection.region,
    };
    let Some(patched) = bundle_findings(cluster, &selection, sink.work) else { return };
    let Some(unpatched) = bundle_findings(&without_patches(cluster), &selection, sink.work) else { return };
    let same = |a: &Finding, b: &Finding| {
        a.rule == b.rule && a.source == b.source && a.path == b.path && a.message == b.message
    };
    for finding in patched.iter().filter(|f| !unpatched.iter().any(|u| same(f, u))) {
        let Some(rule) = rule_info(&finding.rule) else { continue };
        let Ok(index) = finding.source.parse::<usize>() else { continue };
        let Some(target) = target_of(index, cluster, targets) else { continue };
        let inner = finding.path.strip_prefix("/spec/resources/0").filter(|p| p.is_empty() || p.starts_with('/'));
        let culprit = culprit(target, inner);
        let Some((doc, pointer)) = locator.locate(&target.holder.origin, &target.pointer(culprit)) else {
            continue;
        };
        let kind = target.object.get("kind").and_then(Value::as_str).unwrap_or("object");
        let place = match inner {
            Some(inner) => format!("the {kind} CAPZ creates, at {}", if inner.is_empty() { "/" } else { inner }),
            None => format!("{} of the AzureASOManaged* bundle of this cluster, at {}", finding.object, finding.path),
        };
        sink.emit(
            rule.id,
            doc,
            &pointer,
            format!("patch at index {culprit}: with the patches applied, {place}: {}", finding.message),
        );
    }
}
