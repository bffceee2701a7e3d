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

pub mod badges;
mod debug;
pub mod documents;
pub mod entry;
pub mod input;
pub mod keymap;
pub mod layout;
pub mod list;
pub mod loading;
pub mod look;
pub mod marks;
pub mod message;
pub mod readings;
pub mod reply;
pub mod rounds;
pub mod shrank;
pub mod state;
pub mod summary;
mod terminal;
pub mod tree;
pub mod update;
pub mod view;
pub mod watch;
pub mod worker;
pub mod wrap;
use std::collections::VecDeque;
use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crossterm::clipboard::CopyToClipboard;
use crossterm::event::{self, Event};
use crossterm::execute;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::logs::LoadOptions;

use terminal::{Restore, StopSignals, Term, enter, install_panic_hook, open_external, watch_for_hangup};

pub use message::{Effect, Msg};
pub use state::State;
pub use update::update;
pub use watch::WatchMode;

/// How the inspector runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub load: LoadOptions,
    pub watch: WatchMode,
    /// The marks file (default: [`marks::default_path`]).
    pub marks: Option<PathBuf>,
    /// What is read and compared: the readers, reader commands included.
    pub config: crate::analysis::Config,
    /// The query the list opens with (`--filter`), already checked.
    pub query: Option<String>,
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
    state.set_config(opts.config);
    let mut notices = Vec::new();
    if bad_marks > 0 {
        notices.push(format!("{bad_marks} unreadable lines in the marks file were skipped"));
    }
    if marks_path.is_none() {
        notices.push("no state directory (set BRACEWALK_STATE_DIR): marks will not be kept".to_owned());
    }
    // Nothing is loaded yet: replies are searched for the query as they arrive, and what the
    // start asks for is done once the threads run.
    let asked = update(&mut state, Msg::Start { query: opts.query, notices });
    let mut timings = debug::Timings::from_env();
    // The first frame, before any file is opened.
    terminal.draw(|f| view::render(&state, f))?;
    timings.note("first-frame", started);

    let (tx, rx) = mpsc::channel::<Msg>();
    let worker = worker::Worker::start(paths, opts.load, opts.watch, state.config.clone(), tx)?;
    let effects = Effects { worker: &worker, marks: &marks_path };
    effects.carry_out(&mut state, asked, &mut terminal, &mut signals)?;
    let mut loaded_noted = false;
    let hooks = debug::Hooks::from_env();
    watch_for_hangup()?;
    loop {
        let busy = !state.loading.progress.done || state.reply.wanted.is_some();
        let timeout = if busy { Duration::from_millis(25) } else { Duration::from_millis(200) };
        let mut msgs = Vec::new();
        let mut key_at = None;
        if event::poll(timeout)? {
            key_at = Some(Instant::now());
            loop {
                if let Some(m) = from_terminal(event::read()?) {
                    if matches!(m, Msg::Key(_)) {
                        hooks.on_key()?;
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
            let asked = update(&mut state, m);
            effects.carry_out(&mut state, asked, &mut terminal, &mut signals)?;
        }
        if state.quit {
            break;
        }
        terminal.draw(|f| view::render(&state, f))?;
        if let Some(at) = key_at {
            timings.note("key", at);
        }
        if state.loading.progress.done && !loaded_noted {
            loaded_noted = true;
            timings.note("loaded", started);
        }
        if loaded_noted
            && timings.pending_summaries
            && state.list.entries().iter().all(|e| !e.is_reply() || e.facts.is_some())
        {
            timings.pending_summaries = false;
            timings.note("summarized", started);
        }
    }
    Ok(signals.received().map_or(Ended::Quit, Ended::Signal))
}
fn from_terminal(ev: Event) -> Option<Msg> {
    match ev {
        Event::Key(k) if k.kind != event::KeyEventKind::Release => Some(Msg::Key(k)),
        Event::Mouse(m) => Some(Msg::Mouse(m)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        _ => None,
    }
}
/// What carries out the effects `update` asks for.
struct Effects<'a> {
    worker: &'a worker::Worker,
    /// Where the marks are saved.
    marks: &'a Option<PathBuf>,
}

impl Effects<'_> {
    /// Does what `update` asked, in order; what comes of an effect that the user should hear
    /// of goes through `update` in turn, and what that asks for is done too.
    fn carry_out(
        &self,
        state: &mut State,
        asked: Vec<Effect>,
        terminal: &mut Term,
        signals: &mut StopSignals,
    ) -> io::Result<()> {
        let mut queue = VecDeque::from(asked);
        while let Some(effect) = queue.pop_front() {
            if let Some(m) = self.one(effect, terminal, signals)? {
                queue.extend(update(state, m));
            }
        }
        Ok(())
    }

    /// Does one effect; what came of it, if the user should hear, as a message.
    fn one(&self, effect: Effect, terminal: &mut Term, signals: &mut StopSignals) -> io::Result<Option<Msg>> {
        let (worker, marks_path) = (self.worker, self.marks);
        Ok(match effect {
            Effect::Detail(job) => {
                worker.detail(job);
                None
            }
            Effect::Search(job) => {
                worker.search(job);
                None
            }
            Effect::Reread { key, locator, stopped } => {
                worker.reread(key, locator, stopped);
                None
            }
            Effect::SaveMarks(list) => match marks_path {
                Some(p) => marks::save(p, &list)
                    .err()
                    .map(|e| Msg::Flash(format!("could not save marks to {}: {e}", p.display()))),
                None => Some(Msg::Flash("no state directory: marks are not kept".to_owned())),
            },
            Effect::Yank(text) => {
                execute!(io::stdout(), CopyToClipboard::to_clipboard_from(text))?;
                None
            }
            Effect::Open { path, line } => Some(open_external(&path, line, terminal, signals)?),
        })
    }
}
