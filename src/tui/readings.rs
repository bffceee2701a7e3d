//! The readings thread: the scan's facts of every reply, as `bracewalk scan` reads them, a
//! batch of replies at a time read in parallel on every core, each reply read through at
//! once (the list's badges, every what-if for the summary screen and the what-if column),
//! its answers read once. Where readers run as commands, the batch's early facts are sent
//! first, the batch goes to them, and its replies are completed, in order, once the
//! commands have answered them (their texts wait with them, in [`Pending`]); while only
//! their answers are awaited the thread looks for them every few milliseconds between
//! batches, so a slow or hung command holds back only its own comparisons (and the watchdog
//! fails one that hangs past its timeout).
//!
//! A reply's text comes with its job where the list holds it or it was loaded with its file
//! (while the texts on their way stay within [`IN_FLIGHT`] bytes), and is read again from
//! its file otherwise ([`Loader::reread`]).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use rayon::prelude::*;

use crate::analysis::batch::Filling;
use crate::analysis::{Config, Facts};
use crate::logs::{Loader, Locator, Name, Names, Problem};
use crate::readers::pending::{Asked, Pending};

use super::entry::EntryKey;
use super::message::{Msg, Read, Unread};

/// Bytes of reply text that may be on their way to the readings thread at once; past it, a
/// reply's text is read again from its file when its turn comes.
pub const IN_FLIGHT: usize = 64 << 20;

/// How often the readings thread looks for a reader command's answers while it has nothing
/// else to do.
const COMMAND_POLL: Duration = Duration::from_millis(20);

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

/// Reads the facts of every reply sent, a batch at a time in parallel: the batch's early
/// facts are sent first, then its complete ones. While the first load is under way the
/// readings leave it a core, so that every reply is listed soon; then they take them all.
pub fn run(rx: &Receiver<ReadJob>, ui: &Sender<Msg>, config: &Config, loader: &Loader, in_flight: &InFlight) {
    let (sharing, all) = pools();
    let mut pending = Pending::start(&config.catalogue, &config.commands());
    let mut accounts = Names::new();
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
                && !read_batch(batch, ui, config, loader, in_flight, &mut pending, &mut accounts)
            {
                return false;
            }
            complete(&mut pending, ui, config, !open, &mut accounts)
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

/// The readings' threads: while the first load is under way, one core fewer than the
/// machine has, at the lowest priority, so that the load's threads run first and the
/// readings take the time they leave; then every core.
fn pools() -> (Option<rayon::ThreadPool>, Option<rayon::ThreadPool>) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = |n: usize| rayon::ThreadPoolBuilder::new().num_threads(n.max(1));
    let sharing = pool(cores.saturating_sub(1)).start_handler(|_| yield_to_load()).build().ok();
    (sharing, pool(cores).build().ok())
}

/// Lowers the calling thread's priority as far as it goes (on Linux a thread has a nice
/// value of its own), so that when the cores are busy the first load's threads run first.
fn yield_to_load() {
    #[cfg(unix)]
    let _ = rustix::process::nice(19);
}

/// A reply whose early facts are sent, waiting for the reader commands' answers, its text
/// with it.
struct Awaiting {
    key: EntryKey,
    id: Name,
    text: Arc<str>,
    facts: Facts,
}

impl Asked for Awaiting {
    fn replies(&self) -> impl Iterator<Item = (&str, &str)> {
        std::iter::once((&*self.id, &*self.text))
    }
}

/// Completes the replies the commands have answered, in parallel, and sends them; with
/// `wait` (no more replies will come), waits for the oldest first, as long as a command
/// lives. False when the event loop is gone.
fn complete(
    pending: &mut Pending<Awaiting>,
    ui: &Sender<Msg>,
    config: &Config,
    wait: bool,
    accounts: &mut Names,
) -> bool {
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
    send_facts(ui, done, accounts)
}

/// Sends facts read, their accounts one copy each for as long as the inspector runs (the
/// list and the summary hold every reply's); false when the event loop is gone.
fn send_facts(ui: &Sender<Msg>, mut read: Vec<Read>, accounts: &mut Names) -> bool {
    for r in &mut read {
        r.facts.share_accounts(accounts);
    }
    ui.send(Msg::Facts(read)).is_ok()
}

/// The first job and those waiting after it, up to a batch (of texts held; one read again
/// is counted as nothing).
fn first_batch(rx: &Receiver<ReadJob>, first: ReadJob) -> Vec<ReadJob> {
    let held = |job: &ReadJob| job.text.as_ref().map_or(0, |t| t.len());
    let mut filling = Filling::default();
    filling.add(held(&first));
    let mut batch = vec![first];
    while !filling.is_full() {
        match rx.try_recv() {
            Ok(job) => {
                filling.add(held(&job));
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
    accounts: &mut Names,
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
            // Each reply read through while its text and answers are at hand: early facts
            // would come a batch sooner, but every answer would be read a second time.
            let done: Vec<Read> =
                partials.par_iter().map(|&(key, text, stopped)| Read::whole(key, text, stopped, config)).collect();
            return send_facts(ui, done, accounts);
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
        if !send_facts(ui, early, accounts) {
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
fn texts_of(batch: &[ReadJob], loader: &Loader) -> Vec<Result<BatchText, Unread>> {
    let mut texts: Vec<Option<Result<BatchText, Unread>>> =
        batch.iter().map(|j| j.text.clone().map(|t| Ok(BatchText::Held(t)))).collect();
    let mut by_file: BTreeMap<&std::path::Path, Vec<usize>> = BTreeMap::new();
    for (i, job) in batch.iter().enumerate().filter(|(_, j)| j.text.is_none()) {
        by_file.entry(&job.locator.source).or_default().push(i);
    }
    let chunks: Vec<&[usize]> = by_file.values().flat_map(|v| v.chunks(REREAD_CHUNK)).collect();
    let read: Vec<(usize, Result<BatchText, Unread>)> = chunks
        .par_iter()
        .flat_map_iter(|chunk| {
            let at: Vec<Locator> = chunk.iter().map(|&i| batch[i].locator.clone()).collect();
            let got = loader.reread_all(&at);
            chunk.iter().copied().zip(got.into_iter().map(|r| r.map(BatchText::Read).map_err(Unread::Reread)))
        })
        .collect();
    for (i, text) in read {
        texts[i] = Some(text);
    }
    // Every text not held was asked of its file: a slot left empty is one it did not give.
    texts.into_iter().map(|t| t.unwrap_or(Err(Unread::Reread(Problem::Vanished)))).collect()
}

/// A reply's text in a batch: held with its job, or read again for it. One read again is
/// kept as read, and made shared (a copy) only where it waits for a reader command, so that
/// no text is copied for nothing.
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
pub const REREAD_CHUNK: usize = 64;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// While the first load is under way the readings run at the lowest priority; then at
    /// the priority of the thread that made them.
    #[test]
    fn the_readings_yield_to_the_first_load_and_not_after_it() {
        let nice = || rustix::process::getpriority_process(None).unwrap();
        let own = nice();
        let (sharing, all) = super::pools();
        assert_eq!(sharing.unwrap().install(nice), 19);
        assert_eq!(all.unwrap().install(nice), own);
    }
}
