//! Argo CD Applications and ApplicationSets: the sources of this repository they point at.
