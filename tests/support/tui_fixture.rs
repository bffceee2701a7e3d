//! Building inspector states for tests, without a terminal or threads: entries go in as the
//! loader would send them, facts and records are made on the spot by the worker's own
//! functions (as its threads would make them), and frames are drawn into ratatui's
//! `TestBackend`.

use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

use bracewalk::analysis::detail;
use bracewalk::logs::{Diagnostic, Format, Item, Meta, Problem, Reply, StopReason};
use bracewalk::readers::{Given, ReaderId};
use bracewalk::tui::entry::Entry;
use bracewalk::tui::message::Read;
use bracewalk::tui::message::{Incoming, LoadProgress};
use bracewalk::tui::state::Pane;
use bracewalk::tui::{Effect, Msg, State, update, view};

/// A reply in a run log: `run-1/log.jsonl:LINE`.
pub fn reply(line: usize, agent: &str, page: u32, text: &str) -> Item {
    let source = PathBuf::from("logs/run-1/log.jsonl");
    let mut meta = Meta::new(Format::RunLog);
    meta.agent = Some(agent.into());
    meta.page = Some(page);
    meta.round = Some("round-4".into());
    meta.stop = StopReason::Finished;
    Item::Reply(Reply {
        id: format!("{}:{line}", source.display()),
        source,
        line: Some(line),
        offset: 0,
        text: text.to_owned(),
        meta,
    })
}

/// `item` as a reply of round `round`.
pub fn in_round(item: Item, round: &str) -> Item {
    match item {
        Item::Reply(mut r) => {
            r.meta.round = Some(round.into());
            Item::Reply(r)
        }
        other => other,
    }
}

/// A reply the model was cut off in.
pub fn cut_reply(line: usize, text: &str) -> Item {
    match reply(line, "editor", 3, text) {
        Item::Reply(mut r) => {
            r.meta.stop = StopReason::Truncated;
            Item::Reply(r)
        }
        other => other,
    }
}

/// A file that could not be read.
pub fn bad_file() -> Item {
    Item::Diagnostic(Diagnostic::new("logs/bad/page-017.png", Problem::Binary("a PNG image".to_owned())))
}

/// A state holding `items`, loaded and summarized, on a `w`×`h` terminal.
pub fn state(items: Vec<Item>, w: u16, h: u16) -> State {
    state_with(bracewalk::analysis::Config::default(), items, w, h)
}

/// [`state`], reading with `config`'s readers (readers of one's own among them: their
/// answers are given with [`complete_with`]).
pub fn state_with(config: bracewalk::analysis::Config, items: Vec<Item>, w: u16, h: u16) -> State {
    let mut s = State::new(vec![PathBuf::from("logs")], Default::default(), (w, h));
    s.set_config(config);
    let entries: Vec<Entry> = items.into_iter().enumerate().map(|(i, it)| Entry::from_item(i as u64 + 1, it)).collect();
    let config = s.config.clone();
    let early: Vec<Read> =
        entries.iter().filter_map(|e| e.held_text().map(|t| Read::early(e.key, t, e.cut(), &config))).collect();
    drive(&mut s, Msg::Incoming { batch: entries.into_iter().map(Incoming::Entry).collect(), initial: true });
    drive(&mut s, Msg::Progress(LoadProgress { files: 1, items: 0, bytes: 0, done: true }));
    drive(&mut s, Msg::Facts(early));
    s
}

/// Completes the facts of every reply of `s`, as the readings thread does once the badges
/// are in: what the summary screen and the what-if column read.
pub fn complete(s: &mut State) {
    let config = s.config.clone();
    let done: Vec<Read> = s
        .list
        .entries()
        .iter()
        .filter_map(|e| Some(Read::complete(e.key, e.held_text()?, (**e.facts.as_ref()?).clone(), &config, &[])))
        .collect();
    drive(s, Msg::Facts(done));
}

/// [`complete`], with what the readers of one's own gave for each reply, by its text.
pub fn complete_with(s: &mut State, given: impl Fn(&str) -> Vec<(ReaderId, Given)>) {
    let config = s.config.clone();
    let done: Vec<Read> = s
        .list
        .entries()
        .iter()
        .filter_map(|e| {
            let text = e.held_text()?;
            Some(Read::complete(e.key, text, (**e.facts.as_ref()?).clone(), &config, &given(text)))
        })
        .collect();
    drive(s, Msg::Facts(done));
}

/// Applies `msg`, making any record asked for at once; returns the other effects.
pub fn drive(s: &mut State, msg: Msg) -> Vec<Effect> {
    let mut rest = Vec::new();
    for e in update(s, msg) {
        match e {
            Effect::Detail(job) => {
                // The worker's details thread: the text held, or read again from its file.
                let text = match (&job.held, &job.locator) {
                    (Some(t), _) => t.clone(),
                    (None, Some(at)) => {
                        let loader = bracewalk::logs::Loader::new(Default::default());
                        Arc::from(loader.reread(at).unwrap())
                    }
                    (None, None) => panic!("a record asked for something that is not a reply"),
                };
                let hash = bracewalk::tui::entry::hash(&text);
                let d = detail::detail(text, job.cut, &s.config);
                rest.extend(drive(s, Msg::Detail(job.key, Arc::new(d), hash)));
            }
            Effect::Search(job) => {
                // The worker's search thread, by its own function: texts read again from
                // their files where the list does not hold them.
                let loader = bracewalk::logs::Loader::new(Default::default());
                let mut answers = Vec::new();
                bracewalk::tui::worker::search(&job, &loader, &mut |hits| {
                    answers.push(hits);
                    true
                });
                for hits in answers {
                    rest.extend(drive(s, Msg::Searched { generation: job.generation, hits }));
                }
            }
            other => rest.push(other),
        }
    }
    rest
}

pub fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Types `keys` one character at a time (`\n` is Enter, `\t` Tab, `\x1b` Esc).
pub fn typed(s: &mut State, keys: &str) -> Vec<Effect> {
    let mut fx = Vec::new();
    for c in keys.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\t' => KeyCode::Tab,
            '\x1b' => KeyCode::Esc,
            c => KeyCode::Char(c),
        };
        fx.extend(drive(s, key(code)));
    }
    fx
}

/// The whole screen.
pub fn screen(s: &State) -> String {
    let (w, h) = s.size;
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::render(s, f)).unwrap();
    t.backend().to_string()
}

/// One pane alone, `w`×`h`.
pub fn pane(s: &State, pane: Pane, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::render_pane(s, f, pane, Rect::new(0, 0, w, h))).unwrap();
    t.backend().to_string()
}
