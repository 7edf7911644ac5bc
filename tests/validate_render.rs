//! `render --validate`: rendered flavors validate clean against the built-in schemas (and the
//! CAPZ rules); findings go to stderr, the manifests to stdout.

use assert_cmd::Command;

fn render_validate(flavor: &str, capi: &str, create_secret: bool) -> (i32, String, String) {
    let output = Command::cargo_bin("kubectl-capz")
        .unwrap()
        .env_clear()
        .args(["render", flavor, "demo", "--kubernetes-version", "v1.33.2", "--capi-api", capi, "--validate"])
        .args(["--set", "location=westeurope", "--set", "poolDefaults.vmSize=Standard_D2s_v3"])
        .args(["--set", "asoCredentialSecret.name=demo-aso-credentials"])
        .args(["--set", &format!("asoCredentialSecret.create={create_secret}")])
        .args(["--set", "subscriptionId=00000000-0000-0000-0000-000000000000"])
        .args(["--set", "tenantId=00000000-0000-0000-0000-000000000000"])
        .args(["--set", "identity.clientId=00000000-0000-0000-0000-000000000000"])
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn aks_aso_v1beta1_renders_valid() {
    for create_secret in [false, true] {
        let (code, stdout, stderr) = render_validate("aks-aso", "v1beta1", create_secret);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("kind: AzureASOManagedControlPlane"), "manifests still go to stdout");
        assert!(!stderr.contains(": error:"), "{stderr}");
        assert!(stderr.contains(" 0 invalid, 0 skipped (0 errors"), "{stderr}");
    }
}
