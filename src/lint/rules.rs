//! The rule table: every rule's stable id, severity, who rejects what it finds (and when) and the upstream function
//! it mirrors. Rule ids say who rejects: `capz-*` CAPZ's webhooks or mutators, `aks-*` the AKS API (through CAPZ or
//! ASO, at reconcile), `aso-*` Azure Service Operator, `capi-*` Cluster API, `clusterctl-*` clusterctl.

use super::{
    aks_versions, aso_patches, aso_resources, capi_webhooks, cluster_identity, control_plane, credentials, deprecated,
    duplicates, mutators, names, network, pool_config, pools, profiles, refs, update, update_path, version,
};
use crate::report::Severity;

/// Who rejects what a rule finds, and when: the column "rejected by" of docs/rules.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejecter {
    /// CAPZ's validating webhook, when the object is created.
    CapzCreate,
    /// CAPZ's validating webhook at create when the object carries the cluster-name label, otherwise at CAPI's
    /// first update (which adds it).
    CapzLabelled,
    /// CAPZ's `ValidateUpdate`, at CAPI's first update (cluster-name label; owner reference on templates).
    CapzFirstUpdate,
    /// CAPZ's `ValidateUpdate`, when a changed object replaces the stored one (a change review: `old` is the base).
    CapzUpdate,
    /// CAPZ's webhook at create of each object CAPI's topology controller makes from the template.
    CapzTemplateInstance,
    /// A CAPZ mutator of the ASO resources, at reconcile (the controller reports a terminal error).
    CapzMutator,
    /// Nobody: CAPZ's defaulting webhook changes or fills the value (a warning).
    CapzDefaulting,
    /// The AKS API, when CAPZ or ASO sends the object at reconcile.
    Aks,
    /// No documented rejection: only CAPZ's classic webhook checks this, on its own kinds; on an embedded ASO object
    /// the finding says what AKS does (a warning).
    AksUndocumented,
    /// Azure Service Operator, at reconcile.
    Aso,
    /// ASO's validating webhook on UPDATE (a change review): at once for a standalone ASO object, when CAPZ applies it
    /// at reconcile for one embedded in an AzureASOManaged* object.
    AsoUpdate,
    /// The AKS API at reconcile of a change the API server accepted (a change review).
    AksUpdate,
    /// Cluster API's validating webhooks (after its defaulting webhook), when the object is created.
    CapiWebhook,
    /// Cluster API's `ValidateUpdate`, when a changed object replaces the stored one (a change review).
    CapiUpdate,
    /// Cluster API's controllers, at reconcile.
    Capi,
    /// `clusterctl move`.
    Clusterctl,
    /// The API server warns (deprecation); nothing is rejected.
    ApiServer,
    /// Nobody: what was written has no effect (a warning).
    NoEffect,
    /// Nobody: `kubectl apply` of the bundle keeps the last of several copies of one object (a warning).
    KubectlApply,
    /// Nobody rejects it: the GitOps controller's prune deletes a removed object, and CAPI, CAPZ and ASO delete what
    /// it stands for in Azure (a change review, `diff --base`).
    GitopsPrune,
    /// Nobody rejects it: the change replaces nodes or upgrades the control plane (a change review).
    Rolling,
}

impl Rejecter {
    /// The words docs/rules.md and `--help` use.
    pub fn describe(self) -> &'static str {
        match self {
            Rejecter::CapzCreate => "CAPZ webhook at create",
            Rejecter::CapzLabelled => {
                "CAPZ webhook at create if labelled cluster.x-k8s.io/cluster-name, else at CAPI's first update"
            }
            Rejecter::CapzFirstUpdate => "CAPZ webhook at update (CAPI's first update)",
            Rejecter::CapzUpdate => "CAPZ webhook at update (a change to the stored object)",
            Rejecter::CapzTemplateInstance => "CAPZ webhook at create of each object made from the template",
            Rejecter::CapzMutator => "CAPZ mutator at reconcile",
            Rejecter::CapzDefaulting => "nobody (CAPZ defaulting webhook rewrites it)",
            Rejecter::Aks => "AKS at reconcile",
            Rejecter::AksUndocumented => "no documented AKS rejection (the message says what AKS does)",
            Rejecter::Aso => "ASO at reconcile",
            Rejecter::AsoUpdate => "ASO webhook at update (an embedded object when CAPZ applies it at reconcile)",
            Rejecter::AksUpdate => "AKS at reconcile of a change (the API server accepts it)",
            Rejecter::CapiWebhook => "CAPI webhook at create",
            Rejecter::CapiUpdate => "CAPI webhook at update (a change to the stored object)",
            Rejecter::Capi => "CAPI controllers at reconcile",
            Rejecter::Clusterctl => "clusterctl move",
            Rejecter::ApiServer => "nobody (API server warning)",
            Rejecter::NoEffect => "nobody (it has no effect)",
            Rejecter::KubectlApply => "nobody (kubectl apply keeps the last copy)",
            Rejecter::GitopsPrune => {
                "nobody (the GitOps controller's prune deletes it, then CAPI, CAPZ and ASO in Azure)"
            }
            Rejecter::Rolling => "nobody (the change rolls nodes)",
        }
    }
}

/// One rule: what `validate --disable/--enable` and `docs/rules.md` show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// Stable id, kebab-case, prefixed by who rejects (`capz-`, `aks-`, `aso-`, `capi-`, `clusterctl-`).
    pub id: &'static str,
    /// Severity of every finding of this rule.
    pub severity: Severity,
    /// Who rejects what the rule finds, and when.
    pub rejected_by: Rejecter,
    /// What the rule checks, in one sentence.
    pub summary: &'static str,
    /// The CAPZ (or CAPI/ASO/AKS) function whose behaviour the rule reproduces offline.
    pub mirrors: &'static str,
    /// Whether the rule runs without `--enable`.
    pub enabled_by_default: bool,
}

impl RuleInfo {
    /// Whether the rule judges a change (an old and a new object: `diff --base`, `validate --base`) rather than one
    /// bundle: CAPZ's update rules, what a prune deletes, what rolls nodes.
    pub fn judges_a_change(&self) -> bool {
        matches!(
            self.rejected_by,
            Rejecter::CapzUpdate
                | Rejecter::AsoUpdate
                | Rejecter::AksUpdate
                | Rejecter::CapiUpdate
                | Rejecter::GitopsPrune
                | Rejecter::Rolling
        )
    }
}

const fn rule(
    id: &'static str,
    severity: Severity,
    rejected_by: Rejecter,
    summary: &'static str,
    mirrors: &'static str,
) -> RuleInfo {
    RuleInfo { id, severity, rejected_by, summary, mirrors, enabled_by_default: true }
}

/// The `aks-*` twins of CAPZ webhook rules: the same check on an ASO object embedded in an AzureASOManaged*, where
/// no CAPZ webhook looks and AKS rejects it at reconcile.
pub(crate) mod twins {
    pub(crate) const AKS_DNS_PREFIX: &str = "aks-dns-prefix";
    pub(crate) const AKS_RESERVED_NAME: &str = "aks-reserved-name";
    pub(crate) const AKS_POOL_NAME: &str = "aks-pool-name";
    pub(crate) const AKS_SYSTEM_POOL_LINUX: &str = "aks-system-pool-linux";
    pub(crate) const AKS_MAX_PODS: &str = "aks-max-pods";
    pub(crate) const AKS_NODE_LABELS: &str = "aks-node-labels";
    pub(crate) const AKS_NODE_PUBLIC_IP: &str = "aks-node-public-ip";
    pub(crate) const AKS_KUBELET_CONFIG: &str = "aks-kubelet-config";
    pub(crate) const AKS_LINUX_OS_CONFIG: &str = "aks-linux-os-config";
    pub(crate) const AKS_NETWORK_PLUGIN: &str = "aks-network-plugin";
    pub(crate) const AKS_LOAD_BALANCER_PROFILE: &str = "aks-load-balancer-profile";
    pub(crate) const AKS_AUTOSCALER_PROFILE: &str = "aks-autoscaler-profile";
    pub(crate) const AKS_SECURITY_PROFILE: &str = "aks-security-profile";
    pub(crate) const AKS_DISABLE_LOCAL_ACCOUNTS: &str = "aks-disable-local-accounts";
}

/// A CAPZ webhook rule and its `aks-*` twin: a finding of the CAPZ rule inside an embedded ASO object is reported
/// under the twin.
pub(crate) struct AksTwin {
    /// The CAPZ webhook rule.
    pub(crate) capz: &'static str,
    /// The rule its findings on embedded ASO objects go to.
    pub(crate) twin: &'static str,
    /// For a twin without a CAPZ mutator, ASO webhook or AKS document behind it (a warning): what AKS does, added
    /// to the CAPZ rule's message.
    pub(crate) aks_note: Option<&'static str>,
}

const fn twin(capz: &'static str, twin: &'static str) -> AksTwin {
    AksTwin { capz, twin, aks_note: None }
}

const fn undocumented_twin(capz: &'static str, twin: &'static str, aks_note: &'static str) -> AksTwin {
    AksTwin { capz, twin, aks_note: Some(aks_note) }
}

/// Every CAPZ webhook rule that also runs on embedded ASO objects, with its `aks-*` twin.
pub(crate) const AKS_TWINS: &[AksTwin] = &[
    twin(names::DNS_PREFIX, twins::AKS_DNS_PREFIX),
    twin(names::RESERVED_NAME, twins::AKS_RESERVED_NAME),
    twin(pools::POOL_NAME, twins::AKS_POOL_NAME),
    twin(pools::SYSTEM_POOL_LINUX, twins::AKS_SYSTEM_POOL_LINUX),
    twin(pool_config::MAX_PODS, twins::AKS_MAX_PODS),
    twin(pool_config::NODE_LABELS, twins::AKS_NODE_LABELS),
    undocumented_twin(
        pool_config::NODE_PUBLIC_IP,
        twins::AKS_NODE_PUBLIC_IP,
        "AKS gives nodes public IPs, from the prefix too, only with enableNodePublicIP: true; CAPZ's classic webhook \
         rejects this on AzureManagedMachinePool, no AKS document says AKS rejects the agent pool",
    ),
    twin(pool_config::KUBELET_CONFIG, twins::AKS_KUBELET_CONFIG),
    twin(pool_config::LINUX_OS_CONFIG, twins::AKS_LINUX_OS_CONFIG),
    twin(network::NETWORK_PLUGIN, twins::AKS_NETWORK_PLUGIN),
    undocumented_twin(
        profiles::LOAD_BALANCER_PROFILE,
        twins::AKS_LOAD_BALANCER_PROFILE,
        "AKS documents managed outbound IPs, your own outbound IPs and your own outbound IP prefixes as alternative \
         outbound sources; CAPZ's classic webhook rejects this on AzureManagedControlPlane, no AKS document says AKS \
         rejects the cluster",
    ),
    twin(profiles::AUTOSCALER_PROFILE, twins::AKS_AUTOSCALER_PROFILE),
    undocumented_twin(
        control_plane::SECURITY_PROFILE,
        twins::AKS_SECURITY_PROFILE,
        "AKS workload identity federates through the cluster's OIDC issuer, so it does not work without it; CAPZ's \
         classic webhook rejects this on AzureManagedControlPlane, no AKS document says AKS rejects the cluster",
    ),
    twin(control_plane::DISABLE_LOCAL_ACCOUNTS, twins::AKS_DISABLE_LOCAL_ACCOUNTS),
];

/// Former rule ids, still accepted by `--enable`/`--disable`: `(old id, ids it became)`.
pub(crate) const RENAMED: &[(&str, &[&str])] = &[
    ("capz-system-pool-required", &[pools::SYSTEM_POOL_REQUIRED]),
    ("capz-system-pool-replicas", &[pools::SYSTEM_POOL_REPLICAS]),
    ("capz-unresolved-ref", &[refs::UNRESOLVED_REF]),
    ("capz-unresolved-owner", &[refs::UNRESOLVED_OWNER, refs::MISNAMED_OWNER]),
    ("capz-credential-secret", &[credentials::CREDENTIAL_SECRET]),
    ("capz-credential-secret-keys", &[credentials::CREDENTIAL_SECRET_KEYS]),
    ("capz-user-credentials-name", &[credentials::USER_CREDENTIALS_NAME]),
    ("capz-credential-secret-move", &[credentials::CREDENTIAL_SECRET_MOVE]),
    ("capz-capi-v1beta1", &[deprecated::CAPI_V1BETA1]),
];

pub(crate) static RULES: &[RuleInfo] = &[
    rule(
        version::VERSION_FORMAT,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] version (after the webhook adds a missing `v`) must match CAPZ's kubeSemver pattern.",
        "validateVersion (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        version::VERSION_V_PREFIX,
        Severity::Warning,
        Rejecter::CapzDefaulting,
        "AzureManagedControlPlane[Template] version without the leading `v`: the defaulting webhook adds it, so Git and the cluster differ forever.",
        "NormalizeVersion (internal/api/v1beta1/util.go)",
    ),
    rule(
        aks_versions::UNSUPPORTED,
        Severity::Error,
        Rejecter::Aks,
        "A control plane or node pool version out of AKS support on the run's day (`validate --at`): past the end of platform support (or of LTS, with the AKSLongTermSupport plan) is an error; in platform support (N-3) or within 60 days of the end of support, a warning naming the date. With `--aks-versions FILE`: a minor the region offers only with the long-term support plan, on a cluster without it, is an error.",
        "the release calendar and support policy of learn.microsoft.com/azure/aks/supported-kubernetes-versions (bundled, dated: `kubectl capz version`); with `--aks-versions`, `az aks get-versions` of the region",
    ),
    rule(
        aks_versions::UNRELEASED,
        Severity::Error,
        Rejecter::Aks,
        "A control plane or node pool version AKS has not released: a minor newer than the release calendar lists, or one it plans GA for after the run's day. With `--aks-versions FILE` (the output of `az aks get-versions` for the clusters' region): a minor or patch the region does not offer is an error, a minor it offers as a preview only a warning.",
        "the release calendar of learn.microsoft.com/azure/aks/supported-kubernetes-versions; with `--aks-versions`, `az aks get-versions` of the region (learn.microsoft.com/cli/azure/aks#az-aks-get-versions)",
    ),
    rule(
        aks_versions::SKEW,
        Severity::Error,
        Rejecter::Aks,
        "A node pool (MachinePool version, agent pool orchestratorVersion) more than three minors behind its control plane, or ahead of it.",
        "the version skew rule of learn.microsoft.com/azure/aks/supported-kubernetes-versions (\"the control plane can be up to three minor versions ahead of node pools\") and upgrade-aks-control-plane",
    ),
    rule(
        aks_versions::TOPOLOGY_PINNED,
        Severity::Error,
        Rejecter::Aks,
        "A MachinePool written beside a topology Cluster (not labelled topology.cluster.x-k8s.io/owned) with a version other than spec.topology.version: the topology controller does not upgrade it, so it falls behind; a warning, an error once AKS refuses the skew (ahead of the topology's version, or more than three minors behind).",
        "the topology controller's upgrade of the control plane, then the MachinePools of spec.topology.workers (cluster-api internal/controllers/topology/cluster), and the version skew rule of learn.microsoft.com/azure/aks/supported-kubernetes-versions",
    ),
    rule(
        aks_versions::TEMPLATE_PINNED,
        Severity::Error,
        Rejecter::CapzMutator,
        "kubernetesVersion or orchestratorVersion pinned in a ClusterClass's AzureASOManaged*Template: CAPZ writes the topology's version there and fails with an Incompatible error on another value; an error when a topology Cluster of the class runs another version, else a warning (the next upgrade fails).",
        "setManagedClusterKubernetesVersion and setAgentPoolOrchestratorVersion (pkg/mutators)",
    ),
    rule(
        aks_versions::AUTO_UPGRADE_PINNED,
        Severity::Warning,
        Rejecter::AksUndocumented,
        "An auto-upgrade channel that changes the Kubernetes version (patch, stable, rapid) on a cluster whose version Git pins: AKS upgrades past Git's version, so CAPZ works against the channel or Git drifts from the cluster.",
        "the cluster auto-upgrade channels of learn.microsoft.com/azure/aks/auto-upgrade-cluster",
    ),
    rule(
        names::DNS_PREFIX,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane dnsPrefix (defaulted to metadata.name) must be 2-54 alphanumerics or hyphens, starting and ending alphanumeric.",
        "validateAzureManagedControlPlaneDNSPrefix (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        names::RESERVED_NAME,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] metadata.name must not contain `microsoft` or `windows`.",
        "validateName (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        pools::POOL_NAME,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedMachinePool[Template] pool name (spec.name, defaulted to metadata.name) must start with a lowercase letter, contain only lowercase alphanumerics and be at most 12 characters (Linux) or 6 (Windows).",
        "validateMPName, validateNameLength, validateNamePattern (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pools::SYSTEM_POOL_LINUX,
        Severity::Error,
        Rejecter::CapzCreate,
        "An AzureManagedMachinePool[Template] with mode System must have osType Linux.",
        "validateOSType (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::MAX_PODS,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedMachinePool[Template] maxPods must be 10 to 250.",
        "validateMaxPods (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::NODE_LABELS,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedMachinePool[Template] nodeLabels keys must not start with `kubernetes.azure.com`, the prefix AKS reserves.",
        "validateNodeLabels (internal/webhooks/azuremanagedmachinepool_validation.go); azureutil.IsAzureSystemNodeLabelKey",
    ),
    rule(
        pool_config::NODE_PUBLIC_IP,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedMachinePool[Template] nodePublicIPPrefixID needs enableNodePublicIP: true and must be a publicIPPrefixes resource id.",
        "validateNodePublicIPPrefixID, validateEnableNodePublicIP (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::SUBNET_NAME,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedMachinePool subnetName must match ^[a-zA-Z0-9][a-zA-Z0-9._-]{0,78}[a-zA-Z0-9]$ (the template webhook does not check it).",
        "validateMPSubnetName (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::KUBELET_CONFIG,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedMachinePool[Template] kubeletConfig, first problem only as CAPZ: cpuCfsQuotaPeriod in ms, imageGcLowThreshold not above imageGcHighThreshold, allowedUnsafeSysctls only kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*.",
        "validateKubeletConfig (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::LINUX_OS_CONFIG,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedMachinePool[Template] linuxOSConfig: swapFileSizeMB needs kubeletConfig.failSwapOn false; sysctls.netIpv4IPLocalPortRange (CAPZ's spelling) `FIRST LAST` with FIRST 1024-60999, LAST 32768-65000, FIRST <= LAST.",
        "validateLinuxOSConfig (internal/webhooks/azuremanagedmachinepool_validation.go)",
    ),
    rule(
        pool_config::SPOT_MAX_PRICE,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedMachinePool[Template] spotMaxPrice must be a Kubernetes quantity: CAPZ's webhooks decode the object into Go types before validating it.",
        "resource.ParseQuantity while the webhooks decode AzureManagedMachinePool (admission decoder of AzureManagedMachinePoolWebhook / AzureManagedMachinePoolTemplateWebhook)",
    ),
    rule(
        control_plane::IDENTITY,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane identity: type UserAssigned needs userAssignedIdentityResourceID, any other type must leave it empty.",
        "validateAzureManagedControlPlaneIdentity (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::SECURITY_PROFILE,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] securityProfile: azureKeyVaultKms needs identity type UserAssigned, a keyVaultResourceID exactly when keyVaultNetworkAccess is Private; workloadIdentity needs oidcIssuerProfile.enabled.",
        "validateAzureManagedControlPlaneClassSpecAzureKeyVaultKms, validateAzureManagedControlPlaneClassSpecWorkloadIdentity (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::DISABLE_LOCAL_ACCOUNTS,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane disableLocalAccounts (any value) only with an aadProfile.",
        "validateAzureManagedControlPlaneDisableLocalAccounts (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::VIRTUAL_NETWORK,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] virtualNetwork: cidrBlock and subnet.cidrBlock (after the CRD defaults) valid CIDRs, the subnet inside the virtual network.",
        "validateAMCPVirtualNetwork (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::FLEETS_MEMBER_NAME,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane fleetsMember.name must match ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$.",
        "validateFleetsMember (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        control_plane::AKS_EXTENSIONS,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] extensions: no version unless autoUpgradeMinorVersion is false; scopeType Cluster needs releaseNamespace and no targetNamespace, Namespace the reverse.",
        "validateAKSExtensions (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        network::NETWORK_PLUGIN,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] network plugin combinations: overlay mode not with kubenet (AzureManagedControlPlane only); cilium dataplane needs overlay mode and cilium policy; cilium policy needs the cilium dataplane.",
        "validateAzureManagedControlPlaneNetworkPluginMode, validateNetworkDataplane, validateNetworkPolicy (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        profiles::LOAD_BALANCER_PROFILE,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] loadBalancerProfile: managedOutboundIPs 1-100, allocatedOutboundPorts 0-64000, idleTimeoutInMinutes 4-120; at most one of managedOutboundIPs, outboundIPPrefixes and outboundIPs.",
        "validateLoadBalancerProfile (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        profiles::API_SERVER_ACCESS_PROFILE,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] apiServerAccessProfile: authorizedIPRanges entries in CIDR format; privateDNSZone `System`, `None`, or a privateDnsZones resource id named private[link].<location>.azmk8s.io (optionally with a subzone) on a private cluster.",
        "validateAPIServerAccessProfile (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        profiles::AUTOSCALER_PROFILE,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane[Template] autoscalerProfile values: bulk-delete, graceful-termination and ok-unready counts whole numbers >= 0, maxTotalUnreadyPercentage 0-100, scaleDownUtilizationThreshold 0-1, newPodScaleUpDelay a Go duration.",
        "validateAutoScalerProfile (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        credentials::SSH_PUBLIC_KEY,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureManagedControlPlane sshPublicKey, when set, must be a base64-encoded OpenSSH public key line, as the target's golang.org/x/crypto parses it (CAPZ v1.27, and the provisional v1.28 modelled on it: the key type field must name the key's algorithm, RSA up to 16384 bits; v1.26: the type field is ignored, RSA up to 8192 bits).",
        "validateAzureManagedControlPlaneSSHKey, ValidateSSHKey (internal/webhooks/azuremanagedcontrolplane_validation.go, azuremachine_validation.go)",
    ),
    rule(
        cluster_identity::CLUSTER_IDENTITY,
        Severity::Error,
        Rejecter::CapzCreate,
        "AzureClusterIdentity: resourceID only with type UserAssignedMSI; userAssignedIdentityCredentialsPath/CloudType only with type UserAssignedIdentityCredential.",
        "validateAzureClusterIdentity (internal/webhooks/azureclusteridentity_validation.go)",
    ),
    rule(
        network::CLUSTER_NETWORK_CIDRS,
        Severity::Error,
        Rejecter::CapzLabelled,
        "A Cluster whose control plane is an AzureManagedControlPlane may have at most one services and one pods cidrBlock.",
        "validateManagedClusterNetwork (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        network::DNS_SERVICE_IP,
        Severity::Error,
        Rejecter::CapzLabelled,
        "AzureManagedControlPlane dnsServiceIP must be a valid IP inside the Cluster's service CIDR and end in `.10`.",
        "validateManagedClusterNetwork (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update_path::PRIVATE_ENDPOINTS,
        Severity::Error,
        Rejecter::CapzLabelled,
        "Private endpoints on the AzureManagedControlPlane subnet: a name matching ^[-\\w\\._]+$, at least one privateLinkServiceConnection with a resource-id privateLinkServiceID, privateIPAddresses inside the subnet CIDR.",
        "validateManagedClusterNetwork → validatePrivateEndpoints (internal/webhooks/azuremanagedcontrolplane_validation.go, azurecluster_validation.go)",
    ),
    rule(
        update_path::LABELLED_CLUSTER_MISSING,
        Severity::Error,
        Rejecter::CapzCreate,
        "An AzureManagedControlPlane[Template] that carries the cluster.x-k8s.io/cluster-name label needs that Cluster to exist when it is created: earlier in the bundle (apply order), same namespace.",
        "validateManagedClusterNetwork: cli.Get of the labelled Cluster, an InternalError when it fails (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update_path::AAD_ADMIN_GROUPS,
        Severity::Error,
        Rejecter::CapzFirstUpdate,
        "AzureManagedControlPlane[Template] aadProfile.adminGroupObjectIDs must not be empty: create accepts [], every update refuses it.",
        "validateAzureManagedControlPlaneAADProfileUpdateAndLocalAccounts (internal/webhooks/azuremanagedcontrolplane_validation.go); AzureManagedControlPlaneTemplateWebhook.ValidateUpdate",
    ),
    rule(
        update_path::EXTENSION_SCOPE_UPDATE,
        Severity::Error,
        Rejecter::CapzFirstUpdate,
        "AzureManagedControlPlane[Template] extensions with a scope: CAPZ compares the old and new scope pointers, so every update reports the unchanged scope as changed.",
        "validateAKSExtensionsUpdate (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update_path::EXTENSION_DUPLICATE_NAME,
        Severity::Error,
        Rejecter::CapzFirstUpdate,
        "AzureManagedControlPlane[Template] extensions sharing a name: every update compares each extension with the last one of its name, so their differing extensionType, plan, releaseTrain, version, scope or identity read as changes to immutable fields.",
        "validateAKSExtensionsUpdate (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update_path::RESOURCE_GROUP_UPDATE,
        Severity::Error,
        Rejecter::CapzFirstUpdate,
        "AzureManagedControlPlane without resourceGroupName and without the cluster-name label: the first update defaults it from the label and the immutable field changes.",
        "SetDefaultAzureManagedControlPlaneResourceGroupName (internal/api/v1beta1/azuremanagedcontrolplane_default.go) + ValidateImmutable in AzureManagedControlPlaneWebhook.ValidateUpdate",
    ),
    rule(
        update::IMMUTABLE_FIELD,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane[Template] and AzureManagedMachinePool[Template] fields CAPZ forbids to change, set or unset once stored (compared after CAPZ's defaulting): subscriptionID, resourceGroupName, nodeResourceGroupName, location, sshPublicKey (an `\"\"` is a freshly generated key), dnsServiceIP, networkPlugin, networkPolicy, networkDataplane, loadBalancerSKU, httpProxyConfig, azureEnvironment, dnsPrefix, outboundType, virtualNetwork name/cidrBlock/resourceGroup and subnet name/cidrBlock, apiServerAccessProfile but authorizedIPRanges, fleetsMember.name; pool name, osType, sku, osDiskSizeGB, availabilityZones (as a set), maxPods, osDiskType, scaleSetPriority, enableUltraSSD, enableNodePublicIP, nodePublicIPPrefixID, kubeletConfig, kubeletDiskType, linuxOSConfig, and once set subnetName, enableFIPS, enableEncryptionAtHost (pool only).",
        "ValidateUpdate of AzureManagedControlPlaneWebhook, AzureManagedControlPlaneTemplateWebhook, AzureManagedMachinePoolWebhook, AzureManagedMachinePoolTemplateWebhook (internal/webhooks/*_webhook.go); webhookutils.ValidateImmutable (util/webhook/validator.go); validateAzureManagedControlPlane[Template]VirtualNetwork[Template]Update, validateAzureManagedControlPlane[Template]APIServerAccessProfile[Template]Update, validateAzureManagedControlPlaneFleetsMemberUpdate",
    ),
    rule(
        update::VERSION_DOWNGRADE,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane[Template] version must not go down (golang.org/x/mod/semver order: a prerelease sorts below its release).",
        "validateAzureManagedControlPlaneK8sVersionUpdate, validateAzureManagedControlPlaneTemplateK8sVersionUpdate, versions.GetHigherK8sVersion (util/versions)",
    ),
    rule(
        update::AUTO_UPGRADE_CHANNEL_UNSET,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane autoUpgradeProfile.upgradeChannel, once set, must stay set (`none` disables auto upgrades).",
        "validateAzureManagedControlPlaneAutoUpgradeProfile (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update::ADDON_PROFILE_REMOVED,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane addonProfiles: a stored addon profile (by name) must stay; disable it with enabled: false.",
        "validateAzureManagedControlPlaneAddonProfilesUpdate (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update::AAD_PROFILE_UPDATE,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane[Template] aadProfile, once set: not removed, managed not back to false, adminGroupObjectIDs not empty.",
        "validateAzureManagedControlPlaneAADProfileUpdateAndLocalAccounts (internal/webhooks/azuremanagedcontrolplane_validation.go); AzureManagedControlPlaneTemplateWebhook.ValidateUpdate",
    ),
    rule(
        update::LOCAL_ACCOUNTS_UPDATE,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane disableLocalAccounts: set on update only with an aadProfile; once set, not changed or unset.",
        "validateAzureManagedControlPlaneAADProfileUpdateAndLocalAccounts (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update::NETWORK_PLUGIN_MODE_UPDATE,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane networkPluginMode cannot become overlay while the stored object has a networkPolicy.",
        "validateAzureManagedControlPlaneNetworkPluginModeUpdate (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update::OIDC_ISSUER_DISABLED,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane oidcIssuerProfile.enabled cannot go from true to false.",
        "validateAzureManagedControlPlaneOIDCIssuerProfileUpdate (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update::EXTENSION_UPDATE,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane[Template] extensions, each against the stored one of its name: extensionType, plan, releaseTrain and version (when set on both sides) and identity must not change; any scope on either side reads as changed (CAPZ compares the pointers).",
        "validateAKSExtensionsUpdate (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update::SECURITY_PROFILE_UNSET,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedControlPlane[Template] securityProfile azureKeyVaultKms, workloadIdentity, imageCleaner and defender, once set, must stay (disable them instead).",
        "validateAzureManagedControlPlaneClassSpecSecurityProfileUpdate and its helpers (internal/webhooks/azuremanagedcontrolplane_validation.go)",
    ),
    rule(
        update::LAST_SYSTEM_POOL,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedMachinePool[Template] mode System to User needs another stored System pool of the cluster (the pool's cluster-name label; the template webhook reads its nodeLabels instead, so templates pass) and the Cluster.",
        "validateLastSystemNodePool (internal/webhooks/azuremanagedmachinepool_validation.go), called by the pool webhooks' ValidateUpdate",
    ),
    rule(
        update::NODE_LABELS_UPDATE,
        Severity::Error,
        Rejecter::CapzUpdate,
        "AzureManagedMachinePool[Template] nodeLabels keys starting with kubernetes.azure.com, refused by ValidateUpdate too (reported at spec.nodeLabels).",
        "validateNodeLabels in AzureManagedMachinePoolWebhook.ValidateUpdate / AzureManagedMachinePoolTemplateWebhook.ValidateUpdate",
    ),
    rule(
        update::ASO_WRITE_ONCE,
        Severity::Error,
        Rejecter::AsoUpdate,
        "A changed ASO object (standalone, or embedded in an AzureASOManaged* object's spec.resources) whose spec.azureName (as defaulted: empty is metadata.name) or spec.owner (name, armId; added or removed) differs from the stored object's.",
        "genruntime.ValidateWriteOnceProperties in every generated ValidateUpdate of azure-service-operator v2 (v2/pkg/genruntime)",
    ),
    rule(
        update::AKS_IMMUTABLE,
        Severity::Error,
        Rejecter::AksUpdate,
        "A changed ManagedClustersAgentPool (vmSize, osType, osDiskSizeGB, osDiskType, vnetSubnetReference, podSubnetReference, availabilityZones as a set, maxPods, scaleSetPriority, enableUltraSSD, enableNodePublicIP, nodePublicIPPrefixReference, kubeletDiskType) or ManagedCluster (location, dnsPrefix, fqdnSubdomain, nodeResourceGroup, networkProfile.dnsServiceIP, linuxProfile/windowsProfile adminUsername) that sets a property AKS keeps as created to another value than the stored object; compared only where both sides set it. A ManagedCluster's networkProfile.networkPlugin changed other than from kubenet to azure with networkPluginMode overlay.",
        "AKS (learn.microsoft.com/azure/aks/manage-node-pools: the VM size of a node pool cannot change; learn.microsoft.com/azure/aks/upgrade-azure-cni: the migrations to Azure CNI Overlay); the same properties CAPZ's classic AzureManagedMachinePool and AzureManagedControlPlane ValidateUpdate forbid to change because AKS does",
    ),
    rule(
        update::CAPI_REF_REMOVED,
        Severity::Error,
        Rejecter::CapiUpdate,
        "Cluster spec.infrastructureRef or spec.controlPlaneRef set in the stored object and removed (a topology Cluster whose refs the topology controller wrote, and neither side sets, keeps them).",
        "Cluster webhook validate on update (core/webhooks/admission/cluster.go of Cluster API v1.14)",
    ),
    rule(
        update::CAPI_TOPOLOGY_REMOVED,
        Severity::Error,
        Rejecter::CapiUpdate,
        "Cluster spec.topology removed from a stored topology Cluster (managed to unmanaged).",
        "Cluster webhook validate on update (core/webhooks/admission/cluster.go of Cluster API v1.14)",
    ),
    rule(
        update::CAPI_TOPOLOGY_CLASS_SET,
        Severity::Error,
        Rejecter::CapiUpdate,
        "Cluster spec.topology with a class added to a stored Cluster that had none, without the unsafe.topology.cluster.x-k8s.io/disable-update-class-name-check annotation (judged when the bundles hold the ClusterClass).",
        "validateTopology on update (core/webhooks/admission/cluster.go of Cluster API v1.14)",
    ),
    rule(
        update::CAPI_VERSION_DOWNGRADE,
        Severity::Error,
        Rejecter::CapiUpdate,
        "Cluster spec.topology.version lower than the stored one (major.minor.patch; prereleases and build metadata do not count), unless annotated unsafe.topology.cluster.x-k8s.io/disable-update-version-check.",
        "validateTopologyVersionUpdate (core/webhooks/admission/cluster.go of Cluster API v1.14), util/version.Compare WithoutPreReleases",
    ),
    rule(
        update::CAPI_VERSION_SKIP,
        Severity::Error,
        Rejecter::CapiUpdate,
        "Cluster spec.topology.version two or more minors above the stored one when its ClusterClass lists no spec.kubernetesVersions and has no generateUpgradePlan extension, unless annotated unsafe.topology.cluster.x-k8s.io/disable-update-version-check. Assumes a stable cluster: control plane and pools at the stored version, no pending AfterClusterUpgrade hook.",
        "validateTopologyVersionUpdate (core/webhooks/admission/cluster.go of Cluster API v1.14)",
    ),
    rule(
        update::CAPI_TOPOLOGY_CLASS_CHANGE,
        Severity::Error,
        Rejecter::CapiUpdate,
        "Cluster spec.topology class changed to a ClusterClass incompatible with the old one: a different group or kind of the infrastructure, control plane or control plane machine template, or of a same-named worker class's infrastructure template (judged when the bundles hold both ClusterClasses).",
        "validateTopology on update, check.ClusterClassesAreCompatible (core/webhooks/admission/cluster.go, internal/topology/check/compatibility.go of Cluster API v1.14)",
    ),
    rule(
        update::CAPI_CLUSTERCLASS_INCOMPATIBLE,
        Severity::Error,
        Rejecter::CapiUpdate,
        "ClusterClass changed incompatibly: the group or kind of its infrastructure, control plane or control plane machine template (machineInfrastructure added or removed counts), or of a kept worker class's infrastructure template.",
        "ClusterClass webhook ValidateUpdate, check.ClusterClassesAreCompatible (core/webhooks/admission/clusterclass.go, internal/topology/check/compatibility.go of Cluster API v1.14)",
    ),
    rule(
        update::CAPI_CLUSTERCLASS_IN_USE,
        Severity::Error,
        Rejecter::CapiUpdate,
        "ClusterClass change a stored Cluster of the class still relies on: a removed MachineDeployment or MachinePool class it uses, a removed health check it enables without its own, spec.kubernetesVersions without its version.",
        "validateRemovedMachineDeploymentClassesAreNotUsed, validateRemovedMachinePoolClassesAreNotUsed, validateUpdatesToMachineHealthCheckClasses, validateKubernetesVersionsOfClusters (core/webhooks/admission/clusterclass.go of Cluster API v1.14)",
    ),
    rule(
        update::CAPI_IMMUTABLE_FIELD,
        Severity::Error,
        Rejecter::CapiUpdate,
        "MachinePool spec.clusterName changed.",
        "MachinePool webhook validate on update (core/webhooks/admission/machinepool.go of Cluster API v1.14)",
    ),
    rule(
        network::TEMPLATE_INSTANCE,
        Severity::Error,
        Rejecter::CapzTemplateInstance,
        "AzureManaged*Template values the template webhook does not check but CAPZ rejects on every object the topology controller creates from the template: networkPluginMode overlay with kubenet, identity, disableLocalAccounts without aadProfile (control plane), subnetName (machine pool); and a topology Cluster whose name (the prefix of its control plane's name) holds `microsoft` or `windows`.",
        "validateAzureManagedControlPlaneNetworkPluginMode, validateAzureManagedControlPlaneIdentity, validateAzureManagedControlPlaneDisableLocalAccounts, validateMPSubnetName, validateName: called by the AzureManagedControlPlane / AzureManagedMachinePool webhooks, not by validateAzureManagedControlPlaneTemplate or AzureManagedMachinePoolTemplateWebhook.ValidateCreate",
    ),
    rule(
        aso_resources::MANAGED_CLUSTER_COUNT,
        Severity::Error,
        Rejecter::CapzMutator,
        "An AzureASOManagedControlPlane's spec.resources must hold exactly one containerservice.azure.com ManagedCluster.",
        "SetManagedClusterDefaults / ErrNoManagedClusterDefined (pkg/mutators/azureasomanagedcontrolplane.go)",
    ),
    rule(
        aso_resources::AGENT_POOL_RESOURCE_COUNT,
        Severity::Error,
        Rejecter::CapzMutator,
        "An AzureASOManagedMachinePool's spec.resources must hold exactly one containerservice.azure.com ManagedClustersAgentPool.",
        "SetAgentPoolDefaults / ErrNoManagedClustersAgentPoolDefined (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        aso_resources::AGENT_POOL_PROFILES,
        Severity::Error,
        Rejecter::CapzMutator,
        "The ManagedCluster embedded in an AzureASOManagedControlPlane must not set spec.agentPoolProfiles; pools come from AzureASOManagedMachinePools.",
        "setManagedClusterAgentPoolProfiles (pkg/mutators/azureasomanagedcontrolplane.go)",
    ),
    rule(
        aso_resources::RECONCILE_POLICY,
        Severity::Error,
        Rejecter::CapzMutator,
        "An embedded ASO resource's serviceoperator.azure.com/reconcile-policy annotation must be absent or `skip`, otherwise pausing the Cluster (clusterctl move) fails.",
        "Pause (pkg/mutators/mutator.go)",
    ),
    rule(
        mutators::KUBERNETES_VERSION_MISMATCH,
        Severity::Error,
        Rejecter::CapzMutator,
        "The embedded ManagedCluster's kubernetesVersion, if set, must equal the AzureASOManagedControlPlane's spec.version without the leading `v`.",
        "setManagedClusterKubernetesVersion (pkg/mutators/azureasomanagedcontrolplane.go)",
    ),
    rule(
        mutators::ORCHESTRATOR_VERSION_MISMATCH,
        Severity::Error,
        Rejecter::CapzMutator,
        "The embedded ManagedClustersAgentPool's orchestratorVersion, if set, must equal its MachinePool's spec.template.spec.version without the leading `v`.",
        "setAgentPoolOrchestratorVersion (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        mutators::NETWORK_CIDR_MISMATCH,
        Severity::Error,
        Rejecter::CapzMutator,
        "The embedded ManagedCluster's networkProfile.serviceCidr/podCidr, if set, must equal the Cluster's first services/pods cidrBlock.",
        "setManagedClusterServiceCIDR, setManagedClusterPodCIDR (pkg/mutators/azureasomanagedcontrolplane.go)",
    ),
    rule(
        mutators::AGENT_POOL_COUNT_MISMATCH,
        Severity::Error,
        Rejecter::CapzMutator,
        "The embedded ManagedClustersAgentPool's count, if set, must equal its MachinePool's spec.replicas (autoscaled pools: see capz-autoscaled-pool-count).",
        "setAgentPoolCount (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        mutators::AUTOSCALED_POOL_COUNT,
        Severity::Warning,
        Rejecter::CapzMutator,
        "An autoscaled agent pool's count, if set, should equal its MachinePool's spec.replicas: CAPZ still enforces it until the agent pool exists.",
        "setAgentPoolCount (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        mutators::AUTOSCALING_REPLICAS_MANAGER,
        Severity::Error,
        Rejecter::CapzMutator,
        "An agent pool with enableAutoScaling needs its MachinePool's cluster.x-k8s.io/replicas-managed-by annotation absent or `aks`.",
        "reconcileAutoscaling (pkg/mutators/azureasomanagedmachinepool.go)",
    ),
    rule(
        credentials::EMPTY_SSH_KEY,
        Severity::Warning,
        Rejecter::CapzDefaulting,
        "AzureManagedControlPlane sshPublicKey set to \"\": the webhook generates a random key into an immutable field, so the Git value never applies again.",
        "SetDefaultAzureManagedControlPlaneSSHPublicKey (internal/api/v1beta1/azuremanagedcontrolplane_default.go)",
    ),
    rule(
        network::TEMPLATE_VNET_NAME,
        Severity::Warning,
        Rejecter::CapzDefaulting,
        "AzureManagedControlPlaneTemplate must not name its virtual network: every Cluster of the class would share the name.",
        "setDefaultAzureManagedControlPlaneTemplateVirtualNetwork (internal/api/v1beta1/azuremanagedcontrolplanetemplate_default.go)",
    ),
    rule(
        twins::AKS_DNS_PREFIX,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedCluster dnsPrefix: 1-54 alphanumerics or hyphens, starting and ending alphanumeric.",
        "AKS documentation: learn.microsoft.com/troubleshoot/azure/azure-kubernetes/create-upgrade-delete/aks-common-issues-faq, What naming restrictions are enforced for AKS resources and parameters? (the DNS prefix starts and ends with alphanumerics, 1-54 characters, alphanumerics and hyphens; AKS returns an error otherwise); CAPZ's validateAzureManagedControlPlaneDNSPrefix (internal/webhooks/azuremanagedcontrolplane_validation.go) checks the same on AzureManagedControlPlane; ASO's CRD has no pattern for dnsPrefix",
    ),
    rule(
        twins::AKS_RESERVED_NAME,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedCluster name (azureName, else metadata.name) must not contain `microsoft` or `windows`.",
        "Azure Resource Manager documentation: learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-reserved-resource-name (ReservedResourceName: MICROSOFT and WINDOWS cannot be a whole word or a substring of the name of a resource with an accessible endpoint, such as the AKS API server FQDN); CAPZ's validateName (internal/webhooks/azuremanagedcontrolplane_validation.go) checks the same on AzureManagedControlPlane",
    ),
    rule(
        twins::AKS_POOL_NAME,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedClustersAgentPool name (azureName, else metadata.name): lowercase letter first, lowercase alphanumerics, at most 12 characters (Linux) or 6 (Windows).",
        "AKS documentation: learn.microsoft.com/azure/aks/use-system-pools, Limitations (lowercase alphanumerics starting with a letter, 1-12 characters for Linux, 1-6 for Windows node pools) and the Agent Pools REST API (name pattern ^[a-z][a-z0-9]{0,11}$); CAPZ's validateMPName, validateNameLength, validateNamePattern check the same on AzureManagedMachinePool",
    ),
    rule(
        twins::AKS_SYSTEM_POOL_LINUX,
        Severity::Error,
        Rejecter::Aks,
        "An ASO ManagedClustersAgentPool with mode System must have osType Linux.",
        "AKS documentation: learn.microsoft.com/azure/aks/use-system-pools (system node pools use Ubuntu Linux or Azure Linux; Windows pools are User pools); CAPZ's validateOSType (internal/webhooks/azuremanagedmachinepool_validation.go) checks the same on AzureManagedMachinePool",
    ),
    rule(
        twins::AKS_MAX_PODS,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedClustersAgentPool maxPods must be 10 to 250.",
        "AKS documentation: learn.microsoft.com/azure/aks/concepts-network-ip-address-planning, Configuring maximum pods per node for your clusters (Azure CNI and kubenet: minimum 10, maximum 250; \"The minimum value in the previous table is strictly enforced by the AKS service\") and learn.microsoft.com/azure/aks/quotas-skus-regions (maximum pods per node: 250); CAPZ's validateMaxPods (internal/webhooks/azuremanagedmachinepool_validation.go) checks the same on AzureManagedMachinePool",
    ),
    rule(
        twins::AKS_NODE_LABELS,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedClustersAgentPool nodeLabels keys must not start with `kubernetes.azure.com`.",
        "AKS documentation: learn.microsoft.com/azure/aks/use-labels, Unavailable labels (kubernetes.azure.com/ is a reserved prefix; changing reserved labels results in an error); CAPZ's validateNodeLabels with azureutil.IsAzureSystemNodeLabelKey (internal/webhooks/azuremanagedmachinepool_validation.go) checks the same on AzureManagedMachinePool",
    ),
    rule(
        twins::AKS_NODE_PUBLIC_IP,
        Severity::Warning,
        Rejecter::AksUndocumented,
        "ASO ManagedClustersAgentPool nodePublicIPPrefixReference without enableNodePublicIP: true: AKS gives nodes public IPs (from the prefix too) only with enableNodePublicIP; a warning, as no AKS document says AKS rejects the pool.",
        "CAPZ's validateNodePublicIPPrefixID, validateEnableNodePublicIP (internal/webhooks/azuremanagedmachinepool_validation.go) on AzureManagedMachinePool only; AKS documentation learn.microsoft.com/azure/aks/use-node-public-ips (a public IP prefix is used together with --enable-node-public-ip); no ASO webhook or CRD rule",
    ),
    rule(
        twins::AKS_KUBELET_CONFIG,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedClustersAgentPool kubeletConfig: cpuCfsQuotaPeriod in ms, imageGcLowThreshold not above imageGcHighThreshold, allowed unsafe sysctls.",
        "AKS documentation: learn.microsoft.com/azure/aks/custom-node-configuration, Supported custom configuration parameters (kubelet: cpuCfsQuotaPeriod in milliseconds, imageGcLowThreshold not above imageGcHighThreshold, allowedUnsafeSysctls kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*); CAPZ's validateKubeletConfig (internal/webhooks/azuremanagedmachinepool_validation.go) checks the same on AzureManagedMachinePool",
    ),
    rule(
        twins::AKS_LINUX_OS_CONFIG,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedClustersAgentPool linuxOSConfig: swapFileSizeMB needs failSwapOn false; sysctls.netIpv4IpLocalPortRange (ASO's spelling) ranges.",
        "AKS documentation: learn.microsoft.com/azure/aks/custom-node-configuration, Supported custom configuration parameters (Linux OS: swapFileSizeMB with failSwapOn false, net.ipv4.ip_local_port_range); CAPZ's validateLinuxOSConfig (internal/webhooks/azuremanagedmachinepool_validation.go) checks the same on AzureManagedMachinePool",
    ),
    rule(
        twins::AKS_NETWORK_PLUGIN,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedCluster networkProfile: overlay mode not with kubenet; cilium policy needs the cilium dataplane. (Unlike CAPZ's classic webhook, no overlay requirement for the cilium dataplane: AKS runs it with overlay, pod subnet or node subnet IP assignment.)",
        "AKS documentation: learn.microsoft.com/azure/aks/azure-cni-overlay (overlay mode is a mode of networkPlugin azure) and learn.microsoft.com/azure/aks/azure-cni-powered-by-cilium (Cilium network policy runs on the Cilium dataplane; overlay, pod subnet and node subnet modes); CAPZ's validateAzureManagedControlPlaneNetworkPluginMode, validateNetworkPolicy check the same on AzureManagedControlPlane",
    ),
    rule(
        twins::AKS_LOAD_BALANCER_PROFILE,
        Severity::Warning,
        Rejecter::AksUndocumented,
        "ASO ManagedCluster loadBalancerProfile with more than one of managedOutboundIPs, outboundIPPrefixes and outboundIPs: AKS documents them as alternative outbound sources; a warning, as no AKS document says AKS rejects the combination. (Its ranges are the ASO CRD's minimum/maximum: schema errors.)",
        "CAPZ's validateLoadBalancerProfile (internal/webhooks/azuremanagedcontrolplane_validation.go) on AzureManagedControlPlane only; AKS documentation learn.microsoft.com/azure/aks/configure-load-balancer-standard (Set the allocated outbound ports and outbound IPs: either managed outbound IP count, outbound IPs or outbound IP prefixes); no ASO webhook or CRD rule",
    ),
    rule(
        twins::AKS_AUTOSCALER_PROFILE,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedCluster autoScalerProfile values (kebab-case keys): the ranges and formats CAPZ checks on AzureManagedControlPlane.",
        "AKS REST API documentation: learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update, ManagedClusterPropertiesAutoScalerProfile (e.g. max-node-provision-time \"Values must be an integer followed by an 'm'\", max-total-unready-percentage \"The maximum is 100 and the minimum is 0\"); CAPZ's validateAutoScalerProfile (internal/webhooks/azuremanagedcontrolplane_validation.go) checks the same on AzureManagedControlPlane; ASO's CRD has no pattern or range for these values",
    ),
    rule(
        twins::AKS_SECURITY_PROFILE,
        Severity::Warning,
        Rejecter::AksUndocumented,
        "ASO ManagedCluster securityProfile.workloadIdentity.enabled without oidcIssuerProfile.enabled: AKS workload identity federates through the cluster's OIDC issuer and does not work without it; a warning, as no AKS document says AKS rejects the cluster.",
        "CAPZ's validateAzureManagedControlPlaneClassSpecWorkloadIdentity (internal/webhooks/azuremanagedcontrolplane_validation.go) on AzureManagedControlPlane only; AKS documentation learn.microsoft.com/azure/aks/workload-identity-deploy-cluster (the cluster is created or updated with the OIDC issuer and workload identity together); no ASO webhook or CRD rule",
    ),
    rule(
        twins::AKS_DISABLE_LOCAL_ACCOUNTS,
        Severity::Error,
        Rejecter::Aks,
        "ASO ManagedCluster disableLocalAccounts: true only with an aadProfile.",
        "AKS REST API documentation: learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update, properties.disableLocalAccounts (\"must only be used on Managed Clusters that are AAD enabled\"); CAPZ's validateAzureManagedControlPlaneDisableLocalAccounts (internal/webhooks/azuremanagedcontrolplane_validation.go) checks the same on AzureManagedControlPlane",
    ),
    rule(
        pools::SYSTEM_POOL_REQUIRED,
        Severity::Error,
        Rejecter::Aks,
        "Every AKS Cluster needs at least one MachinePool whose agent pool has mode System (AKS refuses to create the cluster; CAPZ's webhook only guards the last System pool on update and delete).",
        "AKS system pool requirement; validateLastSystemNodePool (internal/webhooks/azuremanagedmachinepool_validation.go) on update/delete only",
    ),
    rule(
        pools::SYSTEM_POOL_REPLICAS,
        Severity::Error,
        Rejecter::Aks,
        "A System agent pool needs at least one node: its MachinePool's spec.replicas, or a topology Cluster's machinePools[].replicas for a System pool class, must not be 0 (unless AKS autoscales the pool), and an autoscaled System pool's minCount (scaling.minSize) must be at least 1.",
        "AKS system pool minimum (learn.microsoft.com/azure/aks/use-system-pools); CAPZ copies MachinePool replicas into the agent pool count (setAgentPoolCount, pkg/mutators/azureasomanagedmachinepool.go; ManagedMachinePoolScope.AgentPoolSpec, azure/scope/managedmachinepool.go)",
    ),
    rule(
        capi_webhooks::CLUSTERCLASS_WEBHOOK,
        Severity::Error,
        Rejecter::CapiWebhook,
        "ClusterClass: CAPI's webhook checks (template references, patches and their selectors, variables, worker classes, naming templates, health checks), as `plan` runs them.",
        "ClusterClass webhook ValidateCreate (internal/webhooks/clusterclass.go, patch_validation.go; CAPI v1.14)",
    ),
    rule(
        capi_webhooks::CLUSTER_WEBHOOK,
        Severity::Error,
        Rejecter::CapiWebhook,
        "A topology Cluster whose ClusterClass is in the bundle: CAPI's defaulting, then its checks (variable values against the class's schemas, version, worker topologies, health checks), as `plan` runs them.",
        "Cluster webhook Default and ValidateCreate (internal/webhooks/cluster.go; CAPI v1.14)",
    ),
    rule(
        refs::UNRESOLVED_REF,
        Severity::Error,
        Rejecter::Capi,
        "controlPlaneRef, infrastructureRef, MachinePool/MachineDeployment/MachineSet/Machine infrastructureRef/configRef and ClusterClass template references must name an object in the bundle, by API group, kind and name in the referencing object's own namespace (a v1beta1 reference's namespace is dropped when CAPI converts it to v1beta2).",
        "external.GetObjectFromContractVersionedRef / external.Get in the CAPI Cluster, Machine* and ClusterClass reconcilers; convertToContractVersionedObjectReference (core/webhooks/conversion/common.go; CAPI v1.14)",
    ),
    rule(
        refs::INCOMPLETE_REF,
        Severity::Error,
        Rejecter::Capi,
        "A v1beta1 controlPlaneRef, infrastructureRef or MachinePool/MachineDeployment/MachineSet/Machine infrastructureRef/configRef that is set but has no kind, no API group (apiVersion) or no name: CAPI looks references up through the CRD of their group and kind, so it can never resolve it (a v1beta2 reference without them is a schema error).",
        "convertToContractVersionedObjectReference (core/webhooks/conversion/common.go), then external.GetObjectFromContractVersionedRef → contract.GetGKMetadata (controllers/external/util.go, internal/contract/version.go; CAPI v1.14)",
    ),
    rule(
        refs::UNRESOLVED_OWNER,
        Severity::Warning,
        Rejecter::Aso,
        "An ASO resource's spec.owner.name names no ASO object of the owner kind in the same namespace of the bundle: ASO waits (it does not reject) until the owner exists, which may be applied separately.",
        "ASO owner resolution of the resources CAPZ applies (controllers/resource_reconciler.go reconcile)",
    ),
    rule(
        refs::MISNAMED_OWNER,
        Severity::Error,
        Rejecter::Aso,
        "An embedded ASO resource's spec.owner.name names no object of the bundle while the AzureASOManaged* objects of the same cluster embed an owner of that kind under another name: ASO waits forever.",
        "ASO owner resolution of the resources CAPZ applies (controllers/resource_reconciler.go reconcile)",
    ),
    rule(
        credentials::CREDENTIAL_SECRET,
        Severity::Warning,
        Rejecter::Aso,
        "The Secret named by serviceoperator.azure.com/credential-from should be in the bundle, in the same namespace (clusterctl templates do not ship it).",
        "ASO credential lookup (serviceoperator.azure.com/credential-from); templates/flavors/aks-aso/credentials.yaml",
    ),
    rule(
        credentials::CREDENTIAL_SECRET_KEYS,
        Severity::Error,
        Rejecter::Aso,
        "An ASO credential Secret in the bundle must hold AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID (data or stringData).",
        "newCredentialFromSecret (ASO v2/internal/identity/credential_provider.go)",
    ),
    rule(
        credentials::USER_CREDENTIALS_NAME,
        Severity::Error,
        Rejecter::Aso,
        "The embedded ManagedCluster's operatorSpec.secrets.userCredentials must not be named `<cluster>-kubeconfig`: CAPZ writes that Secret itself, so the two overwrite each other.",
        "docs/book/src/managed/asomanagedcluster.md; setManagedClusterCredentials (pkg/mutators/azureasomanagedcontrolplane.go) leaves user credentials alone",
    ),
    rule(
        credentials::CREDENTIAL_SECRET_MOVE,
        Severity::Warning,
        Rejecter::Clusterctl,
        "An ASO credential Secret in the bundle should carry the clusterctl.cluster.x-k8s.io/move label, or clusterctl move leaves it behind.",
        "clusterctl move object graph (ClusterctlMoveLabel, cmd/clusterctl/client/cluster/objectgraph.go); CAPZ#6657",
    ),
    rule(
        deprecated::DEPRECATED_API,
        Severity::Info,
        Rejecter::ApiServer,
        "Deprecated CAPZ APIs: AzureManaged* (migrate to AzureASOManaged* v1beta1: `kubectl capz migrate`) and AzureASOManaged* v1alpha1 (move to v1beta1: `kubectl capz convert`).",
        "deprecatedversion markers (api/v1beta1/azuremanaged*_types.go, api/v1alpha1/azureasomanaged*_types.go)",
    ),
    RuleInfo {
        enabled_by_default: false,
        ..rule(
            deprecated::CAPI_V1BETA1,
            Severity::Info,
            Rejecter::ApiServer,
            "CAPI v1beta1 objects (Cluster, MachinePool, ClusterClass, KubeadmConfigTemplate, ...): v1beta2 is the served storage version (`kubectl capz convert` upgrades the files); off by default because CAPZ's own templates still use v1beta1.",
            "CAPI v1beta1 deprecation (api/core/v1beta1, api/bootstrap/kubeadm/v1beta1)",
        )
    },
    rule(
        aso_patches::PATCH_BROKEN,
        Severity::Error,
        Rejecter::CapzMutator,
        "An asoManagedClusterPatches / asoManagedClustersAgentPoolPatches entry CAPZ cannot apply: not YAML, or the merged object no longer decodes as the ASO kind (a list or scalar patch, a value of the wrong type).",
        "aso.PatchedParameters / applyPatches (azure/services/aso/aso.go)",
    ),
    rule(
        aso_patches::PATCH_NO_OP,
        Severity::Warning,
        Rejecter::NoEffect,
        "An asoManagedClusterPatches / asoManagedClustersAgentPoolPatches entry that changes nothing in the ASO object CAPZ generates (it sets what CAPZ already sets, or fields the ASO type lacks, which CAPZ's decode drops).",
        "aso.PatchedParameters (azure/services/aso/aso.go) on ManagedClusterSpec / AgentPoolSpec.Parameters",
    ),
    rule(
        aso_patches::PATCH_SCHEMA,
        Severity::Error,
        Rejecter::Aso,
        "With asoManagedClusterPatches / asoManagedClustersAgentPoolPatches applied, the ManagedCluster / ManagedClustersAgentPool CAPZ creates fails ASO's schema for its apiVersion, or has an apiVersion the target's ASO does not serve (reported at the last patch; a kind without any schema: aso-patched-object-unchecked).",
        "aso.PatchedParameters (azure/services/aso/aso.go), then the ASO CRD's validation at create",
    ),
    rule(
        aso_patches::PATCH_UNCHECKED,
        Severity::Info,
        Rejecter::Aso,
        "With asoManagedClusterPatches / asoManagedClustersAgentPoolPatches, the ManagedCluster / ManagedClustersAgentPool CAPZ creates is of a group/kind without any ASO schema (a patch changed its apiVersion or kind to one the target does not have): not checked, neither valid nor invalid.",
        "aso.PatchedParameters (azure/services/aso/aso.go), then the ASO CRD's validation at create",
    ),
    rule(
        aso_patches::CREATED_SCHEMA,
        Severity::Error,
        Rejecter::Aso,
        "A classic cluster (AzureManagedControlPlane, AzureManagedCluster, AzureManagedMachinePools) whose ManagedCluster / ManagedClustersAgentPools, as CAPZ creates them at reconcile, fail ASO's schema for their apiVersion (the azureName pattern a control plane name with a dot breaks, an enum CAPZ's CRD does not have): ASO rejects them, the cluster never provisions; reported on the classic field the value comes from (metadata.name for the ManagedCluster's azureName), unless a classic rule already reports that field.",
        "ManagedClusterSpec.Parameters (azure/services/managedclusters/spec.go), AgentPoolSpec.Parameters (azure/services/agentpools/spec.go), then the ASO CRD's validation at create",
    ),
    rule(
        aso_patches::PATCH_OWNED_FIELD,
        Severity::Warning,
        Rejecter::CapzMutator,
        "An asoManagedClusterPatches / asoManagedClustersAgentPoolPatches entry that changes a field CAPZ owns: metadata it sets after the patches, owner, azureName, operatorSpec, agentPoolProfiles.",
        "CreateOrUpdateResource (azure/services/aso/aso.go), ManagedClusterSpec.Parameters (azure/services/managedclusters/spec.go)",
    ),
    rule(
        duplicates::DUPLICATE_OBJECT,
        Severity::Warning,
        Rejecter::KubectlApply,
        "The same object (API group, kind, namespace, name) defined more than once with different content within one apply unit (a file, a kustomize root, a chart render, what one Flux Kustomization or HelmRelease or Argo CD Application applies): `kubectl apply` of the unit keeps the last copy; reported on every other copy with where the copies are (identical copies are not reported). Across units only when two GitOps objects apply it to the same cluster and namespace: one finding naming its owners (each overwrites the other's copy; pruning either deletes it). Units no GitOps object applies (a chart's own renders, alternative files such as CAPZ's calico and calico-ipv6 addons) are never compared. Each copy is checked with the objects of its own unit.",
        "kubectl apply (each copy is applied in turn: the last one stays); Argo CD's shared-resource warning and Flux's ownership labels (two owners of one object)",
    ),
    rule(
        crate::change::DELETES_RULE,
        Severity::Error,
        Rejecter::GitopsPrune,
        "A change review (`diff --base`): a Cluster, control plane, AzureASOManagedCluster/AzureManagedCluster, MachinePool or pool, or an ASO resource that the change removes from a unit that prunes (a Flux Kustomization with `prune: true`, a HelmRelease, an Argo CD Application with automated prune): it is deleted, and with it what it stands for in Azure; at the removed object's line in the base.",
        "Flux kustomize-controller's garbage collection, Helm's upgrade, Argo CD's automated prune; CAPI's and CAPZ's delete reconcilers, ASO's delete of an Azure resource",
    ),
    rule(
        crate::change::DETACHED_RULE,
        Severity::Warning,
        Rejecter::GitopsPrune,
        "A change review: as gitops-prune-deletes, but every ASO object involved carries `serviceoperator.azure.com/reconcile-policy: detach-on-delete` (or `skip`): the Kubernetes objects are deleted, the Azure resources are kept.",
        "ASO's reconcile policy (serviceoperator.azure.com/reconcile-policy)",
    ),
    rule(
        crate::change::NOT_PRUNED_RULE,
        Severity::Info,
        Rejecter::GitopsPrune,
        "A change review: such an object is no longer in the repository, but what applied it does not prune (a Flux Kustomization with `prune: false`, a plain apply): it stays on the cluster.",
        "Flux kustomize-controller and Argo CD without prune",
    ),
    rule(
        crate::change::ROLLING_RULE,
        Severity::Info,
        Rejecter::Rolling,
        "A change review: a change that rolls nodes or upgrades the control plane — a MachinePool's Kubernetes version, an AzureASOManagedControlPlane's or AzureManagedControlPlane's version, an embedded agent pool's orchestratorVersion, nodeImageVersion or osSKU; at the changed line.",
        "CAPI's MachinePool rollout, AKS's cluster and agent pool upgrade",
    ),
];
