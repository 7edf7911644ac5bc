//! External tools (helm, kustomize) run as subprocesses: a timeout, a clean environment, no network.
