//! The ClusterClass topology engine: variables, patches and the objects a topology Cluster produces.

pub mod gotemplate;
