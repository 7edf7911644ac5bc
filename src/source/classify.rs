//! Which files of a repository are not Kubernetes manifests: CI workflows, tool and editor configs, Helm and
//! kustomize inputs, YAML without `apiVersion` and `kind` at the top.

use std::sync::LazyLock;

use regex::Regex;

use crate::manifest;

/// File names of tools that keep their configuration in YAML or JSON, and what they are.
const KNOWN_CONFIGS: [(&str, &str); 34] = [
    ("dependabot.yml", "Dependabot configuration"),
    ("dependabot.yaml", "Dependabot configuration"),
    (".pre-commit-config.yaml", "pre-commit configuration"),
    (".pre-commit-hooks.yaml", "pre-commit hook definitions"),
    (".yamllint", "yamllint configuration"),
    (".yamllint.yaml", "yamllint configuration"),
    (".yamllint.yml", "yamllint configuration"),
    ("mkdocs.yml", "MkDocs configuration"),
    ("mkdocs.yaml", "MkDocs configuration"),
    (".kubectl-capz.yaml", "kubectl-capz repository configuration"),
    (".golangci.yml", "golangci-lint configuration"),
    (".golangci.yaml", "golangci-lint configuration"),
    (".goreleaser.yml", "GoReleaser configuration"),
    (".goreleaser.yaml", "GoReleaser configuration"),
    ("codecov.yml", "Codecov configuration"),
    (".codecov.yml", "Codecov configuration"),
    (".markdownlint.yaml", "markdownlint configuration"),
    (".markdownlint.yml", "markdownlint configuration"),
    (".markdownlint.json", "markdownlint configuration"),
    ("renovate.json", "Renovate configuration"),
    (".gitlab-ci.yml", "GitLab CI pipeline"),
    ("azure-pipelines.yml", "Azure Pipelines definition"),
    ("azure-pipelines.yaml", "Azure Pipelines definition"),
    (".travis.yml", "Travis CI configuration"),
    ("docker-compose.yml", "Docker Compose file"),
    ("docker-compose.yaml", "Docker Compose file"),
    ("compose.yaml", "Docker Compose file"),
    ("ct.yaml", "chart-testing configuration"),
    ("cr.yaml", "chart-releaser configuration"),
    ("Chart.yaml", "Helm chart metadata"),
    ("Chart.lock", "Helm dependency lock file"),
    ("values.schema.json", "Helm values schema"),
    ("package.json", "npm package manifest"),
    ("tsconfig.json", "TypeScript configuration"),
];

/// API groups of `apiVersion`+`kind` files that configure tools rather than describe cluster objects.
const TOOL_API_GROUPS: [(&str, &str); 6] = [
    ("kustomize.config.k8s.io", "kustomize configuration (read by its kustomization's build)"),
    ("skaffold", "Skaffold configuration"),
    ("kind.x-k8s.io", "kind cluster configuration"),
    ("ctlptl.dev", "ctlptl configuration"),
    ("config.kubernetes.io", "KRM function configuration"),
    ("kubeadm.k8s.io", "kubeadm configuration (not a cluster object)"),
];

/// Why a file is not a manifest, from its path alone (repository-relative, `/`-separated); `None` when its
/// content decides.
pub fn by_path(relative: &str) -> Option<String> {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    if relative.starts_with(".github/") {
        return Some(if relative.starts_with(".github/workflows/") {
            "GitHub Actions workflow".to_string()
        } else {
            "GitHub configuration".to_string()
        });
    }
    if let Some((_, what)) = KNOWN_CONFIGS.iter().find(|(known, _)| *known == name) {
        return Some(what.to_string());
    }
    if name.ends_with(".tpl") {
        return Some("Go template".to_string());
    }
    if relative.split('/').any(|part| part.starts_with('.') && part.len() > 1) {
        return Some("in a hidden directory (editor or tool files)".to_string());
    }
    None
}

/// Whether `name` is a file the walk considers at all: YAML, JSON and Helm's `.tpl` (other files are never listed).
pub fn is_candidate(relative: &str) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    name.ends_with(".yaml")
        || name.ends_with(".yml")
        || name.ends_with(".json")
        || name.ends_with(".tpl")
        || name == "Chart.lock"
        || name == ".yamllint"
}

/// Lines that start a top-level `apiVersion:` / `kind:` key (block style).
static TOP_LEVEL_API_VERSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?m)^["']?apiVersion["']?\s*:"#).expect("regex is valid"));
static TOP_LEVEL_KIND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?m)^["']?kind["']?\s*:"#).expect("regex is valid"));

/// Why the text of a file is not a manifest (`None`: it is one). Cheap for block-style YAML: the text is parsed only
/// when `apiVersion` and `kind` are there but not as top-level block keys (flow style, JSON).
pub fn by_content(text: &str, source: &str) -> Option<String> {
    if text.trim().is_empty() {
        return Some("empty".to_string());
    }
    if text.contains("{{") && (text.contains("{{ .") || text.contains("{{- ") || text.contains("{{.")) {
        // Go templates outside a chart are not YAML until rendered; only when they do not read as YAML.
        if manifest::parse_documents(text, source).is_err() {
            return Some("Go template (not YAML until rendered)".to_string());
        }
    }
    let block = TOP_LEVEL_API_VERSION.is_match(text) && TOP_LEVEL_KIND.is_match(text);
    if !block {
        if !(text.contains("apiVersion") && text.contains("kind")) {
            return Some("no apiVersion and kind at the top level".to_string());
        }
        let read = manifest::parse_documents_tolerant(text, source);
        let any_object = read.documents.iter().any(|d| !d.api_version().is_empty() && !d.kind().is_empty());
        if !any_object {
            return Some(if read.documents.is_empty() && !read.problems.is_empty() {
                // Text that is not YAML: a finding (yaml-syntax) when validated, so keep it a manifest.
                return None;
            } else {
                "no apiVersion and kind at the top level".to_string()
            });
        }
    }
    if let Some(api_version) = first_api_version(text) {
        let group = api_version.split('/').next().unwrap_or("");
        if let Some((_, what)) = TOOL_API_GROUPS.iter().find(|(known, _)| *known == group || api_version == *known) {
            return Some(what.to_string());
        }
    }
    None
}

/// The value of the first top-level `apiVersion:` line.
fn first_api_version(text: &str) -> Option<&str> {
    text.lines()
        .find_map(|line| line.strip_prefix("apiVersion:"))
        .map(|rest| rest.trim().trim_matches(|c| c == '"' || c == '\''))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_content_decide() {
        assert_eq!(by_path(".github/workflows/ci.yaml").as_deref(), Some("GitHub Actions workflow"));
        assert_eq!(by_path("charts/x/Chart.yaml").as_deref(), Some("Helm chart metadata"));
        assert_eq!(by_path("clusters/prod/cluster.yaml"), None);
        assert_eq!(by_content("a: 1\n", "x").as_deref(), Some("no apiVersion and kind at the top level"));
        assert_eq!(by_content("apiVersion: v1\nkind: ConfigMap\n", "x"), None);
        assert_eq!(by_content("{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}", "x"), None);
        assert!(by_content("{\"name\": \"x\", \"kind\": 1, \"apiVersion\": 2}", "x").is_some());
        assert!(by_content("apiVersion: skaffold/v4beta6\nkind: Config\n", "x").is_some());
        assert_eq!(by_content("\n\n", "x").as_deref(), Some("empty"));
        assert!(by_content("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n", "x").is_none());
    }
}
