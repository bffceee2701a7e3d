//! The work that never runs on the event loop, on three threads that report through the
//! loop's one channel:
//!
//! * **files**: the first load, then watching ([`watch::run`]); pushes entries in batches;
//! * **readings**: the cheap, linear reading of every reply, for the list's badges; then,
//!   whenever no badge is waiting, the corpus scan's reading of each (every what-if, for
//!   the summary screen and the what-if column), so the scan never holds a badge back;
//! * **details**: the full record of the reply being looked at. Only the latest request
//!   matters (a person holding `j` passes replies by), so requests that were overtaken
//!   before they started are dropped.
//!
//! Texts are shared (`Arc<str>`) between the list and these threads, never copied.

use std::collections::VecDeque;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use crate::runlog::LoadOptions;
use crate::scan::Facts;

use super::analysis;
use super::state::EntryKey;
use super::summary;
use super::update::Msg;
use super::watch::{self, Intake, SummaryJob, WatchMode};

/// A request for a reply's full record.
type DetailJob = (EntryKey, Arc<str>, bool);

/// The handle the event loop keeps.
pub struct Worker {
    details: Sender<DetailJob>,
}

impl Worker {
    /// Starts loading `paths` and the threads that read what is loaded.
    pub fn start(paths: Vec<PathBuf>, opts: LoadOptions, mode: WatchMode, ui: Sender<Msg>) -> io::Result<Worker> {
        let (sum_tx, sum_rx) = mpsc::channel::<SummaryJob>();
        let (det_tx, det_rx) = mpsc::channel::<DetailJob>();
        let to_ui = ui.clone();
        std::thread::Builder::new().name("bracewalk-readings".into()).spawn(move || readings(&sum_rx, &to_ui))?;
        let to_ui = ui.clone();
        std::thread::Builder::new().name("bracewalk-details".into()).spawn(move || details(&det_rx, &to_ui))?;
        let intake = Intake::new(ui, sum_tx);
        std::thread::Builder::new()
            .name("bracewalk-files".into())
            .spawn(move || watch::run(paths, opts, mode, intake))?;
        Ok(Worker { details: det_tx })
    }

    /// Asks for the full record of a reply.
    pub fn detail(&self, key: EntryKey, text: Arc<str>, cut: bool) {
        let _ = self.details.send((key, text, cut));
    }
}

/// Results gathered before they are sent, and when they last were.
struct Outbox {
    summaries: Vec<(EntryKey, analysis::Summary)>,
    facts: Vec<(EntryKey, Facts)>,
    since: Instant,
}

impl Outbox {
    /// Sends what has gathered; false when the event loop is gone.
    fn send(&mut self, ui: &Sender<Msg>) -> bool {
        self.since = Instant::now();
        if !self.summaries.is_empty() && ui.send(Msg::Summaries(std::mem::take(&mut self.summaries))).is_err() {
            return false;
        }
        self.facts.is_empty() || ui.send(Msg::Facts(std::mem::take(&mut self.facts))).is_ok()
    }

    fn full(&self) -> bool {
        self.summaries.len() >= 500 || self.facts.len() >= 500 || self.since.elapsed() >= Duration::from_millis(100)
    }
}

/// Summarizes every reply sent, then reads each for the scan when no summary is waiting;
/// reports in batches.
fn readings(rx: &Receiver<SummaryJob>, ui: &Sender<Msg>) {
    let config = summary::config();
    let mut out = Outbox { summaries: Vec::new(), facts: Vec::new(), since: Instant::now() };
    let mut scan: VecDeque<SummaryJob> = VecDeque::new();
    let mut open = true;
    loop {
        let idle = out.summaries.is_empty() && out.facts.is_empty() && scan.is_empty();
        let job = if !open {
            None
        } else if idle {
            match rx.recv() {
                Ok(j) => Some(j),
                Err(_) => {
                    open = false;
                    None
                }
            }
        } else {
            match rx.try_recv() {
                Ok(j) => Some(j),
                Err(mpsc::TryRecvError::Empty) => None,
                Err(mpsc::TryRecvError::Disconnected) => {
                    open = false;
                    None
                }
            }
        };
        match job {
            Some((key, text, cut)) => {
                out.summaries.push((key, analysis::summarize(&text, cut)));
                scan.push_back((key, text, cut));
            }
            None => {
                // Caught up: the badges go first, then one reply is read for the scan.
                if !out.summaries.is_empty() && !out.send(ui) {
                    return;
                }
                match scan.pop_front() {
                    Some((key, text, _)) => out.facts.push((key, Facts::of_text(&text, config))),
                    None => {
                        if !out.send(ui) || !open {
                            return;
                        }
                        continue;
                    }
                }
            }
        }
        if out.full() && !out.send(ui) {
            return;
        }
    }
}

/// Makes full records, the latest request first.
fn details(rx: &Receiver<DetailJob>, ui: &Sender<Msg>) {
    while let Ok(mut job) = rx.recv() {
        while let Ok(newer) = rx.try_recv() {
            job = newer;
        }
        let (key, text, cut) = job;
        let d = analysis::detail(&text, cut);
        if ui.send(Msg::Detail(key, Arc::new(d))).is_err() {
            return;
        }
    }
}
