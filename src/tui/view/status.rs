//! The status line (position, filter, sort, watching, loading, the last problem), the
//! prompt that replaces it while typing, and the filter menu.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::describe::thousands;
use crate::visible::visible;

use super::{accent, bad, bold, centered, dim, popup, warn};
use crate::tui::badges::Badge;
use crate::tui::input::LineEditor;
use crate::tui::list::{Applied, SortKey};
use crate::tui::message::WatchState;
use crate::tui::state::{PromptKind, QueryLine, State};
use crate::tui::wrap::fit;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let mut left: Vec<Span> = Vec::new();
    let sep = || Span::styled(" · ", dim());
    let pos = if state.list.view().is_empty() {
        "0/0".to_owned()
    } else {
        format!("{}/{}", thousands(state.list.cursor() + 1), thousands(state.list.view().len()))
    };
    left.push(Span::styled(pos, bold()));
    if !state.list.filter().on.is_empty() || state.list.filter().picked.is_some() {
        left.push(sep());
        left.push(Span::styled(
            format!("filter: {}", visible(&state.list.filter().describe(&state.config), false)),
            accent(),
        ));
    }
    if let Some(q) = &state.list.filter().query {
        left.push(sep());
        left.push(Span::styled(format!("query: {}", fit(&visible(q.query.source(), false), 48)), accent()));
        left.push(Span::styled(format!(" · {}", query_counts(state, q)), Style::new()));
    }
    if state.list.sort() != SortKey::Source {
        left.push(sep());
        left.push(Span::raw(format!("sort: {}", state.list.sort().name())));
    }
    if let Some(r) = state.what_if {
        left.push(sep());
        left.push(Span::styled(format!("what-if: {}", state.config.catalogue.name(r)), accent()));
    }
    left.push(sep());
    let (watch, style) = match &state.loading.watch {
        WatchState::Off => ("not watching".to_owned(), dim()),
        WatchState::Starting => ("starting to watch…".to_owned(), dim()),
        WatchState::Native => ("watching".to_owned(), Style::new()),
        WatchState::Polling(why) => (format!("polling every 0.5 s ({})", visible(why, false)), warn()),
    };
    left.push(Span::styled(watch, style));
    if state.loading.paused() {
        left.push(sep());
        left.push(Span::styled(
            format!("PAUSED ({} changes held; p resumes)", thousands(state.loading.held())),
            warn().add_modifier(Modifier::BOLD),
        ));
    }
    if state.loading.follow {
        left.push(sep());
        left.push(Span::styled("following", accent().add_modifier(Modifier::BOLD)));
    }
    if !state.loading.progress.done {
        left.push(sep());
        left.push(Span::styled(
            format!(
                "loading: {} files, {} items",
                thousands(state.loading.progress.files),
                thousands(state.loading.progress.items)
            ),
            accent(),
        ));
    } else {
        let pending = state.list.entries().iter().filter(|e| e.is_reply() && e.facts.is_none()).count();
        if pending > 0 {
            left.push(sep());
            left.push(Span::styled(format!("reading {} replies…", thousands(pending)), accent()));
        }
    }
    let right = match (&state.flash, &state.loading.last_diagnostic) {
        (Some(f), _) => Span::styled(visible(f, false), accent().add_modifier(Modifier::BOLD)),
        // The problems now: the load problems listed (those of a file read again since, or
        // gone, have left) and the readers' failures; what `bracewalk scan` counts.
        (None, Some(d)) if state.list.problems() + state.loading.diagnostics > 0 => {
            let n = state.list.problems() + state.loading.diagnostics;
            Span::styled(
                format!("⚠ {} problem{}, last: {}", n, if n == 1 { "" } else { "s" }, visible(d, false)),
                warn(),
            )
        }
        (None, _) => Span::styled("s sort · f filter · : query · d documents · / search", dim()),
    };
    let help = Span::styled("  ? help", dim());
    let left_w: usize = left.iter().map(|s| s.content.width()).sum();
    let room = (area.width as usize).saturating_sub(left_w + 2 + help.content.width());
    let right = Span::styled(fit(&right.content, room), right.style);
    let pad = (area.width as usize).saturating_sub(left_w + right.content.width() + help.content.width());
    left.push(Span::raw(" ".repeat(pad)));
    left.push(right);
    left.push(help);
    frame.render_widget(Paragraph::new(Line::from(left)).style(Style::new().add_modifier(Modifier::REVERSED)), area);
}

/// `3 replies · 12 matches · searching 40/117`: what the query selects.
fn query_counts(state: &State, q: &Applied) -> String {
    let shown = state.list.view().iter().filter_map(|&i| state.list.entries().get(i));
    let (mut replies, mut matches) = (0, 0);
    for e in shown.filter(|e| e.is_reply()) {
        replies += 1;
        matches += q.hits.get(&e.key).map_or(0, |h| h.matches);
    }
    let mut s = crate::describe::plural(replies, "reply", "replies");
    if q.query.reads_text() {
        s.push_str(&format!(" · {}", crate::describe::plural(matches, "match", "matches")));
        if !q.searched() {
            s.push_str(&format!(" · searching {}/{}", thousands(q.hits.len()), thousands(q.asked)));
        }
    }
    s
}

/// The query line being edited, in place of the status line: the cursor where it is, and
/// why the last Enter was refused.
pub fn query_line(frame: &mut Frame, area: Rect, line: &QueryLine) {
    let note = match &line.error {
        Some(e) => (format!("  {}", visible(&e.to_string(), false)), bad()),
        None => ("  Enter apply · Esc cancel · ↑↓ history".to_owned(), dim()),
    };
    typed(frame, area, "query: ", &line.input, Some(note));
}

/// A search or a note being typed, in place of the status line.
pub fn prompt(state: &State, frame: &mut Frame, area: Rect, kind: PromptKind, line: &LineEditor) {
    let head = match kind {
        PromptKind::Search => "/".to_owned(),
        PromptKind::Mark => {
            let label = state.selected().map(|e| visible(&e.label(), false)).unwrap_or_default();
            format!("note for {} (Enter marks, Esc cancels): ", fit(&label, 30))
        }
    };
    typed(frame, area, &head, line, None);
}

/// A line being typed: `head`, the text scrolled sideways so the cursor stays on screen, and
/// `note` after it where there is room; the terminal's cursor where the line's is.
fn typed(frame: &mut Frame, area: Rect, head: &str, line: &LineEditor, note: Option<(String, Style)>) {
    let chars: Vec<char> = line.text().chars().collect();
    let cursor = line.cursor();
    let room = (area.width as usize).saturating_sub(head.width() + 1).max(1);
    let cells = |a: usize, b: usize| -> usize { visible(&chars[a..b].iter().collect::<String>(), false).width() };
    let mut from = 0;
    while from < cursor && cells(from, cursor) >= room {
        from += 1;
    }
    let mut to = from;
    while to < chars.len() && cells(from, to + 1) <= room {
        to += 1;
    }
    let shown = visible(&chars[from..to].iter().collect::<String>(), false);
    let x = area.x + (head.width() + cells(from, cursor.min(to))) as u16;
    let mut spans = vec![Span::styled(head.to_owned(), bold()), Span::raw(shown)];
    if let Some((note, style)) = note {
        let note = fit(&note, (area.width as usize).saturating_sub(head.width() + chars.len().min(room) + 1));
        spans.push(Span::styled(note, style));
    }
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
    frame.set_cursor_position(Position::new(x.min(area.x + area.width.saturating_sub(1)), area.y));
}

/// The filter menu: every choice with how many entries carry it, ticked when on.
pub fn filter_menu(state: &State, frame: &mut Frame, area: Rect, cursor: usize) {
    let h = (state.choices.len() as u16 + 4).min(area.height.saturating_sub(2));
    // As wide as the longest choice, its count and tick, where there is room.
    let longest = state.choices.iter().map(|c| visible(&c.name(&state.config), false).width()).max().unwrap_or(0);
    let r = centered(area, (longest as u16 + 14).max(56), h);
    let inner = popup(frame, r, "filter (Space toggles, c clears, Esc closes)");
    let counts = counts(state);
    let rows = inner.height.saturating_sub(1) as usize;
    let top = cursor.saturating_sub(rows.saturating_sub(1));
    let mut lines: Vec<Line> = Vec::new();
    for (i, c) in state.choices.iter().enumerate().skip(top).take(rows) {
        let on = state.list.filter().on.contains(c);
        let n = counts.get(c).copied().unwrap_or(0);
        let tick = if on { "[x] " } else { "[ ] " };
        let text = format!("{tick}{}", visible(&c.name(&state.config), false));
        let count = thousands(n);
        let pad = (inner.width as usize).saturating_sub(text.width() + count.width());
        let style = if n == 0 { dim() } else { Style::new() };
        let mut line = Line::from(vec![
            Span::styled(text, if on { accent().add_modifier(Modifier::BOLD) } else { style }),
            Span::raw(" ".repeat(pad)),
            Span::styled(count, dim()),
        ]);
        if i == cursor {
            line = line.patch_style(Style::new().add_modifier(Modifier::REVERSED));
        }
        lines.push(line);
    }
    let footer = if state.list.filter().is_empty() {
        "no filter: every entry shown".to_owned()
    } else {
        format!("showing {}: alternatives within a kind, every kind required", thousands(state.list.view().len()))
    };
    frame
        .render_widget(Paragraph::new(lines), Rect::new(inner.x, inner.y, inner.width, inner.height.saturating_sub(1)));
    let foot = Rect::new(inner.x, inner.y + inner.height.saturating_sub(1), inner.width, 1.min(inner.height));
    frame.render_widget(Paragraph::new(Span::styled(fit(&footer, inner.width as usize), dim())), foot);
}

/// How many entries each choice admits, alone.
fn counts(state: &State) -> HashMap<&Badge, usize> {
    let mut out: HashMap<&Badge, usize> = HashMap::new();
    for e in state.list.entries() {
        let marked = state.list.is_marked(e);
        for c in &state.choices {
            if c.admits(e, marked, &state.config) {
                *out.entry(c).or_default() += 1;
            }
        }
    }
    out
}
