//! One reader, running: its [process](super::process) and its [ledger](super::ledger), the
//! answers matched with the replies asked about, in order, and read as the extractor's caller
//! reads them. An adapter is waited for until it says it has loaded its function
//! ([`Session::ready`]).
//!
//! The consumer never blocks on the child for longer than the child lives: the watchdog
//! stops a child that owes answers and has neither taken input nor given an answer for the
//! timeout, which ends its output, which ends any wait for it. A failure is final: the
//! child is stopped, the replies it owed and every later one get [`Given::Failed`] with the
//! reason, and one problem names the reader and the reply; its earlier answers stand.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use crate::readers::adapter::Adapter;
use crate::readers::error::ReaderError;
use crate::readers::given::Given;
use crate::readers::id::ReaderId;
use crate::readers::problem::ReaderProblem;
use crate::visible::visible;

use super::ledger::{Ending, Ledger};
use super::process::{EXIT_GRACE, Output, Process, Shared, exit_status, spawn};
use super::stderr;
use crate::readers::adapter::Called;
use crate::readers::own::{Outside, Runs};
use crate::readers::protocol::{Handshake, Line};

/// How many of the last lines of a reader's stderr are read for the likely fix.
pub const TAIL: usize = 40;

/// One reader command and the answers it owes.
pub struct Session {
    pub reader: ReaderId,
    outside: Outside,
    process: Option<Process>,
    shared: Arc<Shared>,
    ledger: Ledger,
}

/// A reader's process, started and, for an adapter, ready: it has loaded its function.
pub(super) struct Started {
    process: Process,
    shared: Arc<Shared>,
    /// What an adapter's runner called.
    pub(super) called: Option<Called>,
}

/// Starts `outside` as reader `name` and, for an adapter, waits until it says it has loaded
/// its function (for as long as the reader's timeout): the error says why it cannot run.
pub(super) fn ready(name: &str, outside: &Outside) -> Result<Started, ReaderError> {
    let shared = Shared::new();
    let process = spawn(outside, &shared).map_err(|e| ReaderError::Start {
        name: name.to_owned(),
        program: match outside.runs() {
            Runs::Shell(command) => format!("`sh -c {}`", clipped(command)),
            Runs::Adapter(a) => a.program.display().to_string(),
        },
        cause: e.to_string(),
    })?;
    let mut process = process;
    let called = match outside.runs() {
        Runs::Adapter(adapter) => Some(handshake(name, outside, adapter, &mut process)?),
        Runs::Shell(_) => None,
    };
    Ok(Started { process, shared, called })
}

/// Waits for the adapter's first line; stops it where that is not "ready".
fn handshake(name: &str, outside: &Outside, adapter: &Adapter, p: &mut Process) -> Result<Called, ReaderError> {
    let (name, target) = (name.to_owned(), adapter.target.clone());
    let said = p.output.recv_timeout(outside.run.timeout);
    let error = match said {
        Ok(Output::Handshake(Handshake::Ready { function })) => return Ok(Called { function }),
        Ok(Output::Handshake(Handshake::NotLoaded { error })) => {
            let cause = one_line(&error);
            ReaderError::Load { name, target, fix: stderr::likely_fix(&cause), cause }
        }
        Ok(Output::Handshake(Handshake::NoFunction { wanted, functions })) => {
            ReaderError::NoFunction { name, target, wanted, functions, spec: adapter.spec_prefix.clone() }
        }
        Ok(Output::Handshake(Handshake::Bad(what))) => ReaderError::NotReady { name, target, how: what, fix: None },
        // The reader thread sends a handshake first, or the end of the output.
        Ok(Output::Line(_) | Output::End(_)) | Err(RecvTimeoutError::Disconnected) => {
            let ended = exit_status(p, EXIT_GRACE / 4);
            let tail = outside.run.log.as_deref().map(|l| stderr::tail(l, 3)).unwrap_or_default();
            let mut how = ended.text;
            if let Some(last) = tail.last() {
                how = format!("{how}; its stderr ends: {last}");
            }
            return Err(ReaderError::NotReady { name, target, how, fix: stderr::likely_fix(&tail.join("\n")) });
        }
        Err(RecvTimeoutError::Timeout) => ReaderError::NotReady {
            name,
            target,
            how: format!("said nothing for {} (--reader-timeout)", seconds(outside.run.timeout)),
            fix: None,
        },
    };
    exit_status(p, Duration::ZERO);
    Err(error)
}

impl Session {
    /// Starts `outside` as reader `reader`, or takes the process [started
    /// ahead](super::start_ahead) for it; a reader that cannot start is a session failed
    /// from the first reply.
    pub fn start(reader: ReaderId, name: &str, outside: &Outside) -> Session {
        let mut session = Session {
            reader,
            outside: outside.clone(),
            process: None,
            shared: Shared::new(),
            ledger: Ledger::new(reader, name),
        };
        match super::parked(name, outside).map_or_else(|| ready(name, outside), Ok) {
            Ok(started) => {
                session.process = Some(started.process);
                session.shared = started.shared;
            }
            Err(e) => session.ledger.not_started(e),
        }
        session
    }

    /// Asks about these replies (their ids, in the order of the requests in `chunk`).
    pub fn send(&mut self, ids: &[&str], chunk: &Arc<Vec<u8>>) {
        if let Some(why) = self.ledger.ended_before(ids) {
            self.fail(why);
        }
        if !self.ledger.ask(ids) {
            return;
        }
        self.shared.asked.fetch_add(ids.len(), Ordering::Relaxed);
        self.shared.queued.fetch_add(chunk.len(), Ordering::Relaxed);
        let sent = self.process.as_ref().and_then(|p| p.input.as_ref()).is_some_and(|i| i.send(chunk.clone()).is_ok());
        if !sent {
            // The writer is gone only when the child is: its output says how.
            self.shared.queued.fetch_sub(chunk.len(), Ordering::Relaxed);
        }
    }

    /// Input bytes not yet written to the child.
    pub fn backlog(&self) -> usize {
        if self.ledger.is_failed() { 0 } else { self.shared.queued.load(Ordering::Relaxed) }
    }

    /// No more replies: the child's input ends once what was sent is written.
    pub fn close(&mut self) {
        self.ledger.close();
        if let Some(p) = &mut self.process {
            p.input = None;
        }
    }

    /// Reads what the child has printed; with `want`, waits until that many answers are
    /// waiting to be taken (or it failed, or owes no more). Returns how many are waiting.
    pub fn poll(&mut self, want: usize) -> usize {
        while let Some(p) = &self.process {
            let next = if self.ledger.waiting() < want && self.ledger.owes() {
                p.output.recv().map_err(|_| mpsc::TryRecvError::Disconnected)
            } else {
                p.output.try_recv()
            };
            match next {
                Ok(out) => self.handle(out),
                Err(mpsc::TryRecvError::Empty) => break,
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.handle(Output::End(None));
                    break;
                }
            }
        }
        if self.process.is_none() && self.ledger.owes() {
            self.fail("had stopped".to_owned());
        }
        self.ledger.waiting()
    }

    /// The oldest reply's answer, once it is in.
    pub fn take(&mut self) -> Option<Given> {
        self.ledger.take()
    }

    /// The problems since the last call.
    pub fn problems(&mut self) -> Vec<ReaderProblem> {
        self.ledger.problems()
    }

    /// Where its stderr goes.
    pub fn log(&self) -> Option<&Path> {
        self.outside.run.log.as_deref()
    }

    pub fn name(&self) -> &str {
        self.ledger.name()
    }

    /// Ends the child: its input is closed, it is given a moment to exit, then stopped.
    /// After it has answered everything, an exit status other than 0 is a problem (one
    /// that lingers past its input is merely stopped: its answers are all in).
    pub fn finish(&mut self) {
        self.close();
        let Some(mut p) = self.process.take() else { return };
        let status = exit_status(&mut p, EXIT_GRACE);
        if !self.ledger.is_failed() && !status.success && !status.stopped {
            let why = format!("{} after its last answer", status.text);
            self.stopped(&why);
        }
    }

    fn handle(&mut self, out: Output) {
        match out {
            Output::Line(Line::Answer { id, answer }) => {
                if let Some(why) = self.ledger.answer(&id, answer, &self.outside.spec.caller) {
                    self.fail(why);
                }
            }
            // Only an adapter's first line is read as a handshake, and it is waited for.
            Output::Handshake(_) => {}
            Output::Line(Line::Bad(what)) => {
                let why = self.ledger.bad_line(&what);
                self.fail(why);
            }
            Output::End(error) => {
                if self.ledger.is_failed() || self.process.is_none() {
                    return;
                }
                let Some(mut p) = self.process.take() else { return };
                let hung = self.shared.hung.load(Ordering::Relaxed);
                let status = exit_status(&mut p, if hung { Duration::ZERO } else { EXIT_GRACE / 4 });
                let how = if hung {
                    format!(
                        "stopped after {} without taking input or answering (--reader-timeout)",
                        seconds(self.outside.run.timeout)
                    )
                } else if let Some(e) = error {
                    format!("its output could not be read ({e}); stopped")
                } else {
                    status.text
                };
                match self.ledger.end(how, status.success) {
                    Ending::Fails(why) => self.fail(why),
                    Ending::BadExit(why) => self.stopped(&why),
                    Ending::Quiet => {}
                }
            }
        }
    }

    /// The likely fix where its stderr tells (the child has ended, so its log is whole).
    fn fix(&self) -> Option<String> {
        let log = self.outside.run.log.as_deref()?;
        stderr::likely_fix(&stderr::tail(log, TAIL).join("\n"))
    }

    /// A problem of a reader that ended badly: why, the likely fix, where its stderr is.
    fn stopped(&mut self, why: &str) {
        let fix = self.fix();
        self.ledger.stopped(why, fix, self.outside.run.log.clone());
    }

    /// Fails the session for good: the child is stopped; one problem; what it owed and
    /// every later reply get `why`.
    fn fail(&mut self, why: String) {
        if self.ledger.is_failed() {
            return;
        }
        if let Some(mut p) = self.process.take() {
            exit_status(&mut p, Duration::ZERO);
        }
        let fix = self.fix();
        self.ledger.fail(&why, fix, self.outside.run.log.clone());
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.input = None;
            exit_status(&mut p, Duration::ZERO);
        }
    }
}

fn seconds(d: Duration) -> String {
    if d < Duration::from_secs(10) { format!("{:.1} s", d.as_secs_f64()) } else { format!("{} s", d.as_secs()) }
}

/// A message from a runner in one line: its lines joined, clipped.
fn one_line(message: &str) -> String {
    let joined: Vec<&str> = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    visible(&crate::visible::clip(&joined.join(" "), 400), false)
}

fn clipped(command: &str) -> String {
    visible(&crate::visible::clip(command, 120), false)
}
