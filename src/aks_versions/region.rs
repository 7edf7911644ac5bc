//! What AKS offers in one region, from `az aks get-versions --location L -o json` (`--aks-versions FILE`,
//! `aksVersions:` in `.kubectl-capz.yaml`): its minor versions (preview or not, their support plans), each minor's
//! patch versions and the versions each patch may be upgraded to. The release calendar still gives the dates.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::version::Minor;

/// The long-term support plan's name in `capabilities.supportPlan`.
const LTS_PLAN: &str = "AKSLongTermSupport";

/// `az aks get-versions -o json` as written (the ARM `KubernetesVersionListResult`).
#[derive(Debug, Deserialize)]
struct Raw {
    #[serde(default)]
    id: Option<String>,
    values: Option<Vec<RawMinor>>,
    /// The shape of az CLI releases before 2.50 (the `orchestrators` API AKS retired).
    #[serde(default)]
    orchestrators: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMinor {
    version: String,
    #[serde(default)]
    is_preview: Option<bool>,
    #[serde(default)]
    is_default: Option<bool>,
    #[serde(default)]
    capabilities: Option<RawCapabilities>,
    /// `null` in some outputs, like the other lists and maps below.
    #[serde(default)]
    patch_versions: Option<BTreeMap<String, Option<RawPatch>>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCapabilities {
    #[serde(default)]
    support_plan: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
struct RawPatch {
    #[serde(default)]
    upgrades: Option<Vec<String>>,
}

/// A patch version (`1.33.2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Patch {
    pub minor: Minor,
    pub patch: u32,
}

impl Patch {
    /// `v1.33.2` or `1.33.2`; `None` without a patch number or with a pre-release or build suffix.
    pub fn parse(text: &str) -> Option<Patch> {
        let minor = Minor::parse(text)?;
        let text = text.trim();
        let bare = text.strip_prefix('v').unwrap_or(text);
        let patch = bare.splitn(3, '.').nth(2)?;
        let number = (!patch.is_empty()
            && patch.bytes().all(|b| b.is_ascii_digit())
            && (patch == "0" || !patch.starts_with('0')))
        .then(|| patch.parse().ok())
        .flatten()?;
        Some(Patch { minor, patch: number })
    }
}

impl std::fmt::Display for Patch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.minor, self.patch)
    }
}

/// One minor version AKS offers in the region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionMinor {
    pub minor: Minor,
    pub preview: bool,
    /// AKS's default for new clusters in the region.
    pub default: bool,
    /// Offered only with the long-term support plan (`capabilities.supportPlan` lists only `AKSLongTermSupport`).
    pub lts_only: bool,
    /// Its patch versions, oldest first, each with the versions it may be upgraded to (oldest first).
    pub patches: Vec<(Patch, Vec<Patch>)>,
}

/// The versions AKS offers in one region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionVersions {
    /// Where the data was read from (the file, for messages); empty until the caller says.
    pub source: String,
    /// The region (`westeurope`), from the ARM id of the output, when it has one.
    pub location: Option<String>,
    /// Oldest first.
    pub minors: Vec<RegionMinor>,
}

/// Why a file is not the output of `az aks get-versions -o json`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegionError {
    #[error("line {line}: not JSON ({message})")]
    Syntax { line: usize, message: String },
    #[error("not the output of `az aks get-versions -o json` ({0})")]
    Shape(String),
    #[error(
        "this is the output of an az CLI older than 2.50 (`orchestrators`, an API AKS retired): run \
         `az aks get-versions --location LOCATION -o json` with a current az CLI"
    )]
    Orchestrators,
    #[error("values[{index}]: {message}")]
    Entry { index: usize, message: String },
}

/// How the region treats a version a manifest writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offered {
    /// Offered (its patch, or its minor when no patch is written).
    Yes,
    /// Offered as a preview.
    Preview,
    /// The minor is offered, this patch is not; the patches that are.
    PatchNotOffered { offered: Vec<Patch> },
    /// The minor is not offered; the minors that are.
    MinorNotOffered { offered: Vec<Minor> },
    /// Offered only with the long-term support plan, and the cluster does not have it.
    LtsOnly,
}

/// The region of an ARM id `.../locations/westeurope/kubernetesVersions/default`.
fn location_of(id: &str) -> Option<String> {
    let mut parts = id.split('/');
    parts.by_ref().find(|part| part.eq_ignore_ascii_case("locations"))?;
    parts.next().filter(|location| !location.is_empty()).map(normalize_location)
}

/// A location as ARM compares them: `West Europe` and `westeurope` are one.
pub fn normalize_location(location: &str) -> String {
    location.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

impl RegionVersions {
    /// Reads the output of `az aks get-versions --location L -o json`.
    pub fn from_json(text: &str) -> Result<RegionVersions, RegionError> {
        let raw: Raw = serde_json::from_str(text).map_err(|err| match err.classify() {
            serde_json::error::Category::Data => RegionError::Shape(data_error(&err)),
            _ => RegionError::Syntax { line: err.line(), message: data_error(&err) },
        })?;
        let values = match (raw.values, raw.orchestrators) {
            (Some(values), _) => values,
            (None, Some(_)) => return Err(RegionError::Orchestrators),
            (None, None) => return Err(RegionError::Shape("it has no `values`".into())),
        };
        let mut minors = Vec::with_capacity(values.len());
        for (index, entry) in values.into_iter().enumerate() {
            let bad = |message: String| RegionError::Entry { index, message };
            let minor = Minor::parse(&entry.version)
                .filter(|_| entry.version.trim_start_matches('v').split('.').count() == 2)
                .ok_or_else(|| bad(format!("version {:?} is not a minor version (1.33)", entry.version)))?;
            let patch_versions = entry.patch_versions.unwrap_or_default();
            let mut patches = Vec::with_capacity(patch_versions.len());
            for (written, patch) in &patch_versions {
                let parsed = Patch::parse(written)
                    .filter(|parsed| parsed.minor == minor)
                    .ok_or_else(|| bad(format!("patchVersions: {written:?} is not a patch version of {minor}")))?;
                let offered = patch.as_ref().and_then(|patch| patch.upgrades.as_deref()).unwrap_or_default();
                let mut upgrades = Vec::with_capacity(offered.len());
                for upgrade in offered {
                    let to = Patch::parse(upgrade).ok_or_else(|| {
                        bad(format!("patchVersions.{written}.upgrades: {upgrade:?} is not a patch version"))
                    })?;
                    upgrades.push(to);
                }
                upgrades.sort();
                upgrades.dedup();
                patches.push((parsed, upgrades));
            }
            patches.sort_by_key(|(patch, _)| *patch);
            let plans = entry.capabilities.and_then(|capabilities| capabilities.support_plan).unwrap_or_default();
            let lts_only = !plans.is_empty() && plans.iter().all(|plan| plan == LTS_PLAN);
            minors.push(RegionMinor {
                minor,
                preview: entry.is_preview.unwrap_or(false),
                default: entry.is_default.unwrap_or(false),
                lts_only,
                patches,
            });
        }
        minors.sort_by_key(|entry| entry.minor);
        if let Some(pair) = minors.windows(2).find(|pair| pair[0].minor == pair[1].minor) {
            return Err(RegionError::Shape(format!("minor {} is listed twice", pair[0].minor)));
        }
        if minors.is_empty() {
            return Err(RegionError::Shape("`values` lists no version".into()));
        }
        Ok(RegionVersions { source: String::new(), location: raw.id.as_deref().and_then(location_of), minors })
    }

    /// What the region says of `minor`.
    pub fn get(&self, minor: Minor) -> Option<&RegionMinor> {
        self.minors.iter().find(|entry| entry.minor == minor)
    }

    /// Whether this data is for `location` (a cluster's `location`): yes when either is unknown.
    pub fn covers(&self, location: Option<&str>) -> bool {
        match (&self.location, location) {
            (Some(mine), Some(theirs)) => *mine == normalize_location(theirs),
            _ => true,
        }
    }

    /// How the region treats version `written` (`v1.33.2`, or a minor alone) on a cluster with (`lts`) or without
    /// the long-term support plan.
    pub fn offers(&self, written: &str, lts: bool) -> Option<Offered> {
        let minor = Minor::parse(written)?;
        let Some(entry) = self.get(minor) else {
            return Some(Offered::MinorNotOffered { offered: self.minors.iter().map(|entry| entry.minor).collect() });
        };
        if let Some(patch) = Patch::parse(written)
            && !entry.patches.iter().any(|(offered, _)| *offered == patch)
        {
            return Some(Offered::PatchNotOffered { offered: entry.patches.iter().map(|(p, _)| *p).collect() });
        }
        Some(if entry.lts_only && !lts {
            Offered::LtsOnly
        } else if entry.preview {
            Offered::Preview
        } else {
            Offered::Yes
        })
    }

    /// The versions patch `from` may be upgraded to; `None` when the region does not offer `from`.
    pub fn upgrades_from(&self, from: Patch) -> Option<&[Patch]> {
        let entry = self.get(from.minor)?;
        entry.patches.iter().find(|(patch, _)| *patch == from).map(|(_, upgrades)| upgrades.as_slice())
    }

    /// The newest patch of `minor` the region offers.
    pub fn newest_patch(&self, minor: Minor) -> Option<Patch> {
        self.get(minor)?.patches.last().map(|(patch, _)| *patch)
    }

    /// The region in messages: `westeurope`, or `the region of the --aks-versions data` when the output does
    /// not say.
    pub fn describe(&self) -> String {
        match &self.location {
            Some(location) => location.clone(),
            None => "the region of the --aks-versions data".to_string(),
        }
    }

    /// Where the data comes from, for messages: `az aks get-versions in FILE`.
    pub fn origin(&self) -> String {
        if self.source.is_empty() {
            "the --aks-versions data".to_string()
        } else {
            format!("az aks get-versions in {}", self.source)
        }
    }
}

/// serde_json's message without its ` at line L column C` tail.
fn data_error(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// Patches as `1.33.5, 1.33.6`.
pub fn list<T: std::fmt::Display>(items: &[T]) -> String {
    items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = r#"{
  "id": "/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.ContainerService/locations/westeurope/kubernetesVersions/default",
  "name": "default",
  "type": "Microsoft.ContainerService/locations/kubernetesVersions",
  "values": [
    {"capabilities": {"supportPlan": ["AKSLongTermSupport"]}, "isDefault": null, "isPreview": null,
     "patchVersions": {"1.30.14": {"upgrades": ["1.31.11"]}}, "version": "1.30"},
    {"capabilities": {"supportPlan": ["KubernetesOfficial", "AKSLongTermSupport"]}, "isDefault": true,
     "isPreview": null, "version": "1.33",
     "patchVersions": {"1.33.5": {"upgrades": ["1.33.6", "1.34.1"]}, "1.33.6": {"upgrades": ["1.34.1"]}}},
    {"capabilities": {"supportPlan": ["KubernetesOfficial"]}, "isDefault": null, "isPreview": true,
     "patchVersions": {"1.35.0": {"upgrades": []}}, "version": "1.35"}
  ]
}"#;

    fn patch(text: &str) -> Patch {
        Patch::parse(text).unwrap()
    }

    #[test]
    fn reads_the_output_of_az_aks_get_versions() {
        let region = RegionVersions::from_json(OUTPUT).unwrap();
        assert_eq!(region.location.as_deref(), Some("westeurope"));
        assert_eq!(region.minors.len(), 3);
        let v133 = region.get(Minor::parse("1.33").unwrap()).unwrap();
        assert!(v133.default && !v133.preview && !v133.lts_only);
        assert_eq!(region.upgrades_from(patch("1.33.5")), Some(&[patch("1.33.6"), patch("1.34.1")][..]));
        assert_eq!(region.newest_patch(Minor::parse("1.33").unwrap()), Some(patch("1.33.6")));
        assert!(region.get(Minor::parse("1.30").unwrap()).unwrap().lts_only);
        assert!(region.covers(Some("West Europe")) && region.covers(None) && !region.covers(Some("eastus")));
    }

    #[test]
    fn what_the_region_offers() {
        let region = RegionVersions::from_json(OUTPUT).unwrap();
        assert_eq!(region.offers("v1.33.6", false), Some(Offered::Yes));
        assert_eq!(region.offers("v1.33", false), Some(Offered::Yes));
        assert_eq!(
            region.offers("v1.33.2", false),
            Some(Offered::PatchNotOffered { offered: vec![patch("1.33.5"), patch("1.33.6")] })
        );
        assert_eq!(
            region.offers("v1.32.4", false),
            Some(Offered::MinorNotOffered {
                offered: ["1.30", "1.33", "1.35"].iter().map(|m| Minor::parse(m).unwrap()).collect()
            })
        );
        assert_eq!(region.offers("v1.30.14", false), Some(Offered::LtsOnly));
        assert_eq!(region.offers("v1.30.14", true), Some(Offered::Yes));
        assert_eq!(region.offers("v1.35.0", false), Some(Offered::Preview));
        assert_eq!(region.offers("${KUBERNETES_VERSION}", false), None);
    }

    #[test]
    fn what_is_not_the_output_is_refused_saying_why() {
        let err = |text: &str| RegionVersions::from_json(text).unwrap_err().to_string();
        assert_eq!(err("{\n  \"values\": [\n    {,\n"), "line 3: not JSON (key must be a string)");
        assert!(err(r#"{"values": 3}"#).starts_with("not the output of `az aks get-versions -o json`"));
        assert!(err(r#"{"orchestrators": [{"orchestratorVersion": "1.27.7"}]}"#).contains("older than 2.50"));
        assert_eq!(
            err(r#"{"values": [{"version": "1.33.2"}]}"#),
            "values[0]: version \"1.33.2\" is not a minor version (1.33)"
        );
        assert_eq!(
            err(r#"{"values": [{"version": "1.33", "patchVersions": {"1.34.1": {}}}]}"#),
            "values[0]: patchVersions: \"1.34.1\" is not a patch version of 1.33"
        );
        assert!(err(r#"{"values": []}"#).contains("lists no version"));
        assert!(err(r#"{"values": [{"version": "1.33"}, {"version": "1.33"}]}"#).contains("listed twice"));
    }

    #[test]
    fn nulls_where_az_writes_them_are_empty() {
        let region = RegionVersions::from_json(
            r#"{"id": null, "values": [{"version": "1.35", "capabilities": {"supportPlan": null}, "isDefault": null,
                "isPreview": null, "patchVersions": {"1.35.1": {"upgrades": null}, "1.35.2": null}},
               {"version": "1.36", "capabilities": null, "patchVersions": null}]}"#,
        )
        .unwrap();
        assert_eq!(region.location, None);
        assert_eq!(region.upgrades_from(patch("1.35.1")), Some(&[][..]));
        assert_eq!(region.newest_patch(Minor::parse("1.35").unwrap()), Some(patch("1.35.2")));
        assert!(region.get(Minor::parse("1.36").unwrap()).unwrap().patches.is_empty());
    }

    #[test]
    fn patches_parse_strictly() {
        assert_eq!(Patch::parse("v1.33.2"), Some(patch("1.33.2")));
        for bad in ["1.33", "v1.33.02", "1.33.2-rc.1", "1.33.x", ""] {
            assert_eq!(Patch::parse(bad), None, "{bad}");
        }
    }
}
