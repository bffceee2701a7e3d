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
        if pending.no_commands() {
            // Each reply read through as soon as its text is at hand (while other texts are
            // still being read again), its text and answers dropped then: early facts would
            // come a batch sooner, but every answer would be read a second time.
            let read = each_text(&batch, loader, |job, text| {
                text.map(|t| Read::whole(job.key, &t, job.stopped, config)).map_err(|why| (job.key, why))
            });
            give_back(&batch, in_flight);
            let (mut done, mut lost) = (Vec::new(), Vec::new());
            for r in read {
                match r {
                    Ok(read) => done.push(read),
                    Err(why) => lost.push(why),
                }
            }
            if !lost.is_empty() && ui.send(Msg::Lost(lost)).is_err() {
                return false;
            }
            return send_facts(ui, done, accounts);
        }
        let texts = each_text(&batch, loader, |_, text| text);
        give_back(&batch, in_flight);
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

/// The held texts of a batch's jobs, no longer on their way.
fn give_back(batch: &[ReadJob], in_flight: &InFlight) {
    for job in batch {
        if let Some(t) = &job.text {
            in_flight.give_back(t.len());
        }
    }
}

/// `each` of every job of a batch with its text: the one that came with the job, or the one
/// read again from its file (each file opened once for a chunk of its replies), in the
/// batch's order. A chunk's replies are handed to `each` in parallel as soon as the chunk is
/// read, while other chunks are still being read: a batch whose texts were all read before
/// any was looked at left a core idle at each turn.
fn each_text<R: Send>(
    batch: &[ReadJob],
    loader: &Loader,
    each: impl Fn(&ReadJob, Result<BatchText, Unread>) -> R + Sync,
) -> Vec<R> {
    let mut by_file: BTreeMap<&std::path::Path, Vec<usize>> = BTreeMap::new();
    let mut held = Vec::new();
    for (i, job) in batch.iter().enumerate() {
        match &job.text {
            Some(_) => held.push(i),
            None => by_file.entry(&job.locator.source).or_default().push(i),
        }
    }
    // The held texts are a chunk of their own, which reads nothing.
    let chunks: Vec<(bool, &[usize])> = std::iter::once((true, &held[..]))
        .chain(by_file.values().flat_map(|v| v.chunks(REREAD_CHUNK)).map(|c| (false, c)))
        .filter(|(_, c)| !c.is_empty())
        .collect();
    let each = &each;
    let mut done: Vec<(usize, R)> = chunks
        .par_iter()
        .flat_map(|&(held, chunk)| {
            let texts: Vec<Result<BatchText, Unread>> = if held {
                let text = |i: usize| batch[i].text.clone().map(BatchText::Held);
                chunk.iter().map(|&i| text(i).ok_or(Unread::Reread(Problem::Vanished))).collect()
            } else {
                let at: Vec<Locator> = chunk.iter().map(|&i| batch[i].locator.clone()).collect();
                let mut got = loader.reread_all(&at).into_iter();
                // Every text was asked of the file: a slot it left empty is one it did not give.
                let mut next = || got.next().unwrap_or(Err(Problem::Vanished));
                chunk.iter().map(|_| next().map(BatchText::Read).map_err(Unread::Reread)).collect()
            };
            chunk.to_vec().into_par_iter().zip(texts).map(|(i, text)| (i, each(&batch[i], text)))
        })
        .collect();
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
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

#[cfg(test)]
mod batch_tests {
    use std::path::PathBuf;

    use super::*;
    use crate::logs::{Item, LoadOptions, load};

    /// A batch of texts held with their jobs and texts read again from two files (more than a
    /// chunk of one), one of which is gone: each job is given its own text, or why it has
    /// none, in the batch's order.
    #[test]
    fn each_job_of_a_batch_is_given_its_own_text_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, n: usize| {
            let lines: Vec<String> = (0..n)
                .map(|i| format!(r#"{{"id":"{name}-{i}","text":"{name} {i}: \"quoted\"\n{}"}}"#, "é x".repeat(200 + i)))
                .collect();
            std::fs::write(dir.path().join(name), lines.join("\n") + "\n").unwrap();
        };
        write("a.jsonl", REREAD_CHUNK + 7);
        write("b.jsonl", 9);
        let mut replies = Vec::new();
        load(&[PathBuf::from(dir.path())], &LoadOptions::default(), &mut |item| {
            if let Item::Reply(r) = item {
                replies.push(r);
            }
        });
        assert_eq!(replies.len(), REREAD_CHUNK + 16);
        // The files' replies interleaved, every fifth held with its job.
        replies.sort_by_key(|r| (r.line, r.source.clone()));
        let batch: Vec<ReadJob> = replies
            .iter()
            .enumerate()
            .map(|(i, r)| ReadJob {
                key: i as EntryKey,
                locator: Locator::of(r),
                text: (i % 5 == 0).then(|| Arc::from(r.text.as_str())),
                stopped: false,
            })
            .collect();
        let loader = Loader::new(LoadOptions::default());
        let got = each_text(&batch, &loader, |job, text| (job.key, text.map(|t| t.to_string())));
        let want: Vec<(EntryKey, Result<String, Unread>)> =
            replies.iter().enumerate().map(|(i, r)| (i as EntryKey, Ok(r.text.clone()))).collect();
        assert_eq!(got, want);
        std::fs::remove_file(dir.path().join("b.jsonl")).unwrap();
        let got = each_text(&batch, &loader, |job, text| (job.key, text.map(|t| t.to_string())));
        let gone = replies.iter().enumerate().filter(|(i, r)| r.source.ends_with("b.jsonl") && i % 5 != 0).count();
        assert_eq!(got.iter().filter(|(_, t)| t.is_err()).count(), gone);
        for ((i, r), (key, text)) in replies.iter().enumerate().zip(got) {
            assert_eq!(key, i as EntryKey);
            match text {
                Ok(text) => assert_eq!(text, r.text, "{}", r.id),
                // Held with its job, a text of the file that is gone is still at hand.
                Err(_) => assert!(r.source.ends_with("b.jsonl") && i % 5 != 0, "{}", r.id),
            }
        }
    }
}

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
