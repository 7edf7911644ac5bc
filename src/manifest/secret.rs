//! The values of a Secret's `data` and `stringData`, whatever their shape (strings, numbers,
//! booleans, lists, nested maps), and masking them out of any message about that Secret; and [`SecretMask`], which
//! masks values whose provenance is a Secret (substituted into other objects, given to a tool) in any text.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::Regex;
use serde_json::Value;

use crate::json_pointer::Fields;

/// Values shorter than this are masked only where quoted or named as a number or boolean: a bare
/// `1` or `ab` would match innocent text of the message.
const MIN_BARE_LENGTH: usize = 4;

/// The texts a message about one Secret must never show, and the names it may (names are not secret).
#[derive(Debug, Clone, Default)]
pub struct SecretValues {
    /// Every scalar under `data` and `stringData`, as text; longest first.
    texts: Vec<String>,
    /// The Secret's name and namespace and the keys of its data: never masked, even where a value holds them.
    public: Vec<String>,
}

/// A quoted string, possibly cut short (`"abc...`), as our messages and JSON print values.
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#""(?:[^"\\]|\\.)*(?:"|$)"#).expect("built-in regex"));
/// A value named by its type, as `describe` prints non-strings: the value is capture 2.
static TYPED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(number|boolean) ([^\s,;:)\]]+)").expect("built-in regex"));

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
        let mut public = Vec::new();
        for field in ["data", "stringData"] {
            if let Some(value) = object.field(field) {
                collect_scalars(value, &mut texts);
                if let Some(map) = value.as_object() {
                    public.extend(map.keys().cloned());
                }
            }
        }
        if let Some(metadata) = object.field("metadata") {
            for field in ["name", "namespace"] {
                public.extend(metadata.field(field).and_then(Value::as_str).map(str::to_string));
            }
        }
        let mut values = SecretValues { texts, public };
        values.normalise();
        Some(values)
    }

    /// Adds the values of another object of the same name.
    pub fn extend(&mut self, other: SecretValues) {
        self.texts.extend(other.texts);
        self.public.extend(other.public);
        self.normalise();
    }

    fn normalise(&mut self) {
        for list in [&mut self.texts, &mut self.public] {
            list.retain(|t| !t.is_empty());
            list.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
            list.dedup();
        }
    }

    /// `message` without any of the values: every occurrence (quoted, escaped or bare) becomes
    /// `***`. With `about_data` (the message is about `data`/`stringData` itself or below), every
    /// quoted string and every `number N` / `boolean B` is masked as well, so a value cut short
    /// or spelled another way cannot show. Names are not secret: the Secret's name and namespace, the keys of its
    /// data and `names` stay as they are wherever they are written, even when a value holds them or is part of
    /// them (an occurrence of a value that reaches beyond a name is masked whole).
    pub fn mask_keeping(&self, message: &str, about_data: bool, names: &[&str]) -> String {
        let names: Vec<&str> = self.public.iter().map(String::as_str).chain(names.iter().copied()).collect();
        let mut protected: Vec<(usize, usize)> = Vec::new();
        for name in names.iter().filter(|name| !name.is_empty()) {
            protected.extend(message.match_indices(name).map(|(at, found)| (at, at + found.len())));
        }
        let within_a_name = |start: usize, end: usize| protected.iter().any(|&(a, b)| a <= start && end <= b);
        let mut masked = vec![false; message.len()];
        let mut mark = |start: usize, end: usize| masked[start..end].iter_mut().for_each(|byte| *byte = true);
        for text in &self.texts {
            let debug = format!("{text:?}");
            let json = serde_json::to_string(text).unwrap_or_else(|_| debug.clone());
            for quoted in [&debug, &json] {
                for (at, found) in message.match_indices(quoted.as_str()) {
                    // The text between the quotes is what a name would be.
                    if !within_a_name(at + 1, at + found.len() - 1) {
                        mark(at, at + found.len());
                    }
                }
            }
            if text.chars().count() >= MIN_BARE_LENGTH {
                for (at, found) in message.match_indices(text.as_str()) {
                    if !within_a_name(at, at + found.len()) {
                        mark(at, at + found.len());
                    }
                }
            }
        }
        if about_data {
            for found in QUOTED.find_iter(message) {
                let inner = found.as_str().trim_start_matches('"').trim_end_matches('"');
                let start = found.start() + 1;
                if !(names.contains(&inner) || within_a_name(start, start + inner.len())) {
                    mark(found.start(), found.end());
                }
            }
            for typed in TYPED.captures_iter(message) {
                let value = typed.get(2).expect("the pattern has two groups");
                mark(value.start(), value.end());
            }
        }
        // Each run of masked bytes becomes one `***` (quoted when it starts at a quote).
        let mut out = String::with_capacity(message.len());
        let mut offset = 0;
        while let Some(start) = masked[offset..].iter().position(|&m| m).map(|at| offset + at) {
            out.push_str(&message[offset..start]);
            out.push_str(if message[start..].starts_with('"') { "\"***\"" } else { "***" });
            offset = masked[start..].iter().position(|&m| !m).map_or(message.len(), |at| start + at);
        }
        out.push_str(&message[offset..]);
        out
    }

    /// [`SecretValues::mask_keeping`] with no names but the Secret's own.
    pub fn mask(&self, message: &str, about_data: bool) -> String {
        self.mask_keeping(message, about_data, &[])
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

/// Values whose provenance is a Secret (its data, what Flux substitutes from it, the Helm values it gives), masked
/// as `***` wherever they appear: in findings about other objects, in tools' messages. Values shorter than
/// [`MIN_BARE_LENGTH`] characters and the words YAML reads as booleans or null are left out: masking every `1` or
/// `true` of every message would hide what the messages say. Names are not secret: an occurrence of a value that
/// lies within an occurrence of a name (an object's name or namespace) is left as it is; one that reaches beyond
/// it is masked whole.
#[derive(Debug, Clone, Default)]
pub struct SecretMask {
    matcher: Option<AhoCorasick>,
    names: Option<AhoCorasick>,
}

impl SecretMask {
    /// A mask of `values` (as written, and as JSON and Rust quote them inside a string: `\"`, `\n`) that keeps
    /// `names`.
    pub fn new(values: impl IntoIterator<Item = String>, names: impl IntoIterator<Item = String>) -> Self {
        let mut patterns: Vec<String> = Vec::new();
        for value in values {
            if value.chars().count() < MIN_BARE_LENGTH || is_plain_word(&value) {
                continue;
            }
            let json = serde_json::to_string(&value).unwrap_or_default();
            let debug = format!("{value:?}");
            for quoted in [json, debug] {
                if let Some(inner) = quoted.strip_prefix('"').and_then(|rest| rest.strip_suffix('"'))
                    && inner != value
                {
                    patterns.push(inner.to_string());
                }
            }
            patterns.push(value);
        }
        patterns.sort();
        patterns.dedup();
        if patterns.is_empty() {
            return SecretMask::default();
        }
        // The longest value wins where several start at the same place.
        let matcher = AhoCorasick::builder().match_kind(MatchKind::LeftmostLongest).build(&patterns).ok();
        let mut names: Vec<String> = names.into_iter().filter(|name| !name.is_empty()).collect();
        names.sort();
        names.dedup();
        let names = if names.is_empty() { None } else { AhoCorasick::new(&names).ok() };
        SecretMask { matcher, names }
    }

    /// True when there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.matcher.is_none()
    }

    /// `text` with every value replaced by `***`, but where it lies within a name.
    pub fn mask<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let Some(matcher) = self.matcher.as_ref().filter(|matcher| matcher.is_match(text)) else {
            return Cow::Borrowed(text);
        };
        let protected: Vec<(usize, usize)> = match &self.names {
            Some(names) => names.find_overlapping_iter(text).map(|found| (found.start(), found.end())).collect(),
            None => Vec::new(),
        };
        let mut out = String::with_capacity(text.len());
        let mut offset = 0;
        for found in matcher.find_iter(text) {
            if protected.iter().any(|&(start, end)| start <= found.start() && found.end() <= end) {
                continue;
            }
            out.push_str(&text[offset..found.start()]);
            out.push_str("***");
            offset = found.end();
        }
        if offset == 0 {
            return Cow::Borrowed(text);
        }
        out.push_str(&text[offset..]);
        Cow::Owned(out)
    }

    /// Masks `text` in place.
    pub fn mask_in_place(&self, text: &mut String) {
        if let Cow::Owned(masked) = self.mask(text) {
            *text = masked;
        }
    }
}

/// Whether `text` is a word YAML reads as a boolean or null (`true`, `No`, `null`, ...).
fn is_plain_word(text: &str) -> bool {
    matches!(text.to_ascii_lowercase().as_str(), "true" | "false" | "yes" | "no" | "on" | "off" | "null")
}

/// Every value of a Secret object: its `data` as written (base64) and decoded (as text, and without its newlines, as
/// Flux substitutes it), and its `stringData`. Empty for other kinds.
pub fn secret_provenance_values(object: &Value) -> Vec<String> {
    let Some(values) = SecretValues::of(object) else { return Vec::new() };
    let mut out = values.texts.clone();
    if let Some(data) = object.field("data").and_then(Value::as_object) {
        use base64::Engine as _;
        for encoded in data.values().filter_map(Value::as_str) {
            if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(encoded.trim()) {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                out.push(text.replace('\n', ""));
                out.push(text);
            }
        }
    }
    out
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
    fn names_are_never_masked_only_values() {
        // One value is part of the name, one is the name, one holds the name: the name shows wherever it is written.
        let secret = json!({"kind": "Secret", "metadata": {"name": "aso-credentials", "namespace": "team-a"},
            "stringData": {"AZURE_CLIENT_ID": "credentials", "AUTH_MODE": "aso-credentials",
                           "AZURE_TENANT_ID": "x-aso-credentials-y"}});
        let values = SecretValues::of(&secret).unwrap();
        let message = r#"ASO credential Secret "aso-credentials" in namespace "team-a" lacks AZURE_SUBSCRIPTION_ID; ASO fails with "credential Secret ... does not contain key""#;
        for about_data in [false, true] {
            let masked = values.mask(message, about_data);
            assert!(
                masked.contains(r#"Secret "aso-credentials" in namespace "team-a" lacks AZURE_SUBSCRIPTION_ID"#),
                "{masked}"
            );
        }
        assert!(values.mask(message, false).ends_with(r#""credential Secret ... does not contain key""#));
        // A value that reaches beyond the name is masked whole; bare values elsewhere are masked.
        assert_eq!(values.mask("got x-aso-credentials-y and credentials", false), "got *** and ***");
        assert_eq!(values.mask(r#"got "x-aso-credentials-y""#, false), r#"got "***""#);
        // A quoted value is masked where it is not the name.
        assert_eq!(
            values.mask(r#"Secret aso-credentials: got "credentials""#, true),
            r#"Secret aso-credentials: got "***""#
        );
        // Names the caller knows are public too (the object a finding is about).
        let helm = SecretValues::of(&json!({"kind": "Secret", "stringData": {"v": "prod-east"}})).unwrap();
        let message = "AzureASOManagedControlPlane prod-east-1: location \"prod-east\" is not served";
        assert_eq!(
            helm.mask_keeping(message, false, &["prod-east-1"]),
            "AzureASOManagedControlPlane prod-east-1: location \"***\" is not served"
        );
    }

    #[test]
    fn data_pointers() {
        assert!(is_secret_data_pointer("/data"));
        assert!(is_secret_data_pointer("/stringData/k/0"));
        assert!(!is_secret_data_pointer("/dataX"));
        assert!(!is_secret_data_pointer("/metadata/name"));
    }

    #[test]
    fn a_mask_hides_values_anywhere_but_not_short_words() {
        let secret = json!({"kind": "Secret", "data": {"token": "aHVudGVyMi1sb25nCg=="}, "stringData": {
            "quote": "p\"ss\nword", "flag": "true", "short": "abc"}});
        let mask = SecretMask::new(secret_provenance_values(&secret), Vec::new());
        assert_eq!(mask.mask("value hunter2-long, base64 aHVudGVyMi1sb25nCg=="), "value ***, base64 ***");
        assert_eq!(mask.mask(r#"got "p\"ss\nword" here"#), r#"got "***" here"#);
        assert_eq!(mask.mask("true and abc stay"), "true and abc stay");
        assert!(matches!(mask.mask("nothing"), Cow::Borrowed("nothing")));
        assert!(SecretMask::new(Vec::new(), Vec::new()).is_empty());
    }

    #[test]
    fn a_mask_leaves_names_and_masks_a_value_reaching_beyond_one() {
        let values = ["credentials", "aso-credentials!", "x-aso-credentials-y"].map(String::from);
        let mask = SecretMask::new(values, ["aso-credentials".to_string()]);
        assert_eq!(
            mask.mask("Secret/aso-credentials: got credentials, aso-credentials! and x-aso-credentials-y"),
            "Secret/aso-credentials: got ***, *** and ***"
        );
    }
}
