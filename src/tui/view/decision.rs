//! How the reader decided: the whole-text attempt, the walk's path (every candidate,
//! kept, read and superseded, descended into), the whole-reply attempt with its two gates
//! and their verdicts, and the rule that decided, marked `▶`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::analysis::flags;
use crate::describe::trace as words;
use crate::describe::{Positions, sketch, thousands};
use crate::exact::trace::{DecidedBy, Step, Trace, WholeReply};

use super::{bad, block, bold, dim, flow, good, paint_glyph, paint_style, para, scrolled, warn, whole_reply_style};
use crate::tui::layout;
use crate::tui::state::{Pane, State};

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let width = layout::inner(area).width;
    let title = match state.detail() {
        Some(d) => format!("decision · decided by {}", d.trace.decided_by.name()),
        None => "decision".to_owned(),
    };
    scrolled(frame, area, block(state, Pane::Decision, title), lines(state, width), state.reply.decision_top);
}

/// `▶ ` for the rule that decided, else blank.
fn marker(decided: bool) -> (String, Style) {
    if decided { ("▶ ".to_owned(), good().add_modifier(Modifier::BOLD)) } else { ("  ".to_owned(), Style::new()) }
}

fn head(name: &str, decided: bool) -> (String, Style) {
    let style = if decided { bold().add_modifier(Modifier::REVERSED) } else { bold() };
    (format!("{name:<12}"), style)
}

pub fn lines(state: &State, width: u16) -> Vec<Line<'static>> {
    let Some(e) = state.selected() else { return Vec::new() };
    if !e.is_reply() {
        return para("not a reply", dim(), width, 0);
    }
    let Some(d) = state.detail() else { return para("reading the reply…", dim(), width, 0) };
    let text = &*d.text;
    let t = &d.trace;
    let loc = Positions::new(text);
    let mut out = Vec::new();

    // The whole text.
    let by = t.decided_by;
    let whole_text = match &t.whole_text.outcome {
        Ok(()) => ("the trimmed reply is JSON: read whole, no walk".to_owned(), good()),
        Err(e) => (format!("does not parse: {}", words::error(&loc, e)), Style::new()),
    };
    out.extend(flow(
        vec![marker(by == DecidedBy::WholeText), head("whole text", by == DecidedBy::WholeText), whole_text],
        width,
        14,
    ));

    // The walk.
    if t.whole_text.outcome.is_err() {
        let n = thousands(t.visited());
        let kept = match t.kept {
            Some(k) => format!(
                " → kept #{} (the last that reads), ends at byte {}",
                t.number(k) + 1,
                thousands(t.walk_end.unwrap_or(0))
            ),
            None => " → nothing reads".to_owned(),
        };
        let summary = (format!("{n} `{{` visited{kept}"), if t.kept.is_some() { Style::new() } else { bad() });
        out.extend(flow(
            vec![marker(by == DecidedBy::LastWins), head("walk", by == DecidedBy::LastWins), summary],
            width,
            14,
        ));
        // Candidates walked past without being recorded come before a kept one recorded
        // after them.
        let kept_late = t.unrecorded.and_then(|u| u.kept).map(|_| t.candidates.len() - 1);
        let note = t.unrecorded.filter(|u| u.count > 0).map(|u| {
            let text = format!(
                "     … {} more `{{` from byte {} on, walked but not recorded: {} read",
                thousands(u.count),
                thousands(u.first),
                thousands(u.read)
            );
            flow(vec![(text, dim())], width, 7)
        });
        for (i, c) in t.candidates.iter().enumerate() {
            if Some(i) == kept_late {
                out.extend(note.iter().flatten().cloned());
            }
            let p = d.class(i);
            let what = match c.step {
                Step::Took { by: k, .. } if t.kept == Some(i) => format!("read ({}), kept", k.name()),
                Step::Took { by: k, end } => format!("read ({}), superseded; resumed at {}", k.name(), thousands(end)),
                Step::Descended => "unreadable; descended into it".to_owned(),
                Step::Resumed { after } => format!("unreadable; resumed after {}", thousands(after)),
            };
            let selected = i == state.reply.candidate;
            let pointer = if selected { "▸" } else { " " };
            let num_style = if selected { bold().add_modifier(Modifier::REVERSED) } else { bold() };
            out.extend(flow(
                vec![
                    (format!("   {pointer}"), Style::new()),
                    (paint_glyph(p).to_owned(), paint_style(p)),
                    (format!(" #{:<3}", t.number(i) + 1), num_style),
                    (format!("byte {:>7}  ", thousands(c.start)), dim()),
                    (what, Style::new()),
                ],
                width,
                20,
            ));
        }
        if kept_late.is_none() {
            out.extend(note.into_iter().flatten());
        }
    }

    // The whole reply and its gates.
    let wr_decided = by == DecidedBy::WholeReply;
    let verdict_style = match &t.whole_reply {
        WholeReply::Taken { .. } => whole_reply_style().add_modifier(Modifier::BOLD),
        WholeReply::RefusedWalkClosed { .. } | WholeReply::RefusedNotSelfContained { .. } => warn(),
        _ => dim(),
    };
    // The line takes the verdict's look as a whole.
    let verdict = words::verdict(&loc, t).text();
    out.extend(flow(vec![marker(wr_decided), head("whole reply", wr_decided), (verdict, verdict_style)], width, 14));
    if let Some(r) = t.whole_reply.reading() {
        out.extend(flow(
            vec![("              narrow ".to_owned(), dim()), (words::reading(&loc, r).text(), dim())],
            width,
            20,
        ));
    }
    for (name, (word, why, style)) in [("gate 1", gate_walk_closed(&loc, t)), ("gate 2", gate_self_contained(t))] {
        let title = if name == "gate 1" { "walk closed on the last character" } else { "strings are self-contained" };
        out.extend(flow(
            vec![
                (format!("              {name} "), dim()),
                (format!("{title}: "), Style::new()),
                (word.to_owned(), style.add_modifier(Modifier::BOLD)),
                (if why.is_empty() { String::new() } else { format!(" — {why}") }, Style::new()),
            ],
            width,
            20,
        ));
    }

    // What decided, and what came out.
    let decided = words::decided(&loc, t).text();
    let decided_style = match by {
        DecidedBy::None => bad().add_modifier(Modifier::BOLD),
        DecidedBy::WholeReply => whole_reply_style().add_modifier(Modifier::BOLD),
        _ => good().add_modifier(Modifier::BOLD),
    };
    out.push(Line::raw(""));
    out.extend(flow(
        vec![("  ".to_owned(), Style::new()), head("decided by", false), (decided, decided_style)],
        width,
        14,
    ));
    let value = t.value.as_ref().map_or_else(|| "null".to_owned(), sketch);
    out.extend(flow(vec![("  ".to_owned(), Style::new()), head("value", false), (value, Style::new())], width, 14));

    // The risk flags, a line each, as the reply's facts raised them.
    let raised = e.facts.as_deref().map_or(&[][..], |f| f.flags.as_slice());
    if !raised.is_empty() {
        out.push(Line::raw(""));
    }
    for r in raised {
        out.extend(flow(
            vec![
                ("⚑ ".to_owned(), warn().add_modifier(Modifier::BOLD)),
                (format!("{} ", r.flag().name()), warn().add_modifier(Modifier::BOLD)),
                (flags::explain(r), Style::new()),
            ],
            width,
            4,
        ));
    }
    out
}

/// The walk-closed gate: refused, passed, or not reached, and why.
fn gate_walk_closed(loc: &Positions, t: &Trace) -> (&'static str, String, Style) {
    match &t.whole_reply {
        WholeReply::NotTried { .. } | WholeReply::NoReading { .. } => ("not reached", String::new(), dim()),
        WholeReply::RefusedWalkClosed { walk_end, .. } => (
            "REFUSED",
            format!(
                "the walk's answer ends at {}, where the reply ends: it read the reply's own envelope",
                loc.at(*walk_end)
            ),
            warn(),
        ),
        WholeReply::RefusedNotSelfContained { .. } | WholeReply::Taken { .. } => {
            let reply_end = t.whole_text.span.end;
            let why = match t.walk_end {
                Some(e) => format!(
                    "the walk's answer ends at byte {}, short of the reply's end at byte {}",
                    thousands(e),
                    thousands(reply_end)
                ),
                None => "the walk read nothing".to_owned(),
            };
            ("passed", why, good())
        }
    }
}

/// The self-contained gate.
fn gate_self_contained(t: &Trace) -> (&'static str, String, Style) {
    match &t.whole_reply {
        WholeReply::RefusedNotSelfContained { fault, .. } => (
            "REFUSED",
            format!(
                "in `{}`, the `{}` at character {} {}: an abandoned draft, not a quotation",
                crate::visible::visible(&fault.path, false),
                fault.brace,
                thousands(fault.at_char),
                if fault.brace == '{' { "is never closed" } else { "closes nothing" }
            ),
            warn(),
        ),
        WholeReply::Taken { .. } => ("passed", "every string's braces balance".to_owned(), good()),
        _ => ("not reached", String::new(), dim()),
    }
}
