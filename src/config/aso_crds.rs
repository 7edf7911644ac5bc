//! `ADDITIONAL_ASO_CRDS`: the ASO kinds a repository makes CAPZ install beside its own (CAPZ appends the variable to
//! ASO's `--crd-pattern`, config/aso/kustomization.yaml), read from where users set it: the configSecret of the
//! Cluster API Operator's `azure` InfrastructureProvider (or of a Rancher Turtles CAPIProvider, whose
//! `spec.variables` go into that Secret), clusterctl's config file, and `additionalAsoCrds` of `.kubectl-capz.yaml`.

use base64::Engine as _;
use serde_json::Value;

use crate::json_pointer::At;
use crate::manifest::{self, Document};
use crate::schema::crd_pattern::CrdPattern;

use super::file::RepoConfig;

/// The variable CAPZ's ASO component reads.
pub const VARIABLE: &str = "ADDITIONAL_ASO_CRDS";

/// The Cluster API Operator's API group and the provider name it installs CAPZ under.
const OPERATOR_GROUP: &str = "operator.cluster.x-k8s.io";
const AZURE_PROVIDER: &str = "azure";
/// Rancher Turtles' wrapper of the operator's providers.
const TURTLES_GROUP: &str = "turtles-capi.cattle.io";

/// One place that sets `ADDITIONAL_ASO_CRDS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The value, as set.
    pub value: String,
    /// `FILE:LINE` of the value.
    pub location: String,
    /// What sets it (`ADDITIONAL_ASO_CRDS of Secret capz-system/azure-variables, the configSecret of
    /// InfrastructureProvider capz-system/azure`).
    pub holder: String,
}

impl Declaration {
    /// The value as reports show it: `***` when a Secret holds it (a value whose provenance is a Secret is never
    /// shown; the kinds it adds still are, by the schemas they bring).
    pub fn shown_value(&self) -> &str {
        if self.holder.starts_with(&format!("{VARIABLE} of Secret ")) { "***" } else { &self.value }
    }

    /// `<holder> at <location>`, for messages.
    pub fn describe(&self) -> String {
        format!("{} at {}", self.holder, self.location)
    }
}

/// What the inputs set, with notes on what was found but does not count (said at `-v`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declarations {
    pub found: Vec<Declaration>,
    pub notes: Vec<String>,
}

/// The widened pattern of a run and where each part came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    pub pattern: CrdPattern,
    /// Where it was set, for messages: one declaration's description, or several joined.
    pub origin: String,
}

impl Declarations {
    /// The value of `additionalAsoCrds` in the config file: it alone decides when set (the repository's
    /// declarations are then listed as notes).
    pub fn with_config(mut self, config: Option<&RepoConfig>) -> Self {
        let Some((config, setting)) = config.and_then(|c| Some((c, c.additional_aso_crds.as_ref()?))) else {
            return self;
        };
        let config_declaration = Declaration {
            value: setting.value.clone(),
            location: config.location(setting.line),
            holder: format!("additionalAsoCrds of {}", super::FILE_NAME),
        };
        for other in std::mem::take(&mut self.found) {
            self.notes.push(format!(
                "{} is not used: additionalAsoCrds of {} decides",
                other.describe(),
                config.path.display()
            ));
        }
        self.found.push(config_declaration);
        self
    }

    /// The pattern the declarations add together (each widens what ASO installs), `None` when nothing sets it.
    pub fn decided(&self) -> Option<Decided> {
        let first = self.found.first()?;
        let mut pattern = CrdPattern::parse(&first.value);
        for other in &self.found[1..] {
            pattern.extend(&CrdPattern::parse(&other.value));
        }
        let origin = match self.found.as_slice() {
            [one] => one.describe(),
            many => many.iter().map(Declaration::describe).collect::<Vec<_>>().join("; "),
        };
        Some(Decided { pattern, origin })
    }

    /// The entries ASO refuses to start with (an entry that matches no CRD makes its controller exit), one line each.
    pub fn refused_entries(&self) -> Vec<String> {
        let mut out = Vec::new();
        for declaration in &self.found {
            for entry in CrdPattern::parse(&declaration.value).entries() {
                if let Some(why) = entry.never_matches() {
                    out.push(format!(
                        "{}: `{}` is {why}: ASO's controller refuses to start when a --crd-pattern entry matches no \
                         CRD",
                        declaration.describe(),
                        entry.as_str()
                    ));
                }
            }
        }
        out
    }

    /// Reads the providers and Secrets among `documents` (in any order): the configSecret of each `azure`
    /// InfrastructureProvider and CAPIProvider, and a CAPIProvider's `spec.variables` (which Turtles writes into
    /// that Secret, over its own keys).
    pub fn add_documents<'a>(&mut self, documents: impl IntoIterator<Item = &'a Document> + Clone) {
        for provider in documents.clone().into_iter() {
            let Some(secret_ref) = azure_provider_secret(provider) else { continue };
            if let Some((value, pointer)) = variables_entry(provider) {
                let holder = format!("{VARIABLE} in spec.variables of {}", object_name(provider));
                self.push_value(provider, &pointer, value, holder);
                continue;
            }
            let Some(secret_ref) = secret_ref else { continue };
            let secret = documents.clone().into_iter().find(|document| {
                document.kind() == "Secret"
                    && document.group().is_empty()
                    && document.name() == secret_ref.name
                    && namespaces_meet(document.namespace(), secret_ref.namespace.as_deref())
            });
            let holder = format!(
                "{VARIABLE} of Secret {}{}, the configSecret of {}",
                secret_ref.namespace.as_deref().map(|ns| format!("{ns}/")).unwrap_or_default(),
                secret_ref.name,
                object_name(provider)
            );
            match secret {
                None => self.notes.push(format!(
                    "the configSecret of {} at {} is not among the checked files: its {VARIABLE}, if any, is not known",
                    object_name(provider),
                    provider.location_of("/spec")
                )),
                Some(secret) => match secret_entry(secret) {
                    Some(Ok((value, pointer))) => self.push_value(secret, &pointer, value, holder),
                    Some(Err(why)) => self.notes.push(format!("{holder} at {}: {why}", secret.location_of("/data"))),
                    None => {}
                },
            }
        }
    }

    /// Reads a clusterctl config file (`clusterctl.yaml`) as clusterctl does: its top-level keys are the variables
    /// (viper: case-insensitive names). A file that is not a mapping sets nothing.
    pub fn add_clusterctl_config(&mut self, text: &str, source: &str) {
        let Ok((Value::Object(map), lines)) = manifest::parse_value(text, source) else { return };
        let line = |pointer: &str| lines.line_of(pointer).unwrap_or(1);
        let top_level = map.iter().rfind(|(key, _)| key.eq_ignore_ascii_case(VARIABLE));
        if let Some((key, value)) = top_level {
            let pointer = format!("/{key}");
            match value {
                Value::String(text) => self.found.push(Declaration {
                    value: text.clone(),
                    location: format!("{source}:{}", line(&pointer)),
                    holder: format!("{VARIABLE} of clusterctl's config file"),
                }),
                other => self.notes.push(format!(
                    "{VARIABLE} at {source}:{} is not a string ({}): not used",
                    line(&pointer),
                    super::file::type_name(other)
                )),
            }
        }
        for (key, nested) in &map {
            if let Value::Object(inner) = nested
                && let Some((variable, _)) = inner.iter().find(|(k, _)| k.eq_ignore_ascii_case(VARIABLE))
            {
                self.notes.push(format!(
                    "{key}.{variable} at {source}:{} is not read by clusterctl (its variables are the file's \
                     top-level keys): not used",
                    line(&format!("/{key}/{variable}"))
                ));
            }
        }
    }

    fn push_value(&mut self, document: &Document, pointer: &str, value: String, holder: String) {
        let location = document.location_of(pointer);
        if value.contains("${") {
            self.notes.push(format!(
                "{holder} at {location} holds a ${{...}} placeholder, unknown until it is substituted: not used"
            ));
            return;
        }
        self.found.push(Declaration { value, location, holder });
    }
}

/// Whether a file (repository-relative or not) is a clusterctl config file by its name: `clusterctl.yaml`, also with
/// a prefix or suffix (`mgmt-clusterctl.yaml`, `clusterctl-prod.yml`).
pub fn is_clusterctl_config_name(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = name.strip_suffix(".yaml").or_else(|| name.strip_suffix(".yml"));
    stem.is_some_and(|stem| stem.contains("clusterctl"))
}

/// A Secret reference: name and namespace (`None`: the object's, or any when neither says).
struct SecretRef {
    name: String,
    namespace: Option<String>,
}

/// For an object that installs CAPZ through the Cluster API Operator, its configSecret (`Some(None)`: it names none).
fn azure_provider_secret(document: &Document) -> Option<Option<SecretRef>> {
    let spec = document.value.get("spec");
    let text = |value: Option<&Value>, key: &str| value?.get(key)?.as_str().map(str::to_string);
    let config_secret = spec.and_then(|spec| spec.get("configSecret"));
    match document.group() {
        OPERATOR_GROUP if document.kind() == "InfrastructureProvider" && document.name() == AZURE_PROVIDER => {
            // The operator's webhook defaults the Secret's namespace to the provider's.
            Some(text(config_secret, "name").map(|name| SecretRef {
                name,
                namespace: text(config_secret, "namespace").or_else(|| document.namespace().map(str::to_string)),
            }))
        }
        TURTLES_GROUP if document.kind() == "CAPIProvider" => {
            let provider = text(spec, "name").unwrap_or_else(|| document.name().to_string());
            let kind = text(spec, "type").unwrap_or_default();
            if provider != AZURE_PROVIDER || kind != "infrastructure" {
                return None;
            }
            // Turtles writes the provider's variables into the Secret named by configSecret (else the provider's
            // own name), in the provider's namespace.
            let name = text(config_secret, "name").unwrap_or_else(|| document.name().to_string());
            Some(Some(SecretRef { name, namespace: document.namespace().map(str::to_string) }))
        }
        _ => None,
    }
}

/// `spec.variables.ADDITIONAL_ASO_CRDS` of a CAPIProvider, and its pointer.
fn variables_entry(document: &Document) -> Option<(String, String)> {
    if document.group() != TURTLES_GROUP {
        return None;
    }
    let value = document.value.str_at(&format!("/spec/variables/{VARIABLE}"))?;
    Some((value.to_string(), format!("/spec/variables/{VARIABLE}")))
}

/// A Secret's `ADDITIONAL_ASO_CRDS` (`stringData` over `data`, as the API server merges them), and its pointer;
/// `Some(Err)` when `data` holds it in a form the API server would not accept.
fn secret_entry(secret: &Document) -> Option<Result<(String, String), &'static str>> {
    if let Some(value) = secret.value.pointer(&format!("/stringData/{VARIABLE}")) {
        return Some(match value.as_str() {
            Some(text) => Ok((text.to_string(), format!("/stringData/{VARIABLE}"))),
            None => Err("not a string"),
        });
    }
    let value = secret.value.pointer(&format!("/data/{VARIABLE}"))?;
    let decoded = value
        .as_str()
        .and_then(|text| base64::engine::general_purpose::STANDARD.decode(text.trim()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok());
    Some(decoded.map(|text| (text, format!("/data/{VARIABLE}"))).ok_or("not base64-encoded UTF-8 text"))
}

/// An object without a namespace lands wherever the apply puts it: it meets any namespace.
fn namespaces_meet(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// `Kind namespace/name` (or `Kind name`).
fn object_name(document: &Document) -> String {
    match document.namespace() {
        Some(namespace) => format!("{} {namespace}/{}", document.kind(), document.name()),
        None => format!("{} {}", document.kind(), document.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn documents(text: &str) -> Vec<Document> {
        manifest::parse_documents(text, "repo/capz.yaml").unwrap()
    }

    fn declarations(text: &str) -> Declarations {
        let documents = documents(text);
        let mut declarations = Declarations::default();
        declarations.add_documents(&documents);
        declarations
    }

    const OPERATOR: &str = "apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: azure
  namespace: capz-system
spec:
  version: v1.27.0
  configSecret:
    name: azure-variables
";

    #[test]
    fn the_operators_config_secret_is_read_from_data_or_string_data() {
        // `managedidentity.azure.com/*;authorization.azure.com/RoleAssignment`, base64.
        let data = format!(
            "{OPERATOR}---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: azure-variables\n  namespace: capz-system\ndata:\n  {VARIABLE}: bWFuYWdlZGlkZW50aXR5LmF6dXJlLmNvbS8qO2F1dGhvcml6YXRpb24uYXp1cmUuY29tL1JvbGVBc3NpZ25tZW50\n"
        );
        let found = declarations(&data);
        assert_eq!(
            found.found,
            [Declaration {
                value: "managedidentity.azure.com/*;authorization.azure.com/RoleAssignment".into(),
                location: "repo/capz.yaml:17".into(),
                holder: "ADDITIONAL_ASO_CRDS of Secret capz-system/azure-variables, the configSecret of \
                         InfrastructureProvider capz-system/azure"
                    .into(),
            }]
        );
        assert!(found.notes.is_empty(), "{:?}", found.notes);
        // stringData wins over data; the Secret may come first.
        let both = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: azure-variables\ndata:\n  {VARIABLE}: eA==\nstringData:\n  {VARIABLE}: cache.azure.com/*\n---\n{OPERATOR}"
        );
        let found = declarations(&both);
        assert_eq!(found.found.len(), 1);
        assert_eq!(
            (found.found[0].value.as_str(), found.found[0].location.as_str()),
            ("cache.azure.com/*", "repo/capz.yaml:8")
        );
        let decided = found.decided().unwrap();
        assert!(decided.pattern.matching("cache.azure.com", "Redis").is_some());
        assert!(decided.origin.starts_with("ADDITIONAL_ASO_CRDS of Secret capz-system/azure-variables"));
    }

    #[test]
    fn only_the_azure_provider_and_its_own_secret_count() {
        let secret = |name: &str, namespace: &str| {
            format!(
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n  namespace: {namespace}\nstringData:\n  {VARIABLE}: cache.azure.com/*\n"
            )
        };
        // Another provider, another namespace, another name: nothing.
        let aws = OPERATOR.replace("name: azure\n", "name: aws\n");
        assert!(declarations(&format!("{aws}---\n{}", secret("azure-variables", "capz-system"))).found.is_empty());
        let elsewhere = declarations(&format!("{OPERATOR}---\n{}", secret("azure-variables", "other")));
        assert!(elsewhere.found.is_empty());
        assert!(
            elsewhere.notes[0].starts_with(
                "the configSecret of InfrastructureProvider capz-system/azure at repo/capz.yaml:6 is not among"
            ),
            "{:?}",
            elsewhere.notes
        );
        assert!(declarations(&format!("{OPERATOR}---\n{}", secret("other", "capz-system"))).found.is_empty());
        // A Secret nobody names as configSecret: nothing.
        assert!(declarations(&secret("azure-variables", "capz-system")).found.is_empty());
        // Not base64; a placeholder.
        let bad = format!(
            "{OPERATOR}---\napiVersion: v1\nkind: Secret\nmetadata: {{name: azure-variables}}\ndata:\n  {VARIABLE}: '***'\n"
        );
        let found = declarations(&bad);
        assert!(found.found.is_empty() && found.notes[0].contains("not base64"), "{:?}", found.notes);
        let placeholder = format!(
            "{OPERATOR}---\napiVersion: v1\nkind: Secret\nmetadata: {{name: azure-variables}}\nstringData:\n  {VARIABLE}: ${{ASO_CRDS}}\n"
        );
        let found = declarations(&placeholder);
        assert!(found.found.is_empty() && found.notes[0].contains("placeholder"), "{:?}", found.notes);
    }

    #[test]
    fn a_turtles_capi_provider_sets_it_in_variables_or_its_secret() {
        let provider = format!(
            "apiVersion: turtles-capi.cattle.io/v1alpha1\nkind: CAPIProvider\nmetadata:\n  name: azure\n  namespace: capz-system\nspec:\n  name: azure\n  type: infrastructure\n  variables:\n    {VARIABLE}: managedidentity.azure.com/*\n"
        );
        let found = declarations(&provider);
        assert_eq!(found.found.len(), 1);
        assert_eq!(found.found[0].location, "repo/capz.yaml:10");
        assert_eq!(found.found[0].holder, "ADDITIONAL_ASO_CRDS in spec.variables of CAPIProvider capz-system/azure");
        // Without variables: the Secret named after the provider.
        let without = provider.replace(&format!("  variables:\n    {VARIABLE}: managedidentity.azure.com/*\n"), "");
        let secret = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: azure\n  namespace: capz-system\nstringData:\n  {VARIABLE}: cache.azure.com/*\n"
        );
        let found = declarations(&format!("{without}---\n{secret}"));
        assert_eq!(found.found[0].value, "cache.azure.com/*");
        // A bootstrap provider is not CAPZ.
        let bootstrap = provider.replace("type: infrastructure", "type: bootstrap");
        assert!(declarations(&bootstrap).found.is_empty());
    }

    #[test]
    fn clusterctl_reads_top_level_keys_without_case() {
        let mut found = Declarations::default();
        found.add_clusterctl_config(
            "providers: []\nadditional_aso_crds: managedidentity.azure.com/*\nvariables:\n  ADDITIONAL_ASO_CRDS: cache.azure.com/*\n",
            "clusterctl.yaml",
        );
        assert_eq!(found.found.len(), 1);
        assert_eq!(
            (found.found[0].value.as_str(), found.found[0].location.as_str()),
            ("managedidentity.azure.com/*", "clusterctl.yaml:2")
        );
        assert!(
            found.notes[0].starts_with("variables.ADDITIONAL_ASO_CRDS at clusterctl.yaml:4 is not read"),
            "{:?}",
            found.notes
        );
        let mut list = Declarations::default();
        list.add_clusterctl_config("ADDITIONAL_ASO_CRDS: [a]\n", "c.yaml");
        assert!(list.found.is_empty() && list.notes[0].contains("not a string"));
        for (name, expected) in [
            ("clusterctl.yaml", true),
            ("mgmt/clusterctl-prod.yml", true),
            (".cluster-api/clusterctl.yaml", true),
            ("clusterctl.json", false),
            ("cluster.yaml", false),
        ] {
            assert_eq!(is_clusterctl_config_name(name), expected, "{name}");
        }
    }

    #[test]
    fn the_config_files_setting_decides_alone() {
        let config = super::super::file::parse(
            "additionalAsoCrds: [managedidentity.azure.com/*]\n",
            std::path::Path::new("/repo/.kubectl-capz.yaml"),
        )
        .unwrap();
        let mut found = Declarations::default();
        found.add_clusterctl_config("ADDITIONAL_ASO_CRDS: cache.azure.com/*\n", "clusterctl.yaml");
        let decided = found.with_config(Some(&config));
        assert_eq!(
            decided.found,
            [Declaration {
                value: "managedidentity.azure.com/*".into(),
                location: "/repo/.kubectl-capz.yaml:1".into(),
                holder: "additionalAsoCrds of .kubectl-capz.yaml".into(),
            }]
        );
        assert_eq!(
            decided.notes,
            ["ADDITIONAL_ASO_CRDS of clusterctl's config file at clusterctl.yaml:1 is not used: additionalAsoCrds of \
              /repo/.kubectl-capz.yaml decides"]
        );
        // Without the setting, the repository's declarations stay.
        let plain = super::super::file::parse("capzVersion: v1.26\n", std::path::Path::new("/repo/.kubectl-capz.yaml"))
            .unwrap();
        let mut found = Declarations::default();
        found.add_clusterctl_config("ADDITIONAL_ASO_CRDS: cache.azure.com/*\n", "clusterctl.yaml");
        assert_eq!(found.clone().with_config(Some(&plain)), found);
    }

    #[test]
    fn several_declarations_add_up_and_refused_entries_are_named() {
        let found = Declarations {
            found: vec![
                Declaration { value: "cache.azure.com/*;".into(), location: "a.yaml:3".into(), holder: "x".into() },
                Declaration {
                    value: "managedidentity.azure.com/*".into(),
                    location: "b.yaml:9".into(),
                    holder: "y".into(),
                },
            ],
            notes: Vec::new(),
        };
        let decided = found.decided().unwrap();
        assert!(decided.pattern.matching("managedidentity.azure.com", "UserAssignedIdentity").is_some());
        assert!(decided.pattern.matching("cache.azure.com", "Redis").is_some());
        assert_eq!(decided.origin, "x at a.yaml:3; y at b.yaml:9");
        let refused = found.refused_entries();
        assert_eq!(refused.len(), 1);
        assert!(refused[0].starts_with("x at a.yaml:3: `` is an empty entry"), "{refused:?}");
        assert!(Declarations::default().decided().is_none());
    }
}
