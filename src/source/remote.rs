//! Remote references: every spelling of a kustomize reference (a `resources` entry, a patch or generator file) that
//! kustomize or go-getter would fetch instead of reading a local path. kustomize v5.7.1 (sigs.k8s.io/kustomize/api
//! v0.20.1) decides in `internal/git/repospec.go` `NewRepoSpecFromURL` (ported below, case by case) whether a base is a
//! git repository it clones with `git` (which runs `ssh` for scp-style and `ssh://` addresses, and ignores the proxy
//! settings that stop https), and in `internal/loader/fileloader.go` `IsRemoteFile` whether a file is fetched over
//! http(s). go-getter, which kustomize used before v4 and other GitOps tools still use, also reads forced getters
//! (`git::`, `s3::`), any URL scheme (`gh:`, `oci://`, `host:path`), scp-like `user@host:path` and a few host names.
//! A reference is taken as remote when any of them would fetch it: a local path that looks like one is refused, never
//! fetched.

/// Why `reference` is not a local path, or `None` when it is one.
pub fn remote_reason(reference: &str) -> Option<&'static str> {
    let lower = reference.trim().to_ascii_lowercase();
    if lower.is_empty() {
        return None;
    }
    if is_kustomize_repo_spec(reference.trim()) {
        return Some("a git repository kustomize would clone");
    }
    if forced_getter(&lower) {
        return Some("a go-getter address (`getter::`)");
    }
    if url_scheme(&lower).is_some() {
        return Some("a URL");
    }
    if scp_like(&lower) {
        return Some("an scp-style git address (`user@host:path`)");
    }
    const HOSTS: [&str; 4] = ["github.com/", "gitlab.com/", "bitbucket.org/", "gist.github.com/"];
    if HOSTS.iter().any(|host| lower.starts_with(host))
        || lower.contains(".amazonaws.com/")
        || lower.contains(".googleapis.com/")
    {
        return Some("an address of a git or object-store host");
    }
    if lower.contains("?ref=")
        || lower.contains("?version=")
        || lower.contains("?submodules=")
        || lower.contains("?timeout=")
        || lower.contains(".git//")
        || lower.contains("/_git/")
        || lower.ends_with(".git")
    {
        return Some("a git repository address");
    }
    None
}

/// Why `reference`, a file a kustomization reads (a patch, a generator's input), is not a local path: kustomize
/// downloads an `http(s)` URL itself (`IsRemoteFile`); the other spellings as [`remote_reason`].
pub fn remote_file_reason(reference: &str) -> Option<&'static str> {
    let lower = reference.trim().to_ascii_lowercase();
    if matches!(url_scheme(&lower), Some("http" | "https")) {
        return Some("a URL kustomize would download");
    }
    remote_reason(reference)
}

/// Whether `reference` is remote (see [`remote_reason`]).
pub fn is_remote(reference: &str) -> bool {
    remote_reason(reference).is_some()
}

/// go-getter's forced getter: `^[A-Za-z0-9]+::.+`.
fn forced_getter(lower: &str) -> bool {
    lower.split_once("::").is_some_and(|(getter, rest)| {
        !getter.is_empty() && !rest.is_empty() && getter.bytes().all(|c| c.is_ascii_alphanumeric())
    })
}

/// The scheme Go's `url.Parse` finds (`^[a-zA-Z][a-zA-Z0-9+.-]*:`): `https`, `oci`, `gh`, and `host` in `host:path`.
fn url_scheme(lower: &str) -> Option<&str> {
    let (scheme, _) = lower.split_once(':')?;
    let mut bytes = scheme.bytes();
    let first = bytes.next()?;
    (first.is_ascii_alphabetic() && bytes.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))
        .then_some(scheme)
}

/// go-getter's `detectSSH` pattern `^(?:([^@]+)@)?([^:]+):/?(.+)$`, with a user or a host before the colon that is
/// not a path (a colon after the first `/` is part of a local path).
fn scp_like(lower: &str) -> bool {
    let Some((head, rest)) = lower.split_once(':') else { return false };
    !head.is_empty() && !head.contains('/') && !rest.trim_start_matches('/').is_empty()
}

/// `strings.TrimPrefix` ignoring ASCII case, as repospec.go's `trimPrefixIgnoreCase`.
fn trim_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let bytes = s.as_bytes();
    (bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes()))
        .then(|| &s[prefix.len()..])
}

const FILE_SCHEME: &str = "file://";

/// kustomize's `NewRepoSpecFromURL(n)` succeeds: kustomize would clone `n` with git.
pub fn is_kustomize_repo_spec(n: &str) -> bool {
    if n.starts_with('/') {
        return false;
    }
    let n = n.split_once('?').map_or(n, |(before, _)| before);
    let Some((host, rest)) = extract_host(n) else { return false };
    let default_segments = if host.starts_with(FILE_SCHEME) { None } else { Some(2) };
    parse_path_parts(&rest, default_segments)
}

/// repospec.go's `extractHost`: the scheme, username and host, and the rest of the address.
fn extract_host(n: &str) -> Option<(String, String)> {
    let n = trim_prefix_ignore_case(n, "git::").unwrap_or(n);
    let (scheme, n) = ["ssh://", "https://", "http://", FILE_SCHEME]
        .iter()
        .find_map(|prefix| trim_prefix_ignore_case(n, prefix).map(|rest| (*prefix, rest)))
        .unwrap_or(("", n));
    // `^([a-zA-Z][a-zA-Z0-9-]*)@`
    let username_length = n
        .find('@')
        .filter(|&at| {
            let name = &n.as_bytes()[..at];
            !name.is_empty()
                && name[0].is_ascii_alphabetic()
                && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        })
        .map_or(0, |at| at + 1);
    let (username, n) = n.split_at(username_length);
    let lower = n.to_ascii_lowercase();
    let standard_github = lower.starts_with("github.com/") || lower.starts_with("github.com:");
    let accept_scp = scheme.is_empty() && (!username.is_empty() || standard_github);
    if scheme.is_empty() && !accept_scp {
        return None;
    }
    if scheme == FILE_SCHEME {
        return Some((scheme.to_string(), format!("{username}{n}")));
    }
    let slash = n.find('/');
    let separator = match (accept_scp, n.find(':')) {
        (true, colon) if slash.is_none() || colon.is_some_and(|colon| colon > 0 && Some(colon) < slash) => colon,
        _ => slash,
    };
    let (mut host, rest) = match separator {
        Some(at) => (n[..=at].to_string(), n[at + 1..].to_string()),
        None => (n.to_string(), String::new()),
    };
    let (mut scheme, mut username) = (scheme.to_string(), username.to_string());
    if standard_github {
        // normalizeGithubHostParts
        if scheme.starts_with("ssh://") || !username.is_empty() {
            scheme = String::new();
            host = "github.com:".to_string();
        } else {
            (scheme, username, host) = ("https://".to_string(), String::new(), "github.com/".to_string());
        }
    }
    if host.is_empty() {
        return None;
    }
    Some((format!("{scheme}{username}{host}"), rest))
}

/// repospec.go's `parsePathParts`: the repository path and the kustomization root below it can be told apart, and
/// the root does not climb out of the repository.
fn parse_path_parts(n: &str, default_segments: Option<usize>) -> bool {
    let split = if let Some(at) = n.find("_git/") {
        let after = &n[at + "_git/".len()..];
        let (first, rest) = after.split_once('/').unwrap_or((after, ""));
        Some((format!("{}{first}", &n[..at + "_git/".len()]), rest.to_string()))
    } else if let Some(at) = n.find("//") {
        Some((n[..at].to_string(), n[at + 2..].to_string()))
    } else if let Some(at) = n.find(".git") {
        Some((n[..at + 4].to_string(), n[at + 4..].to_string()))
    } else {
        match default_segments {
            None => Some((n.to_string(), String::new())),
            Some(count) => {
                let segments: Vec<&str> = n.split('/').collect();
                (segments.len() >= count).then(|| (segments[..count].join("/"), segments[count..].join("/")))
            }
        }
    };
    let Some((repository, root)) = split else { return false };
    !repository.is_empty() && !climbs_out(root.trim_start_matches('/'))
}

/// Whether Go's `filepath.Clean(path)` starts with `..`.
fn climbs_out(path: &str) -> bool {
    let mut depth = 0usize;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if depth == 0 => return true,
            ".." => depth -= 1,
            _ => depth += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// repospec_test.go's `TestNewRepoSpecFromUrl_Permute`: every host spelling, repository, path and ref.
    #[test]
    fn kustomizes_permuted_addresses_are_git_repositories() {
        let hosts = [
            "gitHub.com/",
            "github.com:",
            "http://github.com/",
            "https://github.com/",
            "hTTps://github.com/",
            "https://git-codecommit.us-east-2.amazonaws.com/",
            "https://fabrikops2.visualstudio.com/",
            "ssh://git.example.com:7999/",
            "git::https://gitlab.com/",
            "git::http://git.example.com/",
            "git::https://git.example.com/",
            "git@github.com:",
            "git@github.com/",
            "git::git@github.com:",
            "org-12345@github.com:",
            "org-12345@github.com/",
        ];
        let mut count = 0;
        for host in hosts {
            for repository in ["someOrg/someRepo", "kubernetes/website"] {
                for path in ["README.md", "foo/krusty.txt", ""] {
                    for reference in ["group/version", "someBranch", "master", "v0.1.0", ""] {
                        let mut url = format!("{host}{repository}");
                        if !path.is_empty() {
                            url = format!("{url}/{path}");
                        }
                        if !reference.is_empty() {
                            url = format!("{url}?ref={reference}");
                        }
                        assert!(is_kustomize_repo_spec(&url), "{url}");
                        assert!(is_remote(&url), "{url}");
                        count += 1;
                    }
                }
            }
        }
        assert_eq!(count, 16 * 2 * 3 * 5);
    }

    /// repospec_test.go's smoke and error cases, and go-getter's detectors: (reference, kustomize clones it, refused
    /// as remote here).
    #[test]
    fn every_spelling_kustomize_or_go_getter_fetches_is_remote() {
        let cases: &[(&str, bool, bool)] = &[
            // TestNewRepoSpecFromUrl_Smoke: kustomize clones each.
            ("https://git-codecommit.us-east-2.amazonaws.com/someorg/somerepo/somedir", true, true),
            ("https://git-codecommit.us-east-2.amazonaws.com/someorg/somerepo/somedir?ref=testbranch", true, true),
            ("https://fabrikops2.visualstudio.com/someorg/somerepo?ref=master", true, true),
            ("http://github.com/someorg/somerepo/somedir", true, true),
            ("git@github.com:someorg/somerepo/somedir", true, true),
            ("http://github.com/someorg/somerepo.git/somedir", true, true),
            ("git@github.com:someorg/somerepo.git/somedir", true, true),
            ("git@gitlab2.sqtools.ru:infra/kubernetes/thanos-base.git?ref=v0.1.0", true, true),
            ("git@bitbucket.org:company/project.git//path?ref=branch", true, true),
            ("git@bitbucket.org/company/project.git//path?ref=branch", true, true),
            ("ssh://git@bitbucket.org/company/project.git//path?ref=branch", true, true),
            ("https://itfs.mycompany.com/collection/project/_git/somerepos", true, true),
            ("https://itfs.mycompany.com/collection/project/_git/somerepos?version=v1.0.0", true, true),
            ("https://itfs.mycompany.com/collection/project/_git/somerepos/somedir?version=v1.0.0", true, true),
            ("git::https://itfs.mycompany.com/collection/project/_git/somerepos", true, true),
            ("https://bitbucket.example.com/scm/project/repository.git", true, true),
            ("ssh://git-codecommit.us-east-2.amazonaws.com/someorg/somerepo/somepath", true, true),
            ("git@github.com/someorg/somerepo/somepath", true, true),
            ("https://github.com/kubernetes-sigs/kustomize//examples/multibases/dev/?ref=v1.0.6", true, true),
            ("file://a/b/c/someRepo.git/somepath?ref=someBranch", true, true),
            ("file://a/b/c/someRepo//somepath?ref=someBranch", true, true),
            ("file://a/b/c/someRepo?ref=someBranch", true, true),
            ("file:///a/b/c/someRepo?ref=someBranch", true, true),
            ("ssh://git@github.com/kubernetes-sigs/kustomize//examples/multibases/dev?ref=v1.0.6", true, true),
            ("file:///a/b/c/someRepo", true, true),
            ("file:///", true, true),
            ("https://example.org/path/to/repo//examples/multibases/dev", true, true),
            ("https://example.org/path/to/repo.git/examples/multibases/dev", true, true),
            ("ssh://alice@example.com/path/to/repo//examples/multibases/dev", true, true),
            ("https://authority/org/repo?ref=group/version", true, true),
            ("https://authority/org/repo/?ref=includes_git/for_some_reason", true, true),
            ("https://authority/org/repo/?ref=includes.git/for_some_reason", true, true),
            ("https://authority/org/repo/%-invalid-uri-so-not-parsable-by-net/url.Parse", true, true),
            ("ssh://myusername@bitbucket.org/ourteamname/ourrepositoryname.git//path?ref=branch", true, true),
            ("file://git@home/path/to/repository.git//path?ref=branch", true, true),
            ("http://git@home.com/path/to/repository.git//path?ref=branch", true, true),
            ("https://git@home.com/path/to/repository.git//path?ref=branch", true, true),
            ("ssh://git@ssh.github.com:443/YOUR-USERNAME/YOUR-REPOSITORY.git", true, true),
            ("git@gitlab.com/user:name/YOUR-REPOSITORY.git/path", true, true),
            ("git@gitlab.com:gitlab-tests/sample-project.git", true, true),
            ("git@gitlab.com:gitlab-tests/sample-project", true, true),
            ("https://username@dev.azure.com/org/project/_git/repo//path/to/kustomization/root", true, true),
            ("https://org.visualstudio.com/project/_git/repo/path/to/kustomization/root", true, true),
            ("ssh://org-12345@github.com/kubernetes-sigs/kustomize", true, true),
            ("org-12345@github.com/kubernetes-sigs/kustomize", true, true),
            ("git@gist.github.com:bc7947cb727d7f9217e7862d961a1ffd.git", true, true),
            ("https://gist.github.com/bc7947cb727d7f9217e7862d961a1ffd.git", true, true),
            // scp-style without the `git` user, and hosts without a user (kustomize needs the user, git does not).
            ("deploy@example.com:org/repo", true, true),
            ("example.com:org/repo", false, true),
            ("host:path", false, true),
            ("git::deploy@example.com:org/repo//base", true, true),
            // TestNewRepoSpecFromUrlErrors: kustomize does not clone them; some are fetched as files or by go-getter.
            ("/tmp", false, false),
            ("../../tmp", false, false),
            ("src/github.com/org/repo/path", false, false),
            ("iauhsdiuashduas", false, false),
            ("htxxxtp://github.com/", false, true),
            ("ssh://git.example.com", false, true),
            ("git::___", false, true),
            ("https://host?ref=group/version/minor_version", false, true),
            ("https://github.com/org/repo.git//path/../../exits/repo", false, true),
            ("github.com!org/repo.git//path", false, true),
            ("gh:org/repo", false, true),
            ("https://github.com/thisisa404.yaml", false, true),
            ("file:////tmp//path/to/whatever", false, true),
            ("git@scp://github.com/org/repo.git//path", false, true),
            ("git@ssh://github.com/org/repo.git//path", false, true),
            // go-getter's detectors and forced getters; OCI artifacts.
            ("github.com/hashicorp/foo", true, true),
            ("gitlab.com/org/repo", false, true),
            ("bitbucket.org/org/repo", false, true),
            ("s3::https://s3.amazonaws.com/bucket/foo", false, true),
            ("bucket.s3.eu-west-1.amazonaws.com/foo", false, true),
            ("www.googleapis.com/storage/v1/bucket/foo", false, true),
            ("hg::http://example.com/repo", false, true),
            ("oci://ghcr.io/org/kustomizations/base:v1", false, true),
            ("HTTPS://EXAMPLE.COM/x.yaml", false, true),
            // Local paths.
            ("../base", false, false),
            ("deployment.yaml", false, false),
            ("github/x.yaml", false, false),
            ("base//overlay", false, false),
            ("./configs/app:v1.yaml", false, false),
            ("", false, false),
        ];
        for (reference, kustomize, remote) in cases {
            assert_eq!(is_kustomize_repo_spec(reference), *kustomize, "kustomize: {reference}");
            assert_eq!(is_remote(reference), *remote, "remote: {reference}");
        }
    }
}
