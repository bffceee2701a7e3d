//! Everything the inspector shows, and nothing it does: [`State`] is what
//! [`update`](super::update::update) changes and what [`render`](super::view::render) draws.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use regex::Regex;

use crate::query::{Known, Query, QueryError, Subject, TextHit};
use crate::read::value::Value;
use crate::readers::ReaderId;
use crate::reading::Config;

use super::analysis::Detail;
use super::badges::{Badge, Kind};
use super::entry::{Entry, EntryKey};
use super::index::FileIndex;
use super::marks::Mark;
use super::message::{Incoming, Progress, WatchState};
use super::summary::Corpus;
use super::wrap::Wrapping;

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

/// A one-line text input.
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
        input: String,
    },
    Filter {
        cursor: usize,
    },
    /// The summary screen, in place of the panes.
    Summary,
    /// The query line, being edited.
    Query(QueryLine),
    /// The documents and their pages, in place of the panes.
    Documents,
}

/// The query line while it is edited: the text, the cursor (in characters), the entry of
/// the history shown (Up and Down), and why the last Enter was refused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryLine {
    pub input: String,
    pub cursor: usize,
    pub recall: Option<usize>,
    pub error: Option<QueryError>,
}

/// A query applied to the list, with what its text terms made of the replies searched so
/// far. The search runs on a thread of its own; `generation` tells its answers from those
/// of a query replaced since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub query: Arc<Query>,
    pub generation: u64,
    /// What the text terms made of each reply searched.
    pub hits: HashMap<EntryKey, TextHit>,
    /// Replies sent to be searched.
    pub asked: usize,
}

impl Applied {
    /// Whether `e` passes: every term holds of it, its text searched where a term reads it.
    /// A reply whose facts or text are not read yet does not pass yet.
    pub fn admits(&self, e: &Entry) -> bool {
        let q = &self.query;
        if q.is_empty() {
            return true;
        }
        let reference = e.reference();
        if q.fields(&subject(e, &reference)) != Some(true) {
            return false;
        }
        if !q.reads_text() {
            return true;
        }
        match e.is_reply() {
            true => self.hits.get(&e.key).is_some_and(|h| h.holds),
            false => q.text(None).holds,
        }
    }

    /// Whether every reply asked about has been searched.
    pub fn searched(&self) -> bool {
        self.hits.len() >= self.asked
    }
}

/// What the query reads of a list entry (its reference is made by the caller, once).
pub fn subject<'a>(e: &'a Entry, reference: &'a str) -> Subject<'a> {
    let facts = match (e.facts.as_deref(), e.is_reply()) {
        (Some(f), _) => Known::Yes(f),
        (None, true) => Known::Pending,
        (None, false) => Known::Never,
    };
    Subject { id: &e.id, reference, meta: e.meta(), size: e.is_reply().then(|| e.size()), facts }
}

/// The filter: badges (rows of the scan's report, or the inspector's states) chosen in the
/// filter menu or on the summary screen; alternatives within a kind, every kind required.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    pub on: BTreeSet<Badge>,
    /// The query line's query, required beside the badges.
    pub query: Option<Applied>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        self.on.is_empty() && self.query.is_none()
    }

    /// Whether `e` passes, given whether it is marked.
    pub fn admits(&self, e: &Entry, marked: bool, config: &Config) -> bool {
        if self.query.as_ref().is_some_and(|q| !q.admits(e)) {
            return false;
        }
        let mut kinds: BTreeMap<Kind, bool> = BTreeMap::new();
        for badge in &self.on {
            *kinds.entry(badge.alternatives()).or_insert(false) |= badge.admits(e, marked, config);
        }
        kinds.values().all(|&hit| hit)
    }

    /// `decided by last-wins|whole-reply · agent page`, for the status line.
    pub fn describe(&self, config: &Config) -> String {
        let mut kinds: BTreeMap<Kind, Vec<String>> = BTreeMap::new();
        for b in &self.on {
            kinds.entry(b.alternatives()).or_default().push(b.name(config));
        }
        kinds.values().map(|v| v.join("|")).collect::<Vec<_>>().join(" · ")
    }
}

/// The list's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Path, then line: the order the logs have.
    Source,
    /// Largest first.
    Size,
    /// The most telling first: nothing read, the whole-reply reading, disagreements.
    Outcome,
    /// By the record's time, oldest first (arrival order where a record has none).
    Time,
    /// Grouped by round and document, then by page, then by time: a document's pages in
    /// order, each page's calls as they were made.
    Document,
}

impl SortKey {
    pub fn next(self) -> SortKey {
        match self {
            SortKey::Source => SortKey::Size,
            SortKey::Size => SortKey::Outcome,
            SortKey::Outcome => SortKey::Time,
            SortKey::Time => SortKey::Document,
            SortKey::Document => SortKey::Source,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SortKey::Source => "source",
            SortKey::Size => "size",
            SortKey::Outcome => "outcome",
            SortKey::Time => "time",
            SortKey::Document => "document",
        }
    }
}

/// Which value the value pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueSource {
    /// The reader's answer.
    Answer,
    /// The selected candidate's value (the reading the walk took, else the first that parses).
    Candidate,
}

/// The value pane's tree: which nodes are toggled from their default, where the cursor is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeView {
    pub source: ValueSource,
    /// Paths (child indices from the root) whose open/closed state differs from the default.
    pub toggled: HashSet<Vec<u32>>,
    pub cursor: usize,
    pub top: usize,
}

impl Default for TreeView {
    fn default() -> Self {
        TreeView { source: ValueSource::Answer, toggled: HashSet::new(), cursor: 0, top: 0 }
    }
}

/// A search of the reply text.
#[derive(Debug, Clone)]
pub struct Search {
    pub pattern: String,
    pub regex: Regex,
    /// The reply the matches are in.
    pub key: Option<EntryKey>,
    /// Byte spans of the matches.
    pub matches: Vec<(usize, usize)>,
    pub current: Option<usize>,
}

/// The reply text wrapped at a width: where each screen row starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrap {
    pub key: EntryKey,
    pub width: u16,
    pub how: Wrapping,
    pub rows: Vec<usize>,
}

/// What one reply's panes are scrolled to; reset when another reply is selected.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplyView {
    /// Whether the reply's record has arrived and the view was placed on its answer.
    pub placed: bool,
    pub candidate: usize,
    pub text_top: usize,
    pub readings_top: u16,
    pub decision_top: u16,
    pub compare_top: u16,
    pub tree: TreeView,
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

/// The inspector's state.
#[derive(Debug)]
pub struct State {
    /// What was opened.
    pub roots: Vec<PathBuf>,
    /// Every entry, in arrival order.
    pub entries: Vec<Entry>,
    pub by_key: HashMap<EntryKey, usize>,
    /// Where each file's entries are.
    pub(crate) files: FileIndex,
    /// The entries shown, filtered and sorted: indices into `entries`.
    pub view: Vec<usize>,
    /// Position in `view` of the selected entry.
    pub cursor: usize,
    pub list_top: usize,
    pub focus: Pane,
    pub mode: Mode,
    pub filter: Filter,
    /// What the filter menu offers, gathered when it opens.
    pub choices: Vec<Badge>,
    pub sort: SortKey,
    /// Full records of recently viewed replies, most recent last.
    pub details: Vec<(EntryKey, Arc<Detail>)>,
    /// The reply whose record was asked for and has not come back.
    pub wanted: Option<EntryKey>,
    pub reply: ReplyView,
    /// The reply `reply` belongs to.
    pub reply_key: Option<EntryKey>,
    pub wrap: Option<Wrap>,
    pub search: Option<Search>,
    /// The scan of what is loaded, as the summary screen shows it; rebuilt from the
    /// entries' facts while the screen is open, `None` until it first opens.
    pub corpus: Option<Corpus>,
    pub summary: SummaryView,
    pub documents: DocumentsView,
    /// Queries applied, oldest first, each once.
    pub history: Vec<String>,
    /// The last query given a generation (the text search's answers carry it).
    pub(crate) generation: u64,
    /// How the reply text wraps.
    pub wrapping: Wrapping,
    /// Nothing has been chosen yet: the first reply of a campaign is selected as it arrives.
    pub(crate) landing: bool,
    /// What the inspector reads and compares: the scan's config, its readers included.
    pub config: Arc<Config>,
    /// The reader the `≠` badge and the readers pane set beside the seed.
    pub compared: ReaderId,
    /// The what-if whose answer the list shows beside the seed's.
    pub what_if: Option<ReaderId>,
    pub marks: BTreeMap<String, Mark>,
    pub progress: Progress,
    pub watch: WatchState,
    pub last_diagnostic: Option<String>,
    pub diagnostics: usize,
    /// The outcome of the last action, shown in the status line until the next key.
    pub flash: Option<String>,
    pub follow: bool,
    pub paused: bool,
    /// Changes that arrived while paused.
    pub held: Vec<Incoming>,
    /// Terminal size.
    pub size: (u16, u16),
    pub quit: bool,
    /// Ids of entries dropped by a restart of their file, so that reading them again does
    /// not make them new.
    pub(crate) restarted: HashSet<String>,
    pub(crate) view_dirty: bool,
    /// Entries or facts changed since the corpus was folded.
    /// Changes to entries or facts since the corpus was folded: it is folded again once they
    /// are many for its size, or once every reply is read (a fold reads every entry, and
    /// folding on every batch of a 1 GB campaign's facts would be quadratic).
    pub(crate) corpus_stale: usize,
    /// An entry to select once the view is rebuilt (following new replies).
    pub(crate) select: Option<EntryKey>,
    /// Entries looked at to keep the view and the indexes (compared, filtered, passed
    /// over), for tests that hold the cost of a batch to its size.
    pub(crate) work: u64,
}

impl State {
    pub fn new(roots: Vec<PathBuf>, marks: BTreeMap<String, Mark>, size: (u16, u16)) -> State {
        State {
            roots,
            entries: Vec::new(),
            by_key: HashMap::new(),
            files: FileIndex::default(),
            view: Vec::new(),
            cursor: 0,
            list_top: 0,
            focus: Pane::List,
            mode: Mode::Normal,
            filter: Filter::default(),
            choices: Vec::new(),
            sort: SortKey::Source,
            details: Vec::new(),
            wanted: None,
            reply: ReplyView::default(),
            reply_key: None,
            wrap: None,
            search: None,
            corpus: None,
            summary: SummaryView::default(),
            documents: DocumentsView::default(),
            history: Vec::new(),
            generation: 0,
            wrapping: Wrapping::default(),
            landing: true,
            config: Arc::new(Config::default()),
            compared: ReaderId::FIRST_WINS,
            what_if: None,
            marks,
            progress: Progress::default(),
            watch: WatchState::Off,
            last_diagnostic: None,
            diagnostics: 0,
            flash: None,
            follow: false,
            paused: false,
            held: Vec::new(),
            size,
            quit: false,
            restarted: HashSet::new(),
            view_dirty: false,
            corpus_stale: 1,
            select: None,
            work: 0,
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

    /// The selected entry.
    pub fn selected(&self) -> Option<&Entry> {
        self.view.get(self.cursor).and_then(|&i| self.entries.get(i))
    }

    pub fn entry(&self, key: EntryKey) -> Option<&Entry> {
        self.by_key.get(&key).and_then(|&i| self.entries.get(i))
    }

    /// The full record of the selected reply, if it has arrived.
    pub fn detail(&self) -> Option<&Arc<Detail>> {
        let key = self.selected()?.key;
        self.details.iter().rev().find(|(k, _)| *k == key).map(|(_, d)| d)
    }

    pub fn is_marked(&self, e: &Entry) -> bool {
        self.marks.contains_key(&e.id)
    }

    /// The value the value pane shows: the answer, or the selected candidate's. `Err` says
    /// why there is none yet.
    pub fn shown_value(&self) -> Result<Option<&Value>, String> {
        let e = self.selected().ok_or_else(|| "nothing selected".to_owned())?;
        if !e.is_reply() {
            return Err("not a reply".to_owned());
        }
        let d = self.detail().ok_or_else(|| "still reading this reply".to_owned())?;
        Ok(match self.reply.tree.source {
            ValueSource::Answer => d.trace.value.as_ref(),
            ValueSource::Candidate => d.candidate_value(self.reply.candidate),
        })
    }

    /// How many replies (not events or diagnostics) are loaded.
    pub fn reply_count(&self) -> usize {
        self.entries.iter().filter(|e| e.is_reply()).count()
    }
}
