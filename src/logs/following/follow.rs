//! The opened paths, read once and then followed, every change pushed to a [`Sink`].
//!
//! Every file is read through a [`Tail`], from the first load on, so a file that grows
//! afterwards is read from where its first read stopped. A watcher's event is a hint, not
//! a fact (watchexec, yazi and gitui agree): events are debounced, then the paths they name
//! are looked at again on disk: a directory is walked for new files, a file is re-read by
//! its tail (which tells a grown file from a truncated or replaced one, and holds back a
//! line still being written), a path that is gone takes its files with it. A file is known
//! by its identity on disk, so one found at a new name (a log rotated by rename, a chain of
//! them) is followed there, its tail and what it gave moved along, not read again as new:
//! its logger may write on through its old handle. Directories are
//! watched, not files, so an atomic rename into place is seen. The follower's own reads are
//! not hints (inotify reports every open, and answering them would read for ever). A watch
//! dies with its directory, so a watched directory deleted and made again, or replaced, is
//! noticed (it is looked at twice a second) and watched anew, and what it holds is read.
//! Where events were lost (a queue overflowed), everything is looked at again and the
//! watches are renewed. Where native watching cannot start (inotify's limits, some network
//! filesystems), the paths are polled instead and the status line says so.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, SystemTime};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache, new_debouncer};

use crate::logs::discover::{Found, discover, is_passed_over};
use crate::logs::following::tail::{Change, FileId, Tail, file_id};
use crate::logs::loader::Loader;
use crate::logs::model::options::LoadOptions;
use crate::logs::model::reply::Item;

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
/// Its identity tells a file renamed from a new one, and a file renamed over another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    id: FileId,
}

fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::metadata(path).ok().map(|m| Stamp { len: m.len(), modified: m.modified().ok(), id: file_id(&m) })
}

impl Files {
    /// Reads `path` (new or known) for what is new in it, and forgets it once its tail has
    /// found it gone (not before: a file deleted and made again between a look and the
    /// read is read, and then must stay known, or it would be read twice). `now` is what
    /// the look saw there.
    fn read(&mut self, path: &Path, now: Option<Stamp>, sink: &mut dyn Sink) {
        let loader = &self.loader;
        let list = sink.lists();
        let (tail, last) = self.tails.entry(path.to_path_buf()).or_insert_with(|| {
            let tail = Tail::new(path, loader.clone());
            (if list { tail.listing() } else { tail }, None)
        });
        *last = now;
        tail.read_new(&mut |c| sink.change(c));
        if tail.is_gone() {
            self.tails.remove(path);
        }
    }

    /// Walks every root; reads each file found (all of them, or with `changed_only` those
    /// whose size, time or identity moved), and re-reads known files that were not found.
    fn scan(&mut self, sink: &mut dyn Sink, changed_only: bool) {
        let roots = self.roots.clone();
        if self.first {
            // Nothing is known yet, so nothing can have moved: each file is read as it is
            // found, and the first replies come while the walk goes on.
            discover(&roots, &mut |found| match found {
                Found::File(p) => {
                    sink.file_found();
                    self.read(&p, stamp(&p), sink);
                }
                // A problem with a path is reported once, not on every poll.
                Found::Problem(d) => sink.change(Change::Item(Item::Diagnostic(d))),
            });
            return;
        }
        let found = files_under(&roots);
        self.look(&roots, found, sink, changed_only, false);
    }

    /// Looks at `found` (files, in the walk's order), and at the known files under `under`
    /// not found: files renamed are followed to their new names first, then what is new is
    /// read, from every file or with `changed_only` from those whose stamp moved, and files
    /// gone are dropped. A `partial` look (at what some events named) sees only part of the
    /// tree, so a file found at a new name is looked for among all known files, and a file
    /// gone beside where it was: a rename's events may name one of its names only, or name
    /// them in two batches.
    fn look(&mut self, under: &[PathBuf], found: Vec<PathBuf>, sink: &mut dyn Sink, changed_only: bool, partial: bool) {
        let seen: HashSet<&PathBuf> = found.iter().collect();
        let mut missing: BTreeSet<PathBuf> = BTreeSet::new();
        for u in under {
            // A directory's files are one range of the paths, ordered by component.
            let known = self.tails.range::<Path, _>((Bound::Included(u.as_path()), Bound::Unbounded));
            let known = known.map(|(p, _)| p).take_while(|p| p.starts_with(u));
            missing.extend(known.filter(|p| !seen.contains(p)).cloned());
        }
        let mut looked: Vec<(PathBuf, Option<Stamp>)> =
            found.iter().chain(&missing).map(|p| (p.clone(), stamp(p))).collect();
        let moves = self.moves(&mut looked, partial);
        let targets: HashSet<PathBuf> = moves.iter().map(|(_, to)| to.clone()).collect();
        self.rename(moves, sink);
        for (p, now) in looked {
            let read = match self.tails.get(&p) {
                // Read on where it was renamed to (a logger writing late through its old
                // handle), or again from the start.
                Some(_) if targets.contains(&p) => true,
                Some((_, last)) => !changed_only || now.is_none() || now != *last,
                None => now.is_some(),
            };
            if read {
                self.read(&p, now, sink);
            }
        }
    }

    /// The files renamed: (old path, new path) pairs, each new path one of those `looked`
    /// at where a known file (by its identity) is found that is no longer at its own path.
    /// With `partial` (see [`look`](Self::look)), a known file at a path not looked at is
    /// one too, and the path it left joins `looked` (another file may be there now); and the
    /// directories of files gone and found nowhere are looked in, what is found there
    /// joining `looked`.
    fn moves(&self, looked: &mut Vec<(PathBuf, Option<Stamp>)>, partial: bool) -> Vec<(PathBuf, PathBuf)> {
        // Known files no longer at their paths, by identity.
        let mut departed: HashMap<FileId, PathBuf> = HashMap::new();
        // Files found where no known file is, or another one was.
        let mut arrived: Vec<(PathBuf, FileId)> = Vec::new();
        for (p, now) in looked.iter() {
            let known = self.tails.get(p).and_then(|(t, _)| t.id());
            let now = now.map(|s| s.id);
            if known == now {
                continue;
            }
            if let Some(id) = known {
                departed.insert(id, p.clone());
            }
            if let Some(id) = now {
                arrived.push((p.clone(), id));
            }
        }
        if arrived.is_empty() && (departed.is_empty() || !partial) {
            return Vec::new();
        }
        let mut moves = Vec::new();
        let mut strangers = Vec::new();
        for (p, id) in arrived {
            match departed.remove(&id) {
                Some(from) => moves.push((from, p)),
                None => strangers.push((p, id)),
            }
        }
        let mut more = Vec::new();
        if partial && !strangers.is_empty() {
            // Found at a new name, perhaps from a known name not looked at here.
            let looked_at: HashSet<&PathBuf> = looked.iter().map(|(p, _)| p).collect();
            let known: HashMap<FileId, &PathBuf> = self
                .tails
                .iter()
                .filter(|(p, _)| !looked_at.contains(p))
                .filter_map(|(p, (t, _))| t.id().map(|id| (id, p)))
                .collect();
            for (p, id) in strangers {
                if let Some(&from) = known.get(&id) {
                    let now = stamp(from);
                    if now.map(|s| s.id) != Some(id) {
                        moves.push((from.clone(), p));
                        more.push((from.clone(), now));
                    }
                }
            }
        }
        if partial && !departed.is_empty() {
            // Gone from its path and found nowhere looked at: perhaps beside it.
            let dirs: BTreeSet<PathBuf> = departed.values().filter_map(|p| p.parent().map(Path::to_path_buf)).collect();
            let looked_at: HashSet<&PathBuf> = looked.iter().map(|(p, _)| p).collect();
            for dir in dirs {
                let Ok(list) = std::fs::read_dir(&dir) else { continue };
                for entry in list.flatten() {
                    let path = dir.join(entry.file_name());
                    if is_passed_over(&entry.file_name())
                        || self.tails.contains_key(&path)
                        || looked_at.contains(&path)
                        || !self.roots.iter().any(|r| path.starts_with(r) && r.is_dir())
                    {
                        continue;
                    }
                    let Some(now) = stamp(&path) else { continue };
                    if let Some(from) = departed.remove(&now.id) {
                        moves.push((from, path.clone()));
                        more.push((path, Some(now)));
                    }
                }
            }
        }
        looked.extend(more);
        moves
    }

    /// Follows files to their new names, all at once (a chain, `log.1` to `log.2` and `log`
    /// to `log.1`, or a swap): a file that was at a new name and has not moved on is gone
    /// from there.
    fn rename(&mut self, moves: Vec<(PathBuf, PathBuf)>, sink: &mut dyn Sink) {
        if moves.is_empty() {
            return;
        }
        let leaving: HashSet<&PathBuf> = moves.iter().map(|(from, _)| from).collect();
        for (_, to) in &moves {
            if !leaving.contains(to)
                && let Some((tail, _)) = self.tails.remove(to)
                && tail.has_pushed()
            {
                sink.change(Change::Removed { source: to.clone() });
            }
        }
        let taken: Vec<(Tail, PathBuf, PathBuf)> =
            moves.into_iter().filter_map(|(from, to)| self.tails.remove(&from).map(|(t, _)| (t, from, to))).collect();
        let told: Vec<(PathBuf, PathBuf)> =
            taken.iter().filter(|(t, ..)| t.has_pushed()).map(|(_, from, to)| (from.clone(), to.clone())).collect();
        if !told.is_empty() {
            sink.change(Change::Moved { moves: told });
        }
        for (mut tail, _, to) in taken {
            tail.rename(to.clone());
            self.tails.insert(to, (tail, None));
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

    /// Looks again at the paths some events named, in one look: a directory's files (and
    /// those known under it that are no longer there), a file, or what was known at a path
    /// now gone.
    fn touch(&mut self, paths: Vec<PathBuf>, sink: &mut dyn Sink) {
        let mut paths: Vec<PathBuf> = paths.iter().filter_map(|p| self.localize(p)).collect();
        paths.sort();
        paths.dedup();
        let mut found = Vec::new();
        // Where known files may have gone from: a directory, or a path with nothing there now.
        let mut under = Vec::new();
        for p in paths {
            if p.is_dir() {
                found.extend(files_under(std::slice::from_ref(&p)));
                under.push(p);
            } else if p.is_file() {
                found.push(p);
            } else {
                under.push(p);
            }
        }
        let mut seen = HashSet::new();
        found.retain(|p| seen.insert(p.clone()));
        self.look(&under, found, sink, false, true);
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

/// The files under `paths`, in the walk's order. A problem with a path is reported by the
/// first load only, not on every look.
fn files_under(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    discover(paths, &mut |f| {
        if let Found::File(p) = f {
            found.push(p);
        }
    });
    found
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
    use crate::logs::following::tail::Restart;

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

    /// `root` read once, as `follow` reads it before following, and what that read pushed.
    fn read_once(root: &Path) -> (Files, Kept) {
        let mut sink = Kept::default();
        let loader = Arc::new(Loader::new(LoadOptions::default()));
        let absolute = vec![std::fs::canonicalize(root).unwrap()];
        let mut files =
            Files { first: true, roots: vec![root.to_path_buf()], absolute, loader, tails: BTreeMap::new() };
        files.scan(&mut sink, false);
        files.first = false;
        (files, sink)
    }

    /// `root` read once, and nothing kept of what that pushed.
    fn follow(root: &Path) -> (Files, Kept) {
        let (files, mut sink) = read_once(root);
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

    /// What a follower's changes leave listed: each file's replies (line, text), by path.
    #[derive(Debug, Default, PartialEq)]
    struct Listed(BTreeMap<PathBuf, Vec<(Option<usize>, String)>>);

    impl Listed {
        fn apply(&mut self, changes: Vec<Change>) {
            for c in changes {
                match c {
                    Change::Item(Item::Reply(r)) => self.0.entry(r.source).or_default().push((r.line, r.text)),
                    Change::Restarted { source, .. } | Change::Removed { source } => {
                        self.0.remove(&source);
                    }
                    Change::Moved { moves } => {
                        let taken: Vec<_> = moves.iter().map(|(from, to)| (to, self.0.remove(from))).collect();
                        for (to, replies) in taken {
                            let replaced = self.0.insert(to.clone(), replies.unwrap_or_default());
                            assert!(
                                replaced.is_none(),
                                "{} was not let go before a file was renamed over it",
                                to.display()
                            );
                        }
                    }
                    _ => {}
                }
            }
            self.0.retain(|_, v| !v.is_empty());
        }

        /// What loading `root` lists now.
        fn loaded(root: &Path) -> Listed {
            let mut listed = Listed::default();
            crate::logs::load(&[root.to_path_buf()], &LoadOptions::default(), &mut |item| {
                listed.apply(vec![Change::Item(item)]);
            });
            listed
        }
    }

    /// `root` followed, and what its first read listed.
    fn listed(root: &Path) -> (Files, Kept, Listed) {
        let (files, mut sink) = read_once(root);
        let mut listed = Listed::default();
        listed.apply(std::mem::take(&mut sink.changes));
        (files, sink, listed)
    }

    fn moves(changes: &[Change]) -> Vec<(String, String)> {
        let name = |p: &PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
        changes
            .iter()
            .filter_map(|c| match c {
                Change::Moved { moves } => Some(moves.iter().map(|(a, b)| (name(a), name(b)))),
                _ => None,
            })
            .flatten()
            .collect()
    }

    fn renamed(dir: &Path, pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        for (a, b) in pairs {
            std::fs::rename(dir.join(a), dir.join(b)).unwrap();
        }
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn a_log_rotated_by_rename_is_followed_to_its_new_name_not_read_twice() {
        // Regression: the renamed file was read again from the start as a new one, and the
        // replies read at its old name were kept beside them, shown as gone: every reply of
        // a rotated log was listed twice.
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        append(&log, "one");
        append(&log, "two");
        let (mut files, mut sink, mut listed) = listed(dir.path());
        // The logger keeps its handle on the file renamed, and writes a line through it late.
        let mut handle = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        let done = renamed(dir.path(), &[("log.jsonl", "log.1.jsonl")]);
        handle.write_all(record("three, written late").as_bytes()).unwrap();
        files.scan(&mut sink, true);
        assert_eq!(moves(&sink.changes), done);
        assert_eq!(read(&mut Kept { changes: sink.changes.clone() }), ["three, written late"], "only what is new");
        listed.apply(std::mem::take(&mut sink.changes));
        assert_eq!(listed, Listed::loaded(dir.path()));
        // Then a fresh log at the old name, while the renamed one still grows.
        append(&log, "four, in the fresh log");
        handle.write_all(record("five, later still").as_bytes()).unwrap();
        files.scan(&mut sink, true);
        assert_eq!(read(&mut Kept { changes: sink.changes.clone() }), ["five, later still", "four, in the fresh log"]);
        listed.apply(std::mem::take(&mut sink.changes));
        assert_eq!(listed, Listed::loaded(dir.path()));
    }

    #[test]
    fn a_rename_is_followed_whichever_of_its_names_an_event_gives() {
        // A rename's two names may come in two batches of events: each alone finds the move.
        let dir = tempfile::tempdir().unwrap();
        for (old, new, hinted) in [("a.jsonl", "a.1.jsonl", "a.1.jsonl"), ("b.jsonl", "b.1.jsonl", "b.jsonl")] {
            append(&dir.path().join(old), old);
            let (mut files, mut sink, mut listed) = listed(dir.path());
            let done = renamed(dir.path(), &[(old, new)]);
            let written = event(EventKind::Any, &std::fs::canonicalize(dir.path()).unwrap().join(hinted));
            files.take(Ok(vec![written]), &mut sink);
            assert_eq!(moves(&sink.changes), done, "told of {hinted} alone");
            listed.apply(std::mem::take(&mut sink.changes));
            assert_eq!(listed, Listed::loaded(dir.path()));
        }
    }

    #[test]
    fn logs_rotated_in_a_chain_or_swapped_move_all_at_once() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["log.jsonl", "log.1.jsonl", "log.2.jsonl", "x.jsonl", "y.jsonl"] {
            append(&dir.path().join(name), name);
        }
        let (mut files, mut sink, mut listed) = listed(dir.path());
        // Numbered rotation: the oldest goes, each moves up one, a fresh log begins.
        std::fs::remove_file(dir.path().join("log.2.jsonl")).unwrap();
        let mut done = renamed(dir.path(), &[("log.1.jsonl", "log.2.jsonl"), ("log.jsonl", "log.1.jsonl")]);
        append(&dir.path().join("log.jsonl"), "fresh");
        // And two files swapped through a third name.
        done.extend(renamed(dir.path(), &[("x.jsonl", "t.jsonl"), ("y.jsonl", "x.jsonl"), ("t.jsonl", "y.jsonl")]));
        done.retain(|(a, b)| a != "t.jsonl" && b != "t.jsonl");
        done.extend([("x.jsonl".to_owned(), "y.jsonl".to_owned())]);
        files.scan(&mut sink, true);
        let mut got = moves(&sink.changes);
        got.sort();
        done.sort();
        assert_eq!(got, done);
        assert_eq!(sink.changes.iter().filter(|c| matches!(c, Change::Moved { .. })).count(), 1, "one move");
        listed.apply(std::mem::take(&mut sink.changes));
        assert_eq!(listed, Listed::loaded(dir.path()));
    }

    #[test]
    fn a_file_renamed_over_a_known_one_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        append(&dir.path().join("a.jsonl"), "a");
        append(&dir.path().join("a.jsonl.new"), "the new a");
        let (mut files, mut sink, mut listed) = listed(dir.path());
        renamed(dir.path(), &[("a.jsonl.new", "a.jsonl")]);
        files.scan(&mut sink, true);
        let a = dir.path().join("a.jsonl");
        assert!(matches!(&sink.changes[0], Change::Removed { source } if *source == a), "{:?}", sink.changes);
        // Another extension: read again from the start at the new name.
        assert!(matches!(&sink.changes[2], Change::Restarted { why: Restart::Moved, .. }), "{:?}", sink.changes);
        listed.apply(std::mem::take(&mut sink.changes));
        assert_eq!(listed, Listed::loaded(dir.path()));
    }

    #[test]
    fn a_file_renamed_away_from_what_is_read_is_deleted_and_one_renamed_in_is_new() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("logs");
        std::fs::create_dir(&root).unwrap();
        append(&root.join("a.jsonl"), "a");
        append(&dir.path().join("outside.jsonl"), "from outside");
        let (mut files, mut sink, mut listed) = listed(&root);
        std::fs::rename(root.join("a.jsonl"), dir.path().join("a.jsonl")).unwrap();
        std::fs::rename(root.join("../outside.jsonl"), root.join("in.jsonl")).unwrap();
        std::fs::rename(dir.path().join("a.jsonl"), root.join(".a.jsonl.hidden")).unwrap();
        files.scan(&mut sink, true);
        assert!(moves(&sink.changes).is_empty(), "{:?}", sink.changes);
        listed.apply(std::mem::take(&mut sink.changes));
        assert_eq!(listed, Listed::loaded(&root));
        assert_eq!(listed.0.len(), 1);
    }

    #[test]
    fn a_log_moved_to_another_directory_is_read_again_there() {
        // Its run context comes from the directories around it.
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run-1");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::create_dir_all(dir.path().join("archive")).unwrap();
        append(&run.join("log.jsonl"), "a");
        let (mut files, mut sink, mut listed) = listed(dir.path());
        std::fs::rename(run.join("log.jsonl"), dir.path().join("archive/log.jsonl")).unwrap();
        files.scan(&mut sink, true);
        assert_eq!(moves(&sink.changes).len(), 1);
        assert!(sink.changes.iter().any(|c| matches!(c, Change::Restarted { why: Restart::Moved, .. })));
        listed.apply(std::mem::take(&mut sink.changes));
        assert_eq!(listed, Listed::loaded(dir.path()));
    }
}
