//! Moving within the panes: the cursor, the scroll positions, the selected candidate, the
//! value tree's nodes.

use crate::exact::trace::DecidedBy;

use crate::tui::layout::{self, Panes};
use crate::tui::reply::ValueSource;
use crate::tui::state::{Pane, State};
use crate::tui::{tree, view, wrap};

/// Moves within the focused pane by `delta` rows (or replies).
pub(super) fn step(state: &mut State, panes: &Panes, delta: isize) {
    let moved = |at: usize, len: usize| -> usize {
        let target = at as isize + delta;
        target.clamp(0, len.saturating_sub(1) as isize) as usize
    };
    match state.focus {
        Pane::List => {
            state.list.set_cursor(moved(state.list.cursor(), state.list.view().len()));
            if state.loading.follow && delta < 0 {
                state.loading.follow = false;
            }
        }
        Pane::Text => {
            let rows = state.reply.wrap.as_ref().map_or(1, |w| w.rows.len());
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

pub(super) fn page_of(state: &State, panes: &Panes) -> usize {
    let h = match state.focus {
        Pane::List => panes.list.map(layout::list_body),
        Pane::Text => panes.text.map(layout::text_body),
        p => panes.get(p).map(layout::inner),
    };
    (h.map_or(1, |r| r.height as usize)).saturating_sub(1).max(1)
}

pub(super) fn current_panes(state: &State) -> Panes {
    layout::panes(state.size.0, state.size.1, state)
}

pub(super) fn value_rows(state: &State, panes: &Panes) -> Vec<tree::TreeRow> {
    let width = panes.value.map_or(state.size.0.saturating_sub(2), |r| layout::inner(r).width);
    match state.shown_value() {
        Ok(Some(v)) => tree::rows(v, &state.reply.tree.toggled, width as usize),
        _ => Vec::new(),
    }
}

pub(super) fn toggle_node(state: &mut State, panes: &Panes) {
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

pub(super) fn move_candidate(state: &mut State, delta: isize) {
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
pub(super) fn reveal(state: &mut State, at: usize) {
    let panes = text_panes(state);
    let h = panes.text.map_or(10, |r| layout::text_body(r).height as usize).max(1);
    let Some(w) = &state.reply.wrap else { return };
    let row = wrap::row_of(&w.rows, at);
    if row < state.reply.text_top || row >= state.reply.text_top + h {
        state.reply.text_top = row.saturating_sub(h / 3);
    }
}

/// The panes as they are when the text is shown (for the text's width and height when
/// another pane has the focus on a small terminal).
pub(super) fn text_panes(state: &State) -> Panes {
    let p = current_panes(state);
    if p.text.is_some() {
        return p;
    }
    let mut shown = Panes { ..p };
    let area = Pane::ORDER.iter().find_map(|&pane| if pane == Pane::List { None } else { p.get(pane) });
    shown.text = area;
    shown
}
