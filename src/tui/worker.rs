//! The work that never runs on the event loop, on three threads that report through the
//! loop's one channel:
//!
//! * **files**: the first load, then watching ([`watch::run`]); pushes entries in batches;
//! * **readings**: the scan's facts of every reply, as `bracewalk scan` reads them, a batch
//!   of replies at a time read in parallel on every core, each reply read through at once
//!   (the list's badges, every what-if for the summary screen and the what-if column), its
//!   answers read once. Where readers run as commands, the batch's early facts are sent
//!   first, the batch goes to them, and its replies are completed, in
//!   order, once the commands have answered them (their texts wait with them); while only
//!   their answers are awaited the thread looks for them every few milliseconds between
//!   batches, so a slow or hung command holds back only its own comparisons (and the
//!   watchdog fails one that hangs past its timeout);
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
//! [`IN_FLIGHT`] bytes, and past that is read again likewise. Memory is then the list's few hundred
//! bytes a reply, plus a bounded number of texts, whatever the size of the campaign.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use rayon::prelude::*;

use crate::describe::sketch;
use crate::query::{Query, TextHit};
use crate::readers::pending::{Asked, Pending};
use crate::readers::{Given, ReaderId};
use crate::reading::{Config, Facts};
use crate::runlog::{LoadOptions, Loader, Locator};

use super::analysis;
use super::entry::{EntryKey, hash};
use super::update::Msg;
use super::watch::{self, Intake, WatchMode};

/// The longest sketch of a reply's answer kept, in characters.
const SKETCH_MAX: usize = 160;

/// Bytes of reply text that may be on their way to the readings thread at once; past it, a
/// reply's text is read again from its file when its turn comes.
pub const IN_FLIGHT: usize = 64 << 20;

/// How often the readings thread looks for a reader command's answers while it has nothing
/// else to do.
const COMMAND_POLL: Duration = Duration::from_millis(20);

/// Replies read in one batch (in parallel), at most; and the most text a batch reads.
const BATCH: usize = 256;
const BATCH_BYTES: usize = 16 << 20;

/// A reply whose facts are wanted.
#[derive(Debug)]
pub struct ReadJob {
    pub key: EntryKey,
    /// Where its text is read again.
    pub locator: Locator,
    /// Its text, where it came with one (counted in the in-flight bytes until read).
    pub text: Option<Arc<str>>,
    /// Its record says it was cut off.
    pub stopped: bool,
}

/// The bytes of text on their way to the readings thread, and whether the first load is
/// done.
#[derive(Debug, Default)]
pub struct InFlight(AtomicUsize, AtomicBool);

impl InFlight {
    /// The first load is done: the readings may take every core.
    pub fn loaded(&self) {
        self.1.store(true, Ordering::Release);
    }

    fn is_loaded(&self) -> bool {
        self.1.load(Ordering::Acquire)
    }

    /// Whether `len` more bytes may go, counting them if so.
    pub fn take(&self, len: usize) -> bool {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                (held == 0 || held + len <= IN_FLIGHT).then_some(held + len)
            })
            .is_ok()
    }

    fn give_back(&self, len: usize) {
        self.0.fetch_sub(len, Ordering::AcqRel);
    }

    /// Bytes on their way now.
    pub fn held(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// A reply's facts as the readings thread sends them: the early part (with a sketch of the
/// seed's answer), then the complete facts.
#[derive(Debug)]
pub struct Read {
    pub key: EntryKey,
    pub facts: Facts,
    pub sketch: Option<String>,
    /// The characters of the answer's `html` string, where it has one (sent with the sketch).
    pub html: Option<usize>,
}

impl Read {
    /// The early facts of a reply (`stopped`: its record says it was cut off), with a sketch
    /// of the seed's answer: the first thing the readings thread reads of it.
    pub fn early(key: EntryKey, text: &str, stopped: bool, config: &Config) -> Read {
        let (facts, seed) = Facts::early(text, stopped, config);
        Read::sketched(key, facts, seed.as_ref())
    }

    /// `facts`, with the sketch of the seed's answer and its `html`'s length.
    fn sketched(key: EntryKey, facts: Facts, seed: Option<&crate::read::Value>) -> Read {
        Read { key, facts, sketch: Some(sketch_of(seed)), html: html_of(seed) }
    }

    /// The complete facts of a reply at once, with the sketch of [`Read::early`]: every
    /// answer read once.
    pub fn whole(key: EntryKey, text: &str, stopped: bool, config: &Config) -> Read {
        let mut partial = Facts::start(text, stopped, config);
        let seed = partial.seed();
        let (sketch, html) = (Some(sketch_of(seed)), html_of(seed));
        Read { key, facts: partial.finish(&[]), sketch, html }
    }

    /// The facts of [`Read::early`], completed (the seed read again), with the reader
    /// commands' answers for the reply.
    pub fn complete(key: EntryKey, text: &str, mut facts: Facts, config: &Config, given: &[(ReaderId, Given)]) -> Read {
        facts.complete(text, config, given);
        Read { key, facts, sketch: None, html: None }
    }
}

/// The size of the page an answer delivers: its `html` string's characters.
fn html_of(seed: Option<&crate::read::Value>) -> Option<usize> {
    match seed? {
        crate::read::Value::Object(o) => match o.get("html")? {
            crate::read::Value::String(s) => Some(s.char_len()),
            _ => None,
        },
        _ => None,
    }
}

fn sketch_of(seed: Option<&crate::read::Value>) -> String {
    let s = seed.map_or_else(|| "null".to_owned(), sketch);
    crate::visible::clip(&s, SKETCH_MAX)
}

/// A request for a reply's full record: its text where the list holds it, else where to
/// read it again; whether it was cut off.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailJob {
    pub key: EntryKey,
    pub locator: Option<Locator>,
    pub held: Option<Arc<str>>,
    pub cut: bool,
}

/// Replies whose texts the query's text terms are to read: each reply's key, where its text
/// is read again, and its text where the list holds it.
#[derive(Debug, Clone)]
pub struct SearchJob {
    pub generation: u64,
    pub query: Arc<Query>,
    pub replies: Vec<(EntryKey, Option<Locator>, Option<Arc<str>>)>,
}

impl PartialEq for SearchJob {
    fn eq(&self, other: &SearchJob) -> bool {
        self.generation == other.generation && self.query == other.query && self.replies.len() == other.replies.len()
    }
}

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
            .spawn(move || readings(&read_rx, &to_ui, &cfg, &l, &inf))?;
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

/// Reads the facts of every reply sent, a batch at a time in parallel: the batch's early
/// facts are sent first, then its complete ones. While the first load is under way the
/// readings leave it a core, so that every reply is listed soon; then they take them all.
fn readings(rx: &Receiver<ReadJob>, ui: &Sender<Msg>, config: &Config, loader: &Loader, in_flight: &InFlight) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = |n: usize| rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build().ok();
    let (sharing, all) = (pool(cores.saturating_sub(1)), pool(cores));
    let mut pending = Pending::start(&config.catalogue, &config.commands());
    let mut open = true;
    loop {
        let next = if !open {
            None
        } else if pending.is_empty() {
            rx.recv().map_err(|_| open = false).ok()
        } else {
            rx.recv_timeout(COMMAND_POLL).map_err(|e| open &= e != mpsc::RecvTimeoutError::Disconnected).ok()
        };
        if !open {
            // No more replies: a command that answers once its input ends may now.
            pending.close();
        }
        let pool = if in_flight.is_loaded() { &all } else { &sharing };
        let batch = next.map(|first| first_batch(rx, first));
        let work = || -> bool {
            if let Some(batch) = batch
                && !read_batch(batch, ui, config, loader, in_flight, &mut pending)
            {
                return false;
            }
            complete(&mut pending, ui, config, !open)
        };
        let sent = match pool {
            Some(p) => p.install(work),
            None => work(),
        };
        for p in pending.problems() {
            if ui.send(Msg::Problem(p)).is_err() {
                return;
            }
        }
        if !sent || (!open && pending.is_empty()) {
            return;
        }
    }
}

/// A reply whose early facts are sent, waiting for the reader commands' answers, its text
/// with it.
struct Awaiting {
    key: EntryKey,
    id: String,
    text: Arc<str>,
    facts: Facts,
}

impl Asked for Awaiting {
    fn replies(&self) -> impl Iterator<Item = (&str, &str)> {
        std::iter::once((self.id.as_str(), &*self.text))
    }
}

/// Completes the replies the commands have answered, in parallel, and sends them; with
/// `wait` (no more replies will come), waits for the oldest first, as long as a command
/// lives. False when the event loop is gone.
fn complete(pending: &mut Pending<Awaiting>, ui: &Sender<Msg>, config: &Config, wait: bool) -> bool {
    let ready = pending.answered(wait);
    if ready.is_empty() {
        return true;
    }
    let done: Vec<Read> = ready
        .into_par_iter()
        .map(|(a, given)| {
            let given = given.into_iter().next().unwrap_or_default();
            Read::complete(a.key, &a.text, a.facts, config, &given)
        })
        .collect();
    ui.send(Msg::Facts(done)).is_ok()
}

/// The first job and those waiting after it, up to a batch.
fn first_batch(rx: &Receiver<ReadJob>, first: ReadJob) -> Vec<ReadJob> {
    let mut batch = vec![first];
    let mut bytes = 0;
    while batch.len() < BATCH && bytes < BATCH_BYTES {
        match rx.try_recv() {
            Ok(job) => {
                bytes += job.text.as_ref().map_or(0, |t| t.len());
                batch.push(job);
            }
            Err(_) => break,
        }
    }
    batch
}

/// Reads one batch, and sends its facts; false when the event loop is gone. Where readers run
/// as commands, the batch is sent to them after its early facts and waits for them.
fn read_batch(
    batch: Vec<ReadJob>,
    ui: &Sender<Msg>,
    config: &Config,
    loader: &Loader,
    in_flight: &InFlight,
    pending: &mut Pending<Awaiting>,
) -> bool {
    {
        let texts = texts_of(&batch, loader);
        for job in &batch {
            if let Some(t) = &job.text {
                in_flight.give_back(t.len());
            }
        }
        let mut lost = Vec::new();
        let mut partials = Vec::new();
        for (job, text) in batch.iter().zip(&texts) {
            match text {
                Ok(t) => partials.push((job.key, t, job.stopped)),
                Err(why) => lost.push((job.key, why.clone())),
            }
        }
        if !lost.is_empty() && ui.send(Msg::Lost(lost)).is_err() {
            return false;
        }
        if pending.no_commands() {
            // Each reply read through while its text and answers are at hand: the early facts
            // would come a batch sooner, at the cost of reading every answer a second time
            // from memory (1.25x the CPU over a 1 GB campaign, and its wall time).
            let done: Vec<Read> =
                partials.par_iter().map(|&(key, text, stopped)| Read::whole(key, text, stopped, config)).collect();
            return ui.send(Msg::Facts(done)).is_ok();
        }
        let mut started: Vec<_> =
            partials.par_iter().map(|&(key, text, stopped)| (key, Facts::start(text, stopped, config))).collect();
        let early: Vec<Read> = started
            .par_iter_mut()
            .map(|(key, p)| {
                let facts = p.facts().clone();
                Read::sketched(*key, facts, p.seed())
            })
            .collect();
        if ui.send(Msg::Facts(early)).is_err() {
            return false;
        }
        let ids = batch.iter().zip(&texts).filter(|(_, t)| t.is_ok()).map(|(job, _)| job.locator.id.clone());
        let asked = started
            .into_iter()
            .zip(&partials)
            .zip(ids)
            .map(|(((key, p), (_, text, _)), id)| Awaiting { key, id, text: text.shared(), facts: p.facts().clone() })
            .collect();
        pending.ask(asked);
        true
    }
}

/// The texts of a batch: those that came with their jobs, and the others read again from
/// their files, each file opened once for its replies (in chunks read in parallel).
fn texts_of(batch: &[ReadJob], loader: &Loader) -> Vec<Result<BatchText, String>> {
    let mut texts: Vec<Option<Result<BatchText, String>>> =
        batch.iter().map(|j| j.text.clone().map(|t| Ok(BatchText::Held(t)))).collect();
    let mut by_file: BTreeMap<&std::path::Path, Vec<usize>> = BTreeMap::new();
    for (i, job) in batch.iter().enumerate().filter(|(_, j)| j.text.is_none()) {
        by_file.entry(&job.locator.source).or_default().push(i);
    }
    let chunks: Vec<&[usize]> = by_file.values().flat_map(|v| v.chunks(REREAD_CHUNK)).collect();
    let read: Vec<(usize, Result<BatchText, String>)> = chunks
        .par_iter()
        .flat_map_iter(|chunk| {
            let at: Vec<Locator> = chunk.iter().map(|&i| batch[i].locator.clone()).collect();
            let got = loader.reread_all(&at);
            chunk.iter().copied().zip(got.into_iter().map(|r| r.map(BatchText::Read).map_err(|p| p.to_string())))
        })
        .collect();
    for (i, text) in read {
        texts[i] = Some(text);
    }
    texts.into_iter().map(|t| t.unwrap_or_else(|| Err("not read".to_owned()))).collect()
}

/// A reply's text in a batch: held with its job, or read again for it. One read again is
/// kept as read, and made shared (a copy) only where it waits for a reader command: a copy
/// of every text of a campaign was a fortieth of what reading it cost.
enum BatchText {
    Held(Arc<str>),
    Read(String),
}

impl std::ops::Deref for BatchText {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            BatchText::Held(t) => t,
            BatchText::Read(t) => t,
        }
    }
}

impl BatchText {
    fn shared(&self) -> Arc<str> {
        match self {
            BatchText::Held(t) => t.clone(),
            BatchText::Read(t) => Arc::from(t.as_str()),
        }
    }
}

/// Replies of one file read again together, at most.
const REREAD_CHUNK: usize = 64;

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

/// Makes full records, the latest request first.
fn details(rx: &Receiver<DetailJob>, ui: &Sender<Msg>, config: &Config, loader: &Loader) {
    while let Ok(mut job) = rx.recv() {
        while let Ok(newer) = rx.try_recv() {
            job = newer;
        }
        let text = match (&job.held, &job.locator) {
            (Some(t), _) => Ok(t.clone()),
            (None, Some(at)) => loader.reread(at).map(Arc::from).map_err(|p| p.to_string()),
            (None, None) => Err("not a reply".to_owned()),
        };
        let msg = match text {
            Ok(text) => {
                let hash = hash(&text);
                Msg::Detail(job.key, Arc::new(analysis::detail(text, job.cut, config)), hash)
            }
            Err(why) => Msg::Lost(vec![(job.key, why)]),
        };
        if ui.send(msg).is_err() {
            return;
        }
    }
}
