//! Hash maps and sets for validation's hot paths, hashed with foldhash instead of std's SipHash.
//!
//! SipHash cost about a sixth of the instructions of validating 100 classic clusters; most of its calls came
//! from these maps (indexes by kind, name and namespace, the schema cache, per-group lookups). Seeded per
//! process like std's maps, so iteration order is no more predictable than before and nothing depends on it.

/// The hasher of [`HashMap`] and [`HashSet`], for hashing a value by itself (`hash_one`).
pub type RandomState = foldhash::fast::RandomState;
pub type HashMap<K, V> = std::collections::HashMap<K, V, RandomState>;
pub type HashSet<T> = std::collections::HashSet<T, RandomState>;
