//! docs/rules.md is generated from `capz::lint::rules()`; this test fails when it is stale.
//! Regenerate with `UPDATE_RULES_DOC=1 cargo test --test tooling lint_rules_doc`.

use capz::lint::rules;
use capz::report::Severity;

const PATH: &str = "docs/rules.md";

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
        Severity::NotChecked => "not-checked",
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn render() -> String {
    let mut out = String::from(
        "# Rules of `kubectl capz validate`\n\n\
         Generated from `capz::lint::rules()` by `tests/tooling/lint_rules_doc.rs`; do not edit by hand.\n\n\
         Each rule reproduces, offline and across the whole bundle, a rejection that comes later: from CAPZ's \
         admission webhooks (at create, or at CAPI's first update right after it), from CAPZ's mutators or from AKS, \
         ASO or CAPI at reconcile. The id says who rejects: `capz-*` CAPZ's webhook or mutator, `aks-*` the AKS API, \
         `aso-*` Azure Service Operator, `capi-*` Cluster API, `clusterctl-*` clusterctl, `gitops-*` a GitOps controller's prune (a change review, \
         `diff --base`). `--disable RULE` turns a \
         rule off, `--enable RULE` turns on a rule that is off by default (former ids such as \
         `capz-system-pool-required` still work). Only `error` findings make `validate` exit 1.\n\n\
         Admission order for CAPZ kinds, as `validate` runs it: the CRD's structural defaults, CAPZ's defaulting \
         webhook (`Default()`: virtual network and subnet names and CIDRs, SSH key, the `v` of the version, \
         `spec.name` of pools, and the zero values its Go round trip writes back), then the CRD schema, then the \
         rules below. A field CAPZ's defaulting fills is not a \"required\" schema error. For CAPI kinds, the \
         required fields CAPI's defaulting webhooks fill are filled the same way (a MachineDeployment's or \
         MachineSet's `spec.selector`, the `rollout.strategy.type` of a v1beta2 MachineDeployment and \
         KubeadmControlPlane); nothing else of CAPI's webhooks is modelled there.\n\n\
         CAPZ checks gated on the `cluster.x-k8s.io/cluster-name` label run at create only if the manifest carries \
         the label; otherwise CAPI's controllers add it right after creation and CAPZ rejects that first update: \
         those findings say \"rejected at CAPI's first update (label cluster.x-k8s.io/cluster-name)\".\n\n\
         Cross-object rules match objects by namespace and name; an object without `metadata.namespace` matches any \
         namespace (it lands wherever the apply puts it).\n\n\
         | id | severity | default | rejected by | mirrors | what it checks |\n|---|---|---|---|---|---|\n",
    );
    for rule in rules() {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            rule.id,
            severity(rule.severity),
            if rule.enabled_by_default { "on" } else { "off" },
            cell(rule.rejected_by.describe()),
            cell(rule.mirrors),
            cell(rule.summary),
        ));
    }
    out.push_str(
        "\n## Rules of the reader and the schema checks\n\n\
         Every finding of these is an error unless said otherwise. Text that cannot be read into objects \
         (`yaml-syntax`, `yaml-duplicate-key`, `not-an-object`) is reported at file:line:col and validation goes \
         on with every other document and file; these rules and `schema-missing` cannot be disabled.\n\n\
         Kinds are judged per kind, as the API server answers from each kind's own CRD. A kind the target's releases \
         define (CAPZ's, its CAPI release's: core, addons, ipam, runtime and the kubeadm bootstrap and control plane \
         providers, the Cluster API Operator's providers, and ASO's kinds CAPZ installs) is checked against the \
         schema of its version, and a version its CRD does not serve is an `api-version` error naming the versions \
         it serves. Another provider's kind in a Cluster API group the target shares (CAPA's \
         `AWSManagedMachinePool`, CAPD's `DockerCluster`, the in-cluster IPAM provider's `InClusterIPPool`, \
         Talos's `TalosConfigTemplate`, in any version) is not the target's to judge: `schema-missing`, a warning \
         saying its CRD is not bundled (nothing with `--ignore-missing-schemas`; checked with `--crds DIR`). CAPZ's \
         self-managed VM kinds (`AzureCluster`, `AzureMachineTemplate`, ...) are CAPZ's but their schemas are not \
         bundled (their CRDs need CAPZ's defaulting webhooks): an unserved version is an error, a served one a \
         `schema-missing` warning. An ASO kind is checked only when CAPZ's `--crd-pattern`, widened by the \
         `ADDITIONAL_ASO_CRDS` the inputs set (docs/config.md), makes ASO install its CRD; the bundled ones \
         beyond CAPZ's pattern are `managedidentity.azure.com` UserAssignedIdentity and \
         FederatedIdentityCredential and `authorization.azure.com` RoleAssignment.\n\n\
         | id | what it checks |\n|---|---|\n",
    );
    for (id, summary) in capz::manifest::READ_RULES.iter().chain(capz::schema::validate::RULES) {
        out.push_str(&format!("| `{id}` | {} |\n", cell(summary)));
    }
    out.push_str(
        "\n## Rules of repository mode and of suppressions\n\n\
         What reading a repository finds (docs/repositories.md), and mistakes in suppressions.\n\n\
         | id | what it checks |\n|---|---|\n",
    );
    for (id, summary) in capz::validate::REPOSITORY_RULES {
        out.push_str(&format!("| `{id}` | {} |\n", cell(summary)));
    }
    out.push_str(SUPPRESSIONS);
    out.push_str(KEPT_DIFFERENCES);
    out
}

/// How to suppress a finding in the repository (kept with the generated table).
const SUPPRESSIONS: &str = include_str!("lint_rules_doc_suppressions.md");

/// Where `validate` knowingly differs from CAPZ's webhooks, and why (kept with the generated table).
const KEPT_DIFFERENCES: &str = include_str!("lint_rules_doc_differences.md");

#[test]
fn rules_doc_is_up_to_date() {
    let expected = render();
    if std::env::var_os("UPDATE_RULES_DOC").is_some() {
        std::fs::create_dir_all("docs").unwrap();
        std::fs::write(PATH, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        actual == expected,
        "{PATH} is stale; regenerate it with `UPDATE_RULES_DOC=1 cargo test --test tooling lint_rules_doc`"
    );
}

#[test]
fn every_rule_is_in_the_doc() {
    let doc = render();
    for rule in rules() {
        assert!(doc.contains(&format!("| `{}` |", rule.id)), "{} missing", rule.id);
    }
    for (id, _) in capz::validate::REPOSITORY_RULES {
        assert!(doc.contains(&format!("| `{id}` |")), "{id} missing");
    }
    assert!(doc.contains("# kubectl-capz: ignore") && doc.contains(capz::validate::IGNORE_ANNOTATION));
}
