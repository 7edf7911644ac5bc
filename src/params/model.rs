//! The `Params` struct tree: every parameter of every flavor, typed, documented and defaulted.
//!
//! Field names are the camelCase keys of a values file. Doc comments are the help text of
//! `kubectl capz params` and the descriptions of the JSON Schema (`kubectl capz params --schema`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A free-form object deep-merged (JSON merge patch: objects merge, lists and scalars replace,
/// `null` deletes) into a rendered object, e.g. `{spec: {sku: {tier: Standard}}}`.
pub type Overlay = Map<String, Value>;

/// The largest replica count or node count the APIs take: their fields are int32.
pub const INT32_MAX: u32 = i32::MAX as u32;

/// Parameters of the `aks` and `aks-aso` flavors and of the ClusterClasses and topology Clusters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
#[schemars(title = "kubectl-capz values")]
pub struct Params {
    /// Name of the Cluster and of the objects derived from it (DNS-1123 label; at most 54
    /// characters, since it is also the AKS DNS prefix).
    pub cluster_name: Option<String>,
    /// Namespace of every rendered object (DNS-1123 label).
    pub namespace: String,
    /// Kubernetes version of the control plane and the pools, e.g. v1.33.2 (a missing `v` is added).
    pub kubernetes_version: Option<String>,
    /// Azure region, e.g. eastus.
    pub location: Option<String>,
    /// Azure subscription ID.
    pub subscription_id: Option<String>,
    /// Azure (Entra ID) tenant ID.
    pub tenant_id: Option<String>,
    /// Azure resource group of the cluster (default: the cluster name). With aks-aso it becomes the
    /// ResourceGroup's azureName when it differs from the cluster name.
    pub resource_group_name: Option<String>,
    /// The identity CAPZ uses to reach Azure (aks: an AzureClusterIdentity; aks-aso: the client ID
    /// of the ASO credential Secret).
    pub identity: Identity,
    /// The Secret holding the credentials ASO uses for this cluster (aks-aso).
    pub aso_credential_secret: AsoCredentialSecret,
    /// Cluster networking.
    pub network: Network,
    /// Base64-encoded SSH public key of the nodes (empty: none; AKS generates one).
    pub ssh_public_key: String,
    /// Name of the ClusterClass (ClusterClass and topology flavors).
    pub cluster_class_name: Option<String>,
    /// Values every pool gets unless it sets its own.
    pub pool_defaults: PoolDefaults,
    /// The node pools: one MachinePool and one AzureManagedMachinePool or
    /// AzureASOManagedMachinePool each. At least one must be a Linux System pool.
    pub pools: Vec<Pool>,
    /// aks-aso: disable AKS local accounts (AKS Automatic style): sets `disableLocalAccounts`, an Entra ID
    /// profile with Azure RBAC (`aadProfile: {managed: true, enableAzureRBAC: true}`) and has ASO write the
    /// user kubeconfig to `<cluster>-user-kubeconfig` (CAPZ owns `<cluster>-kubeconfig`). The ASO
    /// credential's identity needs the "Azure Kubernetes Service RBAC Cluster Admin" role.
    pub disable_local_accounts: bool,
    /// aks: overlay deep-merged into the AzureManagedControlPlane (e.g. `{spec: {sku: {tier: Standard}}}`).
    pub control_plane: Overlay,
    /// aks, aks-topology: the AzureManagedControlPlane's `spec.asoManagedClusterPatches`: JSON merge patches
    /// (each a YAML or JSON string) CAPZ applies, in order, to the ASO ManagedCluster it creates, e.g.
    /// `'{"spec": {"nodeProvisioningProfile": {"mode": "Auto"}}}'`. Checked at render: a patch CAPZ cannot apply
    /// is an error; one that changes nothing or changes a field CAPZ owns is a finding of `--validate`.
    /// aks-topology passes them in the class variable controlPlaneSpec.
    pub aso_managed_cluster_patches: Vec<String>,
    /// aks-aso: overlay deep-merged into the embedded ASO ManagedCluster
    /// (e.g. `{spec: {autoUpgradeProfile: {upgradeChannel: stable}}}`).
    pub managed_cluster: Overlay,
    /// aks-aso: overlay deep-merged into the embedded ASO ResourceGroup (e.g. `{spec: {tags: {team: a}}}`).
    pub resource_group: Overlay,
    /// aks-aso: AKS maintenance configurations (the shape of CAPZ's aks-aso-maintenance flavor).
    pub maintenance: Maintenance,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            cluster_name: None,
            namespace: "default".to_string(),
            kubernetes_version: None,
            location: None,
            subscription_id: None,
            tenant_id: None,
            resource_group_name: None,
            identity: Identity::default(),
            aso_credential_secret: AsoCredentialSecret::default(),
            network: Network::default(),
            ssh_public_key: String::new(),
            cluster_class_name: None,
            pool_defaults: PoolDefaults::default(),
            pools: vec![Pool::named("pool0", PoolMode::System), Pool::named("pool1", PoolMode::User)],
            disable_local_accounts: false,
            control_plane: Overlay::new(),
            aso_managed_cluster_patches: Vec::new(),
            managed_cluster: Overlay::new(),
            resource_group: Overlay::new(),
            maintenance: Maintenance::default(),
        }
    }
}

/// The identity CAPZ uses to reach Azure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Identity {
    /// Name of the AzureClusterIdentity (aks).
    pub name: Option<String>,
    /// Type of the AzureClusterIdentity (aks).
    #[serde(rename = "type")]
    pub kind: IdentityType,
    /// Client ID of the user-assigned identity (or service principal).
    pub client_id: Option<String>,
}

impl Default for Identity {
    fn default() -> Self {
        Identity { name: None, kind: IdentityType::WorkloadIdentity, client_id: None }
    }
}

/// AzureClusterIdentity types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum IdentityType {
    WorkloadIdentity,
    ServicePrincipal,
    ServicePrincipalCertificate,
    ManualServicePrincipal,
    UserAssignedMSI,
    UserAssignedIdentityCredential,
}

/// The Secret holding the credentials ASO uses (annotation `serviceoperator.azure.com/credential-from`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct AsoCredentialSecret {
    /// Name of the Secret.
    pub name: Option<String>,
    /// Also render the Secret (keys AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID, AZURE_CLIENT_ID,
    /// AUTH_MODE, as CAPZ's flavors/aks-aso/credentials.yaml); needs subscriptionId, tenantId and
    /// identity.clientId.
    pub create: bool,
    /// AUTH_MODE of the Secret.
    pub auth_mode: String,
}

impl Default for AsoCredentialSecret {
    fn default() -> Self {
        AsoCredentialSecret { name: None, create: false, auth_mode: "workloadidentity".to_string() }
    }
}

/// Cluster networking.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Network {
    /// Network plugin: azure, kubenet or none (aks-aso: default azure as CAPZ's flavor; aks: CAPZ's default).
    pub plugin: Option<String>,
    /// Network plugin mode, e.g. overlay.
    pub plugin_mode: Option<String>,
    /// Network policy: azure, calico or cilium.
    pub policy: Option<String>,
    /// Service CIDRs (default: 192.168.0.0/16 for aks as CAPZ's flavor; AKS's default for aks-aso).
    pub service_cidrs: Option<Vec<String>>,
    /// Pod CIDRs (only with plugin mode overlay or kubenet).
    pub pod_cidrs: Option<Vec<String>>,
}

/// Values every pool gets unless it sets its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct PoolDefaults {
    /// VM size of the pools, e.g. Standard_D2s_v3.
    pub vm_size: Option<String>,
    /// Number of nodes of the pools (CAPZ's template renders 0 under clusterctl unless
    /// WORKER_MACHINE_COUNT is set; 2 here).
    #[schemars(range(max = INT32_MAX))]
    pub replicas: u32,
}

impl Default for PoolDefaults {
    fn default() -> Self {
        PoolDefaults { vm_size: None, replicas: 2 }
    }
}

/// One AKS node pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Pool {
    /// AKS agent pool name: lowercase letters and digits, starting with a letter, at most 12
    /// characters (6 for Windows). The CAPI objects are named `<clusterName>-<name>`.
    pub name: String,
    /// System pools run critical system pods; at least one Linux System pool is required.
    #[serde(default = "default_pool_mode")]
    pub mode: PoolMode,
    /// VM size (default: poolDefaults.vmSize).
    #[serde(default)]
    pub vm_size: Option<String>,
    /// Number of nodes (default: poolDefaults.replicas).
    #[serde(default)]
    #[schemars(range(max = INT32_MAX))]
    pub replicas: Option<u32>,
    /// Cluster autoscaler bounds; replicas must lie within them.
    #[serde(default)]
    pub autoscaling: Option<Autoscaling>,
    /// Operating system.
    #[serde(default = "default_os_type")]
    pub os_type: OsType,
    /// OS SKU, e.g. Ubuntu, AzureLinux, Windows2022 (aks-aso only).
    #[serde(default)]
    pub os_sku: Option<String>,
    /// Availability zones, e.g. ["1", "2", "3"].
    #[serde(default)]
    pub zones: Vec<String>,
    /// Kubernetes labels of the nodes.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Kubernetes taints of the nodes.
    #[serde(default)]
    pub taints: Vec<Taint>,
    /// aks-aso: overlay deep-merged into the embedded ASO ManagedClustersAgentPool
    /// (e.g. `{spec: {maxPods: 50}}`).
    #[serde(default)]
    pub agent_pool: Overlay,
    /// aks: overlay deep-merged into the AzureManagedMachinePool (e.g. `{spec: {osDiskSizeGB: 64}}`).
    #[serde(default)]
    pub managed_machine_pool: Overlay,
    /// aks, aks-topology: the AzureManagedMachinePool's `spec.asoManagedClustersAgentPoolPatches`: JSON merge
    /// patches (each a YAML or JSON string) CAPZ applies, in order, to the ASO ManagedClustersAgentPool it
    /// creates, e.g. `'{"spec": {"messageOfTheDay": "aGk="}}'`. Checked at render as asoManagedClusterPatches
    /// (aks-topology: in the pool's machinePoolSpec variable).
    #[serde(default)]
    pub aso_managed_clusters_agent_pool_patches: Vec<String>,
}

fn default_pool_mode() -> PoolMode {
    PoolMode::User
}

fn default_os_type() -> OsType {
    OsType::Linux
}

impl Pool {
    /// A pool with this name and mode and every other field defaulted.
    pub fn named(name: &str, mode: PoolMode) -> Self {
        Pool {
            name: name.to_string(),
            mode,
            vm_size: None,
            replicas: None,
            autoscaling: None,
            os_type: OsType::Linux,
            os_sku: None,
            zones: Vec::new(),
            labels: BTreeMap::new(),
            taints: Vec::new(),
            agent_pool: Overlay::new(),
            managed_machine_pool: Overlay::new(),
            aso_managed_clusters_agent_pool_patches: Vec::new(),
        }
    }
}

/// Agent pool mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum PoolMode {
    System,
    User,
}

/// Node operating system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum OsType {
    Linux,
    Windows,
}

/// Cluster autoscaler bounds of a pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Autoscaling {
    /// Minimum number of nodes.
    #[schemars(range(max = INT32_MAX))]
    pub min_count: u32,
    /// Maximum number of nodes.
    #[schemars(range(max = INT32_MAX))]
    pub max_count: u32,
}

/// A Kubernetes taint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Taint {
    /// Taint key.
    pub key: String,
    /// Taint value.
    #[serde(default)]
    pub value: String,
    /// Taint effect.
    pub effect: TaintEffect,
}

/// Taint effects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
}

/// AKS maintenance configurations, embedded in the AzureASOManagedControlPlane.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Maintenance {
    /// Render the three MaintenanceConfigurations of CAPZ's aks-aso-maintenance flavor: `default`
    /// (Sunday 00:00-04:00), `aksManagedAutoUpgradeSchedule` and `aksManagedNodeOSUpgradeSchedule`
    /// (weekly, Sunday 02:00 UTC-05:00, 4 hours).
    pub enabled: bool,
    /// Overlay deep-merged into the `default` MaintenanceConfiguration.
    pub default: Overlay,
    /// Overlay deep-merged into the `aksManagedAutoUpgradeSchedule` MaintenanceConfiguration.
    pub auto_upgrade_schedule: Overlay,
    /// Overlay deep-merged into the `aksManagedNodeOSUpgradeSchedule` MaintenanceConfiguration.
    pub node_os_upgrade_schedule: Overlay,
}

/// The JSON Schema of a values file, as `schemars::schema_for!(Params)` builds it; committed so that a render
/// does not build it (start-up). A unit test fails, and says how to regenerate it, when it differs.
const SCHEMA_JSON: &str = include_str!("values.schema.json");

/// The JSON Schema of a values file (read once per process from the tree build.rs packs it into, which a third of
/// the instructions of reading its JSON build).
pub fn schema() -> &'static Value {
    static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        crate::schema::packed::values_schema()
            .or_else(|_| serde_json::from_str(SCHEMA_JSON).map_err(|err| err.to_string()))
            .unwrap_or(Value::Null)
    })
}

#[cfg(test)]
mod tests {
    use super::{Params, SCHEMA_JSON, schema};

    /// `values.schema.json` is what schemars generates from `Params`, byte for byte (`params --schema`'s text).
    #[test]
    fn values_schema_file_is_schemars_output() {
        let generated = serde_json::to_value(schemars::schema_for!(Params)).expect("schema as JSON");
        let text = serde_json::to_string_pretty(&generated).expect("schema text") + "\n";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/params/values.schema.json");
        if std::env::var_os("CAPZ_UPDATE_VALUES_SCHEMA").is_some() {
            std::fs::write(path, &text).expect("write values.schema.json");
            return;
        }
        assert!(
            SCHEMA_JSON == text,
            "{path} differs from schemars::schema_for!(Params): regenerate it with\n  \
             CAPZ_UPDATE_VALUES_SCHEMA=1 cargo test --lib values_schema_file_is_schemars_output"
        );
        // The embedded tree `schema()` reads: the same keys in the same order (`params --schema` prints it).
        let tree = crate::schema::packed::values_schema().expect("the embedded tree decodes");
        let embedded = serde_json::to_string_pretty(&tree).expect("schema text") + "\n";
        assert!(embedded == text, "the embedded values schema is not the generated one");
        assert_eq!(schema(), &tree);
    }
}
