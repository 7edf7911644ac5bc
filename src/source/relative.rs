//! Repository-relative paths: a reference written in a file of the tree, joined to that file's directory and
//! normalized lexically, as kustomize, Flux and Fleet resolve them before anything is looked up.

use std::path::{Component, Path};

/// `dir/reference` normalized lexically; `None` when it climbs above the repository root.
pub fn resolve(dir: &str, reference: &str) -> Option<String> {
    let mut parts: Vec<String> = if dir.is_empty() { Vec::new() } else { dir.split('/').map(String::from).collect() };
    if reference.starts_with('/') {
        return None;
    }
    for component in Path::new(reference).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_inside_the_repository_only() {
        assert_eq!(resolve("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(resolve("a", "./x.yaml").as_deref(), Some("a/x.yaml"));
        assert_eq!(resolve("a", "../../x"), None);
        assert_eq!(resolve("", "/etc/passwd"), None);
    }
}
