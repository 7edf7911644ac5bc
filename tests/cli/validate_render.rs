//! `render --validate`: rendered flavors validate clean against the built-in schemas (and the
//! CAPZ rules); findings go to stderr, the manifests to stdout.

use crate::support::cli_runner::capz_command;

fn render_validate(flavor: &str, capi: &str, create_secret: bool) -> (i32, String, String) {
    let output = capz_command()
        .env_clear()
        .args(["render", flavor, "demo", "--kubernetes-version", "v1.33.2", "--capi-api", capi, "--validate"])
        .args(["--set", "location=westeurope", "--set", "poolDefaults.vmSize=Standard_D2s_v3"])
        .args(["--set", "subscriptionId=00000000-0000-0000-0000-000000000000"])
        .args(["--set", "tenantId=00000000-0000-0000-0000-000000000000"])
        .args(["--set", "identity.clientId=00000000-0000-0000-0000-000000000000"])
        .args(if flavor == "aks" {
            vec!["--set".to_owned(), "identity.name=demo-identity".to_owned()]
        } else {
            vec![
                "--set".to_owned(),
                "asoCredentialSecret.name=demo-aso-credentials".to_owned(),
                "--set".to_owned(),
                format!("asoCredentialSecret.create={create_secret}"),
            ]
        })
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

/// Both flavors validate clean in both CAPI API versions. Under v1beta2 CAPI declares
/// `MachinePool.spec.template.metadata` with `minProperties: 1`, so an empty `metadata: {}` (what CAPZ's
/// v1beta1 templates carry) must not be rendered there.
#[test]
fn flavors_render_valid_in_both_capi_versions() {
    for flavor in ["aks", "aks-aso"] {
        for capi in ["v1beta1", "v1beta2"] {
            let (code, stdout, stderr) = render_validate(flavor, capi, true);
            assert_eq!(code, 0, "{flavor} {capi}:\n{stderr}");
            assert!(!stderr.contains(": error:"), "{flavor} {capi}:\n{stderr}");
            assert!(stdout.contains("kind: MachinePool\n"), "{flavor} {capi}: no MachinePool rendered");
            assert_eq!(
                stdout.contains("    metadata: {}\n"),
                capi == "v1beta1",
                "{flavor} {capi}: empty MachinePool template metadata only in v1beta1:\n{stdout}"
            );
        }
    }
}

/// `render --validate` findings point at lines of the printed YAML.
#[test]
fn findings_name_lines_of_the_rendered_output() {
    let output = capz_command()
        .env_clear()
        .args(["render", "aks-aso", "demo", "--kubernetes-version", "v1.33.2", "--validate"])
        .args([
            "--set",
            "location=westeurope",
            "--set",
            "asoCredentialSecret.name=aso",
            "--set",
            "poolDefaults.vmSize=Standard_D2s_v3",
        ])
        .args(["--set", "managedCluster.spec.bogusField=1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    let line = stdout.lines().position(|l| l.trim_start().starts_with("bogusField:")).expect("overlay rendered") + 1;
    assert!(
        stderr.contains(&format!(
            "<rendered>:{line}: error: AzureASOManagedControlPlane/demo: /spec/resources/0/spec/bogusField"
        )),
        "{stderr}"
    );
}
