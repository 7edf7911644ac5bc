//! Which API version an ASO object moves to (`convert --aso`, and what `validate` suggests): the one `--aso-version` names for its group, else, for a version the
//! target does not serve, the newest the target serves of the same kind, a preview for a preview (its fields
//! mostly exist only in previews) and a stable version for a stable one.

use std::collections::BTreeMap;

/// The version to move to, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Served already and not asked for: nothing to do.
    Keep,
    /// Move to this version.
    To { version: String, asked: bool },
    /// Not served, and the target serves no version of the kind (or not the one asked for).
    Nowhere,
}

/// Whether an API version is a preview (`v1api20240402preview`, `v20251002preview`).
pub fn is_preview(version: &str) -> bool {
    version.ends_with("preview")
}

/// Whether an API version is one of ASO's storage versions (never written by users).
pub fn is_storage(version: &str) -> bool {
    version.ends_with("storage")
}

/// The date an ASO API version is named after (`v1api20240402preview` -> 20240402), for ordering.
pub fn date_of(version: &str) -> u64 {
    let digits: String =
        version.trim_start_matches("v1api").trim_start_matches('v').chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

/// Whether `to` is an older API version than `from` (a move down loses what only the newer version has).
pub fn older(to: &str, from: &str) -> bool {
    date_of(to) < date_of(from)
}

/// The version for an object of `version` of a kind the target serves in `served` (storage versions left out by
/// the caller or here), with the versions asked for per group (`--aso-version`).
pub fn choose(group: &str, version: &str, served: &[String], asked: &BTreeMap<String, String>) -> Choice {
    let served: Vec<&str> = served.iter().map(String::as_str).filter(|v| !is_storage(v)).collect();
    if let Some(wanted) = asked.get(group) {
        return if wanted == version {
            Choice::Keep
        } else if served.contains(&wanted.as_str()) {
            Choice::To { version: wanted.clone(), asked: true }
        } else if served.contains(&version) {
            // The group's version asked for is not one of this kind's: the kind stays where it is served.
            Choice::Keep
        } else {
            newest(version, &served)
        };
    }
    if served.contains(&version) { Choice::Keep } else { newest(version, &served) }
}

fn newest(version: &str, served: &[&str]) -> Choice {
    let pick = |preview: bool| {
        served.iter().filter(|v| is_preview(v) == preview).max_by_key(|v| date_of(v)).map(|v| v.to_string())
    };
    let wanted = is_preview(version);
    match pick(wanted).or_else(|| pick(!wanted)) {
        Some(version) => Choice::To { version, asked: false },
        None => Choice::Nowhere,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(versions: &[&str]) -> Vec<String> {
        versions.iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn unserved_versions_move_to_the_newest_of_their_kind() {
        let managed = served(&[
            "v1api20240901",
            "v1api20240901storage",
            "v1api20250801",
            "v1api20250801storage",
            "v20251002preview",
            "v20251002previewstorage",
        ]);
        let none = BTreeMap::new();
        let to = |v: &str| Choice::To { version: v.into(), asked: false };
        let cs = "containerservice.azure.com";
        assert_eq!(choose(cs, "v1api20240402preview", &managed, &none), to("v20251002preview"));
        assert_eq!(choose(cs, "v1api20231001", &managed, &none), to("v1api20250801"));
        assert_eq!(choose(cs, "v1api20240901", &managed, &none), Choice::Keep);
        assert_eq!(choose(cs, "v1api20231001", &served(&[]), &none), Choice::Nowhere);
        // Only previews served: a stable version still moves.
        assert_eq!(choose(cs, "v1api20231001", &served(&["v20251002preview"]), &none), to("v20251002preview"));
    }

    #[test]
    fn asked_versions_win_where_the_kind_has_them() {
        let network = served(&["v1api20201101", "v1api20240301", "v20250301"]);
        let asked = BTreeMap::from([("network.azure.com".to_string(), "v20250301".to_string())]);
        let n = "network.azure.com";
        assert_eq!(
            choose(n, "v1api20201101", &network, &asked),
            Choice::To { version: "v20250301".into(), asked: true }
        );
        assert_eq!(choose(n, "v20250301", &network, &asked), Choice::Keep);
        // A kind without the asked version keeps a served one.
        assert_eq!(choose(n, "v1api20220701", &served(&["v1api20220701"]), &asked), Choice::Keep);
        assert_eq!(date_of("v1api20240402preview"), 20240402);
        assert_eq!(date_of("v20250301"), 20250301);
    }
}
