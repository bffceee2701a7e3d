//! Each page's final answer from round to round. A page's final answer is what the documents
//! screen delivers for it: among its calls in time order, the page agent's last reply, else
//! the last reply ([`final_of`]); its size is the characters of the `html` string the seed
//! reads from it ([`page_size`]). The calls are gathered as they are loaded ([`Pages`], one per
//! scan, shards appended in order), and compared once they are all in ([`Pages::history`]):
//! a page that shrank or vanished since the round before is a [`Loss`].
//!
//! The scan gathers them; [`super::rounds`] sets them beside the scan's counts.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::str::FromStr;

use crate::analysis::Partial;
use crate::analysis::Raised;
use crate::exact::Value;
use crate::exact::member::string_member_chars;
use crate::logs::{Meta, Name};
use crate::natural::Natural;

/// The agent whose replies are a page's renders: its last one is the page's final answer.
pub const PAGE_AGENT: &str = "page";

/// What part of its size in the round before a page may shrink to before it is flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fraction {
    millionths: u32,
}

impl Fraction {
    /// A half: the seed's case (8,334 characters to 3) is far below it, a page re-rendered in
    /// other words far above.
    pub const HALF: Fraction = Fraction { millionths: 500_000 };

    /// Whether `after` characters are under this fraction of `before`.
    pub fn under(self, after: usize, before: usize) -> bool {
        (after as u128) * 1_000_000 < (before as u128) * u128::from(self.millionths)
    }
}

impl Default for Fraction {
    fn default() -> Fraction {
        Fraction::HALF
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = format!("{:.6}", f64::from(self.millionths) / 1e6);
        f.write_str(s.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// Why a fraction could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a fraction: give one between 0 and 1 (0.5) or a percentage (50%)")]
pub struct FractionError(String);

impl FromStr for Fraction {
    type Err = FractionError;
    fn from_str(s: &str) -> Result<Fraction, FractionError> {
        let bad = || FractionError(s.to_owned());
        let t = s.trim();
        let value = match t.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().map_err(|_| bad())? / 100.0,
            None => t.parse::<f64>().map_err(|_| bad())?,
        };
        if !(0.0..=1.0).contains(&value) {
            return Err(bad());
        }
        Ok(Fraction { millionths: (value * 1e6).round() as u32 })
    }
}

/// The size of the page an answer delivers: the characters of its `html` string, where it has
/// one (`None` for an answer with no such string, or none at all).
pub fn page_size(answer: Option<&Value>) -> Option<usize> {
    match answer? {
        Value::Object(o) => match o.get(PAGE_FIELD)? {
            Value::String(s) => Some(s.char_len()),
            _ => None,
        },
        _ => None,
    }
}

/// The field of an answer that holds its page.
const PAGE_FIELD: &str = "html";

/// [`page_size`] of the seed's answer to a reply being read: measured in the reply where the
/// answer is JSON as it stands and nothing built its value (on most replies every reader
/// agrees, and building the value to measure one string is most of what reading it costs),
/// else in its value.
pub fn seed_page_size(partial: &mut Partial) -> Option<usize> {
    match partial.seed_json() {
        Some(json) => string_member_chars(json, PAGE_FIELD),
        None => page_size(partial.seed()),
    }
}

/// The final answer among a page's calls in time order: the page agent's last reply, else
/// the last reply. What the documents screen delivers for a page, and what the rounds compare.
pub fn final_of<T>(calls: &[T], is_reply: impl Fn(&T) -> bool, agent: impl Fn(&T) -> Option<&str>) -> Option<&T> {
    let page_agent = |c: &&T| is_reply(c) && agent(c) == Some(PAGE_AGENT);
    calls.iter().rev().find(page_agent).or_else(|| calls.iter().rev().find(|c| is_reply(c)))
}

/// One call of a bench document, as the rounds compare it. `R` names a reply: its number in a
/// scan, or an inspector's entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call<R> {
    /// The reply it left, where the one who gathered the calls can name it.
    pub reply: Option<R>,
    /// Whether it left a reply (a reply a filter passed over is one, unnamed).
    pub answered: bool,
    pub round: Name,
    pub document: Name,
    /// `None`: a call of the document that names no page (the review loop).
    pub page: Option<u32>,
    pub agent: Option<Name>,
    pub ts: Option<Name>,
    /// The characters of page its answer delivers ([`page_size`]).
    pub html: Option<usize>,
    /// The document's run in this round has ended (the bench or the run logged its outcome).
    pub ended: bool,
}

impl<R> Call<R> {
    /// A call of `meta`'s document in `meta`'s round, if it names both.
    pub fn of(meta: &Meta, reply: Option<R>, answered: bool, html: Option<usize>) -> Option<Call<R>> {
        Some(Call {
            reply,
            answered,
            round: meta.round.clone()?,
            document: meta.document.clone()?,
            page: meta.page,
            agent: meta.agent.clone(),
            ts: meta.ts.clone(),
            html,
            ended: meta.document_outcome.is_some() || meta.run_outcome.is_some(),
        })
    }
}

/// The calls of a campaign's documents, in load order: what a page's history is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pages<R> {
    pub calls: Vec<Call<R>>,
}

impl<R> Default for Pages<R> {
    fn default() -> Pages<R> {
        Pages { calls: Vec::new() }
    }
}

/// What a page's final answer delivered in one round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivered<R> {
    /// Its final answer: the reply (where it can be named), and its page's characters.
    Answer { reply: Option<R>, html: Option<usize> },
    /// The page's calls left no reply.
    NoReply,
    /// No call names the page, in a run of the document that has ended.
    NoCall,
}

impl<R> Delivered<R> {
    /// The characters of page delivered: 0 for none.
    pub fn size(&self) -> usize {
        match self {
            Delivered::Answer { html, .. } => html.unwrap_or(0),
            _ => 0,
        }
    }
}

/// A page whose final answer shrank or vanished since an earlier round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss<R> {
    pub document: String,
    pub page: u32,
    /// The round it was lost in, and its index among the history's rounds.
    pub round: String,
    pub at: usize,
    /// The latest earlier round whose final answer delivered the page, and its index.
    pub since: String,
    pub since_at: usize,
    pub before: usize,
    /// What this round's final answer delivers (`None`: nothing).
    pub after: Option<usize>,
    /// This round's final answer, if there is one and it can be named.
    pub reply: Option<R>,
    /// Whether this round has a final answer (a reply) for the page.
    pub answered: bool,
    /// The earlier round's final answer.
    pub earlier: Option<R>,
}

impl<R> Loss<R> {
    /// The page vanished: nothing, or no character of it, is delivered.
    pub fn vanished(&self) -> bool {
        self.after.unwrap_or(0) == 0
    }

    /// The flag raised on this round's final answer.
    pub fn raised(&self) -> Raised {
        Raised::PageShrank {
            document: self.document.as_str().into(),
            page: self.page,
            since: self.since.as_str().into(),
            before: self.before,
            after: self.after,
        }
    }

    /// What became of the page, in words: `shrank` or `vanished (no reply)`.
    pub fn how(&self) -> &'static str {
        match (self.vanished(), self.answered) {
            (false, _) => "shrank",
            (true, true) => "vanished",
            (true, false) => "vanished (no reply)",
        }
    }
}

/// Every page of every document across the rounds: what each round's final answer delivered,
/// and the pages lost since an earlier round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct History<R> {
    /// The rounds the documents' calls name, in natural order.
    pub rounds: Vec<String>,
    /// For each (document, page), what each round delivered (`None`: the document was not in
    /// that round, or the page was not called in a run still going).
    pub pages: BTreeMap<(String, u32), Vec<Option<Delivered<R>>>>,
    /// For each round, the documents it ran, and of their pages the ones delivered.
    pub documents: Vec<usize>,
    pub pages_delivered: Vec<usize>,
    /// Pages lost, by round, then document and page.
    pub losses: Vec<Loss<R>>,
}

impl<R: Clone> Pages<R> {
    pub fn push(&mut self, call: Call<R>) {
        self.calls.push(call);
    }

    /// Each page's final answer in each round, and what was lost, with `fraction` the least
    /// part of its size a page may keep.
    pub fn history(&self, fraction: Fraction) -> History<R> {
        let rounds: Vec<String> = {
            let set: BTreeSet<Natural> = self.calls.iter().map(|c| Natural(c.round.to_string())).collect();
            set.into_iter().map(|n| n.0).collect()
        };
        let at: HashMap<&str, usize> = rounds.iter().enumerate().map(|(i, r)| (r.as_str(), i)).collect();
        // (document, round) → whether its run ended, and its calls by page, in load order.
        type Run<'a, R> = (bool, BTreeMap<u32, Vec<(usize, &'a Call<R>)>>);
        let mut runs: BTreeMap<(&str, usize), Run<R>> = BTreeMap::new();
        for (n, c) in self.calls.iter().enumerate() {
            let Some(&r) = at.get(&*c.round) else { continue };
            let run = runs.entry((&*c.document, r)).or_default();
            run.0 |= c.ended;
            if let Some(p) = c.page {
                run.1.entry(p).or_default().push((n, c));
            }
        }
        let mut pages: BTreeMap<(String, u32), Vec<Option<Delivered<R>>>> = BTreeMap::new();
        let mut documents = vec![0; rounds.len()];
        let mut pages_delivered = vec![0; rounds.len()];
        // Every page a document's run named in any round.
        let mut named: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
        for ((doc, _), (_, by_page)) in &runs {
            named.entry(doc).or_default().extend(by_page.keys());
        }
        for ((doc, r), (ended, by_page)) in &runs {
            documents[*r] += 1;
            for &p in &named[doc] {
                let delivered = match by_page.get(&p) {
                    Some(calls) => {
                        let mut calls = calls.clone();
                        calls.sort_by(|a, b| a.1.ts.cmp(&b.1.ts).then(a.0.cmp(&b.0)));
                        match final_of(&calls, |c| c.1.answered, |c| c.1.agent.as_deref()) {
                            Some((_, c)) => Delivered::Answer { reply: c.reply.clone(), html: c.html },
                            None => Delivered::NoReply,
                        }
                    }
                    None if *ended => Delivered::NoCall,
                    None => continue,
                };
                if delivered.size() > 0 {
                    pages_delivered[*r] += 1;
                }
                let slot = pages.entry(((*doc).to_owned(), p)).or_insert_with(|| vec![None; rounds.len()]);
                slot[*r] = Some(delivered);
            }
        }
        let mut losses = Vec::new();
        for ((doc, p), by_round) in &pages {
            // The latest round whose final answer delivered the page: its index, size, reply.
            let mut delivered: Option<(usize, usize, Option<R>)> = None;
            for (r, d) in by_round.iter().enumerate() {
                let Some(d) = d else { continue };
                if let Some((since_at, before, earlier)) = &delivered {
                    let after = d.size();
                    if after == 0 || fraction.under(after, *before) {
                        let (reply, answered, after) = match d {
                            Delivered::Answer { reply, html } => (reply.clone(), true, *html),
                            _ => (None, false, None),
                        };
                        losses.push(Loss {
                            document: doc.clone(),
                            page: *p,
                            round: rounds[r].clone(),
                            at: r,
                            since: rounds[*since_at].clone(),
                            since_at: *since_at,
                            before: *before,
                            after,
                            reply,
                            answered,
                            earlier: earlier.clone(),
                        });
                    }
                }
                if let Delivered::Answer { reply, html: Some(n) } = d
                    && *n > 0
                {
                    delivered = Some((r, *n, reply.clone()));
                }
            }
        }
        losses.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| (&a.document, a.page).cmp(&(&b.document, b.page))));
        History { rounds, pages, documents, pages_delivered, losses }
    }
}

impl Pages<usize> {
    /// These calls after `other`'s, `other`'s replies numbered from `base` on (a scan
    /// appended to another).
    pub fn append(&mut self, other: Pages<usize>, base: usize) {
        self.calls.extend(other.calls.into_iter().map(|c| Call { reply: c.reply.map(|r| r + base), ..c }));
    }
}
