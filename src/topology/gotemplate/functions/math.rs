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
            // strconv.Atoi: out of range saturates, anything else that is not a number is 0.
            let text = s(&args[0])?;
            let digits = text.strip_prefix(['+', '-']).unwrap_or(&text);
            V::Int(match text.parse::<i64>() {
                Ok(i) => i,
                Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                    if text.starts_with('-') {
                        i64::MIN
                    } else {
                        i64::MAX
                    }
                }
                Err(_) => 0,
            })
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
            let pow = 10f64.powf(to_i64(&args[1]) as f64);
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
            let sequence = match nums.as_slice() {
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
            };
            let text: Vec<String> = sequence.iter().map(i64::to_string).collect();
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
