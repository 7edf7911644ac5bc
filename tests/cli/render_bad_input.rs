//! Every bad input of `render`/`params`: exit code 2, a message that says where, nothing on stdout.

use crate::support::cli_runner::capz;

const ENV: &[(&str, &str)] = &[
    ("CLUSTER_NAME", "demo"),
    ("KUBERNETES_VERSION", "v1.33.2"),
    ("AZURE_LOCATION", "eastus"),
    ("AZURE_NODE_MACHINE_TYPE", "Standard_D2s_v3"),
    ("ASO_CREDENTIAL_SECRET_NAME", "aso-credentials"),
];

/// Runs the binary; asserts exit 2, empty stdout, no panic; returns stderr with temp paths replaced.
fn fails(env: &[(&str, &str)], args: &[&str], dir: Option<&std::path::Path>) -> String {
    let mut cmd = capz(env);
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let output = cmd.args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "args {args:?}\nstderr: {stderr}");
    assert!(output.stdout.is_empty(), "stdout must stay empty: {}", String::from_utf8_lossy(&output.stdout));
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

fn values_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn unknown_flavor_lists_the_flavors() {
    insta::assert_snapshot!(fails(ENV, &["render", "aks-asso"], None));
    insta::assert_snapshot!("unknown_flavor_params", fails(ENV, &["params", "eks"], None));
}

#[test]
fn no_flavor() {
    insta::assert_snapshot!(fails(ENV, &["render"], None));
}

#[test]
fn malformed_values_file_gives_file_line_col() {
    let dir = values_dir(&[("bad.yaml", "clusterName: demo\npools:\n- name: a\n  labels: {x: [1, 2}\n")]);
    insta::assert_snapshot!(fails(ENV, &["render", "aks-aso", "--values", "bad.yaml"], Some(dir.path())));
    let dup = values_dir(&[("dup.yaml", "location: a\nlocation: b\n")]);
    insta::assert_snapshot!(
        "duplicate_key",
        fails(ENV, &["render", "aks-aso", "--values", "dup.yaml"], Some(dup.path()))
    );
    let list = values_dir(&[("list.yaml", "- a\n- b\n")]);
    insta::assert_snapshot!(
        "not_a_mapping",
        fails(ENV, &["render", "aks-aso", "--values", "list.yaml"], Some(list.path()))
    );
    let missing = values_dir(&[]);
    insta::assert_snapshot!(
        "missing_file",
        fails(ENV, &["render", "aks-aso", "--values", "nope.yaml"], Some(missing.path()))
    );
}

#[test]
fn unknown_parameters_get_a_did_you_mean() {
    let dir = values_dir(&[(
        "v.yaml",
        "clusterName: demo\nkubernetesVerison: v1.33.2\npools:\n- name: sys\n  mode: System\n  vmsize: Standard_D2s_v3\n  lables: {a: b}\nAZURE_LOCATION: eastus\n",
    )]);
    insta::assert_snapshot!(fails(
        ENV,
        &["render", "aks-aso", "--values", "v.yaml", "--set", "netwrok.plugin=azure"],
        Some(dir.path())
    ));
}

#[test]
fn wrong_types_name_the_path_and_the_source() {
    let dir = values_dir(&[(
        "v.yaml",
        "# comment\npoolDefaults:\n  replicas: three\npools:\n- name: sys\n  mode: system\n  zones: 1\n",
    )]);
    insta::assert_snapshot!(fails(
        ENV,
        &["render", "aks-aso", "--values", "v.yaml", "--set", "maintenance.enabled=maybe"],
        Some(dir.path())
    ));
    // A value from the environment is named by its variable and not echoed.
    insta::assert_snapshot!(
        "wrong_type_from_env",
        fails(&[ENV, &[("WORKER_MACHINE_COUNT", "secret-looking-value")]].concat(), &["render", "aks-aso"], None)
    );
}

#[test]
fn all_missing_required_parameters_at_once_with_env_aliases() {
    insta::assert_snapshot!(fails(&[], &["render", "aks"], None));
    insta::assert_snapshot!(
        "missing_aks_aso_with_secret",
        fails(&[], &["render", "aks-aso", "--set", "asoCredentialSecret.create=true"], None)
    );
}

#[test]
fn system_pool_with_zero_replicas() {
    insta::assert_snapshot!(fails(ENV, &["render", "aks-aso", "--set", "pools[0].replicas=0"], None));
    // clusterctl's default WORKER_MACHINE_COUNT=0 would do the same to the System pool.
    insta::assert_snapshot!(
        "system_pool_zero_from_env",
        fails(&[ENV, &[("WORKER_MACHINE_COUNT", "0")]].concat(), &["render", "aks-aso"], None)
    );
}

#[test]
fn invalid_pool_names() {
    insta::assert_snapshot!(fails(
        ENV,
        &[
            "render",
            "aks-aso",
            "--set",
            "pools[0].name=Pool_0",
            "--set",
            "pools[1].name=averyverylongname",
            "--set",
            "pools[2]={name: win1234, osType: Windows}",
            "--set",
            "pools[3]={name: extra}",
            "--set",
            "pools[4]={name: extra}"
        ],
        None
    ));
}

#[test]
fn non_semver_kubernetes_version() {
    insta::assert_snapshot!(fails(ENV, &["render", "aks-aso", "--kubernetes-version", "1.33"], None));
    insta::assert_snapshot!(
        "version_from_env",
        fails(&[ENV, &[("KUBERNETES_VERSION", "latest")]].concat(), &["render", "aks-aso"], None)
    );
}

#[test]
fn invalid_names_and_namespace() {
    insta::assert_snapshot!(fails(ENV, &["render", "aks-aso", "Demo_Cluster", "-n", "Team.A"], None));
}

#[test]
fn parameters_a_flavor_does_not_use() {
    insta::assert_snapshot!(fails(
        ENV,
        &[
            "render",
            "aks",
            "--set",
            "managedCluster.spec.sku.tier=Standard",
            "--set",
            "pools[0].osSku=AzureLinux",
            "--set",
            "identity.name=x",
            "--set",
            "identity.clientId=y",
            "--set",
            "subscriptionId=s",
            "--set",
            "tenantId=t"
        ],
        None
    ));
}

#[test]
fn malformed_set_arguments() {
    insta::assert_snapshot!(fails(ENV, &["render", "aks-aso", "--set", "clusterName"], None));
    insta::assert_snapshot!("set_bad_path", fails(ENV, &["render", "aks-aso", "--set", "pools[x].name=a"], None));
    insta::assert_snapshot!("set_past_end", fails(ENV, &["render", "aks-aso", "--set", "pools[4].name=a"], None));
    insta::assert_snapshot!(
        "set_bad_yaml",
        fails(ENV, &["render", "aks-aso", "--set", "pools[0].labels={a: [}"], None)
    );
}

#[test]
fn autoscaling_bounds() {
    insta::assert_snapshot!(fails(
        ENV,
        &[
            "render",
            "aks-aso",
            "--set",
            "pools[1].autoscaling={minCount: 5, maxCount: 3}",
            "--set",
            "pools[0].autoscaling={minCount: 3, maxCount: 5}",
            "--set",
            "pools[0].replicas=1"
        ],
        None
    ));
}

#[test]
fn template_errors_name_the_template_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let flavor = dir.path().join("broken");
    std::fs::create_dir_all(&flavor).unwrap();
    std::fs::write(flavor.join("flavor.yaml"), "description: broken on purpose\n").unwrap();
    std::fs::write(flavor.join("a.yaml.j2"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ params.clusterName }}\ndata:\n  x: {{ params.noSuchParameter }}\n").unwrap();
    let stderr = fails(ENV, &["render", "broken", "--flavor-dir", "."], Some(dir.path()));
    insta::assert_snapshot!(stderr);
    std::fs::write(
        flavor.join("a.yaml.j2"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ params.clusterName }}\n  labels: {a: [\n",
    )
    .unwrap();
    insta::assert_snapshot!(
        "template_renders_bad_yaml",
        fails(ENV, &["render", "broken", "--flavor-dir", "."], Some(dir.path()))
    );
    std::fs::write(flavor.join("a.yaml.j2"), "apiVersion: v1\n{% for x in %}\n").unwrap();
    insta::assert_snapshot!(
        "template_syntax_error",
        fails(ENV, &["render", "broken", "--flavor-dir", "."], Some(dir.path()))
    );
    std::fs::write(flavor.join("flavor.yaml"), "description: x\nrequird: []\n").unwrap();
    insta::assert_snapshot!(
        "bad_flavor_yaml",
        fails(ENV, &["render", "broken", "--flavor-dir", "."], Some(dir.path()))
    );
}

#[test]
fn overlay_that_is_not_a_mapping() {
    insta::assert_snapshot!(fails(ENV, &["render", "aks-aso", "--set", "managedCluster=[1]"], None));
}

#[test]
fn bad_input_never_leaves_an_out_dir() {
    let dir = tempfile::tempdir().unwrap();
    fails(ENV, &["render", "aks-aso", "--set", "pools[0].replicas=0", "--out-dir", "out"], Some(dir.path()));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn counts_above_int32_name_the_parameter() {
    // The API fields are int32: anything above 2147483647 is rejected where it is set.
    for (set, path) in [
        ("pools[0].replicas=4294967296", "pools[0].replicas"),
        ("pools[0].replicas=2147483648", "pools[0].replicas"),
        ("poolDefaults.replicas=99999999999999999999", "poolDefaults.replicas"),
        ("pools[0].autoscaling.maxCount=4294967295", "pools[0].autoscaling.maxCount"),
    ] {
        let stderr = fails(ENV, &["render", "aks-aso", "--set", set, "--set", "pools[0].autoscaling.minCount=1"], None);
        assert!(stderr.contains(path), "{set}: {stderr}");
        assert!(!stderr.contains("internal error"), "{set}: {stderr}");
    }
    let stderr = fails(ENV, &["render", "aks-aso", "--set", "pools[0].replicas=4294967296"], None);
    insta::assert_snapshot!("replicas_above_int32", stderr);
    // The largest int32 is accepted.
    let output = capz(ENV).args(["render", "aks-aso", "--set", "pools[0].replicas=2147483647"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn input_files_over_the_size_limit_are_refused_naming_the_file_and_the_limit() {
    let dir = values_dir(&[]);
    for name in ["big.yaml", "fleet.yaml", "template.yaml"] {
        let file = std::fs::File::create(dir.path().join(name)).unwrap();
        file.set_len(16 * 1024 * 1024 + 1).unwrap();
    }
    let limit = "the file is 16.1 MiB, over the limit of 16 MiB for an input file (the API server accepts at most \
                 3 MiB per object)";
    for (args, file) in [
        (&["render", "aks-aso", "--values", "big.yaml"][..], "big.yaml"),
        (&["render", "--fleet", "fleet.yaml", "--out-dir", "out"][..], "fleet.yaml"),
        (&["render", "--from", "template.yaml", "demo"][..], "template.yaml"),
    ] {
        let stderr = fails(ENV, args, Some(dir.path()));
        assert!(stderr.contains(file) && stderr.contains(limit), "{args:?}: {stderr}");
    }
    assert!(!dir.path().join("out").exists());
}
