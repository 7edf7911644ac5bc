//! Schemas of CAPI, CAPZ, ASO and core kinds: the importer, the embedded registry and validation.
