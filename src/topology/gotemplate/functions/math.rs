//! sprig's integer and float math and number conversions, and its integer sequences.

use super::super::GoValue;
use super::super::value::{as_str, strval, to_f64, to_i64};
use super::support::{until_step, want_args, want_min_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &[
    "add",
    "add1",
    "add1f",
    "addf",
    "atoi",
    "ceil",
    "div",
    "divf",
    "float64",
    "floor",
    "int",
    "int64",
    "max",
    "maxf",
    "min",
    "minf",
    "mod",
    "mul",
    "mulf",
    "round",
    "seq",
    "sub",
    "subf",
    "toDecimal",
    "until",
    "untilStep",
];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
        "atoi" => {
            want_args(name, &args, 1)?;
            V::Int(atoi(&s(&args[0])?))
        }
        "int" | "int64" => {
            want_args(name, &args, 1)?;
            V::Int(to_i64(&args[0]))
        }
        "float64" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]))
        }
        "add" => V::Int(args.iter().map(to_i64).fold(0, i64::wrapping_add)),
        "add1" => {
            want_args(name, &args, 1)?;
            V::Int(to_i64(&args[0]).wrapping_add(1))
        }
        "sub" => {
            want_args(name, &args, 2)?;
            V::Int(to_i64(&args[0]).wrapping_sub(to_i64(&args[1])))
        }
        "mul" => V::Int(args.iter().map(to_i64).fold(1, i64::wrapping_mul)),
        "div" | "mod" => {
            want_args(name, &args, 2)?;
            let (a, b) = (to_i64(&args[0]), to_i64(&args[1]));
            if b == 0 {
                return Err("error calling ".to_string() + name + ": runtime error: integer divide by zero");
            }
            // Go: MinInt64 / -1 is MinInt64 (and % is 0), no panic.
            V::Int(if name == "div" { a.wrapping_div(b) } else { a.wrapping_rem(b) })
        }
        "max" | "min" => {
            want_min_args(name, &args, 1)?;
            let values = args.iter().map(to_i64);
            V::Int(if name == "max" { values.max().unwrap_or(0) } else { values.min().unwrap_or(0) })
        }
        "floor" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]).floor())
        }
        "ceil" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]).ceil())
        }
        "round" => {
            // sprig: ceil when the fraction (with its sign, from math.Modf) reaches roundOn, else floor.
            want_min_args(name, &args, 2)?;
            let round_on = args.get(2).map_or(0.5, to_f64);
            let pow = go_pow10(to_i64(&args[1]));
            let digit = pow * to_f64(&args[0]);
            let rounded = if digit.fract() >= round_on { digit.ceil() } else { digit.floor() };
            V::Float(rounded / pow)
        }
        "until" => {
            want_args(name, &args, 1)?;
            let n = to_i64(&args[0]);
            V::List(until_step(0, n, if n < 0 { -1 } else { 1 })?.into_iter().map(V::Int).collect())
        }
        "untilStep" => {
            want_args(name, &args, 3)?;
            let (start, stop, step) = (to_i64(&args[0]), to_i64(&args[1]), to_i64(&args[2]));
            V::List(until_step(start, stop, step)?.into_iter().map(V::Int).collect())
        }
        "seq" => {
            let nums: Vec<i64> = args.iter().map(to_i64).collect();
            let text: Vec<String> = seq(&nums)?.iter().map(i64::to_string).collect();
            V::Str(text.join(" "))
        }
        // ---- sprig defaults and flow
        "addf" => V::Float(args.iter().map(to_f64).sum()),
        "add1f" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]) + 1.0)
        }
        "subf" => {
            want_min_args(name, &args, 1)?;
            V::Float(args[1..].iter().fold(to_f64(&args[0]), |acc, v| acc - to_f64(v)))
        }
        "mulf" => V::Float(args.iter().map(to_f64).product()),
        "divf" => {
            want_min_args(name, &args, 1)?;
            V::Float(args[1..].iter().fold(to_f64(&args[0]), |acc, v| acc / to_f64(v)))
        }
        "maxf" => V::Float(args.iter().map(to_f64).fold(f64::NEG_INFINITY, f64::max)),
        "minf" => V::Float(args.iter().map(to_f64).fold(f64::INFINITY, f64::min)),
        "toDecimal" => {
            want_args(name, &args, 1)?;
            V::Int(i64::from_str_radix(&strval(&args[0])?, 8).unwrap_or(0))
        }
        other => return Err(format!("function \"{other}\" not defined")),
    })
}

/// strconv.Atoi: out of range saturates, anything else that is not a number is 0.
fn atoi(text: &str) -> i64 {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    match text.parse::<i64>() {
        Ok(i) => i,
        Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            if text.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            }
        }
        Err(_) => 0,
    }
}

/// sprig's `seq` (as GNU seq): `end`, `start end` or `start step end`, the end included.
fn seq(nums: &[i64]) -> Result<Vec<i64>, String> {
    Ok(match nums {
        [end] => {
            let increment = if *end < 1 { -1 } else { 1 };
            until_step(1, end.wrapping_add(increment), increment)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_step(*start, end.wrapping_add(step), step)?
        }
        [start, step, end] => {
            let increment = if end < start { -1 } else { 1 };
            if (end < start && *step > 0) || (end >= start && *step < 0) {
                Vec::new()
            } else {
                until_step(*start, end.wrapping_add(increment), *step)?
            }
        }
        _ => Vec::new(),
    })
}

/// Go's `math.Pow(10, places)` for an integer `places`, as sprig's `round` computes it: Go's own algorithm
/// (repeated squaring of the mantissa, the exponent kept apart, `Ldexp` at the end), whose last bits for large
/// exponents can differ from a correctly rounded `pow` (tools/gotemplate-oracle's `round` cases).
fn go_pow10(places: i64) -> f64 {
    match places {
        0 => return 1.0,
        1 => return 10.0,
        // |y| >= 2^63: Go answers 0 for |x| > 1 and y < 0.
        i64::MIN => return 0.0,
        _ => {}
    }
    // frexp(10) = 0.625 * 2^4.
    let (mut x1, mut xe) = (0.625f64, 4i64);
    let (mut a1, mut ae) = (1.0f64, 0i64);
    let mut i = places.unsigned_abs();
    while i != 0 {
        if !(-(1 << 12)..=(1 << 12)).contains(&xe) {
            // Catastrophic overflow: Ldexp below turns it into 0 or Inf.
            ae += xe;
            break;
        }
        if i & 1 == 1 {
            a1 *= x1;
            ae += xe;
        }
        x1 *= x1;
        xe <<= 1;
        if x1 < 0.5 {
            x1 += x1;
            xe -= 1;
        }
        i >>= 1;
    }
    if places < 0 {
        a1 = 1.0 / a1;
        ae = -ae;
    }
    go_ldexp(a1, ae)
}

/// Go's `math.Ldexp` (`frac` normal and finite here: a product of mantissas in [0.5, 1) or its inverse).
fn go_ldexp(frac: f64, exp: i64) -> f64 {
    const SHIFT: u32 = 52;
    const MASK: u64 = 0x7ff;
    const BIAS: i64 = 1023;
    if frac == 0.0 || !frac.is_finite() {
        return frac;
    }
    let bits = frac.to_bits();
    let exp = exp.saturating_add(((bits >> SHIFT) & MASK) as i64 - BIAS);
    if exp < -1075 {
        return 0.0f64.copysign(frac);
    }
    if exp > 1023 {
        return f64::INFINITY.copysign(frac);
    }
    let (exp, scale) = if exp < -1022 { (exp + 53, 1.0 / (1u64 << 53) as f64) } else { (exp, 1.0) };
    let bits = (bits & !(MASK << SHIFT)) | (((exp + BIAS) as u64) << SHIFT);
    scale * f64::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::go_pow10;

    #[test]
    fn powers_of_ten_up_to_22_are_exact_as_in_go() {
        let mut exact = 1.0f64;
        for places in 0..=22 {
            assert_eq!(go_pow10(places), exact, "10^{places}");
            assert_eq!(go_pow10(-places), 1.0 / exact, "10^-{places}");
            exact *= 10.0;
        }
    }

    #[test]
    fn overflow_and_underflow_end_in_infinity_and_zero() {
        assert_eq!(go_pow10(400), f64::INFINITY);
        assert_eq!(go_pow10(-400), 0.0);
        assert_eq!(go_pow10(i64::MAX), f64::INFINITY);
        assert_eq!(go_pow10(i64::MIN), 0.0);
    }
}
