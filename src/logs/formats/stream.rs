//! Streams saved to a file, put back together as the providers' SDKs do: server-sent-event
//! captures and newline-delimited JSON, read here event by event and handed to the
//! [`Assemble`]r of the stream's format (each format module has its own).
//!
//! Each stream is folded into the response the API would have sent whole, which the
//! response's own reader then reads, so a stream and a response give the same text, stop
//! reason and usage: per-choice deltas (choice 0 is the reply, as for a completion), text
//! blocks by index, thinking and reasoning deltas left out, the last usage figures (each
//! provider reports running totals), the stop reason from the event that carries it. A
//! capture may hold several streams one after another; one that ends before its last event
//! still gives what arrived, marked truncated ("stream cut short"). Memory is the text of
//! the stream being read.

use std::io::{self, BufRead};

use serde_json::Value;

use crate::logs::bytes::json::json_error;
use crate::logs::bytes::lines::Lines;
use crate::logs::bytes::nan::parse as parse_tolerant;
use crate::logs::bytes::sse::{Events, Frame, SseEvent};
use crate::logs::formats::record::Record;
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{EventKind, Format, StopReason};

/// What reading a stream gives, at the line and byte its stream began.
#[derive(Debug)]
pub(crate) struct Out {
    pub line: usize,
    pub offset: u64,
    pub what: Result<Record, Problem>,
}

/// Where a stream (or an event of one) began.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At {
    pub line: usize,
    pub offset: u64,
}

impl At {
    pub fn out(self, what: Result<Record, Problem>) -> Out {
        Out { line: self.line, offset: self.offset, what }
    }
}

/// One format's streams being put together, event by event.
pub(crate) trait Assemble {
    /// The format of the streams it puts together.
    fn format(&self) -> Format;
    /// One event's payload. `kind` is its `type` field, else the event's name, else empty.
    fn feed(&mut self, kind: &str, payload: Value, at: At, out: &mut dyn FnMut(Out));
    /// `data: [DONE]`: OpenAI's end of a stream.
    fn done(&mut self, out: &mut dyn FnMut(Out)) {
        self.finish(out);
    }
    /// The capture ended: the stream under way, as far as it got.
    fn finish(&mut self, out: &mut dyn FnMut(Out));
}

/// The kind of an event: its payload's `type`, else its name.
pub(crate) fn kind<'a>(name: Option<&'a str>, payload: &'a Value) -> &'a str {
    payload.get("type").and_then(Value::as_str).or(name).unwrap_or("")
}

/// An event's data as JSON. Data lines that do not make JSON together are tried one by one:
/// a capture that lost the blank lines between events still reads.
pub(crate) fn payloads(e: &SseEvent) -> Vec<Result<Value, Problem>> {
    if e.data.trim() == "[DONE]" {
        return Vec::new();
    }
    match parse_tolerant(e.data.as_bytes()) {
        Ok(v) => vec![Ok(v)],
        Err(err) if e.data.contains('\n') => {
            let each: Vec<_> =
                e.data.lines().filter(|l| !l.trim().is_empty()).map(|l| parse_tolerant(l.as_bytes())).collect();
            if each.iter().all(Result::is_ok) {
                each.into_iter().map(|r| r.map_err(|e| Problem::MalformedJson(json_error(&e)))).collect()
            } else {
                vec![Err(Problem::MalformedJson(json_error(&err)))]
            }
        }
        Err(err) => vec![Err(Problem::MalformedJson(json_error(&err)))],
    }
}

/// Reads a server-sent-event capture, each event's payload given to `asm`.
pub(crate) fn read_sse(
    inner: impl BufRead,
    asm: &mut dyn Assemble,
    max_line: usize,
    out: &mut dyn FnMut(Out),
) -> io::Result<()> {
    let mut events = Events::new(inner, max_line);
    while let Some(frame) = events.next_frame()? {
        let e = match frame {
            Frame::Event(e) => e,
            Frame::TooLong(at) => {
                let problem = Problem::LineTooLong { len: at.len, max: max_line };
                out(Out { line: at.number, offset: at.offset, what: Err(problem) });
                continue;
            }
        };
        if e.data.trim() == "[DONE]" {
            asm.done(out);
            continue;
        }
        let at = At { line: e.line, offset: e.offset };
        for payload in payloads(&e) {
            match payload {
                Ok(v) => {
                    let kind = kind(e.name.as_deref(), &v).to_owned();
                    asm.feed(&kind, v, at, out);
                }
                Err(p) => out(at.out(Err(p))),
            }
        }
    }
    asm.finish(out);
    Ok(())
}

/// Reads a stream of newline-delimited JSON, each line given to `asm`.
pub(crate) fn read_lines(
    inner: impl BufRead,
    asm: &mut dyn Assemble,
    max_line: usize,
    out: &mut dyn FnMut(Out),
) -> io::Result<()> {
    let mut lines = Lines::new(inner, 0, 0, max_line);
    let mut buf = Vec::new();
    while let Some(line) = lines.next_line(&mut buf)? {
        let at = At { line: line.number, offset: line.offset };
        if line.too_long {
            out(at.out(Err(Problem::LineTooLong { len: line.len, max: max_line })));
            continue;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_tolerant(&buf) {
            Ok(v) => {
                let kind = kind(None, &v).to_owned();
                asm.feed(&kind, v, at, out);
            }
            Err(e) => out(at.out(Err(Problem::MalformedJson(json_error(&e))))),
        }
    }
    asm.finish(out);
    Ok(())
}

/// Marks a reply from a stream that ended early: what arrived is a prefix.
pub(crate) fn cut_short(record: Record) -> Record {
    match record {
        Record::Reply { id, text, mut meta } => {
            meta.stop = StopReason::Truncated;
            meta.stop_detail = Some("stream cut short".into());
            Record::Reply { id, text, meta }
        }
        Record::Event { id, kind: EventKind::Empty | EventKind::Truncated, mut meta, .. } => {
            meta.stop = StopReason::Truncated;
            meta.stop_detail = Some("stream cut short".into());
            Record::event(id, EventKind::Truncated, "stream cut short before any text".to_owned(), meta)
        }
        other => other,
    }
}

pub(crate) fn non_empty(v: Option<String>) -> Option<String> {
    v.filter(|s| !s.is_empty())
}
