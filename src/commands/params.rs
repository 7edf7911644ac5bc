//! `kubectl capz params`: a flavor's parameters (required, optional with defaults, env aliases),
//! like `clusterctl generate cluster --list-variables`, or the JSON Schema of a values file.

use std::io::Write;

use anyhow::Context;

use crate::cli::ParamsArgs;
use crate::exit::ExitStatus;
use crate::params::{self, ParamRow};
use crate::render::{self, Engine};

pub(crate) fn run(args: ParamsArgs) -> anyhow::Result<ExitStatus> {
    let text = if args.schema {
        let mut text = serde_json::to_string_pretty(params::schema()).context("cannot serialize the schema")?;
        text.push('\n');
        text
    } else {
        let engine = Engine::new(args.flavor_dir.as_deref());
        match &args.flavor {
            Some(name) => {
                let flavor = render::load_flavor(engine.source(), name)?;
                flavor_listing(&flavor)
            }
            None => all_listing(&engine),
        }
    };
    let mut stdout = super::output::stdout();
    stdout.write_all(text.as_bytes()).context("cannot write to stdout")?;
    stdout.flush().context("cannot write to stdout")?;
    Ok(ExitStatus::Success)
}

/// The doc comment's first paragraph sentence, not cut at "e.g." or "i.e.".
fn first_sentence(doc: &str) -> String {
    let mut start = 0;
    while let Some(found) = doc[start..].find(". ") {
        let end = start + found;
        if doc[..end].ends_with("e.g") || doc[..end].ends_with("i.e") {
            start = end + 2;
            continue;
        }
        return doc[..=end].to_string();
    }
    doc.to_string()
}

fn pattern_covers(pattern: &str, path: &str) -> bool {
    path == pattern || path.strip_prefix(pattern).is_some_and(|rest| rest.starts_with('.') || rest.starts_with("[]"))
}

fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.len());
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let mut text = String::from("  ");
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}  ", width = widths[i]));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

fn flavor_listing(flavor: &render::Flavor) -> String {
    let rows = params::param_rows();
    let mut out = format!("Flavor {}: {}\n", flavor.name, flavor.description);
    if let Some(upstream) = &flavor.upstream {
        out.push_str(&format!("Mirrors CAPZ's {upstream}.\n"));
    }
    out.push_str("\nRequired parameters:\n");
    let mut required_rows = Vec::new();
    for requirement in &flavor.required {
        let row = rows.iter().find(|r| r.path == requirement.path);
        let fallback = params::fallback_of(&requirement.path);
        let env = fallback
            .and_then(params::env_alias)
            .or_else(|| params::env_alias(&requirement.path))
            .map(str::to_string)
            .unwrap_or_else(|| "-".into());
        let mut doc = row.map(|r| first_sentence(&r.doc)).unwrap_or_default();
        if let Some(fallback) = fallback {
            doc = format!("{doc} Or set {fallback}.");
        }
        let when = match &requirement.when {
            Some(when) => format!("when {when}"),
            None => "yes".into(),
        };
        required_rows.push(vec![
            requirement.path.clone(),
            row.map(|r| r.kind.clone()).unwrap_or_default(),
            when,
            env,
            doc,
        ]);
    }
    out.push_str(&table(&["PARAMETER", "TYPE", "REQUIRED", "ENV", "DESCRIPTION"], &required_rows));
    out.push_str("\nOptional parameters:\n");
    let optional: Vec<&ParamRow> = rows
        .iter()
        .filter(|r| !flavor.required.iter().any(|q| q.path == r.path))
        .filter(|r| !flavor.unsupported.iter().any(|u| pattern_covers(u, &r.path)))
        .collect();
    out.push_str(&optional_table(&optional));
    out.push_str(
        "\nPrecedence: defaults < environment < --values files (later wins) < --set < NAME, -n, --kubernetes-version.\n",
    );
    out
}

fn optional_table(rows: &[&ParamRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.path.clone(),
                r.kind.clone(),
                r.default.clone().unwrap_or_else(|| "-".into()),
                r.env.clone().unwrap_or_else(|| "-".into()),
                first_sentence(&r.doc),
            ]
        })
        .collect();
    table(&["PARAMETER", "TYPE", "DEFAULT", "ENV", "DESCRIPTION"], &cells)
}

fn all_listing(engine: &Engine) -> String {
    let rows = params::param_rows();
    let refs: Vec<&ParamRow> = rows.iter().collect();
    let mut out = String::from("Parameters of every flavor (`kubectl capz params FLAVOR` shows which are required):\n");
    out.push_str(&optional_table(&refs));
    out.push_str(&format!("\nFlavors: {}\n", engine.source().flavor_names().join(", ")));
    out
}
