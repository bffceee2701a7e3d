//! The one place the state changes: [`update`] takes a message (a key, a click, a batch
//! of replies from the loader, a record from the analysis thread) and returns the effects
//! the event loop must carry out (ask for a record, save the marks, copy, open an editor).
//! No I/O happens here, so a test drives it with key sequences and reads the state.

use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use regex::RegexBuilder;

use crate::read::span::line_col;
use crate::read::trace::{DecidedBy, Step};
use crate::read::value::Value;
use crate::scan::report::{Row, plural};

use super::analysis::Detail;
use super::badges::{self, Badge};
use super::keymap::{self, Action, Key};
use super::layout::{self, Panes};
use super::marks::{self, Mark};
use super::order::{self, Kept};
use super::state::{
    Body, EntryKey, Incoming, Mode, Pane, Progress, PromptKind, ReplyView, Search, State, TreeView, ValueSource,
    WatchState, Wrap,
};
use super::summary::{self, Corpus, ScreenSection};
use super::worker::Read;
use super::{tree, view, wrap};

/// How many full records are kept.
const DETAILS_KEPT: usize = 6;

/// Something that happened.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Entries and changes from the loader (`initial`: the first load) or the watcher.
    Incoming {
        batch: Vec<Incoming>,
        initial: bool,
    },
    Progress(Progress),
    /// What the scan's readers make of replies: early facts (the badges), then complete
    /// ones (the summary screen, the what-if column).
    Facts(Vec<Read>),
    Detail(EntryKey, Arc<Detail>),
    Watch(WatchState),
    /// The outcome of an effect, for the status line.
    Flash(String),
    /// A signal asked the inspector to stop.
    Quit,
}

/// Something the event loop must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Make the full record of a reply.
    Detail {
        key: EntryKey,
        text: Arc<str>,
        cut: bool,
    },
    SaveMarks(Vec<Mark>),
    /// Put text on the clipboard (OSC 52).
    Yank(String),
    /// Open a file in the user's editor or pager at a line.
    Open {
        path: PathBuf,
        line: usize,
    },
}

/// Applies `msg` to `state`.
pub fn update(state: &mut State, msg: Msg) -> Vec<Effect> {
    let mut fx = Vec::new();
    match msg {
        Msg::Key(ev) => {
            state.flash = None;
            key(state, &ev, &mut fx);
        }
        Msg::Mouse(ev) => mouse(state, &ev),
        Msg::Resize(w, h) => state.size = (w, h),
        Msg::Incoming { batch, initial } => {
            if state.paused && !initial {
                state.held.extend(batch);
            } else {
                apply(state, batch, initial);
            }
        }
        Msg::Progress(p) => state.progress = p,
        Msg::Facts(list) => {
            let mut kept = Kept::begin(state);
            for read in list {
                if let Some(&i) = state.by_key.get(&read.key) {
                    kept.touch(state, i);
                    let e = &mut state.entries[i];
                    e.set_facts(read.facts);
                    if read.sketch.is_some() {
                        e.sketch = read.sketch;
                    }
                }
            }
            kept.finish(state);
            state.corpus_dirty = true;
        }
        Msg::Detail(k, d) => {
            state.details.retain(|(key, _)| *key != k);
            state.details.push((k, d));
            if state.details.len() > DETAILS_KEPT {
                state.details.remove(0);
            }
            if state.wanted == Some(k) {
                state.wanted = None;
            }
        }
        Msg::Watch(w) => state.watch = w,
        Msg::Flash(s) => state.flash = Some(s),
        Msg::Quit => state.quit = true,
    }
    settle(state, &mut fx);
    fx
}

// ---- keys ------------------------------------------------------------------------------

fn key(state: &mut State, ev: &KeyEvent, fx: &mut Vec<Effect>) {
    match state.mode.clone() {
        Mode::Prompt { kind, input } => prompt_key(state, kind, input, ev, fx),
        Mode::Help { scroll } => match Key::of(ev).and_then(|k| keymap::lookup(keymap::HELP, k)) {
            Some(Action::Down) => state.mode = Mode::Help { scroll: scroll.saturating_add(1) },
            Some(Action::Up) => state.mode = Mode::Help { scroll: scroll.saturating_sub(1) },
            _ => state.mode = Mode::Normal,
        },
        Mode::Filter { cursor } => filter_key(state, cursor, ev),
        Mode::Summary => summary_key(state, ev),
        Mode::Normal => {
            if let Some(action) = Key::of(ev).and_then(|k| keymap::lookup(keymap::NORMAL, k)) {
                act(state, action, fx);
            }
        }
    }
}

fn prompt_key(state: &mut State, kind: PromptKind, mut input: String, ev: &KeyEvent, fx: &mut Vec<Effect>) {
    match ev.code {
        KeyCode::Esc => state.mode = Mode::Normal,
        KeyCode::Enter => {
            state.mode = Mode::Normal;
            match kind {
                PromptKind::Search => start_search(state, &input),
                PromptKind::Mark => mark(state, input, fx),
            }
        }
        KeyCode::Backspace => {
            input.pop();
            state.mode = Mode::Prompt { kind, input };
        }
        KeyCode::Char('u') if ev.modifiers.contains(KeyModifiers::CONTROL) => {
            state.mode = Mode::Prompt { kind, input: String::new() };
        }
        KeyCode::Char('c') if ev.modifiers.contains(KeyModifiers::CONTROL) => state.mode = Mode::Normal,
        KeyCode::Char(c) if !ev.modifiers.contains(KeyModifiers::CONTROL) && !c.is_control() => {
            if input.chars().count() < 500 {
                input.push(c);
            }
            state.mode = Mode::Prompt { kind, input };
        }
        _ => {}
    }
}

fn filter_key(state: &mut State, cursor: usize, ev: &KeyEvent) {
    let n = state.choices.len();
    match Key::of(ev).and_then(|k| keymap::lookup(keymap::FILTER, k)) {
        Some(Action::Down) => state.mode = Mode::Filter { cursor: (cursor + 1).min(n.saturating_sub(1)) },
        Some(Action::Up) => state.mode = Mode::Filter { cursor: cursor.saturating_sub(1) },
        Some(Action::Toggle) => {
            if let Some(c) = state.choices.get(cursor).cloned()
                && !state.filter.on.remove(&c)
            {
                state.filter.on.insert(c);
            }
            state.view_dirty = true;
        }
        Some(Action::ClearFilter) => {
            state.filter.on.clear();
            state.view_dirty = true;
        }
        Some(Action::Close) => state.mode = Mode::Normal,
        _ => {}
    }
}

fn act(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let panes = current_panes(state);
    match action {
        Action::Down => step(state, &panes, 1),
        Action::Up => step(state, &panes, -1),
        Action::PageDown => {
            let page = page_of(state, &panes);
            step(state, &panes, page as isize);
        }
        Action::PageUp => {
            let page = page_of(state, &panes);
            step(state, &panes, -(page as isize));
        }
        Action::Top => step(state, &panes, isize::MIN / 2),
        Action::Bottom => step(state, &panes, isize::MAX / 2),
        Action::FocusNext => state.focus = Pane::ORDER[(state.focus.index() + 1) % Pane::ORDER.len()],
        Action::FocusPrev => {
            state.focus = Pane::ORDER[(state.focus.index() + Pane::ORDER.len() - 1) % Pane::ORDER.len()];
        }
        Action::Focus(n) => state.focus = Pane::ORDER.get(n as usize).copied().unwrap_or(Pane::List),
        Action::DrillIn => match state.focus {
            Pane::List => state.focus = Pane::Text,
            Pane::Text => state.focus = Pane::Readings,
            Pane::Readings => state.focus = Pane::Decision,
            Pane::Decision => state.focus = Pane::Value,
            Pane::Value => toggle_node(state, &panes),
            Pane::Compare => {}
        },
        Action::Back => match state.focus {
            Pane::List => {
                state.search = None;
            }
            Pane::Text if state.search.is_some() => state.search = None,
            Pane::Text | Pane::Compare => state.focus = Pane::List,
            Pane::Readings => state.focus = Pane::Text,
            Pane::Decision => state.focus = Pane::Readings,
            Pane::Value => state.focus = Pane::Decision,
        },
        Action::PrevCandidate => move_candidate(state, -1),
        Action::NextCandidate => move_candidate(state, 1),
        Action::Search => {
            let input = state.search.as_ref().map(|s| s.pattern.clone()).unwrap_or_default();
            state.mode = Mode::Prompt { kind: PromptKind::Search, input };
        }
        Action::SearchNext => next_match(state, 1),
        Action::SearchPrev => next_match(state, -1),
        Action::Filter => {
            state.choices = choices(state);
            state.mode = Mode::Filter { cursor: 0 };
        }
        Action::Sort => {
            state.sort = state.sort.next();
            state.view_dirty = true;
            state.flash = Some(format!("sorted by {}", state.sort.name()));
        }
        Action::Mark => {
            if let Some(e) = state.selected() {
                let input = state.marks.get(&e.id).map(|m| m.note.clone()).unwrap_or_default();
                state.mode = Mode::Prompt { kind: PromptKind::Mark, input };
            }
        }
        Action::Unmark => {
            if let Some(id) = state.selected().map(|e| e.id.clone())
                && state.marks.remove(&id).is_some()
            {
                fx.push(Effect::SaveMarks(state.marks.values().cloned().collect()));
                state.flash = Some("mark removed".to_owned());
            }
        }
        Action::NextMark => next_mark(state),
        Action::Yank => match shown_value(state) {
            Ok(Some(v)) => {
                let json = v.to_json_pretty(2);
                state.flash = Some(format!("copied {} bytes of JSON (OSC 52)", crate::describe::thousands(json.len())));
                fx.push(Effect::Yank(json));
            }
            Ok(None) => state.flash = Some("no value to copy: the reader returns null".to_owned()),
            Err(why) => state.flash = Some(why),
        },
        Action::Open => open(state, fx),
        Action::ValueSource => {
            let next = match state.reply.tree.source {
                ValueSource::Answer => ValueSource::Candidate,
                ValueSource::Candidate => ValueSource::Answer,
            };
            state.reply.tree = TreeView { source: next, ..TreeView::default() };
            state.flash = Some(match next {
                ValueSource::Answer => "value pane: the reader's answer".to_owned(),
                ValueSource::Candidate => "value pane: the selected candidate's value".to_owned(),
            });
        }
        Action::Follow => {
            state.follow = !state.follow;
            if state.follow {
                state.select = state.entries.iter().rev().find(|e| e.is_reply()).map(|e| e.key);
                state.view_dirty = true;
            }
            state.flash = Some(if state.follow { "following new replies" } else { "not following" }.to_owned());
        }
        Action::Pause => {
            state.paused = !state.paused;
            if !state.paused {
                let held = std::mem::take(&mut state.held);
                let n = held.len();
                apply(state, held, false);
                state.flash = Some(format!("live updates resumed ({n} changes applied)"));
            } else {
                state.flash = Some("live updates paused".to_owned());
            }
        }
        Action::Summary => state.mode = Mode::Summary,
        Action::WhatIf => cycle_what_if(state),
        Action::Help => state.mode = Mode::Help { scroll: 0 },
        Action::Quit => state.quit = true,
        Action::Toggle | Action::ClearFilter | Action::Close | Action::Choose => {}
    }
}

// ---- the summary screen ----------------------------------------------------------------

fn summary_sections(state: &State) -> Vec<ScreenSection> {
    state.corpus.as_ref().map(|c| summary::blocks(&c.scan)).unwrap_or_default()
}

fn summary_key(state: &mut State, ev: &KeyEvent) {
    let Some(action) = Key::of(ev).and_then(|k| keymap::lookup(keymap::SUMMARY, k)) else { return };
    let sections = summary_sections(state);
    let last = summary::row_count(&sections).saturating_sub(1);
    let page = (layout::summary(state.size.0, state.size.1).body.height as usize).saturating_sub(1).max(1);
    let at = state.summary.cursor.min(last);
    let to = match action {
        Action::Down => at + 1,
        Action::Up => at.saturating_sub(1),
        Action::Top => 0,
        Action::Bottom => last,
        Action::PageDown => at + page,
        Action::PageUp => at.saturating_sub(page),
        Action::FocusNext => summary::section_start(&sections, at, true),
        Action::FocusPrev => summary::section_start(&sections, at, false),
        Action::Choose => {
            choose(state, &sections);
            return;
        }
        Action::WhatIf => {
            cycle_what_if(state);
            return;
        }
        Action::Close => {
            state.mode = Mode::Normal;
            return;
        }
        _ => return,
    };
    state.summary.cursor = to.min(last);
}

/// Filters the list to the replies behind the selected row, and selects the first.
fn choose(state: &mut State, sections: &[ScreenSection]) {
    let Some(row) = summary::row_at(sections, state.summary.cursor) else { return };
    let label = crate::visible::visible(row.label.trim(), false);
    if row.count == 0 {
        state.flash = Some(format!("no replies behind “{label}”"));
        return;
    }
    let target = row.target.clone();
    // A comparison's replies are best read beside the what-if's answer.
    if let Some(p) = target.pair(&state.config).filter(|p| p.against_seed()) {
        state.what_if = Some(p.from);
    }
    state.filter.on.clear();
    state.filter.on.insert(Badge::Report(target));
    state.mode = Mode::Normal;
    state.focus = Pane::List;
    order::rebuild(state);
    state.cursor = 0;
    state.list_top = 0;
    state.flash =
        Some(format!("{}: {label} (f then c clears the filter)", plural(state.view.len(), "reply", "replies")));
}

/// Shows the next what-if's column in the list, or none after the last.
fn cycle_what_if(state: &mut State) {
    let config = &state.config;
    let all: Vec<_> = config.pairs.iter().filter(|p| p.against_seed()).map(|p| p.from).collect();
    state.what_if = match state.what_if {
        None => all.first().copied(),
        Some(r) => all.iter().position(|&x| x == r).and_then(|i| all.get(i + 1)).copied(),
    };
    state.flash = Some(match state.what_if {
        Some(r) => format!(
            "what-if column: {} against last-wins ({})",
            config.catalogue.name(r),
            config.catalogue.description(r)
        ),
        None => "what-if column off".to_owned(),
    });
}

/// Folds the corpus again if it is shown and stale, and keeps the selected row on screen.
fn settle_summary(state: &mut State) {
    if state.mode != Mode::Summary {
        return;
    }
    if state.corpus_dirty || state.corpus.is_none() {
        state.corpus = Some(Corpus::of(&state.entries, &state.config));
        state.corpus_dirty = false;
    }
    let sections = summary_sections(state);
    let slots = summary::slots(&sections);
    state.summary.cursor = state.summary.cursor.min(summary::row_count(&sections).saturating_sub(1));
    let h = (layout::summary(state.size.0, state.size.1).body.height as usize).max(1);
    let line = summary::line_of(&slots, state.summary.cursor);
    let top = &mut state.summary.top;
    if line < *top + 1 {
        // Moving up shows the section's title with its first row.
        let title_above = line > 0 && matches!(slots.get(line - 1), Some(summary::Slot::Title(_)));
        *top = if title_above { line - 1 } else { line }.min(*top);
    } else if line >= *top + h {
        *top = line + 1 - h;
    }
    *top = (*top).min(slots.len().saturating_sub(h));
}

/// Moves within the focused pane by `delta` rows (or replies).
fn step(state: &mut State, panes: &Panes, delta: isize) {
    let moved = |at: usize, len: usize| -> usize {
        let target = at as isize + delta;
        target.clamp(0, len.saturating_sub(1) as isize) as usize
    };
    match state.focus {
        Pane::List => {
            state.cursor = moved(state.cursor, state.view.len());
            if state.follow && delta < 0 {
                state.follow = false;
            }
        }
        Pane::Text => {
            let rows = state.wrap.as_ref().map_or(1, |w| w.rows.len());
            let h = panes.text.map_or(1, |r| layout::text_body(r).height as usize).max(1);
            state.reply.text_top = moved(state.reply.text_top, rows.saturating_sub(h - 1).max(1));
        }
        Pane::Value => {
            let rows = value_rows(state, panes);
            state.reply.tree.cursor = moved(state.reply.tree.cursor, rows.len());
        }
        Pane::Readings | Pane::Decision | Pane::Compare => {
            let pane = state.focus;
            let r = panes.get(pane).map(layout::inner).unwrap_or_default();
            let total = view::content_rows(state, pane, r.width);
            let max = total.saturating_sub(r.height as usize);
            let top = match pane {
                Pane::Readings => &mut state.reply.readings_top,
                Pane::Decision => &mut state.reply.decision_top,
                _ => &mut state.reply.compare_top,
            };
            let next = (*top as isize + delta).clamp(0, max as isize);
            *top = next.min(u16::MAX as isize) as u16;
        }
    }
}

fn page_of(state: &State, panes: &Panes) -> usize {
    let h = match state.focus {
        Pane::List => panes.list.map(layout::list_body),
        Pane::Text => panes.text.map(layout::text_body),
        p => panes.get(p).map(layout::inner),
    };
    (h.map_or(1, |r| r.height as usize)).saturating_sub(1).max(1)
}

fn current_panes(state: &State) -> Panes {
    layout::panes(state.size.0, state.size.1, state)
}

fn value_rows(state: &State, panes: &Panes) -> Vec<tree::Row> {
    let width = panes.value.map_or(state.size.0.saturating_sub(2), |r| layout::inner(r).width);
    match shown_value(state) {
        Ok(Some(v)) => tree::rows(v, &state.reply.tree.toggled, width as usize),
        _ => Vec::new(),
    }
}

fn toggle_node(state: &mut State, panes: &Panes) {
    let rows = value_rows(state, panes);
    let Some(row) = rows.get(state.reply.tree.cursor) else { return };
    if !row.toggles() {
        return;
    }
    let path = row.path.clone();
    // A string's `More` row and its head toggle the same node.
    if !state.reply.tree.toggled.remove(&path) {
        state.reply.tree.toggled.insert(path.clone());
    }
    // Keep the cursor on the node's head.
    let rows = value_rows(state, panes);
    if let Some(i) = rows.iter().position(|r| r.path == path && r.kind != tree::RowKind::StringLine) {
        state.reply.tree.cursor = i;
    }
}

/// The value the value pane shows: the answer, or the selected candidate's. `Err` says
/// why there is none yet.
pub fn shown_value(state: &State) -> Result<Option<&Value>, String> {
    let e = state.selected().ok_or_else(|| "nothing selected".to_owned())?;
    if !e.is_reply() {
        return Err("not a reply".to_owned());
    }
    let d = state.detail().ok_or_else(|| "still reading this reply".to_owned())?;
    Ok(match state.reply.tree.source {
        ValueSource::Answer => d.trace.value.as_ref(),
        ValueSource::Candidate => candidate_value(d, state.reply.candidate),
    })
}

/// A candidate's value: the reading the walk took, else the first reading that parses.
pub fn candidate_value(d: &Detail, index: usize) -> Option<&Value> {
    let c = d.trace.candidates.get(index)?;
    match c.step {
        Step::Took { by, .. } => c.reading(by).value(),
        _ => [&c.strict, &c.wide, &c.narrow].into_iter().find_map(|r| r.value()),
    }
}

fn move_candidate(state: &mut State, delta: isize) {
    let Some(d) = state.detail().cloned() else {
        state.flash = Some("still reading this reply".to_owned());
        return;
    };
    let n = d.trace.candidates.len();
    if n == 0 {
        state.flash = Some(match d.trace.decided_by {
            DecidedBy::WholeText => "no candidates: the whole reply is JSON".to_owned(),
            _ => "no `{` candidates in this reply".to_owned(),
        });
        return;
    }
    let next = (state.reply.candidate as isize + delta).clamp(0, n as isize - 1) as usize;
    state.reply.candidate = next;
    state.reply.readings_top = 0;
    if state.reply.tree.source == ValueSource::Candidate {
        state.reply.tree.toggled.clear();
        state.reply.tree.cursor = 0;
    }
    if let Some(c) = d.trace.candidates.get(next) {
        let at = c.start;
        reveal(state, at);
    }
}

/// Scrolls the text so byte `at` is on screen, a third of the way down when it moves.
fn reveal(state: &mut State, at: usize) {
    let panes = text_panes(state);
    let h = panes.text.map_or(10, |r| layout::text_body(r).height as usize).max(1);
    let Some(w) = &state.wrap else { return };
    let row = wrap::row_of(&w.rows, at);
    if row < state.reply.text_top || row >= state.reply.text_top + h {
        state.reply.text_top = row.saturating_sub(h / 3);
    }
}

/// The panes as they are when the text is shown (for the text's width and height when
/// another pane has the focus on a small terminal).
fn text_panes(state: &State) -> Panes {
    let p = current_panes(state);
    if p.text.is_some() {
        return p;
    }
    let mut shown = Panes { ..p };
    let area = Pane::ORDER.iter().find_map(|&pane| if pane == Pane::List { None } else { p.get(pane) });
    shown.text = area;
    shown
}

fn start_search(state: &mut State, pattern: &str) {
    if pattern.is_empty() {
        state.search = None;
        return;
    }
    // Smart case: a pattern with no capital letter matches either case.
    let insensitive = !pattern.chars().any(char::is_uppercase);
    match RegexBuilder::new(pattern).case_insensitive(insensitive).size_limit(1 << 22).build() {
        Ok(regex) => {
            state.search =
                Some(Search { pattern: pattern.to_owned(), regex, key: None, matches: Vec::new(), current: None });
            refresh_matches(state);
            let from = state.wrap.as_ref().and_then(|w| w.rows.get(state.reply.text_top).copied()).unwrap_or(0);
            let first = state.search.as_ref().and_then(|s| {
                s.matches.iter().position(|&(a, _)| a >= from).or(if s.matches.is_empty() { None } else { Some(0) })
            });
            jump_to_match(state, first);
        }
        Err(e) => {
            let msg = e.to_string();
            let last = msg.lines().last().unwrap_or("invalid").trim().to_owned();
            state.flash = Some(format!("not a regex: {last}"));
        }
    }
}

fn refresh_matches(state: &mut State) {
    let Some(sel) = state.selected().map(|e| (e.key, e.text().cloned())) else { return };
    let Some(search) = &mut state.search else { return };
    if search.key == Some(sel.0) {
        return;
    }
    search.key = Some(sel.0);
    search.current = None;
    search.matches = match &sel.1 {
        Some(text) => {
            search.regex.find_iter(text).filter(|m| !m.is_empty()).take(100_000).map(|m| (m.start(), m.end())).collect()
        }
        None => Vec::new(),
    };
}

fn jump_to_match(state: &mut State, index: Option<usize>) {
    let Some(search) = &mut state.search else { return };
    let n = search.matches.len();
    let Some(i) = index.filter(|_| n > 0) else {
        state.flash = Some(format!("/{}: no match in this reply", crate::visible::visible(&search.pattern, false)));
        return;
    };
    search.current = Some(i);
    let at = search.matches[i].0;
    state.flash = Some(format!("match {} of {}", i + 1, n));
    if current_panes(state).text.is_none() {
        state.focus = Pane::Text;
    }
    reveal(state, at);
    // Select the candidate the match is in, so the readings follow the search.
    if let Some(c) = state.detail().and_then(|d| d.candidate_at(at)) {
        state.reply.candidate = c;
    }
}

fn next_match(state: &mut State, delta: isize) {
    let Some(search) = &state.search else {
        state.flash = Some("no search: press / to search the reply text".to_owned());
        return;
    };
    let n = search.matches.len() as isize;
    let next = match search.current {
        _ if n == 0 => None,
        Some(c) => Some((c as isize + delta).rem_euclid(n) as usize),
        None => Some(if delta > 0 { 0 } else { (n - 1) as usize }),
    };
    jump_to_match(state, next);
}

fn mark(state: &mut State, note: String, fx: &mut Vec<Effect>) {
    let Some(e) = state.selected() else { return };
    let reference = e.reference();
    let mark = Mark {
        id: e.id.clone(),
        note: note.trim().to_owned(),
        time: marks::now(),
        reference: (reference != e.id).then_some(reference),
    };
    state.marks.insert(mark.id.clone(), mark);
    fx.push(Effect::SaveMarks(state.marks.values().cloned().collect()));
    state.flash = Some(format!("marked ({} marks)", state.marks.len()));
    if state.filter.on.contains(&Badge::Marked) {
        state.view_dirty = true;
    }
}

fn next_mark(state: &mut State) {
    let n = state.view.len();
    let found = (1..=n).map(|d| (state.cursor + d) % n.max(1)).find(|&pos| {
        state.view.get(pos).and_then(|&i| state.entries.get(i)).is_some_and(|e| state.marks.contains_key(&e.id))
    });
    match found {
        Some(pos) => {
            state.cursor = pos;
            state.focus = Pane::List;
        }
        None => {
            state.flash = Some(if state.marks.is_empty() {
                "no marks yet: press m to mark a reply".to_owned()
            } else {
                "no marked reply in this view".to_owned()
            });
        }
    }
}

fn open(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(e) = state.selected() else { return };
    let line = match (&e.body, e.line) {
        (_, Some(n)) => n,
        (Body::Reply { text, .. }, None) => {
            let at = state.detail().and_then(|d| d.trace.candidates.get(state.reply.candidate)).map_or(0, |c| c.start);
            line_col(text, at).0
        }
        _ => 1,
    };
    fx.push(Effect::Open { path: e.source.clone(), line });
}

/// What the filter menu offers: a row chosen on the summary screen, every badge of the
/// table, then the agents, rounds and formats seen.
fn choices(state: &State) -> Vec<Badge> {
    let table = badges::table(&state.config, state.compared);
    // A summary row chosen with Enter, so it can be seen and turned off here.
    let mut out: Vec<Badge> =
        state.filter.on.iter().filter(|c| !table.iter().any(|l| l.badge == **c)).cloned().collect();
    out.extend(table.into_iter().map(|l| l.badge));
    let mut groups = std::collections::BTreeSet::new();
    for e in &state.entries {
        // The groups a reply names (the summary screen has the replies that name none).
        if let (Some(m), true) = (e.meta(), e.is_reply()) {
            groups.extend(m.agent.clone().map(Row::Agent));
            groups.extend(m.round.clone().map(Row::Round));
            groups.insert(Row::Format(m.format.name().to_owned()));
        }
    }
    out.extend(groups.into_iter().map(Badge::Report).filter(|b| !state.filter.on.contains(b)));
    out
}

// ---- mouse ------------------------------------------------------------------------------

fn mouse(state: &mut State, ev: &MouseEvent) {
    if state.mode != Mode::Normal {
        return;
    }
    let panes = current_panes(state);
    match ev.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            let delta = if ev.kind == MouseEventKind::ScrollDown { 3 } else { -3 };
            if let Some(pane) = panes.at(ev.column, ev.row) {
                let focus = std::mem::replace(&mut state.focus, pane);
                step(state, &panes, delta);
                state.focus = focus;
            }
        }
        MouseEventKind::Down(MouseButton::Left) => {
            if let Some(tabs) = panes.tabs
                && tabs.contains((ev.column, ev.row).into())
            {
                if let Some(p) = view::tab_at(tabs, ev.column) {
                    state.focus = p;
                }
                return;
            }
            let Some(pane) = panes.at(ev.column, ev.row) else { return };
            state.focus = pane;
            match pane {
                Pane::List => {
                    if let Some(r) = panes.list.map(layout::list_body)
                        && ev.row >= r.y
                    {
                        let pos = state.list_top + (ev.row - r.y) as usize;
                        if pos < state.view.len() {
                            state.cursor = pos;
                        }
                    }
                }
                Pane::Text => click_text(state, &panes, ev.column, ev.row),
                Pane::Value => {
                    if let Some(r) = panes.value.map(layout::inner)
                        && ev.row >= r.y
                    {
                        let i = state.reply.tree.top + (ev.row - r.y) as usize;
                        if i < value_rows(state, &panes).len() {
                            state.reply.tree.cursor = i;
                        }
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// A click in the reply text selects the candidate under it.
fn click_text(state: &mut State, panes: &Panes, x: u16, y: u16) {
    let Some(body) = panes.text.map(layout::text_body) else { return };
    if y < body.y || x < body.x {
        return;
    }
    let Some(text) = state.selected().and_then(|e| e.text().cloned()) else { return };
    let Some(w) = &state.wrap else { return };
    let row = state.reply.text_top + (y - body.y) as usize;
    let Some(&start) = w.rows.get(row) else { return };
    let end = w.rows.get(row + 1).copied().unwrap_or(text.len());
    let mut col = 0;
    let mut at = start;
    for (i, c) in text.get(start..end).unwrap_or("").char_indices() {
        let cw = wrap::cells(c);
        if col + cw > (x - body.x) as usize {
            at = start + i;
            break;
        }
        col += cw;
        at = start + i;
    }
    if let Some(c) = state.detail().and_then(|d| d.candidate_at(at)) {
        state.reply.candidate = c;
        state.reply.readings_top = 0;
    }
}

// ---- incoming ------------------------------------------------------------------------------

fn apply(state: &mut State, batch: Vec<Incoming>, initial: bool) {
    let mut kept = Kept::begin(state);
    for change in batch {
        match change {
            Incoming::Entry(mut e) => {
                e.new = !initial && !state.restarted.remove(&e.id);
                if let Body::Diagnostic(d) = &e.body {
                    state.diagnostics += 1;
                    state.last_diagnostic = Some(d.to_string());
                }
                // A file that comes back replaces what was left of it.
                if let Some(k) = state.files.take_gone(&e.source, &e.id) {
                    leave(state, &mut kept, k);
                }
                if state.follow && !initial && e.is_reply() {
                    state.select = Some(e.key);
                }
                state.files.add(&e);
                state.by_key.insert(e.key, state.entries.len());
                state.entries.push(e);
            }
            Incoming::Amended { source, line, meta } => {
                if let Some(k) = state.files.at_line(&source, line)
                    && let Some(&i) = state.by_key.get(&k)
                {
                    kept.touch(state, i);
                    let e = &mut state.entries[i];
                    match &mut e.body {
                        Body::Reply { meta: m, .. } | Body::Event { meta: m, .. } => *m = meta,
                        Body::Diagnostic(_) => {}
                    }
                    // The facts are named after the reply's metadata, as last amended.
                    if let Some(f) = e.facts.take() {
                        e.set_facts(*f);
                    }
                }
            }
            Incoming::Restarted { source } => {
                for k in state.files.take_file(&source) {
                    if let Some(i) = state.by_key.remove(&k) {
                        state.restarted.insert(state.entries[i].id.clone());
                        kept.left(i);
                    }
                }
            }
            Incoming::Removed { source } => {
                let keys: Vec<EntryKey> = state.files.under(&source).collect();
                for k in keys {
                    let Some(&i) = state.by_key.get(&k) else { continue };
                    if state.entries[i].gone {
                        continue;
                    }
                    kept.touch(state, i);
                    state.entries[i].gone = true;
                    state.files.note_gone(&state.entries[i]);
                }
            }
        }
    }
    kept.finish(state);
    state.corpus_dirty = true;
}

/// Takes the entry with key `k` out of the indexes; `kept` takes it out of the list.
fn leave(state: &mut State, kept: &mut Kept, k: EntryKey) {
    let Some(i) = state.by_key.remove(&k) else { return };
    let by_key = &state.by_key;
    state.files.forget(&state.entries[i], |k| by_key.contains_key(&k));
    kept.left(i);
}

// ---- after every message ---------------------------------------------------------------------

/// Brings what depends on the selection up to date: the view's order, the reply's record
/// (asked for if missing), the text's wrapping, scroll positions.
fn settle(state: &mut State, fx: &mut Vec<Effect>) {
    if state.view_dirty {
        order::rebuild(state);
    }
    settle_summary(state);
    state.cursor = state.cursor.min(state.view.len().saturating_sub(1));
    let selected = state.selected().map(|e| (e.key, e.text().cloned(), e.cut()));
    let key = selected.as_ref().map(|s| s.0);
    if key != state.reply_key {
        state.reply_key = key;
        let source = state.reply.tree.source;
        state.reply = ReplyView::default();
        state.reply.tree.source = source;
        state.wrap = None;
    }
    if let Some((key, Some(text), cut)) = selected {
        if state.detail().is_none() && state.wanted != Some(key) {
            state.wanted = Some(key);
            fx.push(Effect::Detail { key, text: text.clone(), cut });
        }
        let width = text_width(state);
        if state.wrap.as_ref().is_none_or(|w| w.key != key || w.width != width) {
            let top_at = state.wrap.as_ref().and_then(|w| w.rows.get(state.reply.text_top).copied());
            state.wrap = Some(Wrap { key, width, rows: wrap::rows(&text, width as usize) });
            if let (Some(at), Some(w)) = (top_at, &state.wrap) {
                state.reply.text_top = wrap::row_of(&w.rows, at);
            }
        }
        refresh_matches(state);
        if !state.reply.placed
            && let Some(d) = state.detail().cloned()
        {
            state.reply.placed = true;
            let n = d.trace.candidates.len();
            state.reply.candidate = d.trace.kept.unwrap_or(0).min(n.saturating_sub(1));
            if let Some(c) = d.trace.candidates.get(state.reply.candidate) {
                reveal(state, c.start);
            }
        }
    }
    // Keep the selected reply on screen.
    let h = current_panes(state).list.map_or(1, |r| layout::list_body(r).height as usize).max(1);
    if state.cursor < state.list_top {
        state.list_top = state.cursor;
    } else if state.cursor >= state.list_top + h {
        state.list_top = state.cursor + 1 - h;
    }
    state.list_top = state.list_top.min(state.view.len().saturating_sub(h));
    if let Some(w) = &state.wrap {
        state.reply.text_top = state.reply.text_top.min(w.rows.len().saturating_sub(1));
    }
}

fn text_width(state: &State) -> u16 {
    text_panes(state).text.map_or(state.size.0.saturating_sub(3), |r| layout::text_body(r).width).max(1)
}
