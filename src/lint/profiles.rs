//! AKS cluster profiles: mirrors `validateLoadBalancerProfile`, `validateAPIServerAccessProfile` and
//! `validateAutoScalerProfile` (internal/webhooks/azuremanagedcontrolplane_validation.go, also run by
//! azuremanagedcontrolplanetemplate_validation.go). The load balancer exclusivity and the autoscaler values are
//! AKS API rules, so they apply to ASO ManagedClusters as well; ASO's CRD already bounds the load balancer
//! numbers there.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::Sink;
use super::bundle::{AsoObject, At, Bundle, CONTAINERSERVICE_GROUP, spec_root};
use super::go_net::parse_cidr;

pub(crate) const LOAD_BALANCER_PROFILE: &str = "capz-load-balancer-profile";
pub(crate) const API_SERVER_ACCESS_PROFILE: &str = "capz-api-server-access-profile";
pub(crate) const AUTOSCALER_PROFILE: &str = "capz-autoscaler-profile";

/// `(field, message)` of one problem, the field relative to the profile.
type Problem = (String, String);

/// Go's `strconv.Atoi` on a 64-bit platform: optional sign, decimal digits, no spaces.
fn atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Go's `strconv.ParseFloat(text, 32)`: decimal (with `inf`, `infinity`, `nan` in any case) or hexadecimal
/// (`0x1.8p-1`, underscores allowed after the prefix) notation, rounded to float32; `None` on a syntax error or a
/// value beyond float32's range.
fn go_parse_float32(text: &str) -> Option<f32> {
    let (negative, unsigned) = match text.strip_prefix(['+', '-']) {
        Some(rest) => (text.starts_with('-'), rest),
        None => (false, text),
    };
    let Some(hex) = unsigned.strip_prefix("0x").or_else(|| unsigned.strip_prefix("0X")) else {
        if text.contains('_') {
            return None;
        }
        return text
            .parse::<f32>()
            .ok()
            .filter(|n| n.is_finite() || !unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.'));
    };
    let (mantissa, exponent) = hex.split_once(['p', 'P'])?;
    let mantissa: String = mantissa.chars().filter(|&c| c != '_').collect();
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((&mantissa, ""));
    if (whole.is_empty() && fraction.is_empty())
        || !whole.chars().chain(fraction.chars()).all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    let exponent: i32 = exponent.replace('_', "").parse().ok()?;
    let digits =
        whole.chars().chain(fraction.chars()).fold(0f64, |acc, c| acc * 16.0 + f64::from(c.to_digit(16).unwrap_or(0)));
    let scale = exponent.checked_sub(4 * i32::try_from(fraction.len()).ok()?)?;
    let value = digits * 2f64.powi(scale);
    let value = value as f32;
    value.is_finite().then_some(if negative { -value } else { value })
}

/// The autoscaler profile values CAPZ's webhook checks beyond the CRD's patterns, by their AzureManaged*
/// (camelCase) and ASO/AKS (kebab-case) names.
fn autoscaler_problems(profile: &Map<String, Value>, kebab: bool) -> Vec<Problem> {
    let name = |camel: &'static str, kebab_name: &'static str| if kebab { kebab_name } else { camel };
    let mut problems = Vec::new();
    let text = |field: &str| profile.get(field).and_then(Value::as_str);
    for (camel, kebab_name) in [
        ("maxEmptyBulkDelete", "max-empty-bulk-delete"),
        ("maxGracefulTerminationSec", "max-graceful-termination-sec"),
        ("okTotalUnreadyCount", "ok-total-unready-count"),
    ] {
        let field = name(camel, kebab_name);
        if let Some(value) = text(field)
            && atoi(value).is_none_or(|n| n < 0)
        {
            problems.push((field.to_string(), format!("{field} {value:?} must be a whole number of at least 0")));
        }
    }
    let field = name("maxTotalUnreadyPercentage", "max-total-unready-percentage");
    if let Some(value) = text(field)
        && atoi(value).is_none_or(|n| !(0..=100).contains(&n))
    {
        problems.push((field.to_string(), format!("{field} {value:?} must be a whole number from 0 to 100")));
    }
    let field = name("scaleDownUtilizationThreshold", "scale-down-utilization-threshold");
    if let Some(value) = text(field)
        // Go's ParseFloat takes NaN, which compares false both ways: CAPZ accepts it.
        && go_parse_float32(value).is_none_or(|n| !n.is_nan() && !(0.0..=1.0).contains(&n))
    {
        problems.push((
            field.to_string(),
            format!("{field} {value:?} must be a number from 0 to 1 (a fraction, e.g. \"0.5\")"),
        ));
    }
    let field = name("newPodScaleUpDelay", "new-pod-scale-up-delay");
    if let Some(value) = text(field).filter(|value| !value.is_empty())
        && crate::go_duration::parse(value).is_err()
    {
        problems.push((
            field.to_string(),
            format!("{field} {value:?} must be a duration such as \"0s\", \"30s\" or \"1m30s\""),
        ));
    }
    problems
}

/// Private DNS zone resource ids AKS accepts (CAPZ's `patternWithLocation` and `patternWithSubzone`).
static PRIVATE_DNS_ZONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([a-zA-Z0-9-]{1,32}\.)?(privatelink|private)\.[a-zA-Z0-9]+\.(azmk8s\.io)$").expect("valid regex")
});

/// The API server access profile of an AzureManagedControlPlane[Template], in CAPZ's order: every
/// authorizedIPRanges entry a CIDR, then privateDNSZone `System`, `None`, or a private DNS zone resource id
/// of a private cluster.
fn api_server_problems(profile: &Map<String, Value>) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let Some(Value::Array(ranges)) = profile.get("authorizedIPRanges") {
        for (index, range) in ranges.iter().enumerate() {
            if let Some(range) = range.as_str()
                && parse_cidr(range).is_none()
            {
                problems.push((
                    format!("authorizedIPRanges/{index}"),
                    format!(
                        "authorizedIPRanges entry {range:?} is not in CIDR format; write it as an address with a \
                         prefix length, e.g. \"203.0.113.7/32\""
                    ),
                ));
            }
        }
    }
    let Some(zone) = profile.get("privateDNSZone").and_then(Value::as_str) else {
        return problems;
    };
    let lower = zone.to_lowercase();
    if lower == "system" || lower == "none" {
        return problems;
    }
    const MARKER: &str = "privatednszones/";
    let Some(start) = lower.find(MARKER) else {
        problems.push((
            "privateDNSZone".to_string(),
            format!(
                "privateDNSZone {zone:?} is neither \"System\", \"None\" nor the resource id of a private DNS zone \
                 (.../providers/Microsoft.Network/privateDnsZones/<zone>)"
            ),
        ));
        return problems;
    };
    if profile.get("enablePrivateCluster").and_then(Value::as_bool) != Some(true) {
        problems.push((
            "privateDNSZone".to_string(),
            format!(
                "privateDNSZone {zone:?} names a private DNS zone, which only a private cluster can use; set \
                 enablePrivateCluster: true or use \"System\"/\"None\""
            ),
        ));
        return problems;
    }
    let name = &lower[start + MARKER.len()..];
    if !PRIVATE_DNS_ZONE.is_match(name) {
        problems.push((
            "privateDNSZone".to_string(),
            format!(
                "private DNS zone {name:?} must be named private.<location>.azmk8s.io, privatelink.<location>.azmk8s.io, \
                 or <subzone>.private[link].<location>.azmk8s.io with a subzone of 1-32 letters, digits or hyphens"
            ),
        ));
    }
    problems
}

/// The load balancer profile of an AzureManagedControlPlane[Template]: CAPZ's ranges and at most one
/// outbound IP source.
fn load_balancer_problems(profile: &Map<String, Value>) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (field, low, high, unit) in [
        ("managedOutboundIPs", 1, 100, ""),
        ("allocatedOutboundPorts", 0, 64000, ""),
        ("idleTimeoutInMinutes", 4, 120, " minutes"),
    ] {
        if let Some(value) = profile.get(field).and_then(Value::as_i64)
            && !(low..=high).contains(&value)
        {
            problems.push((
                field.to_string(),
                format!("{field} {value} is out of range: AKS allows {low} to {high}{unit}"),
            ));
        }
    }
    let non_empty = |field: &str| profile.get(field).and_then(Value::as_array).is_some_and(|items| !items.is_empty());
    let sources: Vec<&str> = [
        ("managedOutboundIPs", profile.get("managedOutboundIPs").is_some_and(|v| !v.is_null())),
        ("outboundIPPrefixes", non_empty("outboundIPPrefixes")),
        ("outboundIPs", non_empty("outboundIPs")),
    ]
    .into_iter()
    .filter_map(|(field, set)| set.then_some(field))
    .collect();
    if sources.len() > 1 {
        problems.push((
            String::new(),
            format!(
                "{} are set together, but a load balancer profile takes at most one of managedOutboundIPs, \
                 outboundIPPrefixes and outboundIPs; keep one",
                sources.join(" and ")
            ),
        ));
    }
    problems
}

/// The outbound IP sources of an ASO ManagedCluster's `networkProfile.loadBalancerProfile`.
fn aso_load_balancer_problems(profile: &Map<String, Value>) -> Vec<Problem> {
    let list_set = |field: &str, list: &str| {
        profile
            .get(field)
            .and_then(|value| value.get(list))
            .and_then(Value::as_array)
            .is_some_and(|items| !items.is_empty())
    };
    let sources: Vec<&str> = [
        ("managedOutboundIPs", profile.get("managedOutboundIPs").is_some_and(Value::is_object)),
        ("outboundIPPrefixes", list_set("outboundIPPrefixes", "publicIPPrefixes")),
        ("outboundIPs", list_set("outboundIPs", "publicIPs")),
    ]
    .into_iter()
    .filter_map(|(field, set)| set.then_some(field))
    .collect();
    if sources.len() > 1 {
        vec![(
            String::new(),
            format!(
                "{} are set together; keep one of managedOutboundIPs, outboundIPPrefixes and outboundIPs",
                sources.join(" and ")
            ),
        )]
    } else {
        Vec::new()
    }
}

fn emit_all(sink: &mut Sink<'_>, rule: &'static str, doc: usize, base: &str, problems: Vec<Problem>) {
    for (field, message) in problems {
        let pointer = if field.is_empty() { base.to_string() } else { format!("{base}/{field}") };
        sink.emit(rule, doc, &pointer, message);
    }
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[LOAD_BALANCER_PROFILE, API_SERVER_ACCESS_PROFILE, AUTOSCALER_PROFILE]) {
        return;
    }
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane", "AzureManagedControlPlaneTemplate"]) {
        let root = spec_root(doc);
        let profile = |name: &str| doc.value.object_at(&format!("{root}/{name}"));
        if let Some(profile) = profile("loadBalancerProfile") {
            let base = format!("{root}/loadBalancerProfile");
            emit_all(sink, LOAD_BALANCER_PROFILE, index, &base, load_balancer_problems(profile));
        }
        if let Some(profile) = profile("apiServerAccessProfile") {
            let base = format!("{root}/apiServerAccessProfile");
            emit_all(sink, API_SERVER_ACCESS_PROFILE, index, &base, api_server_problems(profile));
        }
        if let Some(profile) = profile("autoscalerProfile") {
            let base = format!("{root}/autoscalerProfile");
            emit_all(sink, AUTOSCALER_PROFILE, index, &base, autoscaler_problems(profile, false));
        }
    }
    for object in bundle.aso_objects() {
        if object.is(CONTAINERSERVICE_GROUP, "ManagedCluster") {
            check_aso(object, sink);
        }
    }
}

fn check_aso(object: &AsoObject<'_>, sink: &mut Sink<'_>) {
    let profile = |pointer: &str| object.value.object_at(pointer);
    if let Some(profile) = profile("/spec/networkProfile/loadBalancerProfile") {
        let base = object.pointer("/spec/networkProfile/loadBalancerProfile");
        emit_all(sink, LOAD_BALANCER_PROFILE, object.doc, &base, aso_load_balancer_problems(profile));
    }
    if let Some(profile) = profile("/spec/autoScalerProfile") {
        let base = object.pointer("/spec/autoScalerProfile");
        emit_all(sink, AUTOSCALER_PROFILE, object.doc, &base, autoscaler_problems(profile, true));
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{amcp, aso_control_plane as aso, findings_among, ids, paths};
    use super::*;
    use crate::report::Finding;

    fn findings(yaml: &str) -> Vec<Finding> {
        findings_among(
            yaml,
            &[
                LOAD_BALANCER_PROFILE,
                API_SERVER_ACCESS_PROFILE,
                AUTOSCALER_PROFILE,
                super::super::rules::twins::AKS_LOAD_BALANCER_PROFILE,
                super::super::rules::twins::AKS_AUTOSCALER_PROFILE,
            ],
        )
    }

    #[test]
    fn load_balancer_profile_in_range_passes() {
        let ok =
            "  loadBalancerProfile: {managedOutboundIPs: 100, allocatedOutboundPorts: 0, idleTimeoutInMinutes: 4}\n";
        assert!(findings(&amcp(ok)).is_empty());
        let lists = "  loadBalancerProfile: {outboundIPs: [/subscriptions/x/ip1], outboundIPPrefixes: []}\n";
        assert!(findings(&amcp(lists)).is_empty());
    }

    #[test]
    fn load_balancer_profile_out_of_range_and_exclusive_fire() {
        let bad = "  loadBalancerProfile: {managedOutboundIPs: 0, allocatedOutboundPorts: 64001, idleTimeoutInMinutes: 121, outboundIPs: [/subscriptions/x/ip1]}\n";
        let found = findings(&amcp(bad));
        assert_eq!(ids(&found), [LOAD_BALANCER_PROFILE; 4]);
        assert_eq!(
            paths(&found),
            [
                "/spec/loadBalancerProfile",
                "/spec/loadBalancerProfile/allocatedOutboundPorts",
                "/spec/loadBalancerProfile/idleTimeoutInMinutes",
                "/spec/loadBalancerProfile/managedOutboundIPs",
            ]
        );
        assert!(found[0].message.contains("managedOutboundIPs and outboundIPs"), "{}", found[0].message);
        assert!(found[2].message.contains("4 to 120 minutes"), "{}", found[2].message);
    }

    #[test]
    fn template_profiles_are_checked_at_the_template_root() {
        let yaml = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedControlPlaneTemplate
metadata: {name: t}
spec:
  template:
    spec:
      version: v1.33.2
      loadBalancerProfile: {idleTimeoutInMinutes: 3}
      autoscalerProfile: {maxTotalUnreadyPercentage: \"101\"}
";
        assert_eq!(
            paths(&findings(yaml)),
            [
                "/spec/template/spec/loadBalancerProfile/idleTimeoutInMinutes",
                "/spec/template/spec/autoscalerProfile/maxTotalUnreadyPercentage",
            ]
        );
    }

    #[test]
    fn aso_load_balancer_takes_one_outbound_source() {
        let one = "      networkProfile:\n        loadBalancerProfile: {managedOutboundIPs: {count: 2}, outboundIPs: {publicIPs: []}}\n";
        assert!(findings(&aso(one)).is_empty());
        let two = "      networkProfile:\n        loadBalancerProfile: {managedOutboundIPs: {count: 2}, outboundIPPrefixes: {publicIPPrefixes: [{reference: {armId: /x}}]}}\n";
        let found = findings(&aso(two));
        assert_eq!(ids(&found), [super::super::rules::twins::AKS_LOAD_BALANCER_PROFILE]);
        assert_eq!(found[0].path, "/spec/resources/0/spec/networkProfile/loadBalancerProfile");
        // No AKS document says AKS rejects two outbound sources: a warning that says what AKS documents.
        assert_eq!(found[0].severity, crate::report::Severity::Warning);
        assert!(found[0].message.contains("managedOutboundIPs and outboundIPPrefixes are set together"));
        assert!(found[0].message.contains("alternative outbound sources"), "{}", found[0].message);
        assert!(found[0].message.contains("no AKS document says AKS rejects"), "{}", found[0].message);
        // On the classic kind CAPZ's webhook rejects it: an error without the note.
        let classic =
            findings(&amcp("  loadBalancerProfile: {managedOutboundIPs: 2, outboundIPs: [/subscriptions/x/ip1]}\n"));
        assert_eq!(ids(&classic), [LOAD_BALANCER_PROFILE]);
        assert_eq!(classic[0].severity, crate::report::Severity::Error);
        assert!(!classic[0].message.contains("AKS document"), "{}", classic[0].message);
    }

    #[test]
    fn authorized_ip_ranges_must_be_cidrs() {
        let ok = "  apiServerAccessProfile: {authorizedIPRanges: [203.0.113.0/24, \"2001:db8::/32\"]}\n";
        assert!(findings(&amcp(ok)).is_empty());
        let bad = "  apiServerAccessProfile: {authorizedIPRanges: [203.0.113.0/24, 203.0.113.7, 10.0.0.0/33]}\n";
        let found = findings(&amcp(bad));
        assert_eq!(
            paths(&found),
            ["/spec/apiServerAccessProfile/authorizedIPRanges/1", "/spec/apiServerAccessProfile/authorizedIPRanges/2",]
        );
        assert!(found[0].message.contains("\"203.0.113.7\""), "{}", found[0].message);
    }

    #[test]
    fn private_dns_zone_rules() {
        let zone = |zone: &str, private: bool| {
            findings(&amcp(&format!(
                "  apiServerAccessProfile: {{enablePrivateCluster: {private}, privateDNSZone: \"{zone}\"}}\n"
            )))
        };
        let id = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones";
        assert!(zone("System", false).is_empty());
        assert!(zone("none", false).is_empty());
        assert!(zone(&format!("{id}/privatelink.westeurope.azmk8s.io"), true).is_empty());
        assert!(zone(&format!("{id}/team-a.private.westeurope.azmk8s.io"), true).is_empty());

        let not_private = zone(&format!("{id}/privatelink.westeurope.azmk8s.io"), false);
        assert_eq!(ids(&not_private), [API_SERVER_ACCESS_PROFILE]);
        assert!(not_private[0].message.contains("only a private cluster"));
        assert!(zone("my-zone", true)[0].message.contains("neither \"System\""));
        let bad_name = zone(&format!("{id}/example.com"), true);
        assert!(bad_name[0].message.contains("azmk8s.io"), "{}", bad_name[0].message);
        assert_eq!(bad_name[0].path, "/spec/apiServerAccessProfile/privateDNSZone");
    }

    #[test]
    fn autoscaler_profile_values() {
        let ok = "  autoscalerProfile: {maxEmptyBulkDelete: \"10\", maxGracefulTerminationSec: \"600\", okTotalUnreadyCount: \"3\", maxTotalUnreadyPercentage: \"45\", scaleDownUtilizationThreshold: \"0.5\", newPodScaleUpDelay: \"1m30s\"}\n";
        assert!(findings(&amcp(ok)).is_empty());
        let bad = "  autoscalerProfile: {maxEmptyBulkDelete: \"-1\", okTotalUnreadyCount: \"three\", maxTotalUnreadyPercentage: \"101\", scaleDownUtilizationThreshold: \"1.5\", newPodScaleUpDelay: \"10\"}\n";
        let found = findings(&amcp(bad));
        assert_eq!(
            paths(&found),
            [
                "/spec/autoscalerProfile/maxEmptyBulkDelete",
                "/spec/autoscalerProfile/maxTotalUnreadyPercentage",
                "/spec/autoscalerProfile/newPodScaleUpDelay",
                "/spec/autoscalerProfile/okTotalUnreadyCount",
                "/spec/autoscalerProfile/scaleDownUtilizationThreshold",
            ]
        );
        let aso_bad =
            aso("      autoScalerProfile: {scale-down-utilization-threshold: \"2\", new-pod-scale-up-delay: 0}\n");
        let found = findings(&aso_bad);
        assert_eq!(paths(&found), ["/spec/resources/0/spec/autoScalerProfile/scale-down-utilization-threshold"]);
    }

    #[test]
    fn floats_parse_as_go_parse_float_32() {
        assert_eq!(go_parse_float32("0x1p-2"), Some(0.25));
        assert_eq!(go_parse_float32("-0X1.8P1"), Some(-3.0));
        assert_eq!(go_parse_float32("0x_1p0"), Some(1.0));
        assert_eq!(go_parse_float32("1.00000001"), Some(1.0), "rounded to float32");
        assert_eq!(go_parse_float32(".5"), Some(0.5));
        assert!(go_parse_float32("NaN").is_some_and(f32::is_nan));
        assert_eq!(go_parse_float32("inf"), Some(f32::INFINITY));
        for bad in ["", "1_0", "0x1", "1e50", "0.5 ", "0x", "0xp1", "abc"] {
            assert_eq!(go_parse_float32(bad), None, "{bad}");
        }
    }

    #[test]
    fn go_number_and_duration_syntax() {
        assert_eq!(atoi("+7"), Some(7));
        assert_eq!(atoi("-0"), Some(0));
        assert_eq!(atoi(" 7"), None);
        assert_eq!(atoi(""), None);
        for ok in ["0", "0s", "1.5h", "1h30m", "-2m", ".5s", "3µs", "10ns", "2562047h", "-9223372036854775808ns", "1.s"]
        {
            assert!(crate::go_duration::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["", "10", "1d", "s", "1..5s", "1h30", "+", ".", "2562048h", "9223372036854775808ns", "1h1e3s"] {
            assert!(crate::go_duration::parse(bad).is_err(), "{bad}");
        }
    }
}
