//! Differences between desired and live objects: normalisation, ASO-aware matching, masking, output.
