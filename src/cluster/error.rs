//! Cluster errors, classified so that every message says what went wrong and where.

use std::time::Duration;

/// Why talking to the cluster failed. Each message names the kubeconfig, context, server or
/// object concerned.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ClusterError {
    /// No kubeconfig could be read, or it is malformed, or it lacks what the context needs.
    #[error("bad kubeconfig {source_desc}: {message}")]
    BadKubeconfig { source_desc: String, message: String },
    /// `--context` (or current-context) names a context that is not in the kubeconfig.
    #[error("context `{context}` not found in kubeconfig {source_desc} (contexts: {available})")]
    UnknownContext { context: String, source_desc: String, available: String },
    /// The server could not be reached (connection refused, DNS, TLS handshake, connect timeout).
    #[error("cannot reach the API server {server} (context `{context}`) to {what}: {message}")]
    Unreachable { what: String, server: String, context: String, message: String },
    /// A request took longer than `--request-timeout`.
    #[error("{what}: no answer from the API server {server} within the request timeout of {timeout}")]
    Timeout { what: String, server: String, timeout: String },
    /// 401: the server rejected the credentials.
    #[error(
        "unauthorized: the API server {server} rejected the credentials of context `{context}` to {what}: {message}"
    )]
    Unauthorized { what: String, server: String, context: String, message: String },
    /// 403: the user may not do this.
    #[error("forbidden: the user of context `{context}` may not {what}: {message}")]
    Forbidden { what: String, context: String, message: String },
    /// 404 on a request (callers turn this into "absent" where that is expected).
    #[error("{what}: not found: {message}")]
    NotFound { what: String, message: String },
    /// The server does not serve this apiVersion/kind (CRD missing, or version not served).
    #[error(
        "{api_version} {kind} is not served by the API server {server} (is the CRD installed and this version served?)"
    )]
    NotServed { api_version: String, kind: String, server: String },
    /// Server-side apply found fields owned by another field manager with other values.
    #[error(
        "{what}: conflicts with other field managers (the dry run did not force them: drop --no-force-conflicts, or use --field-manager): {message}"
    )]
    Conflict { what: String, message: String },
    /// The server refused the object (validation, admission, bad request).
    #[error("{what}: the API server rejected it ({code} {reason}): {message}")]
    Rejected { what: String, code: u16, reason: String, message: String },
    /// 429, 5xx or an optimistic-lock 409 that persisted through the retries.
    #[error("{what}: server error {code} {reason} after {attempts} attempt(s): {message}")]
    Server { what: String, code: u16, reason: String, message: String, attempts: u32, retry_after: Option<u32> },
    /// Anything else (a request that could not be built, an undecodable answer).
    #[error("{what}: {message}")]
    Other { what: String, message: String },
}

impl ClusterError {
    /// Worth retrying: 429, 5xx and 409s that are not apply conflicts.
    pub(super) fn is_retryable(&self) -> bool {
        matches!(self, ClusterError::Server { .. })
    }

    pub(super) fn retry_after(&self) -> Option<Duration> {
        match self {
            ClusterError::Server { retry_after: Some(s), .. } if *s > 0 => {
                Some(Duration::from_secs(u64::from(*s).min(5)))
            }
            _ => None,
        }
    }
}

/// The error and its sources, joined with `: ` (kube's errors hide the root cause otherwise).
pub(super) fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

pub(super) fn classify(err: kube::Error, what: &str, server: &str, context: &str, attempts: u32) -> ClusterError {
    let what = what.to_string();
    match err {
        kube::Error::Api(status) => {
            let message = status.message.clone();
            let reason = status.reason.clone();
            match status.code {
                401 => ClusterError::Unauthorized { what, server: server.into(), context: context.into(), message },
                403 => ClusterError::Forbidden { what, context: context.into(), message },
                404 => ClusterError::NotFound { what, message },
                409 if is_apply_conflict(&status) => ClusterError::Conflict { what, message },
                409 | 429 | 500..=599 => ClusterError::Server {
                    what,
                    code: status.code,
                    reason,
                    message,
                    attempts,
                    retry_after: status.details.as_ref().map(|d| d.retry_after_seconds),
                },
                code => ClusterError::Rejected { what, code, reason, message },
            }
        }
        kube::Error::SerdeError(e) => ClusterError::Other { what, message: format!("cannot decode the answer: {e}") },
        kube::Error::Auth(e) => ClusterError::BadKubeconfig {
            source_desc: format!("(context `{context}`)"),
            message: format!("cannot get credentials: {}", chain(&e)),
        },
        other => {
            ClusterError::Unreachable { what, server: server.into(), context: context.into(), message: chain(&other) }
        }
    }
}

fn is_apply_conflict(status: &kube::core::Status) -> bool {
    status.details.as_ref().is_some_and(|d| d.causes.iter().any(|c| c.reason == "FieldManagerConflict"))
        || status.message.contains("Apply failed with")
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;
    use kube::core::response::{StatusCause, StatusDetails};

    fn api(code: u16, reason: &str, causes: Vec<StatusCause>) -> kube::Error {
        let mut status = Status::failure("boom", reason).with_code(code);
        if !causes.is_empty() {
            status = status.with_details(StatusDetails {
                name: String::new(),
                group: String::new(),
                kind: String::new(),
                uid: String::new(),
                causes,
                retry_after_seconds: 0,
            });
        }
        kube::Error::Api(status.boxed())
    }

    fn cls(e: kube::Error) -> ClusterError {
        classify(e, "get Thing ns/a", "https://127.0.0.1:6443", "ctx", 1)
    }

    #[test]
    fn status_codes_map_to_kinds() {
        assert!(matches!(cls(api(401, "Unauthorized", vec![])), ClusterError::Unauthorized { .. }));
        assert!(matches!(cls(api(403, "Forbidden", vec![])), ClusterError::Forbidden { .. }));
        assert!(matches!(cls(api(404, "NotFound", vec![])), ClusterError::NotFound { .. }));
        assert!(matches!(cls(api(422, "Invalid", vec![])), ClusterError::Rejected { code: 422, .. }));
        let busy = cls(api(429, "TooManyRequests", vec![]));
        assert!(busy.is_retryable());
        assert!(cls(api(503, "ServiceUnavailable", vec![])).is_retryable());
        assert!(cls(api(409, "Conflict", vec![])).is_retryable());
    }

    #[test]
    fn apply_conflicts_are_not_retried_and_say_how_to_resolve() {
        let cause = StatusCause {
            reason: "FieldManagerConflict".into(),
            message: "conflict with \"kubectl\"".into(),
            field: ".spec.x".into(),
        };
        let err = cls(api(409, "Conflict", vec![cause]));
        assert!(matches!(err, ClusterError::Conflict { .. }));
        assert!(!err.is_retryable());
        assert!(err.to_string().contains("drop --no-force-conflicts"), "{err}");
    }

    #[test]
    fn forbidden_message_names_context_and_action() {
        let text = cls(api(403, "Forbidden", vec![])).to_string();
        assert!(text.starts_with("forbidden: the user of context `ctx` may not get Thing ns/a"), "{text}");
    }
}
