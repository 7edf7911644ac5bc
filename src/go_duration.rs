//! Go's `time.ParseDuration` (and `Duration.Seconds`), exactly: i64 nanoseconds, Go's overflow and float64 rounding.
//!
//! The grammar is `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` or a lone `0`, with the units ns, us, µs (U+00B5), μs (U+03BC),
//! ms, s, m and h. Like Go, the text is read byte by byte: only ASCII digits count as digits.
//! Replayed against Go's own answers in `tests/referee/go_duration_referee.rs`.

use thiserror::Error;

/// Why Go's `time.ParseDuration` refuses a text; the message is Go's, word for word.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GoDurationError {
    /// Empty, no digits, a stray character, or a total beyond int64 nanoseconds.
    #[error("time: invalid duration {}", quote(.0))]
    Invalid(String),
    /// A number with no unit after it (`10`).
    #[error("time: missing unit in duration {}", quote(.0))]
    MissingUnit(String),
    /// A unit Go does not know (`1d`).
    #[error("time: unknown unit {} in duration {}", quote(.unit), quote(.text))]
    UnknownUnit { unit: String, text: String },
}

/// 1<<63: the magnitude of int64's minimum, the bound Go checks every step against.
const LIMIT: u64 = 1 << 63;

/// What Go's `time.ParseDuration(text)` returns, in nanoseconds.
pub fn parse(text: &str) -> Result<i64, GoDurationError> {
    let invalid = || GoDurationError::Invalid(text.to_string());
    let mut rest = text.as_bytes();
    let mut negative = false;
    if let Some((&sign @ (b'-' | b'+'), after)) = rest.split_first() {
        negative = sign == b'-';
        rest = after;
    }
    if rest == b"0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while let Some(&first) = rest.first() {
        if !(first == b'.' || first.is_ascii_digit()) {
            return Err(invalid());
        }
        let (whole, after_whole) = leading_int(rest).ok_or_else(invalid)?;
        let digits_before_dot = after_whole.len() != rest.len();
        rest = after_whole;
        let (mut fraction, mut scale, mut digits_after_dot) = (0, 1.0, false);
        if let Some(after_dot) = rest.strip_prefix(b".") {
            let after_fraction;
            (fraction, scale, after_fraction) = leading_fraction(after_dot);
            digits_after_dot = after_fraction.len() != after_dot.len();
            rest = after_fraction;
        }
        if !digits_before_dot && !digits_after_dot {
            return Err(invalid());
        }
        let unit_len = rest.iter().position(|&c| c == b'.' || c.is_ascii_digit()).unwrap_or(rest.len());
        if unit_len == 0 {
            return Err(GoDurationError::MissingUnit(text.to_string()));
        }
        let (unit_text, after_unit) = rest.split_at(unit_len);
        rest = after_unit;
        let unit = unit_nanos(unit_text).ok_or_else(|| GoDurationError::UnknownUnit {
            // The unit ends at an ASCII byte or at the end, so it is whole UTF-8.
            unit: String::from_utf8_lossy(unit_text).into_owned(),
            text: text.to_string(),
        })?;
        if whole > LIMIT / unit {
            return Err(invalid());
        }
        let mut value = whole * unit;
        if fraction > 0 {
            // Go: v += uint64(float64(f) * (float64(unit) / scale)); the product is below one unit (at most
            // 3.6e12), so the conversion truncates a value in range.
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let fraction_nanos = (fraction as f64 * (unit as f64 / scale)) as u64;
            value += fraction_nanos;
            if value > LIMIT {
                return Err(invalid());
            }
        }
        // Go adds in uint64, which wraps: two terms of exactly 1<<63 ns sum to 0 and pass.
        total = total.wrapping_add(value);
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if negative {
        // Go: -Duration(d); 1<<63 becomes int64's minimum, which negates to itself.
        #[allow(clippy::cast_possible_wrap)]
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).map_err(|_| invalid())
}

/// Go's `Duration.Seconds()`: `float64(sec) + float64(nsec)/1e9`, which is not always the float64 nearest to the
/// exact value (`16777216.999999999s` gives 16777217.0).
#[allow(clippy::cast_precision_loss)] // |sec| < 2^34 and |nsec| < 1e9: both convert exactly, as in Go.
pub fn seconds(nanos: i64) -> f64 {
    (nanos / 1_000_000_000) as f64 + (nanos % 1_000_000_000) as f64 / 1e9
}

/// The whole seconds CAPI's `ConvertToSeconds` stores for a duration, and whether the cap applied:
/// `math.Trunc(d.Seconds())` in float64 (`16777216.999999999s` gives 16777217), capped at the int32 maximum (and, as
/// Go's conversion does on amd64 and arm64, at the int32 minimum).
pub fn capi_whole_seconds(nanos: i64) -> (i64, bool) {
    #[allow(clippy::cast_possible_truncation)] // a whole number of at most 2^34 in magnitude
    let seconds = seconds(nanos).trunc() as i64;
    let capped = seconds.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
    (capped, capped != seconds)
}

/// Go's `leadingInt`: the leading ASCII digits as a number, None past 1<<63.
fn leading_int(text: &[u8]) -> Option<(u64, &[u8])> {
    let digits = text.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut value: u64 = 0;
    for &c in &text[..digits] {
        if value > LIMIT / 10 {
            return None;
        }
        value = value * 10 + u64::from(c - b'0');
        if value > LIMIT {
            return None;
        }
    }
    Some((value, &text[digits..]))
}

/// Go's `leadingFraction`: the leading ASCII digits as a numerator and its power-of-ten scale (a float64, as Go
/// keeps it); digits that would take the numerator past 1<<63 are consumed but ignored.
fn leading_fraction(text: &[u8]) -> (u64, f64, &[u8]) {
    let digits = text.iter().take_while(|c| c.is_ascii_digit()).count();
    let (mut value, mut scale) = (0u64, 1f64);
    for &c in &text[..digits] {
        if value > (LIMIT - 1) / 10 {
            break;
        }
        let next = value * 10 + u64::from(c - b'0');
        if next > LIMIT {
            break;
        }
        value = next;
        scale *= 10.0;
    }
    (value, scale, &text[digits..])
}

/// Nanoseconds in one of Go's duration units.
fn unit_nanos(unit: &[u8]) -> Option<u64> {
    Some(match unit {
        b"ns" => 1,
        b"us" => 1_000,
        _ if unit == "µs".as_bytes() || unit == "μs".as_bytes() => 1_000,
        b"ms" => 1_000_000,
        b"s" => 1_000_000_000,
        b"m" => 60_000_000_000,
        b"h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// Go's `time.quote`: in double quotes, `"` and `\` escaped, every byte of a non-ASCII or control character as `\xNN`.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if !c.is_ascii() || c < ' ' {
            let mut buffer = [0; 4];
            for byte in c.encode_utf8(&mut buffer).bytes() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_as_go_does() {
        assert_eq!(parse("1h2m3s4ms5us6ns"), Ok(3_723_004_005_006));
        assert_eq!(parse("-9223372036854775808ns"), Ok(i64::MIN));
        assert_eq!(parse("1.5ns"), Ok(1));
        assert_eq!(parse("-0"), Ok(0));
        assert_eq!(parse("9223372036854775808ns"), Err(GoDurationError::Invalid("9223372036854775808ns".into())));
        assert_eq!(parse("10").unwrap_err().to_string(), r#"time: missing unit in duration "10""#);
        assert_eq!(parse("1dé").unwrap_err().to_string(), r#"time: unknown unit "d\xc3\xa9" in duration "1d\xc3\xa9""#);
    }
}
