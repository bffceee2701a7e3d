//! What went wrong with a reader that runs outside while it ran: one [`ReaderProblem`] per
//! failure, naming the reader by its id and its name, typed by what went wrong, so that a
//! report groups a reader's problems under it and a shard's JSON gives them back as they
//! were (`scan --merge`), with no message read back for its parts.
//!
//! A reader that cannot be defined is an error before anything runs ([`ReaderError`]); one
//! that starts and then fails, or fails one reply, is a problem here, beside the replies it
//! gave no answer for ([`Given::Failed`](super::Given::Failed)).

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::error::ReaderError;
use super::id::ReaderId;
use crate::visible::{clip, visible};

/// One problem of one reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderProblem {
    pub reader: ReaderId,
    /// Its name, as the catalogue has it.
    pub name: String,
    pub fault: Fault,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "kebab-case")]
pub enum Fault {
    /// It could not be started, or its extractor could not be loaded.
    Start { error: ReaderError },
    /// It gave no answer for one reply, and why: what it returned could not be carried, or
    /// it threw where its spec counts a throw as a failure. Its other answers stand.
    Reply { reply: String, why: String },
    /// It failed for good (it exited, hung, printed what is not an answer, answered out of
    /// order), or ended badly after its last answer: why, the likely fix where its stderr
    /// says what went wrong, and where its stderr is.
    Stopped { why: String, fix: Option<String>, log: Option<PathBuf> },
}

impl ReaderProblem {
    pub fn new(reader: ReaderId, name: &str, fault: Fault) -> ReaderProblem {
        ReaderProblem { reader, name: name.to_owned(), fault }
    }
}

/// A reply id as a message shows it: clipped, control characters shown.
fn shown(id: &str) -> String {
    visible(&clip(id, 120), false)
}

impl fmt::Display for ReaderProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match &self.fault {
            // The error names the reader itself.
            Fault::Start { error } => write!(f, "{error}"),
            Fault::Reply { reply, why } => write!(f, "reader {name}: reply {}: {}", shown(reply), visible(why, false)),
            Fault::Stopped { why, fix, log } => {
                write!(f, "reader {name}: {why}")?;
                if let Some(fix) = fix {
                    write!(f, ": {fix}")?;
                }
                match log {
                    Some(log) => write!(f, " (its stderr: {})", log.display()),
                    None => Ok(()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_problem_names_its_reader_and_says_what_went_wrong() {
        let p = |fault| ReaderProblem::new(ReaderId::LAST_WINS, "mine", fault);
        let reply = p(Fault::Reply { reply: "r\u{1b}1".into(), why: "cannot carry it".into() });
        assert_eq!(reply.to_string(), "reader mine: reply r␛1: cannot carry it");
        let stopped = p(Fault::Stopped {
            why: "exited with status 1 before it answered reply r3".into(),
            fix: Some("install it".into()),
            log: Some(PathBuf::from("/state/readers/mine.log")),
        });
        assert_eq!(
            stopped.to_string(),
            "reader mine: exited with status 1 before it answered reply r3: install it (its stderr: /state/readers/mine.log)"
        );
        let bare = p(Fault::Stopped { why: "did not exit; stopped".into(), fix: None, log: None });
        assert_eq!(bare.to_string(), "reader mine: did not exit; stopped");
        let start = p(Fault::Start {
            error: ReaderError::Start { name: "mine".into(), program: "sh".into(), cause: "gone".into() },
        });
        assert_eq!(start.to_string(), "reader mine: could not start sh: gone");
    }

    #[test]
    fn a_fault_is_written_and_read_back_as_it_was() {
        for fault in [
            Fault::Reply { reply: "r1".into(), why: "x".into() },
            Fault::Stopped { why: "y".into(), fix: None, log: Some(PathBuf::from("/l")) },
            Fault::Start {
                error: ReaderError::NoFunction {
                    name: "mine".into(),
                    target: "x.mjs".into(),
                    wanted: None,
                    functions: vec!["a".into(), "b".into()],
                    spec: "js:x.mjs#".into(),
                },
            },
        ] {
            let json = serde_json::to_value(&fault).unwrap();
            assert_eq!(serde_json::from_value::<Fault>(json).unwrap(), fault);
        }
    }
}
