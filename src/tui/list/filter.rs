//! The filter: which entries the list shows. Badges chosen in the filter menu or on the
//! summary screen, and the query line's query, whose text terms are searched on a thread
//! of their own.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::analysis::Config;
use crate::query::{Known, Query, Subject, TextHit};

use crate::tui::badges::{Badge, Kind};
use crate::tui::entry::{Entry, EntryKey};

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
    /// Replies picked on a screen, required beside the rest.
    pub picked: Option<Picked>,
}

/// Replies picked by key on a screen (the rounds screen's change from the round before),
/// with what they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picked {
    pub what: String,
    pub keys: Arc<HashSet<EntryKey>>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        self.on.is_empty() && self.query.is_none() && self.picked.is_none()
    }

    /// Whether `e` passes, given whether it is marked.
    pub fn admits(&self, e: &Entry, marked: bool, config: &Config) -> bool {
        if self.query.as_ref().is_some_and(|q| !q.admits(e)) {
            return false;
        }
        if self.picked.as_ref().is_some_and(|p| !p.keys.contains(&e.key)) {
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
        let mut parts: Vec<String> = kinds.values().map(|v| v.join("|")).collect();
        parts.extend(self.picked.as_ref().map(|p| p.what.clone()));
        parts.join(" · ")
    }
}
