//! The README a newcomer reads: its first screen (everything above the first `## ` heading) fits 40 lines and
//! holds the two commands that do all the set-up, both real; its Layout section names every folder of src/.

use std::path::Path;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The lines above the first second-level heading.
fn first_screen(readme: &str) -> Vec<&str> {
    readme.lines().take_while(|line| !line.starts_with("## ")).collect()
}

#[test]
fn the_first_screen_fits_40_lines_and_holds_the_two_commands() {
    let readme = readme();
    let screen = first_screen(&readme);
    assert!(screen.len() <= 40, "the README's first screen is {} lines:\n{}", screen.len(), screen.join("\n"));
    let render = screen
        .iter()
        .find(|line| line.starts_with("cargo run ") && line.contains(" render "))
        .expect("the first screen shows the render command");
    let values = render.split_whitespace().skip_while(|word| *word != "--values").nth(1).expect("a values file");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(root.join(values).is_file(), "{values} is not a shipped file");
    assert!(screen.contains(&"./scripts/test-all.sh"), "the first screen shows the test command");
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(ci.lines().any(|line| line.trim() == "./scripts/test-all.sh"), ".ci/run runs the README's test command");
}

#[test]
fn the_layout_names_every_folder_of_src() {
    let readme = readme();
    let layout = readme.split("\n## Layout").nth(1).expect("a Layout section");
    let layout = layout.split("\n## ").next().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let listed = if entry.file_type().unwrap().is_dir() {
            layout.contains(&format!("`{name}/`"))
        } else {
            layout.contains(&format!("`{name}`")) || layout.contains(&format!("`src/{name}`"))
        };
        if !listed {
            missing.push(name);
        }
    }
    missing.sort();
    assert!(missing.is_empty(), "README's Layout does not name src/{missing:?}");
}

#[test]
fn first_screen_stops_at_the_first_section() {
    assert_eq!(first_screen("# t\n\ntext\n## A\nmore\n"), vec!["# t", "", "text"]);
}
