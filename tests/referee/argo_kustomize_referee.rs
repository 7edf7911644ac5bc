//! Argo CD kustomize-source options replayed against the real kustomize: tests/fixtures/argo-kustomize-edit/cases.json
//! holds, per case, the kustomization that Argo CD's `kustomize edit` sequence (run by tools/kustomize-edit-oracle with
//! kustomize v5.7.1) left and what `kustomize build` then printed, or the step that failed. Our emulation of the edits
//! must write the same kustomization (after kustomize's own rewriting of deprecated fields), fail where kustomize
//! failed, and build to the same objects.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

use capz::manifest::{parse_plain_documents, parse_plain_value};
use capz::source::argo::kustomize::{ArgoKustomize, edit};
use serde_json::{Map, Value};

fn cases() -> Vec<Value> {
    let path = support::repo_root().join("tests/fixtures/argo-kustomize-edit/cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

/// The case's files, by path.
fn files(case: &Value) -> BTreeMap<String, String> {
    case["files"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect()
}

/// `path` with `.` and `..` resolved (None when it climbs above the root).
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// A kustomization as kustomize reads it: empty fields dropped.
fn comparable(value: &Value) -> Value {
    let mut map: Map<String, Value> = value.as_object().cloned().unwrap_or_default();
    map.retain(|_, v| match v {
        Value::Null => false,
        Value::String(text) => !text.is_empty(),
        Value::Array(list) => !list.is_empty(),
        Value::Object(object) => !object.is_empty(),
        _ => true,
    });
    Value::Object(map)
}

/// `kubectl kustomize DIR/app` of `files` with the app's kustomization replaced by `kustomization`: the objects, or
/// the error.
fn build(files: &BTreeMap<String, String>, app: &str, kustomization: &Value) -> Result<Vec<Value>, String> {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let target = dir.path().join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, text).unwrap();
    }
    let name = ["kustomization.yaml", "kustomization.yml", "Kustomization"]
        .iter()
        .find(|name| files.contains_key(&format!("{app}/{name}")))
        .unwrap();
    std::fs::write(dir.path().join(app).join(name), capz::manifest::to_yaml(kustomization)).unwrap();
    let output = std::process::Command::new(support::kubectl_program())
        .arg("kustomize")
        .arg(dir.path().join(app))
        .output()
        .unwrap();
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(objects(&String::from_utf8_lossy(&output.stdout)))
}

fn objects(text: &str) -> Vec<Value> {
    parse_plain_documents(text, "build").unwrap().into_iter().map(|document| document.value).collect()
}

fn argo_of(case: &Value) -> ArgoKustomize {
    let env = case["env"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()));
    ArgoKustomize { options: case["kustomize"].clone(), env: env.collect(), pointer: "/spec/source".to_string() }
}

#[test]
fn our_edits_write_what_argo_cds_kustomize_edit_sequence_writes_and_build_the_same_objects() {
    let cases = cases();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    let (mut built, mut failed) = (0, 0);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let app = case["path"].as_str().unwrap();
        let files = files(case);
        let input = files
            .iter()
            .find(|(path, _)| {
                Path::new(path.as_str()).parent() == Some(Path::new(app)) && path.contains("ustomization")
            })
            .map(|(_, text)| parse_plain_value(text, "kustomization").unwrap())
            .unwrap();
        let exists = |component: &str| -> bool {
            normalize(&format!("{app}/{component}"))
                .is_some_and(|dir| files.keys().any(|path| path.starts_with(&format!("{dir}/"))))
        };
        let ours = edit(&input, &argo_of(case), &exists);
        let recorded_error = case["error"].as_str();
        match (recorded_error, ours) {
            (Some(error), Err(ours)) if !error.starts_with("kustomize build") => {
                failed += 1;
                eprintln!("{name}: both fail: kustomize `{error}`, ours `{ours}`");
            }
            (Some(error), Ok(ours)) if error.starts_with("kustomize build") => {
                let result = build(&files, app, &ours.kustomization);
                assert!(result.is_err(), "{name}: kustomize's build failed ({error}), ours built {result:?}");
                failed += 1;
            }
            (None, Ok(ours)) => {
                let recorded = parse_plain_value(case["kustomization"].as_str().unwrap(), "recorded").unwrap();
                assert_eq!(comparable(&ours.kustomization), comparable(&recorded), "{name}: the edited kustomization");
                let expected = objects(case["build"].as_str().unwrap());
                let ours = build(&files, app, &ours.kustomization).unwrap_or_else(|err| panic!("{name}: {err}"));
                assert_eq!(ours, expected, "{name}: the built objects");
                built += 1;
            }
            (error, ours) => panic!("{name}: kustomize gave {error:?}, our edit gave {ours:?}"),
        }
    }
    assert!(built >= 12 && failed >= 6, "{built} built, {failed} failing cases");
}

/// The edit commands of each recorded case, as Argo CD logs them, name the options the recording exercised: the
/// corpus covers every option Argo CD turns into a `kustomize edit` command.
#[test]
fn the_recordings_cover_every_option_argo_cd_applies() {
    let commands: Vec<String> = cases()
        .iter()
        .flat_map(|case| case["commands"].as_array().unwrap().clone())
        .map(|argv| {
            argv.as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect::<Vec<_>>().join(" ")
        })
        .collect();
    for expected in [
        "kustomize edit set nameprefix -- ",
        "kustomize edit set namesuffix -- ",
        "kustomize edit set image ",
        "kustomize edit set replicas ",
        "kustomize edit add label ",
        "kustomize edit add label --force ",
        "kustomize edit add label --force --without-selector --include-templates ",
        "kustomize edit add annotation ",
        "kustomize edit add annotation --force ",
        "kustomize edit set namespace -- ",
        "# kustomization.yaml updated with patches",
        "kustomize edit add component ",
    ] {
        assert!(commands.iter().any(|command| command.starts_with(expected)), "no recorded `{expected}...`");
    }
}
