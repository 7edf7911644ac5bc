//! `kubectl capz completion SHELL` (scripts for bash, zsh, fish that ask the binary, static ones
//! for elvish and PowerShell, and the `kubectl_complete-capz` helper) and the hidden
//! `__complete` command that answers them.

mod engine;
mod scripts;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use clap::CommandFactory;

use crate::cli::{Cli, CompleteArgs, CompletionArgs, CompletionShell};
use crate::cluster::{Cluster, ClusterOptions, Resource};
use crate::exit::ExitStatus;
use crate::json_pointer::At;
use crate::render::TemplateSource;

/// How long completion may wait for the namespaces (kubectl's own completion uses 5s).
const NAMESPACE_TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) fn run(args: CompletionArgs) -> anyhow::Result<ExitStatus> {
    let script: Vec<u8> = match args.shell {
        CompletionShell::Bash => scripts::BASH.into(),
        CompletionShell::Zsh => scripts::ZSH.into(),
        CompletionShell::Fish => scripts::FISH.into(),
        CompletionShell::Kubectl => scripts::KUBECTL_HELPER.into(),
        CompletionShell::Elvish => static_script(clap_complete::Shell::Elvish),
        CompletionShell::Powershell => static_script(clap_complete::Shell::PowerShell),
    };
    let mut stdout = super::output::stdout();
    stdout.write_all(&script).context("cannot write to stdout")?;
    Ok(ExitStatus::Success)
}

fn static_script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut command = Cli::command();
    // Generated into memory first: clap_complete panics on a write error (e.g. a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "kubectl-capz", &mut script);
    script
}

/// `__complete WORDS...`: cobra's answer for the last word. Never fails: a lookup that cannot be
/// done (no kubeconfig, no cluster) offers nothing.
pub(crate) fn complete(args: CompleteArgs) -> anyhow::Result<ExitStatus> {
    let mut root = Cli::command();
    root.build();
    let completions = engine::complete(&root, &args.words, &PluginLookup);
    let mut stdout = super::output::stdout();
    stdout.write_all(engine::cobra_output(&completions).as_bytes()).context("cannot write to stdout")?;
    Ok(ExitStatus::Success)
}

/// Flavors from the templates, contexts from the kubeconfig, namespaces from the cluster.
struct PluginLookup;

impl engine::Lookup for PluginLookup {
    fn flavors(&self, flavor_dir: Option<&Path>) -> Vec<String> {
        TemplateSource { flavor_dir: flavor_dir.map(Path::to_path_buf) }.flavor_names()
    }

    fn contexts(&self, kubeconfig: Option<&Path>) -> Vec<String> {
        crate::cluster::context_names(kubeconfig).unwrap_or_default()
    }

    fn parameters(&self) -> Vec<String> {
        crate::params::param_rows().into_iter().map(|row| row.path.replace("[]", "[0]")).collect()
    }

    fn namespaces(&self, kubeconfig: Option<&Path>, context: Option<&str>) -> Vec<String> {
        let options = ClusterOptions {
            kubeconfig: kubeconfig.map(Path::to_path_buf),
            context: context.map(str::to_string),
            request_timeout: Some(NAMESPACE_TIMEOUT),
            ..Default::default()
        };
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            return Vec::new();
        };
        let namespaces = Resource {
            api_version: "v1".into(),
            group: String::new(),
            version: "v1".into(),
            kind: "Namespace".into(),
            plural: "namespaces".into(),
            namespaced: false,
        };
        runtime
            .block_on(async {
                let cluster = Cluster::connect(&options).await.ok()?;
                cluster.list(&namespaces, None).await.ok()
            })
            .unwrap_or_default()
            .iter()
            .filter_map(|ns| ns.str_at("/metadata/name").map(str::to_string))
            .collect()
    }
}
