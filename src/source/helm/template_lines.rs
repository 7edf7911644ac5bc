//! Lines of a rendered Helm document mapped to lines of the template file that produced it.
//!
//! The template's lines are aligned with the rendered lines (longest common subsequence): lines that only hold
//! actions producing no output (`{{- if }}`, `{{- end }}`, `{{/* */}}`, `{{ $x := }}`) are left out, and each
//! `{{ ... }}` span of the other lines matches any text. Matched lines map exactly; the rendered lines between two
//! matches (an `include`/`toYaml | nindent` expansion, a changed hunk) map proportionally onto the template lines
//! between them, or, when there are none (a `range` repeating its body), to the nearest earlier template line
//! they match, else to the line of the previous match. Every mapped line is a line of the template.

/// Above this many cells (rendered lines × template lines) the alignment is skipped and lines map proportionally.
const MAX_CELLS: usize = 4_000_000;

/// Keywords of actions that print nothing.
const SILENT_ACTIONS: [&str; 8] = ["if", "else", "end", "range", "with", "define", "break", "continue"];

/// One template line taking part in the alignment.
#[derive(Debug)]
struct TemplateLine {
    /// 1-based line of the template file.
    number: usize,
    /// Literal pieces around the `{{ }}` spans; `None` for a line of spans only (an expansion: matches nothing).
    pieces: Option<Vec<String>>,
}

impl TemplateLine {
    fn matches(&self, rendered: &str) -> bool {
        let Some(pieces) = &self.pieces else { return false };
        glob_match(pieces, rendered.trim_end())
    }
}

/// Whether `text` is `pieces` joined by any text (one wildcard between consecutive pieces).
fn glob_match(pieces: &[String], text: &str) -> bool {
    match pieces {
        [] => text.is_empty(),
        [only] => text == only,
        [first, middle @ .., last] => {
            let Some(mut rest) = text.strip_prefix(first.as_str()) else { return false };
            for piece in middle {
                match rest.find(piece.as_str()) {
                    Some(at) => rest = &rest[at + piece.len()..],
                    None => return false,
                }
            }
            rest.len() >= last.len() && rest.ends_with(last.as_str())
        }
    }
}

/// Whether the action text (between `{{` and `}}`) prints nothing.
fn is_silent(action: &str) -> bool {
    let inner = action.trim_start_matches('-').trim_end_matches('-').trim();
    if inner.starts_with("/*") {
        return true;
    }
    let word = inner.split(|c: char| c.is_whitespace() || c == '(').next().unwrap_or("");
    if SILENT_ACTIONS.contains(&word) {
        return true;
    }
    // `$x := ...`, `$x = ...`
    word.starts_with('$') && inner[word.len()..].trim_start().starts_with([':', '='])
}

/// The template's lines as they take part in the alignment.
fn template_lines(template: &str) -> Vec<TemplateLine> {
    let mut lines = Vec::new();
    // Inside an action spanning lines: whether it prints.
    let mut open: Option<bool> = None;
    for (index, line) in template.lines().enumerate() {
        let mut pieces = vec![String::new()];
        let mut literal = false;
        let mut printing = false;
        let mut rest = line;
        if let Some(silent_open) = open {
            match rest.find("}}") {
                Some(at) => {
                    rest = &rest[at + 2..];
                    if !silent_open {
                        printing = true;
                        pieces.push(String::new());
                    }
                    open = None;
                }
                None => {
                    if !silent_open {
                        lines.push(TemplateLine { number: index + 1, pieces: None });
                    }
                    continue;
                }
            }
        }
        loop {
            match rest.find("{{") {
                Some(start) => {
                    let before = &rest[..start];
                    if !before.trim().is_empty() {
                        literal = true;
                    }
                    pieces.last_mut().expect("one piece").push_str(before);
                    let after = &rest[start + 2..];
                    match after.find("}}") {
                        Some(end) => {
                            let silent = is_silent(&after[..end]);
                            if !silent {
                                printing = true;
                                pieces.push(String::new());
                            }
                            rest = &after[end + 2..];
                        }
                        None => {
                            let silent = is_silent(after);
                            if !silent {
                                printing = true;
                                pieces.push(String::new());
                            }
                            open = Some(silent);
                            break;
                        }
                    }
                }
                None => {
                    if !rest.trim().is_empty() {
                        literal = true;
                    }
                    pieces.last_mut().expect("one piece").push_str(rest);
                    break;
                }
            }
        }
        let pieces = match (literal, printing) {
            (true, _) => Some(trim_end_pieces(pieces)),
            (false, true) => None,
            // Only silent actions: prints nothing. A blank line stays (it renders as one).
            (false, false) if line.trim().is_empty() => Some(vec![String::new()]),
            (false, false) => continue,
        };
        lines.push(TemplateLine { number: index + 1, pieces });
    }
    lines
}

fn trim_end_pieces(mut pieces: Vec<String>) -> Vec<String> {
    if let Some(last) = pieces.last_mut() {
        let trimmed = last.trim_end().len();
        last.truncate(trimmed);
    }
    pieces
}

/// Where `rendered` stands line for line in `template` (a file without actions: a CRD of `crds/`), 0-based.
fn verbatim_at(template: &str, rendered: &[&str]) -> Option<usize> {
    let raw: Vec<&str> = template.lines().collect();
    let first = rendered.first()?;
    (0..raw.len().checked_sub(rendered.len())? + 1).find(|&start| {
        raw[start].trim_end() == first.trim_end()
            && rendered.iter().zip(&raw[start..]).all(|(line, written)| line.trim_end() == written.trim_end())
    })
}

/// For each line of `rendered` (one document of helm's output), the 1-based line of `template` it came from.
pub(crate) fn map_rendered_lines(template: &str, rendered: &str) -> Vec<usize> {
    let last_line = template.lines().count().max(1);
    let rendered: Vec<&str> = rendered.lines().collect();
    if let Some(start) = verbatim_at(template, &rendered) {
        return (start + 1..=start + rendered.len()).collect();
    }
    let template = template_lines(template);
    let (t, r) = (template.len(), rendered.len());
    if t == 0 {
        return vec![1; r];
    }
    let mut matched: Vec<Option<usize>> = vec![None; r];
    if t.saturating_mul(r) <= MAX_CELLS {
        // lcs[i][j]: longest alignment of rendered[i..] with template[j..].
        let width = t + 1;
        let mut lcs = vec![0u32; (r + 1) * width];
        for i in (0..r).rev() {
            for j in (0..t).rev() {
                lcs[i * width + j] = if template[j].matches(rendered[i]) {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < r && j < t {
            if template[j].matches(rendered[i]) && lcs[i * width + j] == lcs[(i + 1) * width + j + 1] + 1 {
                matched[i] = Some(j);
                i += 1;
                j += 1;
            } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
                i += 1;
            } else {
                j += 1;
            }
        }
    }
    let mut lines = vec![0; r];
    let mut i = 0;
    while i < r {
        if let Some(j) = matched[i] {
            lines[i] = template[j].number;
            i += 1;
            continue;
        }
        // A hunk: rendered lines i..end between template lines after `previous` and before `next`.
        let end = (i..r).find(|&k| matched[k].is_some()).unwrap_or(r);
        let previous = i.checked_sub(1).and_then(|k| matched[k]);
        let first = previous.map_or(0, |j| j + 1);
        let next = matched.get(end).copied().flatten().unwrap_or(t);
        let between = next.saturating_sub(first);
        for k in i..end {
            let at = if between > 0 {
                first + (k - i) * between / (end - i)
            } else {
                let repeated = (0..first).rev().find(|&j| template[j].matches(rendered[k]));
                repeated.or(previous).unwrap_or(next.min(t - 1))
            };
            lines[k] = template[at].number;
        }
        i = end;
    }
    lines.into_iter().map(|line| line.clamp(1, last_line)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = r#"{{- /* A cluster and its pools. */ -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Values.name }}
  labels:
    {{- include "chart.labels" . | nindent 4 }}
{{- if .Values.extra }}
  annotations:
    extra: "yes"
{{- end }}
data:
  {{- range .Values.pools }}
  {{ .name }}: {{ .size | quote }}
  {{- end }}
  mode: Literal
"#;

    #[test]
    fn lines_map_to_the_template_line_that_wrote_them() {
        let rendered = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  labels:\n    app: demo\n    \
                        tier: x\n  annotations:\n    extra: \"yes\"\ndata:\n  a: \"1\"\n  b: \"2\"\n  mode: Literal\n";
        let lines = map_rendered_lines(TEMPLATE, rendered);
        // apiVersion kind metadata name labels [include x2] annotations extra data [range x2] mode
        assert_eq!(lines, [2, 3, 4, 5, 6, 7, 7, 9, 10, 12, 14, 14, 16]);
    }

    #[test]
    fn lines_never_go_beyond_the_template() {
        let rendered = "a:\n".to_string() + &(0..200).map(|n| format!("  k{n}: v\n")).collect::<String>();
        let lines = map_rendered_lines("a:\n{{- toYaml .Values.a | nindent 2 }}\n", &rendered);
        assert_eq!(lines[0], 1);
        assert!(lines[1..].iter().all(|&line| line == 2), "{lines:?}");
        assert_eq!(map_rendered_lines("", "a: 1\n"), [1]);
        assert_eq!(map_rendered_lines("{{ .Values.all }}", "a: 1\nb: 2\n"), [1, 1]);
    }

    #[test]
    fn a_file_without_actions_maps_line_for_line() {
        let crd = "# a comment\n---\napiVersion: v1\nkind: A\nspec:\n  x: 1\n";
        assert_eq!(map_rendered_lines(crd, "apiVersion: v1\nkind: A\nspec:\n  x: 1\n"), [3, 4, 5, 6]);
    }

    #[test]
    fn multi_line_comments_and_assignments_print_nothing() {
        let template = "{{/*\n a comment\n*/}}\n{{- $name := .Values.name }}\nkind: A\nname: {{ $name }}\n";
        assert_eq!(map_rendered_lines(template, "kind: A\nname: x\n"), [5, 6]);
    }
}
