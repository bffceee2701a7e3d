//! The summary screen's content, apart from how it is drawn: the corpus scan of what is
//! loaded, and the report's rows as the screen shows them.
//!
//! The worker reads every reply with the scan's own [`Facts`](crate::analysis::Facts), and the facts are kept on
//! the entry. The [`Corpus`] is folded from them by the same [`Scan`] `bracewalk scan`
//! builds, and its sections and rows are the scan's [`report`], so the screen and the command
//! agree; it is rebuilt (cheaply: the reading is done) whenever entries or facts change
//! while the screen is open. The summary's fold counts ([`Scan::count`]): the replies behind
//! the row on screen are found among the entries ([`Row::said`] over their facts, [`Behind`]),
//! as the list filtered by the row admits them ([`Row::holds`]), so that the list keeps
//! following the replies as they arrive, and a campaign's summary holds no list of its
//! replies. The rounds screen, which counts every row round by round, folds with lists.

use std::cmp::Ordering;

use crate::analysis::{Class, Config};
use crate::describe::thousands;
use crate::describe::{self, plural};
use crate::scan::report::{self, Kind, Row, Section};
use crate::scan::rounds::Call;
use crate::scan::{InputDiagnostic, Scan, Scanner};

use super::entry::{Body, Entry, EntryKey};
use super::list::List;

/// The scan of the loaded replies, with the entry behind each of its reply numbers.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Counts only ([`Scan::count`]) unless `listed`.
    pub scan: Scan,
    /// Whether the scan lists the replies behind its rows and their page calls (`Scan::add`),
    /// as the rounds screen needs.
    pub listed: bool,
    /// `keys[i]` is the entry of the scan's reply `i`.
    pub keys: Vec<EntryKey>,
    /// Replies whose facts are still being read: not counted yet.
    pub pending: usize,
    /// Replies whose text could not be read again: not counted.
    pub gone: usize,
    /// A fold of the entries in order up to the first reply still being read ([`Corpus::so_far`]):
    /// the rest of that order, to fold on from as their facts come.
    rest: Option<Rest>,
    /// The replies behind the row the summary shows, as far as they were found.
    behind: Option<Behind>,
}

/// The first replies behind a row, found among the entries in scan order: what the panel
/// under the summary's rows shows. Kept with its corpus and carried on as that folds on,
/// so that a batch of facts costs its own replies, not the list.
#[derive(Debug, Clone)]
pub struct Behind {
    pub row: Row,
    limit: usize,
    /// How many of the corpus's replies were looked at: `keys[..scanned]`.
    scanned: usize,
    /// Each reply's number and what the scan says of it there, at most `limit` a list: one
    /// list, or a comparison's by class in [`Class::ALL`] order, each account after its class.
    found: Vec<Vec<(usize, String)>>,
}

impl Behind {
    /// The first replies, in the order the panel shows them (a comparison's by class).
    pub fn replies(&self) -> impl Iterator<Item = &(usize, String)> {
        self.found.iter().flatten().take(self.limit)
    }
}

/// The entries a fold in order has not reached, by key, and those it has.
#[derive(Debug, Clone)]
struct Rest {
    /// Each entry's key, and whether it was a reply when the fold began.
    order: Vec<(EntryKey, bool)>,
    at: usize,
    /// The replies in `order[at..]`: counted as the fold passes them, not over the rest of
    /// the order on every batch of facts (which made a large campaign's fold quadratic).
    replies_ahead: usize,
    /// Whether the entry of each key was folded in, by key: keys are handed out one after
    /// another from 1 (`tui::watch`), so a flag a key is a byte a key, where a set of them
    /// would be ten to twenty.
    folded: Vec<bool>,
}

/// The entries to fold, in load order (path, then line), as `bracewalk scan` orders its
/// replies.
fn in_order(entries: &[Entry]) -> Vec<&Entry> {
    let mut order: Vec<&Entry> = entries.iter().filter(|e| !e.gone).collect();
    // Mostly in order already, a file's entries side by side: a source the same as the next
    // one's is told by its bytes, not compared component by component. Paths in the order a
    // load walks them: natural.
    let source = |a: &Entry, b: &Entry| {
        if a.source.as_os_str() == b.source.as_os_str() {
            Ordering::Equal
        } else {
            crate::natural::cmp_paths(&a.source, &b.source)
        }
    };
    order.sort_by(|a, b| source(a, b).then(a.line.cmp(&b.line)).then(a.key.cmp(&b.key)));
    order
}

impl Corpus {
    /// Folds the complete facts of `entries` in load order (path, then line), as `bracewalk
    /// scan` orders its replies. Names and metadata are the entry's own, as last amended.
    /// Lists the replies behind each row where `listed`, else counts them.
    pub fn of(entries: &[Entry], config: &Config, listed: bool) -> Corpus {
        let mut corpus = Corpus::empty(entries, config, listed);
        for e in in_order(entries) {
            corpus.fold(e);
        }
        corpus
    }

    /// [`Corpus::of`] as far as the first reply still being read; the rest is folded on
    /// ([`Corpus::fold_on`]) as the facts come, each entry once, so that a large campaign's
    /// summary is not folded again whole on every batch of facts; once every reply is read,
    /// it is what [`Corpus::of`] folds.
    pub fn so_far(list: &List, config: &Config, listed: bool) -> Corpus {
        let mut corpus = Corpus::empty(list.entries(), config, listed);
        let order: Vec<(EntryKey, bool)> =
            in_order(list.entries()).into_iter().map(|e| (e.key, e.is_reply())).collect();
        let replies_ahead = order.iter().filter(|(_, reply)| *reply).count();
        corpus.rest = Some(Rest { order, at: 0, replies_ahead, folded: Vec::new() });
        corpus.fold_on(list);
        corpus
    }

    /// Folds on from where [`Corpus::so_far`] stopped, as far as the next reply still being
    /// read. The replies still to fold are those of the order that were replies when the fold
    /// began (one gone since is counted until the fold passes it, or is folded anew).
    pub fn fold_on(&mut self, list: &List) {
        let Some(mut rest) = self.rest.take() else { return };
        while let Some(&(key, reply)) = rest.order.get(rest.at) {
            if let Some(e) = list.entry(key) {
                if e.is_reply() && !e.complete() {
                    break;
                }
                self.fold(e);
                if let Ok(k) = usize::try_from(key) {
                    if rest.folded.len() <= k {
                        rest.folded.resize(k + 1, false);
                    }
                    rest.folded[k] = true;
                }
            }
            rest.at += 1;
            rest.replies_ahead -= usize::from(reply);
        }
        // At its end the order has nothing more to give: a change after is folded anew.
        if rest.at == rest.order.len() {
            rest.order = Vec::new();
            rest.at = 0;
        }
        self.pending = rest.replies_ahead;
        self.rest = Some(rest);
    }

    /// Whether this is a fold in order that folds on ([`Corpus::so_far`]).
    pub fn folds_on(&self) -> bool {
        self.rest.is_some()
    }

    /// Whether the entry `key` is folded in by [`Corpus::fold_on`], so that new facts of it
    /// call for a fold anew.
    pub fn has_folded(&self, key: EntryKey) -> bool {
        let at = usize::try_from(key).ok();
        self.rest.as_ref().is_some_and(|r| at.and_then(|k| r.folded.get(k)).copied().unwrap_or(false))
    }

    fn empty(entries: &[Entry], config: &Config, listed: bool) -> Corpus {
        let gone = entries.iter().filter(|e| e.gone && e.is_reply()).count();
        Corpus {
            scan: Scanner::new(config.clone()).finish(),
            listed,
            keys: Vec::new(),
            pending: 0,
            gone,
            rest: None,
            behind: None,
        }
    }

    /// One entry, folded in after those before it.
    fn fold(&mut self, e: &Entry) {
        match &e.body {
            Body::Reply { meta, .. } => match e.facts.as_deref() {
                Some(f) if f.complete && self.listed => {
                    let index = self.keys.len();
                    self.scan.add(f.clone());
                    self.keys.push(e.key);
                    self.scan.pages.calls.extend(Call::of(meta, Some(index), true, e.html));
                }
                Some(f) if f.complete => {
                    self.scan.count(f);
                    self.keys.push(e.key);
                }
                _ => self.pending += 1,
            },
            Body::Event { meta, .. } if self.listed => {
                self.scan.calls_without_reply.push(e.id.to_string());
                self.scan.pages.calls.extend(Call::of(meta, None, false, None));
            }
            Body::Event { .. } => self.scan.unlisted.calls_without_reply += 1,
            Body::Diagnostic(d) => self.scan.unread.push(InputDiagnostic::Loaded((**d).clone())),
        }
    }

    /// The id of the scan's reply `i`, from its entry.
    pub fn id<'a>(&self, list: &'a List, i: usize) -> &'a str {
        self.keys.get(i).and_then(|&k| list.entry(k)).map_or("", |e| &*e.id)
    }

    /// The first `limit` replies behind `row` ([`Behind`]), found among the entries of
    /// `list`: carried on from where they were last looked for where the row and limit are
    /// the same (this corpus only folds on), looked for afresh otherwise.
    pub fn find_behind(&mut self, list: &List, row: &Row, limit: usize) {
        // The rows the panel lists in turn: a comparison's by class, each account after its
        // class; any other row, itself.
        let parts: Vec<Row> = match row {
            Row::Differs(p) => Class::ALL.iter().map(|&k| Row::Class(*p, k)).collect(),
            _ => vec![row.clone()],
        };
        let b = match &mut self.behind {
            Some(b) if b.row == *row && b.limit == limit => b,
            slot => slot.insert(Behind { row: row.clone(), limit, scanned: 0, found: vec![Vec::new(); parts.len()] }),
        };
        let config = &self.scan.config;
        // Each part's count, as folded: a part that has them all is complete.
        let counts: Vec<usize> = parts.iter().map(|r| r.count(&self.scan)).collect();
        for (i, &key) in self.keys.iter().enumerate().skip(b.scanned) {
            // The first part is shown first: once it is full, more replies change nothing
            // shown; nor once every part holds all it can.
            let complete = b.found.iter().zip(&counts).all(|(l, &n)| l.len() >= n.min(limit));
            if complete || b.found.first().is_none_or(|l| l.len() >= limit) {
                break;
            }
            b.scanned = i + 1;
            let Some(f) = list.entry(key).and_then(|e| e.facts.as_deref()) else { continue };
            for (part, found) in parts.iter().zip(&mut b.found) {
                if let Some(said) = part.said(f, config).filter(|_| found.len() < limit) {
                    let said = match part {
                        Row::Class(_, k) => format!("{:<7}  {said}", k.name()),
                        _ => said,
                    };
                    found.push((i, said));
                }
            }
        }
    }

    /// What [`Corpus::find_behind`] found last, if it was for `row`.
    pub fn behind(&self, row: &Row) -> Option<&Behind> {
        self.behind.as_ref().filter(|b| b.row == *row)
    }

    /// `142 replies, 290,452 bytes, 3 calls with no reply, 12 diagnostics`, as the command
    /// opens its report.
    pub fn headline(&self) -> String {
        report::headline(&self.scan)
    }
}

/// One row of the summary screen: a row of the report, with what its bar needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenRow {
    pub label: String,
    pub target: Row,
    pub count: usize,
    /// What the count is a share of (the percentage).
    pub of: usize,
    /// The count a full bar stands for.
    pub scale: usize,
    /// A word after the bar (`3 entries recovered`).
    pub note: String,
    /// For a group: how the seed decided its replies (drawn as a stacked bar).
    pub mix: Option<[usize; 4]>,
    /// For a comparison: its replies gained, lost and changed (drawn as a stacked bar).
    pub classes: Option<[usize; 3]>,
}

/// A titled group of lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenSection {
    pub title: &'static str,
    pub lines: Vec<ScreenRow>,
}

/// The report's sections as the screen shows them, in the order they are shown and
/// selected.
pub fn blocks(scan: &Scan) -> Vec<ScreenSection> {
    let n = scan.reply_count();
    report::sections(scan).into_iter().map(|s| block(scan, s, n)).collect()
}

fn block(scan: &Scan, section: Section, n: usize) -> ScreenSection {
    let largest = section.rows.iter().map(|r| r.count(scan)).max().unwrap_or(0);
    let lines = section
        .rows
        .into_iter()
        .map(|target| {
            let count = target.count(scan);
            let (scale, note, mix) = match section.kind {
                Kind::Groups => (largest, String::new(), target.group(scan).map(|g| g.decided_by)),
                // The share is written beside the count, and a comparison's readers are
                // described under the rows: the note is what is left.
                Kind::Counts if matches!(target, Row::Truncated(_)) => (n, target.note(scan), None),
                _ => (n, String::new(), None),
            };
            let classes = match target {
                Row::Differs(p) if p < scan.comparisons.len() => Some(Class::ALL.map(|k| Row::Class(p, k).count(scan))),
                _ => None,
            };
            // A comparison's note is its classes.
            let note = match classes {
                Some(counts) => Class::ALL
                    .iter()
                    .zip(counts)
                    .map(|(k, n)| format!("{} {}", thousands(n), k.name()))
                    .collect::<Vec<_>>()
                    .join(" · "),
                None => note,
            };
            ScreenRow {
                label: target.label(&scan.config),
                of: target.of(scan),
                count,
                scale,
                note,
                mix,
                classes,
                target,
            }
        })
        .collect();
    ScreenSection { title: section.title, lines }
}

/// `72.5`: `n` of `of` as a percentage (empty of nothing).
pub fn percent(n: usize, of: usize) -> String {
    describe::percent(n, of).trim_end_matches('%').to_owned()
}

/// A line of the screen's scrolling body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A block's title.
    Title(usize),
    /// ScreenSection, line within it, and the line's place among all lines (what the cursor counts).
    Row(usize, usize, usize),
}

/// The lines of the body, in order.
pub fn slots(blocks: &[ScreenSection]) -> Vec<Slot> {
    let mut out = Vec::new();
    let mut flat = 0;
    for (s, block) in blocks.iter().enumerate() {
        out.push(Slot::Title(s));
        for r in 0..block.lines.len() {
            out.push(Slot::Row(s, r, flat));
            flat += 1;
        }
    }
    out
}

/// How many lines can be selected.
pub fn row_count(blocks: &[ScreenSection]) -> usize {
    blocks.iter().map(|s| s.lines.len()).sum()
}

/// The line at the cursor.
pub fn row_at(blocks: &[ScreenSection], cursor: usize) -> Option<&ScreenRow> {
    blocks.iter().flat_map(|s| s.lines.iter()).nth(cursor)
}

/// The body line the cursor's row is on.
pub fn line_of(slots: &[Slot], cursor: usize) -> usize {
    slots.iter().position(|s| matches!(s, Slot::Row(_, _, f) if *f == cursor)).unwrap_or(0)
}

/// The first row of the block after (`forward`) or before the cursor's.
pub fn section_start(blocks: &[ScreenSection], cursor: usize, forward: bool) -> usize {
    let mut starts = Vec::new();
    let mut at = 0;
    for s in blocks {
        if !s.lines.is_empty() {
            starts.push(at);
        }
        at += s.lines.len();
    }
    let current = starts.iter().rposition(|&s| s <= cursor).unwrap_or(0);
    let target = if forward {
        (current + 1).min(starts.len().saturating_sub(1))
    } else if starts.get(current).is_some_and(|&s| s < cursor) {
        current
    } else {
        current.saturating_sub(1)
    };
    starts.get(target).copied().unwrap_or(0)
}

/// `1,204 replies` for the status line and the flash.
pub fn replies(n: usize) -> String {
    plural(n, "reply", "replies")
}

/// `12,345`, for the screen's counts.
pub fn count(n: usize) -> String {
    thousands(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_jump_by_their_first_rows() {
        let config = Config::default();
        let scan = Scanner::new(config).finish();
        let s = blocks(&scan);
        // 4 decided, 5 verdicts, no agents, rounds or formats, 3 repair, 2 truncation, 6
        // risk flags, 10 comparisons.
        assert_eq!(row_count(&s), 30);
        assert_eq!(section_start(&s, 0, true), 4);
        assert_eq!(section_start(&s, 4, true), 9);
        assert_eq!(section_start(&s, 9, true), 12);
        assert_eq!(section_start(&s, 12, true), 14);
        assert_eq!(section_start(&s, 14, true), 20);
        assert_eq!(section_start(&s, 29, true), 20);
        assert_eq!(section_start(&s, 21, false), 20);
        assert_eq!(section_start(&s, 15, false), 14);
        assert_eq!(section_start(&s, 14, false), 12);
        assert_eq!(section_start(&s, 0, false), 0);
        assert_eq!(line_of(&slots(&s), 4), 6);
    }
}
