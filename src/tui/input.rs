//! A line being typed: the query line (`:`), a search of the reply text (`/`), a mark's note
//! (`m`). One editor for all three, its keys in the key table ([`keymap::LINE`]) like every
//! other binding, so they work alike and the help lists them from the same place.

use crossterm::event::KeyEvent;

use super::keymap::{self, Action, Key};

/// The text typed, and the cursor in it (in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineEditor {
    text: String,
    cursor: usize,
    /// The longest the line may grow, in characters.
    max: usize,
}

/// What a key did to the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Typed {
    /// Enter: the line is done.
    Accept,
    /// Esc, Ctrl-c: the line is dropped.
    Cancel,
    /// ↑, ↓: an earlier line, a later one (where the line has a history).
    Older,
    Newer,
    /// The text or the cursor changed.
    Edited,
    /// Nothing: a key the line does not take, or an edit with nothing to act on.
    Ignored,
}

impl LineEditor {
    /// `text`, the cursor at its end; `max` characters at most.
    pub fn new(text: String, max: usize) -> LineEditor {
        let cursor = text.chars().count();
        LineEditor { text, cursor, max }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn into_text(self) -> String {
        self.text
    }

    /// Where the cursor is, in characters.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Puts the cursor at character `at` (at the end, past it).
    pub fn set_cursor(&mut self, at: usize) {
        self.cursor = at.min(self.len());
    }

    /// Replaces the text, the cursor at its end.
    pub fn set_text(&mut self, text: String) {
        *self = LineEditor::new(text, self.max);
    }

    /// Applies key `ev`, as [`keymap::LINE`] binds it; a character no binding takes is typed.
    pub fn key(&mut self, ev: &KeyEvent) -> Typed {
        let Some(key) = Key::of(ev) else { return Typed::Ignored };
        let edited = match keymap::lookup(keymap::LINE, key) {
            Some(Action::Accept) => return Typed::Accept,
            Some(Action::Cancel) => return Typed::Cancel,
            Some(Action::Older) => return Typed::Older,
            Some(Action::Newer) => return Typed::Newer,
            Some(action) => self.edit(action),
            None => match key {
                Key::Char(c) if !c.is_control() => self.insert(c),
                _ => false,
            },
        };
        if edited { Typed::Edited } else { Typed::Ignored }
    }

    fn len(&self) -> usize {
        self.text.chars().count()
    }

    /// Types `c` at the cursor, if the line has room.
    fn insert(&mut self, c: char) -> bool {
        if self.len() >= self.max {
            return false;
        }
        let at = self.byte_at(self.cursor);
        self.text.insert(at, c);
        self.cursor += 1;
        true
    }

    /// Moves the cursor or deletes, as `action` says; false where there is nothing to delete.
    fn edit(&mut self, action: Action) -> bool {
        let len = self.len();
        match action {
            Action::CursorLeft => self.cursor = self.cursor.saturating_sub(1),
            Action::CursorRight => self.cursor = (self.cursor + 1).min(len),
            Action::LineStart => self.cursor = 0,
            Action::LineEnd => self.cursor = len,
            Action::DeleteBack if self.cursor > 0 => {
                self.cursor -= 1;
                self.remove(self.cursor);
            }
            Action::DeleteForward if self.cursor < len => self.remove(self.cursor),
            Action::DeleteToStart => {
                self.text.replace_range(..self.byte_at(self.cursor), "");
                self.cursor = 0;
            }
            Action::DeleteWord => {
                // The word before the cursor, as a shell deletes it.
                let chars: Vec<char> = self.text.chars().collect();
                let mut from = self.cursor;
                while from > 0 && chars[from - 1] == ' ' {
                    from -= 1;
                }
                while from > 0 && chars[from - 1] != ' ' {
                    from -= 1;
                }
                self.text.replace_range(self.byte_at(from)..self.byte_at(self.cursor), "");
                self.cursor = from;
            }
            _ => return false,
        }
        true
    }

    /// The character at `at` taken out.
    fn remove(&mut self, at: usize) {
        let from = self.byte_at(at);
        self.text.replace_range(from..self.byte_at(at + 1), "");
    }

    /// Where character `chars` starts, in bytes (the end, past the last).
    fn byte_at(&self, chars: usize) -> usize {
        self.text.char_indices().nth(chars).map_or(self.text.len(), |(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyModifiers};

    use super::*;

    fn typed(input: &mut LineEditor, keys: &[KeyCode]) -> Vec<Typed> {
        keys.iter().map(|&k| input.key(&KeyEvent::new(k, KeyModifiers::NONE))).collect()
    }

    fn ctrl(input: &mut LineEditor, c: char) -> Typed {
        input.key(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
    }

    #[test]
    fn the_cursor_moves_and_edits_where_it_is() {
        let mut line = LineEditor::new("agent=page size>10k".to_owned(), 100);
        assert_eq!(line.cursor(), 19);
        assert_eq!(ctrl(&mut line, 'w'), Typed::Edited);
        assert_eq!((line.text(), line.cursor()), ("agent=page ", 11));
        typed(&mut line, &[KeyCode::Home, KeyCode::Right, KeyCode::Right, KeyCode::Delete, KeyCode::Backspace]);
        assert_eq!((line.text(), line.cursor()), ("ant=page ", 1));
        typed(&mut line, &[KeyCode::Char('g'), KeyCode::Char('é')]);
        assert_eq!((line.text(), line.cursor()), ("agént=page ", 3));
        assert_eq!(ctrl(&mut line, 'u'), Typed::Edited);
        assert_eq!((line.text(), line.cursor()), ("nt=page ", 0));
        assert_eq!(ctrl(&mut line, 'e'), Typed::Edited);
        assert_eq!(line.cursor(), 8);
    }

    #[test]
    fn what_has_nothing_to_act_on_is_ignored() {
        let mut line = LineEditor::new("ab".to_owned(), 2);
        assert_eq!(typed(&mut line, &[KeyCode::Char('c'), KeyCode::Delete]), [Typed::Ignored, Typed::Ignored]);
        assert_eq!(typed(&mut line, &[KeyCode::Home, KeyCode::Backspace]), [Typed::Edited, Typed::Ignored]);
        assert_eq!(typed(&mut line, &[KeyCode::Tab, KeyCode::F(2)]), [Typed::Ignored, Typed::Ignored]);
        assert_eq!(ctrl(&mut line, 'x'), Typed::Ignored);
        assert_eq!(line.text(), "ab");
    }

    #[test]
    fn enter_escape_and_the_history_keys_are_the_callers() {
        let mut line = LineEditor::new(String::new(), 10);
        assert_eq!(
            typed(&mut line, &[KeyCode::Enter, KeyCode::Esc, KeyCode::Up, KeyCode::Down]),
            [Typed::Accept, Typed::Cancel, Typed::Older, Typed::Newer]
        );
        assert_eq!(ctrl(&mut line, 'c'), Typed::Cancel);
    }
}
