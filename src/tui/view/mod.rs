//! Drawing: [`render`] is a pure function of the state, one module per pane. Every string
//! that came from a reply or a log (text, ids, agent names, notes, messages) is made safe
//! with [`crate::visible`] before it reaches a cell.

mod compare;
mod decision;
mod documents;
mod help;
mod list;
mod readers_menu;
mod readings;
mod rounds;
mod status;
mod summary;
mod text;
mod value;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::layout::{self, Panes};
use super::state::{Mode, Pane, State};
use super::wrap::word_wrap;
use crate::analysis::detail::Paint;
use crate::visible::{stand_in, visible};

/// Draws the whole screen.
pub fn render(state: &State, frame: &mut Frame) {
    let area = frame.area();
    let panes = layout::panes(area.width, area.height, state);
    if state.mode == Mode::Summary {
        summary::render(state, frame, area);
        status::render(state, frame, panes.status);
        scrub(frame);
        return;
    }
    if state.mode == Mode::Documents {
        documents::render(state, frame, area);
        status::render(state, frame, panes.status);
        scrub(frame);
        return;
    }
    if state.mode == Mode::Rounds {
        rounds::render(state, frame, area);
        status::render(state, frame, panes.status);
        scrub(frame);
        return;
    }
    if let Mode::PageHistory { document, page, round, opened } = &state.mode {
        rounds::render_history(state, frame, area, document, *page, *round, *opened);
        status::render(state, frame, panes.status);
        scrub(frame);
        return;
    }
    if let Some(r) = panes.tabs {
        tabs(state, frame, r);
    }
    if let Some(r) = panes.list {
        list::render(state, frame, r);
    }
    if let Some(r) = panes.text {
        text::render(state, frame, r);
    }
    if let Some(r) = panes.readings {
        readings::render(state, frame, r);
    }
    if let Some(r) = panes.decision {
        decision::render(state, frame, r);
    }
    if let Some(r) = panes.value {
        value::render(state, frame, r);
    }
    if let Some(r) = panes.compare {
        compare::render(state, frame, r);
    }
    status::render(state, frame, panes.status);
    match &state.mode {
        Mode::Help { scroll } => help::render(state, frame, area, *scroll),
        Mode::Filter { cursor } => status::filter_menu(state, frame, area, *cursor),
        Mode::Readers { cursor } => readers_menu::render(state, frame, area, *cursor),
        Mode::Prompt { kind, line } => status::prompt(state, frame, panes.status, *kind, line),
        Mode::Query(line) => status::query_line(frame, panes.status, line),
        Mode::Normal | Mode::Summary | Mode::Documents | Mode::Rounds | Mode::PageHistory { .. } => {}
    }
    scrub(frame);
}

/// The last guard: no cell may hold a character that acts on a terminal, whatever path it
/// took to get there (every pane already shows reply text through `visible`).
fn scrub(frame: &mut Frame) {
    for cell in frame.buffer_mut().content.iter_mut() {
        if cell.symbol().chars().any(|c| stand_in(c, false).is_some()) {
            let safe = visible(cell.symbol(), false);
            cell.set_symbol(&safe);
        }
    }
}

/// Renders one pane alone into `area` (for tests and for a pane drawn on its own).
pub fn render_pane(state: &State, frame: &mut Frame, pane: Pane, area: Rect) {
    match pane {
        Pane::List => list::render(state, frame, area),
        Pane::Text => text::render(state, frame, area),
        Pane::Readings => readings::render(state, frame, area),
        Pane::Decision => decision::render(state, frame, area),
        Pane::Value => value::render(state, frame, area),
        Pane::Compare => compare::render(state, frame, area),
    }
    scrub(frame);
}

/// The help screen's text, whole: the key tables and the legends for `config`'s readers.
pub fn help_lines(config: &crate::analysis::Config, compared: crate::readers::ReaderId) -> Vec<Line<'static>> {
    help::lines(config, compared)
}

/// How many rows a scrolling pane's content takes at `width` (for `update` to clamp).
pub fn content_rows(state: &State, pane: Pane, width: u16) -> usize {
    match pane {
        Pane::Readings => readings::lines(state, width).len(),
        Pane::Decision => decision::lines(state, width).len(),
        Pane::Compare => compare::lines(state, width).len(),
        _ => 0,
    }
}

// ---- shared look ---------------------------------------------------------------------------

pub(crate) use super::look::{accent, bad, bold, dim, good, warn, whole_reply_style};

/// How a candidate's fate is painted in the text, the ruler and the lists.
pub(crate) fn paint_style(p: Paint) -> Style {
    match p {
        Paint::Plain => Style::new(),
        Paint::Kept => Style::new().fg(Color::Black).bg(Color::Green),
        Paint::Superseded => Style::new().fg(Color::Black).bg(Color::Yellow),
        Paint::Unreadable => Style::new().fg(Color::Red).add_modifier(Modifier::UNDERLINED),
        Paint::Nested => Style::new().fg(Color::Magenta).add_modifier(Modifier::UNDERLINED),
    }
}

/// The word for a candidate's fate.
pub(crate) fn paint_word(p: Paint) -> &'static str {
    match p {
        Paint::Plain => "",
        Paint::Kept => "kept",
        Paint::Superseded => "read, superseded",
        Paint::Unreadable => "unreadable",
        Paint::Nested => "unreadable, inside another candidate",
    }
}

/// The ruler's glyph for a candidate's fate.
pub(crate) fn paint_glyph(p: Paint) -> &'static str {
    match p {
        Paint::Plain => "─",
        Paint::Kept => "●",
        Paint::Superseded => "○",
        Paint::Unreadable => "×",
        Paint::Nested => "·",
    }
}

/// A pane's frame, its title, and whether it has the focus.
pub(crate) fn block(state: &State, pane: Pane, title: String) -> Block<'static> {
    let focused = state.focus == pane;
    let border = if focused { accent().add_modifier(Modifier::BOLD) } else { dim() };
    let number = format!(" {} ", pane.index() + 1);
    Block::new()
        .borders(Borders::ALL)
        .border_type(if focused { BorderType::Thick } else { BorderType::Plain })
        .border_style(border)
        .title(Line::from(vec![
            Span::styled(number, border),
            Span::styled(title, if focused { bold() } else { Style::new() }),
            Span::raw(" "),
        ]))
}

/// Draws `lines` in a bordered pane, from row `top` (clamped to the content).
pub(crate) fn scrolled(frame: &mut Frame, area: Rect, block: Block<'static>, lines: Vec<Line<'static>>, top: u16) {
    let inner = layout::inner(area);
    let max = lines.len().saturating_sub(inner.height as usize);
    let top = (top as usize).min(max);
    let shown: Vec<Line> = lines.into_iter().skip(top).take(inner.height as usize).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
    if max > 0 {
        let mark = format!(" {}/{} ", top + 1, max + 1);
        let x = area.x + area.width.saturating_sub(mark.width() as u16 + 1);
        let y = area.y + area.height.saturating_sub(1);
        if area.height > 1 {
            frame.render_widget(Paragraph::new(Span::styled(mark, dim())), Rect::new(x, y, area.width.min(12), 1));
        }
    }
}

/// Styled pieces laid into lines of at most `width` cells; continuation lines are
/// indented by `indent` cells. The pieces must already be safe to show.
pub(crate) fn flow(pieces: Vec<(String, Style)>, width: u16, indent: usize) -> Vec<Line<'static>> {
    let width = (width as usize).max(indent + 4);
    let mut lines = Vec::new();
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut used = 0usize;
    for (text, style) in pieces {
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let room = width - used;
            if rest.width() <= room {
                used += rest.width();
                cur.push(Span::styled(rest.to_owned(), style));
                break;
            }
            // Break at the last space that fits, else hard.
            let mut cut = 0;
            let mut w = 0;
            let mut last_space = None;
            for (i, c) in rest.char_indices() {
                let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                if w + cw > room {
                    break;
                }
                w += cw;
                cut = i + c.len_utf8();
                if c == ' ' {
                    last_space = Some(cut);
                }
            }
            let cut = match last_space {
                Some(s) if s > 0 && used + w > width / 2 => s,
                _ if cut == 0 && used == indent => rest.chars().next().map_or(rest.len(), char::len_utf8),
                _ => cut,
            };
            if cut > 0 {
                cur.push(Span::styled(rest[..cut].to_owned(), style));
            }
            rest = &rest[cut..];
            lines.push(Line::from(std::mem::take(&mut cur)));
            cur.push(Span::raw(" ".repeat(indent)));
            used = indent;
        }
    }
    if cur.iter().any(|s| !s.content.trim().is_empty()) || lines.is_empty() {
        lines.push(Line::from(cur));
    }
    lines
}

/// A plain sentence as lines.
pub(crate) fn para(text: &str, style: Style, width: u16, indent: usize) -> Vec<Line<'static>> {
    flow(vec![(text.to_owned(), style)], width, indent)
}

/// Columns side by side: each column a list of lines of text, `│` between them.
pub(crate) fn columns(cols: Vec<Vec<(String, Style)>>, width: u16) -> Vec<Line<'static>> {
    let n = cols.len().max(1);
    let col_w = ((width as usize).saturating_sub(n - 1) / n).max(4);
    let wrapped: Vec<Vec<(String, Style)>> = cols
        .into_iter()
        .map(|c| c.into_iter().flat_map(|(t, s)| word_wrap(&t, col_w).into_iter().map(move |l| (l, s))).collect())
        .collect();
    let rows = wrapped.iter().map(Vec::len).max().unwrap_or(0);
    (0..rows)
        .map(|r| {
            let mut spans = Vec::new();
            for (i, col) in wrapped.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled("│", dim()));
                }
                let (t, s) = col.get(r).cloned().unwrap_or_default();
                let pad = col_w.saturating_sub(t.width());
                spans.push(Span::styled(t, s));
                spans.push(Span::raw(" ".repeat(pad)));
            }
            Line::from(spans)
        })
        .collect()
}

/// The tab bar of small terminals.
fn tabs(state: &State, frame: &mut Frame, area: Rect) {
    let mut spans = Vec::new();
    for (i, p) in Pane::ORDER.iter().enumerate() {
        let label = tab_label(*p, i);
        let shown = state.focus == *p || (state.focus == Pane::List && *p == Pane::Text);
        let style = if state.focus == *p {
            accent().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else if shown {
            accent()
        } else {
            dim()
        };
        spans.push(Span::styled(label, style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn tab_label(p: Pane, i: usize) -> String {
    format!(" {} {} ", i + 1, p.title())
}

/// The pane whose tab is at column `x`.
pub fn tab_at(area: Rect, x: u16) -> Option<Pane> {
    let mut at = area.x;
    for (i, p) in Pane::ORDER.iter().enumerate() {
        let w = tab_label(*p, i).width() as u16;
        if x >= at && x < at + w {
            return Some(*p);
        }
        at += w;
    }
    None
}

/// A centred rectangle of at most `w`×`h`.
pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h)
}

/// Clears `area` and draws a bordered box there.
pub(crate) fn popup(frame: &mut Frame, area: Rect, title: &str) -> Rect {
    frame.render_widget(Clear, area);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Double)
        .border_style(accent())
        .title(Span::styled(format!(" {title} "), bold()));
    frame.render_widget(block, area);
    layout::inner(area)
}

/// The layout of the frame `state` is drawn into (for callers outside `update`).
pub fn panes_for(state: &State, area: Rect) -> Panes {
    layout::panes(area.width, area.height, state)
}
