//! The words a trace is told in: which rule decided, what a reading made of a candidate,
//! what the walk did next, the whole-reply verdict and its reason. `bracewalk explain` and
//! the inspector's panes say the same things in the same words because both take them from
//! here; each styles a [`Phrase`]'s parts by their [`Class`] in its own way (ANSI colours,
//! ratatui styles).

use crate::exact::js::ParseError;
use crate::exact::trace::{DecidedBy, Fate, NoReading, Reading, Step, Trace, WholeReply};

use super::{Positions, sketch, thousands};

/// What a part of a phrase is, for the front end to style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Plain,
    Good,
    Warn,
    Bad,
    Dim,
}

/// Words in parts, each of a [`Class`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Phrase {
    pub parts: Vec<(String, Class)>,
}

impl Phrase {
    pub fn of(text: impl Into<String>, class: Class) -> Phrase {
        Phrase { parts: vec![(text.into(), class)] }
    }

    /// The phrase with `text` after it.
    pub fn then(mut self, text: impl Into<String>, class: Class) -> Phrase {
        self.parts.push((text.into(), class));
        self
    }

    /// The words alone.
    pub fn text(&self) -> String {
        self.parts.iter().map(|(t, _)| t.as_str()).collect()
    }
}

/// Which rule produced the answer, and what that rule is.
pub fn decided(loc: &Positions, trace: &Trace) -> Phrase {
    match trace.decided_by {
        DecidedBy::WholeText => {
            Phrase::of("whole-text", Class::Good).then(": the trimmed reply parsed as JSON", Class::Plain)
        }
        DecidedBy::LastWins => {
            let which = trace
                .kept
                .and_then(|k| trace.candidates.get(k))
                .map(|c| format!(" (candidate #{} at {})", trace.number(trace.kept.unwrap_or(0)) + 1, loc.at(c.start)));
            Phrase::of("last-wins", Class::Good)
                .then(format!(": the walk's last readable candidate{}", which.unwrap_or_default()), Class::Plain)
        }
        DecidedBy::WholeReply => Phrase::of("whole-reply", Class::Good)
            .then(": the narrow-colon reading of the whole reply, both gates passed", Class::Plain),
        DecidedBy::None => {
            Phrase::of("none", Class::Bad).then(": nothing in the reply reads; the reader returns null", Class::Plain)
        }
    }
}

/// A parse error: what, where, and the text around it.
pub fn error(loc: &Positions, e: &ParseError) -> String {
    let kind = e.to_string();
    let kind = kind.rsplit_once(" at byte").map_or(kind.as_str(), |(k, _)| k);
    format!("{kind} at {}  {}", loc.at(e.offset), loc.context(e.offset, 12, 20))
}

/// What became of candidate `i`.
pub fn fate(trace: &Trace, i: usize) -> Phrase {
    match trace.fate(i) {
        Some(Fate::Kept) => Phrase::of("kept", Class::Good),
        Some(Fate::Superseded) => Phrase::of("read, superseded", Class::Warn),
        _ => Phrase::of("unreadable", Class::Bad),
    }
}

/// What the walk did after a candidate.
pub fn step(loc: &Positions, step: Step) -> String {
    match step {
        Step::Took { by, end } => format!("took it ({} reading), resumed after {}", by.name(), loc.at(end)),
        Step::Descended => "could not read it: descended to the next `{` inside it".to_owned(),
        Step::Resumed { after } => format!("could not read it: resumed after {}", loc.at(after)),
    }
}

/// One reading of a candidate: its span, and whether it parses (or where it fails).
pub fn reading(loc: &Positions, r: &Reading) -> Phrase {
    match r {
        Reading::Unbalanced => Phrase::of("never balances (cut off, or a `{` in prose)", Class::Dim),
        Reading::Balanced { span, repairs, outcome } => {
            let size =
                format!("span {}..{} ({} bytes", thousands(span.start), thousands(span.end), thousands(span.len()));
            let reps = match repairs.len() {
                0 => String::new(),
                1 => ", 1 repair".to_owned(),
                n => format!(", {n} repairs"),
            };
            let head = Phrase::of(format!("{size}{reps})  "), Class::Plain);
            match outcome {
                Ok(v) => head.then("parses", Class::Good).then(format!("  {}", sketch(v)), Class::Dim),
                Err(e) => head.then("fails:", Class::Bad).then(format!(" {}", error(loc, e)), Class::Plain),
            }
        }
    }
}

/// The whole-reply attempt's verdict and its reason, in a sentence.
pub fn verdict(loc: &Positions, trace: &Trace) -> Phrase {
    match &trace.whole_reply {
        WholeReply::NotTried { whole_text_parsed: true } => {
            Phrase::of("not tried: the whole text parsed", Class::Plain)
        }
        WholeReply::NotTried { whole_text_parsed: false } => {
            Phrase::of("not tried: the trimmed reply does not open with `{`, so it is not one object", Class::Plain)
        }
        WholeReply::NoReading { why, .. } => {
            let why = match why {
                NoReading::NeverCloses => "the narrow-colon span never closes".to_owned(),
                NoReading::ClosesShort { end, reply_end } => format!(
                    "the narrow-colon span closes at {}, short of the reply's end at {}",
                    loc.at(*end),
                    loc.at(*reply_end)
                ),
                NoReading::DoesNotParse(e) => format!("the narrow-colon reading does not parse: {}", error(loc, e)),
            };
            Phrase::of("no reading", Class::Dim).then(format!(": {why}"), Class::Plain)
        }
        WholeReply::RefusedWalkClosed { walk_end, reply_end, .. } => Phrase::of("refused", Class::Warn).then(
            format!(
                " by the walk-closed gate: the walk's answer ends at {}, the reply's last non-space character ends \
                 at {}; the walk already read the reply's own envelope",
                loc.at(*walk_end),
                loc.at(*reply_end)
            ),
            Class::Plain,
        ),
        WholeReply::RefusedNotSelfContained { fault, .. } => Phrase::of("refused", Class::Warn).then(
            format!(
                " by the self-contained gate: in `{}`, the `{}` at character {} {}; a string that leaves a brace \
                 unbalanced is an abandoned draft, not a quotation",
                fault.path,
                fault.brace,
                thousands(fault.at_char),
                if fault.brace == '{' { "is never closed" } else { "closes nothing" }
            ),
            Class::Plain,
        ),
        WholeReply::Taken { .. } => Phrase::of("taken", Class::Good).then(
            format!(
                ": the reply is one object under the narrow colon rule, the walk's answer {} (walk-closed gate \
                 passed), and every string is self-contained",
                match trace.walk_end {
                    Some(e) => format!("stops short at {}", loc.at(e)),
                    None => "is empty".to_owned(),
                },
            ),
            Class::Plain,
        ),
    }
}
