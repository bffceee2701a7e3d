//! The selected candidate's three readings side by side: strict, repaired (wide colon
//! rule: what the walk uses), narrow colon (what the whole-reply attempt uses). Each says
//! its span, whether it parses or where it fails, and every repair at its offset; under
//! them, what the walk did next.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::describe::trace as words;
use crate::describe::{Positions, sketch, thousands};
use crate::exact::trace::{Reading, ReadingKind, Step};

use super::{bad, block, bold, columns, dim, good, para, scrolled};
use crate::analysis::detail::Detail;
use crate::tui::layout;
use crate::tui::state::{Pane, State};

/// Repairs listed one by one per reading; the rest are counted.
const REPAIRS_LISTED: usize = 24;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let width = layout::inner(area).width;
    let title = match state.detail() {
        Some(d) if !d.trace.candidates.is_empty() => {
            format!("candidate #{} of {} · readings", d.trace.number(state.reply.candidate) + 1, d.trace.visited())
        }
        _ => "candidate readings".to_owned(),
    };
    scrolled(frame, area, block(state, Pane::Readings, title), lines(state, width), state.reply.readings_top);
}

pub fn lines(state: &State, width: u16) -> Vec<Line<'static>> {
    let Some(e) = state.selected() else { return Vec::new() };
    if !e.is_reply() {
        return para("not a reply", dim(), width, 0);
    }
    let Some(d) = state.detail() else { return para("reading the reply…", dim(), width, 0) };
    let text = &*d.text;
    let Some(c) = d.trace.candidates.get(state.reply.candidate) else {
        let why = if d.trace.whole_text.outcome.is_ok() {
            "The trimmed reply is JSON: it was read whole, and no `{` candidate was visited."
        } else {
            "The reply has no `{`: there is no candidate to read."
        };
        return para(why, dim(), width, 0);
    };
    let loc = Positions::new(text);
    let i = state.reply.candidate;
    let fate = super::paint_word(d.class(i));
    let mut out = Vec::new();
    let mut head = vec![
        (format!("#{} ", i + 1), bold()),
        (format!("at {} ", loc.at(c.start)), Style::new()),
        (fate.to_owned(), super::paint_style(d.class(i))),
    ];
    if let Some(outer) = enclosing(d, i) {
        head.push((format!(" (inside #{})", outer + 1), dim()));
    }
    out.extend(super::flow(head, width, 2));
    out.extend(para(&loc.context(c.start, 16, 64), dim(), width, 2));
    let taken = match c.step {
        Step::Took { by, .. } => Some(by),
        _ => None,
    };
    let kinds = [ReadingKind::Strict, ReadingKind::Wide, ReadingKind::Narrow];
    let cols: Vec<Vec<(String, Style)>> =
        kinds.iter().map(|&k| reading_column(&loc, c.reading(k), k, taken == Some(k))).collect();
    if width >= 72 {
        out.extend(columns(cols, width));
    } else {
        for col in cols {
            for (t, s) in col {
                out.extend(para(&t, s, width, 2));
            }
        }
    }
    let step = words::step(&loc, c.step);
    out.extend(super::flow(vec![("→ ".to_owned(), bold()), (step, Style::new())], width, 2));
    out
}

/// The earlier unreadable candidate whose span holds candidate `i`.
fn enclosing(d: &Detail, i: usize) -> Option<usize> {
    if !d.nested.get(i).copied().unwrap_or(false) {
        return None;
    }
    let start = d.trace.candidates.get(i)?.start;
    (0..i).rev().find(|&j| {
        let p = &d.trace.candidates[j];
        matches!(p.step, Step::Descended)
            && [&p.strict, &p.wide].iter().filter_map(|r| r.span()).any(|s| s.contains(start))
    })
}

fn reading_column(loc: &Positions, r: &Reading, kind: ReadingKind, taken: bool) -> Vec<(String, Style)> {
    let mut col = Vec::new();
    let head = match kind {
        ReadingKind::Strict => "strict",
        ReadingKind::Wide => "repaired (wide colon)",
        ReadingKind::Narrow => "narrow colon",
    };
    let head = if taken { format!("{head} ◆ the walk's") } else { head.to_owned() };
    col.push((head, bold().add_modifier(Modifier::UNDERLINED)));
    match r {
        Reading::Unbalanced => {
            col.push(("never balances".to_owned(), bad()));
            col.push(("(cut off, or a `{` in prose)".to_owned(), dim()));
        }
        Reading::Balanced { span, repairs, outcome } => {
            match outcome {
                Ok(_) => col.push(("✓ parses".to_owned(), good().add_modifier(Modifier::BOLD))),
                Err(_) => col.push(("✗ fails".to_owned(), bad().add_modifier(Modifier::BOLD))),
            }
            col.push((format!("span {}..{}", thousands(span.start), thousands(span.end)), Style::new()));
            col.push((format!("{} bytes", thousands(span.len())), dim()));
            let (us, ue) = (loc.utf16(span.start), loc.utf16(span.end));
            if us != span.start || ue != span.end {
                col.push((format!("utf16 {}..{}", thousands(us), thousands(ue)), dim()));
            }
            match outcome {
                Ok(v) => col.push((sketch(v), dim())),
                Err(e) => col.push((words::error(loc, e), bad())),
            }
            match repairs.len() {
                0 if kind != ReadingKind::Strict => col.push(("no repairs".to_owned(), dim())),
                0 => {}
                n => {
                    col.push((if n == 1 { "1 repair:".to_owned() } else { format!("{n} repairs:") }, Style::new()));
                    for rep in repairs.iter().take(REPAIRS_LISTED) {
                        col.push((format!(" {} at {}", rep.kind.name(), loc.at(rep.at)), Style::new()));
                        col.push((format!("   {}", loc.context(rep.at, 8, 8)), dim()));
                    }
                    if n > REPAIRS_LISTED {
                        col.push((format!(" … {} more", n - REPAIRS_LISTED), dim()));
                    }
                }
            }
        }
    }
    col
}
