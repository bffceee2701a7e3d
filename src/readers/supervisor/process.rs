//! A reader's child process: `sh -c` in a process group of its own, fed by a writer thread,
//! read by a reader thread (an adapter's first line read as its handshake), watched by a
//! watchdog that stops the group when it owes answers and has been quiet for the timeout;
//! and how it ended, in words, once stopped and reaped.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read as _, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::groups;
use crate::readers::own::{Outside, Runs};
use crate::readers::protocol::{self, Handshake, Line};

/// The input is written in pieces this large, so the watchdog sees a reader that reads.
const PIECE: usize = 64 << 10;
/// A line of output longer than this is not an answer a reader could mean.
const MAX_LINE: u64 = 512 << 20;
/// How long a child that has answered everything is given to exit once its input ends.
pub(super) const EXIT_GRACE: Duration = Duration::from_secs(2);

/// What the reader thread hands over.
pub(super) enum Output {
    /// An adapter's first line.
    Handshake(Handshake),
    Line(Line),
    /// The child's output ended (or could not be read).
    End(Option<io::Error>),
}

/// What the threads and the consumer share.
pub(super) struct Shared {
    started: Instant,
    /// When the child last took input or gave a line, in milliseconds since `started`.
    pub(super) alive_ms: AtomicU64,
    /// Replies asked about, and lines the child printed: it owes answers while more were asked.
    pub(super) asked: AtomicUsize,
    pub(super) printed: AtomicUsize,
    /// Input bytes handed to the writer and not yet written.
    pub(super) queued: AtomicUsize,
    /// The watchdog stopped the child.
    pub(super) hung: AtomicBool,
}

impl Shared {
    pub(super) fn new() -> Arc<Shared> {
        Arc::new(Shared {
            started: Instant::now(),
            alive_ms: AtomicU64::new(0),
            asked: AtomicUsize::new(0),
            printed: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            hung: AtomicBool::new(false),
        })
    }

    fn alive(&self) {
        let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.alive_ms.store(ms, Ordering::Relaxed);
    }

    fn quiet_for(&self) -> Duration {
        self.started.elapsed().saturating_sub(Duration::from_millis(self.alive_ms.load(Ordering::Relaxed)))
    }

    fn owes(&self) -> bool {
        self.asked.load(Ordering::Relaxed) > self.printed.load(Ordering::Relaxed)
    }
}

/// The child, while it may run; stopped whole when dropped.
pub(super) struct Process {
    child: Child,
    pub(super) input: Option<Sender<Arc<Vec<u8>>>>,
    pub(super) output: Receiver<Output>,
    /// Dropped to stop the watchdog, which is joined before the child is reaped (so it never
    /// signals a process group whose leader is gone).
    watchdog: Option<(Sender<()>, JoinHandle<()>)>,
    /// How it ended, once it has been stopped and reaped.
    ended: Option<Ended>,
}

impl Drop for Process {
    fn drop(&mut self) {
        exit_status(self, Duration::ZERO);
    }
}

/// How a child ended, in words.
#[derive(Debug, Clone)]
pub(super) struct Ended {
    pub(super) success: bool,
    /// It had not exited in its time: it was stopped.
    pub(super) stopped: bool,
    pub(super) text: String,
}

/// Waits up to `grace` for the child to exit, then stops its process group and reaps it;
/// how it ended (once stopped, the same every time it is asked).
pub(super) fn exit_status(p: &mut Process, grace: Duration) -> Ended {
    if let Some(ended) = &p.ended {
        return ended.clone();
    }
    p.input = None;
    let until = Instant::now() + grace;
    // Its exit is looked at, not reaped: until it is, the group's id is no one else's.
    let mut exited = has_exited(&p.child);
    while !exited && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
        exited = has_exited(&p.child);
    }
    // The watchdog first, so nothing signals the group once its leader is reaped.
    if let Some((stop, handle)) = p.watchdog.take() {
        drop(stop);
        let _ = handle.join();
    }
    // The whole group: `sh -c` may have started the reader as a child of its own.
    groups::kill_group(p.child.id());
    groups::reaped(p.child.id());
    let status = p.child.wait().ok();
    let stopped = !exited;
    let ended = match status {
        _ if stopped => Ended { success: false, stopped, text: "did not exit; stopped".to_owned() },
        Some(s) if s.success() => Ended { success: true, stopped, text: "exited with status 0".to_owned() },
        Some(s) => Ended { success: false, stopped, text: describe_status(s) },
        None => Ended { success: false, stopped, text: "ended".to_owned() },
    };
    p.ended = Some(ended.clone());
    ended
}

/// Whether the child has exited, leaving it to be reaped.
#[cfg(target_os = "linux")]
fn has_exited(child: &Child) -> bool {
    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
    use nix::unistd::Pid;
    let Ok(pid) = i32::try_from(child.id()) else { return false };
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    !matches!(waitid(Id::Pid(Pid::from_raw(pid)), flags), Ok(WaitStatus::StillAlive) | Err(_))
}

/// Whether the child has exited (where it cannot be looked at without reaping it, it is
/// taken to run until its grace is over).
#[cfg(not(target_os = "linux"))]
fn has_exited(_: &Child) -> bool {
    false
}

#[cfg(unix)]
fn describe_status(s: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(n)) => format!("was ended by signal {n}"),
        _ => "ended".to_owned(),
    }
}

#[cfg(not(unix))]
fn describe_status(s: std::process::ExitStatus) -> String {
    s.code().map_or_else(|| "ended".to_owned(), |c| format!("exited with status {c}"))
}

/// Starts the reader in a process group of its own, the group's [watcher](groups::watch)
/// first: a command as `sh -c COMMAND`; an adapter's runner with its standard output moved to
/// descriptor 3 and descriptor 1 on its standard error (so no `print` or `console.log` can
/// reach the protocol). What runs comes as the script's parameters: nothing to quote.
pub(super) fn spawn(outside: &Outside, shared: &Arc<Shared>) -> io::Result<Process> {
    let mut command = std::process::Command::new("sh");
    let watcher = groups::watch(std::process::id());
    match outside.runs() {
        Runs::Shell(line) => {
            command.arg("-c").arg(format!("{} exec sh -c \"$1\"", watcher)).arg("bracewalk-reader").arg(line)
        }
        Runs::Adapter(a) => command
            .arg("-c")
            .arg(format!("{} exec 3>&1 1>&2; exec \"$@\"", watcher))
            .arg("bracewalk-reader")
            .arg(&a.program)
            .args(&a.args),
    };
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    command.stderr(match &outside.run.log {
        Some(path) => Stdio::from(open_log(path)?),
        None => Stdio::null(),
    });
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own group, so it can be stopped whole, and a Ctrl-C meant for bracewalk is not
        // delivered to it.
        command.process_group(0);
    }
    let mut child = groups::started(|| {
        let child = command.spawn()?;
        let group = child.id();
        Ok((child, group))
    })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        groups::kill_group(child.id());
        groups::reaped(child.id());
        let _ = child.wait();
        return Err(io::Error::other("its pipes could not be opened"));
    };
    shared.alive();
    let (input, chunks) = mpsc::channel();
    let (lines, output) = mpsc::channel();
    let (stop, stopped) = mpsc::channel();
    let handshake = matches!(outside.runs(), Runs::Adapter(_));
    let spawned = (|| -> io::Result<JoinHandle<()>> {
        let s = shared.clone();
        std::thread::Builder::new()
            .name("bracewalk-reader-in".into())
            .spawn(move || write_input(stdin, &chunks, &s))?;
        let s = shared.clone();
        std::thread::Builder::new()
            .name("bracewalk-reader-out".into())
            .spawn(move || read_output(stdout, &lines, &s, handshake))?;
        let s = shared.clone();
        let timeout = outside.run.timeout;
        let pid = child.id();
        std::thread::Builder::new()
            .name("bracewalk-reader-watch".into())
            .spawn(move || watch(&stopped, &s, timeout, pid))
    })();
    match spawned {
        Ok(handle) => Ok(Process { child, input: Some(input), output, watchdog: Some((stop, handle)), ended: None }),
        Err(e) => {
            groups::kill_group(child.id());
            groups::reaped(child.id());
            let _ = child.wait();
            Err(e)
        }
    }
}

fn open_log(path: &PathBuf) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    File::create(path)
}

fn write_input(mut stdin: ChildStdin, chunks: &Receiver<Arc<Vec<u8>>>, shared: &Shared) {
    let mut broken = false;
    for chunk in chunks {
        if !broken {
            for piece in chunk.chunks(PIECE) {
                if stdin.write_all(piece).is_err() {
                    // The child is gone or stopped reading for good; its output says how.
                    broken = true;
                    break;
                }
                shared.alive();
            }
        }
        shared.queued.fetch_sub(chunk.len(), Ordering::Relaxed);
    }
    // Dropping stdin ends the child's input.
}

/// Reads the child's lines (the first a handshake, with `handshake`) until its output ends.
fn read_output(stdout: ChildStdout, lines: &Sender<Output>, shared: &Shared, mut handshake: bool) {
    let mut reader = BufReader::with_capacity(PIECE, stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buf);
        let out = match read {
            Ok(0) => Output::End(None),
            Ok(_) if buf.last() != Some(&b'\n') && buf.len() as u64 >= MAX_LINE => {
                Output::Line(Line::Bad(format!("a line longer than {} bytes", MAX_LINE)))
            }
            Ok(_) if handshake => {
                handshake = false;
                shared.alive();
                let said = protocol::parse_handshake(&buf);
                let ready = matches!(said, Handshake::Ready { .. });
                if lines.send(Output::Handshake(said)).is_err() || !ready {
                    return;
                }
                continue;
            }
            Ok(_) => {
                shared.alive();
                match protocol::parse_line(&buf) {
                    Some(line) => {
                        shared.printed.fetch_add(1, Ordering::Relaxed);
                        Output::Line(line)
                    }
                    None => continue,
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => Output::End(Some(e)),
        };
        let end = matches!(out, Output::End(_) | Output::Line(Line::Bad(_)));
        if lines.send(out).is_err() || end {
            return;
        }
    }
}

/// Stops the child's process group when it owes answers and has been quiet for `timeout`.
fn watch(stop: &Receiver<()>, shared: &Shared, timeout: Duration, pid: u32) {
    let tick = (timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    loop {
        match stop.recv_timeout(tick) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
        if shared.owes() && shared.quiet_for() > timeout {
            shared.hung.store(true, Ordering::Relaxed);
            groups::kill_group(pid);
            return;
        }
    }
}
