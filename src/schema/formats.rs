//! String formats as the Kubernetes API server checks them for custom resources (kube-openapi's
//! strfmt registry), not JSON Schema's. Unknown formats, and `int32`/`int64`/`float`/`double`
//! (which only describe numbers), are ignored, as the API server does.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use base64::Engine;
use regex::Regex;

/// kube-openapi's format regexes are Go's: `\d`, `\s` are ASCII.
fn re(pattern: &str) -> Regex {
    Regex::new(&super::go_regex::ascii_perl_classes(pattern)).expect("built-in format regex")
}

static DATE_TIME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$"));
static DATE: LazyLock<Regex> = LazyLock::new(|| re(r"^\d{4}-\d{2}-\d{2}$"));
static DURATION_GO: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))*$|^[-+]?0$")
});
// strfmt.ParseDuration: `<number> <unit>` pairs with long or short unit names (e.g. `2w`, `1 day`).
static DURATION_STRFMT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(\s*[-+]?\d+(\.\d+)?\s*(ns|nanoseconds?|us|µs|microseconds?|ms|milliseconds?|s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|wk|wks|weeks?)\s*)+$",
    )
});
static UUID: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    )
});
static MAC: LazyLock<Regex> =
    LazyLock::new(|| re(r"^([0-9A-Fa-f]{2}[:-]){5,19}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2,9}[0-9A-Fa-f]{4}$"));
static EMAIL: LazyLock<Regex> = LazyLock::new(|| re(r"^[^@\s]+@[^@\s]+$"));
static HEXCOLOR: LazyLock<Regex> = LazyLock::new(|| re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static URI: LazyLock<Regex> = LazyLock::new(|| re(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$|^/\S*$"));

/// `Some(message)` when `value` does not have `format`.
pub(crate) fn check(format: &str, value: &str) -> Option<String> {
    let ok = match format {
        "date-time" | "datetime" => DATE_TIME.is_match(value) && valid_date(&value[..10]),
        "date" => DATE.is_match(value) && valid_date(value),
        "duration" => DURATION_GO.is_match(value) || DURATION_STRFMT.is_match(value),
        "byte" => base64::engine::general_purpose::STANDARD.decode(value).is_ok(),
        "uuid" => UUID.is_match(value),
        "uuid3" | "uuid4" | "uuid5" => {
            UUID.is_match(value) && value.replace('-', "").chars().nth(12) == format[4..].chars().next()
        }
        "ipv4" => value.parse::<Ipv4Addr>().is_ok(),
        "ipv6" => value.parse::<Ipv6Addr>().is_ok(),
        "cidr" => valid_cidr(value),
        "mac" => MAC.is_match(value),
        "hostname" => HOSTNAME.is_match(value) && value.len() <= 255,
        "email" => EMAIL.is_match(value),
        "uri" => URI.is_match(value),
        "hexcolor" => HEXCOLOR.is_match(value),
        _ => true,
    };
    (!ok).then(|| format!("{value:?} is not a valid {format}"))
}

fn valid_date(date: &str) -> bool {
    let parts: Vec<u32> = date.split('-').filter_map(|p| p.parse().ok()).collect();
    let [year, month, day] = parts[..] else { return false };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

fn valid_cidr(value: &str) -> bool {
    let Some((ip, bits)) = value.split_once('/') else { return false };
    let Ok(bits) = bits.parse::<u8>() else { return false };
    match ip.parse::<IpAddr>() {
        Ok(IpAddr::V4(_)) => bits <= 32,
        Ok(IpAddr::V6(_)) => bits <= 128,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn kubernetes_durations_include_go_and_long_unit_forms() {
        for ok in ["30s", "1h30m", "1.5h", "0", "2w", "1 day", "100ms", "-5m"] {
            assert_eq!(check("duration", ok), None, "{ok}");
        }
        for bad in ["", "thirty seconds", "5", "1y", "PT5M"] {
            assert!(check("duration", bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn date_times_follow_rfc3339_with_real_calendar_dates() {
        assert_eq!(check("date-time", "2024-02-29T10:00:00Z"), None);
        assert_eq!(check("date-time", "2024-01-01T10:00:00.123+02:00"), None);
        assert!(check("date-time", "2023-02-29T10:00:00Z").is_some());
        assert!(check("date-time", "yesterday").is_some());
        assert!(check("date", "2024-13-01").is_some());
    }

    #[test]
    fn numeric_and_unknown_formats_are_ignored() {
        assert_eq!(check("int32", "abc"), None);
        assert_eq!(check("int-or-string", "abc"), None);
        assert_eq!(check("something-new", "abc"), None);
    }

    #[test]
    fn bytes_ips_and_cidrs() {
        assert_eq!(check("byte", "aGVsbG8="), None);
        assert!(check("byte", "not base64!").is_some());
        assert_eq!(check("ipv4", "10.0.0.10"), None);
        assert!(check("ipv4", "10.0.0.300").is_some());
        assert_eq!(check("cidr", "10.0.0.0/16"), None);
        assert!(check("cidr", "10.0.0.0/33").is_some());
        assert_eq!(check("uuid", "550e8400-e29b-41d4-a716-446655440000"), None);
        assert!(check("uuid", "550e8400").is_some());
    }
}
