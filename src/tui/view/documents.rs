//! The documents screen: each document of each round, its pages in order, and for each page
//! its calls, its final answer (the `html` it delivers, or what there is), the answer's
//! badges, and the page's verification. A missing or tiny page is painted to stand out.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::describe::{chars, thousands};
use crate::visible::visible;

use super::{accent, bad, bold, dim, good, warn};
use crate::tui::badges;
use crate::tui::documents::{self, Document, DocumentRow, Page, TINY_HTML};
use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::wrap::{fit, pad};

/// The columns' widths: page, calls, the final answer's label, what it delivers.
const PAGE: usize = 7;
const CALLS: usize = 24;
const LABEL: usize = 22;
const ANSWER: usize = 24;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let areas = layout::summary(area.width, area.height);
    let docs = documents::documents(state);
    let rows = documents::rows(&docs);
    let cursor = state.documents.cursor.min(rows.len().saturating_sub(1));
    let title = format!(" documents · {} · row {} of {} ", thousands(docs.len()), cursor + 1, rows.len());
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(accent())
        .title(Span::styled(title, bold()))
        .title_bottom(Span::styled(" j/k move · Tab document · Enter list its calls · Esc back ", dim()));
    frame.render_widget(block, areas.frame);
    let head = format!(
        "  {}{} {}{} decided by · badges",
        cell("page", PAGE),
        cell("calls", CALLS),
        cell("final answer", LABEL),
        pad("", ANSWER)
    );
    let head =
        format!("{head}{}verified", " ".repeat((areas.head.width as usize).saturating_sub(head.width() + 8 + 1)));
    frame.render_widget(Paragraph::new(Line::styled(fit(&head, areas.head.width as usize), dim())), areas.head);
    let body = Rect::new(
        areas.body.x,
        areas.body.y,
        areas.body.width,
        areas.body.height + areas.panel.map_or(0, |p| p.height),
    );
    let h = body.height as usize;
    // The cursor on screen, whatever the screen's height.
    let top = state.documents.top.min(cursor).max((cursor + 1).saturating_sub(h));
    let table = badges::table(&state.config, state.compared);
    let lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, r)| {
            let line = match *r {
                DocumentRow::Document(d) => doc_line(&docs[d]),
                DocumentRow::Page(d, p) => page_line(state, &docs[d].pages[p], body.width as usize, &table),
            };
            if i == cursor { line.patch_style(Style::new().add_modifier(Modifier::REVERSED)) } else { line }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

fn doc_line(d: &Document) -> Line<'static> {
    let missing = d.pages.iter().filter(|p| p.missing()).count();
    let pages = d.pages.iter().filter(|p| p.number.is_some()).count();
    let mut spans = vec![
        Span::styled(visible(&d.id, false), bold().patch(accent())),
        Span::raw(format!("  {}", visible(d.round.as_deref().unwrap_or("—"), false))),
        Span::styled(format!("  {}", visible(d.outcome.as_deref().unwrap_or("outcome not logged"), false)), dim()),
        Span::raw(format!("  {}", crate::describe::plural(pages, "page", "pages"))),
    ];
    if missing > 0 {
        spans.push(Span::styled(format!(" · {missing} missing"), bad().add_modifier(Modifier::BOLD)));
    }
    Line::from(spans)
}

/// `s` in a column `width` cells wide, cut to leave a space before the next column.
fn cell(s: &str, width: usize) -> String {
    format!("{} ", pad(s, width.saturating_sub(1)))
}

fn page_line(state: &State, p: &Page, width: usize, table: &[badges::Look]) -> Line<'static> {
    let number = p.number.map_or_else(|| "review".to_owned(), |n| format!("p{n}"));
    let mut spans = vec![Span::styled(format!("  {}", cell(&number, PAGE)), bold())];
    if p.missing() {
        spans.push(Span::styled("missing: no call names this page", bad().add_modifier(Modifier::BOLD)));
        return Line::from(spans);
    }
    let agents: Vec<String> = p.agents.iter().map(|(a, n)| format!("{} ×{n}", visible(a, false))).collect();
    let no_reply = p.calls.len() - p.agents.iter().map(|(_, n)| n).sum::<usize>();
    let mut calls = agents.join(" ");
    if no_reply > 0 {
        calls.push_str(&format!(" +{no_reply} no reply"));
    }
    spans.push(Span::raw(cell(&calls, CALLS)));
    let last = p.last.and_then(|k| state.list.entry(k));
    let (answer, style) = match last {
        None => ("no reply".to_owned(), bad().add_modifier(Modifier::BOLD)),
        Some(e) => match (e.html, &e.sketch) {
            (Some(n), _) if n < TINY_HTML => (format!("html {} (tiny)", chars(n)), bad().add_modifier(Modifier::BOLD)),
            (Some(n), _) => (format!("html {}", chars(n)), good()),
            (None, Some(s)) if &**s == "null" => ("nothing read".to_owned(), bad().add_modifier(Modifier::BOLD)),
            (None, Some(s)) => (visible(s, false), warn()),
            (None, None) => ("reading…".to_owned(), dim()),
        },
    };
    let label = last.map(|e| visible(&e.label(), false)).unwrap_or_default();
    spans.push(Span::styled(cell(&label, LABEL), dim()));
    spans.push(Span::styled(format!("{} ", pad(&answer, ANSWER)), style));
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let verified = match p.verified {
        Some(true) => Span::styled("✓ verified", good()),
        Some(false) => Span::styled("✗ rejected", bad().add_modifier(Modifier::BOLD)),
        None => Span::styled("—", dim()),
    };
    if let Some(e) = last {
        let marks = super::list::badges(state, e, true, table);
        let room = width.saturating_sub(used + verified.content.width() + 2);
        let mut took = 0;
        for m in marks {
            let w = m.content.width();
            if took + w > room {
                break;
            }
            took += w;
            spans.push(m);
        }
        spans.push(Span::raw(" ".repeat(room.saturating_sub(took) + 1)));
    }
    spans.push(verified);
    Line::from(spans)
}
