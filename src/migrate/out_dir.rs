//! Writing migrated bundles into `--out-dir`: one directory per cluster, never over an existing one, through the
//! the staged tree writer ([`crate::out_tree`]) so that a failure leaves no half-written output.

use std::path::{Path, PathBuf};

use crate::out_tree::{DesiredTree, OutDir, Plan, TreeError};

/// Why the bundles could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    /// A cluster's directory is there already.
    #[error("{} exists; migrate does not overwrite it", .0.display())]
    Exists(PathBuf),
    /// The staged writer failed (nothing was changed).
    #[error(transparent)]
    Tree(#[from] TreeError),
}

/// One cluster's output: its directory name and its files (name, content).
#[derive(Debug, Clone)]
pub struct ClusterFiles {
    /// The directory under the output directory (the cluster's name).
    pub cluster_name: String,
    /// File name and content.
    pub files: Vec<(String, String)>,
}

/// Writes `<out_dir>/<cluster>/<file>` for every cluster, all or nothing; refuses when any cluster's directory
/// exists.
pub fn write_out_dir(out_dir: &Path, clusters: &[ClusterFiles]) -> Result<(), OutDirError> {
    for cluster in clusters {
        let target = out_dir.join(&cluster.cluster_name);
        if target.exists() {
            return Err(OutDirError::Exists(target));
        }
    }
    let mut tree = DesiredTree::default();
    for cluster in clusters {
        for (name, content) in &cluster.files {
            tree.insert(Path::new(&cluster.cluster_name).join(name), content.as_bytes());
        }
    }
    let held = OutDir::open(out_dir)?;
    let written = Plan::compute(out_dir, &tree).and_then(|plan| plan.apply());
    if written.is_err() {
        held.discard_if_created();
    }
    Ok(written?)
}
