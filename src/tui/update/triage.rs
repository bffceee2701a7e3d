//! Triage: marking a reply with a note, the next mark, opening a reply in the editor.

use crate::exact::span::line_col;

use crate::tui::marks::{self, Mark};
use crate::tui::message::Effect;
use crate::tui::state::{Pane, State};

pub(super) fn mark(state: &mut State, note: String, fx: &mut Vec<Effect>) {
    let Some(e) = state.selected() else { return };
    let reference = e.reference();
    let mark = Mark {
        id: e.id.to_string(),
        note: note.trim().to_owned(),
        time: marks::now(),
        reference: (*reference != *e.id).then_some(reference),
    };
    state.list.mark(mark);
    fx.push(Effect::SaveMarks(state.list.marks().values().cloned().collect()));
    state.flash = Some(format!("marked ({} marks)", state.list.marks().len()));
}

pub(super) fn next_mark(state: &mut State) {
    let list = &state.list;
    let n = list.view().len();
    let found = (1..=n)
        .map(|d| (list.cursor() + d) % n.max(1))
        .find(|&pos| list.view().get(pos).and_then(|&i| list.entries().get(i)).is_some_and(|e| list.is_marked(e)));
    match found {
        Some(pos) => {
            state.list.set_cursor(pos);
            state.focus = Pane::List;
        }
        None => {
            state.flash = Some(if state.list.marks().is_empty() {
                "no marks yet: press m to mark a reply".to_owned()
            } else {
                "no marked reply in this view".to_owned()
            });
        }
    }
}

pub(super) fn open(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(e) = state.selected() else { return };
    let line = match (e.line, state.detail()) {
        (Some(n), _) => n,
        (None, Some(d)) => {
            let at = d.trace.candidates.get(state.reply.candidate).map_or(0, |c| c.start);
            line_col(&d.text, at).0
        }
        (None, None) => 1,
    };
    fx.push(Effect::Open { path: e.source.to_path_buf(), line });
}
