//! Kubeconfig loading with kubectl's precedence: `--kubeconfig`, else `KUBECONFIG` (a merged
//! list; missing files skipped), else `~/.kube/config`; `--context` or the current-context.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::error::{ClusterError, chain};

/// Where the kubeconfig came from (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KubeconfigSource {
    /// `--kubeconfig FILE`.
    Flag(PathBuf),
    /// `KUBECONFIG`, with the files it lists.
    Env(Vec<PathBuf>),
    /// `~/.kube/config`.
    Default(PathBuf),
}

impl fmt::Display for KubeconfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KubeconfigSource::Flag(p) | KubeconfigSource::Default(p) => write!(f, "`{}`", p.display()),
            KubeconfigSource::Env(paths) => {
                let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                write!(f, "from $KUBECONFIG (`{}`)", list.join(":"))
            }
        }
    }
}

pub(super) struct Loaded {
    pub config: kube::Config,
    pub context: String,
    pub source: KubeconfigSource,
}

fn bad(source: &KubeconfigSource, message: impl Into<String>) -> ClusterError {
    ClusterError::BadKubeconfig { source_desc: source.to_string(), message: message.into() }
}

fn read_file(path: &Path, source: &KubeconfigSource) -> Result<Kubeconfig, ClusterError> {
    Kubeconfig::read_from(path).map_err(|e| bad(source, format!("`{}`: {}", path.display(), chain(&e))))
}

/// Reads the kubeconfig(s) in kubectl's order.
fn read(flag: Option<&Path>) -> Result<(Kubeconfig, KubeconfigSource), ClusterError> {
    if let Some(path) = flag {
        let source = KubeconfigSource::Flag(path.to_path_buf());
        if !path.is_file() {
            return Err(bad(&source, "the file does not exist"));
        }
        return Ok((read_file(path, &source)?, source));
    }
    if let Some(value) = std::env::var_os("KUBECONFIG") {
        let paths: Vec<PathBuf> = std::env::split_paths(&value).filter(|p| !p.as_os_str().is_empty()).collect();
        if !paths.is_empty() {
            let source = KubeconfigSource::Env(paths.clone());
            let mut merged: Option<Kubeconfig> = None;
            for path in paths.iter().filter(|p| p.exists()) {
                let next = read_file(path, &source)?;
                merged = Some(match merged {
                    None => next,
                    Some(m) => m.merge(next).map_err(|e| bad(&source, chain(&e)))?,
                });
            }
            return merged.map(|m| (m, source.clone())).ok_or_else(|| bad(&source, "none of the files exists"));
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let path = home.join(".kube").join("config");
    let source = KubeconfigSource::Default(path.clone());
    if !path.is_file() {
        return Err(bad(&source, "the file does not exist and neither --kubeconfig nor KUBECONFIG is set"));
    }
    Ok((read_file(&path, &source)?, source))
}

/// The context names of the kubeconfig kubectl would read (`flag`, else `KUBECONFIG`, else
/// `~/.kube/config`), in file order.
pub fn context_names(flag: Option<&Path>) -> Result<Vec<String>, ClusterError> {
    let (kubeconfig, _) = read(flag)?;
    Ok(kubeconfig.contexts.iter().map(|c| c.name.clone()).collect())
}

pub(super) async fn load(flag: Option<&Path>, context: Option<&str>) -> Result<Loaded, ClusterError> {
    let (kubeconfig, source) = read(flag)?;
    let available = || {
        let names: Vec<&str> = kubeconfig.contexts.iter().map(|c| c.name.as_str()).collect();
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    };
    let context = match context.map(str::to_string).or_else(|| kubeconfig.current_context.clone()) {
        Some(c) if !c.is_empty() => c,
        _ => {
            return Err(bad(&source, format!("no current-context is set; pass --context (contexts: {})", available())));
        }
    };
    if !kubeconfig.contexts.iter().any(|c| c.name == context) {
        return Err(ClusterError::UnknownContext { context, source_desc: source.to_string(), available: available() });
    }
    let options = KubeConfigOptions { context: Some(context.clone()), cluster: None, user: None };
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| bad(&source, format!("context `{context}`: {}", chain(&e))))?;
    Ok(Loaded { config, context, source })
}

/// Parses kubectl's `--request-timeout` as client-go's `ParseTimeout` does: a bare number of seconds, else a Go
/// duration (`30s`, `1m30s`, `500ms`); `0` means no timeout. A negative duration is refused.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let invalid = || format!("invalid duration `{text}`: expected e.g. 30s, 1m, 500ms or a number of seconds");
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    let nanos = crate::go_duration::parse(text).map_err(|_| invalid())?;
    u64::try_from(nanos).map(Duration::from_nanos).map_err(|_| invalid())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_like_go() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("").is_err());
        assert_eq!(parse_duration("1.5μs"), Ok(Duration::from_nanos(1_500)));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("99999999999999999999999h").is_err(), "beyond Go's int64 nanoseconds");
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    const TWO_CONTEXTS: &str = "apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: a\n  context:\n    cluster: c\n    user: u\n    namespace: team\n- name: b\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: t\n";

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn unknown_context_lists_the_known_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "kc", TWO_CONTEXTS);
        let err = rt().block_on(load(Some(&path), Some("nope"))).err().unwrap();
        assert!(matches!(err, ClusterError::UnknownContext { .. }));
        let text = err.to_string();
        assert!(text.contains("context `nope` not found") && text.contains("contexts: a, b"), "{text}");
    }

    #[test]
    fn context_namespace_becomes_the_default_namespace() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "kc", TWO_CONTEXTS);
        let loaded = rt().block_on(load(Some(&path), None)).ok().unwrap();
        assert_eq!(loaded.context, "a");
        assert_eq!(loaded.config.default_namespace, "team");
        let loaded = rt().block_on(load(Some(&path), Some("b"))).ok().unwrap();
        assert_eq!(loaded.config.default_namespace, "default");
    }

    #[test]
    fn malformed_and_missing_kubeconfigs_are_bad_kubeconfigs() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "kc", "clusters: [this is: not a kubeconfig\n");
        let err = rt().block_on(load(Some(&path), None)).err().unwrap();
        assert!(matches!(err, ClusterError::BadKubeconfig { .. }), "{err}");
        assert!(err.to_string().contains("bad kubeconfig"), "{err}");
        let missing = dir.path().join("missing");
        let err = rt().block_on(load(Some(&missing), None)).err().unwrap();
        assert!(err.to_string().contains("does not exist"), "{err}");
    }
}
