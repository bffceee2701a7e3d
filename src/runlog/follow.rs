//! The opened paths, read once and then followed, every change pushed to a [`Sink`].
//!
//! Every file is read through a [`Tail`], from the first load on, so a file that grows
//! afterwards is read from where its first read stopped. A watcher's event is a hint, not
//! a fact (watchexec, yazi and gitui agree): events are debounced, then the paths they name
//! are looked at again on disk: a directory is walked for new files, a file is re-read by
//! its tail (which tells a grown file from a truncated or replaced one, and holds back a
//! line still being written), a path that is gone takes its files with it. Directories are
//! watched, not files, so an atomic rename into place is seen. The follower's own reads are
//! not hints (inotify reports every open, and answering them would read for ever). A watch
//! dies with its directory, so a watched directory deleted and made again, or replaced, is
//! noticed (it is looked at twice a second) and watched anew, and what it holds is read.
//! Where events were lost (a queue overflowed), everything is looked at again and the
//! watches are renewed. Where native watching cannot start (inotify's limits, some network
//! filesystems), the paths are polled instead and the status line says so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, SystemTime};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache, new_debouncer};

use super::discover::{Found, discover, is_passed_over};
use super::loader::Loader;
use super::options::LoadOptions;
use super::reply::Item;
use super::tail::{Change, FileId, Tail, file_id};

/// How the paths are followed after the first load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// Native events, polling if they cannot be had.
    Native,
    /// Polling only.
    Poll,
    /// Read once, then never again.
    Off,
    /// Native events, as if the system's file watches were used up (inotify's
    /// `max_user_watches`): the fallback taken as that failure takes it, for tests.
    #[doc(hidden)]
    NativeExhausted,
}

/// How the paths are being followed, for whoever shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watching {
    /// Read once; not followed.
    Off,
    /// By native file-system events (inotify, FSEvents, …).
    Native,
    /// By re-reading on a timer, because native watching failed for this reason.
    Polling(String),
}

/// Where a follower pushes what it finds, in order. A method that returns `false` says
/// nobody is listening any more, and the follower stops.
pub trait Sink {
    /// A change to what is loaded: an item, metadata amended, a file restarted or gone.
    fn change(&mut self, change: Change);
    /// A file found by the first load (for its progress).
    fn file_found(&mut self) {}
    /// The first load is done: every file under the paths has been read once.
    fn loaded(&mut self) -> bool;
    /// A round of reading is done: what has gathered can go.
    fn flush(&mut self) -> bool;
    /// How the paths are followed from now on.
    fn watching(&mut self, how: Watching) -> bool;
    /// Whether replies whose texts lines hold may come as [`Change::Listed`], their texts
    /// measured, not held.
    fn lists(&self) -> bool {
        false
    }
}

/// How often the polling fallback looks.
const POLL_EVERY: Duration = Duration::from_millis(500);
/// How long events are gathered before the paths they name are read.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// The files under the opened paths, each with its tail.
struct Files {
    /// The first load is under way: problems with paths are reported, files counted.
    first: bool,
    roots: Vec<PathBuf>,
    /// The roots made absolute, as native events name paths.
    absolute: Vec<PathBuf>,
    loader: Arc<Loader>,
    tails: BTreeMap<PathBuf, (Tail, Option<Stamp>)>,
}

/// What a file looked like when last read: a poll re-reads only files whose stamp changed.
type Stamp = (u64, Option<SystemTime>);

fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()))
}

impl Files {
    /// Reads `path` (new or known) for what is new in it, and forgets it once its tail has
    /// found it gone (not before: a file deleted and made again between a look and the
    /// read is read, and then must stay known, or it would be read twice).
    fn read(&mut self, path: &Path, sink: &mut dyn Sink) {
        let loader = &self.loader;
        let list = sink.lists();
        let (tail, last) = self.tails.entry(path.to_path_buf()).or_insert_with(|| {
            let tail = Tail::new(path, loader.clone());
            (if list { tail.listing() } else { tail }, None)
        });
        *last = stamp(path);
        tail.read_new(&mut |c| sink.change(c));
        if tail.is_gone() {
            self.tails.remove(path);
        }
    }

    /// Walks every root; reads each file found (all of them, or with `changed_only` those
    /// whose size or time moved), and re-reads known files that were not found.
    fn scan(&mut self, sink: &mut dyn Sink, changed_only: bool) {
        let roots = self.roots.clone();
        self.walk(&roots, sink, changed_only);
    }

    /// [`scan`](Self::scan), under `paths` only.
    fn walk(&mut self, paths: &[PathBuf], sink: &mut dyn Sink, changed_only: bool) {
        let mut seen = std::collections::HashSet::new();
        discover(paths, &mut |found| match found {
            Found::File(p) => {
                seen.insert(p.clone());
                if self.first {
                    sink.file_found();
                }
                let changed = match self.tails.get(&p) {
                    Some((_, last)) => !changed_only || stamp(&p) != *last,
                    None => true,
                };
                if changed {
                    self.read(&p, sink);
                }
            }
            Found::Problem(d) => {
                // A problem with a path is reported once, not on every poll.
                if self.first {
                    sink.change(Change::Item(Item::Diagnostic(d)));
                }
            }
        });
        let missing: Vec<PathBuf> = self
            .tails
            .keys()
            .filter(|p| !seen.contains(*p) && paths.iter().any(|under| p.starts_with(under)))
            .cloned()
            .collect();
        for p in missing {
            self.read(&p, sink);
        }
    }

    /// An event's path as the walk would have named it (under a root as given), if the walk
    /// would have found it at all.
    fn localize(&self, path: &Path) -> Option<PathBuf> {
        for (root, abs) in self.roots.iter().zip(&self.absolute) {
            if path == root || path == abs {
                return Some(root.clone());
            }
            let Ok(rest) = path.strip_prefix(abs).or_else(|_| path.strip_prefix(root)) else { continue };
            if root.is_dir() && !rest.components().any(|c| is_passed_over(c.as_os_str())) {
                return Some(root.join(rest));
            }
        }
        None
    }

    /// Looks again at the paths some events named.
    fn touch(&mut self, paths: Vec<PathBuf>, sink: &mut dyn Sink) {
        let mut paths: Vec<PathBuf> = paths.iter().filter_map(|p| self.localize(p)).collect();
        paths.sort();
        paths.dedup();
        for p in paths {
            if p.is_dir() {
                // Every file under it, and those known under it that are no longer there.
                self.walk(std::slice::from_ref(&p), sink, false);
            } else if p.is_file() {
                self.read(&p, sink);
            } else {
                let gone: Vec<PathBuf> = self.tails.keys().filter(|t| t.starts_with(&p)).cloned().collect();
                for t in gone {
                    self.read(&t, sink);
                }
            }
        }
    }

    /// Looks at what a batch of events names; at everything, when events were lost. Returns
    /// whether they were.
    fn take(&mut self, batch: DebounceEventResult, sink: &mut dyn Sink) -> bool {
        match batch {
            Ok(events) if !events.iter().any(|e| e.event.need_rescan()) => {
                self.touch(hints(events), sink);
                false
            }
            // A queue overflowed (a flagged event) or the watcher failed (an error).
            _ => {
                self.scan(sink, true);
                true
            }
        }
    }
}

/// The paths events name, less those only read: inotify reports every open, the follower's
/// own included, and reading a file because it was opened would wake the follower for ever.
fn hints(events: Vec<DebouncedEvent>) -> Vec<PathBuf> {
    let read = |kind: &EventKind| matches!(kind, EventKind::Access(a) if *a != AccessKind::Close(AccessMode::Write));
    events.into_iter().filter(|e| !read(&e.event.kind)).flat_map(|e| e.event.paths).collect()
}

/// Loads `roots`, then follows them as `mode` says until `sink` stops listening.
pub fn follow(roots: Vec<PathBuf>, opts: LoadOptions, mode: WatchMode, sink: &mut dyn Sink) {
    let absolute = roots.iter().map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone())).collect();
    let mut files = Files { first: true, roots, absolute, loader: Arc::new(Loader::new(opts)), tails: BTreeMap::new() };
    files.scan(sink, false);
    files.first = false;
    if !sink.loaded() {
        return;
    }
    let why = match mode {
        WatchMode::Off => {
            sink.watching(Watching::Off);
            return;
        }
        WatchMode::Poll => "asked for".to_owned(),
        WatchMode::Native | WatchMode::NativeExhausted => {
            match native(&mut files, sink, mode == WatchMode::NativeExhausted) {
                Ok(()) => return,
                Err(why) => why.to_string(),
            }
        }
    };
    if !sink.watching(Watching::Polling(why)) {
        return;
    }
    loop {
        std::thread::sleep(POLL_EVERY);
        files.scan(sink, true);
        if !sink.flush() {
            return;
        }
    }
}

/// Why native watching could not start, or stopped: the polling that takes over says so.
#[derive(Debug, thiserror::Error)]
enum WatchError {
    #[error("cannot watch: {}", why(.0))]
    NoWatcher(notify::Error),
    #[error("cannot watch {}: {}", .path.display(), why(.source))]
    Directory { path: PathBuf, source: notify::Error },
    #[error("the watcher stopped")]
    Stopped,
}

/// Follows the roots by native events. `Err` says why that could not start (or stopped),
/// and the caller polls instead.
fn native(files: &mut Files, sink: &mut dyn Sink, exhausted: bool) -> Result<(), WatchError> {
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |res: DebounceEventResult| {
        let _ = tx.send(res);
    })
    .map_err(WatchError::NoWatcher)?;
    let mut watched: Vec<Watched> = files.roots.iter().map(|root| Watched::of(root)).collect();
    for w in &mut watched {
        if exhausted {
            return Err(w.cannot(notify::Error::new(notify::ErrorKind::MaxFilesWatch)));
        }
        w.start(&mut debouncer)?;
    }
    // Anything written between the first read and the watch starting.
    files.scan(sink, true);
    if !sink.watching(Watching::Native) || !sink.flush() {
        return Ok(());
    }
    loop {
        let (looked, lost) = match rx.recv_timeout(POLL_EVERY) {
            Ok(batch) => (true, files.take(batch, sink)),
            Err(RecvTimeoutError::Timeout) => (false, false),
            Err(RecvTimeoutError::Disconnected) => return Err(WatchError::Stopped),
        };
        let mut renewed = false;
        for w in &mut watched {
            // Lost events may have been a new directory's, which then has no watch.
            if lost || w.moved() {
                w.start(&mut debouncer)?;
                renewed = true;
            }
        }
        if renewed {
            // What was written while a directory had no watch.
            files.scan(sink, true);
        }
        if (looked || renewed) && !sink.flush() {
            return Ok(());
        }
    }
}

/// A directory a native watch is on, and which directory it was when the watch began.
struct Watched {
    path: PathBuf,
    mode: RecursiveMode,
    id: Option<FileId>,
}

impl Watched {
    /// A root's watch: on the root if it is a directory; else on the directory that holds
    /// it, so a rename into place is seen.
    fn of(root: &Path) -> Watched {
        let (path, mode) = if root.is_dir() {
            (root.to_path_buf(), RecursiveMode::Recursive)
        } else {
            let parent = root.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            (parent.to_path_buf(), RecursiveMode::NonRecursive)
        };
        Watched { path, mode, id: None }
    }

    /// The directory at the path now, if there is one.
    fn now(&self) -> Option<FileId> {
        std::fs::metadata(&self.path).ok().filter(|m| m.is_dir()).map(|m| file_id(&m))
    }

    /// Whether the directory at the path is not the one watched (it went, came, or was
    /// replaced).
    fn moved(&self) -> bool {
        self.now() != self.id
    }

    /// Watches the directory at the path, anew. One not there is watched once it is.
    fn start(&mut self, debouncer: &mut Debouncer<RecommendedWatcher, RecommendedCache>) -> Result<(), WatchError> {
        // The old watch, if its directory did not take it along.
        let _ = debouncer.unwatch(&self.path);
        self.id = self.now();
        if self.id.is_none() {
            return Ok(());
        }
        match debouncer.watch(&self.path, self.mode) {
            Ok(()) => Ok(()),
            // Gone again already: tried again when it is back.
            Err(_) if self.now().is_none() => {
                self.id = None;
                Ok(())
            }
            Err(e) => Err(self.cannot(e)),
        }
    }

    /// Why the directory cannot be watched, for the status line.
    fn cannot(&self, source: notify::Error) -> WatchError {
        WatchError::Directory { path: self.path.clone(), source }
    }
}

/// What a watcher's error says, for the status line.
fn why(e: &notify::Error) -> String {
    match &e.kind {
        notify::ErrorKind::MaxFilesWatch => {
            "the system's limit on file watches is reached (on Linux, fs.inotify.max_user_watches)".to_owned()
        }
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use notify::Event;
    use notify::event::{DataChange, Flag, ModifyKind};

    use super::*;

    fn record(text: &str) -> String {
        let v =
            serde_json::json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]});
        format!("{v}\n")
    }

    fn append(path: &Path, text: &str) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
        f.write_all(record(text).as_bytes()).unwrap();
    }

    /// What a follower pushed, kept.
    #[derive(Default)]
    struct Kept {
        changes: Vec<Change>,
    }

    impl Sink for Kept {
        fn change(&mut self, change: Change) {
            self.changes.push(change);
        }
        fn loaded(&mut self) -> bool {
            true
        }
        fn flush(&mut self) -> bool {
            true
        }
        fn watching(&mut self, _: Watching) -> bool {
            true
        }
    }

    /// `root` read once, as `follow` reads it before following.
    fn follow(root: &Path) -> (Files, Kept) {
        let mut sink = Kept::default();
        let loader = Arc::new(Loader::new(LoadOptions::default()));
        let absolute = vec![std::fs::canonicalize(root).unwrap()];
        let mut files =
            Files { first: true, roots: vec![root.to_path_buf()], absolute, loader, tails: BTreeMap::new() };
        files.scan(&mut sink, false);
        files.first = false;
        sink.changes.clear();
        (files, sink)
    }

    /// The texts of the replies pushed since last asked.
    fn read(sink: &mut Kept) -> Vec<String> {
        std::mem::take(&mut sink.changes)
            .into_iter()
            .filter_map(|c| match c {
                Change::Item(Item::Reply(r)) => Some(r.text),
                _ => None,
            })
            .collect()
    }

    fn event(kind: EventKind, path: &Path) -> DebouncedEvent {
        DebouncedEvent::new(Event::new(kind).add_path(path.to_path_buf()), Instant::now())
    }

    #[test]
    fn lost_events_have_everything_looked_at_again() {
        // Regression: inotify's queue overflowing reaches the follower as an event flagged
        // for a rescan and naming no path, and nothing was looked at.
        let dir = tempfile::tempdir().unwrap();
        append(&dir.path().join("a.jsonl"), "a");
        let (mut files, mut sink) = follow(dir.path());
        append(&dir.path().join("b.jsonl"), "b, its events lost");
        let overflow = DebouncedEvent::new(Event::new(EventKind::Other).set_flag(Flag::Rescan), Instant::now());
        assert!(files.take(Ok(vec![overflow]), &mut sink));
        assert_eq!(read(&mut sink), ["b, its events lost"]);
        append(&dir.path().join("a.jsonl"), "a, when the watcher failed");
        assert!(files.take(Err(vec![notify::Error::generic("failed")]), &mut sink));
        assert_eq!(read(&mut sink), ["a, when the watcher failed"]);
    }

    #[test]
    fn a_file_opened_is_not_read_again() {
        // Regression: every read opens the file, inotify reports the open, and answering it
        // with a read woke the follower again, for ever.
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        append(&a, "a");
        let (mut files, mut sink) = follow(dir.path());
        append(&a, "written, but only an open is reported");
        let opened = event(EventKind::Access(AccessKind::Open(AccessMode::Any)), &a);
        assert!(!files.take(Ok(vec![opened]), &mut sink));
        assert!(read(&mut sink).is_empty());
        let written = event(EventKind::Modify(ModifyKind::Data(DataChange::Any)), &a);
        assert!(!files.take(Ok(vec![written]), &mut sink));
        assert_eq!(read(&mut sink), ["written, but only an open is reported"]);
    }
}
