//! Documents and their pages, as the documents screen (`d`) shows them: every bench document
//! of every round, its pages in order, and for each page its calls in time order, the final
//! answer (the page agent's last reply), and the verification logged after the page's last
//! call. A page number no call names, up to the highest one named, is a missing page: the
//! report "page 17 is missing" is read off this screen.
//!
//! Made from the list's entries on demand, a pure function of them; Enter on a row becomes
//! a query (`doc=… round=… page=17`), so the list it opens is the query line's.

use std::collections::BTreeMap;

use crate::logs::Name;
use crate::natural::Natural;
use crate::scan::rounds::final_of;

use super::entry::{Entry, EntryKey};
use super::state::State;

/// An answer's `html` shorter than this is a tiny page: worth a look.
pub const TINY_HTML: usize = 64;

/// One page of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// `None`: the document's calls that name no page (the review loop).
    pub number: Option<u32>,
    /// Its calls, replies and calls that left none, in time order.
    pub calls: Vec<EntryKey>,
    /// How many of them are replies, by agent, in the order agents first appear.
    pub agents: Vec<(String, usize)>,
    /// The final answer: the page agent's last reply, else the last reply
    /// ([`final_of`], what the rounds compare).
    pub last: Option<EntryKey>,
    /// The verification logged after the page's last verified call.
    pub verified: Option<bool>,
}

impl Page {
    /// No call names it, though a later page is named.
    pub fn missing(&self) -> bool {
        self.calls.is_empty()
    }
}

/// One document of one round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub round: Option<String>,
    pub id: String,
    /// The document's outcome, from the ledger.
    pub outcome: Option<String>,
    /// Its pages in order, missing ones included, then the calls with no page.
    pub pages: Vec<Page>,
}

impl Document {
    /// The query that lists the document's calls (`page`: one page's).
    pub fn query(&self, page: Option<&Page>) -> String {
        let mut q = format!("doc={}", quoted(&self.id));
        if let Some(r) = &self.round {
            q.push_str(&format!(" round={}", quoted(r)));
        }
        match page.map(|p| p.number) {
            Some(Some(n)) => q.push_str(&format!(" page={n}")),
            Some(None) => q.push_str(" page=none"),
            None => {}
        }
        q
    }
}

/// A value as the query reads it back, quoted where it must be.
pub(crate) fn quoted(v: &str) -> String {
    if v.is_empty() || v.eq_ignore_ascii_case("none") || v.contains(|c: char| c.is_whitespace() || c == ',' || c == '"')
    {
        format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        v.to_owned()
    }
}

/// A row of the screen: a document's heading, or one of its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentRow {
    Document(usize),
    Page(usize, usize),
}

/// Every document the list's entries name, by round then id.
pub fn documents(state: &State) -> Vec<Document> {
    // (round, document) → (its outcome, its calls by page).
    type Calls<'a> = (Option<Name>, BTreeMap<Option<u32>, Vec<&'a Entry>>);
    // Rounds in natural order: `round-2` before `round-10`.
    let mut by_doc: BTreeMap<(Option<Natural>, Name), Calls> = BTreeMap::new();
    for e in state.list.entries() {
        let Some(m) = e.meta() else { continue };
        let Some(doc) = &m.document else { continue };
        let slot = by_doc.entry((m.round.as_deref().map(|r| Natural(r.to_owned())), doc.clone())).or_default();
        if slot.0.is_none() {
            slot.0.clone_from(&m.document_outcome);
        }
        slot.1.entry(m.page).or_default().push(e);
    }
    by_doc
        .into_iter()
        .map(|((round, id), (outcome, pages))| {
            let highest = pages.keys().filter_map(|p| *p).max().unwrap_or(0);
            let mut out = Vec::new();
            for n in 1..=highest {
                out.push(page(Some(n), pages.get(&Some(n)).cloned().unwrap_or_default()));
            }
            // Page 0, where a pipeline counts from it.
            if let Some(calls) = pages.get(&Some(0)) {
                out.insert(0, page(Some(0), calls.clone()));
            }
            if let Some(calls) = pages.get(&None) {
                out.push(page(None, calls.clone()));
            }
            Document {
                round: round.map(|r| r.0),
                id: id.to_string(),
                outcome: outcome.as_deref().map(str::to_owned),
                pages: out,
            }
        })
        .collect()
}

fn page(number: Option<u32>, mut calls: Vec<&Entry>) -> Page {
    let ts = |e: &Entry| e.meta().and_then(|m| m.ts.clone());
    calls.sort_by(|a, b| {
        ts(a).cmp(&ts(b)).then(crate::natural::cmp_paths(&a.source, &b.source)).then(a.line.cmp(&b.line))
    });
    let mut agents: Vec<(String, usize)> = Vec::new();
    for e in calls.iter().filter(|e| e.is_reply()) {
        let name = e.meta().and_then(|m| m.agent.as_deref()).unwrap_or("—").to_owned();
        match agents.iter_mut().find(|(a, _)| *a == name) {
            Some((_, n)) => *n += 1,
            None => agents.push((name, 1)),
        }
    }
    // The page's final answer, as the rounds compare it.
    let last = final_of(&calls, |e| e.is_reply(), |e| e.meta().and_then(|m| m.agent.as_deref())).map(|e| e.key);
    let verified = calls.iter().rev().find_map(|e| e.meta().and_then(|m| m.page_verified));
    Page { number, calls: calls.iter().map(|e| e.key).collect(), agents, last, verified }
}

/// The rows of the screen, documents and their pages in order.
pub fn rows(docs: &[Document]) -> Vec<DocumentRow> {
    let mut out = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        out.push(DocumentRow::Document(d));
        out.extend((0..doc.pages.len()).map(|p| DocumentRow::Page(d, p)));
    }
    out
}
