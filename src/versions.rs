//! The upstream versions kubectl-capz targets: each CAPZ release it supports, with the CAPI and ASO releases
//! it pins and the schema releases (`schemas/`) its management cluster serves; a provisional target is a CAPZ
//! release not yet published, modelled on the newest published one.

/// This plugin's version (Cargo's).
pub const PLUGIN: &str = env!("CARGO_PKG_VERSION");

/// One management-cluster target: a CAPZ release and what it brings (its CRDs, flavors and rules, the ASO
/// release it pins with the CRDs of its `--crd-pattern`, the CAPI contract).
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    /// The name users pick it by (`--capz-version`, `CAPZ_VERSION`, `.kubectl-capz.yaml`): `v1.27`.
    pub name: &'static str,
    /// The exact CAPZ release.
    pub capz: &'static str,
    /// The source revision of that release (the tag's commit, as the Go module proxy reports it); `None` when it
    /// is not tagged (a provisional target).
    pub capz_revision: Option<&'static str>,
    /// The published CAPZ release whose sources the target models: its CRDs (`upstream-crds/capz-<release>/`),
    /// its `--crd-pattern`, webhook rules, flavors, translation and `sshPublicKey` parser. The target's own
    /// release, except for a provisional target, whose release is not published.
    pub capz_source: &'static str,
    /// Why the target is provisional (its CAPZ release is not published, so part of it is taken from elsewhere),
    /// shown wherever the target is; `None` for a published release. A provisional target is never the default.
    pub provisional: Option<&'static str>,
    /// The CAPI release CAPZ's go.mod pins.
    pub capi: &'static str,
    /// The ASO release CAPZ's go.mod pins.
    pub aso: &'static str,
    /// The Cluster API Operator release whose API (its provider kinds) the target's schemas include: the one built
    /// against this CAPI release, else the newest (upstream-crds/SOURCES.md).
    pub capi_operator: &'static str,
    /// How the ASO CRDs were obtained, when not from that exact release (e.g. a derivation).
    pub aso_note: Option<&'static str>,
    /// Schema releases (see `schemas/README.md`): the target serves exactly the kinds and versions they hold.
    pub schema_sets: &'static [&'static str],
    /// The ASO kinds (`group/Kind`) CAPZ's `--crd-pattern` makes ASO install (config/aso/kustomization.yaml of
    /// the release, without `${ADDITIONAL_ASO_CRDS}`).
    pub aso_crd_pattern: &'static [&'static str],
    /// CAPZ's kinds whose schemas are not bundled (the self-managed VM kinds: their CRDs need CAPZ's defaulting
    /// webhooks, which are not modelled), with the versions CAPZ serves: they are still CAPZ's, so another version
    /// is an `api-version` error and a served one is "not checked" (upstream-crds/capz-*/served-kinds.txt).
    pub capz_kinds_without_schema: &'static [OwnedKind],
    /// How the release's webhook parses `sshPublicKey` (the `golang.org/x/crypto/ssh` it links).
    pub ssh_key_parser: SshKeyParser,
}

/// A kind a target's release defines: its group, kind and served versions.
#[derive(Debug, PartialEq, Eq)]
pub struct OwnedKind {
    pub group: &'static str,
    pub kind: &'static str,
    pub versions: &'static [&'static str],
}

const fn capz_kind(kind: &'static str) -> OwnedKind {
    OwnedKind { group: CAPZ_GROUP, kind, versions: &["v1beta1"] }
}

/// CAPZ's API group (shared with every other infrastructure provider).
pub const CAPZ_GROUP: &str = "infrastructure.cluster.x-k8s.io";

/// The Cluster API Operator's API group.
pub const CAPI_OPERATOR_GROUP: &str = "operator.cluster.x-k8s.io";

/// The kinds of CAPZ v1.26.0's and v1.27.0's config/crd/bases that are not bundled (both releases serve the same;
/// the provisional v1.28 takes v1.27.0's).
const CAPZ_KINDS_WITHOUT_SCHEMA: &[OwnedKind] = &[
    capz_kind("AzureCluster"),
    capz_kind("AzureClusterTemplate"),
    capz_kind("AzureMachine"),
    capz_kind("AzureMachinePool"),
    capz_kind("AzureMachinePoolMachine"),
    capz_kind("AzureMachineTemplate"),
];

/// What a `golang.org/x/crypto` release's `ssh.ParseAuthorizedKey` accepts, where the releases the targets pin
/// differ (CAPZ's webhook calls it on the decoded `sshPublicKey`; tools/capz-webhook-oracle records both).
#[derive(Debug, PartialEq, Eq)]
pub struct SshKeyParser {
    /// The golang.org/x/crypto release CAPZ's go.mod pins.
    pub x_crypto: &'static str,
    /// Whether the key type field (`ssh-rsa` in `ssh-rsa AAAA... me@host`) must name the key blob's own algorithm,
    /// as OpenSSH's `sshkey_read` requires (x/crypto v0.55.0 and later); before, the field was ignored.
    pub key_type_must_match_blob: bool,
    /// The largest RSA modulus accepted, in bits (8192 before x/crypto v0.55.0, then 16384).
    pub rsa_max_modulus_bits: usize,
}

/// golang.org/x/crypto v0.53.0 (CAPZ v1.26.0's go.mod).
const X_CRYPTO_V0_53: SshKeyParser =
    SshKeyParser { x_crypto: "v0.53.0", key_type_must_match_blob: false, rsa_max_modulus_bits: 8192 };

/// golang.org/x/crypto v0.55.0 (CAPZ v1.27.0's go.mod).
const X_CRYPTO_V0_55: SshKeyParser =
    SshKeyParser { x_crypto: "v0.55.0", key_type_must_match_blob: true, rsa_max_modulus_bits: 16384 };

const ASO_CRD_PATTERN_V1_26: &[&str] = &[
    "containerservice.azure.com/FleetsMember",
    "containerservice.azure.com/MaintenanceConfiguration",
    "containerservice.azure.com/ManagedCluster",
    "containerservice.azure.com/ManagedClustersAgentPool",
    "kubernetesconfiguration.azure.com/Extension",
    "network.azure.com/BastionHost",
    "network.azure.com/NatGateway",
    "network.azure.com/PrivateEndpoint",
    "network.azure.com/VirtualNetwork",
    "network.azure.com/VirtualNetworksSubnet",
    "resources.azure.com/ResourceGroup",
];

const ASO_CRD_PATTERN_V1_27: &[&str] = &[
    "containerservice.azure.com/FleetsMember",
    "containerservice.azure.com/MaintenanceConfiguration",
    "containerservice.azure.com/ManagedCluster",
    "containerservice.azure.com/ManagedClustersAgentPool",
    "kubernetesconfiguration.azure.com/Extension",
    "network.azure.com/BastionHost",
    "network.azure.com/NatGateway",
    "network.azure.com/PrivateEndpoint",
    "network.azure.com/PrivateLinkService",
    "network.azure.com/VirtualNetwork",
    "network.azure.com/VirtualNetworksSubnet",
    "resources.azure.com/ResourceGroup",
];

/// The ASO kinds outside CAPZ's crd-pattern whose schemas are bundled, for repositories that add them with
/// `ADDITIONAL_ASO_CRDS` (upstream-crds/aso-extra-kinds.txt).
pub const ASO_EXTRA_KINDS: &[&str] = &[
    "authorization.azure.com/RoleAssignment",
    "managedidentity.azure.com/FederatedIdentityCredential",
    "managedidentity.azure.com/UserAssignedIdentity",
];

/// How the ASO v2.19 schemas were made: the Go module proxy refuses v2.19.0 (upstream-crds/aso-v2.19-refused.txt).
pub const ASO_V2_19_NOTE: &str = "derived: ASO v2.19.0 is not served by the Go module proxy, so its CRDs are \
     v2.18.0's (generated from its Go types) minus containerservice v1api20240402preview (removed in v2.19, per \
     ASO's v2.19 breaking changes) plus network v20250301 taken from v2.20.0 (added in v2.19, per ASO's v2.19 \
     release notes)";

/// Why the v1.28 target is provisional (upstream-crds/SOURCES.md).
pub const CAPZ_V1_28_PROVISIONAL: &str = "CAPZ v1.28.0 is not released; the Go module proxy serves no CAPZ source \
     after v1.27.0, so its CRDs, ASO crd-pattern, webhook rules, flavors, translation and sshPublicKey parser are \
     v1.27.0's, with the ASO (v2.20.0) and CAPI (v1.14.2) that CAPZ main pins";

/// The supported targets, newest first; the default is the first that is not provisional.
pub const TARGETS: &[Target] = &[
    Target {
        name: "v1.28",
        capz: "v1.28.0",
        capz_revision: None,
        capz_source: "v1.27.0",
        provisional: Some(CAPZ_V1_28_PROVISIONAL),
        // CAPZ main: "Bump CAPI to v1.14.2" (CAPZ PR #6660); v1.14.2's CRDs are v1.14.0's byte for byte, so the
        // release is capi-v1.14 (upstream-crds/SOURCES.md).
        capi: "v1.14.2",
        // CAPZ main: "Bump Azure Service Operator to v2.20.0" (CAPZ PR #6438).
        aso: "v2.20.0",
        capi_operator: "v0.29.0",
        aso_note: None,
        schema_sets: &["capi-v1.14", "capi-operator-v0.29", "capz-v1.28", "aso-v2.20", "gitops"],
        aso_crd_pattern: ASO_CRD_PATTERN_V1_27,
        capz_kinds_without_schema: CAPZ_KINDS_WITHOUT_SCHEMA,
        ssh_key_parser: X_CRYPTO_V0_55,
    },
    Target {
        name: "v1.27",
        capz: "v1.27.0",
        capz_revision: Some("3d9e0c36bebc1432048148f168a9bb7415e756a7"),
        capz_source: "v1.27.0",
        provisional: None,
        capi: "v1.14.0",
        aso: "v2.19.0",
        capi_operator: "v0.29.0",
        aso_note: Some(ASO_V2_19_NOTE),
        schema_sets: &["capi-v1.14", "capi-operator-v0.29", "capz-v1.27", "aso-v2.19", "gitops"],
        aso_crd_pattern: ASO_CRD_PATTERN_V1_27,
        capz_kinds_without_schema: CAPZ_KINDS_WITHOUT_SCHEMA,
        ssh_key_parser: X_CRYPTO_V0_55,
    },
    Target {
        name: "v1.26",
        capz: "v1.26.0",
        capz_revision: Some("19ff821691d71d52f9c5618fdee4f4f1cdb4dd19"),
        capz_source: "v1.26.0",
        provisional: None,
        capi: "v1.13.3",
        aso: "v2.18.0",
        capi_operator: "v0.29.0",
        aso_note: None,
        schema_sets: &["capi-v1.13", "capi-operator-v0.29", "capz-v1.26", "aso-v2.18", "gitops"],
        aso_crd_pattern: ASO_CRD_PATTERN_V1_26,
        capz_kinds_without_schema: CAPZ_KINDS_WITHOUT_SCHEMA,
        ssh_key_parser: X_CRYPTO_V0_53,
    },
];

/// `v1.27.0` -> `v1.27`.
fn minor(version: &str) -> &str {
    match version.rfind('.') {
        Some(dot) if version[..dot].contains('.') => &version[..dot],
        _ => version,
    }
}

impl Target {
    /// `v1.28 (provisional)`, `v1.27`: the name as lists of targets show it.
    pub fn labelled_name(&self) -> String {
        match self.provisional {
            Some(_) => format!("{} (provisional)", self.name),
            None => self.name.to_string(),
        }
    }

    /// Whether `group` is an Azure Service Operator API group.
    pub fn is_aso_group(group: &str) -> bool {
        group.ends_with(".azure.com")
    }

    /// Whether CAPZ's `--crd-pattern` makes ASO install the CRD of `group`/`kind`.
    pub fn installs_aso_kind(&self, group: &str, kind: &str) -> bool {
        self.aso_crd_pattern.iter().any(|entry| entry.split_once('/') == Some((group, kind)))
    }

    /// Whether `group` is a Cluster API group (`cluster.x-k8s.io` and its subgroups): shared by CAPI, CAPZ, the
    /// Cluster API Operator and every other provider, so only the kinds the target's releases define are its own.
    pub fn is_capi_family_group(group: &str) -> bool {
        group == "cluster.x-k8s.io" || group.ends_with(".cluster.x-k8s.io")
    }

    /// The served versions of a CAPZ kind whose schema is not bundled (`None`: not such a kind).
    pub fn capz_kind_without_schema(&self, group: &str, kind: &str) -> Option<&'static [&'static str]> {
        self.capz_kinds_without_schema.iter().find(|k| k.group == group && k.kind == kind).map(|k| k.versions)
    }

    /// Who serves the kinds of `group` on this target's management cluster, for messages: "ASO v2.19 that CAPZ
    /// v1.27 installs".
    pub fn served_by(&self, group: &str) -> Option<String> {
        if Self::is_aso_group(group) {
            Some(format!("ASO {} that CAPZ {} installs", minor(self.aso), self.name))
        } else if group == CAPI_OPERATOR_GROUP {
            Some(format!("the Cluster API Operator {}", self.capi_operator))
        } else if group == CAPZ_GROUP {
            Some(format!("CAPZ {}", self.capz))
        } else if Self::is_capi_family_group(group) {
            Some(format!("CAPI {} (pinned by CAPZ {})", self.capi, self.name))
        } else {
            None
        }
    }
}

/// The target used when nothing picks one: the newest published CAPZ release (a provisional target is used only
/// when picked).
pub fn default_target() -> &'static Target {
    TARGETS.iter().find(|t| t.provisional.is_none()).expect("a target that is not provisional")
}

/// A `--capz-version` (or `CAPZ_VERSION`, config file) value that names no supported target.
#[derive(Debug, thiserror::Error)]
#[error("CAPZ version `{given}` is not supported; supported: {}", supported_names())]
pub struct UnknownTarget {
    /// What the user gave.
    pub given: String,
}

/// `v1.28 (provisional), v1.27, v1.26`: the supported targets as messages list them.
pub fn supported_names() -> String {
    TARGETS.iter().map(Target::labelled_name).collect::<Vec<_>>().join(", ")
}

/// Finds the target of a CAPZ version as users write it: `v1.27`, `1.27`, `v1.27.0`, `1.27.3`.
pub fn find_target(given: &str) -> Result<&'static Target, UnknownTarget> {
    let trimmed = given.trim();
    let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
    let mut parts = bare.split('.');
    let minor_line = match (parts.next(), parts.next()) {
        (Some(major), Some(minor)) if !major.is_empty() && !minor.is_empty() => format!("v{major}.{minor}"),
        _ => return Err(UnknownTarget { given: given.to_string() }),
    };
    if let Some(patch) = parts.next()
        && (patch.is_empty() || !patch.chars().all(|c| c.is_ascii_digit()) || parts.next().is_some())
    {
        return Err(UnknownTarget { given: given.to_string() });
    }
    TARGETS.iter().find(|t| t.name == minor_line).ok_or(UnknownTarget { given: given.to_string() })
}

/// Kubernetes versions (minor lines) whose core schemas are bundled, newest first; the first is the default
/// Kubernetes version of the management cluster (`kubernetesVersion` in `.kubectl-capz.yaml`).
pub const KUBERNETES_VERSIONS: &[&str] = &["v1.36", "v1.35"];

/// A Kubernetes version (of the management cluster) that has no bundled core schemas, or is no version.
#[derive(Debug, thiserror::Error)]
#[error("Kubernetes version `{given}` is not bundled; bundled: {}", KUBERNETES_VERSIONS.join(", "))]
pub struct UnknownKubernetesVersion {
    /// What the user gave.
    pub given: String,
}

/// The bundled Kubernetes minor line of a version as users write it: `v1.36`, `1.36`, `v1.36.2`.
pub fn find_kubernetes_version(given: &str) -> Result<&'static str, UnknownKubernetesVersion> {
    let unknown = || UnknownKubernetesVersion { given: given.to_string() };
    let minor_line = minor_line(given).ok_or_else(unknown)?;
    KUBERNETES_VERSIONS.iter().copied().find(|v| *v == minor_line).ok_or_else(unknown)
}

/// `vMAJOR.MINOR` of `vMAJOR.MINOR[.PATCH]` (the `v` optional), or None for anything else.
fn minor_line(given: &str) -> Option<String> {
    let trimmed = given.trim();
    let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
    let mut parts = bare.split('.');
    let numeric = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit());
    let (major, minor) = (parts.next()?, parts.next()?);
    if !numeric(major) || !numeric(minor) {
        return None;
    }
    match (parts.next(), parts.next()) {
        (None, _) => {}
        (Some(patch), None) if numeric(patch) => {}
        _ => return None,
    }
    Some(format!("v{major}.{minor}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_found_by_minor_or_patch_version() {
        assert_eq!(find_target("v1.27").unwrap().capz, "v1.27.0");
        assert_eq!(find_target("1.26").unwrap().name, "v1.26");
        assert_eq!(find_target("v1.26.3").unwrap().name, "v1.26");
        assert!(find_target("v1.25").is_err());
        assert!(find_target("v1.27.x").is_err());
        assert!(find_target("27").is_err());
        assert_eq!(default_target().name, "v1.27");
        // v1.28 is found, provisional, and never the default.
        let v128 = find_target("1.28.0").unwrap();
        assert!(v128.provisional.unwrap().starts_with("CAPZ v1.28.0 is not released"));
        assert_eq!((v128.capz_revision, v128.capz_source), (None, "v1.27.0"));
        assert!(TARGETS.iter().filter(|t| t.name != "v1.28").all(|t| t.provisional.is_none()));
        assert_eq!(supported_names(), "v1.28 (provisional), v1.27, v1.26");
        assert_eq!(
            find_target("v1.25").unwrap_err().to_string(),
            "CAPZ version `v1.25` is not supported; supported: v1.28 (provisional), v1.27, v1.26"
        );
    }

    /// v1.28 models CAPZ v1.27.0 (no later CAPZ source is published): its crd-pattern, unbundled kinds and ssh key
    /// parser are v1.27's; only the ASO and CAPI pins and their schema releases are its own.
    #[test]
    fn the_provisional_target_behaves_as_the_release_it_is_modelled_on() {
        let (v128, v127) = (find_target("v1.28").unwrap(), find_target("v1.27").unwrap());
        assert_eq!(v128.capz_source, v127.capz);
        assert_eq!(v128.aso_crd_pattern, v127.aso_crd_pattern);
        assert_eq!(v128.capz_kinds_without_schema, v127.capz_kinds_without_schema);
        assert_eq!(v128.ssh_key_parser, v127.ssh_key_parser);
        assert_eq!((v128.capi, v128.aso), ("v1.14.2", "v2.20.0"));
        assert_eq!(v128.served_by("network.azure.com").unwrap(), "ASO v2.20 that CAPZ v1.28 installs");
        assert!(v128.schema_sets.contains(&"capi-v1.14") && v128.schema_sets.contains(&"aso-v2.20"));
    }

    #[test]
    fn targets_name_who_serves_a_group() {
        let v127 = find_target("v1.27").unwrap();
        assert_eq!(v127.served_by("containerservice.azure.com").unwrap(), "ASO v2.19 that CAPZ v1.27 installs");
        assert_eq!(v127.served_by("infrastructure.cluster.x-k8s.io").unwrap(), "CAPZ v1.27.0");
        assert_eq!(v127.served_by("cluster.x-k8s.io").unwrap(), "CAPI v1.14.0 (pinned by CAPZ v1.27)");
        assert_eq!(v127.served_by("argoproj.io"), None);
        assert_eq!(v127.served_by("operator.cluster.x-k8s.io").unwrap(), "the Cluster API Operator v0.29.0");
        assert!(Target::is_capi_family_group("cluster.x-k8s.io"));
        assert!(Target::is_capi_family_group("ipam.cluster.x-k8s.io"));
        assert!(!Target::is_capi_family_group("xcluster.x-k8s.io") && !Target::is_capi_family_group("x-k8s.io"));
        assert_eq!(v127.capz_kind_without_schema(CAPZ_GROUP, "AzureMachineTemplate"), Some(&["v1beta1"][..]));
        assert_eq!(v127.capz_kind_without_schema(CAPZ_GROUP, "AzureASOManagedCluster"), None);
        assert_eq!(v127.capz_kind_without_schema(CAPZ_GROUP, "AWSManagedMachinePool"), None);
        assert!(v127.installs_aso_kind("network.azure.com", "PrivateLinkService"));
        assert!(!find_target("v1.26").unwrap().installs_aso_kind("network.azure.com", "PrivateLinkService"));
        assert!(!v127.installs_aso_kind("managedidentity.azure.com", "UserAssignedIdentity"));
    }
}
