//! `kubectl capz convert`: API version upgrades of manifest files, comments and layout kept;
//! the converted stream on stdout, `-w` in place (atomically), `--check` for CI; exit 0 done,
//! 1 `--check` found files to convert (or any mode found objects in versions no longer served,
//! which only `clusterctl upgrade` converts), 2 usage or input error.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::cli::ConvertArgs;
use crate::convert::aso::AsoPlan;
use crate::convert::files::{FileOutcome, LeftAlone, Severity, SourceFile, convert_files, kustomize_patches};
use crate::convert::{Mode, TargetVersion};
use crate::exit::ExitStatus;
use crate::manifest;

use super::in_place::{write_atomically, write_target};

/// The files to convert, with whether each was named on the command line (not found in a
/// directory) and the directory `-w` may write in for it (the directory named, or the named file's).
fn read_inputs(paths: &[String]) -> anyhow::Result<Vec<(SourceFile, bool, PathBuf)>> {
    let mut inputs = Vec::new();
    for path in paths {
        if path == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).context("cannot read stdin as UTF-8")?;
            let stdin = SourceFile { name: "<stdin>".into(), text, kustomize_patch: false, not_utf8: false };
            inputs.push((stdin, true, PathBuf::new()));
            continue;
        }
        let named = !Path::new(path).is_dir();
        let root = if named {
            Path::new(path).parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf()
        } else {
            PathBuf::from(path)
        };
        for file in manifest::manifest_files(Path::new(path))? {
            let bytes = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let (text, not_utf8) = match String::from_utf8(bytes) {
                Ok(text) => (text, false),
                Err(_) => (String::new(), true),
            };
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            let kustomize_patch = kustomize_patches(&dir).iter().any(|p| same_file(p, &file));
            let source = SourceFile { name: file.display().to_string(), text, kustomize_patch, not_utf8 };
            inputs.push((source, named, root.clone()));
        }
    }
    Ok(inputs)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn print_notes(outcomes: &[FileOutcome]) -> anyhow::Result<()> {
    let mut stderr = anstream::stderr().lock();
    for outcome in outcomes {
        for note in &outcome.notes {
            let label = match note.severity {
                Severity::Note => "note",
                Severity::Warning => "warning",
                Severity::Skipped => "skipped",
                Severity::NotServed => "not converted",
                Severity::Error => "error",
            };
            let (name, message) = (crate::escape::line_start(&outcome.name), crate::escape::one_line(&note.message));
            writeln!(stderr, "{name}:{}: {label}: {message}", note.line)?;
        }
    }
    Ok(())
}

/// The converted stream: every file that was read, `---` between files.
fn stream(inputs: &[(SourceFile, bool, PathBuf)], outcomes: &[FileOutcome]) -> String {
    let mut out = String::new();
    for ((source, _, _), outcome) in inputs.iter().zip(outcomes) {
        if outcome.left_alone.is_some() {
            continue;
        }
        let text = outcome.text(source);
        if text.trim().is_empty() {
            continue;
        }
        if !out.is_empty() {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            if !text.starts_with("---") {
                out.push_str("---\n");
            }
        }
        out.push_str(text);
    }
    out
}

/// `--aso-version GROUP/VERSION` values by group.
fn asked_versions(values: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    let mut asked = BTreeMap::new();
    for value in values {
        let Some((group, version)) = value
            .split_once('/')
            .filter(|(g, v)| crate::versions::Target::is_aso_group(g) && !v.is_empty() && !v.contains('/'))
        else {
            bail!(
                "--aso-version {value}: expected GROUP/VERSION of an ASO group, e.g. containerservice.azure.com/v1api20250801"
            );
        };
        if let Some(before) = asked.insert(group.to_string(), version.to_string())
            && before != version
        {
            bail!("--aso-version names two versions of {group}: {before} and {version}");
        }
    }
    Ok(asked)
}

pub(crate) fn run(args: ConvertArgs) -> anyhow::Result<ExitStatus> {
    let run_target = super::target::RunTarget::resolve(&args.target, &super::target::search_start(&args.paths))?;
    // The CAPI conversions are the same for every supported release: the target is only checked and, with -v, shown;
    // the ASO conversions go to what the target's ASO serves.
    run_target.announce();
    if args.write && args.paths.iter().any(|p| p == "-") {
        bail!("--write cannot rewrite stdin; drop -w to print the converted stream");
    }
    let registry = run_target.registry()?;
    let plan = AsoPlan { registry: &registry, target: run_target.target(), asked: asked_versions(&args.aso_version)? };
    let registry_check = |plan: &AsoPlan<'_>| -> anyhow::Result<()> {
        for (group, version) in &plan.asked {
            if !plan.registry.versions_of_group(group).contains(version) {
                bail!(
                    "--aso-version {group}/{version}: {} serves no kind of {group} in {version}",
                    plan.target.served_by(group).unwrap_or_default()
                );
            }
        }
        Ok(())
    };
    let mode = if args.aso {
        registry_check(&plan)?;
        Mode::Aso(&plan)
    } else {
        Mode::Capi(TargetVersion::parse(&args.to_version).expect("clap checks the values"))
    };
    let inputs = read_inputs(&args.paths)?;
    let sources: Vec<SourceFile> = inputs.iter().map(|(s, _, _)| s.clone()).collect();
    let outcomes = convert_files(&sources, &mode);
    print_notes(&outcomes)?;
    // A file named on the command line that is not YAML is an input error; in a directory it is
    // reported and skipped (with --check, both are files that cannot be confirmed up to date).
    let errors = outcomes.iter().any(|o| o.notes.iter().any(|n| n.severity == Severity::Error))
        || (!args.check
            && inputs
                .iter()
                .zip(&outcomes)
                .any(|((_, named, _), o)| *named && o.left_alone == Some(LeftAlone::NotYaml)));
    // Objects in versions no longer served: a finding about the manifest, not an input error.
    let not_served = |o: &FileOutcome| o.notes.iter().any(|n| n.severity == Severity::NotServed);
    let changed: Vec<&FileOutcome> = outcomes.iter().filter(|o| o.converted.is_some()).collect();
    if args.check {
        let unconvertible = |o: &FileOutcome| not_served(o) || o.left_alone == Some(LeftAlone::NotYaml);
        let listed: Vec<&FileOutcome> = outcomes.iter().filter(|o| o.converted.is_some() || unconvertible(o)).collect();
        let mut stdout = std::io::stdout().lock();
        for outcome in &listed {
            writeln!(stdout, "{}", outcome.name)?;
        }
        if errors {
            return Ok(ExitStatus::Error);
        }
        return Ok(if listed.is_empty() { ExitStatus::Success } else { ExitStatus::Findings });
    }
    if args.write {
        // Every target first: a refused one stops the run before anything is written.
        let roots: std::collections::HashMap<&str, &Path> =
            inputs.iter().map(|(source, _, root)| (source.name.as_str(), root.as_path())).collect();
        let mut targets = Vec::new();
        for outcome in &changed {
            let root = roots.get(outcome.name.as_str()).copied().unwrap_or(Path::new("."));
            targets.push(write_target(&outcome.name, root)?);
        }
        let mut written = std::collections::HashSet::new();
        let mut stderr = anstream::stderr().lock();
        for (outcome, target) in changed.iter().zip(targets) {
            let text = outcome.converted.as_deref().expect("changed files have text");
            if !written.insert(target.clone()) {
                continue;
            }
            write_atomically(&target, text)?;
            if std::fs::symlink_metadata(&outcome.name).is_ok_and(|m| m.file_type().is_symlink()) {
                writeln!(
                    stderr,
                    "converted {} (the file it links to, {}; the link is kept)",
                    crate::escape::one_line(&outcome.name),
                    crate::escape::one_line(&target.display().to_string())
                )?;
            } else {
                writeln!(stderr, "converted {}", crate::escape::one_line(&outcome.name))?;
            }
        }
        if changed.is_empty() {
            writeln!(stderr, "nothing to convert")?;
        }
    } else {
        std::io::stdout().lock().write_all(stream(&inputs, &outcomes).as_bytes())?;
    }
    Ok(if errors {
        ExitStatus::Error
    } else if outcomes.iter().any(not_served) {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}
