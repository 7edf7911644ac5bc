//! The scalar one line of YAML (or of JSON) sets, read from the text alone: what a change review and `upgrade`
//! look for when they search a repository for the line that sets a value.

/// The scalar `line` sets (`key: value`, `- value`, `- key: value`, `"key": "value",`), without quotes or a
/// trailing comment; `None` for a comment line, a key without a value, or an empty value.
pub fn scalar_of_line(line: &str) -> Option<&str> {
    let line = line.trim();
    if line.starts_with('#') {
        return None;
    }
    let line = line.split(" #").next()?.trim().trim_end_matches(',');
    let value = match line.strip_prefix("- ") {
        Some(item) => item.rsplit_once(": ").map_or(item, |(_, v)| v),
        None => line.split_once(": ").map(|(_, v)| v)?,
    };
    let value = value.trim();
    let unquoted = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value);
    (!unquoted.is_empty()).then_some(unquoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_of_yaml_and_json_lines() {
        assert_eq!(scalar_of_line("  plugin: kubenet"), Some("kubenet"));
        assert_eq!(scalar_of_line("  plugin: \"kubenet\" # the CNI"), Some("kubenet"));
        assert_eq!(scalar_of_line("  - name: a"), Some("a"));
        assert_eq!(scalar_of_line("  - 'x'"), Some("x"));
        assert_eq!(scalar_of_line("  \"plugin\": \"kubenet\","), Some("kubenet"));
        assert_eq!(scalar_of_line("network:"), None);
        assert_eq!(scalar_of_line("# version: v1.33.2"), None);
    }
}
