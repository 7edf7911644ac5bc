//! Agent pool settings CAPZ's AzureManagedMachinePool[Template] webhooks reject: mirrors `validateMaxPods`,
//! `validateNodeLabels`, `validateNodePublicIPPrefixID`, `validateEnableNodePublicIP`, `validateMPSubnetName`,
//! `validateKubeletConfig` and `validateLinuxOSConfig` (internal/webhooks/azuremanagedmachinepool_validation.go).
//! These restate AKS API limits (learn.microsoft.com/azure/aks/custom-node-configuration), so they also apply to
//! the ManagedClustersAgentPools of aks-aso, whose fields have the same names.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::Sink;
use super::bundle::{At, Bundle, CONTAINERSERVICE_GROUP, spec_root};
use super::network::TEMPLATE_INSTANCE;

use crate::json_pointer::Fields;

pub(crate) const MAX_PODS: &str = "capz-max-pods";
pub(crate) const NODE_LABELS: &str = "capz-node-labels";
pub(crate) const NODE_PUBLIC_IP: &str = "capz-node-public-ip";
pub(crate) const SUBNET_NAME: &str = "capz-subnet-name";
pub(crate) const KUBELET_CONFIG: &str = "capz-kubelet-config";
pub(crate) const LINUX_OS_CONFIG: &str = "capz-linux-os-config";
pub(crate) const SPOT_MAX_PRICE: &str = "capz-spot-max-price";

/// resource.Quantity's grammar (k8s.io/apimachinery ParseQuantity), as the CRD's pattern writes it.
static QUANTITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")
        .expect("valid regex")
});

/// `azureutil.AzureSystemNodeLabelPrefix`: label keys AKS reserves for itself.
const AZURE_SYSTEM_LABEL_PREFIX: &str = "kubernetes.azure.com";

static PUBLIC_IP_PREFIX_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^/?subscriptions/[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}/resourcegroups/[^/]+/providers/microsoft\.network/publicipprefixes/[^/]+$",
    )
    .expect("valid regex")
});

static SUBNET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{0,78}[a-zA-Z0-9]$").expect("valid regex"));

static UNSAFE_SYSCTLS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [r"^kernel\.shm.+$", r"^kernel\.msg.+$", r"^kernel\.sem$", r"^fs\.mqueue\..+$", r"^net\..+$"]
        .into_iter()
        .map(|pattern| Regex::new(pattern).expect("valid regex"))
        .collect()
});

static PORT_RANGE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[0-9]+ [0-9]+$").expect("valid regex"));

/// Which API the pool spec comes from: CAPZ's AzureManagedMachinePool or ASO's ManagedClustersAgentPool.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Capz { template: bool },
    Aso,
}

/// `(rule, field relative to the pool spec, message)`.
type Problem = (&'static str, String, String);

fn problems(spec: &Map<String, Value>, shape: Shape) -> Vec<Problem> {
    let mut found = Vec::new();
    if let Some(max_pods) = spec.field("maxPods").and_then(Value::as_i64)
        && !(10..=250).contains(&max_pods)
    {
        found.push((
            MAX_PODS,
            "maxPods".to_string(),
            format!("maxPods {max_pods} is out of range: AKS allows 10 to 250 pods per node"),
        ));
    }
    if let Some(labels) = spec.field("nodeLabels").and_then(Value::as_object) {
        for key in labels.keys().filter(|key| key.starts_with(AZURE_SYSTEM_LABEL_PREFIX)) {
            found.push((
                NODE_LABELS,
                format!("nodeLabels/{}", crate::json_pointer::escape_token(key)),
                format!(
                    "node label {key:?} uses the prefix {AZURE_SYSTEM_LABEL_PREFIX:?}, which AKS reserves for its own \
                     labels; choose another key"
                ),
            ));
        }
    }
    public_ip_problems(spec, shape, &mut found);
    if let Shape::Capz { template } = shape
        && let Some(subnet) = spec.field("subnetName").and_then(Value::as_str)
        && !SUBNET.is_match(subnet)
    {
        let problem = format!(
            "subnetName {subnet:?} must be 2-80 letters, digits, '.', '_' or '-', starting with a letter or digit and \
             ending with a letter or digit"
        );
        // The template webhook does not call validateMPSubnetName; every pool made from the template fails it.
        found.push(if template {
            (
                TEMPLATE_INSTANCE,
                "subnetName".to_string(),
                format!(
                    "{problem}. CAPZ's template webhook accepts this, but rejects every AzureManagedMachinePool the \
                     topology controller creates from the template"
                ),
            )
        } else {
            (SUBNET_NAME, "subnetName".to_string(), problem)
        });
    }
    // CAPZ's webhooks decode the object into Go types first: a spotMaxPrice that is no resource.Quantity fails
    // there ("quantities must match the regular expression ..."), before any validator runs.
    if let Shape::Capz { .. } = shape
        && let Some(Value::String(price)) = spec.field("spotMaxPrice")
        // Quantity.UnmarshalJSON trims white space (strings.TrimSpace) from the JSON text first; control characters
        // and U+2028/U+2029 arrive escaped in that text, so they are not trimmed.
        && !QUANTITY.is_match(price.trim_matches(|c: char| {
            c.is_whitespace() && !c.is_ascii_control() && !matches!(c, '\u{2028}' | '\u{2029}')
        }))
    {
        found.push((
            SPOT_MAX_PRICE,
            "spotMaxPrice".to_string(),
            format!("spotMaxPrice {price:?} is not a Kubernetes quantity (e.g. \"0.05\" or \"-1\"); CAPZ's webhook cannot decode it"),
        ));
    }
    let kubelet = spec.field("kubeletConfig").and_then(Value::as_object);
    if let Some(kubelet) = kubelet {
        kubelet_problems(kubelet, &mut found);
    }
    if let Some(linux) = spec.field("linuxOSConfig").and_then(Value::as_object) {
        // CAPZ spells the sysctl `netIpv4IPLocalPortRange` (api/v1beta1 SysctlConfig), ASO `netIpv4IpLocalPortRange`.
        let port_range_field = if shape == Shape::Aso { "netIpv4IpLocalPortRange" } else { "netIpv4IPLocalPortRange" };
        linux_problems(linux, kubelet, port_range_field, &mut found);
    }
    found
}

/// A node public IP prefix needs node public IPs on (and, on CAPZ's pools, a public IP prefix resource ID).
fn public_ip_problems(spec: &Map<String, Value>, shape: Shape, found: &mut Vec<Problem>) {
    let public_ip = spec.field("enableNodePublicIP").and_then(Value::as_bool) == Some(true);
    match shape {
        Shape::Capz { .. } => {
            if let Some(id) = spec.field("nodePublicIPPrefixID").and_then(Value::as_str) {
                if !PUBLIC_IP_PREFIX_ID.is_match(id) {
                    found.push((
                        NODE_PUBLIC_IP,
                        "nodePublicIPPrefixID".to_string(),
                        format!(
                            "nodePublicIPPrefixID {id:?} is not a public IP prefix resource id \
                             (/subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/publicIPPrefixes/<name>)"
                        ),
                    ));
                }
                if !public_ip {
                    found.push((
                        NODE_PUBLIC_IP,
                        "enableNodePublicIP".to_string(),
                        "enableNodePublicIP must be true when nodePublicIPPrefixID is set".to_string(),
                    ));
                }
            }
        }
        Shape::Aso => {
            if spec.field("nodePublicIPPrefixReference").is_some_and(Value::is_object) && !public_ip {
                found.push((
                    NODE_PUBLIC_IP,
                    "enableNodePublicIP".to_string(),
                    "enableNodePublicIP must be true when nodePublicIPPrefixReference is set".to_string(),
                ));
            }
        }
    }
}

/// CAPZ's `validateKubeletConfig` returns at its first problem: cpuCfsQuotaPeriod, the image GC thresholds, then
/// the first disallowed sysctl.
fn kubelet_problems(kubelet: &Map<String, Value>, found: &mut Vec<Problem>) {
    let before = found.len();
    kubelet_all_problems(kubelet, found);
    found.truncate((before + 1).min(found.len()));
}

fn kubelet_all_problems(kubelet: &Map<String, Value>, found: &mut Vec<Problem>) {
    if let Some(period) = kubelet.field("cpuCfsQuotaPeriod").and_then(Value::as_str)
        && !period.ends_with("ms")
    {
        found.push((
            KUBELET_CONFIG,
            "kubeletConfig/cpuCfsQuotaPeriod".to_string(),
            format!(
                "kubeletConfig.cpuCfsQuotaPeriod {period:?} must be milliseconds with an \"ms\" suffix, e.g. \"100ms\""
            ),
        ));
    }
    if let (Some(high), Some(low)) = (
        kubelet.field("imageGcHighThreshold").and_then(Value::as_i64),
        kubelet.field("imageGcLowThreshold").and_then(Value::as_i64),
    ) && low > high
    {
        found.push((
            KUBELET_CONFIG,
            "kubeletConfig/imageGcLowThreshold".to_string(),
            format!("kubeletConfig.imageGcLowThreshold {low} must not be greater than imageGcHighThreshold {high}"),
        ));
    }
    if let Some(Value::Array(sysctls)) = kubelet.field("allowedUnsafeSysctls") {
        for (index, sysctl) in sysctls.iter().enumerate() {
            if let Some(sysctl) = sysctl.as_str()
                && !UNSAFE_SYSCTLS.iter().any(|pattern| pattern.is_match(sysctl))
            {
                found.push((
                    KUBELET_CONFIG,
                    format!("kubeletConfig/allowedUnsafeSysctls/{index}"),
                    format!(
                        "{sysctl:?} is not an unsafe sysctl AKS allows (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, \
                         net.*)"
                    ),
                ));
            }
        }
    }
}

fn linux_problems(
    linux: &Map<String, Value>,
    kubelet: Option<&Map<String, Value>>,
    port_range_field: &str,
    found: &mut Vec<Problem>,
) {
    let fail_swap_on = kubelet.and_then(|kubelet| kubelet.field("failSwapOn")).and_then(Value::as_bool).unwrap_or(true);
    if linux.field("swapFileSizeMB").is_some_and(|v| !v.is_null()) && fail_swap_on {
        found.push((
            LINUX_OS_CONFIG,
            "linuxOSConfig/swapFileSizeMB".to_string(),
            "linuxOSConfig.swapFileSizeMB needs kubeletConfig.failSwapOn: false, otherwise the kubelet refuses to run \
             with swap"
                .to_string(),
        ));
    }
    let Some(range) =
        linux.field("sysctls").and_then(|sysctls| sysctls.field(port_range_field)).and_then(Value::as_str)
    else {
        return;
    };
    let field = format!("linuxOSConfig/sysctls/{port_range_field}");
    if !PORT_RANGE.is_match(range) {
        found.push((
            LINUX_OS_CONFIG,
            field,
            format!(
                "{port_range_field} {range:?} must be two port numbers separated by one space, e.g. \"32768 60999\""
            ),
        ));
        return;
    }
    // Go's Atoi saturates on overflow (and CAPZ ignores the error), so a huge number compares as the maximum.
    let port = |text: &str| text.parse::<i64>().unwrap_or(i64::MAX);
    let (first, last) = range.split_once(' ').unwrap_or((range, ""));
    let (first, last) = (port(first), port(last));
    if !(1024..=60999).contains(&first) {
        found.push((
            LINUX_OS_CONFIG,
            field.clone(),
            format!("the first port of {port_range_field} ({first}) must be from 1024 to 60999"),
        ));
    }
    if !(32768..=65000).contains(&last) {
        found.push((
            LINUX_OS_CONFIG,
            field.clone(),
            format!("the last port of {port_range_field} ({last}) must be from 32768 to 65000"),
        ));
    }
    if first > last {
        found.push((
            LINUX_OS_CONFIG,
            field,
            format!("{port_range_field} starts at {first}, after its last port {last}"),
        ));
    }
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[
        MAX_PODS,
        NODE_LABELS,
        NODE_PUBLIC_IP,
        SUBNET_NAME,
        KUBELET_CONFIG,
        LINUX_OS_CONFIG,
        SPOT_MAX_PRICE,
        TEMPLATE_INSTANCE,
    ]) {
        return;
    }
    for (index, doc) in bundle.capz(&["AzureManagedMachinePool", "AzureManagedMachinePoolTemplate"]) {
        let root = spec_root(doc);
        let Some(spec) = doc.value.object_at(root) else {
            continue;
        };
        let shape = Shape::Capz { template: root != "/spec" };
        for (rule, field, message) in problems(spec, shape) {
            sink.emit(rule, index, &format!("{root}/{field}"), message);
        }
    }
    for object in bundle.aso_objects() {
        if !object.is(CONTAINERSERVICE_GROUP, "ManagedClustersAgentPool") {
            continue;
        }
        let Some(spec) = object.value.object_at("/spec") else {
            continue;
        };
        for (rule, field, message) in problems(spec, Shape::Aso) {
            sink.emit(rule, object.doc, &object.pointer(&format!("/spec/{field}")), message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, ids, paths};
    use super::*;
    use crate::report::Finding;

    fn findings(yaml: &str) -> Vec<Finding> {
        findings_among(
            yaml,
            &[
                MAX_PODS,
                NODE_LABELS,
                NODE_PUBLIC_IP,
                SUBNET_NAME,
                KUBELET_CONFIG,
                LINUX_OS_CONFIG,
                super::super::rules::twins::AKS_MAX_PODS,
                super::super::rules::twins::AKS_NODE_LABELS,
                super::super::rules::twins::AKS_NODE_PUBLIC_IP,
                super::super::rules::twins::AKS_KUBELET_CONFIG,
                super::super::rules::twins::AKS_LINUX_OS_CONFIG,
            ],
        )
    }

    fn ammp(fields: &str) -> String {
        format!(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePool\nmetadata: {{name: pool0}}\nspec:\n  mode: User\n  sku: Standard_D2s_v3\n{fields}"
        )
    }

    fn agent_pool(fields: &str) -> String {
        format!(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {{name: pool0}}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {{name: pool0}}
    spec:
      mode: User
{fields}"
        )
    }

    #[test]
    fn max_pods_range() {
        assert!(findings(&ammp("  maxPods: 10\n")).is_empty());
        assert!(findings(&ammp("  maxPods: 250\n")).is_empty());
        assert_eq!(paths(&findings(&ammp("  maxPods: 9\n"))), ["/spec/maxPods"]);
        let aso = findings(&agent_pool("      maxPods: 251\n"));
        assert_eq!(ids(&aso), [super::super::rules::twins::AKS_MAX_PODS]);
        assert_eq!(aso[0].path, "/spec/resources/0/spec/maxPods");
    }

    #[test]
    fn reserved_node_labels() {
        assert!(findings(&ammp("  nodeLabels: {team: a, azure.com/x: y}\n")).is_empty());
        let found = findings(&ammp("  nodeLabels: {kubernetes.azure.com/scalesetpriority: spot}\n"));
        assert_eq!(paths(&found), ["/spec/nodeLabels/kubernetes.azure.com~1scalesetpriority"]);
        assert_eq!(
            ids(&findings(&agent_pool("      nodeLabels: {kubernetes.azure.comx: y}\n"))),
            [super::super::rules::twins::AKS_NODE_LABELS]
        );
        let aso = findings(&agent_pool("      nodeLabels: {kubernetes.azure.com/mode: system}\n"));
        // Documented (AKS reserved label prefixes): stays an error, without a note.
        assert_eq!(ids(&aso), [super::super::rules::twins::AKS_NODE_LABELS]);
        assert_eq!(aso[0].severity, crate::report::Severity::Error);
        assert!(!aso[0].message.contains("AKS document"), "{}", aso[0].message);
    }

    #[test]
    fn node_public_ip_prefix() {
        let id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p";
        assert!(findings(&ammp(&format!("  enableNodePublicIP: true\n  nodePublicIPPrefixID: {id}\n"))).is_empty());
        assert_eq!(paths(&findings(&ammp(&format!("  nodePublicIPPrefixID: {id}\n")))), ["/spec/enableNodePublicIP"]);
        assert_eq!(
            paths(&findings(&ammp("  enableNodePublicIP: true\n  nodePublicIPPrefixID: /subscriptions/x/p\n"))),
            ["/spec/nodePublicIPPrefixID"]
        );
        let aso = findings(&agent_pool("      nodePublicIPPrefixReference: {armId: /x}\n"));
        assert_eq!(paths(&aso), ["/spec/resources/0/spec/enableNodePublicIP"]);
        assert_eq!(ids(&aso), [super::super::rules::twins::AKS_NODE_PUBLIC_IP]);
        // No AKS document says AKS rejects the pool: a warning that says what AKS does.
        assert_eq!(aso[0].severity, crate::report::Severity::Warning);
        assert!(aso[0].message.starts_with("enableNodePublicIP must be true when nodePublicIPPrefixReference is set"));
        assert!(aso[0].message.contains("only with enableNodePublicIP: true"), "{}", aso[0].message);
        assert!(aso[0].message.contains("no AKS document says AKS rejects"), "{}", aso[0].message);
        // The classic kind: CAPZ's webhook rejects it, an error.
        let classic = findings(&ammp(&format!("  nodePublicIPPrefixID: {id}\n")));
        assert_eq!(classic[0].severity, crate::report::Severity::Error);
    }

    #[test]
    fn subnet_name_pattern_on_machine_pools_only() {
        assert!(findings(&ammp("  subnetName: pool0-subnet_1.a\n")).is_empty());
        assert_eq!(ids(&findings(&ammp("  subnetName: -bad\n"))), [SUBNET_NAME]);
        assert_eq!(ids(&findings(&ammp("  subnetName: a\n"))), [SUBNET_NAME], "at least 2 characters");
        let template = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePoolTemplate\nmetadata: {name: t}\nspec:\n  template:\n    spec: {mode: User, subnetName: -bad, maxPods: 5}\n";
        assert_eq!(paths(&findings(template)), ["/spec/template/spec/maxPods"]);
    }

    #[test]
    fn kubelet_config() {
        let ok = "  kubeletConfig: {cpuCfsQuotaPeriod: 100ms, imageGcHighThreshold: 85, imageGcLowThreshold: 80, allowedUnsafeSysctls: [kernel.shmmax, kernel.sem, fs.mqueue.msg_max, net.core.somaxconn]}\n";
        assert!(findings(&ammp(ok)).is_empty());
        let bad = "  kubeletConfig: {cpuCfsQuotaPeriod: \"100\", imageGcHighThreshold: 70, imageGcLowThreshold: 80, allowedUnsafeSysctls: [kernel.sem, kernel.semx, vm.swappiness]}\n";
        // validateKubeletConfig stops at its first problem.
        assert_eq!(paths(&findings(&ammp(bad))), ["/spec/kubeletConfig/cpuCfsQuotaPeriod"]);
        let sysctls = "  kubeletConfig: {imageGcHighThreshold: 70, imageGcLowThreshold: 80, allowedUnsafeSysctls: [kernel.semx, vm.swappiness]}\n";
        assert_eq!(paths(&findings(&ammp(sysctls))), ["/spec/kubeletConfig/imageGcLowThreshold"]);
        let sysctls = "  kubeletConfig: {allowedUnsafeSysctls: [kernel.sem, kernel.semx, vm.swappiness]}\n";
        assert_eq!(paths(&findings(&ammp(sysctls))), ["/spec/kubeletConfig/allowedUnsafeSysctls/1"]);
    }

    #[test]
    fn capz_port_range_sysctl_is_spelled_with_capital_ip() {
        let capz = "  linuxOSConfig: {sysctls: {netIpv4IPLocalPortRange: \"1000 32000\"}}\n";
        let found = findings(&ammp(capz));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|f| f.path == "/spec/linuxOSConfig/sysctls/netIpv4IPLocalPortRange"));
        // The ASO spelling is not a field of AzureManagedMachinePool (the schema reports it), so no CAPZ finding.
        let aso_spelling = "  linuxOSConfig: {sysctls: {netIpv4IpLocalPortRange: \"1000 32000\"}}\n";
        assert!(findings(&ammp(aso_spelling)).is_empty());
    }

    #[test]
    fn linux_os_config() {
        let swap = "  linuxOSConfig: {swapFileSizeMB: 1024}\n";
        assert_eq!(paths(&findings(&ammp(swap))), ["/spec/linuxOSConfig/swapFileSizeMB"]);
        let with_kubelet = format!("{swap}  kubeletConfig: {{failSwapOn: false}}\n");
        assert!(findings(&ammp(&with_kubelet)).is_empty());
        let range = |r: &str| {
            findings(&agent_pool(&format!("      linuxOSConfig: {{sysctls: {{netIpv4IpLocalPortRange: \"{r}\"}}}}\n")))
                .into_iter()
                .map(|f| f.message)
                .collect::<Vec<_>>()
        };
        assert!(range("32768 60999").is_empty());
        assert_eq!(range("32768-60999").len(), 1);
        let messages = range("1000 32000");
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("first port") && messages[1].contains("last port"));
        let reversed = range("60000 40000");
        assert!(reversed[0].contains("after its last port"), "{reversed:?}");
    }
}

#[cfg(test)]
mod template_instance_tests {
    use super::super::test_support::{findings_of, paths};
    use super::*;

    #[test]
    fn template_subnet_name_fails_on_the_instance() {
        let template = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePoolTemplate\nmetadata: {name: t}\nspec:\n  template:\n    spec: {mode: User, subnetName: -bad}\n";
        assert_eq!(paths(&findings_of(template, TEMPLATE_INSTANCE)), ["/spec/template/spec/subnetName"]);
        assert!(findings_of(template, SUBNET_NAME).is_empty());
    }
}

#[cfg(test)]
mod spot_price_tests {
    use super::super::test_support::{findings_of, paths};
    use super::*;

    #[test]
    fn spot_max_price_is_a_quantity() {
        let pool = |price: &str| {
            format!(
                "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePool\nmetadata: {{name: pool0}}\nspec: {{mode: User, sku: s, spotMaxPrice: {price}}}\n"
            )
        };
        for ok in ["\"0.05\"", "\"-1\"", "\"100m\"", "1", "\" 0.5 \""] {
            assert!(findings_of(&pool(ok), SPOT_MAX_PRICE).is_empty(), "{ok}");
        }
        assert_eq!(paths(&findings_of(&pool("cheap"), SPOT_MAX_PRICE)), ["/spec/spotMaxPrice"]);
        assert_eq!(
            paths(&findings_of(&pool("\"0.5\\t\""), SPOT_MAX_PRICE)),
            ["/spec/spotMaxPrice"],
            "a tab is escaped"
        );
    }
}
