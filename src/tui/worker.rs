//! The work that never runs on the event loop, on three threads that report through the
//! loop's one channel:
//!
//! * **files**: the first load, then watching ([`watch::run`]); pushes entries in batches;
//! * **summaries**: the cheap, linear reading of every reply, for the list's badges;
//! * **details**: the full record of the reply being looked at. Only the latest request
//!   matters (a person holding `j` passes replies by), so requests that were overtaken
//!   before they started are dropped.
//!
//! Texts are shared (`Arc<str>`) between the list and these threads, never copied.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use crate::runlog::LoadOptions;

use super::analysis;
use super::state::EntryKey;
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
        std::thread::Builder::new().name("bracewalk-summaries".into()).spawn(move || summaries(&sum_rx, &to_ui))?;
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

/// Summarizes every reply sent, reporting in batches.
fn summaries(rx: &Receiver<SummaryJob>, ui: &Sender<Msg>) {
    let mut done = Vec::new();
    let mut since = Instant::now();
    loop {
        let job = if done.is_empty() {
            match rx.recv() {
                Ok(j) => j,
                Err(_) => return,
            }
        } else {
            match rx.try_recv() {
                Ok(j) => j,
                Err(mpsc::TryRecvError::Empty) => {
                    if ui.send(Msg::Summaries(std::mem::take(&mut done))).is_err() {
                        return;
                    }
                    since = Instant::now();
                    continue;
                }
                Err(mpsc::TryRecvError::Disconnected) => {
                    let _ = ui.send(Msg::Summaries(std::mem::take(&mut done)));
                    return;
                }
            }
        };
        let (key, text, cut) = job;
        done.push((key, analysis::summarize(&text, cut)));
        if done.len() >= 500 || since.elapsed() >= Duration::from_millis(100) {
            if ui.send(Msg::Summaries(std::mem::take(&mut done))).is_err() {
                return;
            }
            since = Instant::now();
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
