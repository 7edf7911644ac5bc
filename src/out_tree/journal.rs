//! The journal of a run (`.kubectl-capz-journal` in the output directory): what a run stages and switches,
//! written before it touches anything, so that the next run can complete or roll back an interrupted one.
//! A journal found on disk is untrusted input like everything else there: every path in it must be a
//! relative path of plain names, every temporary or backup name must carry the journal's run id.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::TreeError;
use super::safe_path::{plain_name_problem, relative_path_problem};

/// The journal's file name, directly in the output directory.
pub const JOURNAL: &str = ".kubectl-capz-journal";
const JOURNAL_STAGING: &str = ".kubectl-capz-journal.new";
const HEADER: &str = "# kubectl-capz: journal of an unfinished run writing this directory. The next run with the same\n\
# --out-dir completes or rolls it back; do not edit or commit this file.\n";

/// How far a run got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Writing temporary files and backups; nothing a user sees has changed. Recovery rolls back.
    Staging,
    /// Renaming temporary files into place and removing stale files. Recovery completes the switch.
    Switching,
    /// Undoing a switch that failed. Recovery completes the rollback.
    RollingBack,
}

impl State {
    fn word(self) -> &'static str {
        match self {
            State::Staging => "staging",
            State::Switching => "switching",
            State::RollingBack => "rolling-back",
        }
    }
    /// What the next run does about a journal in this state.
    pub fn describe(self) -> &'static str {
        match self {
            State::Staging => "interrupted while staging its files (the tree is unchanged; the next run removes them)",
            State::Switching => "interrupted while switching to the new files (the next run completes the switch)",
            State::RollingBack => "interrupted while rolling back (the next run completes the rollback)",
        }
    }
}

/// One step of the switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Rename `temp` onto `name` in `dir`; `backup` is a hard link to the file it replaces.
    Write { dir: PathBuf, name: String, temp: String, backup: Option<String> },
    /// Remove `name` from `dir`; `backup` is a hard link to it.
    Delete { dir: PathBuf, name: String, backup: String },
}

impl Op {
    /// The directory the step is in.
    pub fn dir(&self) -> &Path {
        match self {
            Op::Write { dir, .. } | Op::Delete { dir, .. } => dir,
        }
    }
    /// The file name the step changes.
    pub fn name(&self) -> &str {
        match self {
            Op::Write { name, .. } | Op::Delete { name, .. } => name,
        }
    }
    /// The backup link, if any.
    pub fn backup(&self) -> Option<&str> {
        match self {
            Op::Write { backup, .. } => backup.as_deref(),
            Op::Delete { backup, .. } => Some(backup),
        }
    }
}

/// A run's journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    /// The run's id, part of every temporary and backup name.
    pub run: String,
    /// How far the run got.
    pub state: State,
    /// Directories the run creates, parents first.
    pub mkdirs: Vec<PathBuf>,
    /// The switch, in order.
    pub ops: Vec<Op>,
    /// Owned directories the run empties: removed with their empty parents at the end.
    pub prune: Vec<PathBuf>,
}

/// Name of a temporary file of a run.
pub fn temp_name(run: &str, index: usize) -> String {
    format!(".kubectl-capz-new.{run}.{index}")
}

/// Name of a backup link of a run.
pub fn backup_name(run: &str, index: usize) -> String {
    format!(".kubectl-capz-old.{run}.{index}")
}

fn dir_text(dir: &Path) -> String {
    if dir.as_os_str().is_empty() { ".".into() } else { dir.display().to_string() }
}

impl Journal {
    /// The journal's text; the state comes first so it can be read cheaply.
    pub fn to_text(&self) -> String {
        let mut text = format!("state\t{}\n{HEADER}run\t{}\n", self.state.word(), self.run);
        for dir in &self.mkdirs {
            text.push_str(&format!("mkdir\t{}\n", dir_text(dir)));
        }
        for op in &self.ops {
            match op {
                Op::Write { dir, name, temp, backup } => text.push_str(&format!(
                    "write\t{}\t{name}\t{temp}\t{}\n",
                    dir_text(dir),
                    backup.as_deref().unwrap_or("-")
                )),
                Op::Delete { dir, name, backup } => {
                    text.push_str(&format!("delete\t{}\t{name}\t{backup}\n", dir_text(dir)))
                }
            }
        }
        for dir in &self.prune {
            text.push_str(&format!("prune\t{}\n", dir_text(dir)));
        }
        text.push_str("end\n");
        text
    }

    /// Writes the journal into `root`, replacing any earlier version in one rename.
    pub fn write(&self, root: &Path) -> Result<(), TreeError> {
        let staging = root.join(JOURNAL_STAGING);
        let io = |action, path: &Path| {
            let path = path.to_path_buf();
            move |source| TreeError::Io { action, path, source }
        };
        // Whatever is at the staging name (a leftover, or a link planted there) is removed, never followed.
        match std::fs::remove_file(&staging) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io("remove", &staging)(e)),
            _ => {}
        }
        let mut file =
            std::fs::OpenOptions::new().write(true).create_new(true).open(&staging).map_err(io("create", &staging))?;
        file.write_all(self.to_text().as_bytes()).map_err(io("write", &staging))?;
        drop(file);
        let target = root.join(JOURNAL);
        std::fs::rename(&staging, &target).map_err(io("write", &target))
    }

    /// Reads the journal of `root`, if there is one.
    pub fn read(root: &Path) -> Result<Option<Journal>, TreeError> {
        let path = root.join(JOURNAL);
        match super::safe_path::kind_of(&path) {
            Ok(super::safe_path::Kind::Absent) => return Ok(None),
            Ok(super::safe_path::Kind::File) => {}
            Ok(_) => return Err(bad(&path, 1, "is not a regular file".into())),
            Err(source) => return Err(TreeError::Io { action: "inspect", path, source }),
        }
        let text = std::fs::read_to_string(&path).map_err(|source| TreeError::Io {
            action: "read",
            path: path.clone(),
            source,
        })?;
        Journal::parse(&text).map(Some).map_err(|(line, reason)| bad(&path, line, reason))
    }

    fn parse(text: &str) -> Result<Journal, (usize, String)> {
        let mut journal =
            Journal { run: String::new(), state: State::Staging, mkdirs: vec![], ops: vec![], prune: vec![] };
        let mut ended = false;
        let mut state_seen = false;
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            if ended {
                return Err((number, "text after `end`".into()));
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let dir = |field: &str| -> Result<PathBuf, (usize, String)> {
                let path = if field == "." { PathBuf::new() } else { PathBuf::from(field) };
                match relative_path_problem(&path) {
                    Some(problem) => Err((number, format!("directory `{}` {problem}", field.escape_debug()))),
                    None => Ok(path),
                }
            };
            let name = |field: &str| -> Result<String, (usize, String)> {
                match plain_name_problem(field) {
                    Some(problem) => Err((number, format!("name `{}` {problem}", field.escape_debug()))),
                    None => Ok(field.to_string()),
                }
            };
            let run = journal.run.clone();
            let ours = |field: &str, kind: &str| -> Result<String, (usize, String)> {
                let expected = format!(".kubectl-capz-{kind}.{run}.");
                let rest = field.strip_prefix(&expected).unwrap_or("");
                if run.is_empty() || rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
                    let what = if kind == "new" { "temporary" } else { "backup" };
                    return Err((number, format!("`{}` is not a {what} file of run `{run}`", field.escape_debug())));
                }
                Ok(field.to_string())
            };
            match fields.as_slice() {
                ["state", word] if !state_seen => {
                    state_seen = true;
                    journal.state = match *word {
                        "staging" => State::Staging,
                        "switching" => State::Switching,
                        "rolling-back" => State::RollingBack,
                        other => return Err((number, format!("unknown state `{}`", other.escape_debug()))),
                    };
                }
                ["run", id] if journal.run.is_empty() => {
                    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
                        return Err((number, "the run id is not alphanumeric".into()));
                    }
                    journal.run = id.to_string();
                }
                ["mkdir", d] => journal.mkdirs.push(dir(d)?),
                ["write", d, n, t, b] => journal.ops.push(Op::Write {
                    dir: dir(d)?,
                    name: name(n)?,
                    temp: ours(t, "new")?,
                    backup: if *b == "-" { None } else { Some(ours(b, "old")?) },
                }),
                ["delete", d, n, b] => {
                    journal.ops.push(Op::Delete { dir: dir(d)?, name: name(n)?, backup: ours(b, "old")? })
                }
                ["prune", d] => journal.prune.push(dir(d)?),
                ["end"] => ended = true,
                _ => return Err((number, format!("unexpected line `{}`", line.escape_debug()))),
            }
        }
        if !state_seen || journal.run.is_empty() || !ended {
            return Err((1, "the journal is incomplete".into()));
        }
        Ok(journal)
    }
}

fn bad(path: &Path, line: usize, reason: String) -> TreeError {
    TreeError::BadJournal { journal: path.to_path_buf(), line, reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_hostile_entries() {
        let journal = Journal {
            run: "ab12".into(),
            state: State::Switching,
            mkdirs: vec!["clusters/ns".into()],
            ops: vec![
                Op::Write {
                    dir: "clusters/ns".into(),
                    name: "a.yaml".into(),
                    temp: temp_name("ab12", 0),
                    backup: None,
                },
                Op::Delete { dir: PathBuf::new(), name: "b.yaml".into(), backup: backup_name("ab12", 1) },
            ],
            prune: vec!["x".into()],
        };
        assert_eq!(Journal::parse(&journal.to_text()).unwrap(), journal);
        for (text, needle) in [
            ("state\tstaging\nrun\tab\ndelete\t../..\tvictim\t.kubectl-capz-old.ab.1\nend\n", "contains `..`"),
            ("state\tstaging\nrun\tab\ndelete\t.\t/etc/passwd\t.kubectl-capz-old.ab.1\nend\n", "absolute"),
            ("state\tstaging\nrun\tab\ndelete\t.\tx\tmine.txt\nend\n", "not a backup file of run `ab`"),
            ("state\tstaging\nrun\tab\n", "incomplete"),
        ] {
            let (_, reason) = Journal::parse(text).unwrap_err();
            assert!(reason.contains(needle), "{text:?}: {reason}");
        }
    }
}
