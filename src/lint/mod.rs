//! CAPZ rules that no schema expresses, each mirroring a CAPZ webhook or mutator function.
