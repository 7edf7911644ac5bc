//! Talking to a live cluster: kubeconfig and context, discovery by GVK, reads and dry-run applies.
