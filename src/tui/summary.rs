//! The summary screen's content, apart from how it is drawn: the corpus scan of what is
//! loaded, and the report's rows as the screen shows them.
//!
//! The worker reads every reply with the scan's own [`Facts`](crate::reading::Facts), and the facts are kept on
//! the entry. The [`Corpus`] is folded from them by the same [`Scanner`] `bracewalk scan`
//! uses, and its sections and rows are the scan's [`report`], so the screen and the command
//! agree; it is rebuilt (cheaply: the reading is done) whenever entries or facts change
//! while the screen is open. A row is also a filter ([`Row::holds`] over an entry's facts),
//! so the list filtered by it keeps following the replies as they arrive, and admits exactly
//! the replies the scan puts behind the row.

use crate::describe::thousands;
use crate::describe::{self, plural};
use crate::reading::{Class, Config};
use crate::scan::report::{self, Kind, Row, Section};
use crate::scan::{Scan, Scanner};

use super::entry::{Body, Entry, EntryKey};

/// The scan of the loaded replies, with the entry behind each of its reply numbers.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub scan: Scan,
    /// `keys[i]` is the entry of the scan's reply `i`.
    pub keys: Vec<EntryKey>,
    /// Replies whose facts are still being read: not counted yet.
    pub pending: usize,
    /// Replies whose text could not be read again: not counted.
    pub gone: usize,
}

impl Corpus {
    /// Folds the complete facts of `entries` in load order (path, then line), as `bracewalk
    /// scan` orders its replies. Names and metadata are the entry's own, as last amended.
    pub fn of(entries: &[Entry], config: &Config) -> Corpus {
        let mut order: Vec<&Entry> = entries.iter().filter(|e| !e.gone).collect();
        order.sort_by(|a, b| a.source.cmp(&b.source).then(a.line.cmp(&b.line)).then(a.key.cmp(&b.key)));
        let mut scanner = Scanner::new(config.clone());
        let mut keys = Vec::new();
        let mut calls = Vec::new();
        let mut pending = 0;
        for e in order {
            match &e.body {
                Body::Reply { .. } => match e.facts.as_deref() {
                    Some(f) if f.complete => {
                        scanner.add_facts(f.clone());
                        keys.push(e.key);
                    }
                    _ => pending += 1,
                },
                Body::Event { .. } => calls.push(e.id.clone()),
                Body::Diagnostic(d) => scanner.add_diagnostic(d),
            }
        }
        let mut scan = scanner.finish();
        scan.calls_without_reply = calls;
        let gone = entries.iter().filter(|e| e.gone && e.is_reply()).count();
        Corpus { scan, keys, pending, gone }
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
    let n = scan.replies.len();
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
                Row::Differs(p) => scan.comparisons.get(p).map(|c| Class::ALL.map(|k| c.count(k))),
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
        // 4 decided, 5 verdicts, no agents, rounds or formats, 3 repair, 2 truncation, 5
        // risk flags, 10 comparisons.
        assert_eq!(row_count(&s), 29);
        assert_eq!(section_start(&s, 0, true), 4);
        assert_eq!(section_start(&s, 4, true), 9);
        assert_eq!(section_start(&s, 9, true), 12);
        assert_eq!(section_start(&s, 12, true), 14);
        assert_eq!(section_start(&s, 14, true), 19);
        assert_eq!(section_start(&s, 28, true), 19);
        assert_eq!(section_start(&s, 20, false), 19);
        assert_eq!(section_start(&s, 15, false), 14);
        assert_eq!(section_start(&s, 14, false), 12);
        assert_eq!(section_start(&s, 0, false), 0);
        assert_eq!(line_of(&slots(&s), 4), 6);
    }
}
