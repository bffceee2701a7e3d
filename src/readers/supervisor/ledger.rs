//! What a reader owes and has given, kept apart from its process: the replies asked about in
//! order, each answer matched with the next of them and read as the extractor's caller reads
//! it, the answers not yet taken, and the reader's failure once it fails. Nothing here
//! touches a process: the session feeds it what the child printed and how it ended, and
//! stops the child where the ledger says the reader fails.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use crate::exact::value::JsString;
use crate::readers::error::ReaderError;
use crate::readers::given::Given;
use crate::readers::id::ReaderId;
use crate::readers::problem::{Fault, ReaderProblem};
use crate::visible::visible;

use crate::readers::own::caller::Caller;
use crate::readers::protocol::Answer;

/// One reader's account of replies asked about and answers given.
pub(super) struct Ledger {
    reader: ReaderId,
    name: String,
    /// Ids asked about and not yet answered, in order.
    owed: VecDeque<String>,
    /// Answers not yet taken, in the order asked.
    answers: VecDeque<Given>,
    /// Why it failed: what every later reply is given.
    failed: Option<Arc<str>>,
    /// Its output ended while nothing was owed: why, for the next reply asked about.
    ended: Option<String>,
    closed: bool,
    problems: Vec<ReaderProblem>,
}

/// What the end of a reader's output means.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// It owed answers: it fails, for this reason.
    Fails(String),
    /// It had answered everything and its input was closed, and it ended badly: a problem,
    /// for this reason.
    BadExit(String),
    /// Nothing to say now (it ended well, or ended before it was asked about anything more:
    /// the next reply asked about fails it).
    Quiet,
}

impl Ledger {
    pub(super) fn new(reader: ReaderId, name: &str) -> Ledger {
        Ledger {
            reader,
            name: name.to_owned(),
            owed: VecDeque::new(),
            answers: VecDeque::new(),
            failed: None,
            ended: None,
            closed: false,
            problems: Vec::new(),
        }
    }

    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// It could not be started: failed from the first reply, with one problem.
    pub(super) fn not_started(&mut self, error: ReaderError) {
        self.failed = Some(Arc::from(format!("reader failed: {error}")));
        self.problems.push(ReaderProblem::new(self.reader, &self.name, Fault::Start { error }));
    }

    /// Why it fails before it is asked about `ids`: its output had ended while it owed
    /// nothing.
    pub(super) fn ended_before(&mut self, ids: &[&str]) -> Option<String> {
        let why = self.ended.take()?;
        let at = ids.first().copied().unwrap_or_default();
        Some(format!("{why} before it was asked about reply {}", shown(at)))
    }

    /// Asks about `ids`, in order: false where it has failed (each of them is then given its
    /// failure at once).
    pub(super) fn ask(&mut self, ids: &[&str]) -> bool {
        if let Some(why) = &self.failed {
            self.answers.extend(ids.iter().map(|_| Given::Failed(why.clone())));
            return false;
        }
        self.owed.extend(ids.iter().map(|&id| id.to_owned()));
        true
    }

    pub(super) fn is_failed(&self) -> bool {
        self.failed.is_some()
    }

    /// Whether replies asked about are still unanswered.
    pub(super) fn owes(&self) -> bool {
        !self.owed.is_empty()
    }

    /// How many answers wait to be taken.
    pub(super) fn waiting(&self) -> usize {
        self.answers.len()
    }

    /// The oldest reply's answer, once it is in.
    pub(super) fn take(&mut self) -> Option<Given> {
        self.answers.pop_front()
    }

    /// The problems since the last call.
    pub(super) fn problems(&mut self) -> Vec<ReaderProblem> {
        std::mem::take(&mut self.problems)
    }

    /// No more replies will be asked about.
    pub(super) fn close(&mut self) {
        self.closed = true;
    }

    /// One answer, for reply `id`: read as `caller` reads it where it is the answer owed
    /// next; otherwise why the reader fails by it.
    pub(super) fn answer(&mut self, id: &JsString, answer: Answer, caller: &Caller) -> Option<String> {
        let Some(next) = self.owed.front() else {
            return Some(format!("answered for {}, a reply it was not asked about (it owed none)", js_shown(id)));
        };
        if JsString::from(next.as_str()) != *id {
            let why = if self.owed.iter().any(|o| JsString::from(o.as_str()) == *id) {
                format!(
                    "answered reply {} where reply {} was next (answers come in the order asked)",
                    js_shown(id),
                    shown(next)
                )
            } else {
                format!(
                    "answered for {}, a reply it was not asked about, where reply {} was next",
                    js_shown(id),
                    shown(next)
                )
            };
            return Some(why);
        }
        let id = self.owed.pop_front().unwrap_or_default();
        let given = caller.read(answer);
        if let Given::Failed(why) = &given {
            let fault = Fault::Reply { reply: id, why: why.to_string() };
            self.problems.push(ReaderProblem::new(self.reader, &self.name, fault));
        }
        self.answers.push_back(given);
        None
    }

    /// Why a line that is not an answer (`what` it is) fails the reader.
    pub(super) fn bad_line(&self, what: &str) -> String {
        match self.owed.front() {
            Some(next) => format!("printed {what} where the answer for reply {} was next", shown(next)),
            None => format!("printed {what} when it owed no answer"),
        }
    }

    /// Its output ended, `how` (and whether its exit was a success).
    pub(super) fn end(&mut self, how: String, success: bool) -> Ending {
        match self.owed.front() {
            Some(next) => Ending::Fails(format!("{how} before it answered reply {}", shown(next))),
            None if self.closed => {
                if success {
                    Ending::Quiet
                } else {
                    Ending::BadExit(format!("{how} after its last answer"))
                }
            }
            None => {
                self.ended = Some(how);
                Ending::Quiet
            }
        }
    }

    /// A problem of the reader that ended or failed: why, the likely fix where its stderr
    /// tells, and where its stderr is.
    pub(super) fn stopped(&mut self, why: &str, fix: Option<String>, log: Option<PathBuf>) {
        let fault = Fault::Stopped { why: why.to_owned(), fix, log };
        self.problems.push(ReaderProblem::new(self.reader, &self.name, fault));
    }

    /// Fails the reader for good: one problem; what it owed and every later reply get `why`.
    pub(super) fn fail(&mut self, why: &str, fix: Option<String>, log: Option<PathBuf>) {
        if self.failed.is_some() {
            return;
        }
        self.stopped(why, fix, log);
        let given: Arc<str> = Arc::from(format!("reader failed: {why}"));
        self.answers.extend(self.owed.drain(..).map(|_| Given::Failed(given.clone())));
        self.failed = Some(given);
    }
}

/// A reply id as a message shows it.
fn shown(id: &str) -> String {
    visible(&crate::visible::clip(id, 120), false)
}

fn js_shown(id: &JsString) -> String {
    format!("{:?}", shown(&id.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::js;

    fn ledger() -> Ledger {
        Ledger::new(ReaderId::LAST_WINS, "mine")
    }

    fn value(json: &str) -> Answer {
        Answer::Value(Some(js::parse(json).unwrap()))
    }

    fn id(s: &str) -> JsString {
        JsString::from(s)
    }

    fn said(l: &mut Ledger) -> Vec<String> {
        l.problems().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn answers_are_matched_with_the_replies_asked_about_in_order() {
        let mut l = ledger();
        let caller = Caller::default();
        assert!(l.ask(&["a", "b"]));
        assert!(l.owes());
        assert_eq!(l.answer(&id("a"), value("[1]"), &caller), None);
        assert_eq!(l.waiting(), 1);
        assert_eq!(l.answer(&id("b"), Answer::Value(None), &caller), None);
        assert!(!l.owes());
        assert_eq!(l.take(), Some(Given::Read(js::parse("[1]").unwrap())));
        assert_eq!(l.take(), Some(Given::Nothing));
        assert_eq!(l.take(), None);
        assert!(said(&mut l).is_empty());
    }

    #[test]
    fn an_answer_out_of_turn_says_why_the_reader_fails() {
        let caller = Caller::default();
        let mut l = ledger();
        assert_eq!(
            l.answer(&id("x"), value("1"), &caller).as_deref(),
            Some("answered for \"x\", a reply it was not asked about (it owed none)")
        );
        l.ask(&["a", "b"]);
        assert_eq!(
            l.answer(&id("b"), value("1"), &caller).as_deref(),
            Some("answered reply \"b\" where reply a was next (answers come in the order asked)")
        );
        assert_eq!(
            l.answer(&id("z"), value("1"), &caller).as_deref(),
            Some("answered for \"z\", a reply it was not asked about, where reply a was next")
        );
        assert_eq!(l.bad_line("\"hello\""), "printed \"hello\" where the answer for reply a was next");
        assert_eq!(l.waiting(), 0, "nothing was taken as an answer");
    }

    #[test]
    fn a_failure_is_final_and_every_reply_owed_or_asked_later_gets_it() {
        let caller = Caller::default();
        let mut l = ledger();
        l.ask(&["a", "b", "c"]);
        assert_eq!(l.answer(&id("a"), value("1"), &caller), None);
        l.fail("exited with status 1 before it answered reply b", None, Some(PathBuf::from("/l/mine.log")));
        l.fail("a second reason", None, None);
        assert!(l.is_failed() && !l.owes());
        assert!(!l.ask(&["d"]), "not sent");
        let given: Vec<Given> = std::iter::from_fn(|| l.take()).collect();
        let failed = Given::Failed(Arc::from("reader failed: exited with status 1 before it answered reply b"));
        assert_eq!(given, [Given::Read(js::parse("1").unwrap()), failed.clone(), failed.clone(), failed]);
        assert_eq!(
            said(&mut l),
            ["reader mine: exited with status 1 before it answered reply b (its stderr: /l/mine.log)"]
        );
    }

    #[test]
    fn a_reply_failed_alone_is_one_problem_and_the_reader_goes_on() {
        let caller = Caller::default();
        let mut l = ledger();
        l.ask(&["a", "b"]);
        assert_eq!(l.answer(&id("a"), Answer::Failed("cannot carry it".into()), &caller), None);
        assert_eq!(l.answer(&id("b"), value("2"), &caller), None);
        assert!(!l.is_failed());
        assert_eq!(l.take(), Some(Given::Failed(Arc::from("cannot carry it"))));
        assert_eq!(said(&mut l), ["reader mine: reply a: cannot carry it"]);
    }

    #[test]
    fn how_the_end_of_its_output_is_taken() {
        let mut l = ledger();
        l.ask(&["a"]);
        assert_eq!(
            l.end("exited with status 0".into(), true),
            Ending::Fails("exited with status 0 before it answered reply a".into())
        );
        // Ended with nothing owed and its input open: the next reply asked about fails it.
        let mut l = ledger();
        assert_eq!(l.end("exited with status 0".into(), true), Ending::Quiet);
        assert_eq!(l.ended_before(&["b"]).as_deref(), Some("exited with status 0 before it was asked about reply b"));
        assert_eq!(l.ended_before(&["c"]), None, "said once");
        // Ended after its input was closed: only a bad exit is said.
        let mut l = ledger();
        l.close();
        assert_eq!(l.end("exited with status 0".into(), true), Ending::Quiet);
        assert_eq!(
            l.end("exited with status 3".into(), false),
            Ending::BadExit("exited with status 3 after its last answer".into())
        );
    }

    #[test]
    fn one_that_cannot_start_fails_every_reply_with_the_reason() {
        let mut l = ledger();
        l.not_started(ReaderError::Start { name: "mine".into(), program: "sh".into(), cause: "gone".into() });
        assert!(!l.ask(&["a"]));
        assert_eq!(l.take(), Some(Given::Failed(Arc::from("reader failed: reader mine: could not start sh: gone"))));
        assert_eq!(said(&mut l), ["reader mine: could not start sh: gone"]);
    }
}
