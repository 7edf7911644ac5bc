//! The steps of a live migration by name, with their numbers and titles as CAPZ's procedure gives them.

/// The steps, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepId {
    Pause,
    BlockMove,
    Disarm,
    Namespace,
    Secret,
    ResourceGroup,
    ManagedCluster,
    AgentPools,
    Available,
    DeleteOld,
    RemoveFinalizers,
    OldAsoGone,
}

impl StepId {
    pub const ALL: [StepId; 12] = [
        StepId::Pause,
        StepId::BlockMove,
        StepId::Disarm,
        StepId::Namespace,
        StepId::Secret,
        StepId::ResourceGroup,
        StepId::ManagedCluster,
        StepId::AgentPools,
        StepId::Available,
        StepId::DeleteOld,
        StepId::RemoveFinalizers,
        StepId::OldAsoGone,
    ];

    /// The step's number in CAPZ's procedure (`6b`).
    pub fn number(self) -> &'static str {
        match self {
            StepId::Pause => "1",
            StepId::BlockMove => "2",
            StepId::Disarm => "3",
            StepId::Namespace => "4",
            StepId::Secret => "5",
            StepId::ResourceGroup => "6a",
            StepId::ManagedCluster => "6b",
            StepId::AgentPools => "6c",
            StepId::Available => "6d",
            StepId::DeleteOld => "7a",
            StepId::RemoveFinalizers => "7b",
            StepId::OldAsoGone => "7c",
        }
    }

    /// What the step does, in one line.
    pub fn title(self) -> &'static str {
        match self {
            StepId::Pause => "pause the old Cluster",
            StepId::BlockMove => "wait until CAPZ has paused (block-move annotation gone)",
            StepId::Disarm => "disarm the old ASO objects (reconcile-policy: skip, then no finalizers)",
            StepId::Namespace => "create the new namespace",
            StepId::Secret => "copy the ASO credential Secret",
            StepId::ResourceGroup => "adopt the ResourceGroup",
            StepId::ManagedCluster => "adopt the ManagedCluster",
            StepId::AgentPools => "adopt the agent pools",
            StepId::Available => "wait for the new Cluster to be Available",
            StepId::DeleteOld => "delete the old CAPI/CAPZ objects (no wait)",
            StepId::RemoveFinalizers => "remove the old objects' finalizers",
            StepId::OldAsoGone => "check the old ASO objects are gone",
        }
    }
}
