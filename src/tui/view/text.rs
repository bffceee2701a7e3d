//! The reply as written, wrapped, every candidate's span painted by its fate, with a ruler
//! that places every candidate in the whole reply (an answer at 53,207 of 62,017 bytes is
//! seen without scrolling) and a line giving the selected candidate's offsets.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

use crate::describe::{Positions, thousands};
use crate::exact::span::utf16_len;
use crate::visible::{stand_in, visible};

use super::{accent, bad, block, dim, paint_glyph, paint_style, paint_word, para, warn};
use crate::analysis::detail::{Detail, Paint};
use crate::tui::entry::{Body, Entry};
use crate::tui::layout;
use crate::tui::state::{Pane, State};
use crate::tui::wrap;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let Some(e) = state.selected() else {
        frame.render_widget(block(state, Pane::Text, "reply text".to_owned()), area);
        return;
    };
    if !e.is_reply() {
        return not_a_reply(state, e, frame, area);
    }
    // The text is the record's: read, for a reply loaded from a file, when the record is made.
    let Some(detail) = state.detail() else {
        let title = format!("reply text · {} B", thousands(e.size()));
        frame.render_widget(
            Paragraph::new(Span::styled("reading the reply…", dim())).block(block(state, Pane::Text, title)),
            area,
        );
        return;
    };
    let text = &*detail.text;
    let title = format!("reply text · {} B · {} lines", thousands(text.len()), thousands(detail.lines));
    frame.render_widget(block(state, Pane::Text, title), area);
    let inner = layout::inner(area);
    if inner.height < 3 || inner.width < 8 {
        return;
    }
    let detail = Some(detail);
    let body = layout::text_body(area);
    // The text as `update` wrapped it, or (drawn into another area) wrapped here.
    let (rows, top) = match state.reply.wrap.as_ref().filter(|w| w.key == e.key) {
        Some(w) if w.width == body.width && w.how == state.reply.wrapping => {
            (std::borrow::Cow::Borrowed(&w.rows), state.reply.text_top)
        }
        Some(w) => {
            let at = w.rows.get(state.reply.text_top).copied().unwrap_or(0);
            let rows = wrap::rows(text, body.width as usize, state.reply.wrapping);
            let top = wrap::row_of(&rows, at);
            (std::borrow::Cow::Owned(rows), top)
        }
        None => (std::borrow::Cow::Owned(wrap::rows(text, body.width as usize, state.reply.wrapping)), 0),
    };
    let view_start = rows.get(top).copied().unwrap_or(0);
    let view_end = rows.get(top + body.height as usize).copied().unwrap_or(text.len());
    let ruler_area = Rect::new(inner.x, inner.y, inner.width, 1);
    frame.render_widget(
        Paragraph::new(ruler(state, text, detail.map(|d| &**d), inner.width, (view_start, view_end))),
        ruler_area,
    );
    let pos_area = Rect::new(inner.x, inner.y + 1, inner.width, 1);
    frame.render_widget(Paragraph::new(position(state, text, detail.map(|d| &**d))), pos_area);

    let lines: Vec<Line> = (top..rows.len())
        .take(body.height as usize)
        .map(|r| {
            let start = rows[r];
            let end = rows.get(r + 1).copied().unwrap_or(text.len());
            row(state, text, detail.map(|d| &**d), start, end)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
    if rows.len() <= body.height as usize {
        return;
    }
    let bar = Rect::new(body.x + body.width, body.y, 1, body.height);
    let mut sb = ScrollbarState::new(rows.len().saturating_sub(body.height as usize) + 1).position(top);
    frame.render_stateful_widget(
        Scrollbar::new(ScrollbarOrientation::VerticalRight).begin_symbol(None).end_symbol(None),
        bar,
        &mut sb,
    );
}

/// An event or a diagnostic: its message where the text would be.
fn not_a_reply(state: &State, e: &Entry, frame: &mut Frame, area: Rect) {
    let inner = layout::inner(area);
    let (title, lines) = match &e.body {
        Body::Event { kind, message, .. } => {
            let mut l = para(
                &format!("No reply: this call left none ({}).", kind.name()),
                bad().add_modifier(Modifier::BOLD),
                inner.width,
                0,
            );
            l.extend(para(&visible(message, false), Style::new(), inner.width, 0));
            ("call with no reply".to_owned(), l)
        }
        Body::Diagnostic(d) => {
            let mut l = para("A problem loading this input (everything else loaded):", warn(), inner.width, 0);
            l.extend(para(&visible(&d.to_string(), false), Style::new(), inner.width, 0));
            l.extend(para(&format!("kind: {}", d.problem.kind()), dim(), inner.width, 0));
            ("load problem".to_owned(), l)
        }
        Body::Reply { .. } => (String::new(), Vec::new()),
    };
    frame.render_widget(Paragraph::new(lines).block(block(state, Pane::Text, title)), area);
}

/// The whole reply in one row: each candidate at its place, the part on screen shaded.
fn ruler(state: &State, text: &str, detail: Option<&Detail>, width: u16, view: (usize, usize)) -> Line<'static> {
    let w = width as usize;
    let len = text.len().max(1);
    let cell = |byte: usize| (byte.min(len - 1) * w / len).min(w.saturating_sub(1));
    let mut glyphs: Vec<(&'static str, Style, u8)> = vec![("─", dim(), 0); w];
    if let Some(search) = state.reply.search.as_ref().filter(|s| Some(state.reply.key()) == Some(s.key)) {
        for &(a, _) in &search.matches {
            glyphs[cell(a)] = ("╎", accent(), 1);
        }
    }
    if let Some(d) = detail {
        for i in 0..d.trace.candidates.len() {
            let p = d.class(i);
            let rank = match p {
                Paint::Kept => 5,
                Paint::Superseded => 4,
                Paint::Unreadable => 3,
                _ => 2,
            };
            let at = cell(d.trace.candidates[i].start);
            if glyphs[at].2 < rank {
                glyphs[at] = (paint_glyph(p), fate_fg(p), rank);
            }
        }
        if let Some(c) = d.trace.candidates.get(state.reply.candidate) {
            let at = cell(c.start);
            glyphs[at] = ("▼", Style::new().fg(Color::White).add_modifier(Modifier::BOLD), 9);
        }
    }
    let (a, b) = (cell(view.0), cell(view.1.saturating_sub(1)));
    let spans: Vec<Span> = glyphs
        .into_iter()
        .enumerate()
        .map(|(i, (g, s, _))| {
            let s = if i >= a && i <= b { s.bg(Color::DarkGray) } else { s };
            Span::styled(g, s)
        })
        .collect();
    Line::from(spans)
}

fn fate_fg(p: Paint) -> Style {
    match p {
        Paint::Kept => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        Paint::Superseded => Style::new().fg(Color::Yellow),
        Paint::Unreadable => Style::new().fg(Color::Red),
        Paint::Nested => Style::new().fg(Color::Magenta),
        Paint::Plain => dim(),
    }
}

/// `#7/7 kept · byte 53,207 (812:1) of 62,017 · utf16 53,101`.
fn position(state: &State, text: &str, detail: Option<&Detail>) -> Line<'static> {
    let Some(d) = detail else {
        return Line::styled("reading the reply…", dim());
    };
    let n = d.trace.candidates.len();
    if n == 0 {
        let why = if d.trace.whole_text.outcome.is_ok() {
            "the whole reply is JSON: read whole, no candidates".to_owned()
        } else {
            "no `{` in the reply: no candidates".to_owned()
        };
        return Line::styled(why, dim());
    }
    let i = state.reply.candidate.min(n - 1);
    let c = &d.trace.candidates[i];
    let loc = Positions::new(text);
    let p = d.class(i);
    let (s, e) = d.spans.get(i).copied().unwrap_or((c.start, c.start + 1));
    let utf16_total = utf16_len(text);
    let units = if utf16_total != text.len() {
        format!(" · utf16 {}..{} of {}", thousands(loc.utf16(s)), thousands(loc.utf16(e)), thousands(utf16_total))
    } else {
        String::new()
    };
    Line::from(vec![
        Span::styled(
            format!("#{}/{} ", d.trace.number(i) + 1, d.trace.visited()),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::styled(paint_word(p).to_owned(), fate_fg(p)),
        Span::raw(format!(
            " · {} · span {}..{} of {} B{units}",
            loc.at(c.start),
            thousands(s),
            thousands(e),
            thousands(text.len())
        )),
        Span::styled("   [ ] candidates", dim()),
    ])
}

/// One screen row of the reply, from byte `start` to `end`.
fn row(state: &State, text: &str, detail: Option<&Detail>, start: usize, end: usize) -> Line<'static> {
    let selected = detail.and_then(|d| d.spans.get(state.reply.candidate).copied());
    let selected_start = detail.and_then(|d| d.trace.candidates.get(state.reply.candidate)).map(|c| c.start);
    let search = state.reply.search.as_ref().filter(|s| s.key == state.reply.key());
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_style = Style::new();
    for (i, c) in text.get(start..end).unwrap_or("").char_indices() {
        let at = start + i;
        if c == '\n' {
            continue;
        }
        let mut style = detail.map_or(Style::new(), |d| paint_style(d.paint_at(at)));
        if let Some((s, e)) = selected
            && at >= s
            && at < e
        {
            style = style.add_modifier(Modifier::BOLD);
        }
        if selected_start == Some(at) {
            style = Style::new().fg(Color::Black).bg(Color::White).add_modifier(Modifier::BOLD);
        }
        if let Some(s) = search {
            let k = s.matches.partition_point(|&(_, e)| e <= at);
            if let Some(&(a, b)) = s.matches.get(k)
                && a <= at
                && at < b
            {
                let current = s.current == Some(k);
                style = Style::new().fg(Color::Black).bg(if current { Color::LightCyan } else { Color::Cyan });
            }
        }
        let shown = stand_in(c, false);
        if shown.is_some() {
            style = style.add_modifier(Modifier::DIM);
        }
        if style != run_style && !run.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut run), run_style));
        }
        run_style = style;
        match shown {
            Some(s) => run.push_str(s),
            None => run.push(c),
        }
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, run_style));
    }
    Line::from(spans)
}
