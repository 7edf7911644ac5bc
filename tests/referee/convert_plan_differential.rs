//! Differential test of `convert` against CAPI's admission as `plan` runs it: over every file in
//! tests/ that holds a ClusterClass, converting to v1beta2 never turns a class (and its topology
//! Clusters) that CAPI accepts into one it rejects. A class's template references, the patch
//! selectors that match them and the Clusters' plans are judged by the same code `plan` uses
//! (`capz::topology::admission`, `capz::topology::plan_all`).

use std::path::{Path, PathBuf};

use capz::convert::TargetVersion;
use capz::convert::files::{SourceFile, convert_files};
use capz::manifest::{Document, parse_documents};
use capz::topology::{TopologyError, admission, plan_all};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// CAPI's verdict on the bundle: every ClusterClass admitted, every topology Cluster planned.
fn verdict(documents: &[Document]) -> Result<(), String> {
    for class in documents.iter().filter(|d| d.kind() == "ClusterClass" && d.group() == "cluster.x-k8s.io") {
        let rejections = admission::class_rejections(&class.value);
        if !rejections.is_empty() {
            let messages: Vec<String> = rejections.into_iter().map(|r| r.message).collect();
            return Err(format!("ClusterClass {}: {}", class.name(), messages.join("; ")));
        }
    }
    match plan_all(documents) {
        Ok(_) | Err(TopologyError::NoTopologyCluster) => Ok(()),
        Err(err) => Err(err.to_string()),
    }
}

/// The files of tests/ with a ClusterClass: (path, text).
fn class_files() -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    yaml_files(Path::new("tests"), &mut files);
    files
        .into_iter()
        .filter_map(|path| Some((path.clone(), std::fs::read_to_string(&path).ok()?)))
        .filter(|(path, text)| text.contains("kind: ClusterClass") && !path.starts_with("tests/fixtures/crds"))
        .collect()
}

#[test]
fn convert_never_turns_an_accepted_class_into_a_rejected_one() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (path, text) in class_files() {
        let name = path.display().to_string();
        let Ok(before) = parse_documents(&text, &name) else { continue };
        if verdict(&before).is_err() {
            continue;
        }
        let source = SourceFile { name: name.clone(), text: text.clone(), kustomize_patch: false, not_utf8: false };
        let outcome =
            convert_files(std::slice::from_ref(&source), &capz::convert::Mode::Capi(TargetVersion::V1beta2)).remove(0);
        let converted = outcome.text(&source);
        let after = parse_documents(converted, &name).unwrap_or_else(|e| panic!("{name}: converted text: {e}"));
        checked += 1;
        if let Err(rejection) = verdict(&after) {
            failures.push(format!("{name}: accepted before `convert`, rejected after:\n  {rejection}"));
        }
    }
    assert!(checked >= 20, "only {checked} accepted ClusterClass files found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Our own examples of the class of defect: selectors of every kind of match (a worker class by
/// name and by wildcard, the control plane, the infrastructure cluster) over references converted
/// in the run, next to references that are not.
const CLASS: &str = "apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata:
  name: kubeadm
  namespace: default
spec:
  controlPlane:
    ref:
      apiVersion: controlplane.cluster.x-k8s.io/v1beta1
      kind: KubeadmControlPlaneTemplate
      name: cp
    machineInfrastructure:
      ref:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureMachineTemplate
        name: cp-machine
  infrastructure:
    ref:
      apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
      kind: AzureClusterTemplate
      name: infra
  workers:
    machineDeployments:
    - class: linux-a
      template:
        bootstrap:
          ref:
            apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
            kind: KubeadmConfigTemplate
            name: converted-here
        infrastructure:
          ref:
            apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
            kind: AzureMachineTemplate
            name: md
    - class: linux-b
      template:
        bootstrap:
          ref:
            apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
            kind: KubeadmConfigTemplate
            name: stored-elsewhere
        infrastructure:
          ref:
            apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
            kind: AzureMachineTemplate
            name: md
  patches:
  - name: by-name
    definitions:
    - selector:
        apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
        kind: KubeadmConfigTemplate
        matchResources:
          machineDeploymentClass:
            names: [linux-a]
      jsonPatches:
      - op: add
        path: /spec/template/spec/preKubeadmCommands
        value: [echo a]
  - name: by-wildcard
    definitions:
    - selector:
        apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
        kind: KubeadmConfigTemplate
        matchResources:
          machineDeploymentClass:
            names: ['linux-*']
      jsonPatches:
      - op: add
        path: /spec/template/spec/postKubeadmCommands
        value: [echo b]
  - name: control-plane
    definitions:
    - selector:
        apiVersion: controlplane.cluster.x-k8s.io/v1beta1
        kind: KubeadmControlPlaneTemplate
        matchResources:
          controlPlane: true
      jsonPatches:
      - op: add
        path: /spec/template/spec/kubeadmConfigSpec/preKubeadmCommands
        value: [echo cp]
  - name: infra
    definitions:
    - selector:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: AzureClusterTemplate
        matchResources:
          infrastructureCluster: true
      jsonPatches:
      - op: add
        path: /spec/template/spec/location
        value: westeurope
---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
kind: KubeadmConfigTemplate
metadata:
  name: converted-here
  namespace: default
spec:
  template:
    spec:
      joinConfiguration:
        nodeRegistration:
          kubeletExtraArgs:
            cloud-provider: external
---
apiVersion: controlplane.cluster.x-k8s.io/v1beta1
kind: KubeadmControlPlaneTemplate
metadata:
  name: cp
  namespace: default
spec:
  template:
    spec:
      kubeadmConfigSpec:
        initConfiguration:
          nodeRegistration:
            kubeletExtraArgs:
              cloud-provider: external
";

fn convert_text(text: &str) -> (String, Vec<String>) {
    let source =
        SourceFile { name: "class.yaml".into(), text: text.to_string(), kustomize_patch: false, not_utf8: false };
    let outcome =
        convert_files(std::slice::from_ref(&source), &capz::convert::Mode::Capi(TargetVersion::V1beta2)).remove(0);
    let notes = outcome.notes.iter().map(|n| format!("{}: {}", n.line, n.message)).collect();
    (outcome.text(&source).to_string(), notes)
}

#[test]
fn patch_selectors_move_with_the_references_they_match() {
    let (converted, notes) = convert_text(CLASS);
    let documents = parse_documents(&converted, "class.yaml").unwrap();
    let class = &documents[0].value;
    let rejections = admission::class_rejections(class);
    assert!(rejections.is_empty(), "{rejections:?}\n{converted}");
    let at = |pointer: &str| class.pointer(pointer).and_then(|v| v.as_str()).unwrap_or("").to_string();
    // The wildcard selector binds linux-b to linux-a: both references and both selectors move.
    for pointer in [
        "/spec/workers/machineDeployments/0/bootstrap/templateRef/apiVersion",
        "/spec/workers/machineDeployments/1/bootstrap/templateRef/apiVersion",
        "/spec/patches/0/definitions/0/selector/apiVersion",
        "/spec/patches/1/definitions/0/selector/apiVersion",
    ] {
        assert_eq!(at(pointer), "bootstrap.cluster.x-k8s.io/v1beta2", "{pointer}\n{converted}");
    }
    // The target's CAPI release is bundled whole: KubeadmControlPlaneTemplate's v1beta2 schema shows that its
    // patch fits, so the control plane reference and its selector move together.
    assert_eq!(at("/spec/controlPlane/templateRef/apiVersion"), "controlplane.cluster.x-k8s.io/v1beta2");
    assert_eq!(at("/spec/patches/2/definitions/0/selector/apiVersion"), "controlplane.cluster.x-k8s.io/v1beta2");
    // CAPZ kinds are not converted: their references and selectors stay.
    assert_eq!(at("/spec/patches/3/definitions/0/selector/apiVersion"), "infrastructure.cluster.x-k8s.io/v1beta1");
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn a_patch_that_only_fits_v1beta1_keeps_its_references_back_with_a_warning() {
    // kubeletExtraArgs is a map in v1beta1 and a list in v1beta2: this patch cannot follow.
    let text = CLASS.replace(
        "        path: /spec/template/spec/preKubeadmCommands\n        value: [echo a]",
        "        path: /spec/template/spec/joinConfiguration/nodeRegistration/kubeletExtraArgs\n        value: {v: '2'}",
    );
    let (converted, notes) = convert_text(&text);
    let documents = parse_documents(&converted, "class.yaml").unwrap();
    let class = &documents[0].value;
    assert!(admission::class_rejections(class).is_empty(), "{converted}");
    let at = |pointer: &str| class.pointer(pointer).and_then(|v| v.as_str()).unwrap_or("").to_string();
    assert_eq!(
        at("/spec/workers/machineDeployments/0/bootstrap/templateRef/apiVersion"),
        "bootstrap.cluster.x-k8s.io/v1beta1"
    );
    assert_eq!(at("/spec/patches/0/definitions/0/selector/apiVersion"), "bootstrap.cluster.x-k8s.io/v1beta1");
    let bootstrap: Vec<&String> = notes.iter().filter(|n| n.contains("spec.patches[0]")).collect();
    assert_eq!(bootstrap.len(), 1, "{notes:?}");
    assert!(
        bootstrap[0].contains("spec.patches[0].definitions[0].jsonPatches[0].path")
            && bootstrap[0].contains("is not of type array")
            && bootstrap[0].contains("stay at bootstrap.cluster.x-k8s.io/v1beta1"),
        "{notes:?}"
    );
    assert!(bootstrap[0].starts_with("59:"), "the line of the patch path: {notes:?}");
}
