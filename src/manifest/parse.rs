//! YAML text to JSON values the way Kubernetes decodes it (YAML 1.1 booleans and octals,
//! duplicate keys rejected), keeping the line of every field.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::{DuplicateKeyPolicy, Options, Spanned};

use super::{Document, ManifestError, Origin};

/// Lines of fields in one document, keyed by JSON pointer (`/spec/resources/0/kind`).
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    lines: HashMap<String, usize>,
}

impl LineIndex {
    /// The line of the field at `pointer`, or of the nearest parent that has one.
    pub fn line_of(&self, pointer: &str) -> Option<usize> {
        let mut current = pointer;
        loop {
            if let Some(line) = self.lines.get(current) {
                return Some(*line);
            }
            match current.rfind('/') {
                Some(cut) => current = &current[..cut],
                None => return None,
            }
        }
    }

    fn strip_prefix(&self, prefix: &str) -> LineIndex {
        let lines = self
            .lines
            .iter()
            .filter_map(|(pointer, line)| {
                let rest = pointer.strip_prefix(prefix)?;
                (rest.is_empty() || rest.starts_with('/')).then(|| (rest.to_string(), *line))
            })
            .collect();
        LineIndex { lines }
    }
}

/// A YAML node with its position, as serde-saphyr reports it.
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(Spanned<Node>, Spanned<Node>)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
        Ok(Node::UInt(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Float(v as f64))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Node, E> {
        Ok(Node::Float(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Node, E> {
        Ok(Node::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Node>>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<Spanned<Node>, Spanned<Node>>()? {
            entries.push(entry);
        }
        Ok(Node::Map(entries))
    }
}

/// The options that make serde-saphyr read YAML as go-yaml v2 (Kubernetes) does.
fn kubernetes_yaml_options() -> Options {
    let mut options = Options::default();
    options.legacy_octal_numbers = true;
    options.duplicate_keys = DuplicateKeyPolicy::Error;
    // Bundles of whole fleets are large: lift the size budgets, keep the alias-bomb protection.
    let mut budget = serde_saphyr::Budget::default();
    budget.max_documents = usize::MAX;
    budget.max_events = usize::MAX;
    budget.max_nodes = usize::MAX;
    budget.max_reader_input_bytes = None;
    budget.max_total_scalar_bytes = usize::MAX;
    options.budget = Some(budget);
    options
}

fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A mapping key as Kubernetes' YAML-to-JSON conversion spells it.
fn key_string(node: &Node) -> String {
    match node {
        Node::Null => "null".to_string(),
        Node::Bool(b) => b.to_string(),
        Node::Int(i) => i.to_string(),
        Node::UInt(u) => u.to_string(),
        Node::Float(f) => f.to_string(),
        Node::Str(s) => s.clone(),
        Node::Seq(_) | Node::Map(_) => String::new(),
    }
}

fn into_value(node: Spanned<Node>, pointer: &mut String, lines: &mut HashMap<String, usize>) -> Value {
    lines.insert(pointer.clone(), node.referenced.line() as usize);
    match node.value {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(b),
        Node::Int(i) => Value::Number(i.into()),
        Node::UInt(u) => Value::Number(u.into()),
        Node::Float(f) => Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null),
        Node::Str(s) => Value::String(s),
        Node::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                out.push(into_value(item, pointer, lines));
                pointer.truncate(len);
            }
            Value::Array(out)
        }
        Node::Map(entries) => {
            let mut out = Map::with_capacity(entries.len());
            for (key, value) in entries {
                let key_line = key.referenced.line() as usize;
                let key = key_string(&key.value);
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape_pointer_token(&key));
                let value = into_value(value, pointer, lines);
                // A field is where its key is written, not where its (block) value starts.
                lines.insert(pointer.clone(), key_line);
                pointer.truncate(len);
                out.insert(key, value);
            }
            Value::Object(out)
        }
    }
}

fn syntax_error(err: serde_saphyr::Error, source_name: &str) -> ManifestError {
    let (line, column) = err
        .location()
        .map(|loc| (loc.line() as usize, loc.column() as usize))
        .unwrap_or((0, 0));
    let message = err.to_string();
    // serde-saphyr appends a snippet after the first line; keep the message itself.
    let message = message.lines().next().unwrap_or("invalid YAML").trim().to_string();
    ManifestError::Syntax { source_name: source_name.to_string(), line, column, message }
}

/// Parses one YAML (or JSON) document into a value and the lines of its fields.
pub fn parse_value(text: &str, source_name: &str) -> Result<(Value, LineIndex), ManifestError> {
    let node: Spanned<Node> = serde_saphyr::from_str_with_options(text, kubernetes_yaml_options())
        .map_err(|err| syntax_error(err, source_name))?;
    let mut lines = HashMap::new();
    let value = into_value(node, &mut String::new(), &mut lines);
    Ok((value, LineIndex { lines }))
}

/// Parses a multi-document manifest. Empty documents are dropped; `kind: List` is expanded.
pub fn parse_documents(text: &str, source_name: &str) -> Result<Vec<Document>, ManifestError> {
    let nodes: Vec<Spanned<Node>> = serde_saphyr::from_multiple_with_options(text, kubernetes_yaml_options())
        .map_err(|err| syntax_error(err, source_name))?;
    let source: Arc<str> = Arc::from(source_name);
    let mut documents = Vec::new();
    for node in nodes {
        let line = node.referenced.line() as usize;
        let mut lines = HashMap::new();
        let value = into_value(node, &mut String::new(), &mut lines);
        let lines = LineIndex { lines };
        match &value {
            Value::Null => continue,
            Value::Object(map) if map.is_empty() => continue,
            Value::Object(_) => {}
            _ => {
                return Err(ManifestError::NotAnObject {
                    location: format!("{source_name}:{line}"),
                    message: "a manifest document must be a mapping (a Kubernetes object)".into(),
                });
            }
        }
        let is_list = value.get("kind").and_then(Value::as_str).is_some_and(|k| k == "List" || k.ends_with("List"))
            && value.get("items").is_some_and(Value::is_array);
        if is_list {
            let items = value["items"].as_array().cloned().unwrap_or_default();
            for (i, item) in items.into_iter().enumerate() {
                let prefix = format!("/items/{i}");
                let item_lines = lines.strip_prefix(&prefix);
                let item_line = item_lines.line_of("").unwrap_or(line);
                let index = documents.len();
                documents.push(Document {
                    value: item,
                    origin: Origin { source: source.clone(), index, line: item_line },
                    lines: item_lines,
                });
            }
            continue;
        }
        let index = documents.len();
        documents.push(Document { value, origin: Origin { source: source.clone(), index, line }, lines });
    }
    Ok(documents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_1_1_scalars_decode_as_kubernetes_does() {
        let (value, _) = parse_value("a: yes\nb: on\nc: 0755\nd: 1_000\ne: NO\nf: '0755'\ng: ~\n", "t").unwrap();
        assert_eq!(value, serde_json::json!({"a": true, "b": true, "c": 493, "d": 1000, "e": false, "f": "0755", "g": null}));
    }

    #[test]
    fn duplicate_keys_are_rejected_with_their_line() {
        let err = parse_documents("kind: A\nmetadata:\n  name: x\n  name: y\n", "dup.yaml").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("dup.yaml:4:"), "{text}");
    }

    #[test]
    fn documents_know_their_lines_and_fields() {
        let text = "# c\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\ndata:\n  k: dg==\n";
        let docs = parse_documents(text, "f.yaml").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].display_name(), "ConfigMap/a");
        assert_eq!(docs[1].origin.line, 8);
        assert_eq!(docs[1].origin.index, 1);
        assert_eq!(docs[1].line_of("/data/k"), 13);
        assert_eq!(docs[1].line_of("/data/missing"), 12);
    }

    #[test]
    fn lists_are_expanded() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n";
        let docs = parse_documents(text, "l.yaml").unwrap();
        assert_eq!(docs.iter().map(Document::name).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(docs[1].origin.line, 8);
        assert_eq!(docs[1].line_of("/metadata/name"), 11);
    }

    #[test]
    fn thousands_of_documents_are_read() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n".repeat(5000);
        assert_eq!(parse_documents(&text, "big.yaml").unwrap().len(), 5000);
    }

    #[test]
    fn scalars_at_top_level_are_rejected() {
        assert!(parse_documents("just text\n", "s.yaml").is_err());
    }
}
