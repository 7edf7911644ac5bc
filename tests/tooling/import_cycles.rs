//! No import circle between the files of src/, nor between its folders: every `crate::`/`super::` path of a file
//! (in `use` lines and in code) is an edge to the file that defines what it names (re-exports of a `mod.rs`
//! followed to the child that defines the item); a module's edges into its own submodules are structure, not
//! imports. Folders (modules with sub-files) are then taken whole: inside each folder (and src/ itself), an edge
//! between two files is an edge between the children of that folder that hold them, so a loop through several
//! folders (`a/x.rs` -> `b/y.rs` -> `a/z.rs`) is a cycle even when no two files import each other. Any cycle fails,
//! named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A file of src/ and its module path (`src/lint/network.rs` -> `["lint", "network"]`).
struct SourceFile {
    module: Vec<String>,
    /// The code without comments, string contents and the unit tests module.
    code: String,
    /// Whether the file is a test module (`#[cfg(test)] mod tests;`) or inside one.
    test_only: bool,
}

fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && !(parts.is_empty() && (stem == "lib" || stem == "main")) {
        parts.push(stem.to_string());
    }
    parts
}

/// `code` without `//` comments, the text inside string literals, and from the first `#[cfg(test)]` on (the
/// unit tests, whose `super::` is the file itself).
fn strip(code: &str) -> String {
    let code = match code.find("#[cfg(test)]\nmod ") {
        Some(at) => &code[..at],
        None => code,
    };
    let mut out = String::with_capacity(code.len());
    let mut chars = code.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    in_string = false;
                    out.push('"');
                }
                '\n' => out.push('\n'),
                _ => {}
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                // A char literal `'"'` is not a string.
                if out.ends_with('\'') {
                    out.push(c);
                } else {
                    in_string = true;
                    out.push('"');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether `code` declares its submodule `name` under `#[cfg(test)]` (`#[cfg(test)]\nmod tests;`).
fn declares_test_module(code: &str, name: &str) -> bool {
    let mut lines = code.lines().map(str::trim).filter(|line| !line.is_empty());
    while let Some(line) = lines.next() {
        if line == "#[cfg(test)]"
            && let Some(next) = lines.clone().next()
            && next.trim_start_matches("pub(crate) ").trim_start_matches("pub ") == format!("mod {name};")
        {
            return true;
        }
    }
    false
}

fn read_sources(root: &Path) -> BTreeMap<PathBuf, SourceFile> {
    let mut raw = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap().to_path_buf();
                if rel == Path::new("main.rs") {
                    continue;
                }
                raw.insert(module_path(&rel), (rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    // A module is a test module when its parent declares it under `#[cfg(test)]`, or its parent is one.
    let test_only = |module: &[String]| {
        (1..=module.len()).any(|len| {
            let parent = &module[..len - 1];
            raw.get(parent).is_some_and(|(_, code)| declares_test_module(code, &module[len - 1]))
        })
    };
    raw.iter()
        .map(|(module, (rel, code))| {
            let file = SourceFile { module: module.clone(), code: strip(code), test_only: test_only(module) };
            (rel.clone(), file)
        })
        .collect()
}

/// The leaf paths of a use tree: `a::{b, c::{d as e}}` -> `a::b`, `a::c::d` (aliases dropped, `self` folded).
fn expand_use_tree(tree: &str) -> Vec<(String, String)> {
    let tree: String = tree.replace(" as ", "@").chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    expand_into("", &tree, &mut out);
    out
}

fn expand_into(prefix: &str, tree: &str, out: &mut Vec<(String, String)>) {
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let base = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_into(&base, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand_into(&base, &inner[start..], out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (path, alias) = match tree.split_once('@') {
        Some((path, alias)) => (path, Some(alias)),
        None => (tree, None),
    };
    let (path, name) = if path == "self" {
        (prefix.to_string(), prefix.rsplit("::").next().unwrap_or("").to_string())
    } else {
        let full = join(prefix, path);
        let name = full.rsplit("::").next().unwrap_or("").to_string();
        (full, name)
    };
    let name = alias.map_or(name, str::to_string);
    out.push((path, name));
}

fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{rest}"),
    }
}

/// The `use` statements of `code`, whole (across lines), without `use` and `;`, with their visibility.
fn use_statements(code: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        let (public, start) = at;
        let Some(end) = rest[start..].find(';') else { break };
        out.push((public, rest[start..start + end].to_string()));
        rest = &rest[start + end..];
    }
    out
}

/// The next `use ` at the start of a statement: (whether `pub`, byte offset of the tree).
fn find_use(code: &str) -> Option<(bool, usize)> {
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        for (prefix, public) in
            [("use ", false), ("pub use ", true), ("pub(crate) use ", true), ("pub(super) use ", true)]
        {
            if trimmed.starts_with(prefix) {
                return Some((public, offset + indent + prefix.len()));
            }
        }
        offset += line.len();
    }
    None
}

/// Makes `path` (as written in module `module`) absolute: `crate::a::b`, `super::c`, `self::d`; `None` for paths
/// into other crates.
fn absolute(module: &[String], path: &str, modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let first = *segments.first()?;
    let mut base: Vec<String> = match first {
        "crate" => Vec::new(),
        "super" | "self" => module.to_vec(),
        _ => {
            // A child module named without `self::` (2018 paths).
            let mut child = module.to_vec();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
            module.to_vec()
        }
    };
    let mut rest = &segments[..];
    if first == "crate" || first == "self" {
        rest = &rest[1..];
    }
    while rest.first() == Some(&"super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().map(|s| s.to_string()));
    Some(base)
}

struct Crate {
    files: BTreeMap<PathBuf, SourceFile>,
    /// Module path -> file.
    by_module: BTreeMap<Vec<String>, PathBuf>,
    /// Module path -> re-exported name -> absolute path it names.
    reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
}

impl Crate {
    fn load(root: &Path) -> Crate {
        let files = read_sources(root);
        let by_module: BTreeMap<Vec<String>, PathBuf> =
            files.iter().map(|(path, file)| (file.module.clone(), path.clone())).collect();
        let modules: BTreeSet<Vec<String>> = by_module.keys().cloned().collect();
        let mut reexports = BTreeMap::new();
        for file in files.values() {
            let mut names = BTreeMap::new();
            for (public, tree) in use_statements(&file.code) {
                if !public {
                    continue;
                }
                for (path, name) in expand_use_tree(&tree) {
                    if let Some(target) = absolute(&file.module, &path, &modules) {
                        names.insert(name, target);
                    }
                }
            }
            reexports.insert(file.module.clone(), names);
        }
        Crate { files, by_module, reexports }
    }

    /// The file defining what the absolute `path` names.
    fn resolve(&self, path: &[String], depth: usize) -> Option<&PathBuf> {
        let mut module: Vec<String> = Vec::new();
        for segment in path {
            let mut deeper = module.clone();
            deeper.push(segment.clone());
            if self.by_module.contains_key(&deeper) {
                module = deeper;
                continue;
            }
            if depth < 8
                && let Some(target) = self.reexports.get(&module).and_then(|names| names.get(segment))
                && target.as_slice() != path
            {
                return self.resolve(target, depth + 1);
            }
            break;
        }
        self.by_module.get(&module)
    }

    /// File -> files it imports from (outside its own submodules).
    fn edges(&self) -> BTreeMap<&PathBuf, BTreeSet<&PathBuf>> {
        let modules: BTreeSet<Vec<String>> = self.by_module.keys().cloned().collect();
        let mut edges = BTreeMap::new();
        for (path, file) in &self.files {
            let mut targets = BTreeSet::new();
            let mut add = |written: &str| {
                if let Some(absolute) = absolute(&file.module, written, &modules)
                    && let Some(target) = self.resolve(&absolute, 0)
                    && !self.files[target].module.starts_with(&file.module)
                {
                    targets.insert(target);
                }
            };
            for (_, tree) in use_statements(&file.code) {
                for (written, _) in expand_use_tree(&tree) {
                    add(&written);
                }
            }
            // Paths in code: `crate::a::b(...)`, `super::c::D`.
            let code = &file.code;
            for (at, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
                if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let written: String =
                    code[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
                add(written.trim_end_matches(':'));
            }
            edges.insert(path, targets);
        }
        edges
    }
}

/// One cycle through each strongly connected component of more than one node (file or folder).
fn cycles<N: Ord + Copy>(edges: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    let mut found = Vec::new();
    let mut reported: BTreeSet<N> = BTreeSet::new();
    for &start in edges.keys() {
        if reported.contains(&start) {
            continue;
        }
        // Breadth-first from the start's successors back to the start: the shortest cycle through it.
        let mut previous: BTreeMap<N, N> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut closed = false;
        'search: while let Some(node) = queue.pop_front() {
            for &next in &edges[&node] {
                if next == start {
                    previous.insert(start, node);
                    closed = true;
                    break 'search;
                }
                if let std::collections::btree_map::Entry::Vacant(slot) = previous.entry(next) {
                    slot.insert(node);
                    queue.push_back(next);
                }
            }
        }
        if !closed {
            continue;
        }
        let mut cycle = vec![start];
        let mut node = previous[&start];
        while node != start {
            cycle.push(node);
            node = previous[&node];
        }
        cycle.reverse();
        cycle.rotate_right(1);
        reported.extend(cycle.iter().copied());
        found.push(cycle);
    }
    found
}

/// The modules that are folders: those with a submodule in a file of their own (`lint`, `lint/aso_patches`),
/// test modules left out (`manifest/direct.rs` with `manifest/direct/tests.rs` is a file).
fn folders(krate: &Crate) -> BTreeSet<&[String]> {
    krate
        .files
        .values()
        .filter(|file| !file.test_only)
        .flat_map(|file| (1..file.module.len()).map(|len| &file.module[..len]))
        .collect()
}

/// Edges between modules, named by their paths.
type ModuleGraph<'a> = BTreeMap<&'a [String], BTreeSet<&'a [String]>>;

/// Inside each folder (and the crate root), the edges between its children, each child a file or a whole folder
/// (named by its module path): a file edge `f -> g` is an edge between the children of the innermost folder holding
/// both that contain them. A child importing its own folder's file (`super::Item` into `mod.rs`) is left out, as
/// the folder's file importing its children is; so are test modules, which are not part of the build's structure.
fn folder_edges<'a>(
    krate: &'a Crate,
    edges: &BTreeMap<&'a PathBuf, BTreeSet<&'a PathBuf>>,
) -> BTreeMap<&'a [String], ModuleGraph<'a>> {
    let mut levels: BTreeMap<&[String], ModuleGraph> = BTreeMap::new();
    for (from, targets) in edges {
        if krate.files[*from].test_only {
            continue;
        }
        let from = krate.files[*from].module.as_slice();
        for to in targets {
            if krate.files[*to].test_only {
                continue;
            }
            let to = krate.files[*to].module.as_slice();
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue;
            }
            let level = levels.entry(&from[..common]).or_default();
            level.entry(&to[..=common]).or_default();
            level.entry(&from[..=common]).or_default().insert(&to[..=common]);
        }
    }
    levels
}

/// One cycle through each loop that passes through a folder, at any level, as `a/ -> b.rs -> a/`.
fn folder_cycles(krate: &Crate, edges: &BTreeMap<&PathBuf, BTreeSet<&PathBuf>>) -> Vec<String> {
    let folders = folders(krate);
    let name = |module: &[String]| {
        let path = module.join("/");
        if folders.contains(module) { format!("{path}/") } else { format!("{path}.rs") }
    };
    let mut named = Vec::new();
    for level in folder_edges(krate, edges).values() {
        for cycle in cycles(level) {
            if !cycle.iter().any(|node| folders.contains(node)) {
                // Files only: the file-level test names it.
                continue;
            }
            let mut names: Vec<String> = cycle.iter().map(|node| name(node)).collect();
            names.push(names[0].clone());
            named.push(names.join(" -> "));
        }
    }
    named
}

#[test]
fn no_import_cycle_between_files_of_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let krate = Crate::load(&root);
    assert!(krate.files.len() > 100, "{} files", krate.files.len());
    let edges = krate.edges();
    let count: usize = edges.values().map(BTreeSet::len).sum();
    assert!(count > 300, "only {count} edges: the parser misses imports");
    let cycles = cycles(&edges);
    let named: Vec<String> = cycles
        .iter()
        .map(|cycle| {
            let mut names: Vec<String> = cycle.iter().map(|p| p.display().to_string()).collect();
            names.push(names[0].clone());
            names.join(" -> ")
        })
        .collect();
    assert!(named.is_empty(), "import cycles between files of src/:\n{}", named.join("\n"));
}

#[test]
fn no_import_cycle_between_folders_of_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let krate = Crate::load(&root);
    assert!(folders(&krate).len() > 10, "{} folders", folders(&krate).len());
    let found = folder_cycles(&krate, &krate.edges());
    assert!(found.is_empty(), "import cycles between folders of src/:\n{}", found.join("\n"));
}

#[test]
fn the_checker_sees_a_cycle_and_resolves_reexports() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "mod x;\nmod y;\npub use x::{Thing, other as renamed};\n").unwrap();
    std::fs::write(src.join("a/x.rs"), "use super::y::helper;\npub struct Thing;\n").unwrap();
    std::fs::write(
        src.join("a/y.rs"),
        "// crate::b::nothing in a comment\npub fn helper() { let _ = \"crate::b\"; }\n",
    )
    .unwrap();
    std::fs::write(src.join("b.rs"), "use crate::a::{self, Thing};\n").unwrap();
    let krate = Crate::load(src);
    let edges = krate.edges();
    let to =
        |from: &str| -> Vec<String> { edges[&PathBuf::from(from)].iter().map(|p| p.display().to_string()).collect() };
    assert_eq!(to("b.rs"), ["a/mod.rs", "a/x.rs"]);
    assert_eq!(to("a/x.rs"), ["a/y.rs"]);
    assert!(to("a/y.rs").is_empty(), "comments and strings are not imports");
    assert!(cycles(&edges).is_empty());
    std::fs::write(src.join("a/y.rs"), "pub fn helper() { crate::a::Thing; }\n").unwrap();
    let krate = Crate::load(src);
    let found = cycles(&krate.edges());
    assert_eq!(found.len(), 1, "{found:?}");
    let mut names: Vec<String> = found[0].iter().map(|p| p.display().to_string()).collect();
    names.sort();
    assert_eq!(names, ["a/x.rs", "a/y.rs"]);
}

/// Four folders in a loop with no two files importing each other (the shape of `params -> migrate -> fleet ->
/// render -> params`), a file and a folder importing each other, and edges that are structure (a folder's file
/// and its children) or stay inside one folder.
#[test]
fn the_checker_sees_a_loop_of_folders() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |path: &str, text: &str| {
        let path = src.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\n");
    write("a/mod.rs", "mod one;\nmod two;\npub use one::A;\n");
    write("a/one.rs", "use super::two::Two;\npub struct A;\n");
    write("a/two.rs", "use super::Item;\npub struct Two;\n");
    write("b/mod.rs", "mod one;\nmod two;\n");
    write("b/one.rs", "use crate::c::one::C;\npub struct B;\n");
    write("b/two.rs", "pub struct Two;\n");
    write("c/mod.rs", "pub mod one;\n");
    write("c/one.rs", "use crate::d::D;\npub struct C;\n");
    write("d/mod.rs", "mod one;\nmod two;\npub use one::D;\n");
    write("d/two.rs", "pub struct Two;\n");
    write("d/one.rs", "use crate::a::A;\npub struct D;\n");
    write("e.rs", "pub struct E;\n#[cfg(test)]\nmod tests;\n");
    // A test module importing what imports its file is not a loop of the build.
    write("e/tests.rs", "use crate::b::two::Two;\n");
    write("b/two.rs", "use crate::e::E;\npub struct Two;\n");
    let krate = Crate::load(src);
    assert!(krate.files[&PathBuf::from("e/tests.rs")].test_only && !krate.files[&PathBuf::from("e.rs")].test_only);
    let edges = krate.edges();
    assert!(cycles(&edges).is_empty(), "no two files import each other");
    assert!(folder_cycles(&krate, &edges).is_empty(), "{:?}", folder_cycles(&krate, &edges));
    // a/two.rs -> b/two.rs closes a -> b -> c -> d -> a; e.rs <-> d/ is a file and a folder in a loop.
    write("a/two.rs", "use super::Item;\nuse crate::b::two::Two as B;\npub struct Two;\n");
    write("e.rs", "use crate::d::two::Two;\npub struct E;\n#[cfg(test)]\nmod tests;\n");
    write("d/one.rs", "use crate::a::A;\nuse crate::e::E;\npub struct D;\n");
    let krate = Crate::load(src);
    let edges = krate.edges();
    assert!(cycles(&edges).is_empty(), "still no two files import each other: {:?}", cycles(&edges));
    let mut found = folder_cycles(&krate, &edges);
    found.sort();
    assert_eq!(found, ["a/ -> b/ -> c/ -> d/ -> a/", "e.rs -> d/ -> e.rs"], "{found:?}");
}
