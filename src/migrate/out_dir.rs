//! What `migrate --out-dir` writes: one directory per cluster, each new (migrate never writes over an existing
//! one); [`crate::out_tree`] writes them as marked directories beside whatever else the output directory holds.

use std::path::{Path, PathBuf};

use crate::out_tree::DesiredTree;

/// One cluster's output: its directory name and its files (name, content).
#[derive(Debug, Clone)]
pub struct ClusterFiles {
    /// The directory under the output directory (the cluster's name).
    pub cluster_name: String,
    /// File name and content.
    pub files: Vec<(String, String)>,
}

/// `<cluster>/<file>` for every cluster.
pub fn bundle_tree(clusters: &[ClusterFiles]) -> DesiredTree {
    let mut tree = DesiredTree::default();
    for cluster in clusters {
        for (name, content) in &cluster.files {
            tree.insert(Path::new(&cluster.cluster_name).join(name), content.as_bytes());
        }
    }
    tree
}

/// The first cluster directory that exists under `out_dir` already (migrate refuses to write then).
pub fn existing_cluster_dir(out_dir: &Path, clusters: &[ClusterFiles]) -> Option<PathBuf> {
    clusters.iter().map(|cluster| out_dir.join(&cluster.cluster_name)).find(|target| target.exists())
}
