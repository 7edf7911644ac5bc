//! README.md's parameter reference is generated from the parameter model and kept current.

use std::path::Path;

fn parameter_table() -> String {
    let mut table = String::from("| parameter | type | default | env | description |\n|---|---|---|---|---|\n");
    for row in capz::params::param_rows() {
        let cell = |text: &str| text.replace('|', "\\|").replace('\n', " ");
        table.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            row.path,
            cell(&row.kind),
            row.default.as_deref().map(|d| format!("`{}`", cell(d))).unwrap_or_else(|| "–".into()),
            row.env.as_deref().map(|e| format!("`{e}`")).unwrap_or_else(|| "–".into()),
            cell(&row.doc),
        ));
    }
    table
}

/// The table between the `params` markers equals the one generated now.
#[test]
fn readme_parameter_reference_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (start, end) = ("<!-- params:start -->\n", "<!-- params:end -->");
    let from = readme.find(start).expect("start marker") + start.len();
    let to = readme.find(end).expect("end marker");
    let expected = parameter_table();
    if std::env::var_os("UPDATE_README").is_some() {
        let updated = format!("{}{}{}", &readme[..from], expected, &readme[to..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        &readme[from..to],
        expected,
        "README parameter table is stale: UPDATE_README=1 cargo test --test cli readme"
    );
}
