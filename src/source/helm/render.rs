//! `helm template` of one chart with one set of values files, its output cut at `# Source:` comments.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use std::io::Write;

use serde_json::Value;

use super::HelmProblem;
use super::required::{RequiredValue, required_failure};
use super::template_lines::map_rendered_lines;
use crate::json_pointer::leaf_pointers;
use crate::manifest::{Document, ReadBudget, ReadOutcome, parse_documents_tolerant_within, parse_value};
use crate::source::budget::Budget;
use crate::source::stage::Stage;
use crate::source::tool::{ToolError, run_tool};

/// The program run to render charts, found on `PATH`.
pub const HELM: &str = "helm";

/// Namespace passed to `helm template` (`--namespace`) for a chart found in the tree.
pub const RELEASE_NAMESPACE: &str = "default";

/// What to render: a chart of the repository, a release name and namespace, and values in helm's order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderRequest {
    /// The chart directory, as given.
    pub chart_dir: PathBuf,
    /// The release name.
    pub release: String,
    /// `--namespace`.
    pub namespace: String,
    /// Values files (`--values`), in order: later ones win.
    pub values_files: Vec<PathBuf>,
    /// Values given inline (Argo CD `values`/`valuesObject`, a Flux HelmRelease's `values`), applied after the
    /// files in this order.
    pub inline_values: Vec<InlineValues>,
    /// `--set` and `--set-string` arguments (`key=value`), applied last.
    pub set: Vec<String>,
    pub set_string: Vec<String>,
    /// Where `--set`/`--set-string` assignments (by their text) were written: an Argo CD parameter, a Flux
    /// `valuesFrom` with `targetPath`; for value provenance.
    pub set_written_at: HashMap<String, WrittenAt>,
    /// `--include-crds`: the chart's `crds/` too, as Argo CD and Flux apply them (a plain `helm template` leaves
    /// them out).
    pub include_crds: bool,
    /// What this render is, for messages: `charts/aks (ci/prod-values.yaml)`, `Application/cluster-a`.
    pub label: String,
    /// The staged copy of the repository helm runs on (repository mode): the chart directory and the values files
    /// are given to helm as their paths there, templates are read from there, and its messages show the
    /// repository's paths. `None`: helm reads the paths as they are.
    pub stage: Option<Arc<Stage>>,
}

impl RenderRequest {
    /// Where helm reads `path` (the chart directory, a values file): in the stage when there is one and the path is
    /// below the repository, else as it is (a temporary values file).
    pub fn tool_path(&self, path: &Path) -> PathBuf {
        self.stage.as_ref().and_then(|stage| stage.staged(path)).unwrap_or_else(|| path.to_path_buf())
    }

    /// A tool's message with the stage's paths shown as the repository's.
    fn shown(&self, text: &str) -> String {
        self.stage.as_ref().map_or_else(|| text.to_string(), |stage| stage.show(text))
    }
}

impl RenderRequest {
    /// The values this render takes from Secrets (a HelmRelease's `valuesFrom` Secret): every scalar of them as text,
    /// and the value of each `--set-string` a Secret gives.
    pub fn secret_values(&self) -> Vec<String> {
        let mut out = Vec::new();
        for inline in self.inline_values.iter().filter(|inline| inline.secret) {
            leaf_pointers(&inline.value, &mut String::new(), &mut |leaf| match inline.value.pointer(leaf) {
                Some(Value::String(text)) => out.push(text.clone()),
                Some(scalar @ (Value::Number(_) | Value::Bool(_))) => out.push(scalar.to_string()),
                _ => {}
            });
        }
        for (assignment, written) in &self.set_written_at {
            if written.secret
                && let Some((_, value)) = assignment.split_once('=')
            {
                out.push(value.to_string());
            }
        }
        out.sort();
        out
    }
}

/// Values written inside another object (an Application, a HelmRelease).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InlineValues {
    /// Where, for messages: `Application/shop-prod helm.valuesObject`.
    pub label: String,
    pub value: Value,
    /// The file they are written in and the line of each of their fields (by JSON pointer within `value`),
    /// for value provenance; None when unknown (an Application an ApplicationSet generates).
    pub written_at: Option<(PathBuf, HashMap<String, usize>)>,
    /// Whether they come from a Secret: findings on them never show the value.
    pub secret: bool,
}

/// Where one value was written: a file, a line, and whether it is a Secret's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenAt {
    pub file: PathBuf,
    pub line: usize,
    pub secret: bool,
}

impl InlineValues {
    /// Inline values of `document` found at `pointer` (whose text is `value`), each field at its line there.
    pub fn in_document(label: String, value: Value, document: &Document, pointer: &str) -> Self {
        let mut lines = HashMap::new();
        leaf_pointers(&value, &mut String::new(), &mut |leaf| {
            lines.insert(leaf.to_string(), document.line_of(&format!("{pointer}{leaf}")));
        });
        let file = PathBuf::from(document.origin.source.as_ref());
        InlineValues { label, value, written_at: Some((file, lines)), secret: false }
    }

    /// Values written in `file`, each field at the line `line_of` gives for its JSON pointer within `value` (a
    /// values file, or values written inside a file that is not an object, such as Fleet's fleet.yaml).
    pub fn at_lines(label: String, value: Value, file: PathBuf, line_of: impl Fn(&str) -> usize) -> Self {
        let mut lines = HashMap::new();
        leaf_pointers(&value, &mut String::new(), &mut |leaf| {
            lines.insert(leaf.to_string(), line_of(leaf));
        });
        InlineValues { label, value, written_at: Some((file, lines)), secret: false }
    }

    /// Inline values parsed from a YAML string of `document` at `pointer` (a block scalar: its first line is the
    /// one after the key), each field at its line there.
    pub fn in_text(label: String, text: &str, document: &Document, pointer: &str) -> Result<Self, String> {
        let (value, text_lines) = parse_value(text, &label).map_err(|err| err.to_string())?;
        let key_line = document.line_of(pointer);
        let mut lines = HashMap::new();
        leaf_pointers(&value, &mut String::new(), &mut |leaf| {
            lines.insert(leaf.to_string(), key_line + text_lines.line_of(leaf).unwrap_or(0));
        });
        let file = PathBuf::from(document.origin.source.as_ref());
        Ok(InlineValues { label, value, written_at: Some((file, lines)), secret: false })
    }
}

/// One rendering of a chart: helm's output for a [`RenderRequest`].
#[derive(Debug, Clone)]
pub struct HelmRender {
    pub request: RenderRequest,
    /// What helm printed.
    pub text: String,
    /// Every rendered document, in helm's order.
    pub documents: Vec<RenderedDocument>,
}

/// One document of helm's output and the template file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedDocument {
    /// The template, below the chart directory as given (`charts/aks-aso/templates/list.yaml`).
    pub template: PathBuf,
    /// 1-based line of helm's output where the document's text starts (after its `# Source:` line).
    pub first_line: usize,
    /// The document's text.
    pub text: String,
    /// For each line of `text`, the line of the template file it came from ([`map_rendered_lines`]); `None` when
    /// the template is not a file of the repository (a subchart packed in a .tgz): its lines are then line 1.
    pub template_lines: Option<Vec<usize>>,
}

impl RenderedDocument {
    /// The template line of line `line` (1-based) of the rendered document.
    pub fn template_line(&self, line: usize) -> usize {
        match &self.template_lines {
            Some(lines) => lines.get(line.saturating_sub(1)).or(lines.last()).copied().unwrap_or(1),
            None => 1,
        }
    }
}

impl HelmRender {
    /// The render of helm's output `text` for `request` (as [`render_request`] makes it), the template files read
    /// below `base` (the directory helm ran in; empty for the current one) to map lines to them.
    pub fn from_output(request: RenderRequest, text: String, base: &Path) -> HelmRender {
        let mut documents = split_output(&text, &request.chart_dir);
        map_template_lines(&mut documents, base, &request);
        HelmRender { request, text, documents }
    }

    /// The objects of the render, each document read with its template as source and lines of the template file
    /// (see [`RenderedDocument::template_lines`]; documents of one template numbered in helm's order).
    pub fn read(&self) -> ReadOutcome {
        self.read_within(&ReadBudget::default())
    }

    /// [`HelmRender::read`], what YAML aliases expand counting against a run's `budget`.
    pub fn read_within(&self, budget: &ReadBudget) -> ReadOutcome {
        let mut outcome = ReadOutcome::default();
        let mut seen: Vec<(&Path, usize)> = Vec::new();
        for document in &self.documents {
            let index = match seen.iter_mut().find(|(template, _)| *template == document.template.as_path()) {
                Some((_, count)) => count,
                None => {
                    seen.push((&document.template, 0));
                    &mut seen.last_mut().expect("just pushed").1
                }
            };
            let mut read = parse_documents_tolerant_within(&document.text, &source_name(&document.template), budget);
            let to_template = |line: usize| document.template_line(line);
            for read_document in &mut read.documents {
                read_document.origin.index += *index;
                read_document.origin.line = to_template(read_document.origin.line);
                read_document.lines = read_document.lines.map_lines(to_template);
            }
            for problem in &mut read.problems {
                problem.line = to_template(problem.line);
            }
            *index += read.documents.len();
            outcome.documents.extend(read.documents);
            outcome.problems.extend(read.problems);
            for source in read.sources {
                if !outcome.sources.contains(&source) {
                    outcome.sources.push(source);
                }
            }
        }
        outcome
    }

    /// The command a user would run for the same output (inline values shown as `<values of ...>`).
    pub fn command(&self) -> String {
        let request = &self.request;
        let mut words = vec![
            "helm template".to_string(),
            request.release.clone(),
            chart_arg(&request.chart_dir).to_string_lossy().into_owned(),
            format!("--namespace {}", request.namespace),
        ];
        words.extend(request.values_files.iter().map(|file| format!("--values {}", file.display())));
        words.extend(request.inline_values.iter().map(|inline| format!("--values <values of {}>", inline.label)));
        // A Secret's value never shows.
        let shown = |assignment: &String| match request.set_written_at.get(assignment) {
            Some(written) if written.secret => format!("{}=***", assignment.split_once('=').map_or("", |(key, _)| key)),
            _ => assignment.clone(),
        };
        words.extend(request.set.iter().map(|assignment| format!("--set {}", shown(assignment))));
        words.extend(request.set_string.iter().map(|assignment| format!("--set-string {}", shown(assignment))));
        if request.include_crds {
            words.push("--include-crds".to_string());
        }
        words.join(" ")
    }

    /// Where line `line` of helm's output (as `helm template ... | kubectl capz validate -` reports it)
    /// is: the template and its line in the template file, as [`HelmRender::read`] numbers them.
    pub fn locate_output_line(&self, line: usize) -> Option<(String, usize)> {
        self.documents
            .iter()
            .rfind(|document| document.first_line <= line)
            .map(|document| (source_name(&document.template), document.template_line(line - document.first_line + 1)))
    }
}

/// The source name of a template's documents.
pub fn source_name(template: &Path) -> String {
    template.display().to_string()
}

/// `helm template <release> <chart> --namespace <ns> --values <file>... --set ...` for `request`, with
/// `values_files` in place of the request's files and inline values, in the clean environment of [`run_tool`];
/// `extra` arguments come last.
pub(crate) fn helm_template(
    request: &RenderRequest,
    values_files: &[PathBuf],
    extra: &[&str],
    budget: &Budget,
) -> Result<String, HelmProblem> {
    let chart = request.chart_dir.clone();
    // The release name comes from the repository (an Application's helm.releaseName, a HelmRelease's releaseName,
    // fleet.yaml): one helm would take for a flag (`--post-renderer=./run.sh` runs a program) never reaches it.
    if !is_release_name(&request.release) {
        return Err(HelmProblem::TemplateError {
            chart,
            render: request.label.clone(),
            message: format!(
                "`{}` is not a Helm release name (lower-case letters, digits, `-` and `.`, starting and ending with a \
                 letter or digit, at most 53 characters): helm refuses it",
                request.release
            ),
        });
    }
    let mut args: Vec<OsString> = vec!["template".into()];
    args.extend(["--namespace".into(), request.namespace.clone().into()]);
    for file in values_files {
        args.push("--values".into());
        args.push(request.tool_path(file).into_os_string());
    }
    for (flag, list) in [("--set", &request.set), ("--set-string", &request.set_string)] {
        for assignment in list {
            args.extend([flag.into(), assignment.into()]);
        }
    }
    if request.include_crds {
        args.push("--include-crds".into());
    }
    args.extend(extra.iter().map(OsString::from));
    // Nothing after `--` is a flag, whatever it starts with.
    args.extend(["--".into(), request.release.clone().into(), chart_arg(&request.tool_path(&chart))]);
    let cwd = match &request.stage {
        Some(stage) => stage.root().to_path_buf(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    match run_tool(HELM, &args, &cwd, budget) {
        Ok(output) => Ok(output.stdout),
        Err(ToolError::NotFound { .. }) => Err(HelmProblem::HelmNotFound { chart }),
        Err(ToolError::Failed { stderr, .. }) => {
            let message = helm_message(&request.shown(&stderr));
            let render = request.label.clone();
            Err(match required_failure(&chart, &message) {
                Some(RequiredValue { template, value, message }) => {
                    HelmProblem::RequiredValue { chart, render, template, value, message }
                }
                None => HelmProblem::TemplateError { chart, render, message },
            })
        }
        Err(error) => Err(HelmProblem::Tool { chart, message: request.shown(&error.to_string()) }),
    }
}

/// Helm's rule for release names (`chartutil.ValidateReleaseName`): at most 53 characters of DNS-1123 labels joined
/// by dots.
fn is_release_name(name: &str) -> bool {
    static RELEASE_NAME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$").expect("valid regex")
    });
    name.len() <= 53 && RELEASE_NAME.is_match(name)
}

/// Writes inline values to temporary files, to follow the request's values files on helm's command line.
fn inline_values_files(request: &RenderRequest) -> Result<Vec<tempfile::NamedTempFile>, HelmProblem> {
    request
        .inline_values
        .iter()
        .map(|InlineValues { label: origin, value, .. }| {
            let write = || -> std::io::Result<tempfile::NamedTempFile> {
                let mut file = tempfile::Builder::new().prefix("kubectl-capz-values-").suffix(".yaml").tempfile()?;
                file.write_all(serde_json::to_string(value).unwrap_or_default().as_bytes())?;
                file.flush()?;
                Ok(file)
            };
            write().map_err(|err| HelmProblem::Tool {
                chart: request.chart_dir.clone(),
                message: format!("values of {origin} cannot be written to a temporary file: {err}"),
            })
        })
        .collect()
}

/// Renders `request`.
pub(crate) fn render_request(request: RenderRequest, budget: &Budget) -> Result<HelmRender, HelmProblem> {
    let inline = inline_values_files(&request)?;
    let mut files = request.values_files.clone();
    files.extend(inline.iter().map(|file| file.path().to_path_buf()));
    let text = helm_template(&request, &files, &[], budget)?;
    Ok(HelmRender::from_output(request, text, Path::new("")))
}

/// A chart directory as helm wants it: a bare relative name (`mychart`) would be looked up in repositories.
fn chart_arg(dir: &Path) -> OsString {
    if dir.is_absolute() || dir.starts_with(".") || dir.starts_with("..") {
        dir.as_os_str().to_owned()
    } else {
        Path::new(".").join(dir).into_os_string()
    }
}

/// helm's advice after a template error, which names a flag of helm, not of ours.
const HELM_DEBUG_ADVICE: &str = "Use --debug flag to render out invalid YAML";

/// helm's own error, without its `Error: ` prefix, the log lines before it and its `--debug` advice.
fn helm_message(stderr: &str) -> String {
    let error = stderr.lines().position(|line| line.starts_with("Error: ")).map_or(stderr.trim(), |at| {
        let start: usize = stderr.lines().take(at).map(|line| line.len() + 1).sum();
        stderr[start..].trim()
    });
    let error = error.strip_prefix("Error: ").unwrap_or(error);
    error.strip_suffix(HELM_DEBUG_ADVICE).unwrap_or(error).trim_end().to_string()
}

/// Cuts helm's output into its documents: each starts with `---` and `# Source: <chart>/<path>`, where
/// `<path>` is relative to the chart directory (`templates/x.yaml`, `charts/sub/templates/y.yaml`).
pub(crate) fn split_output(text: &str, chart_dir: &Path) -> Vec<RenderedDocument> {
    let mut documents: Vec<RenderedDocument> = Vec::new();
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let line_number = number + 1;
        let content = line.trim_end_matches(['\n', '\r']);
        if let Some(source) = content.strip_prefix("# Source: ") {
            let relative = source.split_once('/').map_or(source, |(_, rest)| rest);
            documents.push(RenderedDocument {
                template: chart_dir.join(relative),
                first_line: line_number + 1,
                text: String::new(),
                template_lines: None,
            });
        } else if content == "---" {
            // The marker of the next document; it belongs to none.
        } else if let Some(document) = documents.last_mut() {
            document.text.push_str(line);
        }
    }
    documents
}

/// Maps the lines of each document to its template file below `base` (in the stage when the request has one), when
/// that is a file of the chart (not one packed in a subchart's .tgz). A `# Source:` line is only text a template may
/// print too: a path that climbs out of the chart is never read.
fn map_template_lines(documents: &mut [RenderedDocument], base: &Path, request: &RenderRequest) {
    let mut templates: HashMap<PathBuf, Option<String>> = HashMap::new();
    for document in documents {
        let inside = document.template.strip_prefix(&request.chart_dir).is_ok_and(|inner| {
            inner.components().all(|component| matches!(component, Component::Normal(_) | Component::CurDir))
        });
        let template = templates.entry(document.template.clone()).or_insert_with(|| {
            let path = request.tool_path(&base.join(&document.template));
            inside.then(|| std::fs::read_to_string(path).ok()).flatten()
        });
        document.template_lines = template.as_deref().map(|template| map_rendered_lines(template, &document.text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "---\n# Source: aks/templates/cluster.yaml\napiVersion: v1\nkind: A\n---\n# Source: aks/charts/sub/templates/b.yaml\napiVersion: v1\nkind: B\n";

    #[test]
    fn output_is_cut_at_source_comments() {
        let documents = split_output(OUTPUT, Path::new("charts/aks"));
        assert_eq!(
            documents,
            [
                RenderedDocument {
                    template: PathBuf::from("charts/aks/templates/cluster.yaml"),
                    first_line: 3,
                    text: "apiVersion: v1\nkind: A\n".into(),
                    template_lines: None,
                },
                RenderedDocument {
                    template: PathBuf::from("charts/aks/charts/sub/templates/b.yaml"),
                    first_line: 7,
                    text: "apiVersion: v1\nkind: B\n".into(),
                    template_lines: None,
                },
            ]
        );
    }

    #[test]
    fn output_lines_map_to_the_template_document() {
        let request = RenderRequest {
            chart_dir: PathBuf::from("charts/aks"),
            release: "aks".into(),
            namespace: "default".into(),
            values_files: vec![PathBuf::from("charts/aks/values.yaml")],
            inline_values: vec![InlineValues { label: "Application/a helm.values".into(), ..InlineValues::default() }],
            set_string: vec!["a=b".into()],
            ..RenderRequest::default()
        };
        // The chart's own template is a file (lines of it); the subchart's is packed in a .tgz (line 1).
        let base = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(base.path().join("charts/aks/templates")).unwrap();
        std::fs::write(
            base.path().join("charts/aks/templates/cluster.yaml"),
            "{{- if .Values.on }}\napiVersion: v1\nkind: {{ .Values.kind }}\n{{- end }}\n",
        )
        .unwrap();
        let render = HelmRender::from_output(request, OUTPUT.into(), base.path());
        assert_eq!(render.locate_output_line(4), Some(("charts/aks/templates/cluster.yaml".into(), 3)));
        assert_eq!(render.locate_output_line(7), Some(("charts/aks/charts/sub/templates/b.yaml".into(), 1)));
        assert_eq!(render.locate_output_line(8), Some(("charts/aks/charts/sub/templates/b.yaml".into(), 1)));
        assert_eq!(render.locate_output_line(1), None);
        assert_eq!(
            render.command(),
            "helm template aks ./charts/aks --namespace default --values charts/aks/values.yaml \
             --values <values of Application/a helm.values> --set-string a=b"
        );
        let read = render.read();
        assert_eq!(read.documents.len(), 2);
        assert_eq!(read.documents[1].origin.source.as_ref(), "charts/aks/charts/sub/templates/b.yaml");
        assert_eq!(read.documents[0].line_of("/kind"), 3);
        assert_eq!(read.documents[1].line_of("/kind"), 1);
    }

    #[test]
    fn a_secrets_value_set_on_the_command_line_is_not_shown() {
        let secret = WrittenAt { file: PathBuf::from("flux/values.yaml"), line: 7, secret: true };
        let request = RenderRequest {
            chart_dir: PathBuf::from("charts/aks"),
            release: "aks".into(),
            namespace: "default".into(),
            set_string: vec!["password=hunter22".into(), "plain=shown".into()],
            set_written_at: HashMap::from([("password=hunter22".to_string(), secret)]),
            ..RenderRequest::default()
        };
        let render = HelmRender { request, text: String::new(), documents: Vec::new() };
        assert_eq!(
            render.command(),
            "helm template aks ./charts/aks --namespace default --set-string password=*** --set-string plain=shown"
        );
    }

    #[test]
    fn a_release_name_helm_would_read_as_a_flag_never_reaches_it() {
        for release in ["--post-renderer=./run.sh", "-x", "Upper", "a_b", &"a".repeat(54), ""] {
            let request = RenderRequest {
                chart_dir: PathBuf::from("charts/aks"),
                release: release.to_string(),
                namespace: "default".into(),
                ..RenderRequest::default()
            };
            // Refused before any process starts (no helm is needed to see it).
            match helm_template(&request, &[], &[], &crate::source::budget::Budget::default()) {
                Err(HelmProblem::TemplateError { message, .. }) => {
                    assert!(message.contains("is not a Helm release name"), "{release}: {message}")
                }
                other => panic!("{release}: {other:?}"),
            }
        }
        assert!(is_release_name("shop-prod") && is_release_name("a.b-1") && is_release_name(&"a".repeat(53)));
    }

    #[test]
    fn helm_errors_lose_their_prefix_and_log_lines() {
        let stderr = "walk.go:75: found symbolic link in path\nError: template: aks/templates/a.yaml:3:4: boom\n";
        assert_eq!(helm_message(stderr), "template: aks/templates/a.yaml:3:4: boom");
        assert_eq!(helm_message("plain failure\n"), "plain failure");
        let stderr = "Error: execution error at (aks/templates/a.yaml:3:4): x is required\n\nUse --debug flag to render \
                      out invalid YAML\n";
        assert_eq!(helm_message(stderr), "execution error at (aks/templates/a.yaml:3:4): x is required");
    }
}
