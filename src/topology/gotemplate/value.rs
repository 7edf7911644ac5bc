//! Go's value semantics for template data: the values `encoding/json` gives Go, how Go prints,
//! compares and converts them, and how sprig casts them.

use std::collections::BTreeMap;

use serde_json::Value;

use super::parser::parse_number;

/// A value during template execution, shaped like what `encoding/json` gives Go.
#[derive(Debug, Clone, PartialEq)]
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
        std::rc::Rc::ptr_eq(&self.0, &other.0) || self.entries() == other.entries()
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

    /// Converts to JSON the way `json.Marshal` does.
    pub fn to_json(&self) -> Value {
        match self {
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
            GoValue::List(items) => Value::Array(items.iter().map(GoValue::to_json).collect()),
            GoValue::Map(map) => Value::Object(map.entries().into_iter().map(|(k, v)| (k, v.to_json())).collect()),
        }
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
    pub(super) fn print_top(&self) -> String {
        match self {
            GoValue::Missing | GoValue::Nil => "<no value>".to_string(),
            other => other.sprint(),
        }
    }

    /// `fmt.Sprint(v)` / `%v`.
    pub fn sprint(&self) -> String {
        match self {
            GoValue::Missing | GoValue::Nil => "<nil>".to_string(),
            GoValue::Bool(b) => b.to_string(),
            GoValue::Int(i) => i.to_string(),
            GoValue::Float(f) => format_float_g(*f),
            GoValue::Str(s) => s.clone(),
            GoValue::List(items) => {
                let parts: Vec<String> = items.iter().map(GoValue::sprint).collect();
                format!("[{}]", parts.join(" "))
            }
            GoValue::Map(map) => {
                let parts: Vec<String> = map.entries().iter().map(|(k, v)| format!("{k}:{}", v.sprint())).collect();
                format!("map[{}]", parts.join(" "))
            }
        }
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
    if exp < -4 || exp >= 6 {
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

/// sprig's `toString` (`strval`).
pub(super) fn strval(v: &GoValue) -> String {
    match v {
        GoValue::Str(s) => s.clone(),
        GoValue::Missing | GoValue::Nil => "<nil>".into(),
        other => other.sprint(),
    }
}

/// `cast.ToInt64` as sprig uses it: numbers truncate, strings parse (0 on failure), bools 0/1.
pub(super) fn to_i64(v: &GoValue) -> i64 {
    match v {
        GoValue::Int(i) => *i,
        GoValue::Float(f) => *f as i64,
        GoValue::Bool(b) => i64::from(*b),
        GoValue::Str(s) => {
            let t = s.trim();
            t.parse::<i64>().ok().or_else(|| parse_number(t).map(|n| to_i64(&n))).unwrap_or(0)
        }
        _ => 0,
    }
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
            Err(format!("invalid type for comparison"))
        }
        _ => Err(format!("incompatible types for comparison: {} and {}", a.type_name(), b.type_name())),
    }
}
