//! Every clap definition of `kubectl capz`: subcommands, flags and their help text.

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

/// Render, validate and diff Cluster API Provider Azure (CAPZ) AKS manifests.
#[derive(Debug, Parser)]
#[command(name = "kubectl-capz", bin_name = "kubectl capz", version, about, max_term_width = 110)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Parses the process arguments; exits with code 2 on usage errors (0 for --help/--version).
pub fn parse() -> Cli {
    let mut command = Cli::command();
    let mut matches = command.get_matches_mut();
    let cli = Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|err| err.format(&mut command).exit());
    // Start-up: freeing the command tree (every subcommand and flag, ~2,000 allocations) took a tenth of
    // the instructions of `kubectl-capz version`; it lives until the process exits instead (a start-up setting,
    // listed with the others above the profiles in Cargo.toml).
    std::mem::forget(command);
    cli
}

/// The subcommands. `defer`: each one's flags are built only when it is invoked (or for help, completion and
/// errors, which build the whole tree); the names, descriptions and examples are set eagerly for the top-level help.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Render a flavor, a ClusterClass or a clusterctl template into manifests.
    #[command(after_help = RENDER_EXAMPLES)]
    Render(RenderArgs),
    /// List the parameters of a flavor, or print the JSON Schema of a values file.
    #[command(after_help = PARAMS_EXAMPLES)]
    Params(ParamsArgs),
    /// Validate manifests against CAPI, CAPZ and ASO schemas and CAPZ's own rules.
    #[command(after_help = VALIDATE_EXAMPLES)]
    Validate(ValidateArgs),
    /// Show what applying manifests would change in a live cluster.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),
    /// Print the objects a ClusterClass topology produces for a topology Cluster.
    #[command(after_help = PLAN_EXAMPLES)]
    Plan(PlanArgs),
    /// Move classic AzureManagedControlPlane clusters to the ASO API: manifests (-f) or a live cluster.
    #[command(after_help = MIGRATE_EXAMPLES)]
    Migrate(MigrateArgs),
    /// Convert files to CAPI v1beta2 / AzureASOManaged* v1beta1, comments kept.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert(ConvertArgs),
    /// Plan Kubernetes upgrades (each cluster's versions, their AKS support, the steps), and edit the next step.
    #[command(after_help = UPGRADE_EXAMPLES)]
    Upgrade(UpgradeArgs),
    /// Print the plugin version and the CAPI, CAPZ and ASO versions it targets.
    #[command(after_help = "Example:\n  kubectl capz version")]
    Version,
    /// Print a shell completion script.
    #[command(after_help = COMPLETION_EXAMPLES)]
    Completion(CompletionArgs),
    /// cobra's completion protocol: candidates for the last word (kubectl_complete-capz and the
    /// completion scripts call it).
    #[command(name = "__complete", hide = true, disable_help_flag = true)]
    Complete(CompleteArgs),
    /// Regenerate schemas/ from upstream CRDs (maintainers only).
    #[command(
        hide = true,
        after_help = "Example:\n  tools/schema-inputs/fetch.sh\n  kubectl capz import-schemas --from upstream-crds --fetched target/schema-inputs --out schemas"
    )]
    ImportSchemas(ImportSchemasArgs),
}

const RENDER_EXAMPLES: &str = "Examples:
  # The aks-aso flavor from a values file
  kubectl capz render aks-aso demo --values examples/aks-aso.values.yaml

  # With clusterctl's environment variables, one value overridden, as a JSON List
  AZURE_LOCATION=westeurope kubectl capz render aks-aso demo --set pools[0].replicas=3 -o json

  # A topology Cluster together with its ClusterClass, CAPI v1beta2
  kubectl capz render aks-aso-topology demo --with-class --capi-api v1beta2 --values my.values.yaml

  # Any clusterctl template, with clusterctl's variable semantics
  kubectl capz render --from cluster-template-aks.yaml demo -n team-a

  # A whole fleet into a GitOps repository, then check it is up to date in CI
  kubectl capz render --fleet fleet.yaml --out-dir clusters-repo
  kubectl capz render --fleet fleet.yaml --out-dir clusters-repo --check";

const CONVERT_EXAMPLES: &str = "Examples:
  kubectl capz convert clusters/prod/ --check
  kubectl capz convert clusters/prod/ -w
  kubectl capz convert cluster.yaml --to-version v1beta1 > cluster-aso-v1beta1.yaml

Exit status: 0 converted (or nothing to convert), 1 --check found files that would change
or cannot convert (not YAML; objects in API versions CAPI v1.14 no longer serves, which only
clusterctl upgrade converts: also 1 without --check), 2 usage or input error (also an object
CAPI would refuse to convert; its file is left alone).
See docs/convert.md.";

const MIGRATE_EXAMPLES: &str = "Examples:
  kubectl capz migrate -f clusters/prod/ -o yaml > prod-aso.yaml
  kubectl capz migrate -f classic.yaml --to-namespace prod-aso --out-dir migrated/

  # A live cluster: print the plan (changes nothing), then run it step by step
  kubectl capz migrate prod -n clusters --to-namespace clusters-aso --context mgmt
  kubectl capz migrate prod -n clusters --to-namespace clusters-aso --context mgmt --execute

Exit status (-f): 0 written, 1 the result fails validation, 2 usage or input error
(also a bundle CAPZ cannot translate: a broken patch, no System pool).
Exit status (CLUSTER): 0 migrated, or dry run with every precondition met;
2 a precondition not met, a state the plan does not expect, a timeout or a cluster error.
See docs/migrate.md.";

const PARAMS_EXAMPLES: &str = "Examples:
  kubectl capz params aks-aso
  kubectl capz params --schema > values.schema.json";

const VALIDATE_EXAMPLES: &str = "Examples:
  kubectl capz validate clusters/
  kubectl capz render aks-aso demo --values my.values.yaml | kubectl capz validate - -o json
  kubectl capz validate bundle.yaml --disable capz-empty-ssh-key -o junit > report.xml

Exit status: 0 valid, 1 error findings, 2 usage or input error.";

const DIFF_EXAMPLES: &str = "Examples:
  kubectl capz diff -f clusters/team-a/demo/
  kubectl capz diff aks-aso demo --values my.values.yaml --context mgmt
  kubectl capz diff --from cluster-template-aks-aso.yaml demo -n team-a --values clusterctl.yaml
  kubectl capz render aks-aso demo --values my.values.yaml | kubectl capz diff -f - -o json

Exit status: 0 no differences, 1 differences, 2 error. diff never writes to the cluster.";

const PLAN_EXAMPLES: &str = "Examples:
  kubectl capz plan -f clusterclass.yaml -f cluster.yaml
  kubectl capz render aks-aso-topology demo --with-class --values my.values.yaml | kubectl capz plan -f -";

const UPGRADE_EXAMPLES: &str = "Examples:
  # Every cluster of a repository, to the newest minor AKS supports today
  kubectl capz upgrade plan .

  # To v1.35, support judged on a fixed day, as a pull-request comment
  kubectl capz upgrade plan clusters/ --to v1.35 --at 2026-06-01 -o markdown

  # The next step, as a diff; then written in place
  kubectl capz upgrade --to v1.34.3 .
  kubectl capz upgrade --to v1.34.3 . -w";

const COMPLETION_EXAMPLES: &str = "Examples:
  source <(kubectl capz completion bash)
  kubectl capz completion bash > /etc/bash_completion.d/kubectl-capz
  kubectl capz completion zsh > \"${fpath[1]}/_kubectl-capz\"
  kubectl capz completion fish > ~/.config/fish/completions/kubectl-capz.fish

The scripts complete `kubectl-capz ...`.
kubectl 1.26+ completes `kubectl capz ...` itself: it runs kubectl_complete-capz from PATH.
That helper is in the krew archive; `kubectl capz completion kubectl` prints it:
  kubectl capz completion kubectl > ~/bin/kubectl_complete-capz
  chmod +x ~/bin/kubectl_complete-capz";

// What to render and with which parameters; shared by `render` and `diff FLAVOR NAME`.
// (A plain comment, not a doc comment: the subcommands' flags are deferred, and a doc comment on a flattened
// `Args` struct would become the subcommand's description when its flags are built.)
#[derive(Debug, Args, Clone, Default)]
pub struct RenderInputArgs {
    /// Flavor to render (aks, aks-aso, aks-clusterclass, aks-aso-clusterclass, aks-topology,
    /// aks-aso-topology); omit with --from.
    pub flavor: Option<String>,
    /// Cluster name (overrides CLUSTER_NAME, values and --set).
    pub name: Option<String>,
    /// Target namespace (overrides NAMESPACE, values and --set).
    #[arg(short = 'n', long, visible_alias = "target-namespace")]
    pub namespace: Option<String>,
    /// Kubernetes version, e.g. v1.33.2 (overrides KUBERNETES_VERSION, values and --set).
    #[arg(long)]
    pub kubernetes_version: Option<String>,
    /// Values file (YAML); repeatable, deep-merged, later files win.
    #[arg(long = "values", value_name = "FILE")]
    pub values: Vec<PathBuf>,
    /// Set one parameter: `path=value` (e.g. `pools[0].replicas=3`); repeatable.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
    /// Render a clusterctl template (`${VAR}` syntax) as `clusterctl generate cluster --from` does;
    /// `-` reads stdin. Variables: --set, then the environment, then --values (a flat map like
    /// clusterctl.yaml), then clusterctl's config file (--config, else clusterctl's own search). Without -n
    /// the namespace is `default` (render) or the kubeconfig context's namespace (diff, as clusterctl).
    #[arg(long, value_name = "FILE")]
    pub from: Option<String>,
    /// The flavor, as clusterctl spells it (`--flavor aks NAME` = `aks NAME`).
    #[arg(long = "flavor", value_name = "FLAVOR")]
    pub flavor_flag: Option<String>,
    /// clusterctl's infrastructure provider: only `azure` (optionally `azure:VERSION`) is rendered here.
    #[arg(short = 'i', long, value_name = "PROVIDER")]
    pub infrastructure: Option<String>,
    /// clusterctl's `--worker-machine-count` (WORKER_MACHINE_COUNT, above the environment): with a flavor,
    /// the replicas of every pool that sets none.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub worker_machine_count: Option<i64>,
    /// clusterctl's `--control-plane-machine-count` (CONTROL_PLANE_MACHINE_COUNT); AKS has no control plane
    /// machines, so only templates (--from) that use the variable see it.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub control_plane_machine_count: Option<i64>,
    /// With --from: clusterctl's config file (a flat map of variables, below the environment). Without it
    /// the first of $XDG_CONFIG_HOME/cluster-api/clusterctl.yaml and ~/.cluster-api/clusterctl.yaml is read,
    /// as clusterctl does.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Read flavor and ClusterClass templates from this directory instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    pub flavor_dir: Option<PathBuf>,
    /// CAPI API version of the rendered objects.
    #[arg(long, value_enum, default_value_t = CapiApi::V1beta1)]
    pub capi_api: CapiApi,
    /// With a topology flavor: also render its ClusterClass and templates, ClusterClass first.
    #[arg(long)]
    pub with_class: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum CapiApi {
    #[default]
    V1beta1,
    V1beta2,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub input: RenderInputArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = RenderOutput::Yaml)]
    pub output: RenderOutput,
    /// Write one file per object into DIR (atomically) instead of stdout.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// With --from: list the template's variables instead of rendering.
    #[arg(long)]
    pub list_variables: bool,
    /// Validate the rendered objects; findings go to stderr and set the exit code.
    #[arg(long)]
    pub validate: bool,
    /// Render every cluster of a fleet file into --out-dir as a GitOps repository tree.
    #[arg(long, value_name = "FLEET.yaml", requires = "out_dir")]
    pub fleet: Option<PathBuf>,
    /// With --fleet: write nothing; exit 1 and list the files when the tree is not up to date
    /// (deletions listed after the other changes).
    #[arg(long, requires = "fleet")]
    pub check: bool,
    /// With --fleet: confirm the fleet file's `gitops.kind` (the file decides; a different value is an error).
    #[arg(long, value_enum, requires = "fleet")]
    pub gitops: Option<GitopsKind>,
    /// With --fleet: let the run remove clusters, ClusterClasses, namespaces, their objects and their
    /// GitOps objects from the tree (without it such a run exits 2 and changes nothing).
    #[arg(long, requires = "fleet")]
    pub allow_deletions: bool,
    /// With --fleet: do not validate the rendered clusters.
    #[arg(long, requires = "fleet")]
    pub no_validate: bool,
    /// With --fleet: render and validate every cluster, neither reading nor writing the render record
    /// (by default a cluster whose inputs and files are unchanged since the last run is not rendered again).
    #[arg(long, requires = "fleet")]
    pub no_cache: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GitopsKind {
    Flux,
    Argocd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RenderOutput {
    Yaml,
    Json,
}

#[derive(Debug, Args)]
pub struct ParamsArgs {
    /// Flavor whose parameters to list.
    pub flavor: Option<String>,
    /// Print the JSON Schema of a values file instead.
    #[arg(long)]
    pub schema: bool,
    /// Read flavors from this directory too (as `render --flavor-dir`).
    #[arg(long, value_name = "DIR")]
    pub flavor_dir: Option<PathBuf>,
    /// Output format: tables (text), or the same as data (yaml, json; --schema prints JSON by default).
    #[arg(short = 'o', long, value_enum, default_value_t = ParamsOutput::Text)]
    pub output: ParamsOutput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ParamsOutput {
    Text,
    Yaml,
    Json,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Files or directories to validate; `-` reads stdin. A directory is read as a GitOps repository: kustomizations
    /// built, Flux Kustomizations followed, Helm charts rendered (docs/repositories.md).
    #[arg(required = true, value_name = "FILE|DIR|-")]
    pub paths: Vec<String>,
    /// Output format (sarif: SARIF 2.1.0 for code scanning; github: workflow commands that annotate a pull request).
    #[arg(short = 'o', long, value_enum, default_value_t = ValidateOutput::Text)]
    pub output: ValidateOutput,
    /// Also load CRDs from this directory (they win over the built-in schemas); repeatable.
    #[arg(long, value_name = "DIR")]
    pub crds: Vec<PathBuf>,
    /// Also load every CRD of the cluster of the current (or --context) kubeconfig context.
    #[arg(long)]
    pub crds_from_cluster: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Kubernetes release of the management cluster (kubeconform's name for --management-kubernetes-version).
    #[arg(long, value_name = "vX.Y", conflicts_with = "management_kubernetes_version")]
    pub kubernetes_version: Option<String>,
    /// Skip objects whose kind has no schema instead of reporting them.
    #[arg(long)]
    pub ignore_missing_schemas: bool,
    /// Turn off a rule by id; repeatable.
    #[arg(long, value_name = "RULE")]
    pub disable: Vec<String>,
    /// Turn on a rule that is off by default; repeatable.
    #[arg(long, value_name = "RULE")]
    pub enable: Vec<String>,
    /// Read directories file by file as they are: no kustomize builds, Helm renders or Flux substitution.
    #[arg(long)]
    pub no_build: bool,
    /// Never read paths of a directory that match this glob (`docs`, `*.tpl`, `clusters/*/secrets`); repeatable.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// A source of a directory that cannot be built (refused, a tool failure or budget, a download it would need)
    /// is an error instead of a warning, so the run fails (also `strict: true` in .kubectl-capz.yaml).
    #[arg(long)]
    pub strict: bool,
    /// Also review the change against a git revision (`origin/main`) or a directory, as `diff --base` does: CAPZ's
    /// update rules on each changed object, what the change deletes under prune, what it rolls. One directory only.
    #[arg(long, value_name = "REV|DIR")]
    pub base: Option<String>,
    /// A helm repository cache (helm's `$HELM_CACHE_HOME/repository`) whose `<name>-<version>.tgz` charts stand for
    /// the remote charts of Argo CD, Flux and Fleet objects that are not vendored; read only when given.
    #[arg(long, value_name = "DIR")]
    pub helm_cache: Option<std::path::PathBuf>,
    /// The time the tools that build directories (helm, kustomize) may take in all, e.g. 5m or 90s; a source not
    /// built by then is not built (an error with --strict).
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub timeout: String,
    /// The day the aks-version-* rules judge AKS support on (YYYY-MM-DD; also $KUBECTL_CAPZ_AT), for
    /// reproducible CI; default: today (UTC).
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
    pub at: Option<crate::aks_versions::Date>,
    /// The output of `az aks get-versions --location L -o json`: the aks-version-* rules and the upgrade steps also
    /// use the patch versions and upgrade paths AKS offers in that region (also aksVersions in .kubectl-capz.yaml).
    #[arg(long, value_name = "FILE")]
    pub aks_versions: Option<PathBuf>,
    #[command(flatten)]
    pub config_file: ConfigFileArgs,
}

impl ValidateArgs {
    /// The target flags, with `--kubernetes-version` in them.
    pub fn target_args(&self) -> TargetArgs {
        TargetArgs { kubernetes_version: self.kubernetes_version.clone(), ..self.config_file.apply(&self.target) }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValidateOutput {
    Text,
    Json,
    Junit,
    Yaml,
    // SARIF 2.1.0 for code scanning, paths relative to the repository root (the config file's folder, else the
    // current directory). Plain comments: doc comments on values would turn --help into its long form.
    Sarif,
    // GitHub Actions workflow commands (`::error file=...,line=...::`): annotations on the pull request's lines.
    Github,
}

// How to reach the cluster, with kubectl's flag names.
#[derive(Debug, Args, Clone, Default)]
pub struct ClusterArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Kubeconfig context to use.
    #[arg(long)]
    pub context: Option<String>,
    /// Time to wait for one server request, e.g. 30s or 1m.
    #[arg(long, value_name = "DURATION")]
    pub request_timeout: Option<String>,
}

// Which CAPZ release (and what it pins) to check against; shared by validate, render, diff, plan, migrate and convert.
#[derive(Debug, Args, Clone, Default)]
pub struct TargetArgs {
    /// CAPZ release of the management cluster: v1.27 (default), v1.26, or v1.28 (provisional: not released yet,
    /// modelled on v1.27.0); validate takes several (v1.27,v1.28). Else CAPZ_VERSION, else capzVersion in
    /// .kubectl-capz.yaml (nearest above the input), else the cluster's CAPZ (when one is read), else the newest
    /// published.
    #[arg(long, value_name = "vX.Y")]
    pub capz_version: Option<String>,
    /// Kubernetes release of the management cluster, for the built-in kinds' schemas: v1.36 (default) or v1.35.
    /// Else kubernetesVersion in .kubectl-capz.yaml, else the cluster's API server (when one is read), else the newest.
    #[arg(long, value_name = "vX.Y")]
    pub management_kubernetes_version: Option<String>,
    /// `validate --kubernetes-version` (the same as --management-kubernetes-version there).
    #[arg(skip)]
    pub kubernetes_version: Option<String>,
    /// Say on stderr which CAPZ release (and config file) the run uses, and why.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// `--config FILE` of the commands that take it ([`ConfigFileArgs`]).
    #[arg(skip)]
    pub config_file: Option<PathBuf>,
    /// `--no-config` of the commands that take it.
    #[arg(skip)]
    pub no_config: bool,
}

// Which .kubectl-capz.yaml to read, for `validate` (the gate CI runs on a pull request). Not on render and diff,
// whose `--config` is clusterctl's config file.
#[derive(Debug, Args, Clone, Default)]
pub struct ConfigFileArgs {
    /// Read this file instead of the .kubectl-capz.yaml found above the input (its relative paths and globs start at
    /// the current directory): CI can validate a pull request with the base branch's settings.
    #[arg(long = "config", value_name = "FILE", conflicts_with = "no_config")]
    pub config_file: Option<PathBuf>,
    /// Read no .kubectl-capz.yaml at all.
    #[arg(long)]
    pub no_config: bool,
}

impl ConfigFileArgs {
    /// `target` with these flags in it.
    pub fn apply(&self, target: &TargetArgs) -> TargetArgs {
        TargetArgs { config_file: self.config_file.clone(), no_config: self.no_config, ..target.clone() }
    }
}

impl TargetArgs {
    /// The management cluster's Kubernetes version given on the command line, with the flag's name.
    pub fn kubernetes_flag(&self) -> Option<(&'static str, &str)> {
        match (&self.management_kubernetes_version, &self.kubernetes_version) {
            (Some(version), _) => Some(("--management-kubernetes-version", version)),
            (None, Some(version)) => Some(("--kubernetes-version", version)),
            (None, None) => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Manifests to diff (files, directories, `-`); instead of FLAVOR NAME or --from TEMPLATE.
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub filenames: Vec<String>,
    #[command(flatten)]
    pub input: RenderInputArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Field manager of the server-side-apply dry run.
    #[arg(long, default_value = "kubectl-capz")]
    pub field_manager: String,
    /// Force field-ownership conflicts in the dry run (the default, as Flux's diff: a dry run takes
    /// nothing over); other managers of changed fields are named in the output.
    #[arg(long, overrides_with = "no_force_conflicts")]
    pub force_conflicts: bool,
    /// Fail on field-ownership conflicts instead, like `kubectl diff --server-side`.
    #[arg(long, overrides_with = "force_conflicts")]
    pub no_force_conflicts: bool,
    /// Also report fields that CAPZ's mutators own in embedded ASO objects.
    #[arg(long)]
    pub include_capz_managed: bool,
    /// Also compare each embedded ASO object with the live ASO object created from it.
    #[arg(long)]
    pub aso_live: bool,
    /// Show Secret data instead of masking it.
    #[arg(long)]
    pub show_secrets: bool,
    /// Read -f directories file by file as they are: no kustomize builds, Helm renders or Flux substitution.
    #[arg(long)]
    pub no_build: bool,
    /// Never read paths of a -f directory that match this glob; repeatable.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// A helm repository cache whose `<name>-<version>.tgz` charts stand for remote charts of -f directories that
    /// are not vendored (as validate --helm-cache); read only when given.
    #[arg(long, value_name = "DIR")]
    pub helm_cache: Option<std::path::PathBuf>,
    /// Change review, offline: compare what the repository at PATH (the first argument, -f, or `.`) applies with
    /// what it applied at a git revision (`origin/main`, a commit) or in a second directory; no cluster is read.
    #[arg(long, value_name = "REV|DIR")]
    pub base: Option<String>,
    /// Output format (`markdown`, a pull-request comment, with --base only).
    #[arg(short = 'o', long, value_enum, default_value_t = DiffOutput::Diff)]
    pub output: DiffOutput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffOutput {
    Diff,
    Json,
    Yaml,
    Markdown,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Files holding a ClusterClass, its templates and a topology Cluster.
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub filenames: Vec<String>,
    /// Read the ClusterClass and its templates from the live cluster (unless given with -f), and
    /// keep the names of objects the topology controller already created there.
    #[arg(long)]
    pub from_cluster: bool,
    /// Do not validate the planned objects (schemas, CEL, CAPZ rules).
    #[arg(long)]
    pub no_validate: bool,
    /// Also load CRDs from this directory for validating the planned objects; repeatable.
    #[arg(long, value_name = "DIR")]
    pub crds: Vec<PathBuf>,
    /// Report planned objects whose kind has no schema as errors (by default they are skipped and
    /// counted: CAPI's bootstrap configs such as KubeadmConfig have no built-in schema).
    #[arg(long)]
    pub require_schemas: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    /// Output format of the planned objects (json: a v1 List, as `render -o json`).
    #[arg(short = 'o', long, value_enum, default_value_t = RenderOutput::Yaml)]
    pub output: RenderOutput,
}

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// Shell to generate completions for; `kubectl` prints the kubectl_complete-capz helper.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
    Kubectl,
}

#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// The words after `kubectl capz`; the last is the word being completed ("" for a new one).
    #[arg(num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
    pub words: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ImportSchemasArgs {
    /// Directory holding the committed upstream CRDs (`upstream-crds/`: capi-*/, capz-*/, aso-*/).
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// Directory tools/schema-inputs/fetch.sh filled from the Go module proxy (kubernetes/<version>/: Kubernetes'
    /// OpenAPI v3 documents; gitops/: the Flux and Argo CD CRDs).
    #[arg(long, value_name = "DIR", default_value = "target/schema-inputs")]
    pub fetched: PathBuf,
    /// Directory to write the schemas into.
    #[arg(long, value_name = "DIR", default_value = "schemas")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// A live classic Cluster to migrate (instead of -f): dry run unless --execute.
    #[arg(value_name = "CLUSTER", conflicts_with = "files", required_unless_present = "files")]
    pub cluster: Option<String>,
    /// Classic manifests: files or directories (*.yaml, *.yml, *.json), or - for stdin.
    #[arg(short = 'f', long = "filename", value_name = "DIR|FILE")]
    pub files: Vec<String>,
    /// With CLUSTER: its namespace (default: the kubeconfig context's).
    #[arg(short = 'n', long, value_name = "NS", conflicts_with = "files")]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub cluster_args: ClusterArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    /// With CLUSTER: run the plan (default: print it and change nothing).
    #[arg(long, conflicts_with = "files")]
    pub execute: bool,
    /// With --execute: do not ask before each step.
    #[arg(long, requires = "execute")]
    pub yes: bool,
    /// With --execute: how long each wait may take, e.g. 30m or 90s.
    #[arg(long, value_name = "DURATION", default_value = "30m", conflicts_with = "files")]
    pub timeout: String,
    /// How often a wait re-reads the cluster.
    #[arg(long, value_name = "DURATION", default_value = "2s", hide = true)]
    pub poll_interval: String,
    /// Namespace of the new objects (default with -f: each classic cluster's namespace; required with CLUSTER).
    #[arg(long, value_name = "NS")]
    pub to_namespace: Option<String>,
    /// Output format on stdout.
    #[arg(short = 'o', long, value_enum, default_value_t = MigrateOutput::Yaml)]
    pub output: MigrateOutput,
    /// Write <DIR>/<cluster>/aso-managed.yaml and <DIR>/<cluster>/adopt.yaml instead of printing.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MigrateOutput {
    Yaml,
    Json,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Manifests: files or directories (*.yaml, *.yml, *.json, recursively), or - for stdin.
    #[arg(value_name = "FILE|DIR|-", required = true)]
    pub paths: Vec<String>,
    /// The Cluster API version to reach: v1beta2 (also AzureASOManaged* to v1beta1), or v1beta1
    /// (only AzureASOManaged* and the references to them move to v1beta1).
    #[arg(long, value_name = "VERSION", default_value = "v1beta2", value_parser = ["v1beta2", "v1beta1"])]
    pub to_version: String,
    /// Convert Azure Service Operator objects instead (standalone, embedded in AzureASOManaged*.spec.resources and
    /// their templates): from an API version the target's ASO does not serve to the newest it serves of the kind
    /// (a preview to a preview), with ASO's conversion semantics; fields the new version lacks are dropped and
    /// reported with their values.
    #[arg(long, conflicts_with = "to_version")]
    pub aso: bool,
    /// With --aso: move every object of this ASO API group whose kind the target serves in VERSION to it, served
    /// or not (repeatable; e.g. containerservice.azure.com/v1api20250801).
    #[arg(long, value_name = "GROUP/VERSION", requires = "aso")]
    pub aso_version: Vec<String>,
    /// Rewrite the files in place (atomically) instead of printing the converted stream.
    #[arg(short = 'w', long, conflicts_with = "check")]
    pub write: bool,
    /// Write nothing; list the files that would change and exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct UpgradeArgs {
    #[command(subcommand)]
    pub command: Option<UpgradeCommand>,
    /// The version to take each cluster's next step to: the next minor's patch for its control plane (AKS upgrades
    /// one minor at a time), or the control plane's own version for the pools behind it (vX.Y.Z: a patch AKS
    /// offers, see `az aks get-versions`).
    #[arg(long, value_name = "VERSION", required = true)]
    pub to: Option<String>,
    /// The repository (a directory, read as `validate DIR` reads it) or file whose versions to edit.
    #[arg(value_name = "FILE|DIR", required = true)]
    pub path: Option<String>,
    /// Edit the files in place (each atomically) instead of printing the edits as a diff.
    #[arg(short = 'w', long, conflicts_with = "check")]
    pub write: bool,
    /// Write nothing; list the files that would change and exit 1 if there are any (or a step is refused).
    #[arg(long)]
    pub check: bool,
    /// The fleet file a `render --fleet` tree was rendered from: the versions of its files are edited there (and
    /// in the values files beside it); render the tree again afterwards.
    #[arg(long, value_name = "FILE")]
    pub fleet: Option<PathBuf>,
    /// The day AKS support is judged on (YYYY-MM-DD; also $KUBECTL_CAPZ_AT); default: today (UTC).
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
    pub at: Option<crate::aks_versions::Date>,
    /// The output of `az aks get-versions --location L -o json`: the aks-version-* rules and the upgrade steps also
    /// use the patch versions and upgrade paths AKS offers in that region (also aksVersions in .kubectl-capz.yaml).
    #[arg(long, value_name = "FILE")]
    pub aks_versions: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum UpgradeCommand {
    /// Each cluster's control plane and pool versions, their AKS support, and the steps to the target.
    Plan(UpgradePlanArgs),
}

#[derive(Debug, Args)]
pub struct UpgradePlanArgs {
    /// Files or directories; a directory is read as a GitOps repository, as `validate DIR` reads it.
    #[arg(required = true, value_name = "FILE|DIR|-")]
    pub paths: Vec<String>,
    /// The Kubernetes minor version to reach (v1.35), or the newest AKS supports on the day.
    #[arg(long, value_name = "VERSION|latest-supported", default_value = "latest-supported")]
    pub to: String,
    /// The day AKS support is judged on (YYYY-MM-DD; also $KUBECTL_CAPZ_AT); default: today (UTC).
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
    pub at: Option<crate::aks_versions::Date>,
    /// Output format (markdown: a pull-request comment).
    #[arg(short = 'o', long, value_enum, default_value_t = UpgradeOutput::Text)]
    pub output: UpgradeOutput,
    /// The output of `az aks get-versions --location L -o json`: the aks-version-* rules and the upgrade steps also
    /// use the patch versions and upgrade paths AKS offers in that region (also aksVersions in .kubectl-capz.yaml).
    #[arg(long, value_name = "FILE")]
    pub aks_versions: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UpgradeOutput {
    Text,
    Json,
    Markdown,
}

/// `validate --at`: a YYYY-MM-DD day.
fn parse_date(text: &str) -> Result<crate::aks_versions::Date, String> {
    crate::aks_versions::Date::parse(text).map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches};

    use super::Cli;

    /// Every `kubectl capz ...` command line of the subcommands' examples (pipelines split, redirections cut).
    fn example_command_lines(root: &clap::Command) -> Vec<Vec<String>> {
        let mut lines = Vec::new();
        for sub in root.get_subcommands() {
            let examples = sub.get_after_help().map(ToString::to_string).unwrap_or_default();
            for segment in examples.lines().flat_map(|line| line.split('|')) {
                let Some(start) = segment.find("kubectl capz ") else { continue };
                let prefix = segment[..start].trim();
                // A command: nothing before it, environment variables, or `source <(`; not prose naming it.
                if !(prefix == "source <(" || prefix.split_whitespace().all(|word| word.contains('='))) {
                    continue;
                }
                let words = segment[start + "kubectl capz ".len()..].split(['>', ')']).next().unwrap_or_default();
                let mut argv = vec!["kubectl-capz".to_string()];
                argv.extend(words.split_whitespace().map(str::to_string));
                lines.push(argv);
            }
        }
        lines
    }

    /// The outcome of parsing `argv` with `command`: the `Cli`, or the rendered error and its exit code.
    fn outcome(mut command: clap::Command, argv: &[String]) -> String {
        match command.try_get_matches_from_mut(argv) {
            Ok(mut matches) => match Cli::from_arg_matches_mut(&mut matches) {
                Ok(cli) => format!("{cli:?}"),
                Err(err) => format!("error {}: {}", err.exit_code(), err.format(&mut command).render()),
            },
            Err(err) => format!("error {}: {}", err.exit_code(), err.render()),
        }
    }

    fn full_tree() -> clap::Command {
        let mut command = Cli::command();
        command.build();
        command
    }

    #[test]
    fn deferred_subcommands_parse_every_example_as_the_full_tree() {
        let lines = example_command_lines(&Cli::command());
        let invoked: std::collections::BTreeSet<&str> = lines.iter().map(|argv| argv[1].as_str()).collect();
        for sub in Cli::command().get_subcommands().filter(|s| !s.is_hide_set()) {
            assert!(invoked.contains(sub.get_name()), "no example invokes `{}`", sub.get_name());
        }
        for argv in &lines {
            let lazy = outcome(Cli::command(), argv);
            assert!(!lazy.starts_with("error"), "{argv:?}: {lazy}");
            assert_eq!(lazy, outcome(full_tree(), argv), "{argv:?}");
        }
    }

    #[test]
    fn deferred_subcommands_give_the_full_tree_help_and_errors() {
        let mut cases: Vec<Vec<&str>> = vec![
            vec!["--help"],
            vec!["-h"],
            vec!["--version"],
            vec![],
            vec!["rendr"],
            vec!["help"],
            vec!["render", "--bogus"],
            vec!["validate"],
            vec!["render", "--check"],
            vec!["__complete", "render", "--cap"],
        ];
        let names: Vec<String> = Cli::command().get_subcommands().map(|s| s.get_name().to_string()).collect();
        for name in &names {
            cases.push(vec!["help", name.as_str()]);
            cases.push(vec![name.as_str(), "--help"]);
            cases.push(vec![name.as_str(), "-h"]);
            cases.push(vec![name.as_str(), "--no-such-flag"]);
        }
        for case in cases {
            let argv: Vec<String> = std::iter::once("kubectl-capz").chain(case).map(str::to_string).collect();
            assert_eq!(outcome(Cli::command(), &argv), outcome(full_tree(), &argv), "{argv:?}");
        }
    }

    #[test]
    fn building_a_deferred_subcommand_keeps_its_description() {
        let lazy = Cli::command();
        let full = full_tree();
        for (before, after) in lazy.get_subcommands().zip(full.get_subcommands()) {
            let texts = |c: &clap::Command| {
                [c.get_about(), c.get_long_about(), c.get_after_help(), c.get_before_help()]
                    .map(|t| t.map(ToString::to_string))
            };
            assert_eq!(texts(before), texts(after), "{}", before.get_name());
        }
    }
}
