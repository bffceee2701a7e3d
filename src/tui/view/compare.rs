//! The readers pane: the reader chosen with `w` (or picked from its menu; else the one the
//! `≠` badge compares) beside the seed. First the scan's account of the reply (which way
//! they differ, how, and what a reader of one's own threw, returned or failed on), then every
//! difference between the two answers, both answers as trees, and last how each decided (for
//! a reader of one's own, the function it calls and what runs it). Focused on a wide
//! terminal, the pane takes the value pane's place too ([`layout`]).
//!
//! A built-in reader's answer is in the reply's record; a reader of one's own is asked about
//! the reply once its record is made, and its answer shows when it comes.

use std::borrow::Cow;
use std::collections::HashSet;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::analysis::{Class, difference, parts};
use crate::describe::{Positions, thousands};
use crate::exact::first::FirstOutcome;
use crate::exact::value::Value;
use crate::readers::{Given, Outcome, ReaderId, changes_in_json, json_view};
use crate::visible::visible;

use super::{bad, block, bold, columns, dim, flow, good, para, scrolled, warn};
use crate::analysis::detail::Detail;
use crate::tui::entry::Entry;
use crate::tui::layout;
use crate::tui::state::{Pane, State};
use crate::tui::tree::{self, RowKind};

/// What the pane shows of the chosen reader's answer.
enum Shown<'a> {
    /// Its value (`None`: nothing read), and what it said where it read nothing (a throw,
    /// text that is not JSON).
    Answer(Option<&'a Value>, Option<String>),
    /// It gave no answer, and why.
    Failed(String),
    /// A reader of one's own that has not answered yet.
    Asking,
}

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let width = layout::inner(area).width;
    let reader = shown_reader(state);
    let name = state.config.catalogue.name(reader);
    let title = match state.detail().map(|d| (answer(state, d, reader), d)) {
        Some((Shown::Answer(v, _), d)) => match class(state, reader, v, d) {
            Some(class) => format!("readers · {name}: {}", class.name()),
            None => format!("readers · {name}: the same"),
        },
        Some(_) => format!("readers · {name}"),
        None => "readers".to_owned(),
    };
    scrolled(frame, area, block(state, Pane::Compare, title), lines(state, width), state.reply.compare_top);
}

/// The reader shown beside the seed: the what-if chosen, else the one the `≠` badge compares.
pub fn shown_reader(state: &State) -> ReaderId {
    state.what_if.unwrap_or(state.compared)
}

/// What the pane has of `reader`'s answer for the selected reply.
fn answer<'a>(state: &'a State, d: &'a Detail, reader: ReaderId) -> Shown<'a> {
    if !state.config.catalogue.is_command(reader) {
        return match d.answer(reader) {
            Some(v) => Shown::Answer(v, None),
            // A reader the config does not compare with the seed: read for the pane alone.
            None => Shown::Failed("not compared with last-wins in this run".to_owned()),
        };
    }
    let key = state.selected().map(|e| e.key);
    match key.and_then(|k| state.reply.given(k, reader)) {
        None => Shown::Asking,
        Some(Given::Failed(why)) => Shown::Failed(why.to_string()),
        Some(g) => Shown::Answer(g.value(), g.note()),
    }
}

/// The seed's answer as the scan compares it with `reader`'s: as JSON text carries it where
/// the reader is one's own.
fn seed_for<'a>(state: &State, reader: ReaderId, d: &'a Detail) -> Option<Cow<'a, Value>> {
    let seed = d.answer(ReaderId::LAST_WINS).flatten()?;
    if state.config.catalogue.is_command(reader) && changes_in_json(seed) {
        return json_view(seed).map(Cow::Owned);
    }
    Some(Cow::Borrowed(seed))
}

/// Every difference between the reader's answer and the seed's, as the scan compares them.
fn differences(state: &State, reader: ReaderId, value: Option<&Value>, d: &Detail) -> Vec<String> {
    parts(value, seed_for(state, reader, d).as_deref())
}

/// Which way the reader's answer and the seed's differ, if they do.
fn class(state: &State, reader: ReaderId, value: Option<&Value>, d: &Detail) -> Option<Class> {
    difference(value, seed_for(state, reader, d).as_deref()).map(|(c, _)| c)
}

pub fn lines(state: &State, width: u16) -> Vec<Line<'static>> {
    let Some(e) = state.selected() else { return Vec::new() };
    if !e.is_reply() {
        return para("not a reply", dim(), width, 0);
    }
    let reader = shown_reader(state);
    let mut out = account(state, e, reader, width);
    let Some(d) = state.detail() else {
        out.extend(para("reading the reply…", dim(), width, 0));
        return out;
    };
    let catalogue = &state.config.catalogue;
    let name = catalogue.name(reader).to_owned();
    let shown = answer(state, d, reader);
    match &shown {
        Shown::Answer(value, _) => {
            let diffs = differences(state, reader, *value, d);
            if diffs.is_empty() {
                out.extend(para("They agree: the same value.", good().add_modifier(Modifier::BOLD), width, 0));
            } else {
                let head = format!("They disagree ({name} → last-wins):");
                out.extend(para(&head, bad().add_modifier(Modifier::BOLD), width, 0));
                for diff in diffs {
                    out.extend(para(&format!("  {}", visible(&diff, false)), bad(), width, 4));
                }
            }
        }
        Shown::Failed(why) => out.extend(para(&visible(why, false), warn(), width, 2)),
        Shown::Asking => out.extend(para(&format!("asking {name}…"), dim(), width, 0)),
    }
    out.push(Line::raw(""));
    let col_w = (width.saturating_sub(1) / 2) as usize;
    let side = |title: &str, shown: &Shown| -> Vec<(String, Style)> {
        let mut col = vec![(title.to_owned(), bold().add_modifier(Modifier::UNDERLINED))];
        match shown {
            Shown::Answer(None, note) => {
                col.push(("null".to_owned(), bad()));
                if let Some(note) = note {
                    col.push((format!("({})", visible(note, false)), warn()));
                }
            }
            Shown::Answer(Some(v), _) => {
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
            Shown::Failed(why) => col.push((visible(why, false), warn())),
            Shown::Asking => col.push(("asking…".to_owned(), dim())),
        }
        col
    };
    let seed = Shown::Answer(d.answer(ReaderId::LAST_WINS).flatten(), None);
    out.extend(columns(vec![side(&name, &shown), side("last-wins", &seed)], width));
    // How each read it, after what they read: a reader of one's own's function and what runs
    // it take lines the comparison needs first.
    out.push(Line::raw(""));
    let indent = name.chars().count().max("last-wins".len()) + 1;
    let label = |n: &str| format!("{n:<w$}", w = indent);
    let how =
        if reader == ReaderId::FIRST_WINS { first_wins(d) } else { visible(catalogue.description(reader), false) };
    out.extend(flow(vec![(label(&name), bold()), (how, dim())], width, indent));
    out.extend(flow(
        vec![(label("last-wins"), bold()), (format!("decided by {}", d.trace.decided_by.name()), dim())],
        width,
        indent,
    ));
    out
}

/// The scan's account of the reply for `reader` against the seed: whether they differ, how
/// and which way, and what a reader of one's own threw, returned or failed on; then a blank
/// line.
fn account(state: &State, e: &Entry, reader: ReaderId, width: u16) -> Vec<Line<'static>> {
    let config = &state.config;
    let name = config.catalogue.name(reader);
    let facts = e.facts.as_deref();
    let noted = facts.and_then(|f| f.noted(reader));
    let p = config.pair_with_seed(reader);
    let against = e.against_seed(config, reader);
    let (verdict, style) = match (noted, against) {
        (Some(n), _) if n.outcome == Outcome::Failed => (visible(&n.note, false), warn()),
        (_, None) if p.is_none() => ("not compared with last-wins in this run".to_owned(), dim()),
        (_, None) => ("being read for the scan…".to_owned(), dim()),
        (_, Some(None)) => ("the same answer as last-wins".to_owned(), good()),
        (_, Some(Some(a))) => (format!("differs: {}", visible(a, false)), bad()),
    };
    // The account of a what-if chosen to look at, as the list's column gives it.
    let mut out = Vec::new();
    if state.what_if.is_some() {
        out.extend(flow(vec![(format!("what-if {name} → last-wins: "), bold()), (verdict, style)], width, 2));
        let class = match (against, p, facts) {
            (Some(Some(_)), Some(p), Some(f)) => f.differs(p).map(|(c, _)| c),
            _ => None,
        };
        if let Some(class) = class {
            let said = format!("{}: {}", class.name(), class.meaning(name, "last-wins"));
            out.extend(para(&said, bad(), width, 2).into_iter().map(|l| indented(l, 2)));
        }
    }
    // What it threw or returned: the whole of it where the reply's answer has come, else as
    // the scan kept it.
    let note = if config.catalogue.is_command(reader) {
        match state.reply.given(e.key, reader) {
            Some(g @ (Given::Threw(_) | Given::NotJson(_))) => g.note(),
            Some(_) => None,
            None => noted.filter(|n| n.outcome != Outcome::Failed).map(|n| match n.outcome {
                Outcome::Threw => format!("threw: {}", n.note),
                _ => format!("returned text that is not JSON: {}", n.note),
            }),
        }
    } else {
        None
    };
    if let Some(note) = note {
        let said = para(&format!("{name} {}", visible(&note, false)), warn(), width.saturating_sub(2), 2);
        out.extend(said.into_iter().map(|l| indented(l, 2)));
    }
    if !out.is_empty() {
        out.push(Line::raw(""));
    }
    out
}

/// `line` moved right by `n` cells.
fn indented(line: Line<'static>, n: usize) -> Line<'static> {
    let mut spans = vec![ratatui::text::Span::raw(" ".repeat(n))];
    spans.extend(line.spans);
    Line::from(spans)
}

/// How first-wins (seed 001) came to its answer.
fn first_wins(d: &Detail) -> String {
    let loc = Positions::new(&d.text);
    match &d.first.outcome {
        FirstOutcome::Found(s) => {
            format!("the {} `{{` it tried parses, at {}", ordinal(d.first.attempts.len()), loc.at(s.start))
        }
        FirstOutcome::TooLong { utf16_len } => {
            format!("returns the raw reply: {} UTF-16 units is over its scan bound", thousands(*utf16_len))
        }
        FirstOutcome::Exhausted => "returns the raw reply: its 50 attempts ran out".to_owned(),
        FirstOutcome::NotFound => "returns the raw reply: no candidate parses".to_owned(),
    }
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
