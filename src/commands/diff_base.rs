//! `kubectl capz diff --base REV|DIR [PATH]`: the change review (super::change_review) printed as a diff, JSON,
//! YAML or a pull-request comment. No cluster is read.

use std::io::Write;

use anyhow::bail;

use crate::change::{self, CompareOptions};
use crate::cli::{DiffArgs, DiffOutput};
use crate::escape;
use crate::exit::ExitStatus;
use crate::manifest;
use crate::schema::{ValidateOptions, Validator};
use crate::source::Budget;

use super::change_review::{ReviewRequest, review};
use super::target::{RunTarget, search_start};

pub(crate) fn run(args: &DiffArgs, base: &str) -> anyhow::Result<ExitStatus> {
    let path = head_path(args)?;
    let run_target = RunTarget::resolve(&args.target, &search_start(std::slice::from_ref(&path)))?;
    let registry = run_target.registry()?;
    let budget = Budget::default();
    let options = crate::validate::repository_options(
        &path,
        true,
        &args.exclude,
        run_target.config.as_ref(),
        false,
        args.helm_cache.as_deref(),
        &budget,
    );
    let filter = super::validate::rule_filter(&run_target, &[], &[])?;
    let validator = Validator::new(&registry, ValidateOptions::default());
    let request = ReviewRequest {
        base,
        path: &path,
        options: &options,
        compare: CompareOptions { include_capz_managed: args.include_capz_managed, show_secrets: args.show_secrets },
        transition_rules: filter.allows("cel"),
    };
    let review = review(&request, &registry, &validator, &filter.lint)?;
    let (changes, findings) = (&review.changes, &review.findings);
    let text = match args.output {
        DiffOutput::Json => escape::json::to_string_pretty(&change::json(changes, findings))? + "\n",
        DiffOutput::Yaml => manifest::to_yaml(&change::json(changes, findings)),
        DiffOutput::Markdown => change::markdown(changes, findings, &review.title),
        // Coloured; anstream leaves the colours out when stdout is not a terminal.
        DiffOutput::Diff => change::text(changes, true),
    };
    let text = if args.show_secrets { text } else { review.mask(&text) };
    let mut stdout = super::output::QuietPipe::new(anstream::stdout().lock());
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    if matches!(args.output, DiffOutput::Diff) {
        // What the change deletes or rolls: messages, after the data.
        let mut stderr = anstream::stderr().lock();
        for finding in findings {
            let line = crate::validate::format_finding(finding);
            let line = if args.show_secrets { line } else { review.mask(&line) };
            stderr.write_all(line.as_bytes())?;
        }
    }
    Ok(if changes.is_empty() { ExitStatus::Success } else { ExitStatus::Findings })
}

/// PATH: the first positional argument (where `diff FLAVOR NAME` has its flavor), else the one `-f`, else `.`.
fn head_path(args: &DiffArgs) -> anyhow::Result<String> {
    if args.input.from.is_some() || args.input.name.is_some() || args.input.flavor_flag.is_some() {
        bail!("diff --base REV|DIR [PATH] compares two builds of a repository: no flavor, NAME or --from");
    }
    if args.aso_live || args.no_build {
        bail!("diff --base reads no cluster and builds both sides: --aso-live and --no-build do not apply");
    }
    match (args.input.flavor.as_ref(), args.filenames.as_slice()) {
        (Some(_), [_, ..]) => bail!("give the repository once: PATH or -f PATH"),
        (None, [_, _, ..]) => bail!("diff --base compares one repository: give one PATH"),
        (Some(path), []) => Ok(path.clone()),
        (None, [path]) => Ok(path.clone()),
        (None, []) => Ok(".".to_string()),
    }
}
