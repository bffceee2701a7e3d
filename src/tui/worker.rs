//! The work that never runs on the event loop, on four threads that report through the
//! loop's one channel:
//!
//! * **files**: the first load, then watching ([`watch::run`]); pushes entries in batches;
//! * **readings**: the scan's facts of every reply ([`readings`]);
//! * **details**: the full record of the reply being looked at. Only the latest request
//!   matters (a person holding `j` passes replies by), so requests that were overtaken
//!   before they started are dropped;
//! * **search**: the query line's text regexes over every reply's text, each text read
//!   again from its file a chunk at a time, answers sent as each round of chunks is done; a
//!   newer query stops an older one's search between rounds.
//!
//! The list holds no text of a reply loaded from a file. A reply a line of a log holds is
//! listed without it (measured, not decoded into memory: [`Loader::list`]), and the readings
//! thread reads it from its file ([`Loader::reread`]), as the details thread does for the
//! reply being looked at. A reply of a file read whole comes with its text, which goes to the
//! readings thread with its entry while the texts on their way there stay within
//! [`IN_FLIGHT`](readings::IN_FLIGHT) bytes, and past that is read again likewise. Memory is
//! then the list's few hundred bytes a reply, plus a bounded number of texts, whatever the
//! size of the campaign.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use rayon::prelude::*;

use crate::analysis::Config;
use crate::logs::{LoadOptions, Loader, Locator};
use crate::query::TextHit;
use crate::readers::own::RunOptions;
use crate::readers::pending::{Asked, Pending};

use super::entry::{EntryKey, hash};
use super::message::{DetailJob, Msg, SearchJob, Unread};
use super::readings::{self, InFlight, REREAD_CHUNK, ReadJob};
use super::watch::{self, Intake, WatchMode};
use crate::analysis::detail;

/// Chunks of one file searched at once, in parallel, between two looks at whether the
/// search is still wanted.
const SEARCH_ROUND: usize = 8;

/// Searches the texts of `job`'s replies, a round of chunks at a time, handing each round's
/// answers to `give`; stops when `give` says false (the event loop is gone, or a newer query
/// replaced this one). A text that cannot be read again holds no match.
pub fn search(job: &SearchJob, loader: &Loader, give: &mut dyn FnMut(Vec<(EntryKey, TextHit)>) -> bool) {
    let mut held = Vec::new();
    let mut by_file: BTreeMap<&std::path::Path, Vec<usize>> = BTreeMap::new();
    for (i, (_, at, text)) in job.replies.iter().enumerate() {
        match (text, at) {
            (Some(_), _) | (None, None) => held.push(i),
            (None, Some(at)) => by_file.entry(&at.source).or_default().push(i),
        }
    }
    let q = &job.query;
    if !held.is_empty() {
        let hits = held.iter().map(|&i| (job.replies[i].0, q.text(job.replies[i].2.as_deref()))).collect();
        if !give(hits) {
            return;
        }
    }
    let chunks: Vec<&[usize]> = by_file.values().flat_map(|v| v.chunks(REREAD_CHUNK)).collect();
    for round in chunks.chunks(SEARCH_ROUND) {
        let hits: Vec<(EntryKey, TextHit)> = round
            .par_iter()
            .flat_map_iter(|chunk| {
                let at: Vec<Locator> = chunk.iter().filter_map(|&i| job.replies[i].1.clone()).collect();
                let texts = loader.reread_all(&at);
                chunk
                    .iter()
                    .zip(texts)
                    .map(|(&i, t)| (job.replies[i].0, t.map_or_else(|_| TextHit::default(), |t| q.text(Some(&t)))))
            })
            .collect();
        if !give(hits) {
            return;
        }
    }
}

/// The handle the event loop keeps.
pub struct Worker {
    details: Sender<DetailJob>,
    reads: Sender<ReadJob>,
    searches: Sender<SearchJob>,
    /// The generation of the newest query sent to be searched.
    newest: Arc<AtomicU64>,
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
        let (read_tx, read_rx) = mpsc::channel::<ReadJob>();
        let (det_tx, det_rx) = mpsc::channel::<DetailJob>();
        let loader = Arc::new(Loader::new(opts.clone()));
        let in_flight = Arc::new(InFlight::default());
        let (to_ui, cfg, l, inf) = (ui.clone(), config.clone(), loader.clone(), in_flight.clone());
        std::thread::Builder::new()
            .name("bracewalk-readings".into())
            .spawn(move || readings::run(&read_rx, &to_ui, &cfg, &l, &inf))?;
        let (search_tx, search_rx) = mpsc::channel::<SearchJob>();
        let newest = Arc::new(AtomicU64::new(0));
        let (to_ui, l, n) = (ui.clone(), loader.clone(), newest.clone());
        std::thread::Builder::new()
            .name("bracewalk-search".into())
            .spawn(move || searches(&search_rx, &to_ui, &l, &n))?;
        let to_ui = ui.clone();
        std::thread::Builder::new()
            .name("bracewalk-details".into())
            .spawn(move || details(&det_rx, &to_ui, &config, &loader))?;
        let intake = Intake::new(ui, read_tx.clone(), in_flight);
        std::thread::Builder::new()
            .name("bracewalk-files".into())
            .spawn(move || watch::run(paths, opts, mode, intake))?;
        Ok(Worker { details: det_tx, reads: read_tx, searches: search_tx, newest })
    }

    /// Asks for replies' texts to be searched; a search for an older query stops.
    pub fn search(&self, job: SearchJob) {
        self.newest.fetch_max(job.generation, Ordering::AcqRel);
        let _ = self.searches.send(job);
    }

    /// Asks for the full record of a reply.
    pub fn detail(&self, job: DetailJob) {
        let _ = self.details.send(job);
    }

    /// Asks for a reply's facts again (its text changed on disk).
    pub fn reread(&self, key: EntryKey, locator: Locator, stopped: bool) {
        let _ = self.reads.send(ReadJob { key, locator, text: None, stopped });
    }
}

/// Searches texts for the newest query, and drops the jobs of older ones.
fn searches(rx: &Receiver<SearchJob>, ui: &Sender<Msg>, loader: &Loader, newest: &AtomicU64) {
    while let Ok(job) = rx.recv() {
        let current = || job.generation >= newest.load(Ordering::Acquire);
        if !current() {
            continue;
        }
        let mut gone = false;
        search(&job, loader, &mut |hits| {
            gone = ui.send(Msg::Searched { generation: job.generation, hits }).is_err();
            !gone && current()
        });
        if gone {
            return;
        }
    }
}

/// A reply whose record was made, waiting for the readers of one's own to answer it.
struct Asking {
    key: EntryKey,
    id: String,
    text: Arc<str>,
}

impl Asked for Asking {
    fn replies(&self) -> impl Iterator<Item = (&str, &str)> {
        std::iter::once((self.id.as_str(), &*self.text))
    }
}

/// How often the details thread looks for the readers' answers while some are owed.
const ANSWER_POLL: Duration = Duration::from_millis(20);

/// Makes full records, the latest request first; then asks the readers of one's own about
/// the reply, and sends their answers as they come. Those readers run a second time here,
/// beside the readings thread's run: that one answers the corpus in order, and the reply
/// looked at would wait behind all of it. They start with the first record made, each with
/// its stderr in a log of its own (`NAME.pane.log` beside `NAME.log`), and what goes wrong
/// with them shows in the readers pane, not among the corpus's diagnostics.
fn details(rx: &Receiver<DetailJob>, ui: &Sender<Msg>, config: &Config, loader: &Loader) {
    let commands = config.commands();
    let mut pending: Option<Pending<Asking>> = None;
    loop {
        let owed = pending.as_ref().is_some_and(|p| !p.is_empty());
        let job = if owed {
            match rx.recv_timeout(ANSWER_POLL) {
                Ok(job) => Some(job),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        } else {
            match rx.recv() {
                Ok(job) => Some(job),
                Err(_) => return,
            }
        };
        if let Some(mut job) = job {
            while let Ok(newer) = rx.try_recv() {
                job = newer;
            }
            let text = match (&job.held, &job.locator) {
                (Some(t), _) => Ok(t.clone()),
                (None, Some(at)) => loader.reread(at).map(Arc::from).map_err(Unread::Reread),
                (None, None) => Err(Unread::NotAReply),
            };
            let msg = match text {
                Ok(text) => {
                    if !commands.is_empty() {
                        let id = job.locator.as_ref().map_or_else(|| job.key.to_string(), |l| l.id.to_string());
                        let asked = Asking { key: job.key, id, text: text.clone() };
                        pending.get_or_insert_with(|| Pending::start(&second_run(config), &commands)).ask(vec![asked]);
                    }
                    let hash = hash(&text);
                    Msg::Detail(job.key, Arc::new(detail::detail(text, job.cut, config)), hash)
                }
                Err(why) => Msg::Lost(vec![(job.key, why)]),
            };
            if ui.send(msg).is_err() {
                return;
            }
        }
        if let Some(p) = &mut pending {
            for (asked, answered) in p.answered(false) {
                let given = answered.into_iter().next().unwrap_or_default();
                if ui.send(Msg::Answers(asked.key, given)).is_err() {
                    return;
                }
            }
            // The corpus's run reports the readers' problems; this one's answers say them.
            let _ = p.problems();
        }
    }
}

/// The config's readers of one's own, to run a second time: each logs its stderr beside the
/// first run's log, in `NAME.pane.log`.
fn second_run(config: &Config) -> crate::readers::Catalogue {
    config.catalogue.with_commands(|outside| {
        let log = outside.run.log.as_ref().map(|l| l.with_extension("pane.log"));
        outside.with_run(RunOptions { log, ..outside.run.clone() })
    })
}
