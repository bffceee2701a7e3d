//! Everything the inspector shows, and nothing it does: [`State`] is what
//! [`update`](super::update::update) changes and what [`render`](super::view::render) draws.
//! Its parts keep their own invariants: the [list](super::list) its order, the
//! [reply panes](super::reply) their scroll positions and records, [loading](super::loading)
//! what is held while paused.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::analysis::Config;
use crate::exact::value::Value;
use crate::query::QueryError;
use crate::readers::ReaderId;
use crate::scan::rounds::{CallKey, Rounds};

use super::badges::Badge;
use super::entry::Entry;
use super::input::LineEditor;
use super::list::{Lens, List};
use super::loading::Loading;
use super::marks::Mark;
use super::reply::{ReplyPanes, ValueSource};
use super::shrank::PageFlags;
use super::summary::Corpus;
use crate::analysis::detail::Detail;

/// The panes, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    List,
    Text,
    Readings,
    Decision,
    Value,
    Compare,
}

impl Pane {
    pub const ORDER: [Pane; 6] = [Pane::List, Pane::Text, Pane::Readings, Pane::Decision, Pane::Value, Pane::Compare];

    pub fn title(self) -> &'static str {
        match self {
            Pane::List => "replies",
            Pane::Text => "reply text",
            Pane::Readings => "candidate readings",
            Pane::Decision => "decision",
            Pane::Value => "value",
            Pane::Compare => "readers",
        }
    }

    pub fn index(self) -> usize {
        Pane::ORDER.iter().position(|&p| p == self).unwrap_or(0)
    }
}

/// What a line typed in place of the status line is for (the query line has its own mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    Search,
    Mark,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    Help {
        scroll: u16,
    },
    Prompt {
        kind: PromptKind,
        line: LineEditor,
    },
    Filter {
        cursor: usize,
    },
    /// The readers menu: the what-if to set beside the seed (0 is none).
    Readers {
        cursor: usize,
    },
    /// The summary screen, in place of the panes.
    Summary,
    /// The query line, being edited.
    Query(QueryLine),
    /// The documents and their pages, in place of the panes.
    Documents,
    /// The rounds side by side, in place of the panes.
    Rounds,
    /// One page of one document across the rounds, from the documents screen.
    PageHistory {
        document: String,
        page: u32,
        /// The round selected, and whether its replies are shown side by side with the
        /// earlier round's (Enter).
        round: usize,
        opened: bool,
    },
}

/// The query line while it is edited: the line, the entry of the history shown (Up and
/// Down), and why the last Enter was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryLine {
    pub input: LineEditor,
    pub recall: Option<usize>,
    pub error: Option<QueryError>,
}

/// Where the summary screen is: the selected row (counting every row of every section)
/// and the first line shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SummaryView {
    pub cursor: usize,
    pub top: usize,
}

/// Where the documents screen is: the selected row and the first shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocumentsView {
    pub cursor: usize,
    pub top: usize,
}

/// What the rounds screen shows.
#[derive(Debug, Clone)]
pub struct Screen {
    pub rounds: Rounds,
    /// `keys[i]` is the call of the scan's reply `i`, as it is known across rounds.
    pub keys: Vec<CallKey>,
}

/// Where the rounds screen is: the selected count (a line) and round (a column), and the
/// first line shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoundsView {
    pub line: usize,
    pub round: usize,
    pub top: usize,
}

/// Why the value pane has no value to show (`Ok(None)` is a value: JavaScript's `null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NoValue {
    #[error("nothing selected")]
    NothingSelected,
    #[error("not a reply")]
    NotAReply,
    /// Its record has not come back from the details thread yet.
    #[error("still reading this reply")]
    StillReading,
}

/// The inspector's state, in parts: the list, the selected reply's panes, loading and
/// watching; then the screens and what they read.
#[derive(Debug)]
pub struct State {
    /// What was opened.
    pub roots: Vec<PathBuf>,
    /// The entries, the view of them, the selection, the marks.
    pub list: List,
    /// The selected reply's panes.
    pub reply: ReplyPanes,
    pub loading: Loading,
    pub focus: Pane,
    pub mode: Mode,
    /// What the filter menu offers, gathered when it opens.
    pub choices: Vec<Badge>,
    /// The scan of what is loaded, as the summary screen shows it; rebuilt from the
    /// entries' facts while the screen is open, `None` until it first opens.
    pub corpus: Option<Corpus>,
    /// Changes to entries or facts since the corpus was folded: it is folded again once they
    /// are many for its size, or once every reply is read (a fold reads every entry, and
    /// folding on every batch of a 1 GB campaign's facts would be quadratic).
    pub(crate) corpus_stale: usize,
    /// Of those, new facts of replies the corpus has not folded in: folded on, not anew.
    pub(crate) corpus_facts: usize,
    pub summary: SummaryView,
    pub documents: DocumentsView,
    /// The rounds screen: the selected count and round, and the first line shown.
    pub rounds: RoundsView,
    /// What the rounds screen shows, laid out from the corpus of that version: made once a
    /// fold, not on every frame.
    pub rounds_screen: Option<(u64, Arc<Screen>)>,
    /// Folds of the corpus so far.
    pub(crate) corpus_version: u64,
    /// The `page-shrank` flags, kept on the pages' final answers as replies come and change.
    pub(crate) page_flags: PageFlags,
    /// Queries applied, oldest first, each once.
    pub history: Vec<String>,
    /// The last query given a generation (the text search's answers carry it).
    pub(crate) generation: u64,
    /// What the inspector reads and compares: the scan's config, its readers included.
    pub config: Arc<Config>,
    /// The reader the `≠` badge and the readers pane set beside the seed.
    pub compared: ReaderId,
    /// The what-if whose answer the list shows beside the seed's.
    pub what_if: Option<ReaderId>,
    /// The outcome of the last action, shown in the status line until the next key.
    pub flash: Option<String>,
    /// Terminal size.
    pub size: (u16, u16),
    pub quit: bool,
}

impl State {
    pub fn new(roots: Vec<PathBuf>, marks: BTreeMap<String, Mark>, size: (u16, u16)) -> State {
        State {
            roots,
            list: List::new(marks),
            reply: ReplyPanes::default(),
            loading: Loading::default(),
            focus: Pane::List,
            mode: Mode::Normal,
            choices: Vec::new(),
            corpus: None,
            corpus_stale: 1,
            corpus_facts: 0,
            summary: SummaryView::default(),
            documents: DocumentsView::default(),
            rounds: RoundsView::default(),
            rounds_screen: None,
            corpus_version: 0,
            page_flags: PageFlags::default(),
            history: Vec::new(),
            generation: 0,
            config: Arc::new(Config::default()),
            compared: ReaderId::FIRST_WINS,
            what_if: None,
            flash: None,
            size,
            quit: false,
        }
    }

    /// Reads and compares with `config`'s readers. A reader the user gave as a command is
    /// what they came to see: the `≠` badge and the what-if column start on the first.
    pub fn set_config(&mut self, config: Config) {
        if let Some(r) = config.commands().first().copied() {
            self.compared = r;
            self.what_if = Some(r);
        }
        self.config = Arc::new(config);
    }

    /// The readers `w` steps through and the readers menu offers, in order: the readers of
    /// one's own first (what one gives them for is to see them), then the built-in what-ifs,
    /// each as the config compares it with the seed.
    pub fn what_ifs(&self) -> Vec<ReaderId> {
        let against = self.config.pairs.iter().filter(|p| p.against_seed()).map(|p| p.from);
        let (mine, built_in): (Vec<ReaderId>, Vec<ReaderId>) =
            against.partition(|&r| self.config.catalogue.is_command(r));
        mine.into_iter().chain(built_in).collect()
    }

    /// What the list reads entries' badges and outcomes by.
    pub fn lens(&self) -> Lens {
        Lens { config: self.config.clone(), compared: self.compared }
    }

    /// The selected entry.
    pub fn selected(&self) -> Option<&Entry> {
        self.list.selected()
    }

    /// The full record of the selected reply, if it has arrived.
    pub fn detail(&self) -> Option<&Arc<Detail>> {
        self.reply.detail(self.selected()?.key)
    }

    /// The value the value pane shows: the answer, or the selected candidate's. `Err` says
    /// why there is none yet.
    pub fn shown_value(&self) -> Result<Option<&Value>, NoValue> {
        let e = self.selected().ok_or(NoValue::NothingSelected)?;
        if !e.is_reply() {
            return Err(NoValue::NotAReply);
        }
        let d = self.detail().ok_or(NoValue::StillReading)?;
        Ok(match self.reply.tree.source {
            ValueSource::Answer => d.trace.value.as_ref(),
            ValueSource::Candidate => d.candidate_value(self.reply.candidate),
        })
    }
}
