//! The line records of a document read from YAML: what both readers (serde's in parse.rs, the event reader in
//! direct.rs) produce.

use serde_json::Value;

/// The line of one node and the size of its subtree, in post-order (children before their parent,
/// the root last). A map entry's line is its key's line; a list item's, the item's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct NodeLine {
    pub(super) line: u32,
    /// Records in this node's subtree, itself included.
    pub(super) size: u32,
}

/// One document read straight into JSON, with the line records of its nodes.
#[derive(Debug, PartialEq)]
pub(super) struct LinedDocument {
    pub(super) value: Value,
    /// Line and column (1-based) where the document's root node starts.
    pub(super) line: usize,
    pub(super) column: usize,
    pub(super) nodes: Vec<NodeLine>,
}

impl LinedDocument {
    /// Moves the document `offset` lines down (it was read from a part of a longer text).
    pub(super) fn shift_lines(&mut self, offset: usize) {
        self.line += offset;
        for node in &mut self.nodes {
            node.line += offset as u32;
        }
    }
}
