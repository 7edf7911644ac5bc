//! Rendering: the minijinja engine over embedded flavors and ClusterClasses, and clusterctl templates.
