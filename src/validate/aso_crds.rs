//! The `ADDITIONAL_ASO_CRDS` a run's inputs declare, read before anything is validated (ASO objects are judged
//! against CAPZ's `--crd-pattern` widened by it): the plain files that can hold a declaration, the built documents
//! of the repositories, and the clusterctl config files of the repositories.

use crate::config::aso_crds::{self, Declarations, VARIABLE};
use crate::manifest::{self, Document};
use crate::source::{FileClass, Repository};

/// What `paths` (the files a run streams; standard input is not read twice, so it declares nothing) and
/// `repositories` declare.
pub(crate) fn declared_aso_crds(paths: &[String], repositories: &[Repository]) -> Declarations {
    let mut relevant = Vec::new();
    for path in paths.iter().filter(|path| *path != "-") {
        // Only regular files: a pipe (`/dev/stdin`, `<(kustomize build)`) can be read once only.
        let files = match std::fs::metadata(path) {
            Ok(metadata) if metadata.is_dir() => manifest::manifest_files(std::path::Path::new(path))
                .map(|files| files.iter().map(|f| f.display().to_string()).collect())
                .unwrap_or_default(),
            Ok(metadata) if metadata.is_file() => vec![path.clone()],
            _ => Vec::new(),
        };
        for file in files {
            // A file that cannot be read is reported when it is streamed.
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            if may_declare(&text) {
                let read = manifest::parse_documents_tolerant(&text, &file);
                relevant.extend(read.documents.into_iter().filter(is_relevant));
            }
        }
    }
    for built in repositories.iter().flat_map(|repository| &repository.built) {
        relevant.extend(built.documents.iter().filter(|document| is_relevant(document)).cloned());
    }
    let mut declarations = Declarations::default();
    declarations.add_documents(&relevant);
    for entry in repositories.iter().flat_map(|repository| &repository.files) {
        if entry.class == FileClass::NotManifest
            && aso_crds::is_clusterctl_config_name(&entry.path)
            && let Ok(text) = std::fs::read_to_string(&entry.path)
        {
            declarations.add_clusterctl_config(&text, &entry.path);
        }
    }
    declarations
}

/// Whether a file's text can hold a provider or a Secret that declares the variable (most files cannot: they are
/// not parsed twice).
fn may_declare(text: &str) -> bool {
    text.contains(VARIABLE) || text.contains("InfrastructureProvider") || text.contains("CAPIProvider")
}

/// The providers, and the Secrets that hold the variable.
fn is_relevant(document: &Document) -> bool {
    match document.kind() {
        "InfrastructureProvider" | "CAPIProvider" => true,
        "Secret" => ["data", "stringData"]
            .iter()
            .any(|field| document.value.get(field).and_then(|data| data.get(VARIABLE)).is_some()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_files_and_directories_are_read_and_other_files_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let provider = "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: azure\n  namespace: capz-system\nspec:\n  configSecret:\n    name: azure-variables\n";
        let secret = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: unrelated}}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: azure-variables\n  namespace: capz-system\nstringData:\n  {VARIABLE}: managedidentity.azure.com/*\n"
        );
        std::fs::create_dir(dir.path().join("mgmt")).unwrap();
        std::fs::write(dir.path().join("mgmt/provider.yaml"), provider).unwrap();
        std::fs::write(dir.path().join("mgmt/secret.yaml"), &secret).unwrap();
        let paths = [dir.path().join("mgmt").display().to_string(), "-".to_string()];
        let found = declared_aso_crds(&paths, &[]);
        assert_eq!(found.found.len(), 1, "{found:?}");
        assert_eq!(found.found[0].value, "managedidentity.azure.com/*");
        assert!(found.found[0].location.ends_with("mgmt/secret.yaml:11"), "{}", found.found[0].location);
        // The provider alone names a Secret it cannot find.
        let alone = declared_aso_crds(&[dir.path().join("mgmt/provider.yaml").display().to_string()], &[]);
        assert!(alone.found.is_empty() && alone.notes.len() == 1, "{alone:?}");
        assert!(!may_declare("apiVersion: v1\nkind: Secret\n"));
    }
}
