//! CAPZ rules that no schema expresses, each mirroring a CAPZ webhook or mutator function.
//!
//! [`rules()`] lists every rule with its stable id, severity and the CAPZ function it mirrors;
//! [`check`] runs the selected rules over a bundle of documents and returns findings in input order.
//! Cross-object rules match objects by namespace and name (see [`bundle`]).

mod aso_patches;
mod aso_resources;
mod bundle;
mod control_plane;
mod credentials;
mod deprecated;
mod mutators;
mod names;
mod network;
mod pool_config;
mod pools;
mod profiles;
mod refs;
mod version;

#[cfg(test)]
mod test_support;

use std::collections::BTreeSet;

use crate::manifest::Document;
use crate::report::{Finding, Severity};

use bundle::Bundle;

/// One CAPZ rule: what `validate --disable/--enable` and `docs/rules.md` show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// Stable id, kebab-case, prefixed `capz-`.
    pub id: &'static str,
    /// Severity of every finding of this rule.
    pub severity: Severity,
    /// What the rule checks, in one sentence.
    pub summary: &'static str,
    /// The CAPZ (or CAPI/ASO) function whose behaviour the rule reproduces offline.
    pub mirrors: &'static str,
    /// Whether the rule runs without `--enable`.
    pub enabled_by_default: bool,
}

const fn rule(id: &'static str, severity: Severity, summary: &'static str, mirrors: &'static str) -> RuleInfo {
    RuleInfo { id, severity, summary, mirrors, enabled_by_default: true }
}

static RULES: &[RuleInfo] = &[
    rule(
        version::VERSION_FORMAT,
        Severity::Error,
        "AzureManagedControlPlane[Template] version (after the webhook adds a missing `v`) must match CAPZ's kubeSemver pattern.",
        "validateVersion (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        version::VERSION_V_PREFIX,
        Severity::Warning,
        "AzureManagedControlPlane[Template] version without the leading `v`: the defaulting webhook adds it, so Git and the cluster differ forever.",
        "NormalizeVersion (internal/api/v1beta1/util.go)",
    ),
    rule(
        names::DNS_PREFIX,
        Severity::Error,
        "dnsPrefix must be alphanumerics or hyphens, starting and ending alphanumeric, at most 54 characters: at least 2 on AzureManagedControlPlane (defaulted to metadata.name), 1 on an ASO ManagedCluster.",
        "validateAzureManagedControlPlaneDNSPrefix (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        names::RESERVED_NAME,
        Severity::Error,
        "AKS cluster names (AzureManagedControlPlane[Template] metadata.name, ASO ManagedCluster azureName or metadata.name) must not contain `microsoft` or `windows`.",
        "validateName (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        pools::POOL_NAME,
        Severity::Error,
        "Agent pool name (spec.name or azureName, else metadata.name) must start with a lowercase letter, contain only lowercase alphanumerics and be at most 12 characters (Linux) or 6 (Windows).",
        "validateMPName, validateNameLength, validateNamePattern (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pools::SYSTEM_POOL_LINUX,
        Severity::Error,
        "A System agent pool must have osType Linux.",
        "validateOSType (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pools::SYSTEM_POOL_REQUIRED,
        Severity::Error,
        "Every AKS Cluster needs at least one MachinePool whose agent pool has mode System.",
        "validateLastSystemNodePool (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pools::SYSTEM_POOL_REPLICAS,
        Severity::Error,
        "A System agent pool needs at least one node: its MachinePool's spec.replicas, or a topology Cluster's machinePools[].replicas for a System pool class, must not be 0 (unless AKS autoscales the pool), and an autoscaled System pool's minCount (scaling.minSize) must be at least 1.",
        "AKS system pool minimum (learn.microsoft.com/azure/aks/use-system-pools); CAPZ copies MachinePool replicas into the agent pool count (setAgentPoolCount, pkg/mutators/azureasomanagedmachinepool.go; ManagedMachinePoolScope.AgentPoolSpec, azure/scope/managedmachinepool.go)",
    ),
    rule(
        pool_config::MAX_PODS,
        Severity::Error,
        "Agent pool maxPods (AzureManagedMachinePool[Template], ASO ManagedClustersAgentPool) must be 10 to 250.",
        "validateMaxPods (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::NODE_LABELS,
        Severity::Error,
        "Agent pool nodeLabels keys must not start with `kubernetes.azure.com`, the prefix AKS reserves.",
        "validateNodeLabels (internal/webhooks/azuremanagedmachinepool_validation.go); azureutil.IsAzureSystemNodeLabelKey",
    ),
    rule(
        pool_config::NODE_PUBLIC_IP,
        Severity::Error,
        "A node public IP prefix (nodePublicIPPrefixID, ASO nodePublicIPPrefixReference) needs enableNodePublicIP: true; nodePublicIPPrefixID must be a publicIPPrefixes resource id.",
        "validateNodePublicIPPrefixID, validateEnableNodePublicIP (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::SUBNET_NAME,
        Severity::Error,
        "AzureManagedMachinePool subnetName must match ^[a-zA-Z0-9][a-zA-Z0-9._-]{0,78}[a-zA-Z0-9]$.",
        "validateMPSubnetName (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::KUBELET_CONFIG,
        Severity::Error,
        "Agent pool kubeletConfig: cpuCfsQuotaPeriod in ms, imageGcLowThreshold not above imageGcHighThreshold, allowedUnsafeSysctls only kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*.",
        "validateKubeletConfig (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::LINUX_OS_CONFIG,
        Severity::Error,
        "Agent pool linuxOSConfig: swapFileSizeMB needs kubeletConfig.failSwapOn false; sysctls.netIpv4IpLocalPortRange `FIRST LAST` with FIRST 1024-60999, LAST 32768-65000, FIRST <= LAST.",
        "validateLinuxOSConfig (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        aso_resources::MANAGED_CLUSTER_COUNT,
        Severity::Error,
        "An AzureASOManagedControlPlane's spec.resources must hold exactly one containerservice.azure.com ManagedCluster.",
        "SetManagedClusterDefaults / ErrNoManagedClusterDefined (pkg/mutators/azureasomanagedcontrolplane.go)",
    ),
    rule(
        aso_resources::AGENT_POOL_RESOURCE_COUNT,
        Severity::Error,
        "An AzureASOManagedMachinePool's spec.resources must hold exactly one containerservice.azure.com ManagedClustersAgentPool.",
        "SetAgentPoolDefaults / ErrNoManagedClustersAgentPoolDefined (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        aso_resources::AGENT_POOL_PROFILES,
        Severity::Error,
        "The ManagedCluster embedded in an AzureASOManagedControlPlane must not set spec.agentPoolProfiles; pools come from AzureASOManagedMachinePools.",
        "setManagedClusterAgentPoolProfiles (pkg/mutators/azureasomanagedcontrolplane.go)",
    ),
    rule(
        aso_resources::RECONCILE_POLICY,
        Severity::Error,
        "An embedded ASO resource's serviceoperator.azure.com/reconcile-policy annotation must be absent or `skip`, otherwise pausing the Cluster (clusterctl move) fails.",
        "Pause (pkg/mutators/mutator.go)",
    ),
    rule(
        mutators::KUBERNETES_VERSION_MISMATCH,
        Severity::Error,
        "The embedded ManagedCluster's kubernetesVersion, if set, must equal the AzureASOManagedControlPlane's spec.version without the leading `v`.",
        "setManagedClusterKubernetesVersion (pkg/mutators/azureasomanagedcontrolplane.go)",
    ),
    rule(
        mutators::ORCHESTRATOR_VERSION_MISMATCH,
        Severity::Error,
        "The embedded ManagedClustersAgentPool's orchestratorVersion, if set, must equal its MachinePool's spec.template.spec.version without the leading `v`.",
        "setAgentPoolOrchestratorVersion (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        mutators::NETWORK_CIDR_MISMATCH,
        Severity::Error,
        "The embedded ManagedCluster's networkProfile.serviceCidr/podCidr, if set, must equal the Cluster's first services/pods cidrBlock.",
        "setManagedClusterServiceCIDR, setManagedClusterPodCIDR (pkg/mutators/azureasomanagedcontrolplane.go)",
    ),
    rule(
        mutators::AGENT_POOL_COUNT_MISMATCH,
        Severity::Error,
        "The embedded ManagedClustersAgentPool's count, if set, must equal its MachinePool's spec.replicas (autoscaled pools: see capz-autoscaled-pool-count).",
        "setAgentPoolCount (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        mutators::AUTOSCALED_POOL_COUNT,
        Severity::Warning,
        "An autoscaled agent pool's count, if set, should equal its MachinePool's spec.replicas: CAPZ still enforces it until the agent pool exists.",
        "setAgentPoolCount (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        mutators::AUTOSCALING_REPLICAS_MANAGER,
        Severity::Error,
        "An agent pool with enableAutoScaling needs its MachinePool's cluster.x-k8s.io/replicas-managed-by annotation absent or `aks`.",
        "reconcileAutoscaling (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        refs::UNRESOLVED_REF,
        Severity::Error,
        "controlPlaneRef, infrastructureRef, MachinePool infrastructureRef/configRef and ClusterClass template references must name an object in the bundle.",
        "external.Get in the CAPI Cluster, MachinePool and ClusterClass reconcilers",
    ),
    rule(
        refs::UNRESOLVED_OWNER,
        Severity::Error,
        "An ASO resource's spec.owner.name must name an ASO object of the owner kind in the same namespace of the bundle.",
        "ASO owner resolution of the resources CAPZ applies (controllers/resource_reconciler.go reconcile)",
    ),
    rule(
        credentials::CREDENTIAL_SECRET,
        Severity::Warning,
        "The Secret named by serviceoperator.azure.com/credential-from should be in the bundle, in the same namespace (clusterctl templates do not ship it).",
        "ASO credential lookup (serviceoperator.azure.com/credential-from); templates/flavors/aks-aso/credentials.yaml",
    ),
    rule(
        credentials::USER_CREDENTIALS_NAME,
        Severity::Error,
        "The embedded ManagedCluster's operatorSpec.secrets.userCredentials must not be named `<cluster>-kubeconfig`: CAPZ writes that Secret itself.",
        "setManagedClusterCredentials (pkg/mutators/azureasomanagedcontrolplane.go); docs/book/src/managed/asomanagedcluster.md",
    ),
    rule(
        credentials::SSH_PUBLIC_KEY,
        Severity::Error,
        "AzureManagedControlPlane sshPublicKey, when set, must be a base64-encoded OpenSSH public key line.",
        "validateAzureManagedControlPlaneSSHKey, ValidateSSHKey (internal/webhooks/azuremanagedcontrolplane_validation.go, azuremachine_validation.go)",
    ),
    rule(
        credentials::EMPTY_SSH_KEY,
        Severity::Warning,
        "AzureManagedControlPlane sshPublicKey set to \"\": the webhook generates a random key into an immutable field, so the Git value never applies again.",
        "SetDefaultAzureManagedControlPlaneSSHPublicKey (internal/api/v1beta1/azuremanagedcontrolplane_default.go)",
    ),
    rule(
        credentials::CREDENTIAL_SECRET_KEYS,
        Severity::Error,
        "An ASO credential Secret in the bundle must hold AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID (data or stringData).",
        "newCredentialFromSecret (ASO v2/internal/identity/credential_provider.go)",
    ),
    rule(
        credentials::CREDENTIAL_SECRET_MOVE,
        Severity::Warning,
        "An ASO credential Secret in the bundle should carry the clusterctl.cluster.x-k8s.io/move label, or clusterctl move leaves it behind.",
        "clusterctl move object graph (ClusterctlMoveLabel, cmd/clusterctl/client/cluster/objectgraph.go); CAPZ#6657",
    ),
    rule(
        network::CLUSTER_NETWORK_CIDRS,
        Severity::Error,
        "A Cluster whose control plane is an AzureManagedControlPlane may have at most one services and one pods cidrBlock.",
        "validateManagedClusterNetwork (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        network::DNS_SERVICE_IP,
        Severity::Error,
        "AzureManagedControlPlane dnsServiceIP must be a valid IP inside the Cluster's service CIDR and end in `.10`.",
        "validateManagedClusterNetwork (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        network::NETWORK_PLUGIN,
        Severity::Error,
        "Network plugin combinations: overlay mode not with kubenet; cilium dataplane needs overlay mode and cilium policy; cilium policy needs the cilium dataplane.",
        "validateAzureManagedControlPlaneNetworkPluginMode, validateNetworkDataplane, validateNetworkPolicy (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        network::TEMPLATE_VNET_NAME,
        Severity::Warning,
        "AzureManagedControlPlaneTemplate must not name its virtual network: every Cluster of the class would share the name.",
        "setDefaultAzureManagedControlPlaneTemplateVirtualNetwork (internal/api/v1beta1/azuremanagedcontrolplanetemplate_default.go)",
    ),
    rule(
        profiles::LOAD_BALANCER_PROFILE,
        Severity::Error,
        "Load balancer profile: managedOutboundIPs 1-100, allocatedOutboundPorts 0-64000, idleTimeoutInMinutes 4-120 (AzureManagedControlPlane[Template]); at most one of managedOutboundIPs, outboundIPPrefixes and outboundIPs (also ASO ManagedCluster).",
        "validateLoadBalancerProfile (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        profiles::API_SERVER_ACCESS_PROFILE,
        Severity::Error,
        "AzureManagedControlPlane[Template] apiServerAccessProfile: authorizedIPRanges entries in CIDR format; privateDNSZone `System`, `None`, or a privateDnsZones resource id named private[link].<location>.azmk8s.io (optionally with a subzone) on a private cluster.",
        "validateAPIServerAccessProfile (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        profiles::AUTOSCALER_PROFILE,
        Severity::Error,
        "Cluster autoscaler profile values (AzureManagedControlPlane[Template] autoscalerProfile, ASO ManagedCluster autoScalerProfile): bulk-delete, graceful-termination and ok-unready counts whole numbers >= 0, max-total-unready-percentage 0-100, scale-down-utilization-threshold 0-1, new-pod-scale-up-delay a duration.",
        "validateAutoScalerProfile (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::IDENTITY,
        Severity::Error,
        "AzureManagedControlPlane identity: type UserAssigned needs userAssignedIdentityResourceID, any other type must leave it empty.",
        "validateAzureManagedControlPlaneIdentity (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::SECURITY_PROFILE,
        Severity::Error,
        "AzureManagedControlPlane[Template] securityProfile: azureKeyVaultKms needs identity type UserAssigned, a keyVaultResourceID exactly when keyVaultNetworkAccess is Private; workloadIdentity needs oidcIssuerProfile.enabled (also on ASO ManagedClusters, an AKS rule).",
        "validateAzureManagedControlPlaneClassSpecAzureKeyVaultKms, validateAzureManagedControlPlaneClassSpecWorkloadIdentity (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::DISABLE_LOCAL_ACCOUNTS,
        Severity::Error,
        "AzureManagedControlPlane disableLocalAccounts (any value) only with an aadProfile; on ASO ManagedClusters, disableLocalAccounts: true only with an aadProfile (an AKS rule).",
        "validateAzureManagedControlPlaneDisableLocalAccounts (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::VIRTUAL_NETWORK,
        Severity::Error,
        "AzureManagedControlPlane[Template] virtualNetwork: cidrBlock and subnet.cidrBlock (after the CRD defaults) valid CIDRs, the subnet inside the virtual network.",
        "validateAMCPVirtualNetwork (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::FLEETS_MEMBER_NAME,
        Severity::Error,
        "AzureManagedControlPlane fleetsMember.name must match ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$.",
        "validateFleetsMember (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::AKS_EXTENSIONS,
        Severity::Error,
        "AzureManagedControlPlane[Template] extensions: no version unless autoUpgradeMinorVersion is false; scopeType Cluster needs releaseNamespace and no targetNamespace, Namespace the reverse.",
        "validateAKSExtensions (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        deprecated::DEPRECATED_API,
        Severity::Info,
        "Deprecated CAPZ APIs: AzureManaged* (migrate to AzureASOManaged* v1beta1) and AzureASOManaged* v1alpha1 (move to v1beta1).",
        "deprecatedversion markers (api/v1beta1/azuremanaged*_types.go, api/v1alpha1/azureasomanaged*_types.go)",
    ),
    RuleInfo {
        enabled_by_default: false,
        ..rule(
            deprecated::CAPI_V1BETA1,
            Severity::Info,
            "CAPI v1beta1 objects (Cluster, MachinePool, ClusterClass, KubeadmConfigTemplate, ...): v1beta2 is the served storage version; off by default because CAPZ's own templates still use v1beta1.",
            "CAPI v1beta1 deprecation (api/core/v1beta1, api/bootstrap/kubeadm/v1beta1)",
        )
    },
    rule(
        aso_patches::PATCH_BROKEN,
        Severity::Error,
        "An asoManagedClusterPatches / asoManagedClustersAgentPoolPatches entry CAPZ cannot apply: not YAML, or the merged object no longer decodes as the ASO kind (a list or scalar patch, a value of the wrong type).",
        "aso.PatchedParameters / applyPatches (azure/services/aso/aso.go)",
    ),
    rule(
        aso_patches::PATCH_NO_OP,
        Severity::Warning,
        "An asoManagedClusterPatches / asoManagedClustersAgentPoolPatches entry that changes nothing in the ASO object CAPZ generates (it sets what CAPZ already sets, or fields the ASO type lacks, which CAPZ's decode drops).",
        "aso.PatchedParameters (azure/services/aso/aso.go) on ManagedClusterSpec / AgentPoolSpec.Parameters",
    ),
    rule(
        aso_patches::PATCH_SCHEMA,
        Severity::Error,
        "With asoManagedClusterPatches / asoManagedClustersAgentPoolPatches applied, the ManagedCluster / ManagedClustersAgentPool CAPZ creates fails ASO's schema for its apiVersion (reported at the last patch; a version our schemas lack is not checked).",
        "aso.PatchedParameters (azure/services/aso/aso.go), then the ASO CRD's validation at create",
    ),
    rule(
        aso_patches::PATCH_OWNED_FIELD,
        Severity::Warning,
        "An asoManagedClusterPatches / asoManagedClustersAgentPoolPatches entry that changes a field CAPZ owns: metadata it sets after the patches, owner, azureName, operatorSpec, agentPoolProfiles.",
        "CreateOrUpdateResource (azure/services/aso/aso.go), ManagedClusterSpec.Parameters (azure/services/managedclusters/spec.go)",
    ),
];

/// Every CAPZ rule, in the order of `docs/rules.md`.
pub fn rules() -> &'static [RuleInfo] {
    RULES
}

fn rule_info(id: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|rule| rule.id == id)
}

/// Errors in the rule selection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LintError {
    /// `--enable`/`--disable` named a rule that does not exist.
    #[error("{flag} {id}: unknown rule{}", did_you_mean(.suggestion))]
    UnknownRule { flag: &'static str, id: String, suggestion: Option<&'static str> },
}

fn did_you_mean(suggestion: &Option<&'static str>) -> String {
    match suggestion {
        Some(id) => format!(" (did you mean `{id}`?)"),
        None => " (`kubectl capz validate --help` and docs/rules.md list the rules)".to_string(),
    }
}

/// Which rules run: the defaults, plus `--enable`, minus `--disable` (disable wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSelection {
    enabled: BTreeSet<&'static str>,
}

impl Default for RuleSelection {
    fn default() -> Self {
        RuleSelection { enabled: RULES.iter().filter(|rule| rule.enabled_by_default).map(|rule| rule.id).collect() }
    }
}

impl RuleSelection {
    /// The default rules, plus `enable`, minus `disable`. Unknown ids are an error that suggests the
    /// closest known id.
    pub fn new(enable: &[String], disable: &[String]) -> Result<Self, LintError> {
        let mut selection = RuleSelection::default();
        for id in enable {
            selection.enabled.insert(known_id("--enable", id)?);
        }
        for id in disable {
            let id = known_id("--disable", id)?;
            selection.enabled.remove(id);
        }
        Ok(selection)
    }

    /// Every rule, including those off by default.
    pub fn all() -> Self {
        RuleSelection { enabled: RULES.iter().map(|rule| rule.id).collect() }
    }

    /// Whether the rule with this id runs.
    pub fn is_enabled(&self, id: &str) -> bool {
        self.enabled.contains(id)
    }
}

fn known_id(flag: &'static str, id: &str) -> Result<&'static str, LintError> {
    let trimmed = id.trim();
    if let Some(rule) = rule_info(trimmed) {
        return Ok(rule.id);
    }
    let suggestion = RULES
        .iter()
        .map(|rule| (strsim::jaro_winkler(&trimmed.to_ascii_lowercase(), rule.id), rule.id))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, id)| id);
    Err(LintError::UnknownRule { flag, id: id.to_string(), suggestion })
}

/// Runs the selected rules over the documents. Findings come in input order: by document, then line,
/// rule id and JSON pointer.
pub fn check(documents: &[Document], selection: &RuleSelection) -> Vec<Finding> {
    let bundle = Bundle::new(documents);
    let mut sink = Sink { selection, documents, found: Vec::new() };
    version::check(&bundle, &mut sink);
    names::check(&bundle, &mut sink);
    pools::check(&bundle, &mut sink);
    aso_resources::check(&bundle, &mut sink);
    mutators::check(&bundle, &mut sink);
    refs::check(&bundle, &mut sink);
    credentials::check(&bundle, &mut sink);
    network::check(&bundle, &mut sink);
    profiles::check(&bundle, &mut sink);
    control_plane::check(&bundle, &mut sink);
    pool_config::check(&bundle, &mut sink);
    deprecated::check(&bundle, &mut sink);
    aso_patches::check(documents, &mut sink);
    sink.finish()
}

/// Collects findings of enabled rules, keyed for a deterministic order.
pub(crate) struct Sink<'a> {
    selection: &'a RuleSelection,
    documents: &'a [Document],
    found: Vec<(usize, Finding)>,
}

impl Sink<'_> {
    /// Whether any of these rules is enabled (lets a check skip work).
    pub(crate) fn wants(&self, ids: &[&str]) -> bool {
        ids.iter().any(|id| self.selection.is_enabled(id))
    }

    /// Records a finding of rule `id` on document `doc` at JSON pointer `pointer`.
    pub(crate) fn emit(&mut self, id: &'static str, doc: usize, pointer: &str, message: String) {
        if !self.selection.is_enabled(id) {
            return;
        }
        let Some(info) = rule_info(id) else { return };
        let document = &self.documents[doc];
        self.found.push((
            doc,
            Finding {
                rule: id.to_string(),
                severity: info.severity,
                source: document.origin.source.to_string(),
                line: document.line_of(pointer),
                object: document.display_name(),
                path: pointer.to_string(),
                message,
            },
        ));
    }

    fn finish(mut self) -> Vec<Finding> {
        self.found.sort_by(|(doc_a, a), (doc_b, b)| {
            (doc_a, a.line, &a.rule, &a.path, &a.message).cmp(&(doc_b, b.line, &b.rule, &b.path, &b.message))
        });
        self.found.dedup_by(|(doc_a, a), (doc_b, b)| doc_a == doc_b && a == b);
        self.found.into_iter().map(|(_, finding)| finding).collect()
    }
}

/// Escapes one JSON pointer segment (`~` -> `~0`, `/` -> `~1`).
pub(crate) fn escape_segment(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_kebab_case_and_prefixed() {
        let mut seen = BTreeSet::new();
        let pattern = regex::Regex::new("^capz-[a-z0-9]+(-[a-z0-9]+)*$").unwrap();
        for rule in rules() {
            assert!(pattern.is_match(rule.id), "{} is not kebab-case capz-*", rule.id);
            assert!(seen.insert(rule.id), "{} is listed twice", rule.id);
            assert!(!rule.mirrors.is_empty() && !rule.summary.is_empty(), "{} lacks text", rule.id);
        }
    }

    #[test]
    fn selection_defaults_enable_and_disable() {
        let default = RuleSelection::new(&[], &[]).unwrap();
        assert!(default.is_enabled("capz-system-pool-required"));
        assert!(!default.is_enabled("capz-capi-v1beta1"));

        let changed = RuleSelection::new(&["capz-capi-v1beta1".into()], &["capz-system-pool-required".into()]).unwrap();
        assert!(changed.is_enabled("capz-capi-v1beta1"));
        assert!(!changed.is_enabled("capz-system-pool-required"));

        let both = RuleSelection::new(&["capz-dns-prefix".into()], &["capz-dns-prefix".into()]).unwrap();
        assert!(!both.is_enabled("capz-dns-prefix"), "disable wins over enable");
    }

    #[test]
    fn unknown_rule_suggests_the_closest_id() {
        let err = RuleSelection::new(&[], &["capz-system-pool-requird".into()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--disable capz-system-pool-requird: unknown rule (did you mean `capz-system-pool-required`?)"
        );
        let err = RuleSelection::new(&["zzz".into()], &[]).unwrap_err();
        assert!(err.to_string().starts_with("--enable zzz: unknown rule (`kubectl capz validate --help`"), "{err}");
    }
}
