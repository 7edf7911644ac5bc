//! The exit statuses every subcommand shares: 0 clean, 1 findings or differences, 2 errors.

use std::process::ExitCode;

/// How a command ended, mapped onto the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing to report: rendered, valid, no differences (exit 0).
    Success,
    /// The command worked and found something: validation errors, differences (exit 1).
    Findings,
    /// Usage, input or cluster error (exit 2).
    Error,
}

impl ExitStatus {
    /// The numeric process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        ExitCode::from(status.code())
    }
}
