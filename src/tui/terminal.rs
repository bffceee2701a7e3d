//! The terminal the inspector draws on, given back whole however it ends: raw mode, the
//! alternate screen and mouse reports entered and left once (a guard's `Drop`, a panic
//! hook on any thread, a suspension for the user's editor), the signals that stop it, and
//! the watchdog that ends it when its terminal goes away.

use std::io::{self, Write};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use signal_hook::SigId;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use super::message::Msg;

/// The signals that stop the inspector, and what they have done.
///
/// Each notes its number for the loop to end on, and the first makes a second SIGINT or
/// SIGTERM end the process at once, with 128 + its number, from a thread of its own that
/// stops the readers of one's own first: a loop stuck in work (or a bug) never looks at the
/// note, and the user's second Ctrl-C, or a supervisor's second TERM, must not be ignored as
/// the first was. That exit gives back no terminal, which may be left raw (`reset` mends
/// it): the accepted meaning of a second signal. (After SIGHUP there is no terminal, and the
/// hang-up watchdog ends the process; a signal after it ends it at once.)
pub(super) struct StopSignals {
    /// The number of the last signal that asked the inspector to stop; 0 for none.
    stop: Arc<AtomicUsize>,
    /// SIGINT's handler, taken down while another program has the terminal.
    interrupt: Vec<SigId>,
    /// Another program has the terminal: SIGINT is its.
    lent: Arc<AtomicBool>,
}

impl StopSignals {
    pub(super) fn register() -> io::Result<StopSignals> {
        let mut this = StopSignals {
            stop: Arc::new(AtomicUsize::new(0)),
            interrupt: Vec::new(),
            lent: Arc::new(AtomicBool::new(false)),
        };
        this.register_one(SIGTERM)?;
        this.register_one(SIGHUP)?;
        this.interrupt = this.register_one(SIGINT)?;
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        let lent = this.lent.clone();
        std::thread::Builder::new().name("bracewalk-stop".into()).spawn(move || {
            let mut asked = false;
            for signal in signals.forever() {
                if signal == SIGINT && lent.load(Ordering::Relaxed) {
                    continue;
                }
                if asked && signal != SIGHUP {
                    crate::readers::supervisor::stop_all();
                    std::process::exit(128 + signal);
                }
                asked = true;
            }
        })?;
        Ok(this)
    }

    fn register_one(&self, signal: i32) -> io::Result<Vec<SigId>> {
        Ok(vec![signal_hook::flag::register_usize(signal, self.stop.clone(), signal as usize)?])
    }

    /// The signal that asked the inspector to stop, if one has.
    pub(super) fn received(&self) -> Option<i32> {
        match self.stop.load(Ordering::Relaxed) {
            0 => None,
            n => Some(i32::try_from(n).unwrap_or(i32::MAX)),
        }
    }

    /// Runs `f` (another program in the foreground) with SIGINT left to that program, as
    /// `system(3)` does: Ctrl-C in `less` cancels a search, and must neither stop the
    /// inspector afterwards nor, pressed twice, end it under the pager.
    pub(super) fn without_interrupt<T>(&mut self, f: impl FnOnce() -> T) -> io::Result<T> {
        self.lent.store(true, Ordering::Relaxed);
        for id in self.interrupt.drain(..) {
            // The handler stays (the thread's) and does nothing with it, so SIGINT is
            // ignored meanwhile.
            signal_hook::low_level::unregister(id);
        }
        let out = f();
        self.interrupt = self.register_one(SIGINT)?;
        self.lent.store(false, Ordering::Relaxed);
        Ok(out)
    }
}

/// Ends the process when its terminal goes away (the window closed, the tmux session killed,
/// the ssh connection dropped). A hung-up terminal reads as endless end-of-file, and
/// crossterm's reader loops on that inside `poll` without returning, so the event loop never
/// gets to look; SIGHUP does not always reach a process started through a shell either. A
/// watchdog thread asks the kernel instead: `/dev/tty` cannot be opened once the session has
/// lost its terminal. There is no terminal left to restore, so it exits at once (status 129,
/// as for SIGHUP).
pub(super) fn watch_for_hangup() -> io::Result<()> {
    std::thread::Builder::new().name("bracewalk-hangup".into()).spawn(|| {
        loop {
            std::thread::sleep(Duration::from_millis(500));
            if let Err(e) = std::fs::File::open("/dev/tty")
                && (e.raw_os_error() == Some(6) || e.kind() == io::ErrorKind::NotFound)
            {
                crate::readers::supervisor::stop_all();
                std::process::exit(129);
            }
        }
    })?;
    Ok(())
}

pub(super) type Term = Terminal<CrosstermBackend<io::Stdout>>;

/// Suspends the inspector, runs `$EDITOR` (or `$PAGER`, or `less`) on the file at a line,
/// and comes back.
pub(super) fn open_external(
    path: &Path,
    line: usize,
    terminal: &mut Term,
    signals: &mut StopSignals,
) -> io::Result<Msg> {
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

pub(super) fn enter() -> io::Result<()> {
    // Set first, so a failure half-way is undone too.
    ENTERED.store(true, Ordering::SeqCst);
    terminal::enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
}

pub(super) fn leave(out: &mut impl Write) -> io::Result<()> {
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
pub(super) struct Restore;

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
pub(super) fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let mut out = io::stdout().lock();
        let _ = leave(&mut out);
        previous(info);
        std::process::exit(101);
    }));
}
