//! The value that came out (or, on request, the selected candidate's) as a collapsible
//! tree with string lengths and child counts, and the array prefix of a cut reply.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::describe::sketch;
use crate::exact::trace::DecidedBy;

use super::{accent, bad, block, dim, good, para, warn, whole_reply_style};
use crate::tui::layout;
use crate::tui::reply::ValueSource;
use crate::tui::state::{Pane, State};
use crate::tui::tree::{self, RowKind};

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let inner = layout::inner(area);
    let d = state.detail();
    let title = match (state.reply.tree.source, d) {
        (ValueSource::Answer, Some(d)) => format!("value · the answer (decided by {})", d.trace.decided_by.name()),
        (ValueSource::Answer, None) => "value".to_owned(),
        (ValueSource::Candidate, _) => format!("value · candidate #{} (v: the answer)", state.reply.candidate + 1),
    };
    frame.render_widget(block(state, Pane::Value, title), area);
    let mut lines: Vec<Line> = Vec::new();
    match state.shown_value() {
        Err(why) => lines.extend(para(&why.to_string(), dim(), inner.width, 0)),
        Ok(None) => {
            let why = match (state.reply.tree.source, d.map(|d| d.trace.decided_by)) {
                (ValueSource::Candidate, _) => "this candidate has no reading that parses",
                (_, Some(DecidedBy::None)) => "null: nothing in the reply reads",
                _ => "null",
            };
            lines.extend(para(why, bad().add_modifier(Modifier::BOLD), inner.width, 0));
        }
        Ok(Some(v)) => {
            let rows = tree::rows(v, &state.reply.tree.toggled, inner.width as usize);
            let focused = state.focus == Pane::Value;
            let h = inner.height as usize;
            let cursor = state.reply.tree.cursor.min(rows.len().saturating_sub(1));
            let mut top = state.reply.tree.top.min(rows.len().saturating_sub(1));
            if cursor < top {
                top = cursor;
            } else if h > 0 && cursor >= top + h {
                top = cursor + 1 - h;
            }
            for (i, r) in rows.iter().enumerate().skip(top).take(h) {
                let mut line = row(r);
                if focused && i == cursor {
                    line = line.patch_style(Style::new().add_modifier(Modifier::REVERSED));
                }
                lines.push(line);
            }
        }
    }
    if let Some((field, p)) = d.and_then(|d| d.prefix.as_ref())
        && state.reply.tree.source == ValueSource::Answer
        && lines.len() + 2 < inner.height as usize
    {
        lines.push(Line::raw(""));
        let head = format!(
            "array prefix of `{}`: {} complete {} before the cut",
            crate::visible::visible(field, false),
            p.entries.len(),
            if p.entries.len() == 1 { "entry" } else { "entries" }
        );
        lines.extend(para(&head, warn().add_modifier(Modifier::BOLD), inner.width, 2));
        for (i, e) in p.entries.iter().enumerate() {
            lines.extend(para(&format!("[{i}] {}", sketch(e)), Style::new(), inner.width, 4));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn row(r: &tree::TreeRow) -> Line<'static> {
    let indent = "  ".repeat(r.depth);
    let marker = match r.kind {
        RowKind::Container { open: true } | RowKind::LongString { open: true } => "▾ ",
        RowKind::Container { open: false } | RowKind::LongString { open: false } => "▸ ",
        _ => "  ",
    };
    let mut spans = vec![Span::raw(indent), Span::styled(marker, dim())];
    if !r.key.is_empty() {
        spans.push(Span::styled(r.key.clone(), accent()));
        spans.push(Span::styled(": ", dim()));
    }
    let style = match r.kind {
        RowKind::Container { .. } => dim(),
        RowKind::LongString { .. } => whole_reply_style().add_modifier(Modifier::BOLD),
        RowKind::StringLine => good(),
        RowKind::More => dim(),
        RowKind::Scalar if r.text.starts_with('"') => good(),
        RowKind::Scalar => Style::new(),
    };
    spans.push(Span::styled(r.text.clone(), style));
    if !r.note.is_empty() {
        spans.push(Span::styled(format!("  {}", r.note), dim()));
    }
    Line::from(spans)
}
