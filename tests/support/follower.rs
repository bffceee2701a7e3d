//! The inspector's follower as the event loop meets it: the real follower ([`watch::run`])
//! on a thread over a directory, everything it sends applied to a real [`State`] through
//! `update`, one message at a time. With readings, the real readings thread runs beside it,
//! reading the replies that arrive and those the update asks to be read again, its facts
//! applied the same way. Waits poll for a condition with a generous deadline; nothing asserts
//! on how long anything took.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use bracewalk::logs::{LoadOptions, Loader};
use bracewalk::tui::marks::Mark;
use bracewalk::tui::message::WatchState;
use bracewalk::tui::readings::{self, InFlight, ReadJob};
use bracewalk::tui::watch::{self, Intake, WatchMode};
use bracewalk::tui::{Effect, Msg, State, update};

/// Long enough for a loaded 2-core machine; a passing test never waits this long.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// The follower on a thread, and the state its messages build.
pub struct Follower {
    pub mode: WatchMode,
    pub root: PathBuf,
    rx: Receiver<Msg>,
    /// Where replies to read again go, when the readings thread runs.
    reads: Option<Sender<ReadJob>>,
    pub state: State,
    /// How many times the follower has reported having looked (each look ends with its
    /// progress report).
    pub looks: usize,
    /// The marks the update last asked to be saved.
    pub saved_marks: Option<Vec<Mark>>,
}

impl Follower {
    /// Starts following `root` and waits until the first load is in and watching has begun.
    /// Readings are not what such a test is about: their receiver is dropped, and the
    /// follower does not mind.
    pub fn start(root: &Path, mode: WatchMode) -> Follower {
        Follower::spawn(root, mode, false)
    }

    /// [`Follower::start`], with the readings thread reading every reply.
    pub fn with_readings(root: &Path, mode: WatchMode) -> Follower {
        Follower::spawn(root, mode, true)
    }

    fn spawn(root: &Path, mode: WatchMode, read: bool) -> Follower {
        let (ui, rx) = mpsc::channel();
        let (reads, read_rx) = mpsc::channel();
        let in_flight = Arc::new(InFlight::default());
        let state = State::new(vec![root.to_path_buf()], Default::default(), (200, 30));
        let reads = if read {
            let (to_ui, config, in_flight) = (ui.clone(), state.config.clone(), in_flight.clone());
            std::thread::spawn(move || {
                let loader = Loader::new(LoadOptions::default());
                readings::run(&read_rx, &to_ui, &config, &loader, &in_flight);
            });
            Some(reads.clone())
        } else {
            None
        };
        let roots = vec![root.to_path_buf()];
        let intake = Intake::new(ui, reads.clone().unwrap_or(reads_dropped()), in_flight);
        std::thread::spawn(move || watch::run(roots, LoadOptions::default(), mode, intake));
        let mut f = Follower { mode, root: root.to_path_buf(), rx, reads, state, looks: 0, saved_marks: None };
        f.until("watching to begin", |s| {
            s.loading.progress.done && matches!(s.loading.watch, WatchState::Native | WatchState::Polling(_))
        });
        f
    }

    /// Applies every message waiting, one at a time, as the event loop does, and carries out
    /// what the update asks of the readings thread and of the marks file.
    pub fn pump(&mut self) {
        while let Ok(msg) = self.rx.try_recv() {
            if matches!(msg, Msg::Progress(_)) {
                self.looks += 1;
            }
            let fx = update(&mut self.state, msg);
            self.effects(fx);
        }
    }

    /// Carries out the effects a test cares about: replies read again, marks saved.
    pub fn effects(&mut self, fx: Vec<Effect>) {
        for e in fx {
            match e {
                Effect::Reread { key, locator, stopped } => {
                    if let Some(reads) = &self.reads {
                        let _ = reads.send(ReadJob { key, locator, text: None, stopped });
                    }
                }
                Effect::SaveMarks(marks) => self.saved_marks = Some(marks),
                _ => {}
            }
        }
    }

    /// Waits until `ok` holds of the state, or fails saying what was awaited.
    pub fn until(&mut self, what: &str, ok: impl Fn(&State) -> bool) {
        let start = Instant::now();
        loop {
            self.pump();
            if ok(&self.state) {
                return;
            }
            if start.elapsed() > DEADLINE {
                panic!("{:?}: waited {DEADLINE:?} for {what}; the list holds:\n{}", self.mode, listing(&self.state));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the follower has looked `n` more times.
    pub fn looked(&mut self, n: usize) {
        let target = self.looks + n;
        let start = Instant::now();
        while self.looks < target {
            assert!(start.elapsed() < DEADLINE, "{:?}: did not look again within {DEADLINE:?}", self.mode);
            std::thread::sleep(Duration::from_millis(10));
            self.pump();
        }
    }
}

/// A sender whose receiver is gone.
fn reads_dropped() -> Sender<ReadJob> {
    mpsc::channel().0
}

/// The first entries of the list, for a failure's message.
pub fn listing(s: &State) -> String {
    let all: Vec<String> = s
        .list
        .entries()
        .iter()
        .take(40)
        .map(|e| format!("  {}{} {:?}", e.reference(), if e.gone { " (gone)" } else { "" }, e.text().map(|t| t.len)))
        .collect();
    format!("{} entries, watch {:?}\n{}", s.list.entries().len(), s.loading.watch, all.join("\n"))
}
