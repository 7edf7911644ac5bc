//! Go's canonical durations as CAPI writes them (`metav1.Duration` after conversion to whole seconds).

use serde_json::Value;

/// Go's `time.Duration.String()`: `9m0s`, `1h30m0s`, `1.5s`, `300ms`, `0s`.
pub fn format_go_duration(ns: i128) -> String {
    if ns == 0 {
        return "0s".into();
    }
    let sign = if ns < 0 { "-" } else { "" };
    let u = ns.unsigned_abs();
    if u < 1_000_000_000 {
        let (unit, div) = if u < 1_000 {
            ("ns", 1)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        return format!("{sign}{}{unit}", fraction(u, div));
    }
    let hours = u / 3_600_000_000_000;
    let minutes = (u / 60_000_000_000) % 60;
    let seconds = fraction(u % 60_000_000_000, 1_000_000_000);
    let mut out = sign.to_string();
    if hours > 0 {
        out.push_str(&format!("{hours}h{minutes}m"));
    } else if minutes > 0 {
        out.push_str(&format!("{minutes}m"));
    }
    out.push_str(&format!("{seconds}s"));
    out
}

fn fraction(value: u128, div: u128) -> String {
    let whole = value / div;
    let rest = value % div;
    if rest == 0 {
        return whole.to_string();
    }
    let width = div.to_string().len() - 1;
    let digits = format!("{rest:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// Rewrites a `metav1.Duration` field in Go's canonical form, in whole seconds; a value Go cannot parse is left
/// alone (the schema check reports it).
pub fn canonical_duration(value: &mut Value) {
    if let Some(text) = value.as_str()
        && let Ok(ns) = crate::go_duration::parse(text)
    {
        // CAPI v1.14 stores these durations as v1beta2 whole seconds (`...Seconds`, int32, truncated),
        // so a v1beta1 client reads `1500ms` back as `1s` (v1.10 kept `1.5s`).
        let whole_seconds = i128::from(crate::go_duration::capi_whole_seconds(ns).0) * 1_000_000_000;
        *value = Value::String(format_go_duration(whole_seconds));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_go_does() {
        for (input, want) in [
            ("9m", "9m0s"),
            ("90s", "1m30s"),
            ("1h30m", "1h30m0s"),
            ("0.5h", "30m0s"),
            ("300s", "5m0s"),
            ("0", "0s"),
            ("1.5s", "1.5s"),
            ("300ms", "300ms"),
            ("2h", "2h0m0s"),
            ("-1m", "-1m0s"),
            ("1m0.25s", "1m0.25s"),
        ] {
            assert_eq!(format_go_duration(i128::from(crate::go_duration::parse(input).unwrap())), want, "{input}");
        }
        // CAPI's ConvertToSeconds: float64 seconds, truncated, capped at int32.
        for (input, want) in [
            ("16777216.999999999s", "4660h20m17s"),
            ("1000000h", "596523h14m7s"),
            ("-1000000h", "-596523h14m8s"),
            ("1.999999999s", "1s"),
        ] {
            let mut value = Value::String(input.into());
            canonical_duration(&mut value);
            assert_eq!(value, Value::String(want.into()), "{input}");
        }
        assert!(crate::go_duration::parse("9").is_err());
        assert!(crate::go_duration::parse("1d").is_err());
    }
}
