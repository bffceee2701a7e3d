//! The summary screen's content, apart from how it is drawn: the corpus scan of what is
//! loaded, and the rows it is shown as, each naming the replies behind its number.
//!
//! The worker reads every reply for the scan ([`Facts::of_text`]) after its badges, and
//! the facts are kept on the entry. The [`Corpus`] is folded from them by the same
//! [`Scanner`] `bracewalk scan` uses, so the screen and the command agree; it is rebuilt
//! (cheaply: the reading is done) whenever entries or facts change while the screen is
//! open. A row's [`ScanRow`] is also a filter: a test of one entry's facts, so the list
//! filtered by it keeps following the replies as they arrive, and admits exactly the
//! replies the scan puts behind the row.

use std::sync::LazyLock;

use crate::describe::thousands;
use crate::read::trace::{DecidedBy, WholeReply};
use crate::scan::{Config, Facts, NONE_KEY, Reader, Scan, Scanner};
use crate::visible::visible;

use super::state::{Body, Entry, EntryKey};

/// What the inspector's scan compares and looks for: `bracewalk scan`'s defaults (every
/// what-if against the seed; the `edits` field for truncation).
static CONFIG: LazyLock<Config> = LazyLock::new(Config::default);

pub fn config() -> &'static Config {
    &CONFIG
}

/// The what-ifs the list can show a column for, in the order `w` cycles them: each
/// reader the scan compares with the seed.
pub fn what_ifs() -> impl Iterator<Item = Reader> {
    config().pairs.iter().filter(|p| p.to == Reader::LastWins).map(|p| p.from)
}

/// The index of `reader`'s comparison with the seed in the config's pairs.
fn pair_of(reader: Reader) -> Option<usize> {
    config().pairs.iter().position(|p| p.from == reader && p.to == Reader::LastWins)
}

/// What `reader` makes of a reply against the seed: `None` while its facts are being read,
/// `Some(None)` for the same answer, `Some(Some(account))` for another one.
pub fn what_if(e: &Entry, reader: Reader) -> Option<Option<&str>> {
    let f = e.facts.as_deref()?;
    let i = pair_of(reader)?;
    Some(f.differences.iter().find(|(j, _)| *j == i).map(|(_, a)| a.as_str()))
}

/// The scan of the loaded replies, with the entry behind each of its reply numbers.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub scan: Scan,
    /// `keys[i]` is the entry of the scan's reply `i`.
    pub keys: Vec<EntryKey>,
    /// Replies whose facts are still being read: not counted yet.
    pub pending: usize,
    /// Replies whose file is gone: not counted.
    pub gone: usize,
}

impl Corpus {
    /// Folds the facts of `entries` in load order (path, then line), as `bracewalk scan`
    /// orders its replies. Names and metadata are the entry's own, as last amended.
    pub fn of(entries: &[Entry]) -> Corpus {
        let mut order: Vec<&Entry> = entries.iter().filter(|e| !e.gone).collect();
        order.sort_by(|a, b| a.source.cmp(&b.source).then(a.line.cmp(&b.line)).then(a.key.cmp(&b.key)));
        let mut scanner = Scanner::new(config().clone());
        let mut keys = Vec::new();
        let mut calls = Vec::new();
        let mut pending = 0;
        for e in order {
            match &e.body {
                Body::Reply { meta, .. } => match e.facts.as_deref() {
                    Some(f) => {
                        let reference = e.reference();
                        scanner.add_facts(Facts {
                            id: e.id.clone(),
                            reference: (reference != e.id).then_some(reference),
                            agent: meta.agent.clone(),
                            round: meta.round.clone(),
                            format: meta.format,
                            ..f.clone()
                        });
                        keys.push(e.key);
                    }
                    None => pending += 1,
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
        let s = &self.scan;
        let mut out = format!(
            "{}, {} bytes",
            plural(s.replies.len(), "reply", "replies"),
            thousands(usize::try_from(s.bytes).unwrap_or(usize::MAX))
        );
        if !s.calls_without_reply.is_empty() {
            out.push_str(&format!(", {} with no reply", plural(s.calls_without_reply.len(), "call", "calls")));
        }
        out.push_str(&format!(", {}", plural(s.diagnostics.len(), "diagnostic", "diagnostics")));
        out
    }
}

pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{} {many}", thousands(n)) }
}

/// A number on the summary screen, as the replies behind it: a test of one entry's facts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScanRow {
    Decided(DecidedBy),
    /// A whole-reply verdict ([`WholeReply::NAMES`]).
    Verdict(&'static str),
    StrictUnreadable,
    /// Strict-only reads nothing, the seed reads something.
    Rescued,
    /// Strict-only reads something, the seed something else.
    RepairChanged,
    /// An array field whose `]` never came.
    Truncated(String),
    /// The what-if reads another answer than the seed.
    Differs(Reader),
    /// An agent or a round ([`NONE_KEY`] for none).
    Agent(String),
    Round(String),
}

impl ScanRow {
    /// How the status line and the filter menu name it.
    pub fn name(&self) -> String {
        match self {
            ScanRow::Decided(d) => format!("scan: decided by {}", d.name()),
            ScanRow::Verdict(v) => format!("scan: whole reply {v}"),
            ScanRow::StrictUnreadable => "scan: strict-only reads nothing".to_owned(),
            ScanRow::Rescued => "scan: the repair reads what strict-only cannot".to_owned(),
            ScanRow::RepairChanged => "scan: repair changes a strict reading".to_owned(),
            ScanRow::Truncated(f) => format!("scan: \"{}\": [ never closed", visible(f, false)),
            ScanRow::Differs(r) => format!("scan: {} differs", r.name()),
            ScanRow::Agent(a) => format!("scan: agent {}", visible(a, false)),
            ScanRow::Round(r) => format!("scan: round {}", visible(r, false)),
        }
    }

    /// Whether `e` is one of the replies behind the row. A reply not yet read for the scan,
    /// or whose file is gone, is behind none (the scan does not count it).
    pub fn holds(&self, e: &Entry) -> bool {
        let (Some(f), Body::Reply { meta, .. }) = (e.facts.as_deref(), &e.body) else { return false };
        if e.gone {
            return false;
        }
        let group = |g: &Option<String>, want: &str| g.as_deref().unwrap_or(NONE_KEY) == want;
        match self {
            ScanRow::Decided(d) => f.decided_by == *d,
            ScanRow::Verdict(v) => WholeReply::NAMES.get(f.whole_reply) == Some(v),
            ScanRow::StrictUnreadable => !f.strict_reads,
            ScanRow::Rescued => !f.strict_reads && f.reads,
            ScanRow::RepairChanged => f.repair_changed,
            ScanRow::Truncated(field) => {
                config().fields.iter().position(|x| x == field).is_some_and(|i| f.cut.iter().any(|(j, _)| *j == i))
            }
            ScanRow::Differs(r) => pair_of(*r).is_some_and(|i| f.differences.iter().any(|(j, _)| *j == i)),
            ScanRow::Agent(a) => group(&meta.agent, a),
            ScanRow::Round(r) => group(&meta.round, r),
        }
    }

    /// The scan's replies behind the row, each with what the scan says of it there (the
    /// account of a difference, the entries recovered from a cut array), in scan order.
    pub fn behind(&self, scan: &Scan) -> Vec<(usize, String)> {
        let plain = |v: &[usize]| v.iter().map(|&i| (i, String::new())).collect();
        match self {
            ScanRow::Decided(d) => plain(scan.decided(*d)),
            ScanRow::Verdict(v) => plain(scan.verdict(v)),
            ScanRow::StrictUnreadable => plain(&scan.repair.strict_unreadable),
            ScanRow::Rescued => plain(&scan.repair.rescued),
            ScanRow::RepairChanged => plain(&scan.repair.changed),
            ScanRow::Truncated(field) => scan
                .truncation
                .iter()
                .find(|t| t.field == *field)
                .map(|t| t.replies.iter().map(|&(i, n)| (i, plural(n, "entry", "entries"))).collect())
                .unwrap_or_default(),
            ScanRow::Differs(r) => scan
                .comparison(r.name())
                .map(|c| c.differ.iter().map(|d| (d.reply, d.account.clone())).collect())
                .unwrap_or_default(),
            ScanRow::Agent(a) => scan.by_agent.get(a).map(|g| plain(&g.replies)).unwrap_or_default(),
            ScanRow::Round(r) => scan.by_round.get(r).map(|g| plain(&g.replies)).unwrap_or_default(),
        }
    }
}

/// One row of the summary screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub label: String,
    pub target: ScanRow,
    pub count: usize,
    /// What the count is a share of (the percentage).
    pub of: usize,
    /// The count a full bar stands for.
    pub scale: usize,
    /// A word after the bar (`3 entries recovered`).
    pub note: String,
    /// For an agent or a round: how the seed decided its replies, in [`DecidedBy::ALL`]
    /// order (drawn as a stacked bar).
    pub mix: Option<[usize; 4]>,
}

/// A titled group of rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: &'static str,
    pub rows: Vec<Row>,
}

/// The rows of the summary, in the order they are shown and selected. The sections and
/// their wording are `bracewalk scan`'s, with the groups drawn as a bar chart.
pub fn sections(scan: &Scan) -> Vec<Section> {
    let n = scan.replies.len();
    let row = |label: &str, target: ScanRow, count: usize, of: usize| Row {
        label: label.to_owned(),
        target,
        count,
        of,
        scale: of,
        note: String::new(),
        mix: None,
    };
    let decided =
        DecidedBy::ALL.iter().map(|&d| row(d.name(), ScanRow::Decided(d), scan.decided(d).len(), n)).collect();
    let verdicts = WholeReply::NAMES.iter().map(|&v| row(v, ScanRow::Verdict(v), scan.verdict(v).len(), n)).collect();
    let groups = |map: &std::collections::BTreeMap<String, crate::scan::Group>, make: fn(String) -> ScanRow| {
        let largest = map.values().map(|g| g.replies.len()).max().unwrap_or(0);
        map.iter()
            .map(|(name, g)| Row {
                mix: Some(g.decided_by),
                scale: largest,
                ..row(&visible(name, false), make(name.clone()), g.replies.len(), n)
            })
            .collect()
    };
    let r = &scan.repair;
    let repair = vec![
        row("strict-only reads nothing", ScanRow::StrictUnreadable, r.strict_unreadable.len(), n),
        // A share of the unreadable ones, as the command says it; the bar stays a share of all.
        Row {
            scale: n,
            ..row("  of which the repair reads", ScanRow::Rescued, r.rescued.len(), r.strict_unreadable.len())
        },
        row("repair changes a strict reading", ScanRow::RepairChanged, r.changed.len(), n),
    ];
    let truncation = scan
        .truncation
        .iter()
        .map(|t| Row {
            note: format!("{} recovered", plural(t.entries, "entry", "entries")),
            ..row(
                &format!("\"{}\": [ never closed", visible(&t.field, false)),
                ScanRow::Truncated(t.field.clone()),
                t.replies.len(),
                n,
            )
        })
        .collect();
    let comparisons = scan
        .comparisons
        .iter()
        .filter(|c| c.pair.to == Reader::LastWins)
        .map(|c| row(c.pair.from.name(), ScanRow::Differs(c.pair.from), c.differ.len(), n))
        .collect();
    vec![
        Section { title: "how last-wins decided", rows: decided },
        Section { title: "the whole-reply attempt", rows: verdicts },
        Section { title: "outcomes by agent", rows: groups(&scan.by_agent, ScanRow::Agent) },
        Section { title: "outcomes by round", rows: groups(&scan.by_round, ScanRow::Round) },
        Section { title: "repair", rows: repair },
        Section { title: "truncation", rows: truncation },
        Section {
            title: "reader comparison: replies each what-if reads differently from last-wins",
            rows: comparisons,
        },
    ]
}

/// `72.5`: `n` of `of` as a percentage, as the command prints it (empty of nothing).
pub fn percent(n: usize, of: usize) -> String {
    if of == 0 { String::new() } else { format!("{:.1}", n as f64 * 100.0 / of as f64) }
}

/// A line of the screen's scrolling body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A section's title.
    Title(usize),
    /// Section, row within it, and the row's place among all rows (what the cursor counts).
    Row(usize, usize, usize),
}

/// The lines of the body, in order.
pub fn slots(sections: &[Section]) -> Vec<Slot> {
    let mut out = Vec::new();
    let mut flat = 0;
    for (s, section) in sections.iter().enumerate() {
        out.push(Slot::Title(s));
        for r in 0..section.rows.len() {
            out.push(Slot::Row(s, r, flat));
            flat += 1;
        }
    }
    out
}

/// How many rows can be selected.
pub fn row_count(sections: &[Section]) -> usize {
    sections.iter().map(|s| s.rows.len()).sum()
}

/// The row at the cursor.
pub fn row_at(sections: &[Section], cursor: usize) -> Option<&Row> {
    sections.iter().flat_map(|s| s.rows.iter()).nth(cursor)
}

/// The line the cursor's row is on.
pub fn line_of(slots: &[Slot], cursor: usize) -> usize {
    slots.iter().position(|s| matches!(s, Slot::Row(_, _, f) if *f == cursor)).unwrap_or(0)
}

/// The first row of the section after (`forward`) or before the cursor's.
pub fn section_start(sections: &[Section], cursor: usize, forward: bool) -> usize {
    let mut starts = Vec::new();
    let mut at = 0;
    for s in sections {
        if !s.rows.is_empty() {
            starts.push(at);
        }
        at += s.rows.len();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_what_if_is_a_comparison_with_the_seed() {
        let all: Vec<Reader> = what_ifs().collect();
        assert_eq!(all.len(), Reader::ALL.len() - 1);
        assert_eq!(all[0], Reader::FirstWins);
        assert!(all.iter().all(|&r| pair_of(r).is_some()));
    }

    #[test]
    fn sections_jump_by_their_first_rows() {
        let scan = Scanner::new(config().clone()).finish();
        let s = sections(&scan);
        // 4 decided, 5 verdicts, no agents, no rounds, 3 repair, 1 truncation, 9 comparisons.
        assert_eq!(row_count(&s), 22);
        assert_eq!(section_start(&s, 0, true), 4);
        assert_eq!(section_start(&s, 4, true), 9);
        assert_eq!(section_start(&s, 9, true), 12);
        assert_eq!(section_start(&s, 13, true), 13);
        assert_eq!(section_start(&s, 21, true), 13);
        assert_eq!(section_start(&s, 14, false), 13);
        assert_eq!(section_start(&s, 13, false), 12);
        assert_eq!(section_start(&s, 0, false), 0);
        assert_eq!(line_of(&slots(&s), 4), 6);
    }
}
