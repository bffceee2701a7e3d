//! The report a scan is shown as: its sections, each row's label, and the predicate that
//! puts a reply behind it, written once. `bracewalk scan`'s table, `--markdown` and `--json`,
//! and the inspector's summary screen and filters are views of these rows, so a row's count,
//! the ids `--list` prints under it, and the replies Enter lists on the summary screen are
//! the same replies by construction.

use std::collections::BTreeMap;

use crate::describe::{percent, plural, thousands};
use crate::read::trace::{DecidedBy, Verdict};
use crate::readers::ReaderId;
use crate::reading::{Config, Facts, Flag, Pair};
use crate::visible::visible;

use super::scanner::{Group, NONE_KEY, Scan};

/// A number the report shows, as the replies behind it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Row {
    /// The seed decided this way.
    Decided(DecidedBy),
    /// The seed's whole-reply attempt had this verdict.
    Verdict(Verdict),
    /// A walk with no repair reads nothing.
    StrictUnreadable,
    /// Of those, the seed reads something: the repair rescued it.
    Rescued,
    /// A walk with no repair reads something, and the seed something else.
    RepairChanged,
    /// Cut off: the record says the output ceiling stopped it, or it opens an object that
    /// never closes.
    CutOff,
    /// The config's array field (by index) opened and never closed.
    Truncated(usize),
    /// The config's pair (by index) reads it differently.
    Differs(usize),
    /// A risk flag is raised on it.
    Flag(Flag),
    /// The command reader gave no answer for it (an error, or its failure at it or before):
    /// "reader failed", never "nothing read"; its comparisons are not made.
    ReaderFailed(ReaderId),
    /// An agent, a round or a record format; [`NONE_KEY`] for none.
    Agent(String),
    Round(String),
    Format(String),
}

/// How a section's rows are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Groups of replies (an agent, a round, a format), each with how the seed decided.
    Groups,
    /// Counts, each a share of the replies.
    Counts,
    /// Reader comparisons, each with its accounts.
    Comparisons,
}

/// A titled group of rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: &'static str,
    pub kind: Kind,
    pub rows: Vec<Row>,
}

/// The sections of the report, in the order they are shown (a table shows the groups first,
/// together).
pub fn sections(scan: &Scan) -> Vec<Section> {
    let groups = |map: &BTreeMap<String, Group>, make: fn(String) -> Row| map.keys().cloned().map(make).collect();
    let fields = scan.config.fields.len();
    let mut sections = vec![
        Section {
            title: "how last-wins decided",
            kind: Kind::Counts,
            rows: DecidedBy::ALL.into_iter().map(Row::Decided).collect(),
        },
        Section {
            title: "the whole-reply attempt",
            kind: Kind::Counts,
            rows: Verdict::ALL.into_iter().map(Row::Verdict).collect(),
        },
        Section { title: "by agent", kind: Kind::Groups, rows: groups(&scan.by_agent, Row::Agent) },
        Section { title: "by round", kind: Kind::Groups, rows: groups(&scan.by_round, Row::Round) },
        Section { title: "by format", kind: Kind::Groups, rows: groups(&scan.by_format, Row::Format) },
        Section {
            title: "repair",
            kind: Kind::Counts,
            rows: vec![Row::StrictUnreadable, Row::Rescued, Row::RepairChanged],
        },
        Section {
            title: "truncation",
            kind: Kind::Counts,
            rows: std::iter::once(Row::CutOff).chain((0..fields).map(Row::Truncated)).collect(),
        },
        Section { title: "risk flags", kind: Kind::Counts, rows: Flag::ALL.into_iter().map(Row::Flag).collect() },
        Section {
            title: "reader comparison (an account reads from the first reader's answer to the second's)",
            kind: Kind::Comparisons,
            rows: (0..scan.comparisons.len()).map(Row::Differs).collect(),
        },
    ];
    if !scan.failed.is_empty() {
        // Only where readers ran as commands: nothing else can fail.
        let rows = scan.failed.iter().map(|f| Row::ReaderFailed(f.reader)).collect();
        sections.push(Section { title: "readers run as commands", kind: Kind::Counts, rows });
    }
    sections
}

/// How the filters of a front end group rows: rows of one kind are alternatives (decided by
/// A or B), kinds are all required, and each flag is a kind of its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Alternatives {
    Decided,
    Verdict,
    Agent,
    Round,
    Format,
    /// A flag: required on its own.
    Flag(Row),
}

impl Row {
    /// The row's label in the report.
    pub fn label(&self, config: &Config) -> String {
        match self {
            Row::Decided(d) => d.name().to_owned(),
            Row::Verdict(v) => v.name().to_owned(),
            Row::StrictUnreadable => "strict-only reads nothing".to_owned(),
            Row::Rescued => "  of which the repair reads".to_owned(),
            Row::RepairChanged => "repair changes a strict reading".to_owned(),
            Row::CutOff => "cut off".to_owned(),
            Row::Truncated(i) => format!("\"{}\": [ never closed", visible(field(config, *i), false)),
            Row::Differs(i) => match config.pairs.get(*i) {
                Some(p) => format!("{} → {}", config.catalogue.name(p.from), config.catalogue.name(p.to)),
                None => "?".to_owned(),
            },
            Row::ReaderFailed(r) => format!("{}: reader failed", config.catalogue.name(*r)),
            Row::Flag(f) => f.name().to_owned(),
            Row::Agent(n) | Row::Round(n) | Row::Format(n) => visible(n, false),
        }
    }

    /// The row as a filter or a status line names it, outside its section.
    pub fn name(&self, config: &Config) -> String {
        match self {
            Row::Decided(d) => format!("decided by {}", d.name()),
            Row::Verdict(v) => format!("whole reply {}", v.name()),
            Row::Rescued => "the repair reads what strict-only cannot".to_owned(),
            Row::Differs(i) => match config.pairs.get(*i) {
                Some(p) if p.against_seed() => format!("{} differs", config.catalogue.name(p.from)),
                Some(p) => format!("{} differs from {}", config.catalogue.name(p.from), config.catalogue.name(p.to)),
                None => "?".to_owned(),
            },
            Row::ReaderFailed(r) => format!("reader {} failed", config.catalogue.name(*r)),
            Row::Flag(f) => format!("flag {}", f.name()),
            Row::Agent(n) => format!("agent {}", visible(n, false)),
            Row::Round(n) => format!("round {}", visible(n, false)),
            Row::Format(n) => format!("format {}", visible(n, false)),
            other => other.label(config).trim().to_owned(),
        }
    }

    /// Which rows a filter takes as alternatives to this one.
    pub fn alternatives(&self) -> Alternatives {
        match self {
            Row::Decided(_) => Alternatives::Decided,
            Row::Verdict(_) => Alternatives::Verdict,
            Row::Agent(_) => Alternatives::Agent,
            Row::Round(_) => Alternatives::Round,
            Row::Format(_) => Alternatives::Format,
            flag => Alternatives::Flag(flag.clone()),
        }
    }

    /// Whether the reply these facts are of is behind the row: the predicate every count of
    /// the row is made of.
    pub fn holds(&self, f: &Facts, config: &Config) -> bool {
        let group = |g: &Option<String>, want: &str| g.as_deref().unwrap_or(NONE_KEY) == want;
        match self {
            Row::Decided(d) => f.decided_by == *d,
            Row::Verdict(v) => f.verdict == *v,
            Row::StrictUnreadable => !f.strict_reads,
            Row::Rescued => !f.strict_reads && f.reads,
            Row::RepairChanged => f.repair_changed,
            Row::CutOff => f.cut_off,
            Row::Truncated(i) => f.cut.iter().any(|(j, _)| j == i),
            Row::Differs(i) => i < &config.pairs.len() && f.difference(*i).is_some(),
            Row::ReaderFailed(r) => f.failed.iter().any(|(f, _)| f == r),
            Row::Flag(flag) => f.has(*flag),
            Row::Agent(a) => group(&f.agent, a),
            Row::Round(r) => group(&f.round, r),
            Row::Format(n) => f.format.name() == n,
        }
    }

    /// The scan's replies behind the row, in scan order, each with what the scan says of it
    /// there (the account of a difference, the entries recovered from a cut array).
    pub fn replies(&self, scan: &Scan) -> Vec<(usize, String)> {
        let plain = |v: &[usize]| v.iter().map(|&i| (i, String::new())).collect();
        let group = |g: Option<&Group>| g.map(|g| plain(&g.replies)).unwrap_or_default();
        match self {
            Row::Decided(d) => plain(scan.decided(*d)),
            Row::Verdict(v) => plain(scan.verdict(*v)),
            Row::StrictUnreadable => plain(&scan.repair.strict_unreadable),
            Row::Rescued => plain(&scan.repair.rescued),
            Row::RepairChanged => plain(&scan.repair.changed),
            Row::CutOff => plain(&scan.cut_off),
            Row::Truncated(i) => scan
                .truncation
                .get(*i)
                .map(|t| t.replies.iter().map(|&(r, n)| (r, plural(n, "entry", "entries"))).collect())
                .unwrap_or_default(),
            Row::Differs(i) => scan
                .comparisons
                .get(*i)
                .map(|c| c.differ.iter().map(|d| (d.reply, d.account.clone())).collect())
                .unwrap_or_default(),
            Row::ReaderFailed(r) => scan
                .failed
                .iter()
                .find(|f| f.reader == *r)
                .map(|f| f.replies.iter().map(|(i, why)| (*i, why.to_string())).collect())
                .unwrap_or_default(),
            Row::Flag(f) => scan.flagged(*f).to_vec(),
            Row::Agent(a) => group(scan.by_agent.get(a)),
            Row::Round(r) => group(scan.by_round.get(r)),
            Row::Format(n) => group(scan.by_format.get(n)),
        }
    }

    /// How many replies are behind the row.
    pub fn count(&self, scan: &Scan) -> usize {
        let group = |g: Option<&Group>| g.map_or(0, |g| g.replies.len());
        match self {
            Row::Decided(d) => scan.decided(*d).len(),
            Row::Verdict(v) => scan.verdict(*v).len(),
            Row::StrictUnreadable => scan.repair.strict_unreadable.len(),
            Row::Rescued => scan.repair.rescued.len(),
            Row::RepairChanged => scan.repair.changed.len(),
            Row::CutOff => scan.cut_off.len(),
            Row::Truncated(i) => scan.truncation.get(*i).map_or(0, |t| t.replies.len()),
            Row::Differs(i) => scan.comparisons.get(*i).map_or(0, |c| c.differ.len()),
            Row::ReaderFailed(r) => scan.failed.iter().find(|f| f.reader == *r).map_or(0, |f| f.replies.len()),
            Row::Flag(f) => scan.flagged(*f).len(),
            Row::Agent(a) => group(scan.by_agent.get(a)),
            Row::Round(r) => group(scan.by_round.get(r)),
            Row::Format(n) => group(scan.by_format.get(n)),
        }
    }

    /// What the count is a share of: the replies, or for the rescued the strict-unreadable.
    pub fn of(&self, scan: &Scan) -> usize {
        match self {
            Row::Rescued => scan.repair.strict_unreadable.len(),
            _ => scan.replies.len(),
        }
    }

    /// The word beside the count: its share, or what the row recovered.
    pub fn note(&self, scan: &Scan) -> String {
        match self {
            Row::Truncated(i) => {
                let entries = scan.truncation.get(*i).map_or(0, |t| t.entries);
                format!("{} recovered", plural(entries, "entry", "entries"))
            }
            Row::Differs(i) => scan
                .comparisons
                .get(*i)
                .map(|c| scan.config.catalogue.description(c.pair.from).to_owned())
                .unwrap_or_default(),
            Row::Agent(_) | Row::Round(_) | Row::Format(_) => String::new(),
            _ => percent(self.count(scan), self.of(scan)),
        }
    }

    /// The group the row is, for a section of groups.
    pub fn group<'a>(&self, scan: &'a Scan) -> Option<&'a Group> {
        match self {
            Row::Agent(a) => scan.by_agent.get(a),
            Row::Round(r) => scan.by_round.get(r),
            Row::Format(n) => scan.by_format.get(n),
            _ => None,
        }
    }

    /// Where the row's count sits in `scan --json` (and its ids under `ids`): the top key and,
    /// within it, the row's own.
    pub fn json_key(&self, config: &Config) -> (&'static str, Option<String>) {
        match self {
            Row::Decided(d) => ("decided_by", Some(d.name().to_owned())),
            Row::Verdict(v) => ("whole_reply", Some(v.name().to_owned())),
            Row::StrictUnreadable => ("repair", Some("strict_unreadable".to_owned())),
            Row::Rescued => ("repair", Some("rescued".to_owned())),
            Row::RepairChanged => ("repair", Some("changed".to_owned())),
            Row::CutOff => ("cut_off", None),
            Row::Truncated(i) => ("truncation", Some(field(config, *i).to_owned())),
            Row::Differs(i) => ("comparisons", Some(config.pairs.get(*i).map(|p| config.key(p)).unwrap_or_default())),
            Row::ReaderFailed(r) => ("reader_failed", Some(config.catalogue.name(*r).to_owned())),
            Row::Flag(f) => ("flags", Some(f.name().to_owned())),
            Row::Agent(n) => ("by_agent", Some(n.clone())),
            Row::Round(n) => ("by_round", Some(n.clone())),
            Row::Format(n) => ("by_format", Some(n.clone())),
        }
    }

    /// The pair of a comparison row.
    pub fn pair(&self, config: &Config) -> Option<Pair> {
        match self {
            Row::Differs(i) => config.pairs.get(*i).copied(),
            _ => None,
        }
    }
}

fn field(config: &Config, i: usize) -> &str {
    config.fields.get(i).map_or("?", String::as_str)
}

/// `142 replies, 290,452 bytes, 3 calls with no reply, 12 diagnostics`: what was read.
pub fn headline(scan: &Scan) -> String {
    let mut s = format!(
        "{}, {} bytes",
        plural(scan.replies.len(), "reply", "replies"),
        thousands(usize::try_from(scan.bytes).unwrap_or(usize::MAX))
    );
    if !scan.calls_without_reply.is_empty() {
        s.push_str(&format!(", {} with no reply", plural(scan.calls_without_reply.len(), "call", "calls")));
    }
    s.push_str(&format!(", {}", plural(scan.diagnostics.len(), "diagnostic", "diagnostics")));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Scanner;

    #[test]
    fn every_row_counts_the_replies_it_holds() {
        let config = Config::default();
        let texts = [
            "Template:\n{ \"html\": \"...\" }\nAnswer:\n{\"html\": \"<p>real</p>\"}",
            r#"{"faithful": false, "notes": "I first read it as { "faithful": true }; no."}"#,
            r#"{"edits":[{"a":1},{"b":2},{"c":"#,
            "{\"html\": \"<p>\"quoted\"</p>\"}",
            " null ",
            "\u{feff}[1,2]",
            "prose {x} more",
        ];
        let facts: Vec<Facts> = texts.iter().map(|t| Facts::of_text(t, false, &config, &[])).collect();
        let mut scanner = Scanner::new(config.clone());
        for f in &facts {
            scanner.add_facts(f.clone());
        }
        let scan = scanner.finish();
        for section in sections(&scan) {
            for row in &section.rows {
                let held: Vec<usize> = (0..facts.len()).filter(|&i| row.holds(&facts[i], &config)).collect();
                let behind: Vec<usize> = row.replies(&scan).into_iter().map(|(i, _)| i).collect();
                assert_eq!(held, behind, "{row:?}");
                assert_eq!(row.count(&scan), held.len(), "{row:?}");
            }
        }
    }
}

#[cfg(test)]
mod command_tests {
    use std::sync::Arc;

    use super::*;
    use crate::read::js;
    use crate::readers::command::Spec;
    use crate::readers::{Catalogue, Given};
    use crate::scan::Scanner;

    #[test]
    fn a_reader_that_failed_is_counted_as_failed_not_as_differing() {
        let mut catalogue = Catalogue::builtin();
        let mine = catalogue.add_command("mine", Spec::new("true")).unwrap();
        let mut config = Config::new(catalogue);
        config.pairs = vec![Pair { from: mine, to: crate::readers::ReaderId::LAST_WINS }];
        let failed = Given::Failed(Arc::from("reader failed: exited"));
        let cases = [
            ("{\"a\":1}", Given::Read(js::parse("{\"a\":1}").unwrap())),
            ("{\"a\":1}", Given::Nothing),
            ("{\"a\":1}", failed.clone()),
            ("nothing", failed),
        ];
        let facts: Vec<Facts> =
            cases.iter().map(|(t, g)| Facts::of_text(t, false, &config, &[(mine, g.clone())])).collect();
        let mut scanner = Scanner::new(config.clone());
        for f in &facts {
            scanner.add_facts(f.clone());
        }
        let scan = scanner.finish();
        let row = Row::ReaderFailed(mine);
        assert_eq!(row.count(&scan), 2);
        assert_eq!(
            row.replies(&scan),
            [(2, "reader failed: exited".to_owned()), (3, "reader failed: exited".to_owned())]
        );
        assert_eq!(Row::Differs(0).replies(&scan), [(1, "null → value {a}".to_owned())]);
        assert_eq!(row.json_key(&config), ("reader_failed", Some("mine".to_owned())));
        for section in sections(&scan) {
            for row in &section.rows {
                let held: Vec<usize> = (0..facts.len()).filter(|&i| row.holds(&facts[i], &config)).collect();
                let behind: Vec<usize> = row.replies(&scan).into_iter().map(|(i, _)| i).collect();
                assert_eq!(held, behind, "{row:?}");
            }
        }
    }
}
