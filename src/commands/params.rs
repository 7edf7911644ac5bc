//! `kubectl capz params`: a flavor's parameters (required, optional with defaults, env aliases),
//! like `clusterctl generate cluster --list-variables`, or the JSON Schema of a values file.

use std::io::Write;

use anyhow::Context;

use crate::cli::{ParamsArgs, ParamsOutput};
use crate::exit::ExitStatus;
use crate::manifest;
use crate::params::{self, ParamRow};
use crate::render::{self, Engine};

pub(crate) fn run(args: ParamsArgs) -> anyhow::Result<ExitStatus> {
    let text = if args.schema {
        if args.output == ParamsOutput::Yaml {
            manifest::to_yaml(params::schema())
        } else {
            let mut text = serde_json::to_string_pretty(params::schema()).context("cannot serialize the schema")?;
            text.push('\n');
            text
        }
    } else {
        let engine = Engine::new(args.flavor_dir.as_deref());
        let flavor = match &args.flavor {
            Some(name) => Some(render::load_flavor(engine.source(), name)?),
            None => None,
        };
        match (args.output, &flavor) {
            (ParamsOutput::Text, Some(flavor)) => flavor_listing(flavor),
            (ParamsOutput::Text, None) => all_listing(&engine),
            (format, _) => {
                let data = match &flavor {
                    Some(flavor) => flavor_data(flavor),
                    None => serde_json::json!({
                        "parameters": params::param_rows().iter().map(optional_data).collect::<Vec<_>>(),
                        "flavors": engine.source().flavor_names(),
                    }),
                };
                if format == ParamsOutput::Yaml {
                    manifest::to_yaml(&data)
                } else {
                    let mut text = serde_json::to_string_pretty(&data).context("cannot serialize the parameters")?;
                    text.push('\n');
                    text
                }
            }
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

/// `-o json|yaml` of a flavor: the same rows as the tables, as data.
fn flavor_data(flavor: &render::Flavor) -> serde_json::Value {
    let rows = params::param_rows();
    let required: Vec<serde_json::Value> = required_rows(flavor, &rows)
        .into_iter()
        .map(|[path, kind, required, env, description]| {
            serde_json::json!({"path": path, "type": kind, "required": required,
                "env": (env != "-").then_some(env), "description": description})
        })
        .collect();
    serde_json::json!({
        "flavor": flavor.name,
        "description": flavor.description,
        "upstream": flavor.upstream,
        "required": required,
        "optional": optional_rows(flavor, &rows).into_iter().map(optional_data).collect::<Vec<_>>(),
    })
}

fn optional_data(row: &ParamRow) -> serde_json::Value {
    serde_json::json!({"path": row.path, "type": row.kind, "default": row.default, "env": row.env,
        "description": first_sentence(&row.doc)})
}

fn optional_rows<'a>(flavor: &render::Flavor, rows: &'a [ParamRow]) -> Vec<&'a ParamRow> {
    rows.iter()
        .filter(|r| !flavor.required.iter().any(|q| q.path == r.path))
        .filter(|r| !flavor.unsupported.iter().any(|u| pattern_covers(u, &r.path)))
        .collect()
}

fn flavor_listing(flavor: &render::Flavor) -> String {
    let rows = params::param_rows();
    let mut out = format!("Flavor {}: {}\n", flavor.name, flavor.description);
    if let Some(upstream) = &flavor.upstream {
        out.push_str(&format!("Mirrors CAPZ's {upstream}.\n"));
    }
    out.push_str("\nRequired parameters:\n");
    let required_rows: Vec<Vec<String>> = required_rows(flavor, &rows).into_iter().map(Vec::from).collect();
    out.push_str(&table(&["PARAMETER", "TYPE", "REQUIRED", "ENV", "DESCRIPTION"], &required_rows));
    out.push_str("\nOptional parameters:\n");
    out.push_str(&optional_table(&optional_rows(flavor, &rows)));
    out.push_str(
        "\nPrecedence: defaults < environment < --values files (later wins) < --set < NAME, -n, --kubernetes-version.\n",
    );
    out
}

/// PARAMETER, TYPE, REQUIRED, ENV, DESCRIPTION of each required parameter of `flavor`.
fn required_rows(flavor: &render::Flavor, rows: &[ParamRow]) -> Vec<[String; 5]> {
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
        required_rows.push([requirement.path.clone(), row.map(|r| r.kind.clone()).unwrap_or_default(), when, env, doc]);
    }
    required_rows
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
