//! "Did you mean": the known name closest to a misspelt one.

/// How alike (Jaro-Winkler, case ignored) a known name must be to be suggested.
const MIN_SIMILARITY: f64 = 0.8;

/// The candidate most like `word` (case ignored; the last of equals), if any is alike enough to suggest.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|candidate| (strsim::jaro_winkler(&word, &candidate.to_ascii_lowercase()), candidate))
        .filter(|(score, _)| *score >= MIN_SIMILARITY)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_known_name_ignoring_case() {
        let known = ["capzVersion", "kubernetesVersion", "rules"];
        assert_eq!(closest("capzVersoin", known), Some("capzVersion"));
        assert_eq!(closest("CAPZVERSION", known), Some("capzVersion"));
        assert_eq!(closest("zzz", known), None);
        assert_eq!(closest("system", ["System", "User"]), Some("System"));
    }
}
