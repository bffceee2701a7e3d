//! The files of a load read side by side, one a thread, while what the first of them gives
//! is handed on: a campaign is hundreds of files of a few megabytes, and read one after
//! another it kept one core busy. What each file gives comes out in path-then-line order,
//! exactly as reading them in turn gives it.
//!
//! A file reads into a channel of its own; the caller takes the first file's items as they
//! come (a few at a time), then the next file's, which were read meanwhile. A few files are read ahead, within
//! a budget of bytes, so that what waits to be handed on stays small. A large file is read
//! alone, in its place, its lines batched over the cores as they always were, and so is a file
//! that must be (see [`Loader::read_alone`](crate::logs::Loader)): what it gives depends on the
//! files before it.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc::{self, Receiver};

use crate::logs::discover::Found;
use crate::logs::model::diagnostic::Diagnostic;

/// Files read ahead of the one being handed on, at most, per thread of the pool.
const AHEAD_PER_THREAD: usize = 2;
/// Bytes of the files read ahead, at most, unless one alone is more.
const AHEAD_BYTES: u64 = 64 << 20;
/// What a file read ahead gives, handed on this many at a time.
const CHUNK: usize = 16;
/// A file larger than this is read alone, its lines batched over the cores.
pub(crate) const ALONE_BYTES: u64 = 32 << 20;

/// Reads one file, pushing what it gives.
pub(crate) type ReadFile<'a, T> = dyn Fn(&Path, &mut dyn FnMut(T)) + Sync + 'a;

/// How the files of a load are read, and where what they give goes.
pub(crate) struct Reading<'a, T> {
    /// Reads one file, pushing what it gives.
    pub read: &'a ReadFile<'a, T>,
    /// Whether a file must be read alone, in its place.
    pub alone: &'a (dyn Fn(&Path) -> bool + Sync),
    /// A problem with a path, as what a file gives.
    pub problem: &'a dyn Fn(&Diagnostic) -> T,
    /// Whether the load was told to stop: nothing more is read or handed on.
    pub stopped: &'a (dyn Fn() -> bool + Sync),
}

/// A file read ahead: its place in `found`, its size, and what it gives.
struct Ahead<T> {
    index: usize,
    size: u64,
    given: Receiver<Vec<T>>,
}

impl<T: Send> Reading<'_, T> {
    /// Reads every file of `found`, pushing what each gives to `sink` with its index in
    /// `found`, in order. Where the pool has one thread, or this is one of its threads (which
    /// waiting here could leave with nothing to run the reads), the files are read in turn.
    pub fn in_order(&self, found: &[Found], sink: &mut dyn FnMut(usize, T)) {
        let threads = rayon::current_num_threads();
        if threads < 2 || rayon::current_thread_index().is_some() {
            for (index, f) in found.iter().enumerate() {
                if (self.stopped)() {
                    return;
                }
                self.one(index, f, sink);
            }
            return;
        }
        rayon::in_place_scope(|scope| {
            let mut ahead: VecDeque<Ahead<T>> = VecDeque::new();
            let mut bytes = 0;
            for (index, f) in found.iter().enumerate() {
                if (self.stopped)() {
                    break;
                }
                let path = match f {
                    Found::File(path) => path,
                    Found::Problem(_) if ahead.is_empty() => {
                        self.one(index, f, sink);
                        continue;
                    }
                    Found::Problem(d) => {
                        let (give, given) = mpsc::channel();
                        let _ = give.send(vec![(self.problem)(d)]);
                        ahead.push_back(Ahead { index, size: 0, given });
                        continue;
                    }
                };
                let size = std::fs::metadata(path).map_or(0, |m| m.len());
                if size > ALONE_BYTES || (self.alone)(path) {
                    while let Some(a) = ahead.pop_front() {
                        self.hand_on(a, &mut bytes, sink);
                    }
                    if !(self.stopped)() {
                        self.one(index, f, sink);
                    }
                    continue;
                }
                while ahead.len() >= AHEAD_PER_THREAD * threads || (bytes + size > AHEAD_BYTES && !ahead.is_empty()) {
                    if let Some(a) = ahead.pop_front() {
                        self.hand_on(a, &mut bytes, sink);
                    }
                }
                let (give, given) = mpsc::channel();
                let (read, stopped) = (self.read, self.stopped);
                scope.spawn(move |_| {
                    if stopped() {
                        return;
                    }
                    // Handed on a few at a time: one by one, the thread that hands them on
                    // sleeps and is woken for each.
                    let mut chunk = Vec::with_capacity(CHUNK);
                    read(path, &mut |t| {
                        chunk.push(t);
                        if chunk.len() == CHUNK {
                            let _ = give.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK)));
                        }
                    });
                    if !chunk.is_empty() {
                        let _ = give.send(chunk);
                    }
                });
                bytes += size;
                ahead.push_back(Ahead { index, size, given });
            }
            while let Some(a) = ahead.pop_front() {
                self.hand_on(a, &mut bytes, sink);
            }
        });
    }

    /// One file (or a problem with a path) read here, in its place.
    fn one(&self, index: usize, f: &Found, sink: &mut dyn FnMut(usize, T)) {
        match f {
            Found::File(path) => (self.read)(path, &mut |t| sink(index, t)),
            Found::Problem(d) => sink(index, (self.problem)(d)),
        }
    }

    /// Hands on what a file read ahead gives, as it comes, until it is read.
    fn hand_on(&self, a: Ahead<T>, bytes: &mut u64, sink: &mut dyn FnMut(usize, T)) {
        'given: for chunk in a.given {
            for t in chunk {
                if (self.stopped)() {
                    break 'given;
                }
                sink(a.index, t);
            }
        }
        *bytes -= a.size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::{Condvar, Mutex};
    use std::time::Duration;

    /// Whether the pool reads files side by side (with one thread it reads them in turn).
    fn side_by_side() -> bool {
        let two = rayon::current_num_threads() >= 2;
        if !two {
            eprintln!("skipped: one thread in the pool reads the files in turn");
        }
        two
    }

    /// Files named `0` to `n - 1`.
    fn files(n: usize) -> Vec<Found> {
        (0..n).map(|i| Found::File(PathBuf::from(format!("{i}")))).collect()
    }

    /// A reading of what `read` gives, never stopped.
    fn reading<'a>(read: &'a ReadFile<'a, String>) -> Reading<'a, String> {
        Reading { read, alone: &|_: &Path| false, problem: &|d: &Diagnostic| d.to_string(), stopped: &|| false }
    }

    /// The files are read by more than one thread, each file's items handed on in order: the
    /// read of each even file waits for the next file's read to start, which no reading of
    /// one file after another could give (the wait is bounded only so that such a reading
    /// fails instead of hanging).
    #[test]
    fn files_are_read_side_by_side_and_given_in_order() {
        if !side_by_side() {
            return;
        }
        let found = files(12);
        let started = Mutex::new(Vec::new());
        let cv = Condvar::new();
        let threads = Mutex::new(std::collections::HashSet::new());
        let read = |path: &Path, give: &mut dyn FnMut(String)| {
            let i: usize = path.to_string_lossy().parse().unwrap();
            threads.lock().unwrap().insert(std::thread::current().id());
            let mut s = started.lock().unwrap();
            s.push(i);
            cv.notify_all();
            if i.is_multiple_of(2) {
                let (s, waited) = cv.wait_timeout_while(s, Duration::from_secs(60), |s| !s.contains(&(i + 1))).unwrap();
                assert!(!waited.timed_out(), "file {i} was read alone: {s:?}");
            }
            for k in 0..=i % 3 {
                give(format!("{i}.{k}"));
            }
        };
        let reading = reading(&read);
        let mut got = Vec::new();
        reading.in_order(&found, &mut |i, t| got.push((i, t)));
        let want: Vec<(usize, String)> =
            (0..12).flat_map(|i| (0..=i % 3).map(move |k| (i, format!("{i}.{k}")))).collect();
        assert_eq!(got, want);
        assert!(threads.lock().unwrap().len() >= 2);
    }

    /// A file that gives many items hands them on in order across its chunks, and hands on
    /// the first chunk before it is read to its end: the read of file 0 gives a chunk and
    /// more, then waits until the caller has taken that chunk (bounded, so that a load that
    /// held a file's items until its end fails instead of hanging).
    #[test]
    fn a_file_read_ahead_is_handed_on_a_chunk_at_a_time_as_it_is_read() {
        if !side_by_side() {
            return;
        }
        let found = files(3);
        let taken = Mutex::new(0usize);
        let cv = Condvar::new();
        let many = 3 * CHUNK + 5;
        let read = |path: &Path, give: &mut dyn FnMut(String)| {
            let i: usize = path.to_string_lossy().parse().unwrap();
            for k in 0..many {
                give(format!("{i}.{k}"));
                if i == 0 && k == CHUNK {
                    let t = taken.lock().unwrap();
                    let (t, waited) = cv.wait_timeout_while(t, Duration::from_secs(60), |t| *t < CHUNK).unwrap();
                    assert!(!waited.timed_out(), "nothing of file 0 was handed on while it was read: {t}");
                }
            }
        };
        let reading = reading(&read);
        let mut got = Vec::new();
        reading.in_order(&found, &mut |i, t| {
            got.push((i, t));
            *taken.lock().unwrap() += 1;
            cv.notify_all();
        });
        let want: Vec<(usize, String)> = (0..3).flat_map(|i| (0..many).map(move |k| (i, format!("{i}.{k}")))).collect();
        assert_eq!(got, want);
    }
}
