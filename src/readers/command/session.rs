//! One reader, running: a `sh -c` child in a process group of its own, fed by a writer
//! thread, read by a reader thread, watched by a watchdog, and the answers matched with the
//! replies asked about, in order, and read as the extractor's caller reads them. An adapter
//! is waited for until it says it has loaded its function ([`Session::ready`]).
//!
//! The consumer never blocks on the child for longer than the child lives: the watchdog
//! stops a child that owes answers and has neither taken input nor given an answer for the
//! timeout, which ends its output, which ends any wait for it. A failure is final: the
//! child is stopped, the replies it owed and every later one get [`Given::Failed`] with the
//! reason, and one diagnostic names the reader and the reply; its earlier answers stand.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read as _, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::read::value::JsString;
use crate::readers::adapter::Adapter;
use crate::readers::{Fault, Given, ReaderError, ReaderId, ReaderProblem};
use crate::visible::visible;

use super::protocol::{self, Handshake, Line};
use super::{Launch, Spec, stderr};

/// The input is written in pieces this large, so the watchdog sees a reader that reads.
const PIECE: usize = 64 << 10;
/// A line of output longer than this is not an answer a reader could mean.
const MAX_LINE: u64 = 512 << 20;
/// How many of the last lines of a reader's stderr are read for the likely fix.
pub const TAIL: usize = 40;
/// How long a child that has answered everything is given to exit once its input ends.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// What the reader thread hands over.
enum Output {
    /// An adapter's first line.
    Handshake(Handshake),
    Line(Line),
    /// The child's output ended (or could not be read).
    End(Option<io::Error>),
}

/// What the threads and the consumer share.
struct Shared {
    started: Instant,
    /// When the child last took input or gave a line, in milliseconds since `started`.
    alive_ms: AtomicU64,
    /// Replies asked about, and lines the child printed: it owes answers while more were asked.
    asked: AtomicUsize,
    printed: AtomicUsize,
    /// Input bytes handed to the writer and not yet written.
    queued: AtomicUsize,
    /// The watchdog stopped the child.
    hung: AtomicBool,
}

impl Shared {
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

/// The child, while it may run.
struct Process {
    child: Child,
    input: Option<Sender<Arc<Vec<u8>>>>,
    output: Receiver<Output>,
    /// Dropped to stop the watchdog, which is joined before the child is reaped (so it never
    /// signals a process group whose leader is gone).
    watchdog: Option<(Sender<()>, JoinHandle<()>)>,
}

/// One reader command and the answers it owes.
pub struct Session {
    pub reader: ReaderId,
    name: String,
    spec: Spec,
    process: Option<Process>,
    shared: Arc<Shared>,
    /// Ids asked about and not yet answered, in order.
    owed: VecDeque<String>,
    /// Answers not yet taken, in the order asked.
    answers: VecDeque<Given>,
    /// Why it failed: what every later reply is given.
    failed: Option<Arc<str>>,
    /// Its output ended while nothing was owed: why, for the next reply asked about.
    ended: Option<String>,
    closed: bool,
    problems: Vec<ReaderProblem>,
}

impl Session {
    /// Starts `spec` as reader `reader`, or takes the session [started ahead](super::start_ahead)
    /// for it; a reader that cannot start is a session failed from the first reply.
    pub fn start(reader: ReaderId, name: &str, spec: &Spec) -> Session {
        if let Some(session) = spec.started.take(reader) {
            return session;
        }
        match Session::ready(reader, name, spec) {
            Ok(session) => session,
            Err(e) => {
                let mut session = Session::new(reader, name, spec);
                session.failed = Some(Arc::from(format!("reader failed: {e}")));
                session.problems.push(ReaderProblem::new(reader, name, Fault::Start { error: e }));
                session
            }
        }
    }

    /// Starts `spec` as reader `reader` and, for an adapter, waits until it says it has loaded
    /// its function (for as long as the reader's timeout): the error says why it cannot run.
    pub fn ready(reader: ReaderId, name: &str, spec: &Spec) -> Result<Session, ReaderError> {
        let mut session = Session::new(reader, name, spec);
        let process = spawn(spec, &session.shared).map_err(|e| ReaderError::Start {
            name: name.to_owned(),
            program: match &spec.launch {
                Launch::Shell(command) => format!("`sh -c {}`", clipped(command)),
                Launch::Adapter(a) => a.program.display().to_string(),
            },
            cause: e.to_string(),
        })?;
        session.process = Some(process);
        if let Launch::Adapter(adapter) = &spec.launch {
            session.handshake(adapter)?;
        }
        Ok(session)
    }

    fn new(reader: ReaderId, name: &str, spec: &Spec) -> Session {
        let shared = Arc::new(Shared {
            started: Instant::now(),
            alive_ms: AtomicU64::new(0),
            asked: AtomicUsize::new(0),
            printed: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            hung: AtomicBool::new(false),
        });
        Session {
            reader,
            name: name.to_owned(),
            spec: spec.clone(),
            process: None,
            shared,
            owed: VecDeque::new(),
            answers: VecDeque::new(),
            failed: None,
            ended: None,
            closed: false,
            problems: Vec::new(),
        }
    }

    /// Waits for the adapter's first line; stops it where that is not "ready".
    fn handshake(&mut self, adapter: &Adapter) -> Result<(), ReaderError> {
        let (name, target) = (self.name.clone(), adapter.target.clone());
        let Some(p) = &self.process else { return Ok(()) };
        let said = p.output.recv_timeout(self.spec.timeout);
        let error = match said {
            Ok(Output::Handshake(Handshake::Ready { .. })) => return Ok(()),
            Ok(Output::Handshake(Handshake::NotLoaded { error })) => {
                let cause = one_line(&error);
                ReaderError::Load { name, target, fix: stderr::likely_fix(&cause), cause }
            }
            Ok(Output::Handshake(Handshake::NoFunction { wanted, functions })) => {
                ReaderError::NoFunction { name, target, wanted, functions, spec: adapter.spec_prefix.clone() }
            }
            Ok(Output::Handshake(Handshake::Bad(what))) => ReaderError::NotReady { name, target, how: what, fix: None },
            // The reader thread sends a handshake first, or the end of the output.
            Ok(Output::Line(_) | Output::End(_)) | Err(RecvTimeoutError::Disconnected) => {
                let ended = self.process.as_mut().map(|p| exit_status(p, EXIT_GRACE / 4));
                let tail = self.spec.log.as_deref().map(|l| stderr::tail(l, 3)).unwrap_or_default();
                let mut how = ended.map_or_else(|| "ended".to_owned(), |e| e.text);
                if let Some(last) = tail.last() {
                    how = format!("{how}; its stderr ends: {last}");
                }
                ReaderError::NotReady { name, target, how, fix: stderr::likely_fix(&tail.join("\n")) }
            }
            Err(RecvTimeoutError::Timeout) => ReaderError::NotReady {
                name,
                target,
                how: format!("said nothing for {} (--reader-timeout)", seconds(self.spec.timeout)),
                fix: None,
            },
        };
        if let Some(mut p) = self.process.take() {
            exit_status(&mut p, Duration::ZERO);
        }
        Err(error)
    }

    /// Asks about these replies (their ids, in the order of the requests in `chunk`).
    pub fn send(&mut self, ids: &[&str], chunk: &Arc<Vec<u8>>) {
        if let Some(why) = self.ended.take() {
            let at = ids.first().copied().unwrap_or_default();
            self.fail(format!("{why} before it was asked about reply {}", shown(at)));
        }
        if let Some(why) = &self.failed {
            self.answers.extend(ids.iter().map(|_| Given::Failed(why.clone())));
            return;
        }
        self.owed.extend(ids.iter().map(|&id| id.to_owned()));
        self.shared.asked.fetch_add(ids.len(), Ordering::Relaxed);
        self.shared.queued.fetch_add(chunk.len(), Ordering::Relaxed);
        let sent = self.process.as_ref().and_then(|p| p.input.as_ref()).is_some_and(|i| i.send(chunk.clone()).is_ok());
        if !sent {
            // The writer is gone only when the child is: its output says how.
            self.shared.queued.fetch_sub(chunk.len(), Ordering::Relaxed);
        }
    }

    /// Input bytes not yet written to the child.
    pub fn backlog(&self) -> usize {
        if self.failed.is_some() { 0 } else { self.shared.queued.load(Ordering::Relaxed) }
    }

    /// No more replies: the child's input ends once what was sent is written.
    pub fn close(&mut self) {
        self.closed = true;
        if let Some(p) = &mut self.process {
            p.input = None;
        }
    }

    /// Reads what the child has printed; with `want`, waits until that many answers are
    /// waiting to be taken (or it failed, or owes no more). Returns how many are waiting.
    pub fn poll(&mut self, want: usize) -> usize {
        while let Some(p) = &self.process {
            let next = if self.answers.len() < want && !self.owed.is_empty() {
                p.output.recv().map_err(|_| mpsc::TryRecvError::Disconnected)
            } else {
                p.output.try_recv()
            };
            match next {
                Ok(out) => self.handle(out),
                Err(mpsc::TryRecvError::Empty) => break,
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.handle(Output::End(None));
                    break;
                }
            }
        }
        if self.process.is_none() && !self.owed.is_empty() {
            self.fail("had stopped".to_owned());
        }
        self.answers.len()
    }

    /// The oldest reply's answer, once it is in.
    pub fn take(&mut self) -> Option<Given> {
        self.answers.pop_front()
    }

    /// The problems since the last call.
    pub fn problems(&mut self) -> Vec<ReaderProblem> {
        std::mem::take(&mut self.problems)
    }

    /// Where its stderr goes.
    pub fn log(&self) -> Option<&PathBuf> {
        self.spec.log.as_ref()
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Ends the child: its input is closed, it is given a moment to exit, then stopped.
    /// After it has answered everything, an exit status other than 0 is a diagnostic (one
    /// that lingers past its input is merely stopped: its answers are all in).
    pub fn finish(&mut self) {
        self.close();
        let Some(mut p) = self.process.take() else { return };
        let status = exit_status(&mut p, EXIT_GRACE);
        if self.failed.is_none() && !status.success && !status.stopped {
            let why = format!("{} after its last answer", status.text);
            self.problems.push(self.diagnostic(&why));
        }
    }

    fn handle(&mut self, out: Output) {
        match out {
            Output::Line(Line::Answer { id, answer }) => {
                let Some(next) = self.owed.front() else {
                    let why = format!("answered for {}, a reply it was not asked about (it owed none)", js_shown(&id));
                    return self.fail(why);
                };
                if JsString::from(next.as_str()) != id {
                    let why = if self.owed.iter().any(|o| JsString::from(o.as_str()) == id) {
                        format!(
                            "answered reply {} where reply {} was next (answers come in the order asked)",
                            js_shown(&id),
                            shown(next)
                        )
                    } else {
                        format!(
                            "answered for {}, a reply it was not asked about, where reply {} was next",
                            js_shown(&id),
                            shown(next)
                        )
                    };
                    return self.fail(why);
                }
                let id = self.owed.pop_front().unwrap_or_default();
                let given = self.spec.caller.read(answer);
                if let Given::Failed(why) = &given {
                    let fault = Fault::Reply { reply: id, why: why.to_string() };
                    self.problems.push(ReaderProblem::new(self.reader, &self.name, fault));
                }
                self.answers.push_back(given);
            }
            // Only an adapter's first line is read as a handshake, and it is waited for.
            Output::Handshake(_) => {}
            Output::Line(Line::Bad(what)) => {
                let why = match self.owed.front() {
                    Some(next) => format!("printed {what} where the answer for reply {} was next", shown(next)),
                    None => format!("printed {what} when it owed no answer"),
                };
                self.fail(why);
            }
            Output::End(error) => {
                if self.failed.is_some() || self.process.is_none() {
                    return;
                }
                let Some(mut p) = self.process.take() else { return };
                let hung = self.shared.hung.load(Ordering::Relaxed);
                let status = exit_status(&mut p, if hung { Duration::ZERO } else { EXIT_GRACE / 4 });
                let how = if hung {
                    format!(
                        "stopped after {} without taking input or answering (--reader-timeout)",
                        seconds(self.spec.timeout)
                    )
                } else if let Some(e) = error {
                    format!("its output could not be read ({e}); stopped")
                } else {
                    status.text
                };
                match self.owed.front() {
                    Some(next) => {
                        let why = format!("{how} before it answered reply {}", shown(next));
                        self.fail(why);
                    }
                    None if self.closed => {
                        if !status.success {
                            let why = format!("{how} after its last answer");
                            self.problems.push(self.diagnostic(&why));
                        }
                    }
                    None => self.ended = Some(how),
                }
            }
        }
    }

    /// The problem of a reader that ended or failed: why, the likely fix where its stderr
    /// tells (the child has ended, so its log is whole), and where its stderr is.
    fn diagnostic(&self, why: &str) -> ReaderProblem {
        let log = self.spec.log.clone();
        let fix = log.as_deref().and_then(|l| stderr::likely_fix(&stderr::tail(l, TAIL).join("\n")));
        ReaderProblem::new(self.reader, &self.name, Fault::Stopped { why: why.to_owned(), fix, log })
    }

    /// Fails the session for good: one diagnostic; what it owed and every later reply get
    /// `why`; the child is stopped.
    fn fail(&mut self, why: String) {
        if self.failed.is_some() {
            return;
        }
        if let Some(mut p) = self.process.take() {
            exit_status(&mut p, Duration::ZERO);
        }
        self.problems.push(self.diagnostic(&why));
        let given: Arc<str> = Arc::from(format!("reader failed: {why}"));
        self.answers.extend(self.owed.drain(..).map(|_| Given::Failed(given.clone())));
        self.failed = Some(given);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.input = None;
            exit_status(&mut p, Duration::ZERO);
        }
    }
}

/// How a child ended, in words.
struct Ended {
    success: bool,
    /// It had not exited in its time: it was stopped.
    stopped: bool,
    text: String,
}

/// Waits up to `grace` for the child to exit, then stops its process group; reaps it.
fn exit_status(p: &mut Process, grace: Duration) -> Ended {
    p.input = None;
    let until = Instant::now() + grace;
    let mut status = p.child.try_wait().ok().flatten();
    while status.is_none() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
        status = p.child.try_wait().ok().flatten();
    }
    // The watchdog first, so nothing signals the group after its leader is reaped.
    if let Some((stop, handle)) = p.watchdog.take() {
        drop(stop);
        let _ = handle.join();
    }
    let stopped = status.is_none();
    // The whole group: `sh -c` may have started the reader as a child of its own.
    kill_group(&mut p.child);
    let status = match status {
        Some(s) => Some(s),
        None => p.child.wait().ok(),
    };
    match status {
        _ if stopped => Ended { success: false, stopped, text: "did not exit; stopped".to_owned() },
        Some(s) if s.success() => Ended { success: true, stopped, text: "exited with status 0".to_owned() },
        Some(s) => Ended { success: false, stopped, text: describe_status(s) },
        None => Ended { success: false, stopped, text: "ended".to_owned() },
    }
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

#[cfg(unix)]
fn kill_group(child: &mut Child) {
    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;
    if let Ok(pid) = i32::try_from(child.id()) {
        // The group may be gone already; then there is nothing to stop.
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

#[cfg(not(unix))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
}

fn spawn(spec: &Spec, shared: &Arc<Shared>) -> io::Result<Process> {
    let mut command = std::process::Command::new("sh");
    match &spec.launch {
        Launch::Shell(line) => command.arg("-c").arg(line),
        // The program and its arguments as the script's parameters: nothing to quote.
        Launch::Adapter(a) => {
            command.arg("-c").arg(Adapter::shell_script()).arg("bracewalk-reader").arg(&a.program).args(&a.args)
        }
    };
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    command.stderr(match &spec.log {
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
    let mut child = command.spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(io::Error::other("its pipes could not be opened"));
    };
    shared.alive();
    let (input, chunks) = mpsc::channel();
    let (lines, output) = mpsc::channel();
    let (stop, stopped) = mpsc::channel();
    let handshake = matches!(spec.launch, Launch::Adapter(_));
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
        let timeout = spec.timeout;
        let pid = child.id();
        std::thread::Builder::new()
            .name("bracewalk-reader-watch".into())
            .spawn(move || watch(&stopped, &s, timeout, pid))
    })();
    match spawned {
        Ok(handle) => Ok(Process { child, input: Some(input), output, watchdog: Some((stop, handle)) }),
        Err(e) => {
            kill_group(&mut child);
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
            #[cfg(unix)]
            if let Ok(pid) = i32::try_from(pid) {
                let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
            }
            #[cfg(not(unix))]
            let _ = pid;
            return;
        }
    }
}

fn seconds(d: Duration) -> String {
    if d < Duration::from_secs(10) { format!("{:.1} s", d.as_secs_f64()) } else { format!("{} s", d.as_secs()) }
}

/// A reply id as a message shows it.
fn shown(id: &str) -> String {
    visible(&crate::visible::clip(id, 120), false)
}

fn js_shown(id: &JsString) -> String {
    format!("{:?}", shown(&id.to_string_lossy()))
}

/// A message from a runner in one line: its lines joined, clipped.
fn one_line(message: &str) -> String {
    let joined: Vec<&str> = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    visible(&crate::visible::clip(&joined.join(" "), 400), false)
}

fn clipped(command: &str) -> String {
    visible(&crate::visible::clip(command, 120), false)
}
