//! AzureClusterIdentity fields that only some identity types take: mirrors `validateAzureClusterIdentity`
//! (internal/webhooks/azureclusteridentity_validation.go), run by `AzureClusterIdentityWebhook.ValidateCreate`
//! and `ValidateUpdate`.

use super::Sink;
use super::bundle::{At, Bundle};

pub(crate) const CLUSTER_IDENTITY: &str = "capz-cluster-identity";

/// `infrav1.UserAssignedMSI`.
const USER_ASSIGNED_MSI: &str = "UserAssignedMSI";
/// `infrav1.UserAssignedIdentityCredential`.
const USER_ASSIGNED_IDENTITY_CREDENTIAL: &str = "UserAssignedIdentityCredential";

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    if !sink.wants(&[CLUSTER_IDENTITY]) {
        return;
    }
    for (index, doc) in bundle.capz(&["AzureClusterIdentity"]) {
        let text = |field: &str| doc.value.str_at(&format!("/spec/{field}")).unwrap_or("");
        let kind = text("type");
        if kind != USER_ASSIGNED_MSI && !text("resourceID").is_empty() {
            sink.emit(
                CLUSTER_IDENTITY,
                index,
                "/spec/resourceID",
                format!("resourceID is only for type {USER_ASSIGNED_MSI}, but type is {kind:?}; remove it"),
            );
        }
        let path = text("userAssignedIdentityCredentialsPath");
        let cloud = text("userAssignedIdentityCredentialsCloudType");
        if kind != USER_ASSIGNED_IDENTITY_CREDENTIAL && (!path.is_empty() || !cloud.is_empty()) {
            // CAPZ reports both fields whichever of them is set.
            for field in ["userAssignedIdentityCredentialsPath", "userAssignedIdentityCredentialsCloudType"] {
                sink.emit(
                    CLUSTER_IDENTITY,
                    index,
                    &format!("/spec/{field}"),
                    format!(
                        "userAssignedIdentityCredentialsPath and userAssignedIdentityCredentialsCloudType can only be \
                         set when type is {USER_ASSIGNED_IDENTITY_CREDENTIAL} (type is {kind:?})"
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_of, paths};
    use super::*;

    fn identity(fields: &str) -> String {
        format!(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureClusterIdentity\nmetadata: {{name: id}}\n\
             spec:\n  clientID: c\n  tenantID: t\n{fields}"
        )
    }

    #[test]
    fn resource_id_only_with_user_assigned_msi() {
        assert!(findings_of(&identity("  type: UserAssignedMSI\n  resourceID: /x\n"), CLUSTER_IDENTITY).is_empty());
        let found = findings_of(&identity("  type: ServicePrincipal\n  resourceID: /x\n"), CLUSTER_IDENTITY);
        assert_eq!(paths(&found), ["/spec/resourceID"]);
    }

    #[test]
    fn credentials_path_only_with_identity_credential_type() {
        let ok = "  type: UserAssignedIdentityCredential\n  userAssignedIdentityCredentialsPath: /p\n";
        assert!(findings_of(&identity(ok), CLUSTER_IDENTITY).is_empty());
        let bad = "  type: WorkloadIdentity\n  userAssignedIdentityCredentialsCloudType: public\n";
        let found = findings_of(&identity(bad), CLUSTER_IDENTITY);
        let mut found = paths(&found);
        found.sort();
        assert_eq!(
            found,
            ["/spec/userAssignedIdentityCredentialsCloudType", "/spec/userAssignedIdentityCredentialsPath"]
        );
    }
}
