#!/usr/bin/env python3
# Writes tests/fixtures/capi-updates/cases/NAME.old.yaml + NAME.new.yaml: (stored, applied) bundles for Cluster API
# v1.14.2's update webhooks. The shapes are our own: the ClusterClasses and topology Clusters `kubectl capz render`
# writes (taken from the CLI snapshots tests/cli/snapshots/cli__render_class__* and cli__render_topology__*, v1beta1
# and v1beta2), the classic aks and aks-aso flavors' Cluster and MachinePools (cli__render_cli__*), and a small
# v1beta2 class with a MachineDeployment class in the shape of CAPI's own tests (core/webhooks/admission
# cluster_test.go, clusterclass_test.go, machinepool_test.go). The changes follow those test tables: version
# decrease, +1 and +2 minor, kubernetesVersions, the unsafe annotations, class rebase to a compatible and an
# incompatible ClusterClass, classRef set on an existing Cluster, topology / infrastructureRef / controlPlaneRef
# removed, ClusterClass template kind and group changes, worker classes and health checks removed while used,
# MachinePool clusterName, and no-op updates.
# The files are committed; rerun after editing, then regen.sh. Needs PyYAML.
import copy, glob, os
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SNAPS = os.path.join(ROOT, "tests", "cli", "snapshots")
OUT = os.path.join(ROOT, "tests", "fixtures", "capi-updates", "cases")

UNSAFE_VERSION = "unsafe.topology.cluster.x-k8s.io/disable-update-version-check"
UNSAFE_CLASS = "unsafe.topology.cluster.x-k8s.io/disable-update-class-name-check"


def snapshot(name):
    text = open(os.path.join(SNAPS, name)).read()
    body = text.split("\n---\n", 1)[1]  # after the insta header
    return [d for d in yaml.safe_load_all(body) if d]


def only(docs, kind):
    return [d for d in docs if d["kind"] == kind]


def with_ns(docs, ns):
    out = copy.deepcopy(docs)
    for d in out:
        d["metadata"]["namespace"] = ns
    return out


def class_bundle(snap, ns="default"):
    """The ClusterClass and its templates, as rendered."""
    return with_ns([d for d in snapshot(snap) if d["kind"] not in ("Secret",)], ns)


def topology_cluster(snap, ns="default"):
    return with_ns(only(snapshot(snap), "Cluster"), ns)[0]


def v1beta2(doc):
    return doc["apiVersion"].endswith("/v1beta2")


def class_ref_name(cluster):
    t = cluster["spec"]["topology"]
    return t["classRef"]["name"] if "classRef" in t else t["class"]


def set_class(cluster, name):
    t = cluster["spec"]["topology"]
    if "classRef" in t:
        t["classRef"]["name"] = name
    else:
        t["class"] = name


def template_ref(class_part, v2):
    return class_part["templateRef"] if v2 else class_part["ref"]


def infra_of(cc):
    return template_ref(cc["spec"]["infrastructure"], v1beta2(cc))


def cp_of(cc):
    return template_ref(cc["spec"]["controlPlane"], v1beta2(cc))


def pool_classes(cc):
    return cc["spec"].setdefault("workers", {}).setdefault("machinePools", [])


def pool_infra(cc, i):
    p = pool_classes(cc)[i]
    return p["infrastructure"]["templateRef"] if v1beta2(cc) else p["template"]["infrastructure"]["ref"]


def bump(version, minor=0, patch=0, pre=None):
    major, mi, pa = version.lstrip("v").split(".")[:3]
    mi, pa = int(mi) + minor, int(pa) + patch
    if minor:
        pa = 0 if minor > 0 else pa
    v = f"v{major}.{mi}.{pa}"
    return v + (f"-{pre}" if pre else "")


cases = {}
# Every change runs on two of the four rendered shapes; the other two get the core ones (the bundles are large).
FULL = {"aks-v1beta2", "aso-v1beta1"}
CORE = {"no-op", "minor-upgrade", "two-minor-upgrade", "minor-downgrade", "topology-removed",
        "class-rebase-infrastructure-kind-changed", "class-rebase-compatible", "infrastructure-kind-changed",
        "control-plane-machine-infrastructure-added", "pool-class-removed-while-used", "pool-class-added"}


def case(name, old, new, shape=None, change=None):
    assert name not in cases, name
    if shape is not None and shape not in FULL and change not in CORE:
        return
    cases[name] = (old, new)


def dump(docs):
    return "---\n".join(yaml.safe_dump(d, sort_keys=False, default_flow_style=False) for d in docs)


# --- topology Clusters over our rendered ClusterClasses -----------------------------------------------------------

TOPOLOGY_SHAPES = {
    "aks-v1beta2": ("cli__render_class__aks_class_v1beta2.snap", "cli__render_topology__aks_topology_from_the_aks_example_v1beta2.snap"),
    "aks-v1beta1": ("cli__render_class__aks_class_v1beta1.snap", "cli__render_topology__aks_topology_with_docs_env.snap"),
    "aso-v1beta2": ("cli__render_class__aks_aso_class_v1beta2.snap", "cli__render_topology__aks_aso_topology_every_variable_v1beta2.snap"),
    "aso-v1beta1": ("cli__render_class__aks_aso_class_v1beta1.snap", "cli__render_topology__aks_aso_topology_with_docs_env.snap"),
}


def renamed_class(bundle, suffix):
    """A copy of the ClusterClass under another name, over the same templates."""
    cc = copy.deepcopy(only(bundle, "ClusterClass")[0])
    cc["metadata"]["name"] += suffix
    return cc


def other_template(bundle, ref, kind=None, api_version=None, name_suffix="-other"):
    """A template like the one `ref` names, of another kind / apiVersion; `ref` is pointed at it."""
    src = next(d for d in bundle if d["kind"] == ref["kind"] and d["metadata"]["name"] == ref["name"])
    t = copy.deepcopy(src)
    if kind:
        t["kind"] = kind
    if api_version:
        t["apiVersion"] = api_version
    t["metadata"]["name"] += name_suffix
    if kind and kind.startswith("AzureASOManaged"):
        t["spec"] = {"template": {"spec": {"resources": []}}}
    if api_version and api_version.startswith("controlplane.cluster.x-k8s.io"):
        t["kind"] = "KubeadmControlPlaneTemplate"
        t["spec"] = {"template": {"spec": {}}}
    ref["kind"], ref["apiVersion"], ref["name"] = t["kind"], t["apiVersion"], t["metadata"]["name"]
    return t


for shape, (class_snap, cluster_snap) in TOPOLOGY_SHAPES.items():
    bundle = class_bundle(class_snap)
    cluster = topology_cluster(cluster_snap)
    cc = only(bundle, "ClusterClass")[0]
    assert class_ref_name(cluster) == cc["metadata"]["name"], shape
    version = cluster["spec"]["topology"]["version"]
    v2 = v1beta2(cc)

    def topo(name, mutate, extra_old=(), extra_new=None, old_mutate=None):
        old_c, new_c = copy.deepcopy(cluster), copy.deepcopy(cluster)
        if old_mutate:
            old_mutate(old_c)
            old_mutate(new_c)
        mutate(new_c)
        extra_new = list(extra_old) if extra_new is None else extra_new
        case(f"cluster-{shape}-{name}", bundle + list(extra_old) + [old_c], bundle + list(extra_new) + [new_c], shape, name)

    def set_version(v):
        return lambda c: c["spec"]["topology"].__setitem__("version", v)

    def annotate(key):
        return lambda c: c["metadata"].setdefault("annotations", {}).__setitem__(key, "")

    def both(*fs):
        def run(c):
            for f in fs:
                f(c)
        return run

    topo("no-op", lambda c: None)
    topo("patch-upgrade", set_version(bump(version, patch=1)))
    topo("minor-upgrade", set_version(bump(version, minor=1)))
    topo("minor-upgrade-no-v-prefix", set_version(bump(version, minor=1).lstrip("v")))
    topo("two-minor-upgrade", set_version(bump(version, minor=2)))
    topo("three-minor-upgrade", set_version(bump(version, minor=3)))
    topo("minor-downgrade", set_version(bump(version, minor=-1)))
    topo("patch-downgrade", set_version(bump(version, patch=-1)))
    topo("prerelease-of-next-minor", set_version(bump(version, minor=1, pre="rc.1")))
    topo("prerelease-two-minors-up", set_version(bump(version, minor=2, pre="alpha.0")))
    topo("prerelease-of-same-version", set_version(version + "-rc.0"))
    topo("unsafe-annotation-two-minor-upgrade", both(annotate(UNSAFE_VERSION), set_version(bump(version, minor=2))))
    topo("unsafe-annotation-downgrade", both(annotate(UNSAFE_VERSION), set_version(bump(version, minor=-1))))
    topo("variable-value-changed", lambda c: c["spec"]["topology"]["variables"][0].__setitem__("value", "westeurope"))
    topo("pool-replicas-changed", lambda c: c["spec"]["topology"]["workers"]["machinePools"][0].__setitem__("replicas", 5))
    topo("pool-removed", lambda c: c["spec"]["topology"]["workers"]["machinePools"].pop())
    topo("topology-removed", lambda c: c["spec"].pop("topology"))

    # Rebase to a compatible ClusterClass (same templates, another name).
    compatible = renamed_class(bundle, "-v2")
    topo("class-rebase-compatible", lambda c: set_class(c, compatible["metadata"]["name"]), [compatible])
    topo("class-rebase-compatible-and-minor-upgrade",
         both(lambda c: set_class(c, compatible["metadata"]["name"]), set_version(bump(version, minor=1))), [compatible])
    # Rebase to ClusterClasses whose templates are of another kind or group.
    infra_kind = renamed_class(bundle, "-infra-kind")
    old_infra_kind = infra_of(infra_kind)["kind"]
    t1 = other_template(bundle, infra_of(infra_kind), kind="AzureClusterTemplate" if old_infra_kind == "AzureManagedClusterTemplate" else "AzureManagedClusterTemplate")
    topo("class-rebase-infrastructure-kind-changed", lambda c: set_class(c, infra_kind["metadata"]["name"]), [infra_kind, t1])
    cp_group = renamed_class(bundle, "-cp-group")
    t2 = other_template(bundle, cp_of(cp_group), api_version="controlplane.cluster.x-k8s.io/v1beta2")
    topo("class-rebase-control-plane-group-changed", lambda c: set_class(c, cp_group["metadata"]["name"]), [cp_group, t2])
    pool_kind = renamed_class(bundle, "-pool-kind")
    pool_ref = pool_infra(pool_kind, 0)
    t3 = other_template(bundle, pool_ref, kind="AzureManagedMachinePoolTemplate" if "ASO" in pool_ref["kind"] else "AzureASOManagedMachinePoolTemplate")
    topo("class-rebase-pool-infrastructure-kind-changed", lambda c: set_class(c, pool_kind["metadata"]["name"]), [pool_kind, t3])
    # The ClusterClass lists the versions it supports: a +2 minor upgrade to a listed version is a chained upgrade.
    if not v2:
        continue  # spec.kubernetesVersions is v1beta2 only
    listed = renamed_class(bundle, "-versions")
    listed["spec"]["kubernetesVersions"] = [version, bump(version, minor=1), bump(version, minor=2)]
    topo("listed-versions-two-minor-upgrade", set_version(bump(version, minor=2)), [listed],
         old_mutate=lambda c: set_class(c, listed["metadata"]["name"]))
    topo("listed-versions-downgrade", set_version(bump(version, minor=-1)),
         [dict(listed, spec=dict(listed["spec"], kubernetesVersions=[bump(version, minor=-1)] + listed["spec"]["kubernetesVersions"]))],
         old_mutate=lambda c: set_class(c, listed["metadata"]["name"]))

# --- ClusterClass updates, with a Cluster using the class stored -----------------------------------------------

for shape, (class_snap, cluster_snap) in TOPOLOGY_SHAPES.items():
    bundle = class_bundle(class_snap)
    cluster = topology_cluster(cluster_snap)
    cc = only(bundle, "ClusterClass")[0]
    others = [d for d in bundle if d["kind"] != "ClusterClass"]
    version = cluster["spec"]["topology"]["version"]
    v2 = v1beta2(cc)

    def cc_case(name, mutate, extra=(), with_cluster=True, old_mutate=None):
        old_cc, new_cc = copy.deepcopy(cc), copy.deepcopy(cc)
        if old_mutate:
            old_mutate(old_cc)
            old_mutate(new_cc)
        added = mutate(new_cc) or []
        state = others + list(extra) + ([cluster] if with_cluster else [])
        case(f"clusterclass-{shape}-{name}", state + [old_cc], state + list(added) + [new_cc], shape, name)

    def retarget(kind=None, api_version=None, which=infra_of):
        def run(c):
            ref = which(c)
            return [other_template(bundle, ref, kind=kind, api_version=api_version)]
        return run

    infra_kind = infra_of(cc)["kind"]
    cp_kind = cp_of(cc)["kind"]
    cc_case("no-op", lambda c: None)
    cc_case("infrastructure-kind-changed", retarget(kind="AzureClusterTemplate" if infra_kind == "AzureManagedClusterTemplate" else "AzureManagedClusterTemplate"))
    cc_case("infrastructure-group-changed", retarget(api_version="infrastructure.cluster.example.com/v1beta1"))
    cc_case("infrastructure-version-changed", retarget(api_version="infrastructure.cluster.x-k8s.io/v1beta2"))
    cc_case("infrastructure-template-renamed", lambda c: [other_template(bundle, infra_of(c))])
    cc_case("control-plane-kind-changed", retarget(kind="AzureASOManagedControlPlaneTemplate" if cp_kind == "AzureManagedControlPlaneTemplate" else "AzureManagedControlPlaneTemplate", which=cp_of))
    cc_case("control-plane-group-changed", retarget(api_version="controlplane.cluster.x-k8s.io/v1beta2", which=cp_of))
    cc_case("control-plane-kind-changed-unused", retarget(kind="AzureASOManagedControlPlaneTemplate" if cp_kind == "AzureManagedControlPlaneTemplate" else "AzureManagedControlPlaneTemplate", which=cp_of), with_cluster=False)

    def pool_kind_changed(c):
        ref = pool_infra(c, 1)
        return [other_template(bundle, ref, kind="AzureManagedMachinePoolTemplate" if "ASO" in ref["kind"] else "AzureASOManagedMachinePoolTemplate")]
    cc_case("pool-infrastructure-kind-changed", pool_kind_changed)

    def pool_removed(index):
        return lambda c: (pool_classes(c).pop(index), None)[1]
    used = {p["class"] for p in cluster["spec"]["topology"]["workers"]["machinePools"]}
    cc_case("pool-class-removed-while-used", pool_removed(0))
    cc_case("pool-class-removed-unused", pool_removed(0), with_cluster=False)

    def add_spare(c):
        spare = copy.deepcopy(pool_classes(c)[1])
        spare["class"] = "spare"
        pool_classes(c).append(spare)
    cc_case("pool-class-added", lambda c: add_spare(c))
    cc_case("spare-pool-class-removed", lambda c: (pool_classes(c).pop(), None)[1], old_mutate=add_spare)
    cc_case("pool-class-renamed-while-used", lambda c: pool_classes(c)[0].__setitem__("class", "renamed"))

    def machine_infrastructure(c):
        part = c["spec"]["controlPlane"]
        ref = {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureMachineTemplate", "name": "cp-machines"}
        part["machineInfrastructure"] = {"templateRef": ref} if v2 else {"ref": ref}
        return [{"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureMachineTemplate",
                 "metadata": {"name": "cp-machines", "namespace": "default"},
                 "spec": {"template": {"spec": {"vmSize": "Standard_D2s_v3"}}}}]
    cc_case("control-plane-machine-infrastructure-added", machine_infrastructure)
    if v2:
        cc_case("kubernetes-versions-without-the-cluster-version", lambda c: c["spec"].__setitem__("kubernetesVersions", [bump(version, minor=1), bump(version, minor=2)]))
        cc_case("kubernetes-versions-with-the-cluster-version", lambda c: c["spec"].__setitem__("kubernetesVersions", [version, bump(version, minor=1)]))
    cc_case("variable-removed-while-used", lambda c: (c["spec"]["variables"].pop(0), None)[1])

    def optional_variable(c):
        c["spec"]["variables"].append({"name": "extraTag", "required": False, "schema": {"openAPIV3Schema": {"type": "string"}}})
    cc_case("optional-variable-added", optional_variable)

# --- a small v1beta2 class with a MachineDeployment class (CAPI's test tables) -----------------------------------

NS = "ns1"
INFRA = "infrastructure.cluster.x-k8s.io/v1beta1"
BOOT2 = "bootstrap.cluster.x-k8s.io/v1beta2"
CAPI2 = "cluster.x-k8s.io/v1beta2"


def tref(av, kind, name):
    return {"templateRef": {"apiVersion": av, "kind": kind, "name": name}}


def tmpl(av, kind, name, spec):
    return {"apiVersion": av, "kind": kind, "metadata": {"name": name, "namespace": NS}, "spec": {"template": {"spec": spec}}}


def demo_class():
    return {"apiVersion": CAPI2, "kind": "ClusterClass", "metadata": {"name": "demo", "namespace": NS},
            "spec": {
                "controlPlane": tref(INFRA, "AzureManagedControlPlaneTemplate", "demo-cp"),
                "infrastructure": tref(INFRA, "AzureManagedClusterTemplate", "demo-infra"),
                "workers": {
                    "machineDeployments": [{"class": "md",
                                            "bootstrap": tref(BOOT2, "KubeadmConfigTemplate", "demo-md-bootstrap"),
                                            "infrastructure": tref(INFRA, "AzureMachineTemplate", "demo-md-infra"),
                                            "healthCheck": {"checks": {"nodeStartupTimeoutSeconds": 600}}}],
                    "machinePools": [{"class": "pool",
                                      "bootstrap": tref(BOOT2, "KubeadmConfigTemplate", "demo-pool-bootstrap"),
                                      "infrastructure": tref(INFRA, "AzureManagedMachinePoolTemplate", "demo-pool")}]}}}


DEMO_TEMPLATES = [
    tmpl(INFRA, "AzureManagedClusterTemplate", "demo-infra", {}),
    tmpl(INFRA, "AzureManagedControlPlaneTemplate", "demo-cp", {"location": "westeurope"}),
    tmpl(BOOT2, "KubeadmConfigTemplate", "demo-md-bootstrap", {}),
    tmpl(INFRA, "AzureMachineTemplate", "demo-md-infra", {"vmSize": "Standard_D2s_v3"}),
    tmpl(BOOT2, "KubeadmConfigTemplate", "demo-pool-bootstrap", {}),
    tmpl(INFRA, "AzureManagedMachinePoolTemplate", "demo-pool", {"mode": "System", "sku": "Standard_D2s_v3"}),
]


def demo_cluster(name="c1", mhc=False):
    md = {"class": "md", "name": "md-0", "replicas": 2}
    if mhc:
        md["healthCheck"] = {"enabled": True}
    return {"apiVersion": CAPI2, "kind": "Cluster", "metadata": {"name": name, "namespace": NS},
            "spec": {"topology": {"classRef": {"name": "demo"}, "version": "v1.33.2",
                                  "workers": {"machineDeployments": [md],
                                              "machinePools": [{"class": "pool", "name": "mp-0", "replicas": 1}]}}}}


def demo_cc_case(name, mutate, clusters):
    old_cc, new_cc = demo_class(), demo_class()
    mutate(new_cc)
    case(f"clusterclass-demo-{name}", DEMO_TEMPLATES + clusters + [old_cc], DEMO_TEMPLATES + clusters + [new_cc])


demo_cc_case("md-class-removed-while-used", lambda c: c["spec"]["workers"].pop("machineDeployments"), [demo_cluster()])
demo_cc_case("md-class-removed-used-by-two-clusters", lambda c: c["spec"]["workers"].pop("machineDeployments"), [demo_cluster("c1"), demo_cluster("c2")])
demo_cc_case("md-class-removed-unused", lambda c: c["spec"]["workers"].pop("machineDeployments"), [])
demo_cc_case("md-infrastructure-kind-changed", lambda c: c["spec"]["workers"]["machineDeployments"][0]["infrastructure"]["templateRef"].__setitem__("kind", "AzureMachinePoolMachineTemplate"), [demo_cluster()])
demo_cc_case("md-bootstrap-kind-changed", lambda c: c["spec"]["workers"]["machineDeployments"][0]["bootstrap"]["templateRef"].__setitem__("kind", "OtherConfigTemplate"), [demo_cluster()])
demo_cc_case("md-health-check-removed-while-enabled", lambda c: c["spec"]["workers"]["machineDeployments"][0].pop("healthCheck"), [demo_cluster(mhc=True)])
demo_cc_case("md-health-check-removed-not-enabled", lambda c: c["spec"]["workers"]["machineDeployments"][0].pop("healthCheck"), [demo_cluster()])
demo_cc_case("pool-and-md-removed-while-used", lambda c: c["spec"].pop("workers"), [demo_cluster()])
demo_cc_case("infrastructure-kind-and-group-changed", lambda c: c["spec"]["infrastructure"]["templateRef"].update(apiVersion="infrastructure.cluster.example.com/v1beta1", kind="ExampleClusterTemplate"), [demo_cluster()])


def demo_cluster_case(name, mutate, old_mutate=None):
    old_c, new_c = demo_cluster(), demo_cluster()
    if old_mutate:
        old_mutate(old_c)
        old_mutate(new_c)
    mutate(new_c)
    case(f"cluster-demo-{name}", DEMO_TEMPLATES + [demo_class(), old_c], DEMO_TEMPLATES + [demo_class(), new_c])


demo_cluster_case("md-added", lambda c: c["spec"]["topology"]["workers"]["machineDeployments"].append({"class": "md", "name": "md-1"}))
demo_cluster_case("md-health-check-enabled", lambda c: c["spec"]["topology"]["workers"]["machineDeployments"][0].__setitem__("healthCheck", {"enabled": True}))
demo_cluster_case("minor-upgrade", lambda c: c["spec"]["topology"].__setitem__("version", "v1.34.0"))
demo_cluster_case("two-minor-upgrade", lambda c: c["spec"]["topology"].__setitem__("version", "v1.35.0"))
demo_cluster_case("major-upgrade", lambda c: c["spec"]["topology"].__setitem__("version", "v2.0.0"))
demo_cluster_case("build-metadata", lambda c: c["spec"]["topology"].__setitem__("version", "v1.33.2+build.1"))
demo_cluster_case("class-namespace-set-to-own", lambda c: c["spec"]["topology"]["classRef"].__setitem__("namespace", NS))

# --- classic Clusters and MachinePools of the aks and aks-aso flavors ----------------------------------------------

CLASSIC = {
    "aks": "cli__render_cli__aks_from_the_shipped_example.snap",
    "aso": "cli__render_cli__aks_aso_from_the_shipped_example.snap",
}


def v1beta2_pool(mp):
    """The v1beta1 MachinePool in v1beta2 (what a v1beta2 client writes)."""
    out = copy.deepcopy(mp)
    out["apiVersion"] = CAPI2
    spec = out["spec"]["template"]["spec"]
    ref = spec["infrastructureRef"]
    spec["infrastructureRef"] = {"apiGroup": ref["apiVersion"].split("/")[0], "kind": ref["kind"], "name": ref["name"]}
    boot = spec.get("bootstrap", {})
    if "configRef" in boot:
        cr = boot["configRef"]
        boot["configRef"] = {"apiGroup": cr["apiVersion"].split("/")[0], "kind": cr["kind"], "name": cr["name"]}
    return out


for shape, snap in CLASSIC.items():
    docs = [d for d in snapshot(snap) if d["kind"] != "Secret"]
    cluster = only(docs, "Cluster")[0]
    pools = only(docs, "MachinePool")
    rest = [d for d in docs if d["kind"] not in ("Cluster", "MachinePool")]

    def classic(name, mutate, which="cluster", pool_version="v1beta1", extra=()):
        old_docs = rest + list(extra) + [copy.deepcopy(cluster)] + [copy.deepcopy(p) if pool_version == "v1beta1" else v1beta2_pool(p) for p in pools]
        new_docs = copy.deepcopy(old_docs)
        target = [d for d in new_docs if d["kind"] == ("Cluster" if which == "cluster" else "MachinePool")][0]
        mutate(target)
        case(f"{which}-classic-{shape}-{name}" + ("" if pool_version == "v1beta1" or which == "cluster" else "-v1beta2"), old_docs, new_docs)

    classic("no-op", lambda c: None)
    classic("infrastructure-ref-removed", lambda c: c["spec"].pop("infrastructureRef"))
    classic("control-plane-ref-removed", lambda c: c["spec"].pop("controlPlaneRef"))
    classic("both-refs-removed", lambda c: (c["spec"].pop("controlPlaneRef"), c["spec"].pop("infrastructureRef")))
    classic("control-plane-ref-renamed", lambda c: c["spec"]["controlPlaneRef"].__setitem__("name", "other"))
    classic("paused", lambda c: c["spec"].__setitem__("paused", True))
    classic("services-cidr-changed", lambda c: c["spec"].setdefault("clusterNetwork", {}).__setitem__("services", {"cidrBlocks": ["10.128.0.0/16"]}))
    classic("label-added", lambda c: c["metadata"].setdefault("labels", {}).__setitem__("team", "a"))
    if shape == "aks":
        class_docs = class_bundle("cli__render_class__aks_class_v1beta1.snap", cluster["metadata"]["namespace"])
        version = "v1.33.2"

        def topology(c):
            c["spec"]["topology"] = {"class": "aks", "version": version,
                                     "variables": [{"name": "location", "value": "southcentralus"},
                                                   {"name": "subscriptionId", "value": "00000000-0000-0000-0000-000000000001"},
                                                   {"name": "clusterIdentityName", "value": "cluster-identity"}]}
        classic("class-set", topology, extra=class_docs)

        def topology_unsafe(c):
            topology(c)
            c["metadata"].setdefault("annotations", {})[UNSAFE_CLASS] = ""
        classic("class-set-with-unsafe-annotation", topology_unsafe, extra=class_docs)

    for pv in ("v1beta1", "v1beta2"):
        def rename_cluster(p):
            p["spec"]["clusterName"] = "other"
            p["spec"]["template"]["spec"]["clusterName"] = "other"
        classic("no-op", lambda p: None, "pool", pv)
        classic("cluster-name-changed", rename_cluster, "pool", pv)
        classic("cluster-name-changed-spec-only", lambda p: p["spec"].__setitem__("clusterName", "other"), "pool", pv)
        classic("replicas-changed", lambda p: p["spec"].__setitem__("replicas", 7), "pool", pv)
        classic("version-upgraded", lambda p: p["spec"]["template"]["spec"].__setitem__("version", "v1.34.0"), "pool", pv)
        classic("version-downgraded", lambda p: p["spec"]["template"]["spec"].__setitem__("version", "v1.30.0"), "pool", pv)
        classic("infrastructure-ref-renamed", lambda p: p["spec"]["template"]["spec"]["infrastructureRef"].__setitem__("name", "other"), "pool", pv)
        classic("data-secret-name-changed", lambda p: p["spec"]["template"]["spec"].setdefault("bootstrap", {}).__setitem__("dataSecretName", "other"), "pool", pv)
        classic("annotation-added", lambda p: p["metadata"].setdefault("annotations", {}).__setitem__("note", "x"), "pool", pv)

os.makedirs(OUT, exist_ok=True)
for path in glob.glob(os.path.join(OUT, "*.yaml")):
    os.remove(path)
for name, (old, new) in sorted(cases.items()):
    with open(os.path.join(OUT, f"{name}.old.yaml"), "w") as f:
        f.write(dump(old))
    with open(os.path.join(OUT, f"{name}.new.yaml"), "w") as f:
        f.write(dump(new))
print(f"wrote {len(cases)} pairs to {os.path.relpath(OUT, ROOT)}")
