//! The inspector's end of the follower ([`crate::logs::follow`]): what it finds becomes
//! list entries, sent to the event loop in batches, and replies to read, sent to the
//! readings thread once their entries have gone (with their texts, while the texts on their
//! way stay within budget; see [`super::readings`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use crate::logs::{Change, Item, LoadOptions, Locator, Names, Sink, Watching, follow};

use super::entry::{Entry, EntryKey};
use super::message::{Incoming, LoadProgress, Msg, WatchState};
use super::readings::{InFlight, ReadJob};

pub use crate::logs::WatchMode;

/// Where loaded items go: entries to the event loop in batches, replies to the readings
/// thread.
pub struct Intake {
    ui: Sender<Msg>,
    reads: Sender<ReadJob>,
    in_flight: Arc<InFlight>,
    next_key: EntryKey,
    batch: Vec<Incoming>,
    /// Replies to read once their entries have been sent (so they arrive after them).
    jobs: Vec<ReadJob>,
    last_flush: Instant,
    progress: LoadProgress,
    initial: bool,
    /// One copy of each name the entries' metadata repeat (agents, rounds, documents,
    /// models), and of each file's path: a list of 100,000 replies holds pointers to them.
    names: Names,
}

impl Intake {
    pub fn new(ui: Sender<Msg>, reads: Sender<ReadJob>, in_flight: Arc<InFlight>) -> Intake {
        Intake {
            ui,
            reads,
            in_flight,
            next_key: 1,
            batch: Vec::new(),
            jobs: Vec::new(),
            last_flush: Instant::now(),
            progress: LoadProgress::default(),
            initial: true,
            names: Names::new(),
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
            let _ = self.reads.send(job);
        }
        self.ui.send(Msg::Progress(self.progress)).is_ok()
    }
}

impl Sink for Intake {
    fn change(&mut self, change: Change) {
        let incoming = match change {
            Change::Item(mut item) => {
                match &mut item {
                    Item::Reply(r) => r.meta.share_names(&mut self.names),
                    Item::Event(e) => e.meta.share_names(&mut self.names),
                    Item::Diagnostic(_) => {}
                }
                self.progress.items += 1;
                let key = self.next_key;
                self.next_key += 1;
                let job = match &item {
                    Item::Reply(r) => {
                        self.progress.bytes += r.text.len() as u64;
                        let text = self.in_flight.take(r.text.len()).then(|| Arc::from(r.text.as_str()));
                        Some(ReadJob { key, locator: Locator::of(r), text, stopped: false })
                    }
                    _ => None,
                };
                let mut entry = Entry::loaded(key, item);
                entry.source = self.names.path(&entry.source);
                if let Some(mut job) = job {
                    job.stopped = entry.cut();
                    self.jobs.push(job);
                }
                Incoming::Entry(entry)
            }
            Change::Listed(mut listed) => {
                listed.meta.share_names(&mut self.names);
                self.progress.items += 1;
                self.progress.bytes += listed.len as u64;
                let key = self.next_key;
                self.next_key += 1;
                let mut entry = Entry::listed(key, listed);
                entry.source = self.names.path(&entry.source);
                if let Some(locator) = entry.locator() {
                    self.jobs.push(ReadJob { key, locator, text: None, stopped: entry.cut() });
                }
                Incoming::Entry(entry)
            }
            Change::Amended { source, line, mut meta } => {
                meta.share_names(&mut self.names);
                Incoming::Amended { source, line, meta: Box::new(meta) }
            }
            Change::Restarted { source, .. } => Incoming::Restarted { source },
            Change::Removed { source } => Incoming::Removed { source },
            Change::Moved { moves } => Incoming::Moved { moves },
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
        self.in_flight.loaded();
        self.progress.done = true;
        let sent = self.send();
        self.initial = false;
        sent
    }

    fn flush(&mut self) -> bool {
        self.send()
    }

    /// The list holds no text of a reply loaded from a file: a reply listed comes without
    /// one, and the readings read it from its file.
    fn lists(&self) -> bool {
        true
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
