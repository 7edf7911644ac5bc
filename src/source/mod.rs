//! Repository mode: what a GitOps controller would apply from a directory (plain manifests, kustomize builds,
//! Helm charts, Flux Kustomizations and Argo CD Applications), each document traced back to its source file:line.

pub mod argo;
pub mod helm;
pub mod tool;
