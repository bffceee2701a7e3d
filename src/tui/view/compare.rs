//! The two readers side by side: what the first-wins reader (seed 001) and the last-wins
//! reader (seed 000) make of the reply, and, when they differ, how
//! (`html: 3 chars → 7,121 chars`).

use std::collections::HashSet;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::describe::{Locator, thousands};
use crate::read::first::FirstOutcome;
use crate::read::value::Value;
use crate::reading::parts;

use super::super::layout;
use super::super::state::{Pane, State};
use super::super::tree::{self, RowKind};
use super::{bad, block, bold, columns, dim, flow, good, para, scrolled, warn};

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let width = layout::inner(area).width;
    let title = match state.detail() {
        Some(d) if !parts(d.first_value.as_ref(), d.seed_value().as_ref()).is_empty() => "readers · they disagree",
        Some(_) => "readers · they agree",
        None => "readers",
    };
    scrolled(frame, area, block(state, Pane::Compare, title.to_owned()), lines(state, width), state.reply.compare_top);
}

pub fn lines(state: &State, width: u16) -> Vec<Line<'static>> {
    let Some(e) = state.selected() else { return Vec::new() };
    if !e.is_reply() {
        return para("not a reply", dim(), width, 0);
    }
    let Some(d) = state.detail() else { return para("reading the reply…", dim(), width, 0) };
    let text = &*d.text;
    let loc = Locator::new(text);
    let mut out = Vec::new();
    if let Some(r) = state.what_if {
        // The what-if chosen for the list's column: the scan's account for this reply.
        let (verdict, style) = match (e.failed(r), e.against_seed(&state.config, r)) {
            (Some(why), _) => (crate::visible::visible(why, false), warn()),
            (None, None) => ("being read for the scan…".to_owned(), dim()),
            (None, Some(None)) => ("the same answer as last-wins".to_owned(), good()),
            (None, Some(Some(a))) => (format!("differs: {}", crate::visible::visible(a, false)), bad()),
        };
        let name = state.config.catalogue.name(r);
        out.extend(flow(vec![(format!("what-if {name} → last-wins: "), bold()), (verdict, style)], width, 2));
        out.push(Line::raw(""));
    }
    let first = match &d.first.outcome {
        FirstOutcome::Found(s) => {
            format!("the {} `{{` it tried parses, at {}", ordinal(d.first.attempts.len()), loc.at(s.start))
        }
        FirstOutcome::TooLong { utf16_len } => {
            format!("returns the raw reply: {} UTF-16 units is over its scan bound", thousands(*utf16_len))
        }
        FirstOutcome::Exhausted => "returns the raw reply: its 50 attempts ran out".to_owned(),
        FirstOutcome::NotFound => "returns the raw reply: no candidate parses".to_owned(),
    };
    out.extend(flow(vec![("first-wins ".to_owned(), bold()), (first, Style::new())], width, 11));
    out.extend(flow(
        vec![("last-wins  ".to_owned(), bold()), (format!("decided by {}", d.trace.decided_by.name()), Style::new())],
        width,
        11,
    ));
    let seed = d.seed_value();
    let diffs = parts(d.first_value.as_ref(), seed.as_ref());
    if diffs.is_empty() {
        out.extend(para("They agree: the same value.", good().add_modifier(Modifier::BOLD), width, 0));
    } else {
        out.extend(para("They disagree (first-wins → last-wins):", bad().add_modifier(Modifier::BOLD), width, 0));
        for diff in diffs {
            out.extend(para(&format!("  {}", crate::visible::visible(&diff, false)), bad(), width, 4));
        }
    }
    out.push(Line::raw(""));
    let col_w = (width.saturating_sub(1) / 2) as usize;
    let side = |title: &str, v: Option<&Value>| -> Vec<(String, Style)> {
        let mut col = vec![(title.to_owned(), bold().add_modifier(Modifier::UNDERLINED))];
        match v {
            None => col.push(("null".to_owned(), bad())),
            Some(v) => {
                for r in tree::rows(v, &HashSet::new(), col_w) {
                    if r.kind == RowKind::More {
                        continue;
                    }
                    let key = if r.key.is_empty() { String::new() } else { format!("{}: ", r.key) };
                    let note = if r.note.is_empty() { String::new() } else { format!("  {}", r.note) };
                    let style = if matches!(r.kind, RowKind::LongString { .. }) { bold() } else { Style::new() };
                    col.push((format!("{}{key}{}{note}", "  ".repeat(r.depth), r.text), style));
                }
            }
        }
        col
    };
    out.extend(columns(vec![side("first-wins", d.first_value.as_ref()), side("last-wins", seed.as_ref())], width));
    out
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
