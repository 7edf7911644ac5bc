//! Agent pool rules: mirrors `validateMPName`/`validateNameLength`/`validateNamePattern`,
//! `validateOSType` and `validateLastSystemNodePool` (internal/webhooks/azuremanagedmachinepool_validation.go),
//! and AKS's minimum of one node per System pool (CAPZ passes MachinePool replicas as the pool's count).

use serde_json::Value;

use super::Sink;
use super::bundle::{AsoObject, At, Bundle, CAPI_GROUP, CONTAINERSERVICE_GROUP, NsIndex, ObjRef, spec_root};

use crate::fast_hash::HashMap;

pub(crate) const POOL_NAME: &str = "capz-pool-name";
pub(crate) const SYSTEM_POOL_LINUX: &str = "capz-system-pool-linux";
pub(crate) const SYSTEM_POOL_REQUIRED: &str = "aks-system-pool-required";
pub(crate) const SYSTEM_POOL_REPLICAS: &str = "aks-system-pool-replicas";

const AKS_CONTROL_PLANES: &[&str] = &["AzureManagedControlPlane", "AzureASOManagedControlPlane"];
const AKS_CONTROL_PLANE_TEMPLATES: &[&str] =
    &["AzureManagedControlPlaneTemplate", "AzureASOManagedControlPlaneTemplate"];

/// One agent pool definition, wherever it is written.
struct Pool {
    doc: usize,
    mode: Option<String>,
    os_type: Option<String>,
    os_pointer: String,
    /// The effective AKS pool name and where it comes from.
    name: String,
    name_pointer: String,
    name_field: &'static str,
}

/// Pools defined by AzureManagedMachinePool[Template] documents.
fn capz_pools(bundle: &Bundle<'_>) -> Vec<Pool> {
    bundle
        .capz(&["AzureManagedMachinePool", "AzureManagedMachinePoolTemplate"])
        .map(|(index, doc)| capz_pool(index, doc))
        .collect()
}

fn capz_pool(index: usize, doc: &crate::manifest::Document) -> Pool {
    let root = spec_root(doc);
    let (name, name_pointer, name_field) =
        match doc.value.str_at(&format!("{root}/name")).filter(|n| !n.is_empty()).map(str::to_string) {
            Some(name) => (name, format!("{root}/name"), "spec.name"),
            // CAPZ's defaulting copies metadata.name into spec.name, the field its webhook then reports.
            None => (doc.name().to_string(), format!("{root}/name"), "spec.name (defaulted to metadata.name)"),
        };
    Pool {
        doc: index,
        mode: doc.value.str_at(&format!("{root}/mode")).map(str::to_string),
        os_type: doc.value.str_at(&format!("{root}/osType")).map(str::to_string),
        os_pointer: format!("{root}/osType"),
        name,
        name_pointer,
        name_field,
    }
}

fn aso_pool(object: &AsoObject<'_>) -> Pool {
    let (name, name_pointer, name_field) = match object.value.str_at("/spec/azureName").filter(|n| !n.is_empty()) {
        Some(name) => (name.to_string(), object.pointer("/spec/azureName"), "azureName"),
        None => (
            object.name().to_string(),
            object.pointer("/metadata/name"),
            "metadata.name (used when azureName is empty)",
        ),
    };
    Pool {
        doc: object.doc,
        mode: object.value.str_at("/spec/mode").map(str::to_string),
        os_type: object.value.str_at("/spec/osType").map(str::to_string),
        os_pointer: object.pointer("/spec/osType"),
        name,
        name_pointer,
        name_field,
    }
}

/// The AKS rule for pool names; `None` when the name is fine.
/// Letters Unicode counts as lowercase (the Other_Lowercase property: ordinal indicators, modifier and circled
/// letters ...) without being in the Ll category: Rust's `char::is_lowercase` takes them, Go's `unicode.IsLower`
/// (Ll only) does not.
const OTHER_LOWERCASE: &[(char, char)] = &[
    ('\u{00AA}', '\u{00AA}'),
    ('\u{00BA}', '\u{00BA}'),
    ('\u{02B0}', '\u{02B8}'),
    ('\u{02C0}', '\u{02C1}'),
    ('\u{02E0}', '\u{02E4}'),
    ('\u{0345}', '\u{0345}'),
    ('\u{037A}', '\u{037A}'),
    ('\u{10FC}', '\u{10FC}'),
    ('\u{1D2C}', '\u{1D6A}'),
    ('\u{1D78}', '\u{1D78}'),
    ('\u{1D9B}', '\u{1DBF}'),
    ('\u{2071}', '\u{2071}'),
    ('\u{207F}', '\u{207F}'),
    ('\u{2090}', '\u{209C}'),
    ('\u{2170}', '\u{217F}'),
    ('\u{24D0}', '\u{24E9}'),
    ('\u{2C7C}', '\u{2C7D}'),
    ('\u{A69C}', '\u{A69D}'),
    ('\u{A770}', '\u{A770}'),
    ('\u{A7F2}', '\u{A7F4}'),
    ('\u{A7F8}', '\u{A7F9}'),
    ('\u{AB5C}', '\u{AB5F}'),
    ('\u{AB69}', '\u{AB69}'),
    ('\u{10780}', '\u{107BA}'),
    ('\u{1E030}', '\u{1E06D}'),
];

/// Go's `unicode.IsLower`: the Ll category.
fn go_is_lower(c: char) -> bool {
    c.is_lowercase() && !OTHER_LOWERCASE.iter().any(|&(low, high)| (low..=high).contains(&c))
}

fn pool_name_problem(pool: &Pool) -> Option<String> {
    let field = pool.name_field;
    let name = &pool.name;
    match pool.os_type.as_deref() {
        Some("Windows") if name.len() > 6 => {
            return Some(format!("for osType Windows, {field} {name:?} can not be longer than 6 characters"));
        }
        None | Some("Linux") if name.len() > 12 => {
            return Some(format!("for osType Linux, {field} {name:?} can not be longer than 12 characters"));
        }
        _ => {}
    }
    // validateNamePattern tests `rune((*name)[0])`: the first byte, read as a Latin-1 character.
    match name.as_bytes().first().map(|&byte| char::from(byte)) {
        None => None,
        Some(first) if !go_is_lower(first) => Some(format!("{field} {name:?} must begin with a lowercase letter")),
        Some(_) if !name.chars().all(|c| go_is_lower(c) || c.is_numeric()) => {
            Some(format!("{field} {name:?} may only contain lowercase alphanumeric characters"))
        }
        Some(_) => None,
    }
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if sink.wants(&[POOL_NAME, SYSTEM_POOL_LINUX]) {
        let mut pools = capz_pools(bundle);
        pools.extend(
            bundle
                .aso_objects()
                .iter()
                .filter(|object| object.is(CONTAINERSERVICE_GROUP, "ManagedClustersAgentPool"))
                .map(aso_pool),
        );
        for pool in &pools {
            if let Some(problem) = pool_name_problem(pool) {
                sink.emit(POOL_NAME, pool.doc, &pool.name_pointer, format!("{problem}; AKS rejects the pool"));
            }
            if pool.mode.as_deref() == Some("System")
                && let Some(os_type) = pool.os_type.as_deref().filter(|os| *os != "Linux")
            {
                sink.emit(
                    SYSTEM_POOL_LINUX,
                    pool.doc,
                    &pool.os_pointer,
                    format!("a System pool must run Linux, but osType is {os_type:?}; set osType: Linux or mode: User"),
                );
            }
        }
    }
    if sink.wants(&[SYSTEM_POOL_REPLICAS]) {
        for (index, _) in bundle.capz(&["AzureManagedMachinePool", "AzureASOManagedMachinePool"]) {
            check_system_pool_replicas(bundle, index, sink);
        }
        for (index, doc) in bundle.of_kind(CAPI_GROUP, &["Cluster"]) {
            if doc.value.at("/spec/topology").is_some_and(Value::is_object) {
                check_topology_system_pool_replicas(bundle, index, sink);
            }
        }
    }
    if sink.wants(&[SYSTEM_POOL_REQUIRED]) {
        let mut pools_by_cluster: HashMap<&str, NsIndex<'_>> = HashMap::default();
        for (index, pool) in bundle.of_kind(CAPI_GROUP, &["MachinePool"]) {
            if let Some(cluster) = pool.value.str_at("/spec/clusterName") {
                pools_by_cluster.entry(cluster).or_default().push(index, bundle.namespace(index));
            }
        }
        for (index, _) in bundle.of_kind(CAPI_GROUP, &["Cluster"]) {
            check_cluster_has_system_pool(bundle, index, &pools_by_cluster, sink);
        }
    }
}

/// A System pool with no nodes: MachinePool `spec.replicas: 0` without AKS autoscaling, or an autoscaled System
/// pool whose minimum is 0. AKS requires at least one node in every System pool; CAPZ copies the MachinePool's
/// replicas into the agent pool count (`setAgentPoolCount` for aks-aso, the managed machine pool scope for aks).
fn check_system_pool_replicas(bundle: &Bundle<'_>, index: usize, sink: &mut Sink<'_>) {
    let doc = &bundle.docs[index];
    let (mode, autoscaled, min_pointer, min, min_field) = if doc.kind() == "AzureManagedMachinePool" {
        let scaling = doc.value.at("/spec/scaling").filter(|v| v.is_object());
        (
            doc.value.str_at("/spec/mode"),
            scaling.is_some(),
            "/spec/scaling/minSize".to_string(),
            scaling.and_then(|s| s.get("minSize")).and_then(Value::as_i64),
            "scaling.minSize",
        )
    } else {
        let Some(pool) =
            bundle.embedded(index).iter().find(|o| o.is(CONTAINERSERVICE_GROUP, "ManagedClustersAgentPool"))
        else {
            return;
        };
        (
            pool.value.str_at("/spec/mode"),
            pool.value.bool_at("/spec/enableAutoScaling") == Some(true),
            pool.pointer("/spec/minCount"),
            pool.value.i64_at("/spec/minCount"),
            "minCount",
        )
    };
    if mode != Some("System") {
        return;
    }
    if autoscaled {
        if min == Some(0) {
            sink.emit(
                SYSTEM_POOL_REPLICAS,
                index,
                &min_pointer,
                format!(
                    "{min_field} is 0 on a System pool, but AKS keeps at least one node in every System pool and \
                     rejects a minimum of 0; set {min_field} to 1 or more (only User pools scale to zero)"
                ),
            );
        }
        return;
    }
    let Some(machine_pool) = bundle.machine_pool_for_infra(index) else {
        return;
    };
    let machine_pool_doc = &bundle.docs[machine_pool];
    if machine_pool_doc.value.i64_at("/spec/replicas") == Some(0) {
        sink.emit(
            SYSTEM_POOL_REPLICAS,
            machine_pool,
            "/spec/replicas",
            format!(
                "replicas is 0, but {} {:?} is a System pool (mode: System) and AKS needs at least one node in every \
                 System pool; CAPZ sends replicas as the pool's node count, so AKS rejects the pool. Set replicas to 1 \
                 or more (clusterctl renders 0 when WORKER_MACHINE_COUNT is not given), or enable autoscaling",
                doc.kind(),
                doc.name()
            ),
        );
    }
}

/// What is known about the mode of the pool behind an infrastructure (template) document.
enum Mode {
    System,
    NotSystem,
    Unknown,
}

fn mode_of_infra(bundle: &Bundle<'_>, infra: usize) -> Mode {
    let doc = &bundle.docs[infra];
    let pool = match doc.kind() {
        "AzureManagedMachinePool" | "AzureManagedMachinePoolTemplate" => capz_pool(infra, doc),
        "AzureASOManagedMachinePool" | "AzureASOManagedMachinePoolTemplate" => {
            match bundle.embedded(infra).iter().find(|o| o.is(CONTAINERSERVICE_GROUP, "ManagedClustersAgentPool")) {
                Some(object) => aso_pool(object),
                None => return Mode::Unknown,
            }
        }
        _ => return Mode::Unknown,
    };
    match pool.mode.as_deref() {
        Some("System") => Mode::System,
        _ => Mode::NotSystem,
    }
}

/// Whether the Cluster's control plane is in the bundle with `spec.defaultPoolRef`: CAPZ's v1alpha3 API
/// (exp.infrastructure.cluster.x-k8s.io) had no pool `mode` and made the pool it names the System pool; such
/// objects draw their own api-version error, not one about a missing System pool.
fn names_default_pool(bundle: &Bundle<'_>, cluster: usize, control_plane: &ObjRef) -> bool {
    bundle
        .resolve(cluster, control_plane)
        .is_some_and(|index| bundle.docs[index].value.at("/spec/defaultPoolRef/name").is_some_and(Value::is_string))
}

fn check_cluster_has_system_pool(
    bundle: &Bundle<'_>,
    cluster: usize,
    pools_by_cluster: &HashMap<&str, NsIndex<'_>>,
    sink: &mut Sink<'_>,
) {
    let doc = &bundle.docs[cluster];
    if doc.value.at("/spec/topology").is_some_and(Value::is_object) {
        return check_topology_cluster(bundle, cluster, sink);
    }
    let Some(control_plane) = doc.value.at("/spec/controlPlaneRef").and_then(ObjRef::parse) else {
        return;
    };
    if !AKS_CONTROL_PLANES.contains(&control_plane.kind.as_str()) {
        return;
    }
    if names_default_pool(bundle, cluster, &control_plane) {
        return;
    }
    let mut pools = 0;
    // Which pool decides does not depend on their order: any System, unknown or unresolved pool ends the check.
    let candidates =
        pools_by_cluster.get(doc.name()).into_iter().flat_map(|index| index.matching(bundle.namespace(cluster)));
    for index in candidates {
        let pool = &bundle.docs[index];
        pools += 1;
        let infra = pool
            .value
            .at("/spec/template/spec/infrastructureRef")
            .and_then(ObjRef::parse)
            .and_then(|reference| bundle.resolve(index, &reference));
        match infra.map(|infra| mode_of_infra(bundle, infra)) {
            Some(Mode::System) => return,
            Some(Mode::NotSystem) => {}
            // An unresolved or undecidable pool may be the System one: other rules report it.
            Some(Mode::Unknown) | None => return,
        }
    }
    let message = if pools == 0 {
        format!(
            "no MachinePool in the bundle has spec.clusterName {:?}; AKS needs at least one System agent pool. \
             Add a MachinePool whose agent pool has mode: System",
            doc.name()
        )
    } else {
        format!(
            "none of the {pools} MachinePools of Cluster {:?} has an agent pool with mode: System; AKS needs at least \
             one. Set mode: System on one of them",
            doc.name()
        )
    };
    sink.emit(SYSTEM_POOL_REQUIRED, cluster, "/metadata/name", message);
}

/// A topology Cluster: follow its machinePools' classes through the ClusterClass (if in the bundle).
/// The ClusterClass of topology Cluster `cluster` when it is in the bundle and has an AKS control plane.
pub(crate) fn aks_cluster_class(bundle: &Bundle<'_>, cluster: usize) -> Option<usize> {
    let doc = &bundle.docs[cluster];
    let topology = &doc.value["spec"]["topology"];
    let (class_name, class_namespace) = match topology.get("classRef") {
        Some(class_ref) => {
            (class_ref.get("name").and_then(Value::as_str), class_ref.get("namespace").and_then(Value::as_str))
        }
        None => (topology.get("class").and_then(Value::as_str), topology.get("classNamespace").and_then(Value::as_str)),
    };
    let class_name = class_name?;
    let class_namespace = class_namespace.filter(|ns| !ns.is_empty()).or(doc.namespace());
    let class_index =
        bundle.find_named("ClusterClass", class_name, class_namespace, |index| bundle.group(index) == CAPI_GROUP)?;
    let class = &bundle.docs[class_index];
    let control_plane_kind = class
        .value
        .at("/spec/controlPlane/ref/kind")
        .or_else(|| class.value.at("/spec/controlPlane/templateRef/kind"))
        .and_then(Value::as_str);
    control_plane_kind.is_some_and(|kind| AKS_CONTROL_PLANE_TEMPLATES.contains(&kind)).then_some(class_index)
}

/// The infrastructure template of machine pool class `name` of ClusterClass `class_index`.
fn pool_class_infra(bundle: &Bundle<'_>, class_index: usize, name: &str) -> Option<usize> {
    let definition = bundle.docs[class_index]
        .value
        .array_at("/spec/workers/machinePools")?
        .iter()
        .find(|c| c.get("class").and_then(Value::as_str) == Some(name))?;
    definition
        .at("/template/infrastructure/ref")
        .or_else(|| definition.at("/infrastructure/templateRef"))
        .and_then(ObjRef::parse)
        .and_then(|reference| bundle.resolve(class_index, &reference))
}

/// Whether the machine pool template `infra` defines a System pool without AKS autoscaling.
fn template_is_fixed_size_system_pool(bundle: &Bundle<'_>, infra: usize) -> bool {
    let doc = &bundle.docs[infra];
    match doc.kind() {
        "AzureManagedMachinePoolTemplate" => {
            doc.value.str_at("/spec/template/spec/mode") == Some("System")
                && doc.value.at("/spec/template/spec/scaling").is_none_or(|scaling| !scaling.is_object())
        }
        "AzureASOManagedMachinePoolTemplate" => bundle
            .embedded(infra)
            .iter()
            .find(|o| o.is(CONTAINERSERVICE_GROUP, "ManagedClustersAgentPool"))
            .is_some_and(|pool| {
                pool.value.str_at("/spec/mode") == Some("System")
                    && pool.value.bool_at("/spec/enableAutoScaling") != Some(true)
            }),
        _ => false,
    }
}

/// A topology Cluster's machinePools entry with replicas 0 whose class is a fixed-size System pool.
fn check_topology_system_pool_replicas(bundle: &Bundle<'_>, cluster: usize, sink: &mut Sink<'_>) {
    let Some(class_index) = aks_cluster_class(bundle, cluster) else {
        return;
    };
    let doc = &bundle.docs[cluster];
    let Some(pools) = doc.value.array_at("/spec/topology/workers/machinePools") else {
        return;
    };
    for (position, pool) in pools.iter().enumerate() {
        if pool.get("replicas").and_then(Value::as_i64) != Some(0) {
            continue;
        }
        let Some(class) = pool.get("class").and_then(Value::as_str) else {
            continue;
        };
        let Some(infra) = pool_class_infra(bundle, class_index, class) else {
            continue;
        };
        if template_is_fixed_size_system_pool(bundle, infra) {
            let name = pool.get("name").and_then(Value::as_str).unwrap_or("");
            sink.emit(
                SYSTEM_POOL_REPLICAS,
                cluster,
                &format!("/spec/topology/workers/machinePools/{position}/replicas"),
                format!(
                    "machinePool {name:?} has replicas 0, but its class {class:?} uses {} {:?}, a System pool, and AKS \
                     needs at least one node in every System pool. Set replicas to 1 or more, or enable autoscaling",
                    bundle.docs[infra].kind(),
                    bundle.docs[infra].name()
                ),
            );
        }
    }
}

fn check_topology_cluster(bundle: &Bundle<'_>, cluster: usize, sink: &mut Sink<'_>) {
    let doc = &bundle.docs[cluster];
    let topology = &doc.value["spec"]["topology"];
    let Some(class_index) = aks_cluster_class(bundle, cluster) else {
        return;
    };
    let class = &bundle.docs[class_index];
    let empty = Vec::new();
    let pools = topology.array_at("/workers/machinePools").unwrap_or(&empty);
    let classes = class.value.array_at("/spec/workers/machinePools").unwrap_or(&empty);
    for pool in pools {
        let Some(pool_class) = pool.get("class").and_then(Value::as_str) else {
            return;
        };
        let Some(definition) = classes.iter().find(|c| c.get("class").and_then(Value::as_str) == Some(pool_class))
        else {
            return;
        };
        let infra = definition
            .at("/template/infrastructure/ref")
            .or_else(|| definition.at("/infrastructure/templateRef"))
            .and_then(ObjRef::parse)
            .and_then(|reference| bundle.resolve(class_index, &reference));
        match infra.map(|infra| mode_of_infra(bundle, infra)) {
            Some(Mode::System) | Some(Mode::Unknown) | None => return,
            Some(Mode::NotSystem) => {}
        }
    }
    let pointer = if pools.is_empty() { "/spec/topology" } else { "/spec/topology/workers/machinePools" };
    sink.emit(
        SYSTEM_POOL_REQUIRED,
        cluster,
        pointer,
        format!(
            "no machinePool of topology Cluster {:?} uses a ClusterClass pool class whose template has mode: System; \
             AKS needs at least one System agent pool. Add a machinePool of such a class",
            doc.name()
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, findings_of, ids};
    use super::*;

    fn ammp(name: &str, spec: &str) -> String {
        format!(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePool\nmetadata:\n  name: {name}\nspec:\n{spec}"
        )
    }

    #[test]
    fn pool_name_rules() {
        let f = |yaml: &str| findings_of(yaml, POOL_NAME);
        assert!(f(&ammp("c1-pool0", "  mode: System\n  name: pool0\n  sku: x\n")).is_empty());
        assert!(f(&ammp("c1-pool0", "  mode: System\n  name: abcdefghijkl\n")).is_empty(), "12 is fine on Linux");

        let long = f(&ammp("c1-pool0", "  mode: User\n  name: abcdefghijklm\n"));
        assert_eq!(ids(&long), [POOL_NAME]);
        assert_eq!(long[0].path, "/spec/name");
        assert!(long[0].message.contains("12 characters"));

        let windows = f(&ammp("c1", "  mode: User\n  name: win1234\n  osType: Windows\n"));
        assert!(windows[0].message.contains("6 characters"), "{}", windows[0].message);
        assert!(f(&ammp("c1", "  mode: User\n  name: win123\n  osType: Windows\n")).is_empty());

        let upper = f(&ammp("c1", "  mode: User\n  name: Pool0\n"));
        assert!(upper[0].message.contains("must begin with a lowercase letter"));
        let dash = f(&ammp("c1", "  mode: User\n  name: pool-0\n"));
        assert!(dash[0].message.contains("only contain lowercase alphanumeric"));
    }

    #[test]
    fn pool_name_letters_are_gos_lowercase_letters() {
        for (name, problems) in [("poolα", 0), ("pool٣", 0), ("poolⅰ", 0), ("poolª", 1), ("poolʰ", 1), ("poolⓐ", 1)]
        {
            let yaml = ammp("c1-pool0", &format!("  mode: User\n  name: {name}\n"));
            assert_eq!(findings_of(&yaml, POOL_NAME).len(), problems, "{name}");
        }
    }

    #[test]
    fn pool_name_falls_back_to_metadata_name() {
        let found = findings_of(&ammp("c1-pool0", "  mode: User\n"), POOL_NAME);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "/spec/name", "the field CAPZ's defaulting fills and its webhook reports");
        assert!(found[0].message.contains("spec.name (defaulted to metadata.name)"));
        // An empty spec.name falls back as well (the defaulting webhook treats "" as unset).
        assert_eq!(findings_of(&ammp("c1-pool0", "  mode: User\n  name: \"\"\n"), POOL_NAME).len(), 1);
        assert!(findings_of(&ammp("pool0", "  mode: User\n"), POOL_NAME).is_empty());
    }

    #[test]
    fn aso_agent_pool_names_use_azure_name_then_metadata_name() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: c1-pool0}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: c1-pool0}
    spec:
      AZURENAME
      mode: System
      owner: {name: c1}
";
        assert!(
            findings_of(&yaml.replace("AZURENAME", "azureName: pool0"), super::super::rules::twins::AKS_POOL_NAME)
                .is_empty()
        );
        let found = findings_of(
            &yaml.replace("AZURENAME", "type: VirtualMachineScaleSets"),
            super::super::rules::twins::AKS_POOL_NAME,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "/spec/resources/0/metadata/name");
    }

    #[test]
    fn system_pools_must_be_linux() {
        let f = |yaml: &str| findings_of(yaml, SYSTEM_POOL_LINUX);
        let found = f(&ammp("pool0", "  mode: System\n  osType: Windows\n"));
        assert_eq!(ids(&found), [SYSTEM_POOL_LINUX]);
        assert_eq!(found[0].path, "/spec/osType");
        assert!(f(&ammp("pool0", "  mode: System\n  osType: Linux\n")).is_empty());
        assert!(f(&ammp("pool0", "  mode: System\n")).is_empty(), "osType defaults to Linux");
        assert!(f(&ammp("pool0", "  mode: User\n  osType: Windows\n")).is_empty());
    }

    const CLUSTER: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c1, namespace: default}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlane, name: c1}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedCluster, name: c1}
";

    fn machine_pool(name: &str, mode: &str) -> String {
        format!(
            "---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {{name: {name}, namespace: default}}
spec:
  clusterName: c1
  replicas: 1
  template:
    spec:
      bootstrap: {{dataSecretName: \"\"}}
      clusterName: c1
      infrastructureRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePool, name: {name}}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePool
metadata: {{name: {name}, namespace: default}}
spec: {{mode: {mode}, name: {name}, sku: x}}
"
        )
    }

    #[test]
    fn cluster_with_a_system_pool_passes() {
        let yaml = format!("{CLUSTER}{}{}", machine_pool("pool0", "System"), machine_pool("pool1", "User"));
        assert!(findings_of(&yaml, SYSTEM_POOL_REQUIRED).is_empty());
    }

    #[test]
    fn cluster_without_system_pool_fires() {
        let yaml = format!("{CLUSTER}{}{}", machine_pool("pool0", "User"), machine_pool("pool1", "User"));
        let found = findings_of(&yaml, SYSTEM_POOL_REQUIRED);
        assert_eq!(ids(&found), [SYSTEM_POOL_REQUIRED]);
        assert_eq!(
            (found[0].object.as_str(), found[0].path.as_str(), found[0].line),
            ("Cluster/c1", "/metadata/name", 3)
        );
        assert!(found[0].message.contains("none of the 2 MachinePools"));

        let alone = findings_of(CLUSTER, SYSTEM_POOL_REQUIRED);
        assert!(alone[0].message.contains("no MachinePool in the bundle"));
    }

    #[test]
    fn pools_of_other_clusters_or_namespaces_do_not_count() {
        let other_ns = machine_pool("pool0", "System").replace("namespace: default", "namespace: other");
        let yaml = format!("{CLUSTER}{other_ns}");
        assert_eq!(findings_of(&yaml, SYSTEM_POOL_REQUIRED).len(), 1);
    }

    #[test]
    fn unresolved_pool_makes_the_check_undecidable() {
        let yaml = format!("{CLUSTER}{}", machine_pool("pool0", "User"))
            .replace("kind: AzureManagedMachinePool, name: pool0", "kind: AzureManagedMachinePool, name: elsewhere");
        assert!(findings_of(&yaml, SYSTEM_POOL_REQUIRED).is_empty());
    }

    #[test]
    fn non_aks_clusters_are_ignored() {
        let yaml = CLUSTER.replace("kind: AzureManagedControlPlane", "kind: KubeadmControlPlane");
        assert!(findings_of(&yaml, SYSTEM_POOL_REQUIRED).is_empty());
    }

    #[test]
    fn topology_cluster_follows_the_cluster_class() {
        let yaml = "apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: aks, namespace: default}
spec:
  controlPlane:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedControlPlaneTemplate, name: cp}
  workers:
    machinePools:
    - class: system
      template:
        infrastructure:
          ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePoolTemplate, name: sys}
    - class: worker
      template:
        infrastructure:
          ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePoolTemplate, name: usr}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePoolTemplate
metadata: {name: sys, namespace: default}
spec: {template: {spec: {mode: System, name: pool0, sku: x}}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePoolTemplate
metadata: {name: usr, namespace: default}
spec: {template: {spec: {mode: User, name: pool1, sku: x}}}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: c1, namespace: default}
spec:
  topology:
    classRef: {name: aks}
    version: v1.33.2
    workers:
      machinePools:
      - {class: CLASS, name: mp-0}
";
        assert!(findings_of(&yaml.replace("CLASS", "system"), SYSTEM_POOL_REQUIRED).is_empty());
        let found = findings_of(&yaml.replace("CLASS", "worker"), SYSTEM_POOL_REQUIRED);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "/spec/topology/workers/machinePools");

        // replicas 0 on a machinePool of the System class: no node in the System pool.
        let zero = |class: &str| yaml.replace("CLASS", class).replace("name: mp-0}", "name: mp-0, replicas: 0}");
        let found = findings_of(&zero("system"), SYSTEM_POOL_REPLICAS);
        assert_eq!(ids(&found), [SYSTEM_POOL_REPLICAS]);
        assert_eq!(
            (found[0].object.as_str(), found[0].path.as_str()),
            ("Cluster/c1", "/spec/topology/workers/machinePools/0/replicas")
        );
        assert!(
            found[0].message.contains("AzureManagedMachinePoolTemplate \"sys\", a System pool"),
            "{}",
            found[0].message
        );
        assert!(findings_of(&zero("worker"), SYSTEM_POOL_REPLICAS).is_empty());
        let autoscaled = zero("system").replace(
            "{mode: System, name: pool0, sku: x}",
            "{mode: System, name: pool0, sku: x, scaling: {minSize: 1, maxSize: 3}}",
        );
        assert!(findings_of(&autoscaled, SYSTEM_POOL_REPLICAS).is_empty());
    }

    #[test]
    fn aso_pool_mode_comes_from_the_embedded_agent_pool() {
        let cluster = CLUSTER.replace("AzureManagedControlPlane", "AzureASOManagedControlPlane");
        let pool = |mode: &str| {
            format!(
                "---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {{name: c1-pool0, namespace: default}}
spec:
  clusterName: c1
  template:
    spec:
      clusterName: c1
      bootstrap: {{dataSecretName: \"\"}}
      infrastructureRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePool, name: c1-pool0}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {{name: c1-pool0, namespace: default}}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {{name: c1-pool0}}
    spec: {{azureName: pool0, mode: {mode}, owner: {{name: c1}}}}
"
            )
        };
        assert!(findings_among(&format!("{cluster}{}", pool("System")), &[SYSTEM_POOL_REQUIRED]).is_empty());
        assert_eq!(findings_among(&format!("{cluster}{}", pool("User")), &[SYSTEM_POOL_REQUIRED]).len(), 1);
    }

    #[test]
    fn system_pool_with_zero_replicas_fires_on_the_machine_pool() {
        let with = |mode: &str, replicas: &str, extra: &str| {
            format!("{CLUSTER}{}", machine_pool("pool0", mode))
                .replace("replicas: 1", &format!("replicas: {replicas}"))
                .replace("sku: x}", &format!("sku: x{extra}}}"))
        };
        assert!(findings_of(&with("System", "1", ""), SYSTEM_POOL_REPLICAS).is_empty());
        assert!(findings_of(&with("User", "0", ""), SYSTEM_POOL_REPLICAS).is_empty(), "User pools may scale to zero");
        let found = findings_of(&with("System", "0", ""), SYSTEM_POOL_REPLICAS);
        assert_eq!(ids(&found), [SYSTEM_POOL_REPLICAS]);
        assert_eq!((found[0].object.as_str(), found[0].path.as_str()), ("MachinePool/pool0", "/spec/replicas"));
        assert!(
            found[0].message.contains("AzureManagedMachinePool \"pool0\" is a System pool"),
            "{}",
            found[0].message
        );
        // AKS autoscaling owns the count; only its minimum matters then.
        let autoscaled = with("System", "0", ", scaling: {minSize: 1, maxSize: 3}");
        assert!(findings_of(&autoscaled, SYSTEM_POOL_REPLICAS).is_empty());
        let min_zero = with("System", "2", ", scaling: {minSize: 0, maxSize: 3}");
        let found = findings_of(&min_zero, SYSTEM_POOL_REPLICAS);
        assert_eq!(
            (found[0].object.as_str(), found[0].path.as_str()),
            ("AzureManagedMachinePool/pool0", "/spec/scaling/minSize")
        );
    }

    #[test]
    fn aso_system_pool_replicas_and_min_count() {
        let yaml = |replicas: &str, spec: &str| {
            format!(
                "apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {{name: c1-pool0, namespace: default}}
spec:
  clusterName: c1
  replicas: {replicas}
  template:
    spec:
      clusterName: c1
      bootstrap: {{dataSecretName: \"\"}}
      infrastructureRef: {{apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePool, name: c1-pool0}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {{name: c1-pool0, namespace: default}}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {{name: c1-pool0}}
    spec: {{azureName: pool0, owner: {{name: c1}}, {spec}}}
"
            )
        };
        assert!(findings_of(&yaml("2", "mode: System"), SYSTEM_POOL_REPLICAS).is_empty());
        assert!(findings_of(&yaml("0", "mode: User"), SYSTEM_POOL_REPLICAS).is_empty());
        let found = findings_of(&yaml("0", "mode: System"), SYSTEM_POOL_REPLICAS);
        assert_eq!((found[0].object.as_str(), found[0].path.as_str()), ("MachinePool/c1-pool0", "/spec/replicas"));
        let autoscaled = "mode: System, enableAutoScaling: true, minCount: MIN, maxCount: 3";
        assert!(findings_of(&yaml("0", &autoscaled.replace("MIN", "1")), SYSTEM_POOL_REPLICAS).is_empty());
        let found = findings_of(&yaml("1", &autoscaled.replace("MIN", "0")), SYSTEM_POOL_REPLICAS);
        assert_eq!(found[0].path, "/spec/resources/0/spec/minCount");
        assert!(found[0].message.starts_with("minCount is 0"), "{}", found[0].message);
    }
}
