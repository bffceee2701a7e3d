//! The keys, as data: one table of (keys, action, description) per mode. The event loop
//! looks keys up here, and the help screen is built from the same tables, so a binding
//! cannot exist without its description.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key as the tables name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    Char(char),
    Ctrl(char),
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Tab,
    BackTab,
    Enter,
    Esc,
    Backspace,
    Delete,
}

impl Key {
    /// The key a terminal event is, if the tables can name it.
    pub fn of(ev: &KeyEvent) -> Option<Key> {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        Some(match ev.code {
            KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
            KeyCode::Char(c) => Key::Char(c),
            KeyCode::Up => Key::Up,
            KeyCode::Down => Key::Down,
            KeyCode::Left => Key::Left,
            KeyCode::Right => Key::Right,
            KeyCode::PageUp => Key::PageUp,
            KeyCode::PageDown => Key::PageDown,
            KeyCode::Home => Key::Home,
            KeyCode::End => Key::End,
            KeyCode::Tab if ev.modifiers.contains(KeyModifiers::SHIFT) => Key::BackTab,
            KeyCode::Tab => Key::Tab,
            KeyCode::BackTab => Key::BackTab,
            KeyCode::Enter => Key::Enter,
            KeyCode::Esc => Key::Esc,
            KeyCode::Backspace => Key::Backspace,
            KeyCode::Delete => Key::Delete,
            _ => return None,
        })
    }

    /// How the help screen writes the key.
    pub fn name(self) -> String {
        match self {
            Key::Char(' ') => "Space".to_owned(),
            Key::Char(c) => c.to_string(),
            Key::Ctrl(c) => format!("Ctrl-{c}"),
            Key::Up => "↑".to_owned(),
            Key::Down => "↓".to_owned(),
            Key::Left => "←".to_owned(),
            Key::Right => "→".to_owned(),
            Key::PageUp => "PgUp".to_owned(),
            Key::PageDown => "PgDn".to_owned(),
            Key::Home => "Home".to_owned(),
            Key::End => "End".to_owned(),
            Key::Tab => "Tab".to_owned(),
            Key::BackTab => "Shift-Tab".to_owned(),
            Key::Enter => "Enter".to_owned(),
            Key::Esc => "Esc".to_owned(),
            Key::Backspace => "Backspace".to_owned(),
            Key::Delete => "Delete".to_owned(),
        }
    }
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Down,
    Up,
    Top,
    Bottom,
    PageDown,
    PageUp,
    FocusNext,
    FocusPrev,
    Focus(u8),
    DrillIn,
    Back,
    PrevCandidate,
    NextCandidate,
    Search,
    SearchNext,
    SearchPrev,
    Filter,
    Sort,
    Mark,
    Unmark,
    NextMark,
    Yank,
    Open,
    ValueSource,
    Follow,
    Pause,
    Summary,
    Query,
    Documents,
    Rounds,
    /// The documents screen: the selected document's pages across the rounds.
    History,
    PrevColumn,
    NextColumn,
    Wrap,
    WhatIf,
    WhatIfBack,
    Readers,
    Help,
    Quit,
    // The filter menu.
    Toggle,
    ClearFilter,
    Close,
    // The summary screen, the readers menu.
    Choose,
    // A line being typed.
    Accept,
    Cancel,
    CursorLeft,
    CursorRight,
    LineStart,
    LineEnd,
    DeleteBack,
    DeleteForward,
    DeleteToStart,
    DeleteWord,
    Older,
    Newer,
}

impl Action {
    /// Where this key moves a cursor over rows `0..=last` from `at` (a page is `page` rows),
    /// for the keys that move alike on every screen; `None` for any other key.
    pub fn moved(self, at: usize, last: usize, page: usize) -> Option<usize> {
        Some(match self {
            Action::Down => at + 1,
            Action::Up => at.saturating_sub(1),
            Action::Top => 0,
            Action::Bottom => last,
            Action::PageDown => at + page,
            Action::PageUp => at.saturating_sub(page),
            _ => return None,
        })
    }
}

/// One binding: the keys, what they do, and the line the help screen shows.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub keys: &'static [Key],
    pub action: Action,
    pub what: &'static str,
}

const fn b(keys: &'static [Key], action: Action, what: &'static str) -> Binding {
    Binding { keys, action, what }
}

/// The keys of the main screen.
pub const NORMAL: &[Binding] = &[
    b(&[Key::Char('j'), Key::Down], Action::Down, "next reply (in the list) / scroll down / next row"),
    b(&[Key::Char('k'), Key::Up], Action::Up, "previous reply / scroll up / previous row"),
    b(&[Key::Char('g'), Key::Home], Action::Top, "first reply / top of the pane"),
    b(&[Key::Char('G'), Key::End], Action::Bottom, "last reply / bottom of the pane"),
    b(&[Key::PageDown, Key::Ctrl('d')], Action::PageDown, "a page down"),
    b(&[Key::PageUp, Key::Ctrl('u')], Action::PageUp, "a page up"),
    b(&[Key::Tab], Action::FocusNext, "focus the next pane"),
    b(&[Key::BackTab], Action::FocusPrev, "focus the previous pane"),
    b(&[Key::Char('1')], Action::Focus(0), "focus the reply list"),
    b(&[Key::Char('2')], Action::Focus(1), "focus the reply text"),
    b(&[Key::Char('3')], Action::Focus(2), "focus the candidate's readings"),
    b(&[Key::Char('4')], Action::Focus(3), "focus the decision"),
    b(&[Key::Char('5')], Action::Focus(4), "focus the value"),
    b(&[Key::Char('6')], Action::Focus(5), "focus the reader comparison"),
    b(&[Key::Enter, Key::Right], Action::DrillIn, "drill in: reply → text → readings; open/close a value node"),
    b(&[Key::Esc, Key::Left], Action::Back, "back out: readings → text → list; clear the search"),
    b(&[Key::Char('[')], Action::PrevCandidate, "previous `{` candidate"),
    b(&[Key::Char(']')], Action::NextCandidate, "next `{` candidate"),
    b(&[Key::Char('/')], Action::Search, "search the reply text (regex)"),
    b(&[Key::Char('n')], Action::SearchNext, "next match"),
    b(&[Key::Char('N')], Action::SearchPrev, "previous match"),
    b(&[Key::Char('f')], Action::Filter, "filter by outcome, agent, round, format"),
    b(&[Key::Char(':')], Action::Query, "query line: doc=3f1c page=17 agent=page size>10k, a text regex (below)"),
    b(
        &[Key::Char('d')],
        Action::Documents,
        "documents: each document's pages, final answers, verdicts; Enter lists a page",
    ),
    b(
        &[Key::Char('R')],
        Action::Rounds,
        "rounds side by side: every count of the summary per round, its change, its trend; Enter lists a cell",
    ),
    b(&[Key::Char('s')], Action::Sort, "sort by source → size → outcome → time → document"),
    b(&[Key::Char('m')], Action::Mark, "mark the reply for triage, with a note"),
    b(&[Key::Char('M')], Action::Unmark, "remove the reply's mark"),
    b(&[Key::Char('\'')], Action::NextMark, "next marked reply"),
    b(&[Key::Char('z')], Action::Wrap, "reply text: wrap at words ⇄ hard at the column"),
    b(&[Key::Char('v')], Action::ValueSource, "value pane: the answer ⇄ the selected candidate's value"),
    b(&[Key::Char('y')], Action::Yank, "yank the value shown as JSON (OSC 52: works over ssh)"),
    b(&[Key::Char('o')], Action::Open, "open the reply in $EDITOR (or $PAGER) at the candidate's line"),
    b(&[Key::Char('F')], Action::Follow, "follow: select each new reply as it arrives"),
    b(&[Key::Char('p')], Action::Pause, "pause / resume live updates"),
    b(&[Key::Char('S')], Action::Summary, "summary: the corpus scan's counts, outcomes by agent and round, what-ifs"),
    b(
        &[Key::Char('w')],
        Action::WhatIf,
        "what-if: the next reader beside the seed (list column, readers pane): yours first, then first-wins, …, none",
    ),
    b(&[Key::Char('W')], Action::WhatIfBack, "what-if: the reader before, back through the same round"),
    b(
        &[Key::Char('r')],
        Action::Readers,
        "readers: pick the what-if from a menu, each with how it differs from the seed",
    ),
    b(&[Key::Char('?')], Action::Help, "this help"),
    b(&[Key::Char('q'), Key::Ctrl('c')], Action::Quit, "quit"),
];

/// The keys of the filter menu.
pub const FILTER: &[Binding] = &[
    b(&[Key::Char('j'), Key::Down], Action::Down, "next choice"),
    b(&[Key::Char('k'), Key::Up], Action::Up, "previous choice"),
    b(&[Key::Char(' '), Key::Enter], Action::Toggle, "toggle the choice"),
    b(&[Key::Char('c')], Action::ClearFilter, "clear every choice"),
    b(&[Key::Esc, Key::Char('f'), Key::Char('q')], Action::Close, "close the menu"),
];

/// The keys of the summary screen.
pub const SUMMARY: &[Binding] = &[
    b(&[Key::Char('j'), Key::Down], Action::Down, "next row"),
    b(&[Key::Char('k'), Key::Up], Action::Up, "previous row"),
    b(&[Key::Char('g'), Key::Home], Action::Top, "first row"),
    b(&[Key::Char('G'), Key::End], Action::Bottom, "last row"),
    b(&[Key::PageDown, Key::Ctrl('d')], Action::PageDown, "a page down"),
    b(&[Key::PageUp, Key::Ctrl('u')], Action::PageUp, "a page up"),
    b(&[Key::Tab], Action::FocusNext, "next section"),
    b(&[Key::BackTab], Action::FocusPrev, "previous section"),
    b(&[Key::Enter], Action::Choose, "list the replies behind the row (filter; f then c clears), select the first"),
    b(&[Key::Char('w')], Action::WhatIf, "what-if column: the next reader shown beside the seed"),
    b(&[Key::Char('W')], Action::WhatIfBack, "what-if column: the reader before"),
    b(&[Key::Char('R')], Action::Rounds, "the same counts, round by round"),
    b(&[Key::Esc, Key::Char('S'), Key::Char('q')], Action::Close, "back to the list"),
];

/// The keys of the readers menu.
pub const READERS: &[Binding] = &[
    b(&[Key::Char('j'), Key::Down], Action::Down, "next reader"),
    b(&[Key::Char('k'), Key::Up], Action::Up, "previous reader"),
    b(&[Key::Char('g'), Key::Home], Action::Top, "the first (none)"),
    b(&[Key::Char('G'), Key::End], Action::Bottom, "the last reader"),
    b(&[Key::Enter, Key::Char(' ')], Action::Choose, "set it beside the seed (the list's column, the readers pane)"),
    b(&[Key::Esc, Key::Char('r'), Key::Char('q')], Action::Close, "close the menu, the what-if as it was"),
];

/// The keys of the documents screen.
pub const DOCUMENTS: &[Binding] = &[
    b(&[Key::Char('j'), Key::Down], Action::Down, "next row"),
    b(&[Key::Char('k'), Key::Up], Action::Up, "previous row"),
    b(&[Key::Char('g'), Key::Home], Action::Top, "first row"),
    b(&[Key::Char('G'), Key::End], Action::Bottom, "last row"),
    b(&[Key::PageDown, Key::Ctrl('d')], Action::PageDown, "a page down"),
    b(&[Key::PageUp, Key::Ctrl('u')], Action::PageUp, "a page up"),
    b(&[Key::Tab], Action::FocusNext, "next document"),
    b(&[Key::BackTab], Action::FocusPrev, "previous document"),
    b(
        &[Key::Enter],
        Action::Choose,
        "list the page's replies (every agent and iteration, in time order), or the document's",
    ),
    b(
        &[Key::Char('a')],
        Action::History,
        "the document's pages across the rounds: each page's final answer in each round, a lost page painted",
    ),
    b(&[Key::Esc, Key::Char('d'), Key::Char('q')], Action::Close, "back to the list"),
];

/// The keys of the rounds screen.
pub const ROUNDS: &[Binding] = &[
    b(&[Key::Char('j'), Key::Down], Action::Down, "next count"),
    b(&[Key::Char('k'), Key::Up], Action::Up, "previous count"),
    b(&[Key::Char('l'), Key::Right], Action::NextColumn, "next cell: a round's count, then its change"),
    b(&[Key::Char('h'), Key::Left], Action::PrevColumn, "previous cell"),
    b(&[Key::Char('g'), Key::Home], Action::Top, "first count"),
    b(&[Key::Char('G'), Key::End], Action::Bottom, "last count"),
    b(&[Key::PageDown, Key::Ctrl('d')], Action::PageDown, "a page down"),
    b(&[Key::PageUp, Key::Ctrl('u')], Action::PageUp, "a page up"),
    b(
        &[Key::Enter],
        Action::Choose,
        "list the replies behind the cell; on a change, the replies that make it (both rounds')",
    ),
    b(&[Key::Char('S')], Action::Summary, "the summary: the same counts over every round"),
    b(&[Key::Esc, Key::Char('R'), Key::Char('q')], Action::Close, "back to the list"),
];

/// The keys of a document's pages across the rounds.
pub const HISTORY: &[Binding] = &[
    b(&[Key::Char('j'), Key::Down], Action::Down, "next page"),
    b(&[Key::Char('k'), Key::Up], Action::Up, "previous page"),
    b(&[Key::Char('l'), Key::Right], Action::NextColumn, "next round"),
    b(&[Key::Char('h'), Key::Left], Action::PrevColumn, "previous round"),
    b(&[Key::Char('g'), Key::Home], Action::Top, "first page"),
    b(&[Key::Char('G'), Key::End], Action::Bottom, "last page"),
    b(
        &[Key::Enter],
        Action::Choose,
        "this round's final answer and the earlier round's side by side, with their decisions (again: back)",
    ),
    b(&[Key::Esc, Key::Char('a'), Key::Char('q')], Action::Close, "back to the documents"),
];

/// The keys of a line being typed (the query line, a search, a mark's note); any other
/// character is typed.
pub const LINE: &[Binding] = &[
    b(
        &[Key::Enter],
        Action::Accept,
        "apply the query (an empty one clears it; one with an error stays, its column shown), search, mark",
    ),
    b(&[Key::Esc, Key::Ctrl('c')], Action::Cancel, "cancel: the query applied, the search, the mark stay as they were"),
    b(&[Key::Left], Action::CursorLeft, "the cursor a character back"),
    b(&[Key::Right], Action::CursorRight, "the cursor a character on"),
    b(&[Key::Home, Key::Ctrl('a')], Action::LineStart, "the cursor to the start of the line"),
    b(&[Key::End, Key::Ctrl('e')], Action::LineEnd, "the cursor to the end of the line"),
    b(&[Key::Backspace], Action::DeleteBack, "delete the character before the cursor"),
    b(&[Key::Delete], Action::DeleteForward, "delete the character at the cursor"),
    b(&[Key::Ctrl('u')], Action::DeleteToStart, "delete to the start of the line"),
    b(&[Key::Ctrl('w')], Action::DeleteWord, "delete the word before the cursor"),
    b(&[Key::Up], Action::Older, "the query line: the query applied before"),
    b(&[Key::Down], Action::Newer, "the query line: the next query applied, then an empty line"),
];

/// The keys of the help screen.
pub const HELP: &[Binding] = &[
    b(&[Key::Char('j'), Key::Down], Action::Down, "scroll down"),
    b(&[Key::Char('k'), Key::Up], Action::Up, "scroll up"),
    b(&[Key::Esc, Key::Char('?'), Key::Char('q')], Action::Close, "close the help"),
];

/// What the mouse does; shown in the help.
pub const MOUSE: &[(&str, &str)] = &[
    ("click", "select a reply, focus a pane, pick a candidate in the text"),
    ("wheel", "scroll the pane under the pointer"),
];

/// The key tables as the help screen and the man page give them: each titled by where it
/// applies, the main screen's first.
pub const TABLES: [(&str, &[Binding]); 8] = [
    ("Keys", NORMAL),
    ("In the filter menu (f)", FILTER),
    ("In the readers menu (r)", READERS),
    ("On the summary screen (S)", SUMMARY),
    ("On the documents screen (d)", DOCUMENTS),
    ("On the rounds screen (R)", ROUNDS),
    ("A document's pages across the rounds (a on the documents screen)", HISTORY),
    ("Typing a line: the query (:), a search (/), a note (m)", LINE),
];

/// The action `key` has in `table`.
pub fn lookup(table: &[Binding], key: Key) -> Option<Action> {
    table.iter().find(|b| b.keys.contains(&key)).map(|b| b.action)
}

/// `j ↓` for a binding.
pub fn keys_text(binding: &Binding) -> String {
    binding.keys.iter().map(|k| k.name()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice_in_one_table() {
        for table in [NORMAL, FILTER, SUMMARY, DOCUMENTS, ROUNDS, HISTORY, HELP, LINE, READERS] {
            let mut seen = std::collections::HashSet::new();
            for binding in table {
                for k in binding.keys {
                    assert!(seen.insert(*k), "{k:?} bound twice");
                }
            }
        }
    }

    #[test]
    fn the_issue_keys_are_all_bound() {
        for c in
            ['j', 'k', 'g', 'G', '[', ']', '/', 'n', 'N', 'f', 's', 'm', '\'', 'y', 'o', 'F', 'p', 'S', 'w', '?', 'q']
        {
            assert!(lookup(NORMAL, Key::Char(c)).is_some(), "{c}");
        }
        for k in [Key::Up, Key::Down, Key::PageUp, Key::PageDown, Key::Tab, Key::BackTab, Key::Enter, Key::Esc] {
            assert!(lookup(NORMAL, k).is_some(), "{k:?}");
        }
    }

    #[test]
    fn shift_tab_and_control_keys_are_recognized() {
        let ev = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(Key::of(&ev), Some(Key::BackTab));
        let ev = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(lookup(NORMAL, Key::of(&ev).unwrap()), Some(Action::Quit));
        let ev = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(lookup(NORMAL, Key::of(&ev).unwrap()), Some(Action::Bottom));
    }
}
