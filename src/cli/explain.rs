//! `bracewalk explain`: the last-wins reader's decision record, for a person at a terminal
//! (text) or for a program (`--json`).

use std::fmt::Write;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::describe::{Locator, sketch, thousands};
use crate::read::js::ParseError;
use crate::read::span::utf16_len;
use crate::read::trace::{Candidate, DecidedBy, Fate, NoReading, Reading, Step, Trace, WholeReply};
use crate::read::value::Value;

use super::style::Style;

/// The trace as text a person reads.
pub fn render_text(text: &str, trace: &Trace, style: &Style) -> String {
    let loc = Locator::new(text);
    let mut out = String::new();
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    let _ = writeln!(
        out,
        "{} {} bytes, {} UTF-16 units, {} lines",
        style.bold("reply"),
        thousands(text.len()),
        thousands(utf16_len(text)),
        thousands(lines)
    );

    // The whole-text attempt.
    match &trace.whole_text.outcome {
        Ok(()) => {
            let _ = writeln!(out, "{} the trimmed reply is JSON: read whole, no walk", style.good("whole text"));
        }
        Err(e) => {
            let _ = writeln!(out, "{} does not parse: {}", style.bold("whole text"), error(&loc, e));
        }
    }

    if !trace.candidates.is_empty() || trace.whole_text.outcome.is_err() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{} {} `{{` visited", style.bold("walk"), thousands(trace.visited()));
    }
    let nested = trace.nested();
    let kept_late = trace.unrecorded.and_then(|u| u.kept).map(|_| trace.candidates.len() - 1);
    for (i, c) in trace.candidates.iter().enumerate() {
        if Some(i) == kept_late {
            unrecorded(&mut out, &loc, trace, style);
        }
        candidate(&mut out, &loc, trace, i, c, nested[i], style);
    }
    if kept_late.is_none() {
        unrecorded(&mut out, &loc, trace, style);
    }

    let _ = writeln!(out);
    whole_reply(&mut out, &loc, trace, style);

    let _ = writeln!(out);
    let _ = writeln!(out, "{} {}", style.bold("decided by"), decided(&loc, trace, style));
    match &trace.value {
        Some(v) => {
            let _ = writeln!(out, "{} {}", style.bold("value"), sketch(v));
        }
        None => {
            let _ = writeln!(out, "{} null", style.bold("value"));
        }
    }
    out
}

/// Which rule produced the answer, and what that rule is.
pub fn decided(loc: &Locator, trace: &Trace, style: &Style) -> String {
    match trace.decided_by {
        DecidedBy::WholeText => style.good("whole-text").to_string() + ": the trimmed reply parsed as JSON",
        DecidedBy::LastWins => {
            let which = trace
                .kept
                .and_then(|k| trace.candidates.get(k))
                .map(|c| format!(" (candidate #{} at {})", trace.number(trace.kept.unwrap_or(0)) + 1, loc.at(c.start)));
            style.good("last-wins").to_string() + ": the walk's last readable candidate" + &which.unwrap_or_default()
        }
        DecidedBy::WholeReply => {
            style.good("whole-reply").to_string() + ": the narrow-colon reading of the whole reply, both gates passed"
        }
        DecidedBy::None => style.bad("none").to_string() + ": nothing in the reply reads; the reader returns null",
    }
}

/// A parse error: what, where, and the text around it.
pub fn error(loc: &Locator, e: &ParseError) -> String {
    let kind = e.to_string();
    let kind = kind.rsplit_once(" at byte").map_or(kind.as_str(), |(k, _)| k);
    format!("{kind} at {}  {}", loc.at(e.offset), loc.context(e.offset, 12, 20))
}

/// The candidates a bounded trace walked past, in a sentence.
fn unrecorded(out: &mut String, loc: &Locator, trace: &Trace, style: &Style) {
    let Some(u) = trace.unrecorded.filter(|u| u.count > 0) else { return };
    let read = match u.read {
        0 => "none read".to_owned(),
        n => format!("{} read and superseded", thousands(n)),
    };
    let _ = writeln!(
        out,
        " {}",
        style.dim(&format!(
            "… {} more `{{` from {} on, walked but not recorded (recording every candidate of this reply would \
             take too long): {read}",
            thousands(u.count),
            loc.at(u.first)
        ))
    );
}

fn candidate(out: &mut String, loc: &Locator, trace: &Trace, i: usize, c: &Candidate, nested: bool, style: &Style) {
    let fate = match trace.fate(i) {
        Some(Fate::Kept) => style.good("kept").to_string(),
        Some(Fate::Superseded) => style.warn("read, superseded").to_string(),
        _ => style.bad("unreadable").to_string(),
    };
    let nested = if nested { ", inside an unreadable candidate" } else { "" };
    let number = format!("#{}", trace.number(i) + 1);
    let _ = writeln!(out, " {} {}  {fate}{nested}", style.bold(&number), loc.at(c.start));
    let _ = writeln!(out, "    {}", style.dim(&loc.context(c.start, 16, 56)));
    for (name, r) in [("strict  ", &c.strict), ("repaired", &c.wide), ("narrow  ", &c.narrow)] {
        let _ = writeln!(out, "    {name} {}", reading(loc, r, style));
        for rep in r.repairs().iter().take(8) {
            let _ = writeln!(
                out,
                "               {} at {}  {}",
                rep.kind.name(),
                loc.at(rep.at),
                style.dim(&loc.context(rep.at, 10, 10))
            );
        }
        if r.repairs().len() > 8 {
            let _ = writeln!(out, "               … {} more repairs", r.repairs().len() - 8);
        }
    }
    let _ = writeln!(out, "    → {}", step(loc, c.step));
}

/// What the walk did after a candidate.
pub fn step(loc: &Locator, step: Step) -> String {
    match step {
        Step::Took { by, end } => format!("took it ({} reading), resumed after {}", by.name(), loc.at(end)),
        Step::Descended => "could not read it: descended to the next `{` inside it".to_owned(),
        Step::Resumed { after } => format!("could not read it: resumed after {}", loc.at(after)),
    }
}

/// One reading of a candidate: its span, and whether it parses (or where it fails).
pub fn reading(loc: &Locator, r: &Reading, style: &Style) -> String {
    match r {
        Reading::Unbalanced => style.dim("never balances (cut off, or a `{` in prose)").to_string(),
        Reading::Balanced { span, repairs, outcome } => {
            let size =
                format!("span {}..{} ({} bytes", thousands(span.start), thousands(span.end), thousands(span.len()));
            let reps = match repairs.len() {
                0 => String::new(),
                1 => ", 1 repair".to_owned(),
                n => format!(", {n} repairs"),
            };
            match outcome {
                Ok(v) => format!("{size}{reps})  {}  {}", style.good("parses"), style.dim(&sketch(v))),
                Err(e) => format!("{size}{reps})  {} {}", style.bad("fails:"), error(loc, e)),
            }
        }
    }
}

fn whole_reply(out: &mut String, loc: &Locator, trace: &Trace, style: &Style) {
    let _ = writeln!(out, "{} {}", style.bold("whole reply"), whole_reply_verdict(loc, trace, style));
    if let Some(r) = trace.whole_reply.reading() {
        let _ = writeln!(out, "    narrow   {}", reading(loc, r, style));
    }
}

/// The whole-reply attempt's verdict and its reason, in a sentence.
pub fn whole_reply_verdict(loc: &Locator, trace: &Trace, style: &Style) -> String {
    match &trace.whole_reply {
        WholeReply::NotTried { whole_text_parsed: true } => "not tried: the whole text parsed".to_owned(),
        WholeReply::NotTried { whole_text_parsed: false } => {
            "not tried: the trimmed reply does not open with `{`, so it is not one object".to_owned()
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
            format!("{}: {why}", style.dim("no reading"))
        }
        WholeReply::RefusedWalkClosed { walk_end, reply_end, .. } => format!(
            "{} by the walk-closed gate: the walk's answer ends at {}, the reply's last non-space character ends at {}; \
             the walk already read the reply's own envelope",
            style.warn("refused"),
            loc.at(*walk_end),
            loc.at(*reply_end)
        ),
        WholeReply::RefusedNotSelfContained { fault, .. } => format!(
            "{} by the self-contained gate: in `{}`, the `{}` at character {} {}; a string that leaves a brace \
             unbalanced is an abandoned draft, not a quotation",
            style.warn("refused"),
            fault.path,
            fault.brace,
            thousands(fault.at_char),
            if fault.brace == '{' { "is never closed" } else { "closes nothing" }
        ),
        WholeReply::Taken { .. } => format!(
            "{}: the reply is one object under the narrow colon rule, the walk's answer {} ({}), and every \
             string is self-contained",
            style.good("taken"),
            match trace.walk_end {
                Some(e) => format!("stops short at {}", loc.at(e)),
                None => "is empty".to_owned(),
            },
            "walk-closed gate passed"
        ),
    }
}

// ---- JSON ----------------------------------------------------------------------------

#[derive(Serialize)]
struct TraceJson<'a> {
    reply: ReplyJson,
    whole_text: WholeTextJson,
    candidates: Vec<CandidateJson<'a>>,
    unrecorded: Option<UnrecordedJson>,
    walk_end: Option<Offset>,
    whole_reply: WholeReplyJson<'a>,
    decided_by: &'static str,
    value: Json<'a>,
}

#[derive(Serialize)]
struct ReplyJson {
    bytes: usize,
    utf16: usize,
    lines: usize,
}

#[derive(Serialize)]
struct Offset {
    byte: usize,
    utf16: usize,
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct ErrorJson {
    message: String,
    at: Offset,
}

#[derive(Serialize)]
struct WholeTextJson {
    start: usize,
    end: usize,
    parses: bool,
    error: Option<ErrorJson>,
}

#[derive(Serialize)]
struct RepairJson {
    kind: &'static str,
    at: Offset,
}

#[derive(Serialize)]
struct ReadingJson<'a> {
    span: Option<[usize; 2]>,
    parses: bool,
    error: Option<ErrorJson>,
    repairs: Vec<RepairJson>,
    value: Option<Json<'a>>,
}

#[derive(Serialize)]
struct CandidateJson<'a> {
    index: usize,
    start: Offset,
    fate: &'static str,
    nested: bool,
    strict: ReadingJson<'a>,
    repaired: ReadingJson<'a>,
    narrow: ReadingJson<'a>,
    step: &'static str,
    read_by: Option<&'static str>,
    resumed_at: Option<Offset>,
}

#[derive(Serialize)]
struct UnrecordedJson {
    count: usize,
    read: usize,
    first: Offset,
}

#[derive(Serialize)]
struct WholeReplyJson<'a> {
    verdict: &'static str,
    reason: Option<&'static str>,
    walk_end: Option<Offset>,
    reply_end: Option<Offset>,
    span_end: Option<Offset>,
    path: Option<&'a str>,
    brace: Option<String>,
    at_char: Option<usize>,
    error: Option<ErrorJson>,
    reading: Option<ReadingJson<'a>>,
}

/// A value printed as JSON only when it is written out, so that of a trace's values (the
/// answer, each reading's) one at a time is held as text: they may be 200 MB each.
struct Json<'a>(Option<&'a Value>);

impl Serialize for Json<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let json = self.0.map_or_else(|| "null".to_owned(), Value::to_json);
        RawValue::from_string(json).unwrap_or_else(|_| RawValue::NULL.to_owned()).serialize(serializer)
    }
}

/// The whole trace as JSON (offsets in bytes, with UTF-16 and line/column beside them).
pub fn render_json(text: &str, trace: &Trace) -> String {
    let mut out = Vec::new();
    match write_json(text, trace, &mut out) {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(e) => format!("{{\"error\":\"{e}\"}}"),
    }
}

/// [`render_json`], written to `out` as it is made.
pub fn write_json<'t>(text: &str, trace: &'t Trace, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let loc = Locator::new(text);
    let offset = |byte: usize| {
        let (line, column) = loc.line_col(byte);
        Offset { byte, utf16: loc.utf16(byte), line, column }
    };
    let err = |e: &ParseError| {
        let message = e.to_string();
        let message = message.rsplit_once(" at byte").map_or(message.clone(), |(k, _)| k.to_owned());
        ErrorJson { message, at: offset(e.offset) }
    };
    let reading = |r: &'t Reading| ReadingJson {
        span: r.span().map(|s| [s.start, s.end]),
        parses: r.parses(),
        error: r.error().map(err),
        repairs: r.repairs().iter().map(|rep| RepairJson { kind: repair_key(rep.kind), at: offset(rep.at) }).collect(),
        value: r.value().map(|v| Json(Some(v))),
    };
    let nested = trace.nested();
    let candidates = trace
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| CandidateJson {
            index: trace.number(i),
            start: offset(c.start),
            fate: match trace.fate(i) {
                Some(Fate::Kept) => "kept",
                Some(Fate::Superseded) => "superseded",
                _ => "unreadable",
            },
            nested: nested[i],
            strict: reading(&c.strict),
            repaired: reading(&c.wide),
            narrow: reading(&c.narrow),
            step: match c.step {
                Step::Took { .. } => "took",
                Step::Descended => "descended",
                Step::Resumed { .. } => "resumed",
            },
            read_by: match c.step {
                Step::Took { by, .. } => Some(by.name()),
                _ => None,
            },
            resumed_at: match c.step {
                Step::Took { end, .. } => Some(offset(end)),
                Step::Resumed { after } => Some(offset(after)),
                Step::Descended => None,
            },
        })
        .collect();
    let wr = &trace.whole_reply;
    let mut whole = WholeReplyJson {
        verdict: wr.name(),
        reason: None,
        walk_end: None,
        reply_end: None,
        span_end: None,
        path: None,
        brace: None,
        at_char: None,
        error: None,
        reading: wr.reading().map(reading),
    };
    match wr {
        WholeReply::NotTried { whole_text_parsed } => {
            whole.reason = Some(if *whole_text_parsed { "whole-text-parsed" } else { "does-not-open-with-brace" });
        }
        WholeReply::NoReading { why, .. } => match why {
            NoReading::NeverCloses => whole.reason = Some("never-closes"),
            NoReading::ClosesShort { end, reply_end } => {
                whole.reason = Some("closes-short");
                whole.span_end = Some(offset(*end));
                whole.reply_end = Some(offset(*reply_end));
            }
            NoReading::DoesNotParse(e) => {
                whole.reason = Some("does-not-parse");
                whole.error = Some(err(e));
            }
        },
        WholeReply::RefusedWalkClosed { walk_end, reply_end, .. } => {
            whole.walk_end = Some(offset(*walk_end));
            whole.reply_end = Some(offset(*reply_end));
        }
        WholeReply::RefusedNotSelfContained { fault, .. } => {
            whole.path = Some(&fault.path);
            whole.brace = Some(fault.brace.to_string());
            whole.at_char = Some(fault.at_char);
        }
        WholeReply::Taken { .. } => {}
    }
    let json = TraceJson {
        reply: ReplyJson {
            bytes: text.len(),
            utf16: utf16_len(text),
            lines: memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1,
        },
        whole_text: WholeTextJson {
            start: trace.whole_text.span.start,
            end: trace.whole_text.span.end,
            parses: trace.whole_text.outcome.is_ok(),
            error: trace.whole_text.outcome.as_ref().err().map(err),
        },
        candidates,
        unrecorded: trace.unrecorded.filter(|u| u.count > 0).map(|u| UnrecordedJson {
            count: u.count,
            read: u.read,
            first: offset(u.first),
        }),
        walk_end: trace.walk_end.map(offset),
        whole_reply: whole,
        decided_by: trace.decided_by.name(),
        value: Json(trace.value.as_ref()),
    };
    serde_json::to_writer(out, &json).map_err(std::io::Error::from)
}

fn repair_key(kind: crate::read::repair::RepairKind) -> &'static str {
    use crate::read::repair::RepairKind::*;
    match kind {
        QuoteEscaped => "quote-escaped",
        NewlineEscaped => "newline-escaped",
        CarriageReturnEscaped => "cr-escaped",
        TabEscaped => "tab-escaped",
        BackslashDoubled => "backslash-doubled",
    }
}
