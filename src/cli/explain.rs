//! `bracewalk explain`: the last-wins reader's decision record, for a person at a terminal
//! (text) or for a program (`--json`).

use std::fmt::Write;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::analysis::flags::{self, Raised};
use crate::describe::trace as words;
use crate::describe::{Positions, sketch, thousands};
use crate::exact::js::ParseError;
use crate::exact::span::utf16_len;
use crate::exact::trace::{Candidate, Fate, NoReading, Reading, Step, Trace, WholeReply};
use crate::exact::value::Value;

use super::style::Style;

/// The trace as text a person reads.
pub fn render_text(text: &str, trace: &Trace, style: &Style) -> String {
    let loc = Positions::new(text);
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
            let _ = writeln!(out, "{} does not parse: {}", style.bold("whole text"), words::error(&loc, e));
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
    let _ = writeln!(out, "{} {}", style.bold("decided by"), style.phrase(&words::decided(&loc, trace)));
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

/// The risk flags raised on the reply, a line each (nothing where none is): what follows the
/// trace.
pub fn render_flags(raised: &[Raised], style: &Style) -> String {
    let mut out = String::new();
    for r in raised {
        let _ = writeln!(out, "{} {}  {}", style.warn("⚑"), style.warn(r.flag().name()), flags::explain(r));
    }
    if !out.is_empty() {
        out.insert(0, '\n');
    }
    out
}

/// The candidates a bounded trace walked past, in a sentence.
fn unrecorded(out: &mut String, loc: &Positions, trace: &Trace, style: &Style) {
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

fn candidate(out: &mut String, loc: &Positions, trace: &Trace, i: usize, c: &Candidate, nested: bool, style: &Style) {
    let fate = style.phrase(&words::fate(trace, i));
    let nested = if nested { ", inside an unreadable candidate" } else { "" };
    let number = format!("#{}", trace.number(i) + 1);
    let _ = writeln!(out, " {} {}  {fate}{nested}", style.bold(&number), loc.at(c.start));
    let _ = writeln!(out, "    {}", style.dim(&loc.context(c.start, 16, 56)));
    for (name, r) in [("strict  ", &c.strict), ("repaired", &c.wide), ("narrow  ", &c.narrow)] {
        let _ = writeln!(out, "    {name} {}", style.phrase(&words::reading(loc, r)));
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
    let _ = writeln!(out, "    → {}", words::step(loc, c.step));
}

fn whole_reply(out: &mut String, loc: &Positions, trace: &Trace, style: &Style) {
    let _ = writeln!(out, "{} {}", style.bold("whole reply"), style.phrase(&words::verdict(loc, trace)));
    if let Some(r) = trace.whole_reply.reading() {
        let _ = writeln!(out, "    narrow   {}", style.phrase(&words::reading(loc, r)));
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
    /// The risk flags raised on the reply, each with what raised it.
    flags: Vec<FlagJson>,
    /// Last, so that the decision comes before a value of 200 MB.
    value: Json<'a>,
}

#[derive(Serialize)]
struct FlagJson {
    flag: &'static str,
    why: String,
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
pub fn render_json(text: &str, trace: &Trace, raised: &[Raised]) -> String {
    let mut out = Vec::new();
    match write_json(text, trace, raised, &mut out) {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(e) => format!("{{\"error\":\"{e}\"}}"),
    }
}

/// [`render_json`], written to `out` as it is made.
pub fn write_json<'t>(
    text: &str,
    trace: &'t Trace,
    raised: &[Raised],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let loc = Positions::new(text);
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
        flags: raised.iter().map(|r| FlagJson { flag: r.flag().name(), why: flags::explain(r) }).collect(),
        value: Json(trace.value.as_ref()),
    };
    serde_json::to_writer(out, &json).map_err(std::io::Error::from)
}

fn repair_key(kind: crate::exact::repair::RepairKind) -> &'static str {
    use crate::exact::repair::RepairKind::*;
    match kind {
        QuoteEscaped => "quote-escaped",
        NewlineEscaped => "newline-escaped",
        CarriageReturnEscaped => "cr-escaped",
        TabEscaped => "tab-escaped",
        BackslashDoubled => "backslash-doubled",
    }
}
