//! The inspector's end of the follower ([`crate::runlog::follow`]): what it finds becomes
//! list entries, sent to the event loop in batches, and reply texts, sent to the readings
//! thread once their entries have gone.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use crate::runlog::{Change, Item, LoadOptions, Sink, Watching, follow};

use super::state::{Entry, EntryKey, Incoming, Progress, WatchState};
use super::update::Msg;

pub use crate::runlog::WatchMode;

/// A reply whose summary is wanted: its key, id (what a reader command is told), text, and
/// whether the log says it was cut.
pub type SummaryJob = (EntryKey, String, Arc<str>, bool);

/// Where loaded items go: entries to the event loop in batches, texts to the summarizer.
pub struct Intake {
    ui: Sender<Msg>,
    summaries: Sender<SummaryJob>,
    next_key: EntryKey,
    batch: Vec<Incoming>,
    /// Summaries to ask for once their entries have been sent (so they arrive after them).
    jobs: Vec<SummaryJob>,
    last_flush: Instant,
    progress: Progress,
    initial: bool,
}

impl Intake {
    pub fn new(ui: Sender<Msg>, summaries: Sender<SummaryJob>) -> Intake {
        Intake {
            ui,
            summaries,
            next_key: 1,
            batch: Vec::new(),
            jobs: Vec::new(),
            last_flush: Instant::now(),
            progress: Progress::default(),
            initial: true,
        }
    }

    /// Sends what has gathered. Returns false when the event loop is gone.
    fn send(&mut self) -> bool {
        self.last_flush = Instant::now();
        if !self.batch.is_empty() {
            let batch = std::mem::take(&mut self.batch);
            if self.ui.send(Msg::Incoming { batch, initial: self.initial }).is_err() {
                return false;
            }
        }
        for job in self.jobs.drain(..) {
            let _ = self.summaries.send(job);
        }
        self.ui.send(Msg::Progress(self.progress)).is_ok()
    }
}

impl Sink for Intake {
    fn change(&mut self, change: Change) {
        let incoming = match change {
            Change::Item(item) => {
                if let Item::Reply(r) = &item {
                    self.progress.bytes += r.text.len() as u64;
                }
                self.progress.items += 1;
                let key = self.next_key;
                self.next_key += 1;
                let entry = Entry::from_item(key, item);
                if let Some(text) = entry.text() {
                    self.jobs.push((key, entry.id.clone(), text.clone(), entry.cut()));
                }
                Incoming::Entry(entry)
            }
            Change::Amended { source, line, meta } => Incoming::Amended { source, line, meta: Box::new(meta) },
            Change::Restarted { source, .. } => Incoming::Restarted { source },
            Change::Removed { source } => Incoming::Removed { source },
        };
        self.batch.push(incoming);
        if self.initial && (self.batch.len() >= 2000 || self.last_flush.elapsed() >= Duration::from_millis(100)) {
            self.send();
        }
    }

    fn file_found(&mut self) {
        self.progress.files += 1;
    }

    fn loaded(&mut self) -> bool {
        self.progress.done = true;
        let sent = self.send();
        self.initial = false;
        sent
    }

    fn flush(&mut self) -> bool {
        self.send()
    }

    fn watching(&mut self, how: Watching) -> bool {
        let state = match how {
            Watching::Off => WatchState::Off,
            Watching::Native => WatchState::Native,
            Watching::Polling(why) => WatchState::Polling(why),
        };
        self.ui.send(Msg::Watch(state)).is_ok()
    }
}

/// Loads `roots`, then follows them as `mode` says, into `intake`, until the event loop goes
/// away.
pub fn run(roots: Vec<PathBuf>, opts: LoadOptions, mode: WatchMode, mut intake: Intake) {
    follow(roots, opts, mode, &mut intake);
}
