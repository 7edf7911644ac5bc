//! The `ADDITIONAL_ASO_CRDS` a run's inputs declare, read before anything is validated (ASO objects are judged
//! against CAPZ's `--crd-pattern` widened by it): the plain files that can hold a declaration, the built documents
//! of the repositories, and the clusterctl config files of the repositories.

use std::io::Read;
use std::path::Path;
use std::sync::LazyLock;

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
            Ok(metadata) if metadata.is_dir() => manifest::manifest_files(Path::new(path))
                .map(|files| files.iter().map(|f| f.display().to_string()).collect())
                .unwrap_or_default(),
            Ok(metadata) if metadata.is_file() => vec![path.clone()],
            _ => Vec::new(),
        };
        for file in files {
            // A file that cannot be read is reported when it is streamed.
            if !file_may_declare(Path::new(&file)).unwrap_or(false) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            let read = manifest::parse_documents_tolerant(&text, &file);
            relevant.extend(read.documents.into_iter().filter(is_relevant));
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

/// The words one of which a file that declares the variable holds: the variable (a Secret's key, a CAPIProvider's
/// variable) or a provider kind (whose configSecret names the Secret).
static DECLARING_WORDS: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(&format!("{VARIABLE}|InfrastructureProvider|CAPIProvider")).expect("a valid regex")
});

/// The longest of [`DECLARING_WORDS`], less one: what a chunk keeps of the one before.
const OVERLAP: usize = "InfrastructureProvider".len() - 1;

/// Whether a file can hold a provider or a Secret that declares the variable. Read in chunks into one buffer: most
/// files cannot (a 50 MB bundle is searched, not held or parsed twice).
fn file_may_declare(path: &Path) -> std::io::Result<bool> {
    let mut file = std::fs::File::open(path)?;
    let mut buffer = vec![0u8; 1 << 16];
    let mut kept = 0;
    loop {
        let read = file.read(&mut buffer[kept..])?;
        if read == 0 {
            return Ok(false);
        }
        let end = kept + read;
        if DECLARING_WORDS.is_match(&buffer[..end]) {
            return Ok(true);
        }
        kept = OVERLAP.min(end);
        buffer.copy_within(end - kept..end, 0);
    }
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
    }

    #[test]
    fn a_word_across_two_chunks_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.yaml");
        for offset in [0, 3, (1 << 16) - 10, (1 << 16) - 1, 1 << 16, 3 << 16] {
            let mut text = "#".repeat(offset);
            text.push_str("kind: InfrastructureProvider\n");
            text.push_str(&"#".repeat(1 << 17));
            std::fs::write(&path, &text).unwrap();
            assert!(file_may_declare(&path).unwrap(), "at {offset}");
            std::fs::write(&path, text.replace("InfrastructureProvider", "InfrastructureProvide")).unwrap();
            assert!(!file_may_declare(&path).unwrap(), "at {offset}");
        }
        std::fs::write(&path, "").unwrap();
        assert!(!file_may_declare(&path).unwrap());
    }
}
