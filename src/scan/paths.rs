//! Scanning files: the loader streams items on one thread while batches of them are read
//! in parallel on the others, and the batches are folded in in load order.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use crate::runlog::{Found, Item, LoadOptions, Loader, discover};

use super::Config;
use super::scanner::{Scan, Scanner};

/// Replies per batch: enough to keep every core busy, few enough that a batch of long
/// replies is a few megabytes.
const BATCH_REPLIES: usize = 256;
/// A batch is sent early once its replies hold this many bytes.
const BATCH_BYTES: usize = 16 << 20;
/// Batches loaded ahead of the readers.
const AHEAD: usize = 2;

/// How far a scan has got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of the input files read past, of `bytes_total`.
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub replies: usize,
}

struct Batch {
    items: Vec<Item>,
    /// Where the loader was when the batch was sent.
    bytes_done: u64,
}

/// Scans every reply in `paths` (files, directories read recursively), reporting progress
/// after each batch. The result is the same, in the same order, on every run and with any
/// number of threads; only `elapsed` differs.
pub fn scan_paths(paths: &[PathBuf], load: &LoadOptions, config: Config, progress: &mut dyn FnMut(&Progress)) -> Scan {
    let started = Instant::now();
    // The files first, for the total the progress is measured against: a listing, not a
    // reading, so it costs a stat per file.
    let mut found = Vec::new();
    discover(paths, &mut |f| found.push(f));
    let sizes: Vec<u64> = found
        .iter()
        .map(|f| match f {
            Found::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            Found::Problem(_) => 0,
        })
        .collect();
    let mut state = Progress { bytes_total: sizes.iter().sum(), ..Progress::default() };
    progress(&state);

    let mut scanner = Scanner::new(config);
    let (send, receive) = mpsc::sync_channel::<Batch>(AHEAD);
    std::thread::scope(|s| {
        s.spawn(move || load_all(&found, &sizes, load, &send));
        for batch in receive {
            scanner.add_items(&batch.items);
            state.bytes_done = batch.bytes_done;
            state.replies = scanner.scan().replies.len();
            progress(&state);
        }
    });
    let mut scan = scanner.finish();
    scan.elapsed = Some(started.elapsed());
    scan
}

/// The loader's side: every item of every file, in order, in batches.
fn load_all(found: &[Found], sizes: &[u64], load: &LoadOptions, send: &mpsc::SyncSender<Batch>) {
    let loader = Loader::new(load.clone());
    let mut items = Vec::new();
    let (mut replies, mut bytes) = (0usize, 0usize);
    let mut base = 0u64;
    // A closed receiver means the scan was abandoned: stop loading.
    let mut closed = false;
    for (f, &size) in found.iter().zip(sizes) {
        match f {
            Found::File(path) => loader.load_file(path, &mut |item| {
                if closed {
                    return;
                }
                let mut at = base;
                if let Item::Reply(r) = &item {
                    replies += 1;
                    bytes += r.text.len();
                    at = base + r.offset.min(size);
                }
                items.push(item);
                if replies >= BATCH_REPLIES || bytes >= BATCH_BYTES {
                    closed = send.send(Batch { items: std::mem::take(&mut items), bytes_done: at }).is_err();
                    (replies, bytes) = (0, 0);
                }
            }),
            Found::Problem(d) => items.push(Item::Diagnostic(d.clone())),
        }
        if closed {
            return;
        }
        base += size;
    }
    // A send that fails has no one to tell.
    let _ = send.send(Batch { items, bytes_done: base });
}
