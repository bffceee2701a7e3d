//! Keys: the key tables looked up in each mode, and what each action does.

use crossterm::event::KeyEvent;

use crate::analysis::{Class, Flag};
use crate::scan::report::Row;

use super::documents::{documents_key, open_documents};
use super::incoming::apply;
use super::panes::{current_panes, move_candidate, page_of, step, toggle_node};
use super::query::{open_query, query_key};
use super::rounds::{history_key, open_rounds, rounds_key};
use super::screen::summary_key;
use super::search::{next_match, start_search};
use super::triage::{mark, next_mark, open};
use super::what_if::{open_readers, readers_key, step_what_if};
use crate::tui::badges::{self, Badge};
use crate::tui::input::{LineEditor, Typed};
use crate::tui::keymap::{self, Action, Key};
use crate::tui::message::Effect;
use crate::tui::reply::{TreeView, ValueSource};
use crate::tui::state::{Mode, Pane, PromptKind, State};

pub(super) fn key(state: &mut State, ev: &KeyEvent, fx: &mut Vec<Effect>) {
    match state.mode.clone() {
        Mode::Prompt { kind, line } => prompt_key(state, kind, line, ev, fx),
        Mode::Help { scroll } => match Key::of(ev).and_then(|k| keymap::lookup(keymap::HELP, k)) {
            Some(Action::Down) => state.mode = Mode::Help { scroll: scroll.saturating_add(1) },
            Some(Action::Up) => state.mode = Mode::Help { scroll: scroll.saturating_sub(1) },
            _ => state.mode = Mode::Normal,
        },
        Mode::Filter { cursor } => filter_key(state, cursor, ev),
        Mode::Readers { cursor } => readers_key(state, cursor, ev),
        Mode::Summary => summary_key(state, ev),
        Mode::Query(line) => query_key(state, line, ev, fx),
        Mode::Documents => documents_key(state, ev, fx),
        Mode::Rounds => rounds_key(state, ev, fx),
        Mode::PageHistory { .. } => history_key(state, ev),
        Mode::Normal => {
            if let Some(action) = Key::of(ev).and_then(|k| keymap::lookup(keymap::NORMAL, k)) {
                act(state, action, fx);
            }
        }
    }
}

/// The longest search or note, in characters.
const PROMPT_LONGEST: usize = 500;

/// Opens a line to type a search or a note on, holding `text`.
fn prompt(state: &mut State, kind: PromptKind, text: String) {
    state.mode = Mode::Prompt { kind, line: LineEditor::new(text, PROMPT_LONGEST) };
}

pub(super) fn prompt_key(
    state: &mut State,
    kind: PromptKind,
    mut line: LineEditor,
    ev: &KeyEvent,
    fx: &mut Vec<Effect>,
) {
    match line.key(ev) {
        Typed::Cancel => state.mode = Mode::Normal,
        Typed::Accept => {
            state.mode = Mode::Normal;
            match kind {
                PromptKind::Search => start_search(state, line.text()),
                PromptKind::Mark => mark(state, line.into_text(), fx),
            }
        }
        Typed::Edited => state.mode = Mode::Prompt { kind, line },
        // No history of searches or notes.
        Typed::Older | Typed::Newer | Typed::Ignored => {}
    }
}

pub(super) fn filter_key(state: &mut State, cursor: usize, ev: &KeyEvent) {
    let n = state.choices.len();
    match Key::of(ev).and_then(|k| keymap::lookup(keymap::FILTER, k)) {
        Some(Action::Down) => state.mode = Mode::Filter { cursor: (cursor + 1).min(n.saturating_sub(1)) },
        Some(Action::Up) => state.mode = Mode::Filter { cursor: cursor.saturating_sub(1) },
        Some(Action::Toggle) => {
            let filter = state.list.filter_mut();
            if let Some(c) = state.choices.get(cursor).cloned()
                && !filter.on.remove(&c)
            {
                filter.on.insert(c);
            }
        }
        Some(Action::ClearFilter) => {
            let filter = state.list.filter_mut();
            filter.on.clear();
            filter.picked = None;
        }
        Some(Action::Close) => state.mode = Mode::Normal,
        _ => {}
    }
}

pub(super) fn act(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
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
                state.reply.search = None;
            }
            Pane::Text if state.reply.search.is_some() => state.reply.search = None,
            Pane::Text | Pane::Compare => state.focus = Pane::List,
            Pane::Readings => state.focus = Pane::Text,
            Pane::Decision => state.focus = Pane::Readings,
            Pane::Value => state.focus = Pane::Decision,
        },
        Action::PrevCandidate => move_candidate(state, -1),
        Action::NextCandidate => move_candidate(state, 1),
        Action::Search => {
            let pattern = state.reply.search.as_ref().map(|s| s.pattern.clone()).unwrap_or_default();
            prompt(state, PromptKind::Search, pattern);
        }
        Action::SearchNext => next_match(state, 1),
        Action::SearchPrev => next_match(state, -1),
        Action::Filter => {
            state.choices = choices(state);
            state.mode = Mode::Filter { cursor: 0 };
        }
        Action::Sort => {
            state.list.set_sort(state.list.sort().next());
            state.flash = Some(format!("sorted by {}", state.list.sort().name()));
        }
        Action::Mark => {
            if let Some(e) = state.selected() {
                let note = state.list.marks().get(&*e.id).map(|m| m.note.clone()).unwrap_or_default();
                prompt(state, PromptKind::Mark, note);
            }
        }
        Action::Unmark => {
            if let Some(id) = state.selected().map(|e| e.id.clone())
                && state.list.unmark(&id).is_some()
            {
                fx.push(Effect::SaveMarks(state.list.marks().values().cloned().collect()));
                state.flash = Some("mark removed".to_owned());
            }
        }
        Action::NextMark => next_mark(state),
        Action::Yank => match state.shown_value() {
            Ok(Some(v)) => {
                let json = v.to_json_pretty(2);
                state.flash = Some(format!("copied {} bytes of JSON (OSC 52)", crate::describe::thousands(json.len())));
                fx.push(Effect::Yank(json));
            }
            Ok(None) => state.flash = Some("no value to copy: the reader returns null".to_owned()),
            Err(why) => state.flash = Some(why.to_string()),
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
            state.loading.follow = !state.loading.follow;
            if state.loading.follow {
                state.list.select_newest();
            }
            state.flash = Some(if state.loading.follow { "following new replies" } else { "not following" }.to_owned());
        }
        Action::Pause => {
            if state.loading.paused() {
                let held = state.loading.resume();
                let n = held.len();
                apply(state, held, false, fx);
                state.flash = Some(format!("live updates resumed ({n} changes applied)"));
            } else {
                state.loading.pause();
                state.flash = Some("live updates paused".to_owned());
            }
        }
        Action::Summary => state.mode = Mode::Summary,
        Action::Query => open_query(state),
        Action::Documents => open_documents(state),
        Action::Rounds => open_rounds(state),
        Action::Wrap => {
            state.reply.wrapping = state.reply.wrapping.toggled();
            state.flash = Some(format!("reply text wraps {}", state.reply.wrapping.name()));
        }
        Action::WhatIf => step_what_if(state, true),
        Action::WhatIfBack => step_what_if(state, false),
        Action::Readers => open_readers(state),
        Action::Help => state.mode = Mode::Help { scroll: 0 },
        Action::Quit => state.quit = true,
        Action::Toggle
        | Action::ClearFilter
        | Action::Close
        | Action::Choose
        | Action::History
        | Action::PrevColumn
        | Action::NextColumn => {}
        Action::Accept
        | Action::Cancel
        | Action::CursorLeft
        | Action::CursorRight
        | Action::LineStart
        | Action::LineEnd
        | Action::DeleteBack
        | Action::DeleteForward
        | Action::DeleteToStart
        | Action::DeleteWord
        | Action::Older
        | Action::Newer => {}
    }
}

/// What the filter menu offers: a row chosen on the summary screen, every badge of the
/// table, each risk flag, then the agents, rounds and formats seen.
pub(super) fn choices(state: &State) -> Vec<Badge> {
    let table = badges::table(&state.config, state.compared);
    // A summary row chosen with Enter, so it can be seen and turned off here.
    let mut out: Vec<Badge> =
        state.list.filter().on.iter().filter(|c| !table.iter().any(|l| l.badge == **c)).cloned().collect();
    out.extend(table.into_iter().map(|l| l.badge));
    // The classes of the comparisons the list shows: the `≠` reader's, the what-if's.
    let mut readers = vec![state.compared];
    readers.extend(state.what_if.filter(|&r| r != state.compared));
    for p in readers.into_iter().filter_map(|r| state.config.pair_with_seed(r)) {
        for c in Class::ALL.map(|c| Badge::Report(Row::Class(p, c))) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    // Each risk flag, after the badge that is any of them.
    let flags: Vec<Badge> =
        Flag::ALL.into_iter().map(|f| Badge::Report(Row::Flag(f))).filter(|b| !out.contains(b)).collect();
    out.extend(flags);
    let mut groups = std::collections::BTreeSet::new();
    for e in state.list.entries() {
        // The groups a reply names (the summary screen has the replies that name none).
        if let (Some(m), true) = (e.meta(), e.is_reply()) {
            groups.extend(m.agent.as_deref().map(|a| Row::Agent(a.to_owned())));
            groups.extend(m.round.as_deref().map(|r| Row::Round(r.to_owned())));
            groups.insert(Row::Format(m.format.name().to_owned()));
        }
    }
    let mut groups: Vec<Row> = groups.into_iter().collect();
    // Rounds in natural order: `round-2` before `round-10`.
    groups.sort_by(|a, b| match (a, b) {
        (Row::Round(x), Row::Round(y)) => crate::natural::cmp(x, y),
        _ => a.cmp(b),
    });
    out.extend(groups.into_iter().map(Badge::Report).filter(|b| !state.list.filter().on.contains(b)));
    out
}
