//! Go's value semantics for template data: the values `encoding/json` gives Go, how Go prints,
//! compares and converts them, and how sprig casts them.

use std::collections::BTreeMap;

use serde_json::Value;

use super::limits::{self, MAX_STRING_BYTES, MAX_VALUE_DEPTH};

/// A value during template execution, shaped like what `encoding/json` gives Go.
#[derive(Debug, Clone)]
pub enum GoValue {
    /// An invalid `reflect.Value`: a missing map key. Prints `<no value>`.
    Missing,
    /// A nil interface (JSON null).
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<GoValue>),
    /// Go maps iterate and print in key order; like Go maps they are references, so sprig's
    /// `set`, `unset` and `merge` change the map every holder sees.
    Map(GoMap),
}

/// A Go `map[string]interface{}`: shared, mutable, ordered by key.
#[derive(Clone, Default)]
pub struct GoMap(std::rc::Rc<std::cell::RefCell<BTreeMap<String, GoValue>>>);

/// Maps can be chained through `set` without limit (each map holding the next); dropping the last
/// holder unlinks the chain in a loop instead of recursing once per map.
impl Drop for GoMap {
    fn drop(&mut self) {
        if std::rc::Rc::strong_count(&self.0) != 1 {
            return;
        }
        let Ok(mut inner) = self.0.try_borrow_mut() else { return };
        let mut pending: Vec<GoValue> = std::mem::take(&mut *inner).into_values().collect();
        drop(inner);
        while let Some(value) = pending.pop() {
            match value {
                GoValue::List(items) => pending.extend(items),
                GoValue::Map(map) => {
                    if std::rc::Rc::strong_count(&map.0) == 1
                        && let Ok(mut inner) = map.0.try_borrow_mut()
                    {
                        pending.extend(std::mem::take(&mut *inner).into_values());
                    }
                }
                _ => {}
            }
        }
    }
}

/// Go's `==` on two interface values holding these kinds (deep for lists and maps, as
/// `reflect.DeepEqual` in sprig's `has`/`without`/`uniq`); nesting past [`MAX_VALUE_DEPTH`]
/// compares unequal instead of recursing further.
impl PartialEq for GoValue {
    fn eq(&self, other: &Self) -> bool {
        values_equal(self, other, 0)
    }
}

fn values_equal(a: &GoValue, b: &GoValue, depth: usize) -> bool {
    if depth > MAX_VALUE_DEPTH {
        return false;
    }
    match (a, b) {
        (GoValue::Missing, GoValue::Missing) | (GoValue::Nil, GoValue::Nil) => true,
        (GoValue::Bool(x), GoValue::Bool(y)) => x == y,
        (GoValue::Int(x), GoValue::Int(y)) => x == y,
        (GoValue::Float(x), GoValue::Float(y)) => x == y,
        (GoValue::Str(x), GoValue::Str(y)) => x == y,
        (GoValue::List(x), GoValue::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| values_equal(a, b, depth + 1))
        }
        (GoValue::Map(x), GoValue::Map(y)) => {
            if std::rc::Rc::ptr_eq(&x.0, &y.0) {
                return true;
            }
            let (x, y) = (x.0.borrow(), y.0.borrow());
            x.len() == y.len()
                && x.iter().zip(y.iter()).all(|((ka, va), (kb, vb))| ka == kb && values_equal(va, vb, depth + 1))
        }
        _ => false,
    }
}

/// Whether `value` nests lists and maps deeper than [`MAX_VALUE_DEPTH`] (a map that contains
/// itself does).
pub(super) fn too_deep(value: &GoValue) -> bool {
    fn deeper(value: &GoValue, depth: usize) -> bool {
        match value {
            GoValue::List(items) => depth >= MAX_VALUE_DEPTH || items.iter().any(|v| deeper(v, depth + 1)),
            GoValue::Map(map) => depth >= MAX_VALUE_DEPTH || map.0.borrow().values().any(|v| deeper(v, depth + 1)),
            _ => false,
        }
    }
    deeper(value, 0)
}

/// Whether `value` holds `map` (the same map, not an equal one) at any depth.
pub(super) fn holds_map(value: &GoValue, map: &GoMap) -> bool {
    let mut pending: Vec<GoValue> = vec![value.clone()];
    let mut seen = 0usize;
    while let Some(v) = pending.pop() {
        seen += 1;
        if seen > MAX_STRING_BYTES {
            return true;
        }
        match v {
            GoValue::List(items) => pending.extend(items),
            GoValue::Map(m) => {
                if std::rc::Rc::ptr_eq(&m.0, &map.0) {
                    return true;
                }
                pending.extend(m.0.borrow().values().cloned());
            }
            _ => {}
        }
    }
    false
}

impl GoMap {
    pub fn new(map: BTreeMap<String, GoValue>) -> Self {
        GoMap(std::rc::Rc::new(std::cell::RefCell::new(map)))
    }
    pub fn get(&self, key: &str) -> Option<GoValue> {
        self.0.borrow().get(key).cloned()
    }
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.borrow().contains_key(key)
    }
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.borrow().is_empty()
    }
    /// A snapshot of the entries, in key order.
    pub fn entries(&self) -> Vec<(String, GoValue)> {
        self.0.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
    pub fn insert(&self, key: String, value: GoValue) {
        self.0.borrow_mut().insert(key, value);
    }
    pub fn remove(&self, key: &str) {
        self.0.borrow_mut().remove(key);
    }
}

impl PartialEq for GoMap {
    fn eq(&self, other: &Self) -> bool {
        values_equal(&GoValue::Map(self.clone()), &GoValue::Map(other.clone()), 0)
    }
}

impl std::fmt::Debug for GoMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.entries()).finish()
    }
}

impl FromIterator<(String, GoValue)> for GoMap {
    fn from_iter<I: IntoIterator<Item = (String, GoValue)>>(iter: I) -> Self {
        GoMap::new(iter.into_iter().collect())
    }
}

impl GoValue {
    /// Converts JSON the way `json.Unmarshal` into `interface{}` does: every number is a float64.
    pub fn from_json(value: &Value) -> GoValue {
        match value {
            Value::Null => GoValue::Nil,
            Value::Bool(b) => GoValue::Bool(*b),
            Value::Number(n) => GoValue::Float(n.as_f64().unwrap_or(0.0)),
            Value::String(s) => GoValue::Str(s.clone()),
            Value::Array(items) => GoValue::List(items.iter().map(GoValue::from_json).collect()),
            Value::Object(map) => GoValue::Map(map.iter().map(|(k, v)| (k.clone(), GoValue::from_json(v))).collect()),
        }
    }

    /// Converts to JSON the way `json.Marshal` does; values nested past [`MAX_VALUE_DEPTH`] or
    /// with more than [`MAX_STRING_BYTES`] parts are an error.
    pub fn to_json(&self) -> Result<Value, String> {
        let mut budget = MAX_STRING_BYTES;
        self.to_json_within(0, &mut budget)
    }

    fn to_json_within(&self, depth: usize, budget: &mut usize) -> Result<Value, String> {
        if depth > MAX_VALUE_DEPTH {
            return Err(limits::value_too_deep());
        }
        *budget = budget.checked_sub(1).ok_or_else(|| limits::string_too_long("toJson"))?;
        Ok(match self {
            GoValue::Missing | GoValue::Nil => Value::Null,
            GoValue::Bool(b) => Value::Bool(*b),
            GoValue::Int(i) => Value::from(*i),
            GoValue::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 1e15 {
                    Value::from(*f as i64)
                } else {
                    serde_json::Number::from_f64(*f).map(Value::Number).unwrap_or(Value::Null)
                }
            }
            GoValue::Str(s) => Value::String(s.clone()),
            GoValue::List(items) => {
                Value::Array(items.iter().map(|v| v.to_json_within(depth + 1, budget)).collect::<Result<_, _>>()?)
            }
            GoValue::Map(map) => Value::Object(
                map.entries()
                    .into_iter()
                    .map(|(k, v)| Ok((k, v.to_json_within(depth + 1, budget)?)))
                    .collect::<Result<_, String>>()?,
            ),
        })
    }

    /// Go's type name, as used in error messages and `typeOf`.
    pub fn type_name(&self) -> &'static str {
        match self {
            GoValue::Missing | GoValue::Nil => "<nil>",
            GoValue::Bool(_) => "bool",
            GoValue::Int(_) => "int",
            GoValue::Float(_) => "float64",
            GoValue::Str(_) => "string",
            GoValue::List(_) => "[]interface {}",
            GoValue::Map(_) => "map[string]interface {}",
        }
    }

    pub(super) fn kind(&self) -> &'static str {
        match self {
            GoValue::Missing => "invalid",
            GoValue::Nil => "invalid",
            GoValue::Bool(_) => "bool",
            GoValue::Int(_) => "int",
            GoValue::Float(_) => "float64",
            GoValue::Str(_) => "string",
            GoValue::List(_) => "slice",
            GoValue::Map(_) => "map",
        }
    }

    /// Go's `template.IsTrue`.
    pub fn truthy(&self) -> bool {
        match self {
            GoValue::Missing | GoValue::Nil => false,
            GoValue::Bool(b) => *b,
            GoValue::Int(i) => *i != 0,
            GoValue::Float(f) => *f != 0.0,
            GoValue::Str(s) => !s.is_empty(),
            GoValue::List(l) => !l.is_empty(),
            GoValue::Map(m) => !m.is_empty(),
        }
    }

    /// `fmt.Sprint` of the value at the top level (missing and nil print `<no value>` in templates).
    pub(super) fn print_top(&self) -> Result<String, String> {
        match self {
            GoValue::Missing | GoValue::Nil => Ok("<no value>".to_string()),
            other => other.try_sprint(),
        }
    }

    /// `fmt.Sprint(v)` / `%v`; past the limits, the text printed so far and `...`.
    pub fn sprint(&self) -> String {
        let mut out = String::new();
        match self.write_sprint(&mut out, 0) {
            Ok(()) => out,
            Err(_) => {
                let mut end = out.len().min(200);
                while !out.is_char_boundary(end) {
                    end -= 1;
                }
                out.truncate(end);
                out + "..."
            }
        }
    }

    /// `fmt.Sprint(v)` / `%v`, within [`MAX_STRING_BYTES`] and [`MAX_VALUE_DEPTH`].
    pub fn try_sprint(&self) -> Result<String, String> {
        let mut out = String::new();
        self.write_sprint(&mut out, 0)?;
        Ok(out)
    }

    fn write_sprint(&self, out: &mut String, depth: usize) -> Result<(), String> {
        if depth > MAX_VALUE_DEPTH {
            return Err(limits::value_too_deep());
        }
        match self {
            GoValue::Missing | GoValue::Nil => out.push_str("<nil>"),
            GoValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            GoValue::Int(i) => out.push_str(&i.to_string()),
            GoValue::Float(f) => out.push_str(&format_float_g(*f)),
            GoValue::Str(s) => {
                limits::check_len("print", out.len() + s.len())?;
                out.push_str(s)
            }
            GoValue::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    item.write_sprint(out, depth + 1)?;
                    limits::check_len("print", out.len())?;
                }
                out.push(']');
            }
            GoValue::Map(map) => {
                out.push_str("map[");
                for (i, (k, v)) in map.entries().iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    limits::check_len("print", out.len() + k.len())?;
                    out.push_str(k);
                    out.push(':');
                    v.write_sprint(out, depth + 1)?;
                    limits::check_len("print", out.len())?;
                }
                out.push(']');
            }
        }
        Ok(())
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` (what `%v` prints for a float64).
pub fn format_float_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.234e6", "-5e-7".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{exp_sign}{:02}", exp.abs());
    }
    // Plain decimal notation.
    let point = exp + 1; // digits before the decimal point
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

/// A string parameter, as Go's reflection converts it (errors for other types).
pub(super) fn as_str(v: &GoValue) -> Result<String, String> {
    match v {
        GoValue::Str(s) => Ok(s.clone()),
        GoValue::Missing => Err("invalid value; expected string".into()),
        other => Err(format!("wrong type for value; expected string; got {}", other.type_name())),
    }
}

/// sprig's `toString` (`strval`); an error past the engine's limits.
pub(super) fn strval(v: &GoValue) -> Result<String, String> {
    match v {
        GoValue::Str(s) => Ok(s.clone()),
        GoValue::Missing | GoValue::Nil => Ok("<nil>".into()),
        other => other.try_sprint(),
    }
}

/// `cast.ToInt64` as sprig uses it: numbers truncate, strings parse (0 on failure), bools 0/1.
pub(super) fn to_i64(v: &GoValue) -> i64 {
    match v {
        GoValue::Int(i) => *i,
        GoValue::Float(f) => float_to_int64(*f),
        GoValue::Bool(b) => i64::from(*b),
        // strconv.ParseInt(trimZeroDecimal(s), 0, 0), 0 on any error.
        GoValue::Str(s) => match parse_number(trim_zero_decimal(s)) {
            Some(GoValue::Int(i)) => i,
            _ => 0,
        },
        _ => 0,
    }
}

/// Go's `int64(f)` on amd64: out of range (and NaN) gives the most negative int64.
pub(super) fn float_to_int64(f: f64) -> i64 {
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) { f as i64 } else { i64::MIN }
}

/// cast's `trimZeroDecimal`: "12.00" -> "12".
fn trim_zero_decimal(s: &str) -> &str {
    let bytes = s.as_bytes();
    let mut found_zero = false;
    for i in (1..=bytes.len()).rev() {
        match bytes[i - 1] {
            b'.' if found_zero => return &s[..i - 1],
            b'.' => {}
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

pub(super) fn to_f64(v: &GoValue) -> f64 {
    match v {
        GoValue::Int(i) => *i as f64,
        GoValue::Float(f) => *f,
        GoValue::Bool(b) => f64::from(u8::from(*b)),
        GoValue::Str(s) => s.trim().parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// sprig's `empty`.
pub(super) fn is_empty(v: &GoValue) -> bool {
    !v.truthy()
}

pub(super) fn as_list(v: &GoValue, fname: &str) -> Result<Vec<GoValue>, String> {
    match v {
        GoValue::List(l) => Ok(l.clone()),
        GoValue::Missing | GoValue::Nil => Ok(Vec::new()),
        other => Err(format!("Cannot {fname} on type {}", other.type_name())),
    }
}

pub(super) fn as_map(v: &GoValue) -> Result<GoMap, String> {
    match v {
        GoValue::Map(m) => Ok(m.clone()),
        other => Err(format!("wrong type for value; expected map[string]interface {{}}; got {}", other.type_name())),
    }
}

/// Go's basic kind for comparisons.
#[derive(PartialEq)]
pub(super) enum Basic {
    Bool,
    Int,
    Float,
    Str,
    Other,
}

pub(super) fn basic(v: &GoValue) -> Basic {
    match v {
        GoValue::Bool(_) => Basic::Bool,
        GoValue::Int(_) => Basic::Int,
        GoValue::Float(_) => Basic::Float,
        GoValue::Str(_) => Basic::Str,
        _ => Basic::Other,
    }
}

pub(super) fn go_eq(a: &GoValue, b: &GoValue) -> Result<bool, String> {
    match (basic(a), basic(b)) {
        (Basic::Other, _) | (_, Basic::Other) => {
            // Go: nil compares equal only to nil; non-comparable types error.
            match (a, b) {
                (GoValue::Missing | GoValue::Nil, GoValue::Missing | GoValue::Nil) => Ok(true),
                (GoValue::Missing | GoValue::Nil, _) | (_, GoValue::Missing | GoValue::Nil) => Ok(false),
                (GoValue::List(_) | GoValue::Map(_), _) | (_, GoValue::List(_) | GoValue::Map(_)) => {
                    Err(format!("non-comparable type {}: {}", a.sprint(), a.type_name()))
                }
                _ => Ok(a == b),
            }
        }
        (ka, kb) if ka != kb => {
            Err(format!("incompatible types for comparison: {} and {}", a.type_name(), b.type_name()))
        }
        _ => Ok(a == b),
    }
}

pub(super) fn go_lt(a: &GoValue, b: &GoValue) -> Result<bool, String> {
    match (a, b) {
        (GoValue::Int(x), GoValue::Int(y)) => Ok(x < y),
        (GoValue::Float(x), GoValue::Float(y)) => Ok(x < y),
        (GoValue::Str(x), GoValue::Str(y)) => Ok(x < y),
        _ if basic(a) == Basic::Other || basic(b) == Basic::Other || basic(a) == Basic::Bool => {
            Err("invalid type for comparison".to_string())
        }
        _ => Err(format!("incompatible types for comparison: {} and {}", a.type_name(), b.type_name())),
    }
}
/// A Go number literal (`0x1f`, `0o17`, `017`, `1_000`, `1.5e3`) as the value Go gives it: an int when it fits.
pub(super) fn parse_number(text: &str) -> Option<GoValue> {
    let clean = text.replace('_', "");
    let (neg, body) = match clean.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, clean.trim_start_matches('+').to_string()),
    };
    let lower = body.to_ascii_lowercase();
    // The magnitude, so that -9223372036854775808 is an int like in Go.
    let magnitude = if let Some(hex) = lower.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(oct) = lower.strip_prefix("0o") {
        u64::from_str_radix(oct, 8).ok()
    } else if let Some(bin) = lower.strip_prefix("0b") {
        u64::from_str_radix(bin, 2).ok()
    } else if lower.len() > 1 && lower.starts_with('0') && lower.chars().all(|c| c.is_ascii_digit()) {
        u64::from_str_radix(&lower[1..], 8).ok()
    } else {
        lower.parse::<u64>().ok()
    };
    let int = magnitude.and_then(|m| if neg { 0i64.checked_sub_unsigned(m) } else { i64::try_from(m).ok() });
    if let Some(i) = int {
        return Some(GoValue::Int(i));
    }
    let f: f64 = lower.parse().ok()?;
    // Go treats a float constant with an integral value as an int when passed to interface{}.
    if f.fract() == 0.0 && f.abs() < 9.2e18 && !lower.contains('e') && !lower.contains('.') {
        return Some(GoValue::Int(if neg { -(f as i64) } else { f as i64 }));
    }
    Some(GoValue::Float(if neg { -f } else { f }))
}
