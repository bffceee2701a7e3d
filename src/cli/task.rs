//! What a scan run as a cluster's task needs beside the scan: its paths from a list the task
//! was given, and an end when the worker that started it is gone.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};

/// How often the parent is looked for.
const EVERY: Duration = Duration::from_millis(100);

/// The exit status when the parent went: the task it ran for is gone.
pub const PARENT_GONE: i32 = 129;

/// Set once the parent is found gone, before the readers are stopped: a reader stopped reads
/// as a reader that failed, and the scan would go on to write a shard nobody waits for.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Ends this process, and the readers it runs, as soon as the process that started it is
/// gone: a task runner that kills a worker (Dask's nanny, Ray, Spark's executors) kills the
/// worker, not the programs the worker started, and retries the task elsewhere; a scan left
/// running would still write its shard, late. A thread looks every tenth of a second whether this process has another parent
/// now (the one it had ended, and it was given to init or a subreaper). Where no parent is
/// known, nothing is watched.
pub fn die_with_parent() {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        if parent <= 1 {
            return;
        }
        let watch = move || {
            loop {
                std::thread::sleep(EVERY);
                if std::os::unix::process::parent_id() != parent {
                    ENDING.store(true, Ordering::SeqCst);
                    eprintln!("bracewalk: the process that started this scan ({parent}) has ended; ending too");
                    // Its readers' process groups first: each would outlive the scan.
                    crate::readers::supervisor::stop_all();
                    std::process::exit(PARENT_GONE);
                }
            }
        };
        // Without its thread there is nothing to watch with: the scan runs as it would.
        let _ = std::thread::Builder::new().name("parent".to_owned()).spawn(watch);
    }
}

/// The paths `list` names (a file, or `-` for the standard input), one a line, blank lines
/// passed over.
pub fn paths_from(list: &Path) -> Result<Vec<PathBuf>> {
    let text = if list == Path::new("-") {
        std::io::read_to_string(std::io::stdin()).context("reading the paths from the standard input")?
    } else {
        std::fs::read_to_string(list).with_context(|| format!("reading the paths in {}", list.display()))?
    };
    Ok(text.lines().filter(|l| !l.trim().is_empty()).map(PathBuf::from).collect())
}

/// Standard output that writes nothing once the parent is found gone: the writer waits
/// there for the exit the watching thread is about to make. What was written before stays.
pub struct UnlessOrphaned<W>(pub W);

impl<W: Write> UnlessOrphaned<W> {
    fn hold_if_ending(&self) {
        while ENDING.load(Ordering::SeqCst) {
            std::thread::park();
        }
    }
}

impl<W: Write> Write for UnlessOrphaned<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.hold_if_ending();
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.hold_if_ending();
        self.0.flush()
    }
}
