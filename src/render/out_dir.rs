//! `render --out-dir`: one file per rendered object, `NN-<kind>-<name>.yaml|json`, and nothing else in the
//! directory; [`crate::out_tree`] writes it as a directory it owns whole.

use serde_json::Value;

use crate::json_pointer::At;
use crate::out_tree::{DesiredTree, Ownership};

/// How each object's file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectFormat {
    /// `NN-<kind>-<name>.yaml`, one YAML document.
    Yaml,
    /// `NN-<kind>-<name>.json`, one pretty-printed JSON object.
    Json,
}

impl ObjectFormat {
    fn extension(self) -> &'static str {
        match self {
            ObjectFormat::Yaml => "yaml",
            ObjectFormat::Json => "json",
        }
    }

    fn text(self, value: &Value) -> String {
        match self {
            ObjectFormat::Yaml => crate::manifest::to_yaml_documents(std::iter::once(value)),
            ObjectFormat::Json => {
                let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
                text.push('\n');
                text
            }
        }
    }
}

/// `NN-<kind>-<name>.<ext>`: NN is the 1-based position (2 digits, more when needed), kind lowercased.
pub fn file_name(index: usize, total: usize, value: &Value, ext: &str) -> String {
    let width = total.to_string().len().max(2);
    let kind = value.str_at("/kind").unwrap_or("object").to_ascii_lowercase();
    let name = value.str_at("/metadata/name").unwrap_or("unnamed");
    let safe = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect::<String>()
    };
    format!("{:0width$}-{}-{}.{ext}", index + 1, safe(&kind), safe(name))
}

/// Whether `name` is one [`file_name`] gives: `NN-...` ending in `.yaml` or `.json`.
pub fn is_object_file(name: &str) -> bool {
    let Some((number, rest)) = name.split_once('-') else { return false };
    !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit())
        && (rest.ends_with(".yaml") || rest.ends_with(".json"))
}

/// How the out-dir is owned: whole, its files being those [`is_object_file`] accepts. Anything else in it (a
/// user's file, a directory, a link) makes a render refuse, so a second render replaces an earlier one exactly.
pub const OWNERSHIP: Ownership = Ownership::Whole { is_ours: is_object_file };

/// The files of the out-dir: one per object, in order.
pub fn object_tree(values: &[&Value], format: ObjectFormat) -> DesiredTree {
    let mut tree = DesiredTree::default();
    for (i, value) in values.iter().enumerate() {
        tree.insert(file_name(i, values.len(), value, format.extension()), format.text(value));
    }
    tree
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn one_file_per_object_named_by_position_kind_and_name() {
        let cluster = json!({"kind": "Cluster", "metadata": {"name": "demo"}});
        let odd = json!({"kind": "ConfigMap", "metadata": {"name": "a/b c"}});
        let tree = object_tree(&[&cluster, &odd], ObjectFormat::Json);
        let names: Vec<String> = tree.files().map(|(path, _)| path.display().to_string()).collect();
        assert_eq!(names, ["01-cluster-demo.json", "02-configmap-a_b_c.json"]);
        assert!(names.iter().all(|name| is_object_file(name)));
        for other in ["notes.txt", "-x.yaml", "01x-a.yaml", "01-a.yml", ".kubectl-capz-owned"] {
            assert!(!is_object_file(other), "{other}");
        }
    }
}
