//! Fleet bundles in the loader: each bundle of the tree planned before anything is built (so its chart and
//! kustomizations are not also built on their own), each target built as Fleet builds it, its files classified.
//!
//! What a target deploys (rancher/fleet internal/bundlereader/style.go `DetermineStyle`,
//! internal/helmdeployer/render/helm.go `HelmChart`, postrender.go, kustomize/kustomize.go):
//! - a Helm chart when `helm.chart` is a directory of the bundle holding a Chart.yaml, or when there is no
//!   `helm.chart` and the bundle's root holds one; a chart of a Helm repository (`helm.repo`) or an OCI registry
//!   (`helm.chart: oci://...`) is downloaded by Fleet: rendered here from a vendored copy, else not built;
//! - else a kustomization when `kustomize.dir` (or the root) holds a `kustomization.yaml`, built from the bundle's
//!   own files;
//! - else the bundle's `.yaml`, `.yml` and `.json` files as they are, without those below a directory holding a
//!   Chart.yaml or another bundle's fleet.yaml, the values files, `overlays/` and what `.fleetignore` leaves out.
//!
//! `namespace` puts every object in that namespace (postrender.go); the release is `helm.releaseName`, else the
//! bundle's name (internal/helmdeployer/deployer.go `getOpts`); its namespace `namespace`, else
//! `defaultNamespace`, else `default` (internal/namespaces `GetDeploymentNS`).

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{Loader, is_below, join, shown_dir};
use crate::json_pointer::At;
use crate::manifest::{self, LineIndex};
use crate::report::Severity;
use crate::source::boundary::Walked;
use crate::source::fleet::{self, FLEET_FILES, Layer, Variant, ignore, names, spec};
use crate::source::helm::{self, InlineValues, LocalChart, RemoteChart, RenderRequest};
use crate::source::kustomization::resolve;
use crate::source::{BuiltSource, FileClass, classify};

/// The bundles of the tree and what their targets take from it.
#[derive(Debug, Default)]
pub(super) struct FleetPlan {
    bundles: Vec<Bundle>,
    /// Chart directories a bundle renders.
    charts: HashSet<String>,
    /// Kustomization directories a bundle builds.
    kustomizations: HashSet<String>,
    /// Bundles with a target that applies their files as they are, with their nested bundles: kustomizations
    /// there are files Fleet applies, not builds of their own.
    plain_bundles: Vec<(String, Vec<String>)>,
}

impl FleetPlan {
    /// Whether a bundle renders the chart in `dir` (so it is not rendered on its own).
    pub(super) fn owns_chart(&self, dir: &str) -> bool {
        self.charts.contains(dir)
    }

    /// Whether a bundle builds or applies the kustomization in `dir` (so it is not a kustomize root).
    pub(super) fn owns_kustomization(&self, dir: &str) -> bool {
        self.kustomizations.contains(dir)
            || self
                .plain_bundles
                .iter()
                .any(|(bundle, nested)| is_below(dir, bundle) && !nested.iter().any(|inner| is_below(dir, inner)))
    }
}

#[derive(Debug)]
struct Bundle {
    dir: String,
    /// Its fleet.yaml, repository-relative.
    file: String,
    lines: LineIndex,
    /// The bundle's name, the Helm release's unless `helm.releaseName`.
    name: String,
    targets: Vec<(Variant, Build)>,
    /// Values files by repository-relative path: their values and lines.
    values: BTreeMap<String, (Value, LineIndex)>,
}

/// What one target builds.
#[derive(Debug)]
enum Build {
    /// A chart: a directory of the repository, or a copy of a remote chart.
    Helm {
        chart: LocalChart,
    },
    Kustomize {
        dir: String,
    },
    Plain {
        files: Vec<String>,
    },
    NotBuilt {
        severity: Severity,
        line: usize,
        reason: String,
    },
}

impl Loader<'_> {
    /// Finds the bundles of the tree (directories with fleet.yaml or fleet.yml, not hidden ones) and decides what
    /// each target builds; classifies the bundles' files.
    pub(super) fn plan_fleet(&mut self) {
        let mut dirs: Vec<String> = self
            .boundary
            .dirs_below("")
            .into_iter()
            .map(str::to_string)
            .filter(|dir| FLEET_FILES.iter().any(|name| self.tree_files.contains(&join(dir, name))))
            .filter(|dir| dir.is_empty() || classify::by_path(&format!("{dir}/")).is_none())
            .collect();
        dirs.sort();
        let git_repos: Vec<(String, Vec<String>)> = self
            .gitops_documents
            .iter()
            .filter(|document| super::inputs::is_git_repo(document))
            .map(|document| {
                let paths = document.value.array_at("/spec/paths");
                let paths = paths.into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect();
                (document.name().to_string(), paths)
            })
            .collect();
        for dir in &dirs {
            let nested: Vec<String> =
                dirs.iter().filter(|other| *other != dir && is_below(other, dir)).cloned().collect();
            if let Some(bundle) = self.plan_bundle(dir, &nested, &git_repos) {
                self.fleet.bundles.push(bundle);
            }
        }
    }

    fn plan_bundle(&mut self, dir: &str, nested: &[String], git_repos: &[(String, Vec<String>)]) -> Option<Bundle> {
        let file = FLEET_FILES.iter().map(|name| join(dir, name)).find(|file| self.tree_files.contains(file))?;
        let shown_file = self.files.display(&file);
        let what = format!("Fleet bundle {}", shown_dir(dir));
        let reason = format!("fleet.yaml of the Fleet bundle {}, read as `fleet apply` reads it", shown_dir(dir));
        self.classes.insert(file.clone(), (FileClass::Built, reason));
        let prefix = what.clone();
        let unreadable = move |message: String| {
            format!("{prefix}: {message}: `fleet apply` fails, so Fleet deploys nothing of the bundle")
        };
        let text = match std::fs::read_to_string(self.canonical_root.join(&file)) {
            Ok(text) => text,
            Err(err) => {
                self.not_built(Severity::Warning, shown_file, 1, what, unreadable(format!("cannot read it ({err})")));
                return None;
            }
        };
        let (value, lines) = match manifest::parse_value(&text, &shown_file) {
            Ok(read) => read,
            Err(err) => {
                self.not_built(Severity::Warning, shown_file, 1, what, unreadable(err.to_string()));
                return None;
            }
        };
        let spec = match spec::read(&value, &lines) {
            Ok(spec) => spec,
            Err(spec::SpecError { line, message }) => {
                self.not_built(Severity::Warning, shown_file, line, what, unreadable(message));
                return None;
            }
        };
        // Every values file of every target is read up front (resources.go `readResources`): one missing fails all.
        let mut values = BTreeMap::new();
        let all_files = spec
            .options
            .helm
            .iter()
            .chain(spec.customizations.iter().filter_map(|c| c.options.helm.as_ref()))
            .flat_map(|helm| helm.values_files.iter().cloned());
        for (path, line) in all_files {
            match self.read_values_file(dir, &path) {
                Ok((relative, read)) => {
                    values.insert(relative, read);
                }
                Err(problem) => {
                    let message = unreadable(format!("its values file `{path}` {problem}"));
                    self.not_built(Severity::Warning, shown_file, line, what, message);
                    return None;
                }
            }
        }
        let name = match (&spec.name, git_repos.iter().find(|(_, paths)| fleet::paths_reach(paths, dir))) {
            (Some(name), _) => names::helm_release_name(name),
            (None, Some((repo, _))) => names::bundle_id(repo, dir),
            (None, None) => {
                let stand_in = self.stand_in_repo_name();
                names::bundle_id(&stand_in, dir)
            }
        };
        let known_name = spec.name.is_some() || git_repos.iter().any(|(_, paths)| fleet::paths_reach(paths, dir));
        if spec.all_matches && spec.customizations.len() > 1 {
            // builder.go `Targets`: with AllMatches a cluster gets every customization it matches, merged in order.
            let message = format!(
                "{what}: targetCustomizationMode AllMatches merges every customization a cluster matches, in order; \
                 each is validated here on its own, not their combinations (which clusters match several is known \
                 only to Fleet)"
            );
            let line = lines.line_of("/targetCustomizationMode").unwrap_or(1);
            let note = super::note(Severity::Info, crate::source::SOURCE_RULE, shown_file.clone(), line, message);
            self.repository.notes.push(note);
        }
        let plain_files = self.plain_files(dir, nested, &spec);
        let mut targets = Vec::new();
        for variant in fleet::variants(&spec) {
            let build = self.plan_target(dir, &variant, &lines, &values, &plain_files);
            if !known_name
                && variant.helm().release_name.is_empty()
                && let Build::Helm { chart: LocalChart::Directory(chart) } = &build
                && self.uses_release_name(chart)
            {
                let message = format!(
                    "{what}: the Helm release is named after the bundle, whose name `fleet apply` derives from the \
                     GitRepo's name, which is not in this repository: `{name}` stands in (the directory's name for \
                     the GitRepo's); set `name` or `helm.releaseName` in fleet.yaml for the real one"
                );
                if self.reported.insert((file.clone(), 0)) {
                    let note = super::note(Severity::Info, crate::source::SOURCE_RULE, shown_file.clone(), 1, message);
                    self.repository.notes.push(note);
                }
            }
            targets.push((variant, build));
        }
        self.classify_bundle(dir, nested, &targets, &values, &plain_files);
        Some(Bundle { dir: dir.to_string(), file, lines, name, targets, values })
    }

    /// The name standing in for the GitRepo's when none in the tree reaches the bundle: the repository directory's.
    fn stand_in_repo_name(&self) -> String {
        self.canonical_root.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// Whether a template of the chart in `chart` (a path as shown) reads `.Release.Name`.
    fn uses_release_name(&self, chart: &std::path::Path) -> bool {
        let Ok(relative) = chart.strip_prefix(self.files.root()) else { return true };
        let templates = join(&relative.display().to_string(), "templates");
        self.tree_files.iter().filter(|file| is_below(file, &templates)).any(|file| {
            std::fs::read_to_string(self.canonical_root.join(file)).is_ok_and(|text| text.contains(".Release.Name"))
        })
    }

    /// Reads values file `path` of the bundle in `dir`: its repository-relative path and values.
    fn read_values_file(&mut self, dir: &str, path: &str) -> Result<(String, (Value, LineIndex)), String> {
        let relative = resolve(dir, path).ok_or_else(|| "leaves the repository".to_string())?;
        // As walked: a symlink inside the tree resolved; a refused one (out of the repository), `.git`, a FIFO say why.
        let relative = match self.boundary.lookup(&relative) {
            Walked::File(walked) => walked,
            Walked::Dir(_) => return Err("is a directory, not a file".to_string()),
            Walked::Not(why) => return Err(why),
        };
        let text = std::fs::read_to_string(self.canonical_root.join(&relative))
            .map_err(|err| format!("cannot be read ({err})"))?;
        let shown = self.files.display(&relative);
        let (value, lines) = manifest::parse_value(&text, &shown).map_err(|err| format!("is not YAML ({err})"))?;
        match value {
            Value::Object(_) | Value::Null => Ok((relative, (value, lines))),
            _ => Err("is not a mapping of values".to_string()),
        }
    }

    /// The files a target that applies the bundle's files as they are would apply (render/helm.go `manifests`,
    /// patch.go `Process`, loaddirectory.go `GetContent`, resources.go `ignoreApplyConfigs`).
    fn plain_files(&self, dir: &str, nested: &[String], spec: &fleet::FleetYaml) -> Vec<String> {
        let values_names: HashSet<String> = spec
            .options
            .helm
            .iter()
            .chain(spec.customizations.iter().filter_map(|c| c.options.helm.as_ref()))
            .flat_map(|helm| helm.values_files.iter())
            .flat_map(|(path, _)| [path.clone(), path.rsplit('/').next().unwrap_or(path).to_string()])
            .collect();
        let mut files: Vec<String> = self
            .manifests
            .iter()
            .filter(|relative| is_below(relative, dir) && relative.as_str() != dir)
            .filter(|relative| !nested.iter().any(|inner| is_below(relative, inner)))
            .filter(|relative| {
                let inner = inner_path(relative, dir);
                !values_names.contains(inner)
                    && !inner.starts_with("overlays/")
                    && !inner.starts_with("templates/")
                    && !self.below_chart_or_bundle(relative, dir)
                    && !self.fleet_ignored(relative, dir)
            })
            .cloned()
            .collect();
        files.sort();
        files
    }

    /// Whether a directory between the bundle `dir` (excluded) and `relative` holds a Chart.yaml or a fleet.yaml.
    fn below_chart_or_bundle(&self, relative: &str, dir: &str) -> bool {
        let mut current = super::parent(relative);
        while current != dir && is_below(current, dir) {
            if ["Chart.yaml", "fleet.yaml", "fleet.yml"]
                .iter()
                .any(|name| self.tree_files.contains(&join(current, name)))
            {
                return true;
            }
            if current.is_empty() {
                break;
            }
            current = super::parent(current);
        }
        false
    }

    /// Whether a `.fleetignore` of the bundle `dir` or of a directory below it leaves `relative` (or a directory
    /// on its way) out.
    fn fleet_ignored(&self, relative: &str, dir: &str) -> bool {
        let inner = inner_path(relative, dir);
        let parts: Vec<&str> = inner.split('/').collect();
        let mut patterns: Vec<String> = Vec::new();
        let mut current = dir.to_string();
        for (index, part) in parts.iter().enumerate() {
            let ignore_file = join(&current, ".fleetignore");
            if self.tree_files.contains(&ignore_file)
                && let Ok(text) = std::fs::read_to_string(self.canonical_root.join(&ignore_file))
            {
                patterns.extend(ignore::patterns(&text));
            }
            let is_dir = index + 1 < parts.len();
            if ignore::is_ignored(&patterns, part, is_dir) {
                return true;
            }
            current = join(&current, part);
        }
        false
    }

    /// What one target of the bundle in `dir` builds: a remote chart, the bundle's chart, its kustomization, or
    /// its files as they are (Fleet's order), or why it is not built.
    fn plan_target(
        &mut self,
        dir: &str,
        variant: &Variant,
        lines: &LineIndex,
        values: &BTreeMap<String, (Value, LineIndex)>,
        plain_files: &[String],
    ) -> Build {
        let helm = variant.helm();
        // A chart from a Helm repository or an OCI registry (resources.go `addRemoteCharts`).
        let chart_path = if helm.chart.is_empty() { None } else { resolve(dir, &helm.chart) };
        let chart_exists =
            chart_path.as_ref().is_some_and(|path| self.boundary.is_dir(path) || self.tree_files.contains(path));
        if !helm.repo.is_empty() || (!helm.chart.is_empty() && !chart_exists) {
            return self.plan_remote_chart(dir, variant, lines, values, &helm);
        }
        // A chart of the bundle (style.go: `<helm.chart>/Chart.yaml`, or `Chart.yaml` at the bundle's root).
        let chart_dir = chart_path.unwrap_or_else(|| dir.to_string());
        if let Some(build) = self.plan_bundle_chart(dir, variant, lines, values, &helm, chart_dir) {
            return build;
        }
        if let Some(build) = self.plan_kustomization(dir, variant, lines) {
            return build;
        }
        self.plan_plain_files(dir, variant, lines, plain_files)
    }

    /// A target whose chart comes from a Helm repository or an OCI registry: found in the chart cache or not built.
    fn plan_remote_chart(
        &mut self,
        dir: &str,
        variant: &Variant,
        lines: &LineIndex,
        values: &BTreeMap<String, (Value, LineIndex)>,
        helm: &spec::Helm,
    ) -> Build {
        let at = |pointer: &str| target_line(variant, lines, pointer);
        let remote = match remote_chart(helm) {
            Ok(remote) => remote,
            Err(reason) => return not_built(Severity::Info, at("/helm/chart"), reason),
        };
        match self.chart_locator.locate(&remote) {
            Ok(local) => match self.helm_checks(dir, variant, values, lines) {
                Some(problem) => problem,
                None => {
                    if let LocalChart::Directory(path) = &local
                        && let Ok(relative) = path.strip_prefix(self.files.root())
                    {
                        self.fleet.charts.insert(relative.display().to_string());
                    }
                    Build::Helm { chart: local }
                }
            },
            Err(why) => not_built(
                Severity::Info,
                at("/helm/chart"),
                format!("its chart `{}` comes from {}: {why}; not built", remote.name, remote.from),
            ),
        }
    }

    /// A target built from the bundle's own chart in `chart_dir`, when there is a `Chart.yaml` there; `None` when
    /// there is none.
    fn plan_bundle_chart(
        &mut self,
        dir: &str,
        variant: &Variant,
        lines: &LineIndex,
        values: &BTreeMap<String, (Value, LineIndex)>,
        helm: &spec::Helm,
        chart_dir: String,
    ) -> Option<Build> {
        let at = |pointer: &str| target_line(variant, lines, pointer);
        if !is_below(&chart_dir, dir) {
            return Some(not_built(
                Severity::Warning,
                at("/helm/chart"),
                format!(
                    "helm.chart `{}` is outside the bundle's directory: Fleet reads only the bundle's own files, so it \
                     finds no chart there and deploys the bundle's files as plain YAML instead; not built",
                    helm.chart
                ),
            ));
        }
        if !self.tree_files.contains(&join(&chart_dir, "Chart.yaml")) {
            return None;
        }
        let kustomize_dir = resolve(dir, variant.options.kustomize_dir.as_deref().unwrap_or(".")).unwrap_or_default();
        if self.tree_files.contains(&join(&kustomize_dir, "kustomization.yaml")) {
            return Some(not_built(
                Severity::Warning,
                at("/kustomize"),
                format!(
                    "Fleet runs kustomize (./{}) over the chart's output, as a Helm post-renderer: not built",
                    shown_dir(&kustomize_dir)
                ),
            ));
        }
        if let Some(problem) = self.helm_checks(dir, variant, values, lines) {
            return Some(problem);
        }
        self.fleet.charts.insert(chart_dir.clone());
        Some(Build::Helm { chart: LocalChart::Directory(self.files.root().join(&chart_dir)) })
    }

    /// A target built from a kustomization (style.go `kustomizePath`: only `kustomization.yaml`), or not built
    /// for its kustomization; `None` when there is none.
    fn plan_kustomization(&mut self, dir: &str, variant: &Variant, lines: &LineIndex) -> Option<Build> {
        let at = |pointer: &str| target_line(variant, lines, pointer);
        let kustomize_dir = match resolve(dir, variant.options.kustomize_dir.as_deref().unwrap_or(".")) {
            Some(path) if is_below(&path, dir) => path,
            _ => {
                return Some(not_built(
                    Severity::Warning,
                    at("/kustomize/dir"),
                    format!(
                        "kustomize.dir `{}` is outside the bundle's directory: Fleet builds from the bundle's own files, \
                         so its build fails; not built",
                        variant.options.kustomize_dir.as_deref().unwrap_or("")
                    ),
                ));
            }
        };
        if self.tree_files.contains(&join(&kustomize_dir, "kustomization.yaml")) {
            let reachable: Vec<String> = self
                .reachable(std::slice::from_ref(&kustomize_dir))
                .iter()
                .flat_map(|k| {
                    let own = super::parent(&k.file).to_string();
                    std::iter::once(own).chain(k.files.iter().cloned())
                })
                .collect();
            if let Some(outside) = reachable.iter().find(|path| !is_below(path, dir)) {
                return Some(not_built(
                    Severity::Warning,
                    at("/kustomize/dir"),
                    format!(
                        "the kustomization ./{} reads `{outside}`, outside the bundle's directory: Fleet builds it from \
                         the bundle's own files, so the build fails; not built",
                        shown_dir(&kustomize_dir)
                    ),
                ));
            }
            self.fleet.kustomizations.insert(kustomize_dir.clone());
            return Some(Build::Kustomize { dir: kustomize_dir });
        }
        if let Some(other) = ["kustomization.yml", "Kustomization"]
            .iter()
            .find(|name| self.tree_files.contains(&join(&kustomize_dir, name)))
        {
            return Some(not_built(
                Severity::Warning,
                at("/kustomize/dir"),
                format!(
                    "./{} has a `{other}`, which Fleet does not read (it builds only a `kustomization.yaml`, else \
                     applies the files as plain YAML); not built",
                    shown_dir(&kustomize_dir)
                ),
            ));
        }
        None
    }

    /// A target of the bundle's files as they are, unless overlays or a `templates/` folder change them; the
    /// bundle is noted with the bundles nested in it.
    fn plan_plain_files(&mut self, dir: &str, variant: &Variant, lines: &LineIndex, plain_files: &[String]) -> Build {
        if !variant.options.overlays.is_empty() {
            return not_built(
                Severity::Warning,
                target_line(variant, lines, "/yaml/overlays"),
                format!(
                    "yaml.overlays ({}) replace and patch the bundle's files per target, which is not done here: not built",
                    variant.options.overlays.join(", ")
                ),
            );
        }
        let templates = join(dir, "templates");
        if self.tree_files.iter().any(|file| is_below(file, &templates) && classify::is_candidate(file)) {
            return not_built(
                Severity::Warning,
                1,
                "its templates/ are rendered by helm in a chart Fleet generates (render/helm.go `manifests`): not built"
                    .to_string(),
            );
        }
        let dir_owned = dir.to_string();
        if !self.fleet.plain_bundles.iter().any(|(bundle, _)| *bundle == dir_owned) {
            let nested: Vec<String> = self
                .boundary
                .dirs_below(dir)
                .into_iter()
                .filter(|other| {
                    *other != dir
                        && is_below(other, dir)
                        && FLEET_FILES.iter().any(|name| self.tree_files.contains(&join(other, name)))
                })
                .map(str::to_string)
                .collect();
            self.fleet.plain_bundles.push((dir_owned, nested));
        }
        Build::Plain { files: plain_files.to_vec() }
    }

    /// Why a Helm target cannot be rendered here, if it cannot: values from the downstream cluster (`valuesFrom`),
    /// values Fleet templates per cluster (`templateValues`, `${ }`, `global.fleet.clusterLabels.`), each at its
    /// line of fleet.yaml (`lines`).
    fn helm_checks(
        &self,
        dir: &str,
        variant: &Variant,
        values: &BTreeMap<String, (Value, LineIndex)>,
        lines: &LineIndex,
    ) -> Option<Build> {
        let helm = variant.helm();
        let not_built = |line: usize, reason: String| Some(Build::NotBuilt { severity: Severity::Info, line, reason });
        if let Some((reference, at)) = helm.values_from.first() {
            return not_built(
                *at,
                format!(
                    "its values come from {reference} of the downstream cluster too (helm.valuesFrom), which is not \
                     known here: not built"
                ),
            );
        }
        if let Some(at) = helm.template_values {
            return not_built(
                at,
                "its helm.templateValues are templated per cluster (cluster name, labels, values), which is not known \
                 here: not built"
                    .to_string(),
            );
        }
        for layer in &variant.layers {
            let (value, line, place) = match layer {
                Layer::Inline { value, pointer } => (value, None, pointer.clone()),
                Layer::File { path, line } => match resolve(dir, path).and_then(|relative| values.get(&relative)) {
                    Some((value, _)) => (value, Some(*line), format!("values file `{path}`")),
                    None => continue,
                },
            };
            if let Some((pointer, text)) = fleet::plan::per_cluster_value(value, helm.disable_pre_process) {
                let line = line.unwrap_or_else(|| lines.line_of(&format!("{place}{pointer}")).unwrap_or(variant.line));
                let key = pointer.trim_start_matches('/').replace('/', ".");
                let place = if place.starts_with('/') { String::new() } else { format!(" of its {place}") };
                return not_built(
                    line,
                    format!(
                        "its values hold `{text}` (at {key}{place}), which Fleet templates for each cluster (its name, \
                         labels and values): not known here, so not built"
                    ),
                );
            }
        }
        None
    }

    /// The classes of the bundle's files: fleet.yaml and values files are read by the build, plain files applied
    /// by a target are built, others Fleet does not apply are not manifests.
    fn classify_bundle(
        &mut self,
        dir: &str,
        nested: &[String],
        targets: &[(Variant, Build)],
        values: &BTreeMap<String, (Value, LineIndex)>,
        plain_files: &[String],
    ) {
        let bundle = shown_dir(dir);
        for relative in values.keys() {
            let reason = format!("values of the Fleet bundle {bundle}, merged as Fleet merges them");
            self.classes.insert(relative.clone(), (FileClass::Built, reason));
        }
        let plain = targets.iter().any(|(_, build)| matches!(build, Build::Plain { .. }));
        let styles: Vec<String> = targets
            .iter()
            .filter_map(|(_, build)| match build {
                Build::Helm { chart } => Some(format!("the chart {}", chart.path().display())),
                Build::Kustomize { dir } => Some(format!("the kustomization ./{}", shown_dir(dir))),
                _ => None,
            })
            .collect();
        let mut left_out: BTreeMap<String, String> = BTreeMap::new();
        if plain {
            for relative in self.classes.keys().filter(|relative| is_below(relative, dir)) {
                if nested.iter().any(|inner| is_below(relative, inner)) || plain_files.contains(relative) {
                    continue;
                }
                let why = if self.fleet_ignored(relative, dir) {
                    "a .fleetignore leaves it out".to_string()
                } else if inner_path(relative, dir).starts_with("overlays/") {
                    "it is an overlay (yaml.overlays), applied only by the targets naming it".to_string()
                } else if self.below_chart_or_bundle(relative, dir) {
                    "it is below a directory holding a Chart.yaml".to_string()
                } else {
                    "it is a values file of the bundle".to_string()
                };
                left_out.insert(relative.clone(), why);
            }
        }
        for (relative, (class, reason)) in self.classes.iter_mut() {
            if !is_below(relative, dir) || nested.iter().any(|inner| is_below(relative, inner)) {
                continue;
            }
            if *class == FileClass::Built && reason.starts_with("template of the Helm chart") {
                if let Some(stripped) = reason.strip_suffix(", rendered with helm template") {
                    *reason = format!("{stripped}, rendered by the Fleet bundle {bundle}");
                }
                continue;
            }
            if *class != FileClass::Manifest {
                continue;
            }
            if plain && plain_files.contains(relative) {
                *class = FileClass::Built;
                *reason = format!("applied as it is by the Fleet bundle {bundle}");
            } else if plain || !styles.is_empty() {
                *class = FileClass::NotManifest;
                *reason = if let Some(why) = left_out.get(relative) {
                    format!("in the Fleet bundle {bundle}, which does not apply it: {why}")
                } else {
                    let mut unique = styles.clone();
                    unique.dedup();
                    format!(
                        "in the Fleet bundle {bundle}, which deploys {} only: Fleet does not apply it",
                        unique.join(" and ")
                    )
                };
            }
        }
    }

    /// Builds every target of every bundle; a target whose objects equal an earlier one's of its bundle is that
    /// unit, named with both.
    pub(super) fn build_fleet(&mut self) {
        let bundles = std::mem::take(&mut self.fleet.bundles);
        for bundle in &bundles {
            self.build_bundle(bundle);
        }
        self.fleet.bundles = bundles;
    }

    fn build_bundle(&mut self, bundle: &Bundle) {
        let shown_file = self.files.display(&bundle.file);
        let shown_bundle = self.files.display(&bundle.dir);
        let has_variants = bundle
            .targets
            .iter()
            .any(|(variant, build)| variant.target.is_some() && !matches!(build, Build::NotBuilt { .. }));
        let mut units: Vec<(usize, Vec<Value>)> = Vec::new();
        for (variant, build) in &bundle.targets {
            let what = match &variant.target {
                Some(target) => format!("Fleet bundle {} (target {target})", shown_dir(&bundle.dir)),
                None => format!("Fleet bundle {}", shown_dir(&bundle.dir)),
            };
            let label = format!("{what}: fleet.yaml at {shown_file}");
            let built = match build {
                Build::NotBuilt { severity, line, reason } => {
                    self.not_built(*severity, shown_file.clone(), *line, what.clone(), format!("{what}: {reason}"));
                    None
                }
                Build::Helm { chart } => {
                    let request = self.fleet_request(bundle, variant, chart, &label);
                    let render = self.render_located(Some(chart), request);
                    match render {
                        Ok(render) => {
                            let documents = render.read().documents;
                            let patched = vec![Vec::new(); documents.len()];
                            Some((
                                BuiltSource { label, documents, patched, target: None, ..BuiltSource::default() },
                                Some(render),
                            ))
                        }
                        Err(problem) => {
                            self.not_built(
                                Severity::Warning,
                                shown_file.clone(),
                                variant.line,
                                what.clone(),
                                format!("{what}: {problem}"),
                            );
                            None
                        }
                    }
                }
                Build::Kustomize { dir } => {
                    self.build_dirs(std::slice::from_ref(dir), &Map::new(), &[], false, dir).map(|mut built| {
                        built.label = label.clone();
                        (built, None)
                    })
                }
                Build::Plain { files } => {
                    let mut documents = Vec::new();
                    for file in files {
                        documents.extend(self.files.documents(file).iter().cloned());
                    }
                    let patched = vec![Vec::new(); documents.len()];
                    Some((BuiltSource { label, documents, patched, target: None, ..BuiltSource::default() }, None))
                }
            };
            let Some((mut built, render)) = built else { continue };
            // postrender.go: `namespace` puts every object in it.
            if let Some(namespace) = &variant.options.target_namespace {
                for document in &mut built.documents {
                    if let Value::Object(object) = &mut document.value {
                        let metadata = object.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
                        if let Value::Object(metadata) = metadata {
                            metadata.insert("namespace".into(), Value::String(namespace.clone()));
                        }
                    }
                }
            }
            let objects: Vec<Value> = built.documents.iter().map(|document| document.value.clone()).collect();
            if let (Some(target), Some((unit, _))) =
                (&variant.target, units.iter().find(|(_, earlier)| *earlier == objects))
            {
                self.repository.fleet.add_same(*unit, target);
                continue;
            }
            let unit = self.repository.fleet.add(fleet::Unit {
                bundle: shown_bundle.clone(),
                target: variant.target.clone(),
                has_variants,
                same_as: Vec::new(),
            });
            units.push((unit, objects));
            let index = self.repository.built.len();
            self.repository.fleet.assign(unit, &mut built, render, index);
            self.repository.built.push(built);
        }
    }

    /// `helm template` as Fleet's Helm deployer installs the target's chart: the release and namespace Fleet uses,
    /// the values in Fleet's order (each layer at its lines), the chart's crds/.
    fn fleet_request(&self, bundle: &Bundle, variant: &Variant, chart: &LocalChart, label: &str) -> RenderRequest {
        let helm = variant.helm();
        let release = if helm.release_name.is_empty() { bundle.name.clone() } else { helm.release_name.clone() };
        let options = &variant.options;
        let namespace = options
            .target_namespace
            .clone()
            .or_else(|| options.default_namespace.clone())
            .unwrap_or_else(|| "default".to_string());
        let fleet_file = PathBuf::from(self.files.display(&bundle.file));
        let mut inline_values = Vec::new();
        for layer in &variant.layers {
            match layer {
                Layer::Inline { value, pointer } => {
                    let label =
                        format!("{} {}", fleet_file.display(), pointer.trim_start_matches('/').replace('/', "."));
                    let lines = &bundle.lines;
                    let at = |leaf: &str| lines.line_of(&format!("{pointer}{leaf}")).unwrap_or(1);
                    inline_values.push(InlineValues::at_lines(label, value.clone(), fleet_file.clone(), at));
                }
                Layer::File { path, .. } => {
                    let Some(relative) = resolve(&bundle.dir, path) else { continue };
                    let Some((value, lines)) = bundle.values.get(&relative) else { continue };
                    if value.is_null() {
                        continue;
                    }
                    let shown = PathBuf::from(self.files.display(&relative));
                    let at = |leaf: &str| lines.line_of(leaf).unwrap_or(1);
                    inline_values.push(InlineValues::at_lines(
                        shown.display().to_string(),
                        value.clone(),
                        shown.clone(),
                        at,
                    ));
                }
            }
        }
        RenderRequest {
            chart_dir: chart.path().to_path_buf(),
            release,
            namespace,
            values_files: Vec::new(),
            inline_values,
            include_crds: true,
            label: label.to_string(),
            ..RenderRequest::default()
        }
    }
}

/// `relative` below the bundle directory `dir`.
fn inner_path<'a>(relative: &'a str, dir: &str) -> &'a str {
    if dir.is_empty() {
        relative
    } else {
        relative.strip_prefix(dir).map_or(relative, |rest| rest.trim_start_matches('/'))
    }
}

/// The line of fleet.yaml a finding about `pointer` of a target is reported at: the field's own for the
/// bundle's defaults, the target's line for a target customization.
fn target_line(variant: &Variant, lines: &LineIndex, pointer: &str) -> usize {
    match &variant.target {
        None => lines.line_of(pointer).unwrap_or(1),
        Some(_) => variant.line,
    }
}

fn not_built(severity: Severity, line: usize, reason: String) -> Build {
    Build::NotBuilt { severity, line, reason }
}

/// The chart a target would download: a Helm repository's chart by name and version, an OCI reference, or a
/// chart archive's URL; or why it cannot be named.
fn remote_chart(helm: &spec::Helm) -> Result<RemoteChart, String> {
    if !helm.repo.is_empty() {
        if let Some((name, tag)) = helm::oci_chart(&helm.repo) {
            let name = if helm.chart.is_empty() { name } else { helm.chart.clone() };
            let version = if helm.version.is_empty() { tag.unwrap_or_default() } else { helm.version.clone() };
            return Ok(RemoteChart { name, version, from: helm.repo.clone() });
        }
        return Ok(RemoteChart { name: helm.chart.clone(), version: helm.version.clone(), from: helm.repo.clone() });
    }
    if let Some((name, tag)) = helm::oci_chart(&helm.chart) {
        let version = if helm.version.is_empty() { tag.unwrap_or_default() } else { helm.version.clone() };
        return Ok(RemoteChart { name, version, from: helm.chart.clone() });
    }
    let archive = helm.chart.split(['?', '#']).next().unwrap_or("");
    if let Some(file) = archive.rsplit('/').next().and_then(|file| file.strip_suffix(".tgz")) {
        // `name-1.2.3.tgz`: the name is what precedes the dash that starts the version.
        if let Some((at, _)) =
            file.match_indices('-').find(|(at, _)| file[at + 1..].starts_with(|c: char| c.is_ascii_digit()))
        {
            return Ok(RemoteChart {
                name: file[..at].to_string(),
                version: file[at + 1..].to_string(),
                from: helm.chart.clone(),
            });
        }
    }
    Err(format!(
        "helm.chart `{}` is neither a directory of the bundle nor a chart of a Helm repository or OCI registry that \
         could be looked up (Fleet would fetch it with go-getter): not built",
        helm.chart
    ))
}
