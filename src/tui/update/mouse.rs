//! The mouse: the wheel scrolls the pane under it, a click focuses it and selects what
//! is under it.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::panes::{current_panes, step, value_rows};
use crate::tui::layout::{self, Panes};
use crate::tui::state::{Mode, Pane, State};
use crate::tui::{view, wrap};

pub(super) fn mouse(state: &mut State, ev: &MouseEvent) {
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
                        let pos = state.list.top() + (ev.row - r.y) as usize;
                        if pos < state.list.view().len() {
                            state.list.set_cursor(pos);
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
pub(super) fn click_text(state: &mut State, panes: &Panes, x: u16, y: u16) {
    let Some(body) = panes.text.map(layout::text_body) else { return };
    if y < body.y || x < body.x {
        return;
    }
    let Some(text) = state.detail().map(|d| d.text.clone()) else { return };
    let Some(w) = &state.reply.wrap else { return };
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
