//! Scanning files: the loader streams items on one thread while batches of them are read
//! in parallel on the others, and the batches are folded in in load order.
//!
//! Where readers run as commands, each batch's replies go to them as soon as it is loaded,
//! and the batch waits, texts and all, until every command has answered it; meanwhile the
//! next batches are loaded and sent, so the commands work while the batch before is read.
//! Then the batch is read in parallel with the answers given, as any other. A command that
//! takes its input and answers later (at the end of it) holds back every batch until then;
//! one that answers line by line holds back only what it has not answered, and once it
//! falls behind by [`MAX_BACKLOG`] of input the loading waits for it.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::analysis::Config;
use crate::analysis::batch::Filling;
use crate::logs::{Found, Item, LoadOptions, Loader, discover};
use crate::query::Query;
use crate::readers::pending::{Asked, Pending};

use super::scanner::{Scan, Scanner};

/// Batches loaded ahead of the readers.
const AHEAD: usize = 2;
/// Input a command may have not yet taken before the loading waits for it.
const MAX_BACKLOG: usize = 32 << 20;

/// How far a scan has got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of the input files read past, of `bytes_total`.
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub replies: usize,
}

/// Items in load order, as many as are read at once.
pub struct Batch {
    pub items: Vec<Item>,
    /// Where the loader was when the batch was sent, in the bytes of all the files.
    pub bytes_done: u64,
}

/// Every item of the files `found` (of `sizes` bytes, [`sizes`]), in load order, a batch at a
/// time: the files are read on a thread of their own, `AHEAD` batches ahead at most, while
/// `each` takes the batch before, until it says to stop. A batch holds
/// [`REPLIES`](crate::analysis::batch::REPLIES) replies, or fewer that hold
/// [`BYTES`](crate::analysis::batch::BYTES) of text.
pub fn in_batches(found: &[Found], sizes: &[u64], load: &LoadOptions, each: &mut dyn FnMut(Batch) -> bool) {
    let (send, receive) = mpsc::sync_channel::<Batch>(AHEAD);
    std::thread::scope(|s| {
        s.spawn(move || load_all(found, sizes, load, &send));
        // Dropped when this ends, before the scope waits for the loader: told to stop, the
        // loader's next batch has nowhere to go, and it returns.
        let receive = receive;
        while let Ok(batch) = receive.recv() {
            if !each(batch) {
                break;
            }
        }
    });
}

/// The size of each file `found`: what a scan's progress is measured against (a stat per
/// file, not a reading).
pub fn sizes(found: &[Found]) -> Vec<u64> {
    found
        .iter()
        .map(|f| match f {
            Found::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            Found::Problem(_) => 0,
        })
        .collect()
}

/// Scans every reply in `paths` (files, directories read recursively), reporting progress
/// after each batch. The result is the same, in the same order, on every run and with any
/// number of threads; only `elapsed` differs.
pub fn scan_paths(paths: &[PathBuf], load: &LoadOptions, config: Config, progress: &mut dyn FnMut(&Progress)) -> Scan {
    scan_paths_only(paths, load, config, None, progress)
}

/// [`scan_paths`], counting only the replies and calls `only` selects (`scan --filter`).
pub fn scan_paths_only(
    paths: &[PathBuf],
    load: &LoadOptions,
    config: Config,
    only: Option<Query>,
    progress: &mut dyn FnMut(&Progress),
) -> Scan {
    let started = Instant::now();
    // The files first, for the total the progress is measured against: a listing, not a
    // reading, so it costs a stat per file.
    let mut found = Vec::new();
    discover(paths, &mut |f| found.push(f));
    let sizes = sizes(&found);
    let mut scan = scan_found(&found, &sizes, &|_| {}, load, config, only, progress);
    scan.elapsed = Some(started.elapsed());
    scan
}

/// Scans the files `found` (of `sizes` bytes), as [`scan_paths_only`] scans the files it
/// finds, each item loaded renamed by `rename` before it is read (a shard names files
/// relative to its corpus root). `elapsed` is this scan's.
pub fn scan_found(
    found: &[Found],
    sizes: &[u64],
    rename: &dyn Fn(&mut Item),
    load: &LoadOptions,
    config: Config,
    only: Option<Query>,
    progress: &mut dyn FnMut(&Progress),
) -> Scan {
    let started = Instant::now();
    let state = Progress { bytes_total: sizes.iter().sum(), ..Progress::default() };
    progress(&state);

    // The scan counts nothing a run log says of a reply after it; a filter may ask for it.
    let load = &LoadOptions { forward_context: load.forward_context && only.is_some(), ..load.clone() };
    let mut pending = Pending::start(&config.catalogue, &config.commands());
    let config_commands = !pending.no_commands();
    let mut folding = Folding { scanner: Scanner::only(config, only), state, progress };
    // The time spent waiting on readers of one's own with nothing else to do.
    let mut answering = Duration::ZERO;
    let mut waiting = |f: &mut dyn FnMut() -> bool| {
        let at = Instant::now();
        let more = f();
        answering += at.elapsed();
        more
    };
    in_batches(found, sizes, load, &mut |mut batch| {
        batch.items.iter_mut().for_each(rename);
        pending.ask(vec![batch]);
        folding.fold(&mut pending, false);
        while pending.backlog() > MAX_BACKLOG && waiting(&mut || folding.fold(&mut pending, true)) {}
        true
    });
    pending.close();
    while waiting(&mut || folding.fold(&mut pending, true)) {}
    let mut problems = Vec::new();
    waiting(&mut || {
        problems = pending.finish();
        false
    });
    for p in problems {
        folding.scanner.add_problem(p);
    }
    let mut scan = folding.scanner.finish();
    scan.elapsed = Some(started.elapsed());
    scan.readers_answering = if config_commands { answering } else { Duration::ZERO };
    scan
}

impl Asked for Batch {
    fn replies(&self) -> impl Iterator<Item = (&str, &str)> {
        self.items.iter().filter_map(|item| match item {
            Item::Reply(r) => Some((r.id.as_str(), r.text.as_str())),
            _ => None,
        })
    }
}

/// The scan so far, and its progress.
struct Folding<'p> {
    scanner: Scanner,
    state: Progress,
    progress: &'p mut dyn FnMut(&Progress),
}

impl Folding<'_> {
    /// Folds in the oldest batches every command has answered (with `wait`, waits for the
    /// oldest first); false when none was folded.
    fn fold(&mut self, pending: &mut Pending<Batch>, wait: bool) -> bool {
        let answered = pending.answered(wait);
        let folded = !answered.is_empty();
        for (batch, given) in answered {
            self.scanner.add_items(&batch.items, given);
            for p in pending.problems() {
                self.scanner.add_problem(p);
            }
            self.state.bytes_done = batch.bytes_done;
            self.state.replies = self.scanner.scan().replies.len();
            (self.progress)(&self.state);
        }
        folded
    }
}

/// The loader's side: every item of every file, in order, in batches. The files are read
/// side by side on the pool's threads ([`Loader::load_found`]), which the readings share.
fn load_all(found: &[Found], sizes: &[u64], load: &LoadOptions, send: &mpsc::SyncSender<Batch>) {
    let loader = Loader::new(load.clone());
    // Where each file starts, in the bytes of all the files.
    let bases: Vec<u64> = sizes.iter().scan(0, |at, &size| Some(std::mem::replace(at, *at + size))).collect();
    let mut items = Vec::new();
    let mut filling = Filling::default();
    // A closed receiver means the scan was abandoned: stop loading.
    let mut closed = false;
    loader.load_found(found, &mut |i, item| {
        if closed {
            return;
        }
        let mut at = bases[i];
        if let Item::Reply(r) = &item {
            filling.add(r.text.len());
            at = bases[i] + r.offset.min(sizes[i]);
        }
        items.push(item);
        if filling.is_full() {
            closed = send.send(Batch { items: std::mem::take(&mut items), bytes_done: at }).is_err();
            filling = Filling::default();
            if closed {
                loader.stop();
            }
        }
    });
    if !closed {
        // A send that fails has no one to tell.
        let _ = send.send(Batch { items, bytes_done: sizes.iter().sum() });
    }
}
