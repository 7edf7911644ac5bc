//! CRD `pattern`s as the API server matches them: Go's RE2 syntax, where the Perl classes `\d`, `\w` and `\s` are
//! ASCII-only. The `regex` crate reads them as Unicode classes, so they are rewritten to their ASCII sets first.

/// `pattern` with `\d \w \s` (and `\D \W \S` outside brackets) spelled as the ASCII sets RE2 gives them.
pub(crate) fn ascii_perl_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(escaped) = chars.next() else {
                    out.push(c);
                    break;
                };
                let set = match escaped.to_ascii_lowercase() {
                    'd' => Some("0-9"),
                    'w' => Some("0-9A-Za-z_"),
                    's' => Some("\\t\\n\\f\\r "),
                    _ => None,
                };
                match set {
                    Some(set) if in_class && escaped.is_ascii_lowercase() => out.push_str(set),
                    Some(set) if !in_class => {
                        let negated = if escaped.is_ascii_uppercase() { "^" } else { "" };
                        out.push_str(&format!("[{negated}{set}]"));
                    }
                    _ => {
                        out.push('\\');
                        out.push(escaped);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` right after `[` or `[^` is a literal.
                let rest = chars.as_str();
                let skip = if rest.starts_with("^]") { 2 } else { usize::from(rest.starts_with(']')) };
                out.push_str(&rest[..skip]);
                chars = rest[skip..].chars();
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_become_ascii_sets() {
        assert_eq!(ascii_perl_classes(r"^(\d+)m$"), "^([0-9]+)m$");
        assert_eq!(ascii_perl_classes(r"^[-\w\._]+$"), r"^[-0-9A-Za-z_\._]+$");
        assert_eq!(ascii_perl_classes(r"\D\S\W"), r"[^0-9][^\t\n\f\r ][^0-9A-Za-z_]");
        assert_eq!(ascii_perl_classes(r"[]\d]\\d"), r"[]0-9]\\d");
        let re = regex::Regex::new(&ascii_perl_classes(r"^(\d+)s$")).unwrap();
        assert!(re.is_match("10s") && !re.is_match("١٠s"));
    }
}
