//! A line of the inspector's list: a reply, a call that left no reply, or a load problem,
//! with what the scan's readers made of it.

use std::path::Path;
use std::sync::Arc;

use crate::analysis::{Config, Facts, Flag};
use crate::logs::{Diagnostic, EventKind, Item, Listed, Locator, Meta, Name, Place, StopReason, Written};
use crate::readers::ReaderId;

/// A list entry's identity for the whole session (ids can repeat across files; keys can't).
pub type EntryKey = u64;

/// What a list entry is.
#[derive(Debug, Clone)]
pub enum Body {
    Reply {
        text: Text,
        meta: Box<Meta>,
    },
    /// A call that left no reply (a truncated or failed call).
    Event {
        kind: EventKind,
        message: String,
        meta: Box<Meta>,
    },
    /// A problem loading an input: listed so a bad file is seen, not hidden. Boxed: the
    /// list holds a reply in every other entry, and a diagnostic is the largest of the three.
    Diagnostic(Box<Diagnostic>),
}

/// A reply's text as the list keeps it: its size and hash, and, for a reply loaded from a
/// file, nothing else: the text is read again where it is ([`Entry::locator`]) when it is
/// wanted, so a campaign of 1 GB costs the list a few hundred bytes a reply.
#[derive(Debug, Clone)]
pub struct Text {
    pub len: usize,
    /// Of the text as listed, to tell a reply that changed on disk since.
    pub hash: u64,
    /// The byte offset of the reply's record in its file.
    pub offset: u64,
    /// The text itself, for a reply given in memory rather than loaded from a file.
    pub held: Option<Arc<str>>,
    /// Where a listing found it written in its file, when it is one string of a line; none
    /// once the reply is found changed (`len` and `hash` are then the new text's).
    pub written: Option<Place>,
}

impl Text {
    pub fn of(text: &str, offset: u64, held: bool) -> Text {
        Text { len: text.len(), hash: hash(text), offset, held: held.then(|| Arc::from(text)), written: None }
    }
}

/// The hash [`Text::hash`] is.
pub fn hash(text: &str) -> u64 {
    crate::logs::text_hash(text)
}

/// One line of the list.
#[derive(Debug, Clone)]
pub struct Entry {
    pub key: EntryKey,
    /// Shared with its facts and the summary's name of it.
    pub id: Name,
    /// Shared with every entry of its file, where the list's intake gave it one copy
    /// ([`crate::logs::Names::path`]).
    pub source: Arc<Path>,
    pub line: Option<usize>,
    pub body: Body,
    /// What the scan's readers make of the reply: its badges, the what-if column, the
    /// summary screen. The early part comes first ([`Facts::early`]), then the rest.
    pub facts: Option<Box<Facts>>,
    /// A one-line sketch of the seed's answer (`{html: 3 chars, log: …}`), or `null`.
    pub sketch: Option<Box<str>>,
    /// The characters of that answer's `html` string, where it has one.
    pub html: Option<usize>,
    /// Arrived after the first load finished.
    pub new: bool,
    /// Its text could not be read again where it was listed.
    pub gone: bool,
    /// Its text was found changed on disk since it was listed, and read again.
    pub changed: bool,
}

impl Entry {
    /// An entry for `item`, a reply's text held with it: an item made in memory.
    pub fn from_item(key: EntryKey, item: Item) -> Entry {
        Entry::new(key, item, true)
    }

    /// An entry for `item`, loaded from its file: a reply's text is not held, but read again
    /// from the file when it is wanted.
    pub fn loaded(key: EntryKey, item: Item) -> Entry {
        Entry::new(key, item, false)
    }

    /// An entry for a reply listed without its text: read from its file when it is wanted.
    pub fn listed(key: EntryKey, l: Listed) -> Entry {
        let written = l.written.filter(|w| (w.len, w.hash) == (l.len, l.hash)).map(|w| w.place());
        let text = Text { len: l.len, hash: l.hash, offset: l.offset, held: None, written };
        Entry::of(key, l.id, l.source.into(), l.line, Body::Reply { text, meta: Box::new(l.meta) })
    }

    /// What is known of an item as it is listed; its reading comes later.
    fn of(key: EntryKey, id: String, source: Arc<Path>, line: Option<usize>, body: Body) -> Entry {
        Entry {
            key,
            id: id.into(),
            source,
            line,
            body,
            facts: None,
            sketch: None,
            html: None,
            new: false,
            gone: false,
            changed: false,
        }
    }

    fn new(key: EntryKey, item: Item, hold: bool) -> Entry {
        let of = |id, source, line, body| Entry::of(key, id, source, line, body);
        match item {
            Item::Reply(r) => of(
                r.id,
                r.source.into(),
                r.line,
                Body::Reply { text: Text::of(&r.text, r.offset, hold), meta: Box::new(r.meta) },
            ),
            Item::Event(e) => of(
                e.id,
                e.source.into(),
                e.line,
                Body::Event { kind: e.kind, message: e.message, meta: Box::new(e.meta) },
            ),
            Item::Diagnostic(d) => of(
                crate::logs::Diagnostic::to_string(&d),
                d.source.as_path().into(),
                d.line,
                Body::Diagnostic(Box::new(d)),
            ),
        }
    }

    /// The reply's text as the list keeps it.
    pub fn text(&self) -> Option<&Text> {
        match &self.body {
            Body::Reply { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The reply's text, where the entry holds it (a reply made in memory).
    pub fn held_text(&self) -> Option<&Arc<str>> {
        self.text().and_then(|t| t.held.as_ref())
    }

    /// Where the reply's text is read again from.
    pub fn locator(&self) -> Option<Locator> {
        let t = self.text()?;
        Some(Locator {
            source: self.source.clone(),
            id: self.id.clone(),
            line: self.line,
            offset: t.offset,
            // Only while the text is the one listed: a reply found changed was read whole.
            written: t.written.map(|p| Written::placed(p, t.len, t.hash)),
        })
    }

    pub fn meta(&self) -> Option<&Meta> {
        match &self.body {
            Body::Reply { meta, .. } | Body::Event { meta, .. } => Some(meta),
            Body::Diagnostic(_) => None,
        }
    }

    pub fn is_reply(&self) -> bool {
        matches!(self.body, Body::Reply { .. })
    }

    /// Takes facts read from this reply's text, and names them after it (its id, where it
    /// is, its metadata as last amended), as the scan names a reply's facts.
    pub fn set_facts(&mut self, mut facts: Facts) {
        // A flag raised over the rounds is no reading's: it stays until the rounds say
        // otherwise (`super::shrank`).
        let over_rounds = self.facts.as_deref().and_then(|f| f.flags.iter().find(|r| r.flag() == Flag::PageShrank));
        if let Some(r) = over_rounds.filter(|_| !facts.has(Flag::PageShrank)) {
            facts.flags.push(r.clone());
        }
        let reference = self.reference();
        facts.reference = (*reference != *self.id).then(|| reference.into());
        facts.id.clone_from(&self.id);
        if let Some(meta) = self.meta() {
            facts.agent.clone_from(&meta.agent);
            facts.round.clone_from(&meta.round);
            facts.format = meta.format;
        }
        self.facts = Some(Box::new(facts));
    }

    /// Whether the reply's facts are all read, every comparison made.
    pub fn complete(&self) -> bool {
        self.facts.as_deref().is_some_and(|f| f.complete)
    }

    /// What `reader` makes of the reply against the seed: `None` while that is still being
    /// read (or is not compared), `Some(None)` for the same answer, `Some(Some(account))` for
    /// another one, as the scan accounts for it.
    pub fn against_seed<'a>(&'a self, config: &Config, reader: ReaderId) -> Option<Option<&'a str>> {
        let f = self.facts.as_deref()?;
        let p = config.pair_with_seed(reader)?;
        (f.complete || config.is_early(p)).then(|| f.difference(p))
    }

    /// Why `reader`, a command, gave no answer for the reply (its comparisons are not made).
    pub fn failed(&self, reader: ReaderId) -> Option<&str> {
        let f = self.facts.as_deref()?;
        f.failure(reader)
    }

    /// Bytes of reply text (0 for the rest).
    pub fn size(&self) -> usize {
        self.text().map_or(0, |t| t.len)
    }

    /// Whether the log says the model was cut off.
    pub fn cut(&self) -> bool {
        match &self.body {
            Body::Reply { meta, .. } => meta.stop == StopReason::Truncated,
            Body::Event { kind, .. } => *kind == EventKind::Truncated,
            Body::Diagnostic(_) => false,
        }
    }

    /// Where the entry is, short: `3f1c9a0e7b2d4c58:135` for a run's `log.jsonl` (the run
    /// directory names the document), `formats/page-009.json`, or the record's own id.
    pub fn label(&self) -> String {
        let path_based = self.id.starts_with(&*self.source.to_string_lossy());
        if !path_based && !matches!(self.body, Body::Diagnostic(_)) {
            return self.id.to_string();
        }
        let run_log = self.source.file_name().is_some_and(|n| n == "log.jsonl");
        let short = match self.source.parent().and_then(|p| p.file_name()) {
            Some(dir) if run_log => dir.to_string_lossy().into_owned(),
            _ => short_path(&self.source),
        };
        match self.line {
            Some(n) => format!("{short}:{n}"),
            None => short,
        }
    }

    /// `path:line`, or `path`: what `explain` accepts.
    pub fn reference(&self) -> String {
        match self.line {
            Some(n) => format!("{}:{n}", self.source.display()),
            None => self.source.display().to_string(),
        }
    }
}

/// The last two components of a path: enough to tell `run-3/log.jsonl` from `run-4/…`.
pub fn short_path(p: &Path) -> String {
    let parts: Vec<_> = p.components().rev().take(2).collect();
    let mut s = String::new();
    for c in parts.iter().rev() {
        if !s.is_empty() {
            s.push('/');
        }
        s.push_str(&c.as_os_str().to_string_lossy());
    }
    s
}
