//! helm's `required` failures: which value a chart needs that its values do not set, read from helm's
//! `execution error at (TEMPLATE:LINE:COL): MESSAGE` and the `required` call at that place in the template.

use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// `execution error at (mychart/templates/cm.yaml:4:11): clusterName is required`.
static EXECUTION_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^execution error at \(([^():]+):(\d+):(\d+)\): ([\s\S]*)$").unwrap());
/// `required "message" .Values.a.b` (or with a back-quoted message) at the start of the failing call.
static REQUIRED_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^required\s+(?:"(?:[^"\\]|\\.)*"|`[^`]*`)\s+\$?(\.Values(?:\.[A-Za-z0-9_-]+)+)"#).unwrap()
});

/// A `required` call that failed: where, the value it asks for (when the call names one) and the chart's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RequiredValue {
    /// `templates/cm.yaml:4` inside the chart.
    pub template: String,
    /// `.Values.clusterName`, when the call reads a value directly.
    pub value: Option<String>,
    /// The chart author's message.
    pub message: String,
}

/// The `required` failure helm reported in `message` (its error, without `Error: `), for the chart in `chart_dir`;
/// `None` for any other error (including `fail` and other functions' execution errors).
pub(crate) fn required_failure(chart_dir: &Path, message: &str) -> Option<RequiredValue> {
    let captures = EXECUTION_ERROR.captures(message.trim())?;
    let (template, line, column) =
        (&captures[1], captures[2].parse::<usize>().ok()?, captures[3].parse::<usize>().ok()?);
    // helm names templates `<chart name>/templates/...`: the chart's own directory stands for the first component.
    let relative: PathBuf = Path::new(template).components().skip(1).collect();
    if relative.as_os_str().is_empty() || !relative.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let text = std::fs::read_to_string(chart_dir.join(&relative)).ok()?;
    // Go's template positions count the column from 0; from one before it, the call follows blanks.
    let call = text.lines().nth(line.checked_sub(1)?)?.get(column.saturating_sub(1)..)?.trim_start();
    if !call.starts_with("required") {
        return None;
    }
    let value = REQUIRED_CALL.captures(call).map(|c| c[1].to_string());
    Some(RequiredValue {
        template: format!("{}:{line}", relative.display()),
        value,
        message: captures[4].trim().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_value_of_the_failing_required_call() {
        let chart = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(chart.path().join("templates")).unwrap();
        std::fs::write(
            chart.path().join("templates/cm.yaml"),
            "kind: ConfigMap\nmetadata:\n  name: {{ required \"set clusterName\" .Values.cluster.name }}\n",
        )
        .unwrap();
        let found =
            required_failure(chart.path(), "execution error at (mychart/templates/cm.yaml:3:11): set clusterName");
        assert_eq!(
            found,
            Some(RequiredValue {
                template: "templates/cm.yaml:3".into(),
                value: Some(".Values.cluster.name".into()),
                message: "set clusterName".into()
            })
        );
        // `fail`, or a path that leaves the chart, is not a required value.
        assert_eq!(required_failure(chart.path(), "execution error at (mychart/templates/cm.yaml:1:1): x"), None);
        assert_eq!(required_failure(chart.path(), "execution error at (mychart/../cm.yaml:3:11): x"), None);
    }
}
