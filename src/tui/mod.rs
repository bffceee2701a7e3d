//! The inspector: a keyboard-driven terminal view of run logs, every candidate's readings
//! side by side, the deciding gate marked, the logs watched live.
//!
//! It is built the way the ratatui applications worth copying are built. [`State`] holds
//! everything shown; [`update()`] is the only thing that changes it, one [`Msg`] at a time,
//! and hands back [`Effect`]s for the loop to carry out; [`view::render`] draws a frame from
//! the state and nothing else. Loading, reading and watching run on threads ([`worker`],
//! [`watch`]) that report through one channel; the loop drains it after the keys waiting,
//! then draws once, so a keystroke never waits on analysis. Keys are data ([`keymap`]), and
//! the help screen is generated from them.
//!
//! The terminal is restored however the inspector ends: on quit, on an error (a guard's
//! `Drop`), on a panic on any thread (a hook installed before raw mode is entered, which
//! also ends the process), on SIGINT, SIGTERM and SIGHUP (a flag the loop checks). After a
//! signal the exit status is 128 + its number, as a shell reports a process a signal ended;
//! a second SIGINT or SIGTERM ends the process at once, should the loop be stuck.

pub mod analysis;
pub mod badges;
mod index;
pub mod keymap;
pub mod layout;
pub mod look;
pub mod marks;
mod order;
pub mod state;
pub mod summary;
pub mod tree;
pub mod update;
pub mod view;
pub mod watch;
pub mod worker;
pub mod wrap;

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crossterm::clipboard::CopyToClipboard;
use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::execute;
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use signal_hook::SigId;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use crate::runlog::LoadOptions;

pub use state::State;
pub use update::{Effect, Msg, update};
pub use watch::WatchMode;

/// How the inspector runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub load: LoadOptions,
    pub watch: WatchMode,
    /// The marks file (default: [`marks::default_path`]).
    pub marks: Option<PathBuf>,
}

/// At most this many channel messages are applied between two frames, so a flood of
/// loaded replies cannot hold keys back.
const MESSAGES_PER_FRAME: usize = 64;

/// How the inspector ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit (`q`, or Ctrl-C typed, which raw mode makes a key).
    Quit,
    /// A signal asked it to stop: the signal's number.
    Signal(i32),
}

impl Ended {
    /// The exit status: 0 after a quit, 128 + the signal's number after a signal (130 for
    /// SIGINT, 143 for SIGTERM, 129 for SIGHUP), as shells and the tools users compare us
    /// with report it, so a script can tell an interrupted inspector from one the user left.
    pub fn status(self) -> u8 {
        match self {
            Ended::Quit => 0,
            Ended::Signal(n) => u8::try_from(128 + n).unwrap_or(u8::MAX),
        }
    }
}

/// The signals that stop the inspector, and what they have done.
///
/// Each notes its number for the loop to end on, and the first arms a second SIGINT or
/// SIGTERM to end the process at once, with 128 + its number, from the handler: a loop stuck
/// in work (or a bug) never looks at the note, and the user's second Ctrl-C, or a
/// supervisor's second TERM, must not be ignored as the first was. That exit runs no
/// destructor, so the terminal may be left raw (`reset` mends it): the accepted meaning of a
/// second signal.
struct StopSignals {
    /// The number of the last signal that asked the inspector to stop; 0 for none.
    stop: Arc<AtomicUsize>,
    armed: Arc<AtomicBool>,
    /// SIGINT's handlers, taken down while another program has the terminal.
    interrupt: Vec<SigId>,
}

impl StopSignals {
    fn register() -> io::Result<StopSignals> {
        let mut this = StopSignals {
            stop: Arc::new(AtomicUsize::new(0)),
            armed: Arc::new(AtomicBool::new(false)),
            interrupt: Vec::new(),
        };
        this.register_one(SIGTERM)?;
        this.register_one(SIGHUP)?;
        this.interrupt = this.register_one(SIGINT)?;
        Ok(this)
    }

    fn register_one(&self, signal: i32) -> io::Result<Vec<SigId>> {
        let mut ids = Vec::new();
        if signal != SIGHUP {
            // First, so that the first signal finds it not yet armed. (After SIGHUP there is
            // no terminal, and the hang-up watchdog ends the process.)
            ids.push(signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, self.armed.clone())?);
        }
        ids.push(signal_hook::flag::register(signal, self.armed.clone())?);
        ids.push(signal_hook::flag::register_usize(signal, self.stop.clone(), signal as usize)?);
        Ok(ids)
    }

    /// The signal that asked the inspector to stop, if one has.
    fn received(&self) -> Option<i32> {
        match self.stop.load(Ordering::Relaxed) {
            0 => None,
            n => Some(i32::try_from(n).unwrap_or(i32::MAX)),
        }
    }

    /// Runs `f` (another program in the foreground) with SIGINT left to that program, as
    /// `system(3)` does: Ctrl-C in `less` cancels a search, and must neither stop the
    /// inspector afterwards nor, pressed twice, end it under the pager.
    fn without_interrupt<T>(&mut self, f: impl FnOnce() -> T) -> io::Result<T> {
        for id in self.interrupt.drain(..) {
            // With no action left the handler stays and does nothing (signal-hook does not
            // put the default back), so SIGINT is ignored meanwhile.
            signal_hook::low_level::unregister(id);
        }
        let out = f();
        self.interrupt = self.register_one(SIGINT)?;
        Ok(out)
    }
}

/// Opens the inspector on `paths` and runs it until the user quits or a signal stops it;
/// returns which, once the terminal is restored.
pub fn run(paths: Vec<PathBuf>, opts: Options) -> io::Result<Ended> {
    let started = Instant::now();
    if !io::stdout().is_terminal() {
        return Err(io::Error::other(
            "the inspector needs a terminal; `bracewalk list PATH` prints the replies instead",
        ));
    }
    let marks_path = opts.marks.clone().or_else(marks::default_path);
    let (marks, bad_marks) = match &marks_path {
        Some(p) => marks::load(p).unwrap_or_default(),
        None => Default::default(),
    };
    let mut signals = StopSignals::register()?;
    install_panic_hook();
    let _restore = Restore;
    enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    let size = terminal.size()?;
    let mut state = State::new(paths.clone(), marks, (size.width, size.height));
    if bad_marks > 0 {
        state.flash = Some(format!("{bad_marks} unreadable lines in the marks file were skipped"));
    }
    if marks_path.is_none() {
        state.flash = Some("no state directory (set BRACEWALK_STATE_DIR): marks will not be kept".to_owned());
    }
    let mut timings = Timings::from_env();
    // The first frame, before any file is opened.
    terminal.draw(|f| view::render(&state, f))?;
    timings.note("first-frame", started);

    let (tx, rx) = mpsc::channel::<Msg>();
    let worker = worker::Worker::start(paths, opts.load, opts.watch, state.config.clone(), tx)?;
    let mut loaded_noted = false;
    let debug_panic = std::env::var("BRACEWALK_DEBUG_PANIC").ok();
    let debug_hang = std::env::var_os("BRACEWALK_DEBUG_HANG").is_some();
    watch_for_hangup()?;
    loop {
        let busy = !state.progress.done || state.wanted.is_some();
        let timeout = if busy { Duration::from_millis(25) } else { Duration::from_millis(200) };
        let mut msgs = Vec::new();
        let mut key_at = None;
        if event::poll(timeout)? {
            key_at = Some(Instant::now());
            loop {
                if let Some(m) = from_terminal(event::read()?) {
                    if let (Msg::Key(_), Some(place)) = (&m, &debug_panic) {
                        debug_panic_now(place)?;
                    }
                    if matches!(m, Msg::Key(_)) && debug_hang {
                        debug_hang_now();
                    }
                    msgs.push(m);
                }
                if !event::poll(Duration::ZERO)? {
                    break;
                }
            }
        }
        for _ in 0..MESSAGES_PER_FRAME {
            match rx.try_recv() {
                Ok(m) => msgs.push(m),
                Err(_) => break,
            }
        }
        if signals.received().is_some() {
            msgs.push(Msg::Quit);
        }
        if msgs.is_empty() {
            continue;
        }
        for m in msgs {
            for effect in update(&mut state, m) {
                if let Some(m) = carry_out(effect, &worker, &marks_path, &mut terminal, &mut signals)? {
                    update(&mut state, m);
                }
            }
        }
        if state.quit {
            break;
        }
        terminal.draw(|f| view::render(&state, f))?;
        if let Some(at) = key_at {
            timings.note("key", at);
        }
        if state.progress.done && !loaded_noted {
            loaded_noted = true;
            timings.note("loaded", started);
        }
        if loaded_noted && timings.pending_summaries && state.entries.iter().all(|e| !e.is_reply() || e.facts.is_some())
        {
            timings.pending_summaries = false;
            timings.note("summarized", started);
        }
    }
    Ok(signals.received().map_or(Ended::Quit, Ended::Signal))
}

/// Ends the process when its terminal goes away (the window closed, the tmux session killed,
/// the ssh connection dropped). A hung-up terminal reads as endless end-of-file, and
/// crossterm's reader loops on that inside `poll` without returning, so the event loop never
/// gets to look; SIGHUP does not always reach a process started through a shell either. A
/// watchdog thread asks the kernel instead: `/dev/tty` cannot be opened once the session has
/// lost its terminal. There is no terminal left to restore, so it exits at once (status 129,
/// as for SIGHUP).
fn watch_for_hangup() -> io::Result<()> {
    std::thread::Builder::new().name("bracewalk-hangup".into()).spawn(|| {
        loop {
            std::thread::sleep(Duration::from_millis(500));
            if let Err(e) = std::fs::File::open("/dev/tty")
                && (e.raw_os_error() == Some(6) || e.kind() == io::ErrorKind::NotFound)
            {
                std::process::exit(129);
            }
        }
    })?;
    Ok(())
}

/// A test hook, not a feature (so not in `--help`): with `BRACEWALK_DEBUG_PANIC` set, a key
/// press panics on the event loop (`=thread`: on a thread of its own), when the terminal is
/// raw, on the alternate screen and reporting the mouse, so `tests/terminal_restore.rs` can
/// check that a panic gives the terminal back.
#[allow(clippy::panic, reason = "the panic is the point of this test hook")]
fn debug_panic_now(place: &str) -> io::Result<()> {
    if place == "thread" {
        std::thread::Builder::new()
            .name("bracewalk-debug-panic".into())
            .spawn(|| panic!("BRACEWALK_DEBUG_PANIC: a deliberate panic on a thread"))?;
        return Ok(());
    }
    panic!("BRACEWALK_DEBUG_PANIC: a deliberate panic on the event loop")
}

/// A test hook like the one above: with `BRACEWALK_DEBUG_HANG` set, a key press stalls the
/// event loop for a minute, so `tests/terminal_restore.rs` can check that a second signal
/// ends an inspector whose loop cannot see the first.
fn debug_hang_now() {
    std::thread::sleep(Duration::from_secs(60));
}

fn from_terminal(ev: Event) -> Option<Msg> {
    match ev {
        Event::Key(k) if k.kind != event::KeyEventKind::Release => Some(Msg::Key(k)),
        Event::Mouse(m) => Some(Msg::Mouse(m)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        _ => None,
    }
}

type Term = Terminal<CrosstermBackend<io::Stdout>>;

/// Does what `update` asked; what came of it, if the user should hear, as a message.
fn carry_out(
    effect: Effect,
    worker: &worker::Worker,
    marks_path: &Option<PathBuf>,
    terminal: &mut Term,
    signals: &mut StopSignals,
) -> io::Result<Option<Msg>> {
    Ok(match effect {
        Effect::Detail { key, text, cut } => {
            worker.detail(key, text, cut);
            None
        }
        Effect::SaveMarks(list) => match marks_path {
            Some(p) => {
                marks::save(p, &list).err().map(|e| Msg::Flash(format!("could not save marks to {}: {e}", p.display())))
            }
            None => Some(Msg::Flash("no state directory: marks are not kept".to_owned())),
        },
        Effect::Yank(text) => {
            execute!(io::stdout(), CopyToClipboard::to_clipboard_from(text))?;
            None
        }
        Effect::Open { path, line } => Some(open_external(&path, line, terminal, signals)?),
    })
}

/// Suspends the inspector, runs `$EDITOR` (or `$PAGER`, or `less`) on the file at a line,
/// and comes back.
fn open_external(path: &Path, line: usize, terminal: &mut Term, signals: &mut StopSignals) -> io::Result<Msg> {
    let (program, pager) = match (std::env::var("EDITOR"), std::env::var("PAGER")) {
        (Ok(e), _) if !e.trim().is_empty() => (e, false),
        (_, Ok(p)) if !p.trim().is_empty() => (p, true),
        _ => ("less".to_owned(), true),
    };
    let mut words = program.split_whitespace();
    let Some(cmd) = words.next() else { return Ok(Msg::Flash("no $EDITOR or $PAGER".to_owned())) };
    let mut command = Command::new(cmd);
    command.args(words);
    let name = Path::new(cmd).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match name.as_str() {
        "less" if pager => command.arg(format!("+{line}g")),
        "code" | "codium" => command.arg("--goto").arg(format!("{}:{line}", path.display())),
        "hx" | "helix" | "subl" | "zed" => command.arg(format!("{}:{line}", path.display())),
        _ => command.arg(format!("+{line}")),
    };
    if !matches!(name.as_str(), "code" | "codium" | "hx" | "helix" | "subl" | "zed") {
        command.arg(path);
    }
    leave(&mut io::stdout())?;
    let status = signals.without_interrupt(|| command.status())?;
    enter()?;
    terminal.clear()?;
    Ok(Msg::Flash(match status {
        Ok(s) if s.success() => format!("back from {name}"),
        Ok(s) => format!("{name} exited with {s}"),
        Err(e) => format!("could not run {cmd}: {e}"),
    }))
}

/// Whether the terminal is the inspector's (raw, alternate screen, mouse reported). The guard,
/// the panic hook and a suspension for the editor all give it back, the hook on whichever
/// thread panicked, and only the first may: a second LeaveAlternateScreen moves the cursor
/// back to where the inspector started, and the shell then writes over what was printed since,
/// such as a panic's report.
static ENTERED: AtomicBool = AtomicBool::new(false);

fn enter() -> io::Result<()> {
    // Set first, so a failure half-way is undone too.
    ENTERED.store(true, Ordering::SeqCst);
    terminal::enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
}

fn leave(out: &mut impl Write) -> io::Result<()> {
    if !ENTERED.swap(false, Ordering::SeqCst) {
        return Ok(());
    }
    let mouse = execute!(out, DisableMouseCapture);
    let screen = execute!(out, LeaveAlternateScreen, crossterm::cursor::Show);
    let raw = terminal::disable_raw_mode();
    let _ = out.flush();
    mouse.and(screen).and(raw)
}

/// Restores the terminal when dropped, however the loop ended.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = leave(&mut io::stdout());
    }
}

/// Restores the terminal before a panic's report is printed, so the report is readable and
/// the shell usable, then ends the process with 101, as a panicking main thread would. A
/// panic anywhere ends it: a worker that died alone would leave the loop drawing on the
/// terminal just given back and waiting for results that never come. Standard output stays
/// locked to the end, so the loop cannot draw over the report meanwhile.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let mut out = io::stdout().lock();
        let _ = leave(&mut out);
        previous(info);
        std::process::exit(101);
    }));
}

/// Latency measurements, written where `BRACEWALK_TIMINGS` names (for benchmarking the
/// inspector on a large campaign; never beside the logs unless asked).
struct Timings {
    out: Option<std::fs::File>,
    pending_summaries: bool,
}

impl Timings {
    fn from_env() -> Timings {
        let out = std::env::var_os("BRACEWALK_TIMINGS")
            .and_then(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).ok());
        Timings { pending_summaries: out.is_some(), out }
    }

    fn note(&mut self, what: &str, since: Instant) {
        if let Some(f) = &mut self.out {
            let _ = writeln!(f, "{what} {}", since.elapsed().as_micros());
        }
    }
}
