//! Credentials: the ASO `credential-from` Secret, `userCredentials` vs CAPZ's kubeconfig Secret
//! (mirrors `setManagedClusterCredentials`, pkg/mutators/azureasomanagedcontrolplane.go) and the generated
//! SSH key (mirrors `SetDefaultAzureManagedControlPlaneSSHPublicKey`, internal/api/v1beta1/azuremanagedcontrolplane_default.go).
//! A credential Secret in the bundle must hold the keys ASO reads (`newCredentialFromSecret`,
//! v2/internal/identity/credential_provider.go) and should carry clusterctl's move label.

use serde_json::Value;

use super::Sink;
use super::bundle::{AsoObject, At, Bundle, CONTAINERSERVICE_GROUP, CREDENTIAL_FROM};
use super::ssh_key::{go_std_base64, is_authorized_key};
use crate::json_pointer::escape_token;

pub(crate) const CREDENTIAL_SECRET: &str = "aso-credential-secret";
pub(crate) const USER_CREDENTIALS_NAME: &str = "aso-user-credentials-name";
pub(crate) const EMPTY_SSH_KEY: &str = "capz-empty-ssh-key";
pub(crate) const CREDENTIAL_SECRET_KEYS: &str = "aso-credential-secret-keys";
pub(crate) const CREDENTIAL_SECRET_MOVE: &str = "clusterctl-credential-secret-move";
pub(crate) const SSH_PUBLIC_KEY: &str = "capz-ssh-public-key";

/// The keys ASO requires in a credential Secret; the rest (client secret, certificate, pod identity) is optional,
/// without them ASO uses workload identity.
const REQUIRED_KEYS: [&str; 3] = ["AZURE_SUBSCRIPTION_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_ID"];

/// clusterctl's `ClusterctlMoveLabel`: `clusterctl move` takes Secrets nothing in the Cluster's object graph owns
/// only when they carry it.
const MOVE_LABEL: &str = "clusterctl.cluster.x-k8s.io/move";

/// Keys and move label of a credential Secret that is in the bundle.
fn check_secret_content(bundle: &Bundle<'_>, index: usize, sink: &mut Sink<'_>) {
    let doc = &bundle.docs[index];
    let has_key = |key: &str| {
        ["data", "stringData"].into_iter().any(|field| doc.value.get(field).and_then(|map| map.get(key)).is_some())
    };
    let missing: Vec<&str> = REQUIRED_KEYS.into_iter().filter(|key| !has_key(key)).collect();
    if !missing.is_empty() {
        let pointer = ["/data", "/stringData"]
            .into_iter()
            .find(|pointer| doc.value.at(pointer).is_some())
            .unwrap_or("/metadata/name");
        sink.emit(
            CREDENTIAL_SECRET_KEYS,
            index,
            pointer,
            format!(
                "ASO credential Secret {:?} lacks {}; ASO fails with \"credential Secret ... does not contain key\" for \
                 every resource that uses it. Add them (data or stringData)",
                doc.name(),
                missing.join(", ")
            ),
        );
    }
    let labelled = doc.value.at("/metadata/labels").and_then(|labels| labels.get(MOVE_LABEL)).is_some();
    if !labelled {
        sink.emit(
            CREDENTIAL_SECRET_MOVE,
            index,
            "/metadata/name",
            format!(
                "ASO credential Secret {:?} has no {MOVE_LABEL} label, so clusterctl move leaves it behind and ASO on the \
                 target cluster reports \"credential secret not found\"; add the label (any value, e.g. \"\")",
                doc.name()
            ),
        );
    }
}

/// A credential Secret: its name and the namespace it is looked up in.
type SecretKey<'a> = (&'a str, Option<&'a str>);

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if sink.wants(&[CREDENTIAL_SECRET, CREDENTIAL_SECRET_KEYS, CREDENTIAL_SECRET_MOVE]) {
        check_credential_secrets(bundle, sink);
    }
    if sink.wants(&[USER_CREDENTIALS_NAME]) {
        check_user_credentials_names(bundle, sink);
    }
    if sink.wants(&[SSH_PUBLIC_KEY]) {
        check_ssh_public_keys(bundle, sink);
    }
    if sink.wants(&[EMPTY_SSH_KEY]) {
        check_empty_ssh_keys(bundle, sink);
    }
}

/// Each ASO object's credential Secret: its content and move label when it is in the bundle, else a finding for
/// each missing one.
fn check_credential_secrets(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    // One finding per missing Secret (at its first user), naming every object that uses it.
    let mut missing: Vec<(SecretKey<'_>, Vec<&AsoObject<'_>>)> = Vec::new();
    for object in bundle.aso_objects() {
        let Some(secret) = object.annotation(CREDENTIAL_FROM).and_then(Value::as_str).filter(|s| !s.is_empty()) else {
            continue;
        };
        let namespace = bundle.namespace_of(object);
        let found = bundle.find_named("Secret", secret, namespace, |index| bundle.docs[index].api_version() == "v1");
        if let Some(index) = found {
            check_secret_content(bundle, index, sink);
        } else {
            match missing.iter_mut().find(|(key, _)| *key == (secret, namespace)) {
                Some((_, users)) => users.push(object),
                None => missing.push(((secret, namespace), vec![object])),
            }
        }
    }
    for ((secret, namespace), users) in missing {
        let where_ = namespace.map(|ns| format!(" in namespace {ns:?}")).unwrap_or_default();
        // The same object written in two files of a repository is named once.
        let mut names: Vec<String> = Vec::new();
        for name in users.iter().map(|o| format!("{}/{}", o.kind(), o.name())) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let first = users[0];
        sink.emit(
            CREDENTIAL_SECRET,
            first.doc,
            &first.pointer(&format!("/metadata/annotations/{}", escape_token(CREDENTIAL_FROM))),
            format!(
                "credential Secret {secret:?}{where_} is not in the bundle; ASO reports \"credential secret \
                 not found\" for {} unless it exists in the same namespace (keys AZURE_SUBSCRIPTION_ID, \
                 AZURE_TENANT_ID, AZURE_CLIENT_ID, AUTH_MODE). Add it, or make sure it is applied separately",
                names.join(", ")
            ),
        );
    }
}

/// A ManagedCluster's userCredentials Secret must not take the name CAPZ writes the Cluster's kubeconfig to.
fn check_user_credentials_names(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    for (index, _) in bundle.capz(&["AzureASOManagedControlPlane"]) {
        let Some(cluster_name) = bundle.cluster_name_of_control_plane(index) else {
            continue;
        };
        let reserved = format!("{cluster_name}-kubeconfig");
        for object in bundle.embedded(index) {
            if !object.is(CONTAINERSERVICE_GROUP, "ManagedCluster") {
                continue;
            }
            let pointer = "/spec/operatorSpec/secrets/userCredentials/name";
            if object.value.str_at(pointer) == Some(reserved.as_str()) {
                sink.emit(
                    USER_CREDENTIALS_NAME,
                    index,
                    &object.pointer(pointer),
                    format!(
                        "userCredentials is named {reserved:?}, the Secret CAPZ itself writes the Cluster's \
                         kubeconfig to; both would fight over it. Name it e.g. \"{cluster_name}-user-kubeconfig\""
                    ),
                );
            }
        }
    }
}

/// An AzureManagedControlPlane's sshPublicKey: base64 of an OpenSSH public key line.
fn check_ssh_public_keys(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    let parser = &sink.selection.target().ssh_key_parser;
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane"]) {
        let Some(key) = doc.value.at("/spec/sshPublicKey").and_then(Value::as_str).filter(|key| !key.is_empty()) else {
            continue;
        };
        let problem = match go_std_base64(key) {
            None if is_authorized_key(key, parser) => Some(
                "sshPublicKey is a plain OpenSSH public key, but CAPZ expects it base64-encoded (as \
                 AZURE_SSH_PUBLIC_KEY_B64: `base64 -w0 < key.pub`)",
            ),
            None => Some("sshPublicKey is not properly base64 encoded; CAPZ's webhook rejects it"),
            Some(decoded) if !is_authorized_key(&String::from_utf8_lossy(&decoded), parser) => Some(
                "sshPublicKey decodes, but not to an OpenSSH public key line (`ssh-rsa AAAA... comment`); CAPZ's \
                 webhook rejects it",
            ),
            Some(_) => None,
        };
        if let Some(problem) = problem {
            sink.emit(SSH_PUBLIC_KEY, index, "/spec/sshPublicKey", problem.to_string());
        }
    }
}

/// An empty sshPublicKey, which CAPZ's webhook replaces with a random immutable key.
fn check_empty_ssh_keys(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    for (index, doc) in bundle.capz(&["AzureManagedControlPlane"]) {
        if doc.value.at("/spec/sshPublicKey").and_then(Value::as_str) == Some("") {
            sink.emit(
                EMPTY_SSH_KEY,
                index,
                "/spec/sshPublicKey",
                "sshPublicKey is \"\": CAPZ's webhook generates a random key and the field is immutable, so this \
                 manifest can never be re-applied unchanged. Set a base64 public key, or remove the field for no key"
                    .to_string(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, findings_of, ids};
    use super::*;

    const ACP: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c1, namespace: default}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedControlPlane, name: cp}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: cp, namespace: default}
spec:
  version: v1.33.2
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata:
      name: c1
      annotations: {serviceoperator.azure.com/credential-from: aso-creds}
    spec:
      operatorSpec:
        secrets:
          userCredentials: {name: USERCREDS, key: value}
";

    const SECRET: &str = "---
apiVersion: v1
kind: Secret
metadata: {name: aso-creds, namespace: NS}
stringData: {AUTH_MODE: workloadidentity}
";

    #[test]
    fn credential_secret_must_be_in_the_namespace() {
        let base = ACP.replace("USERCREDS", "c1-user-kubeconfig");
        let found = findings_of(&base, CREDENTIAL_SECRET);
        assert_eq!(ids(&found), [CREDENTIAL_SECRET]);
        assert_eq!(found[0].path, "/spec/resources/0/metadata/annotations/serviceoperator.azure.com~1credential-from");
        assert_eq!(found[0].line, 17);
        assert!(findings_of(&format!("{base}{}", SECRET.replace("NS", "default")), CREDENTIAL_SECRET).is_empty());
        assert_eq!(findings_of(&format!("{base}{}", SECRET.replace("NS", "other")), CREDENTIAL_SECRET).len(), 1);
    }

    #[test]
    fn one_finding_per_missing_secret_names_every_object_that_uses_it() {
        let base = ACP.replace("USERCREDS", "c1-user-kubeconfig");
        let others = "---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedCluster
metadata: {name: c1, namespace: default}
spec:
  resources:
  - apiVersion: resources.azure.com/v1api20200601
    kind: ResourceGroup
    metadata:
      name: rg
      annotations: {serviceoperator.azure.com/credential-from: aso-creds}
  - apiVersion: network.azure.com/v1api20201101
    kind: VirtualNetwork
    metadata:
      name: vnet
      annotations: {serviceoperator.azure.com/credential-from: other-creds}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: pool0, namespace: default}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata:
      name: pool0
      annotations: {serviceoperator.azure.com/credential-from: aso-creds}
";
        let found = findings_of(&format!("{base}{others}"), CREDENTIAL_SECRET);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].line, 17, "at the first user");
        assert!(
            found[0].message.contains("for ManagedCluster/c1, ResourceGroup/rg, ManagedClustersAgentPool/pool0 unless"),
            "{}",
            found[0].message
        );
        assert!(found[1].message.contains("\"other-creds\"") && found[1].message.contains("for VirtualNetwork/vnet"));
        let with_secret = format!("{base}{others}{}", SECRET.replace("NS", "default"));
        let found = findings_of(&with_secret, CREDENTIAL_SECRET);
        assert_eq!(found.len(), 1, "{found:?}");
    }

    #[test]
    fn user_credentials_must_not_take_the_kubeconfig_name() {
        assert!(findings_of(&ACP.replace("USERCREDS", "c1-user-kubeconfig"), USER_CREDENTIALS_NAME).is_empty());
        // The Cluster's name counts, not the control plane's.
        assert!(findings_of(&ACP.replace("USERCREDS", "cp-kubeconfig"), USER_CREDENTIALS_NAME).is_empty());
        let found = findings_of(&ACP.replace("USERCREDS", "c1-kubeconfig"), USER_CREDENTIALS_NAME);
        assert_eq!(ids(&found), [USER_CREDENTIALS_NAME]);
        assert_eq!(found[0].path, "/spec/resources/0/spec/operatorSpec/secrets/userCredentials/name");
    }

    #[test]
    fn cluster_name_label_is_the_fallback() {
        let alone = ACP.split("---\n").nth(1).unwrap().replace("USERCREDS", "c9-kubeconfig");
        assert!(findings_of(&alone, USER_CREDENTIALS_NAME).is_empty(), "no Cluster, no label: unknown");
        let labelled = alone.replace(
            "{name: cp, namespace: default}",
            "{name: cp, namespace: default, labels: {cluster.x-k8s.io/cluster-name: c9}}",
        );
        assert_eq!(findings_of(&labelled, USER_CREDENTIALS_NAME).len(), 1);
    }

    #[test]
    fn empty_ssh_key_warns_but_absent_or_set_does_not() {
        let amcp = |key: &str| {
            format!(
                "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlane\nmetadata: {{name: c1}}\nspec:\n  version: v1.33.2\n{key}"
            )
        };
        let found = findings_of(&amcp("  sshPublicKey: \"\"\n"), EMPTY_SSH_KEY);
        assert_eq!(ids(&found), [EMPTY_SSH_KEY]);
        assert_eq!(found[0].severity, crate::report::Severity::Warning);
        assert!(findings_of(&amcp(""), EMPTY_SSH_KEY).is_empty());
        assert!(findings_of(&amcp("  sshPublicKey: c3NoLXJzYSBBQUFB\n"), EMPTY_SSH_KEY).is_empty());
    }

    #[test]
    fn credential_secret_in_the_bundle_needs_asos_keys_and_the_move_label() {
        let secret = |data: &str, labels: &str| {
            format!(
                "{}---\napiVersion: v1\nkind: Secret\nmetadata: {{name: aso-creds, namespace: default{labels}}}\n{data}\n",
                ACP.replace("USERCREDS", "c1-user-kubeconfig")
            )
        };
        let move_label = ", labels: {clusterctl.cluster.x-k8s.io/move: \"\"}";
        let full = "stringData: {AZURE_SUBSCRIPTION_ID: s, AZURE_TENANT_ID: t, AZURE_CLIENT_ID: c, AUTH_MODE: workloadidentity}";
        let rules = [CREDENTIAL_SECRET, CREDENTIAL_SECRET_KEYS, CREDENTIAL_SECRET_MOVE];
        assert!(findings_among(&secret(full, move_label), &rules).is_empty());
        // data and stringData both count (the API server merges stringData into data).
        let split = "data: {AZURE_SUBSCRIPTION_ID: cw==}\nstringData: {AZURE_TENANT_ID: t, AZURE_CLIENT_ID: c}";
        assert!(findings_among(&secret(split, move_label), &rules).is_empty());

        let found = findings_among(&secret("stringData: {AZURE_CLIENT_ID: c}", move_label), &rules);
        assert_eq!(ids(&found), [CREDENTIAL_SECRET_KEYS]);
        assert_eq!((found[0].object.as_str(), found[0].path.as_str()), ("Secret/aso-creds", "/stringData"));
        assert!(found[0].message.contains("lacks AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID;"), "{}", found[0].message);

        let unlabelled = findings_among(&secret(full, ""), &rules);
        assert_eq!(ids(&unlabelled), [CREDENTIAL_SECRET_MOVE]);
        assert_eq!(unlabelled[0].severity, crate::report::Severity::Warning);
    }

    #[test]
    fn ssh_public_key_must_be_a_base64_authorized_key() {
        use base64::Engine as _;
        let amcp = |key: &str| {
            format!(
                "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlane\nmetadata: {{name: c1}}\nspec:\n  version: v1.33.2\n  sshPublicKey: \"{key}\"\n"
            )
        };
        // A real-shaped ed25519 key: string "ssh-ed25519" + 32-byte key.
        let mut blob = Vec::new();
        blob.extend_from_slice(&11u32.to_be_bytes());
        blob.extend_from_slice(b"ssh-ed25519");
        blob.extend_from_slice(&32u32.to_be_bytes());
        blob.extend_from_slice(&[7u8; 32]);
        let line = format!("ssh-ed25519 {} me@host", base64::engine::general_purpose::STANDARD.encode(&blob));
        let b64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
        assert!(findings_of(&amcp(&b64(&line)), SSH_PUBLIC_KEY).is_empty());
        assert!(findings_of(&amcp(&b64(&format!("{line}\n"))), SSH_PUBLIC_KEY).is_empty());

        let raw = findings_of(&amcp(&line), SSH_PUBLIC_KEY);
        assert_eq!(ids(&raw), [SSH_PUBLIC_KEY]);
        assert!(raw[0].message.contains("plain OpenSSH public key"), "{}", raw[0].message);
        assert!(findings_of(&amcp("not base64!"), SSH_PUBLIC_KEY)[0].message.contains("not properly base64"));
        let garbled = line.replacen("AAAAC3", "AAAAC4", 1);
        let found = findings_of(&amcp(&b64(&garbled)), SSH_PUBLIC_KEY);
        assert!(found[0].message.contains("not to an OpenSSH public key line"), "{}", found[0].message);
        assert!(findings_of(&amcp(""), SSH_PUBLIC_KEY).is_empty(), "empty is capz-empty-ssh-key's");
    }
}
