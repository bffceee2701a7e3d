//! The badges a list entry carries, in one table: each badge's glyph, style, legend and
//! filter name together. The list draws its badges from it, the filter menu offers them from
//! it, and the help screen's legend is printed from it, so none can drift from another.
//!
//! A badge about how a reply was read is a row of the scan's report ([`Badge::Report`]): it
//! is on exactly the replies that row holds, by the row's own predicate over the reply's
//! facts, so the list, the filter and `bracewalk scan` name the same replies. The rest are
//! the inspector's own states (new, gone, marked) and what an entry is when it is not a reply.

use ratatui::style::{Modifier, Style};

use crate::analysis::{Config, Flag};
use crate::exact::trace::{DecidedBy, Verdict};
use crate::readers::ReaderId;
use crate::scan::report::{Alternatives, Row};

use super::entry::{Body, Entry};
use super::look::{accent, bad, dim, good, warn, whole_reply_style};

/// Something a list entry can be marked with.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Badge {
    /// A row of the scan's report.
    Report(Row),
    /// A risk flag of the reading's shape is raised on it (each flag is a row of the report,
    /// and a filter entry); `readers-disagree` alone is the `≠`.
    Flagged,
    /// Arrived while watching.
    New,
    /// Its file was deleted.
    Gone,
    /// Its text changed on disk since it was listed, and was read again.
    Changed,
    /// Marked for triage.
    Marked,
    /// A model call that left no reply.
    NoReply,
    /// A problem loading an input.
    Diagnostic,
}

/// One badge's look and words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Look {
    pub badge: Badge,
    /// What the list shows.
    pub glyph: &'static str,
    pub style: Style,
    /// The help screen's legend.
    pub legend: String,
    /// Shown only where the list is wide: it says little on its own.
    pub wide_only: bool,
}

/// Every badge, in the order the list shows them. `compared` is the reader whose
/// disagreement with the seed the `≠` badge marks (the readers pane's).
pub fn table(config: &Config, compared: ReaderId) -> Vec<Look> {
    let bold = |s: Style| s.add_modifier(Modifier::BOLD);
    let look = |badge: Badge, glyph: &'static str, style: Style, legend: &str| Look {
        badge,
        glyph,
        style,
        legend: legend.to_owned(),
        wide_only: false,
    };
    let report = |row: Row, glyph, style, legend: &str| look(Badge::Report(row), glyph, style, legend);
    let mut out = vec![
        report(Row::Decided(DecidedBy::WholeText), "whole-text", good(), "the trimmed reply is JSON, read whole"),
        report(
            Row::Decided(DecidedBy::LastWins),
            "last-wins",
            good(),
            "the walk's last readable `{` candidate is the answer",
        ),
        report(
            Row::Decided(DecidedBy::WholeReply),
            "whole-reply",
            bold(whole_reply_style()),
            "the narrow-colon reading of the whole reply is the answer",
        ),
        report(Row::Decided(DecidedBy::None), "none", bold(bad()), "nothing reads: the reader returns null"),
        look(Badge::NoReply, "no reply", bold(bad()), "a model call that left no reply (truncated, failed)"),
        look(Badge::Diagnostic, "⚠", warn(), "a problem loading an input: what and where"),
        Look {
            wide_only: true,
            ..report(
                Row::Verdict(Verdict::NoReading),
                "wr:none",
                dim(),
                "tried, but no narrow reading spans the reply and parses",
            )
        },
        report(
            Row::Verdict(Verdict::RefusedWalkClosed),
            "wr:closed",
            warn(),
            "refused by the walk-closed gate: the walk's answer ends where the reply ends",
        ),
        report(
            Row::Verdict(Verdict::RefusedNotSelfContained),
            "wr:strings",
            warn(),
            "refused by the self-contained gate: a string leaves a brace unbalanced",
        ),
        report(
            Row::Verdict(Verdict::Taken),
            "wr:taken",
            whole_reply_style(),
            "the whole-reply attempt was made and taken",
        ),
        report(
            Row::StrictUnreadable,
            "strict✗",
            warn(),
            "no candidate parses without repair: strict-only reads nothing",
        ),
        report(
            Row::RepairChanged,
            "repaired",
            warn(),
            "strict-only reads something else: the repair changed the answer",
        ),
    ];
    if let Some(p) = config.pair_with_seed(compared) {
        let legend = format!(
            "{} reads something else ({})",
            config.catalogue.name(compared),
            config.catalogue.description(compared)
        );
        out.push(report(Row::Differs(p), "≠", bold(bad()), &legend));
    }
    out.push(look(
        Badge::Flagged,
        "⚑",
        bold(warn()),
        "a risk flag: a reading shaped like a failure the seed names (the decision pane says which, and where; \
         readers-disagree is the ≠)",
    ));
    out.extend([
        report(
            Row::CutOff,
            "cut",
            bad(),
            "cut off: the output ceiling stopped it, or it opens an object that never closes",
        ),
        look(Badge::New, "new", bold(accent()), "arrived while watching"),
        look(Badge::Gone, "gone", dim(), "its text could not be read again where it was listed"),
        look(Badge::Changed, "changed", warn(), "its text changed on disk since it was listed, and was read again"),
        look(Badge::Marked, "★", warn(), "marked for triage (m; `bracewalk marks` prints them)"),
    ]);
    out
}

impl Badge {
    /// The badge as the filter menu and the status line name it.
    pub fn name(&self, config: &Config) -> String {
        match self {
            Badge::Report(row) => row.name(config),
            Badge::Flagged => "flagged (a risk flag but readers-disagree)".to_owned(),
            Badge::New => "new".to_owned(),
            Badge::Gone => "gone".to_owned(),
            Badge::Changed => "changed on disk".to_owned(),
            Badge::Marked => "marked".to_owned(),
            Badge::NoReply => "no reply (failed call)".to_owned(),
            Badge::Diagnostic => "load problem".to_owned(),
        }
    }

    /// Whether `e` carries the badge (`marked`: whether it is marked). A badge of the report
    /// is on a reply once its facts are read, whatever its file became: the list shows what
    /// was read.
    pub fn on(&self, e: &Entry, marked: bool, config: &Config) -> bool {
        match self {
            Badge::Report(row) => e.facts.as_deref().is_some_and(|f| row.holds(f, config)),
            // Not for a disagreement alone: that is the `≠`.
            Badge::Flagged => {
                e.facts.as_deref().is_some_and(|f| f.flags.iter().any(|r| r.flag() != Flag::ReadersDisagree))
            }
            Badge::New => e.new,
            Badge::Gone => e.gone,
            Badge::Changed => e.changed,
            Badge::Marked => marked,
            Badge::NoReply => matches!(e.body, Body::Event { .. }),
            Badge::Diagnostic => matches!(e.body, Body::Diagnostic(_)),
        }
    }

    /// Whether a filter on the badge admits `e`. A row of the report admits exactly the
    /// replies the scan counts under it: not one that could not be read again (nor does `flagged`,
    /// which is any of the flags' rows).
    pub fn admits(&self, e: &Entry, marked: bool, config: &Config) -> bool {
        !(e.gone && matches!(self, Badge::Report(_) | Badge::Flagged)) && self.on(e, marked, config)
    }

    /// Which badges a filter takes as alternatives to this one: what became of the entry
    /// (decided by A, or no reply, or a load problem), the verdict, the agent, the round, the
    /// format; every other badge is required on its own.
    pub fn alternatives(&self) -> Kind {
        match self {
            Badge::NoReply | Badge::Diagnostic => Kind::Report(Alternatives::Decided),
            Badge::Report(row) => Kind::Report(row.alternatives()),
            flag => Kind::Flag(flag.clone()),
        }
    }
}

/// A kind of badge a filter takes alternatives within.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Report(Alternatives),
    /// One of the inspector's own flags (new, gone, marked): required on its own.
    Flag(Badge),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_badge_once_and_the_disagreement_named_by_its_reader() {
        let config = Config::default();
        let t = table(&config, ReaderId::FIRST_WINS);
        for (i, a) in t.iter().enumerate() {
            assert!(t[i + 1..].iter().all(|b| b.badge != a.badge && b.glyph != a.glyph), "{:?}", a.badge);
        }
        let ne = t.iter().find(|l| l.glyph == "≠").unwrap();
        assert_eq!(ne.badge.name(&config), "first-wins differs");
        assert!(ne.legend.starts_with("first-wins reads something else"));
    }
}
