//! Checks that the values repository mode gives helm for a Fleet bundle's targets are the values Fleet installs
//! them with. tests/fixtures/fleet-values/cases.json holds, for each case, the values of the default target and of
//! a customized target as Fleet merges them: wrangler's data.MergeMaps (v3.7.1, what rancher/fleet pins) called in
//! the order of Fleet's generateValues and options.Merge, fleet.yaml and values files read with sigs.k8s.io/yaml
//! (recorded by tools/fleet-values-oracle/record.sh; the Go module proxy does not serve rancher/fleet itself, so its
//! glue is copied there with the places it comes from). Each case is laid out as a bundle, read with
//! `capz::source::fleet` (our YAML reader, our layers in our order, as the loader hands them to helm), and both
//! are rendered by the real helm (tools/helm/bin, v3.18.6) with a chart that prints `.Values`: what helm sees
//! must be the same.

use std::path::{Path, PathBuf};

use capz::manifest;
use capz::source::fleet::{self, Layer};
use serde_json::Value;

use crate::support;

fn helm() -> PathBuf {
    let helm = support::repo_root().join("tools/helm/bin/helm");
    assert!(helm.is_file(), "helm is missing from {}: run tools/helm/build.sh", helm.display());
    helm
}

/// `.Values` as the chart in `chart` sees them with `values` files, in order.
fn rendered_values(chart: &Path, values: &[PathBuf], home: &Path) -> Value {
    let mut command = std::process::Command::new(helm());
    command.args(["template", "dump"]).arg(chart).env("HOME", home);
    command.env("HELM_CACHE_HOME", home.join("cache")).env("HELM_CONFIG_HOME", home.join("config"));
    command.env("HELM_DATA_HOME", home.join("data"));
    for file in values {
        command.arg("--values").arg(file);
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "helm template: {}", String::from_utf8_lossy(&output.stderr));
    let documents = manifest::parse_documents(&String::from_utf8(output.stdout).unwrap(), "helm").unwrap();
    let text = documents[0].value.pointer("/data/values").and_then(Value::as_str).expect("the dump's values");
    serde_json::from_str(text).unwrap()
}

/// `text` with every line indented by `spaces`.
fn indented(text: &str, spaces: usize) -> String {
    text.lines().map(|line| format!("{}{line}\n", " ".repeat(spaces))).collect()
}

/// A helm block of fleet.yaml for `block` of a case, its values files written as `<prefix><n>.yaml`.
fn helm_block(block: &Value, prefix: &str, indent: usize, dir: &Path) -> String {
    let pad = " ".repeat(indent);
    let mut text = String::new();
    let values = block["values"].as_str().unwrap_or("");
    if !values.is_empty() {
        text.push_str(&format!("{pad}values:\n{}", indented(values, indent + 2)));
    }
    let files: Vec<&str> = block["valuesFiles"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if !files.is_empty() {
        text.push_str(&format!("{pad}valuesFiles:\n"));
        for (index, file) in files.iter().enumerate() {
            let name = format!("{prefix}{index}.yaml");
            std::fs::write(dir.join(&name), file).unwrap();
            text.push_str(&format!("{pad}  - {name}\n"));
        }
    }
    text
}

#[test]
fn the_values_of_every_target_are_those_fleet_merges() {
    let text = std::fs::read_to_string(support::repo_root().join("tests/fixtures/fleet-values/cases.json"))
        .expect("recorded cases exist");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("recorded cases are JSON");
    assert!(cases.len() >= 20, "the recording lost cases: {}", cases.len());
    let work = tempfile::tempdir().unwrap();
    let chart = work.path().join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: dump\nversion: 0.1.0\n").unwrap();
    std::fs::write(
        chart.join("templates/values.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dump\ndata:\n  values: {{ toJson .Values | quote }}\n",
    )
    .unwrap();
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        assert!(case.get("error").is_none(), "{name}: Fleet failed: {}", case["error"]);
        let dir = work.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let mut fleet_yaml = format!("helm:\n  chart: ../chart\n{}", helm_block(&case["bundle"], "bundle", 2, &dir));
        if let Some(target) = case.get("target") {
            fleet_yaml.push_str(&format!(
                "targetCustomizations:\n  - name: customized\n    helm:\n      releaseName: dump\n{}",
                helm_block(target, "target", 6, &dir)
            ));
        }
        let (value, lines) = manifest::parse_value(&fleet_yaml, name).unwrap();
        let spec = fleet::spec::read(&value, &lines).unwrap_or_else(|err| panic!("{name}: {err:?}\n{fleet_yaml}"));
        for variant in fleet::variants(&spec) {
            let recorded = match variant.target {
                None => &case["default"],
                Some(_) => &case["customized"],
            };
            // Our layers as the loader hands them to helm: each a JSON values file, lowest first.
            let mut files = Vec::new();
            for (index, layer) in variant.layers.iter().enumerate() {
                let value = match layer {
                    Layer::Inline { value, .. } => value.clone(),
                    Layer::File { path, .. } => {
                        let text = std::fs::read_to_string(dir.join(path)).unwrap();
                        manifest::parse_value(&text, path).unwrap().0
                    }
                };
                if value.is_null() {
                    continue;
                }
                let file = dir.join(format!("ours-{}-{index}.json", variant.target.as_deref().unwrap_or("default")));
                std::fs::write(&file, serde_json::to_string(&value).unwrap()).unwrap();
                files.push(file);
            }
            let ours = rendered_values(&chart, &files, work.path());
            let fleets_file = dir.join("fleet-merged.json");
            std::fs::write(&fleets_file, serde_json::to_string(recorded).unwrap()).unwrap();
            let fleets = match recorded {
                Value::Null => rendered_values(&chart, &[], work.path()),
                _ => rendered_values(&chart, &[fleets_file], work.path()),
            };
            if ours != fleets {
                failures.push(format!("{name} ({:?}): ours {ours}, Fleet's {fleets}", variant.target));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
