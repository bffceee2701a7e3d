//! The what-if: the reader set beside the seed in the list's column and the readers pane.
//! `w` steps to the next of [`State::what_ifs`] (the readers of one's own first), `W` back,
//! each round passing through none; the readers menu (`r`) picks one directly.

use crossterm::event::KeyEvent;

use crate::readers::ReaderId;

use crate::tui::keymap::{self, Action, Key};
use crate::tui::state::{Mode, State};

/// Sets the next what-if (`forward`) or the one before, none between the last and the first.
pub(super) fn step_what_if(state: &mut State, forward: bool) {
    let all = state.what_ifs();
    // None is the place before the first.
    let at = state.what_if.and_then(|r| all.iter().position(|&x| x == r)).map_or(0, |i| i + 1);
    let n = all.len() + 1;
    let to = if forward { (at + 1) % n } else { (at + n - 1) % n };
    set_what_if(state, to.checked_sub(1).and_then(|i| all.get(i)).copied());
}

/// Sets `reader` beside the seed (none: no what-if), and says so.
fn set_what_if(state: &mut State, reader: Option<ReaderId>) {
    state.what_if = reader;
    let catalogue = &state.config.catalogue;
    state.flash = Some(match reader {
        Some(r) => format!("what-if: {} against last-wins ({})", catalogue.name(r), catalogue.description(r)),
        None => "what-if column off".to_owned(),
    });
}

/// Opens the readers menu on the what-if set.
pub(super) fn open_readers(state: &mut State) {
    let all = state.what_ifs();
    let cursor = state.what_if.and_then(|r| all.iter().position(|&x| x == r)).map_or(0, |i| i + 1);
    state.mode = Mode::Readers { cursor };
}

/// A key in the readers menu: its rows are none, then [`State::what_ifs`].
pub(super) fn readers_key(state: &mut State, cursor: usize, ev: &KeyEvent) {
    let Some(action) = Key::of(ev).and_then(|k| keymap::lookup(keymap::READERS, k)) else { return };
    let all = state.what_ifs();
    match action {
        Action::Choose => {
            state.mode = Mode::Normal;
            set_what_if(state, cursor.checked_sub(1).and_then(|i| all.get(i)).copied());
        }
        Action::Close => state.mode = Mode::Normal,
        other => {
            if let Some(to) = other.moved(cursor, all.len(), 1) {
                state.mode = Mode::Readers { cursor: to.min(all.len()) };
            }
        }
    }
}
