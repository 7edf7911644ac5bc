//! The completion engine: from the words typed so far to candidates, over the clap definitions
//! (subcommands, flags, enumerated values) plus the values only the plugin knows (flavor names,
//! kubeconfig contexts, namespaces). Speaks cobra's `__complete` protocol, which kubectl (1.26+)
//! uses for plugins through `kubectl_complete-capz` and our own shell scripts use too.

use std::path::PathBuf;

use clap::{Arg, ArgAction, Command};

/// cobra's ShellCompDirective values (cobra/completions.go).
pub const DIRECTIVE_DEFAULT: u32 = 0; // the shell completes file names
pub const DIRECTIVE_NO_SPACE: u32 = 2;
pub const DIRECTIVE_NO_FILE_COMP: u32 = 4;
pub const DIRECTIVE_FILTER_DIRS: u32 = 16;

/// What to offer for the word being completed.
#[derive(Debug, Default, PartialEq)]
pub struct Completions {
    /// `value` and its description (may be empty).
    pub candidates: Vec<(String, String)>,
    /// cobra's directive for the shell.
    pub directive: u32,
}

/// Values the clap definitions cannot know: looked up when asked (the cluster only for namespaces).
pub trait Lookup {
    /// Flavor names (embedded and from `--flavor-dir`).
    fn flavors(&self, flavor_dir: Option<&std::path::Path>) -> Vec<String>;
    /// Context names of the kubeconfig kubectl would read (`--kubeconfig` if typed).
    fn contexts(&self, kubeconfig: Option<&std::path::Path>) -> Vec<String>;
    /// Namespaces of the cluster of that kubeconfig and context.
    fn namespaces(&self, kubeconfig: Option<&std::path::Path>, context: Option<&str>) -> Vec<String>;
    /// Parameter paths for `--set` (`pools[0].replicas`).
    fn parameters(&self) -> Vec<String>;
}

/// What the typed words said so far (flag values other completions depend on).
#[derive(Debug, Default)]
struct Seen {
    kubeconfig: Option<PathBuf>,
    context: Option<String>,
    flavor_dir: Option<PathBuf>,
}

impl Seen {
    fn record(&mut self, arg: &Arg, value: &str) {
        match arg.get_id().as_str() {
            "kubeconfig" => self.kubeconfig = Some(PathBuf::from(value)),
            "context" => self.context = Some(value.to_string()),
            "flavor_dir" => self.flavor_dir = Some(PathBuf::from(value)),
            _ => {}
        }
    }
}

fn takes_value(arg: &Arg) -> bool {
    matches!(arg.get_action(), ArgAction::Set | ArgAction::Append)
}

fn find_long<'a>(cmd: &'a Command, name: &str) -> Option<&'a Arg> {
    cmd.get_arguments().find(|a| a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|al| al.contains(&name)))
}

fn find_short(cmd: &Command, c: char) -> Option<&Arg> {
    cmd.get_arguments().find(|a| a.get_short() == Some(c))
}

fn find_subcommand<'a>(cmd: &'a Command, name: &str) -> Option<&'a Command> {
    cmd.get_subcommands().find(|s| s.get_name() == name || s.get_all_aliases().any(|a| a == name))
}

/// Completes the last of `words` (the words after the program name; the last one is the word
/// under the cursor, empty for a new word).
pub fn complete(root: &Command, words: &[String], lookup: &dyn Lookup) -> Completions {
    let (current_word, before) = match words.split_last() {
        Some((last, before)) => (last.as_str(), before),
        None => ("", &[][..]),
    };
    let mut cmd = root;
    let mut seen = Seen::default();
    let mut pending: Option<&Arg> = None;
    let mut positionals = 0usize;
    let mut only_positionals = false;
    for word in before {
        if let Some(arg) = pending.take() {
            seen.record(arg, word);
            continue;
        }
        if !only_positionals && word == "--" {
            only_positionals = true;
            continue;
        }
        if !only_positionals && let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if let Some(arg) = find_long(cmd, name).filter(|a| takes_value(a)) {
                match value {
                    Some(v) => seen.record(arg, v),
                    None => pending = Some(arg),
                }
            }
            continue;
        }
        if !only_positionals && word.len() > 1 && word.starts_with('-') {
            let mut chars = word[1..].chars();
            if let Some(c) = chars.next()
                && let Some(arg) = find_short(cmd, c).filter(|a| takes_value(a))
            {
                let rest = chars.as_str().trim_start_matches('=');
                if rest.is_empty() {
                    pending = Some(arg);
                } else {
                    seen.record(arg, rest);
                }
            }
            continue;
        }
        if positionals == 0
            && let Some(sub) = find_subcommand(cmd, word)
        {
            cmd = sub;
            continue;
        }
        positionals += 1;
    }

    if let Some(arg) = pending {
        return values(arg, current_word, "", &seen, lookup);
    }
    if !only_positionals && let Some(long) = current_word.strip_prefix("--") {
        if let Some((name, value)) = long.split_once('=') {
            return match find_long(cmd, name).filter(|a| takes_value(a)) {
                Some(arg) => values(arg, value, &format!("--{name}="), &seen, lookup),
                None => Completions { candidates: Vec::new(), directive: DIRECTIVE_NO_FILE_COMP },
            };
        }
        return flags(cmd, current_word);
    }
    if !only_positionals && current_word.starts_with('-') {
        return flags(cmd, current_word);
    }
    if positionals == 0 && cmd.has_subcommands() {
        let candidates = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
            .filter(|s| s.get_name().starts_with(current_word))
            .map(|s| (s.get_name().to_string(), about(s.get_about())))
            .collect();
        return Completions { candidates, directive: DIRECTIVE_NO_FILE_COMP };
    }
    let mut positional_args: Vec<&Arg> = cmd.get_positionals().collect();
    positional_args.sort_by_key(|a| a.get_index().unwrap_or(usize::MAX));
    let arg = positional_args
        .get(positionals)
        .copied()
        .or_else(|| positional_args.last().copied().filter(|a| a.get_num_args().is_some_and(|n| n.max_values() > 1)));
    match arg {
        Some(arg) => values(arg, current_word, "", &seen, lookup),
        None => Completions { candidates: Vec::new(), directive: DIRECTIVE_NO_FILE_COMP },
    }
}

fn about(text: Option<&clap::builder::StyledStr>) -> String {
    text.map(|t| t.to_string().lines().next().unwrap_or("").trim_end_matches('.').to_string()).unwrap_or_default()
}

/// Flags of `cmd` matching `prefix`: every long flag, and the short ones when only `-` is typed.
fn flags(cmd: &Command, prefix: &str) -> Completions {
    let mut candidates = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set() && !a.is_positional()) {
        let help = about(arg.get_help());
        if let Some(long) = arg.get_long() {
            let flag = format!("--{long}");
            if flag.starts_with(prefix) {
                candidates.push((flag, help.clone()));
            }
        }
        if prefix == "-"
            && let Some(short) = arg.get_short()
        {
            candidates.push((format!("-{short}"), help));
        }
    }
    Completions { candidates, directive: DIRECTIVE_NO_FILE_COMP }
}

/// Values of `arg` starting with `typed`, each prefixed with `prefix` (`--flag=`).
fn values(arg: &Arg, typed: &str, prefix: &str, seen: &Seen, lookup: &dyn Lookup) -> Completions {
    let enumerated: Vec<(String, String)> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| (v.get_name().to_string(), about(v.get_help())))
        .collect();
    let plain = |names: Vec<String>| names.into_iter().map(|n| (n, String::new())).collect::<Vec<_>>();
    let (candidates, directive) = if !enumerated.is_empty() {
        (enumerated, DIRECTIVE_NO_FILE_COMP)
    } else {
        match arg.get_id().as_str() {
            "flavor" => (plain(lookup.flavors(seen.flavor_dir.as_deref())), DIRECTIVE_NO_FILE_COMP),
            "context" => (plain(lookup.contexts(seen.kubeconfig.as_deref())), DIRECTIVE_NO_FILE_COMP),
            "namespace" => {
                (plain(lookup.namespaces(seen.kubeconfig.as_deref(), seen.context.as_deref())), DIRECTIVE_NO_FILE_COMP)
            }
            // `path=`, the value typed next without a space.
            "set" if !typed.contains('=') => (
                plain(lookup.parameters().into_iter().map(|p| format!("{p}=")).collect()),
                DIRECTIVE_NO_FILE_COMP | DIRECTIVE_NO_SPACE,
            ),
            _ => {
                let value_name = arg.get_value_names().map(|v| v.join(" ")).unwrap_or_default();
                if value_name.contains("DIR") && !value_name.contains("FILE") {
                    (Vec::new(), DIRECTIVE_FILTER_DIRS)
                } else if value_name.contains("FILE") || value_name.contains(".yaml") {
                    (Vec::new(), DIRECTIVE_DEFAULT)
                } else {
                    (Vec::new(), DIRECTIVE_NO_FILE_COMP)
                }
            }
        }
    };
    let candidates = candidates
        .into_iter()
        .filter(|(v, _)| v.starts_with(typed))
        .map(|(v, help)| (format!("{prefix}{v}"), help))
        .collect();
    Completions { candidates, directive }
}

/// cobra's `__complete` output: one `value\tdescription` per line, then `:<directive>`.
pub fn cobra_output(completions: &Completions) -> String {
    let mut out = String::new();
    for (value, help) in &completions.candidates {
        if help.is_empty() {
            out.push_str(value);
        } else {
            out.push_str(&format!("{value}\t{help}"));
        }
        out.push('\n');
    }
    out.push_str(&format!(":{}\n", completions.directive));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    struct Fixed;
    impl Lookup for Fixed {
        fn flavors(&self, dir: Option<&std::path::Path>) -> Vec<String> {
            let mut v = vec!["aks".to_string(), "aks-aso".to_string()];
            if dir.is_some() {
                v.push("mine".into());
            }
            v
        }
        fn contexts(&self, kubeconfig: Option<&std::path::Path>) -> Vec<String> {
            vec![kubeconfig.map_or("default-ctx".into(), |p| p.display().to_string())]
        }
        fn namespaces(&self, _: Option<&std::path::Path>, context: Option<&str>) -> Vec<String> {
            vec![format!("ns-of-{}", context.unwrap_or("current"))]
        }
        fn parameters(&self) -> Vec<String> {
            vec!["location".into(), "pools[0].replicas".into()]
        }
    }

    fn values_of(words: &[&str]) -> (Vec<String>, u32) {
        let mut root = crate::cli::Cli::command();
        root.build();
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let c = complete(&root, &words, &Fixed);
        (c.candidates.into_iter().map(|(v, _)| v).collect(), c.directive)
    }

    #[test]
    fn subcommands_then_flags_and_values_of_each() {
        let (subs, directive) = values_of(&[""]);
        assert!(subs.contains(&"render".into()) && subs.contains(&"diff".into()), "{subs:?}");
        assert!(!subs.contains(&"import-schemas".into()) && !subs.contains(&"help".into()), "hidden: {subs:?}");
        assert_eq!(directive, DIRECTIVE_NO_FILE_COMP);
        assert_eq!(values_of(&["re"]).0, ["render"]);
        assert_eq!(values_of(&["render", "--gitops", ""]).0, ["flux", "argocd"]);
        assert_eq!(values_of(&["render", "--gitops=a"]).0, ["--gitops=argocd"]);
        assert_eq!(values_of(&["render", "--capi-api", ""]).0, ["v1beta1", "v1beta2"]);
        assert_eq!(values_of(&["render", "-o", ""]).0, ["yaml", "json"]);
        assert_eq!(values_of(&["render", ""]).0, ["aks", "aks-aso"]);
        assert_eq!(values_of(&["render", "--flavor-dir", "x", ""]).0, ["aks", "aks-aso", "mine"]);
        assert_eq!(values_of(&["render", "aks", ""]), (vec![], DIRECTIVE_NO_FILE_COMP), "NAME is free text");
        assert_eq!(values_of(&["params", "aks-"]).0, ["aks-aso"]);
        assert_eq!(values_of(&["diff", "--context", ""]).0, ["default-ctx"]);
        assert_eq!(values_of(&["diff", "--kubeconfig", "/k", "--context", ""]).0, ["/k"]);
        assert_eq!(values_of(&["diff", "--context=prod", "-n", ""]).0, ["ns-of-prod"]);
        assert_eq!(values_of(&["completion", ""]).0, ["bash", "zsh", "fish", "elvish", "powershell", "kubectl"]);
        assert_eq!(values_of(&["validate", "a.yaml", "-o", "j"]).0, ["json", "junit"]);
        assert_eq!(values_of(&["validate", ""]).1, DIRECTIVE_DEFAULT, "files");
        assert_eq!(values_of(&["render", "--out-dir", ""]).1, DIRECTIVE_FILTER_DIRS);
        assert_eq!(values_of(&["render", "aks", "x", "--set", "po"]), (vec!["pools[0].replicas=".to_string()], 6));
        assert_eq!(values_of(&["render", "--set", "location=w"]).0, Vec::<String>::new());
        let flags = values_of(&["diff", "--no-"]).0;
        assert!(flags.contains(&"--no-force-conflicts".to_string()), "{flags:?}");
    }

    #[test]
    fn cobra_protocol_output() {
        let c = Completions { candidates: vec![("flux".into(), "".into()), ("a".into(), "b".into())], directive: 4 };
        assert_eq!(cobra_output(&c), "flux\na\tb\n:4\n");
    }
}
