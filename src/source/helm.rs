//! Helm charts of the repository rendered with `helm template` (local charts only), values traced to their file:line.
