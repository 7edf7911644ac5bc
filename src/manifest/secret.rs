//! The values of a Secret's `data` and `stringData`, whatever their shape (strings, numbers,
//! booleans, lists, nested maps), and masking them out of any message about that Secret.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::json_pointer::Fields;

/// Values shorter than this are masked only where quoted or named as a number or boolean: a bare
/// `1` or `ab` would match innocent text of the message.
const MIN_BARE_LENGTH: usize = 4;

/// The texts a message about one Secret must never show.
#[derive(Debug, Clone, Default)]
pub struct SecretValues {
    /// Every scalar under `data` and `stringData`, as text; longest first.
    texts: Vec<String>,
}

/// A quoted string, possibly cut short (`"abc...`), as our messages and JSON print values.
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#""(?:[^"\\]|\\.)*(?:"|$)"#).expect("built-in regex"));
/// A value named by its type, as `describe` prints non-strings.
static TYPED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(number|boolean) [^\s,;:)\]]+").expect("built-in regex"));

/// Is `pointer` (inside an object) the data of a Secret or below it?
pub fn is_secret_data_pointer(pointer: &str) -> bool {
    ["/data", "/stringData"]
        .iter()
        .any(|field| pointer.strip_prefix(field).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
}

impl SecretValues {
    /// The values of `object` if it is a Secret (`kind: Secret`, whatever its apiVersion: a
    /// mistyped apiVersion still holds secret data).
    pub fn of(object: &Value) -> Option<SecretValues> {
        if object.field("kind").and_then(Value::as_str) != Some("Secret") {
            return None;
        }
        let mut texts = Vec::new();
        for field in ["data", "stringData"] {
            if let Some(value) = object.field(field) {
                collect_scalars(value, &mut texts);
            }
        }
        texts.retain(|t| !t.is_empty());
        texts.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        texts.dedup();
        Some(SecretValues { texts })
    }

    /// Adds the values of another object of the same name.
    pub fn extend(&mut self, other: SecretValues) {
        self.texts.extend(other.texts);
        self.texts.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        self.texts.dedup();
    }

    /// `message` without any of the values: every occurrence (quoted, escaped or bare) becomes
    /// `***`. With `about_data` (the message is about `data`/`stringData` itself or below), every
    /// quoted string and every `number N` / `boolean B` is masked as well, so a value cut short
    /// or spelled another way cannot show.
    pub fn mask(&self, message: &str, about_data: bool) -> String {
        let mut masked = message.to_string();
        for text in &self.texts {
            let debug = format!("{text:?}");
            let json = serde_json::to_string(text).unwrap_or_else(|_| debug.clone());
            for quoted in [debug, json] {
                if masked.contains(&quoted) {
                    masked = masked.replace(&quoted, "\"***\"");
                }
            }
            if text.chars().count() >= MIN_BARE_LENGTH && masked.contains(text.as_str()) {
                masked = masked.replace(text.as_str(), "***");
            }
        }
        if about_data {
            masked = QUOTED.replace_all(&masked, "\"***\"").into_owned();
            masked = TYPED.replace_all(&masked, "$1 ***").into_owned();
        }
        masked
    }

    /// True when there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

/// Every scalar below `value`, as text (strings as they are, numbers and booleans as printed).
fn collect_scalars(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Null => {}
        Value::Bool(b) => out.push(b.to_string()),
        Value::Number(n) => out.push(n.to_string()),
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|item| collect_scalars(item, out)),
        Value::Object(map) => map.values().for_each(|item| collect_scalars(item, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_shape_of_data_is_collected() {
        let secret = json!({"kind": "Secret", "data": "scalar-secret", "stringData": {
            "list": ["in-a-list", 12345], "nested": {"deep": "nested-secret"}, "flag": true}});
        let values = SecretValues::of(&secret).unwrap();
        for text in ["scalar-secret", "in-a-list", "12345", "nested-secret", "true"] {
            assert!(values.texts.contains(&text.to_string()), "{text}");
        }
        assert!(SecretValues::of(&json!({"kind": "ConfigMap", "data": "x"})).is_none());
    }

    #[test]
    fn values_are_masked_however_they_are_printed() {
        let values =
            SecretValues::of(&json!({"kind": "Secret", "data": {"a": "p\"ss\nword", "b": "hunter2-long"}})).unwrap();
        assert_eq!(values.mask(r#"got string "p\"ss\nword""#, false), r#"got string "***""#);
        assert_eq!(values.mask("bare hunter2-long here", false), "bare *** here");
        // A value cut short in a message about the data is masked too.
        assert_eq!(values.mask(r#"unsupported value "hunter2-lo...: x"#, true), r#"unsupported value "***""#);
        assert_eq!(
            values.mask("must be of type string, got boolean true", true),
            "must be of type string, got boolean ***"
        );
        assert_eq!(values.mask("got number 42, at most 1", true), "got number ***, at most 1");
    }

    #[test]
    fn data_pointers() {
        assert!(is_secret_data_pointer("/data"));
        assert!(is_secret_data_pointer("/stringData/k/0"));
        assert!(!is_secret_data_pointer("/dataX"));
        assert!(!is_secret_data_pointer("/metadata/name"));
    }
}
