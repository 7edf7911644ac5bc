//! clusterctl `generate cluster --from` semantics: variable lookup, injected variables, target namespace, output.
