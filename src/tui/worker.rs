//! The work that never runs on the event loop, on three threads that report through the
//! loop's one channel:
//!
//! * **files**: the first load, then watching ([`watch::run`]); pushes entries in batches;
//! * **readings**: the scan's facts of every reply, as `bracewalk scan` reads them: first
//!   their early part, for the list's badges; then, whenever no badge is waiting, the rest
//!   (every what-if, for the summary screen and the what-if column), so the scan never holds
//!   a badge back. Reader commands are sent each reply as its early part is read, and a
//!   reply is completed once they have answered it, in order; the thread never waits on
//!   them while a reply is to be read, so a slow or hung command holds back only its own
//!   comparisons (and the watchdog fails one that hangs past its timeout);
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

use crate::describe::sketch;
use crate::readers::command::Commands;
use crate::readers::{Given, ReaderId};
use crate::runlog::LoadOptions;
use crate::scan::{Config, Facts};

use super::analysis;
use super::state::EntryKey;
use super::update::Msg;
use super::watch::{self, Intake, SummaryJob, WatchMode};

/// A request for a reply's full record.
type DetailJob = (EntryKey, Arc<str>, bool);

/// The longest sketch of a reply's answer kept, in characters.
const SKETCH_MAX: usize = 160;
/// How often the readings thread looks for a reader command's answers while it has nothing
/// else to do.
const COMMAND_POLL: Duration = Duration::from_millis(20);

/// A reply's facts as the readings thread sends them: the early part (with a sketch of the
/// seed's answer), then the complete facts.
#[derive(Debug)]
pub struct Read {
    pub key: EntryKey,
    pub facts: Facts,
    pub sketch: Option<String>,
}

impl Read {
    /// The early facts of a reply (`stopped`: its record says it was cut off), with a sketch
    /// of the seed's answer: the first thing the readings thread reads of it.
    pub fn early(key: EntryKey, text: &str, stopped: bool, config: &Config) -> Read {
        let (facts, seed) = Facts::early(text, stopped, config);
        let sketch = seed.as_ref().map_or_else(|| "null".to_owned(), sketch);
        Read { key, facts, sketch: Some(crate::runlog::clip(&sketch, SKETCH_MAX)) }
    }

    /// The facts of [`Read::early`], completed: what the readings thread reads of a reply
    /// once no early reading is waiting.
    pub fn complete(key: EntryKey, text: &str, facts: Facts, config: &Config) -> Read {
        Read::complete_given(key, text, facts, config, &[])
    }

    /// [`Read::complete`], with the reader commands' answers for the reply.
    pub fn complete_given(
        key: EntryKey,
        text: &str,
        mut facts: Facts,
        config: &Config,
        given: &[(ReaderId, Given)],
    ) -> Read {
        facts.complete_given(text, config, given);
        Read { key, facts, sketch: None }
    }
}

/// The handle the event loop keeps.
pub struct Worker {
    details: Sender<DetailJob>,
}

impl Worker {
    /// Starts loading `paths` and the threads that read what is loaded, with `config`'s
    /// readers.
    pub fn start(
        paths: Vec<PathBuf>,
        opts: LoadOptions,
        mode: WatchMode,
        config: Arc<Config>,
        ui: Sender<Msg>,
    ) -> io::Result<Worker> {
        let (sum_tx, sum_rx) = mpsc::channel::<SummaryJob>();
        let (det_tx, det_rx) = mpsc::channel::<DetailJob>();
        let to_ui = ui.clone();
        let cfg = config.clone();
        std::thread::Builder::new().name("bracewalk-readings".into()).spawn(move || readings(&sum_rx, &to_ui, &cfg))?;
        let to_ui = ui.clone();
        std::thread::Builder::new()
            .name("bracewalk-details".into())
            .spawn(move || details(&det_rx, &to_ui, &config))?;
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
    read: Vec<Read>,
    since: Instant,
}

impl Outbox {
    /// Sends what has gathered; false when the event loop is gone.
    fn send(&mut self, ui: &Sender<Msg>) -> bool {
        self.since = Instant::now();
        self.read.is_empty() || ui.send(Msg::Facts(std::mem::take(&mut self.read))).is_ok()
    }

    fn full(&self) -> bool {
        self.read.len() >= 500 || self.since.elapsed() >= Duration::from_millis(100)
    }
}

/// Reads the early facts of every reply sent, then completes each when no early reading is
/// waiting (and the reader commands have answered it); reports in batches.
fn readings(rx: &Receiver<SummaryJob>, ui: &Sender<Msg>, config: &Config) {
    let mut commands = Commands::start(&config.catalogue, &config.commands());
    let mut out = Outbox { read: Vec::new(), since: Instant::now() };
    // Replies to complete, in the order the commands were asked about them.
    let mut later: VecDeque<(EntryKey, Arc<str>, Facts)> = VecDeque::new();
    let mut early_sent = true;
    let mut open = true;
    loop {
        let idle = out.read.is_empty() && later.is_empty();
        // Only a command's answers are awaited: look for them now and then, and for replies.
        let awaiting = out.read.is_empty() && !later.is_empty() && commands.ready(0) == 0;
        let job = if !open {
            None
        } else if idle {
            rx.recv().map_err(|_| open = false).ok()
        } else {
            let got = if awaiting {
                rx.recv_timeout(COMMAND_POLL).map_err(|e| e == mpsc::RecvTimeoutError::Disconnected)
            } else {
                rx.try_recv().map_err(|e| e == mpsc::TryRecvError::Disconnected)
            };
            got.map_err(|gone| open &= !gone).ok()
        };
        if !open {
            // No more replies: a command that answers once its input ends may now.
            commands.close();
        }
        match job {
            Some((key, id, text, stopped)) => {
                let read = Read::early(key, &text, stopped, config);
                if !read.facts.complete {
                    commands.send(&[(id.as_str(), &*text)]);
                    later.push_back((key, text, read.facts.clone()));
                }
                out.read.push(read);
                early_sent = false;
            }
            None => {
                // Caught up: the badges go first, then one reply is completed.
                if !early_sent {
                    early_sent = true;
                    if !out.send(ui) {
                        return;
                    }
                }
                let mut answered = if later.is_empty() { 0 } else { commands.ready(0) };
                if answered == 0 && !open && !later.is_empty() {
                    // No more replies will come, so the commands' answers are worth waiting
                    // for, as long as a command lives: what is read goes out first.
                    if !out.send(ui) {
                        return;
                    }
                    answered = commands.ready(1);
                }
                match later.front() {
                    // Once replies stop coming the wait above is for as long as a command
                    // lives, so a reply is then taken whatever came of it.
                    Some(_) if answered > 0 || !open => {
                        if let Some((key, text, facts)) = later.pop_front() {
                            let given = commands.take();
                            out.read.push(Read::complete_given(key, &text, facts, config, &given));
                        }
                    }
                    Some(_) => {}
                    None => {
                        if !out.send(ui) || !open {
                            return;
                        }
                        continue;
                    }
                }
            }
        }
        for p in commands.problems() {
            if ui.send(Msg::Problem(p)).is_err() {
                return;
            }
        }
        if out.full() && !out.send(ui) {
            return;
        }
    }
}

/// Makes full records, the latest request first.
fn details(rx: &Receiver<DetailJob>, ui: &Sender<Msg>, config: &Config) {
    while let Ok(mut job) = rx.recv() {
        while let Ok(newer) = rx.try_recv() {
            job = newer;
        }
        let (key, text, cut) = job;
        let d = analysis::detail(&text, cut, config);
        if ui.send(Msg::Detail(key, Arc::new(d))).is_err() {
            return;
        }
    }
}
