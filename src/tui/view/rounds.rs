//! The rounds screen: one column per round, in natural order, one line per count of the
//! summary, each cell its value and its change from the round before, a sparkline of the
//! count across the rounds at the end of the line, and under them the replies behind the
//! selected cell. And a document's pages across the rounds (from the documents screen): each
//! page's final answer in each round, a page lost since an earlier round painted, and Enter
//! setting the two final answers side by side.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Sparkline, Wrap};
use unicode_width::UnicodeWidthStr;

use crate::describe::{chars, plural, thousands};
use crate::scan::rounds::Delivered;
use crate::visible::visible;

use super::{accent, bad, bold, dim, good, warn};
use crate::tui::entry::{Entry, EntryKey};
use crate::tui::layout;
use crate::tui::rounds::{self as screen, Screen};
use crate::tui::state::State;
use crate::tui::wrap::{fit, fit_end, pad, pad_left};

/// `+12`, `−3`, `=`.
fn signed(n: i64) -> String {
    match n {
        0 => "=".to_owned(),
        n if n > 0 => format!("+{}", thousands(n as usize)),
        n => format!("−{}", thousands(n.unsigned_abs() as usize)),
    }
}

fn value(v: u64) -> String {
    thousands(usize::try_from(v).unwrap_or(usize::MAX))
}

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let areas = layout::summary(area.width, area.height);
    let s = state.rounds_screen.as_ref().map(|(_, s)| s.as_ref());
    let lines_n = s.as_ref().map_or(0, |s| s.rounds.lines.len());
    let at = screen::cell(&state.rounds);
    let title = match &s {
        Some(s) => format!(
            " rounds · {} · count {} of {} ",
            plural(s.rounds.names.len(), "round", "rounds"),
            at.line.min(lines_n.saturating_sub(1)) + 1,
            lines_n
        ),
        None => " rounds ".to_owned(),
    };
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(accent())
        .title(Span::styled(title, bold()))
        .title_bottom(Span::styled(" j/k count · h/l round, then its change · Enter list them · Esc back ", dim()));
    frame.render_widget(block, areas.frame);
    let (Some(s), Some(corpus)) = (s, &state.corpus) else { return };
    let mut head = vec![Span::styled(corpus.headline(), bold())];
    if corpus.pending > 0 {
        head.push(Span::styled(
            format!(" · reading {} for the scan…", plural(corpus.pending, "reply", "replies")),
            accent(),
        ));
    }
    let open: Vec<&str> =
        s.rounds.names.iter().zip(&s.rounds.open).filter(|(_, o)| **o).map(|(n, _)| n.as_str()).collect();
    if !open.is_empty() {
        head.push(Span::styled(format!(" · still being written: {}", visible(&open.join(", "), false)), warn()));
    }
    frame.render_widget(Paragraph::new(Line::from(head)), areas.head);
    let body = areas.body;
    let names = &s.rounds.names;
    let label_w = s.rounds.lines.iter().map(|l| l.label.width()).max().unwrap_or(0).clamp(12, 30);
    // Each round: its value, then its change.
    let widths: Vec<(usize, usize)> = (0..names.len())
        .map(|r| {
            let v = s.rounds.lines.iter().map(|l| value(l.values[r]).len()).max().unwrap_or(1);
            let c = s.rounds.lines.iter().filter_map(|l| l.change(r)).map(|c| signed(c).width()).max().unwrap_or(0);
            let name = visible(&names[r], false).width() + if s.rounds.open[r] { 2 } else { 0 };
            // The name over the value and its change.
            let v = v.max(if c > 0 { name.saturating_sub(c + 1) } else { name });
            (v, c)
        })
        .collect();
    let spark_w = names.len().clamp(5, 24);
    let room = (body.width as usize).saturating_sub(2 + label_w + spark_w + 2);
    // The rounds shown: as many as fit, from one that keeps the selected one on screen.
    let width_of = |r: usize| 2 + widths[r].0 + if widths[r].1 > 0 { 1 + widths[r].1 } else { 0 };
    let mut first = 0;
    loop {
        let used: usize = (first..=at.round.min(names.len().saturating_sub(1))).map(width_of).sum();
        if used <= room || first >= at.round {
            break;
        }
        first += 1;
    }
    let mut shown = Vec::new();
    let mut used = 0;
    for r in first..names.len() {
        if used + width_of(r) > room && !shown.is_empty() {
            break;
        }
        used += width_of(r);
        shown.push(r);
    }
    let mut header = vec![Span::raw(format!("  {}", pad(if first > 0 { "…" } else { "" }, label_w)))];
    for &r in &shown {
        let mut name = visible(&names[r], false);
        if s.rounds.open[r] {
            name.push_str(" …");
        }
        let w = width_of(r) - 2;
        header.push(Span::styled(format!("  {}", pad_left(&name, w)), if s.rounds.open[r] { warn() } else { bold() }));
    }
    header.push(Span::styled(format!("  {}", pad("trend", spark_w)), dim()));
    let h = body.height as usize;
    frame.render_widget(Paragraph::new(Line::from(header)), Rect::new(body.x, body.y, body.width, 1));
    let top = state.rounds.top.min(lines_n.saturating_sub(1));
    for (row, (i, line)) in s.rounds.lines.iter().enumerate().skip(top).take(h.saturating_sub(1)).enumerate() {
        let y = body.y + 1 + row as u16;
        let selected_line = i == at.line;
        let mut spans = vec![
            Span::styled(if selected_line { "▸ " } else { "  " }, accent()),
            Span::styled(pad(&line.label, label_w), if selected_line { bold() } else { Style::new() }),
        ];
        for &r in &shown {
            let (vw, cw) = widths[r];
            let v = line.values[r];
            let pick = |change: bool| {
                if selected_line && at.round == r && at.change == change {
                    Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
                } else {
                    Style::new()
                }
            };
            let vs = if v == 0 { dim() } else { Style::new() };
            spans.push(Span::raw("  "));
            spans.push(Span::styled(pad_left(&value(v), vw), vs.patch(pick(false))));
            if cw > 0 {
                let (text, style) = match line.change(r) {
                    Some(0) => ("=".to_owned(), dim()),
                    Some(c) => (signed(c), if c > 0 { good() } else { bad() }),
                    None => (String::new(), dim()),
                };
                spans.push(Span::raw(" "));
                spans.push(Span::styled(pad_left(&text, cw), style.patch(pick(true))));
            }
        }
        let text_w: usize = spans.iter().map(|sp| sp.content.width()).sum();
        frame.render_widget(Paragraph::new(Line::from(spans)), Rect::new(body.x, y, body.width, 1));
        let x = body.x + (text_w + 2) as u16;
        if x < body.x + body.width {
            let w = (spark_w as u16).min(body.x + body.width - x);
            let spark = Sparkline::default().data(line.values.clone()).style(accent());
            frame.render_widget(spark, Rect::new(x, y, w, 1));
        }
    }
    if let Some(panel) = areas.panel {
        frame.render_widget(Paragraph::new(behind(state, s, panel)), panel);
    }
}

/// What the selected cell is, and the first replies behind it.
fn behind(state: &State, s: &Screen, area: Rect) -> Vec<Line<'static>> {
    let width = area.width as usize;
    let at = screen::cell(&state.rounds);
    let Some(line) = s.rounds.lines.get(at.line) else { return Vec::new() };
    let name = s.rounds.names.get(at.round).map_or("", String::as_str);
    let list = screen::behind(state, s, at);
    let what = if at.change {
        match (line.change(at.round), at.round.checked_sub(1).and_then(|p| s.rounds.names.get(p))) {
            (Some(c), Some(prev)) => format!("{}: {} in {name} from {prev}", line.label, signed(c)),
            _ => line.label.clone(),
        }
    } else {
        format!("{}: {} in {name}", line.label, value(line.values.get(at.round).copied().unwrap_or(0)))
    };
    let tail = if !line.count.of_replies() {
        " · Enter opens the documents ".to_owned()
    } else if list.is_empty() {
        " · no replies ".to_owned()
    } else {
        format!(" · {} · Enter lists them ", plural(list.len(), "reply", "replies"))
    };
    let head = fit(&format!("── {}{tail}", visible(&what, false)), width);
    let rule = "─".repeat(width.saturating_sub(head.width()));
    let mut out = vec![Line::from(vec![Span::styled(head, bold()), Span::styled(rule, dim())])];
    let room = (area.height as usize).saturating_sub(1);
    let shown = if list.len() > room { room.saturating_sub(1) } else { room };
    let id_w = list
        .iter()
        .take(shown)
        .filter_map(|(k, _)| state.list.entry(*k))
        .map(|e| visible(&e.id, false).width())
        .max()
        .unwrap_or(0)
        .min(width * 2 / 5);
    for (k, note) in list.iter().take(shown) {
        let Some(e) = state.list.entry(*k) else { continue };
        let id = pad(&fit_end(&visible(&e.id, false), id_w), id_w);
        let note = if note.is_empty() { e.sketch.as_deref().unwrap_or_default().to_owned() } else { note.clone() };
        out.push(Line::from(vec![
            Span::raw(format!("  {id}  ")),
            Span::styled(fit(&visible(&note, false), width.saturating_sub(id_w + 4)), dim()),
        ]));
    }
    if list.len() > shown {
        out.push(Line::styled(format!("  … and {} more", thousands(list.len() - shown)), dim()));
    }
    out
}

/// A final answer as a cell of the page history: its size and how the seed decided.
fn answer_cell(e: Option<&Entry>, d: &Delivered<EntryKey>) -> String {
    match d {
        Delivered::NoReply => "no reply".to_owned(),
        Delivered::NoCall => "no call".to_owned(),
        Delivered::Answer { html, .. } => {
            let size = match (html, e.and_then(|e| e.sketch.as_deref())) {
                (Some(n), _) => thousands(*n),
                (None, None) => "reading…".to_owned(),
                (None, Some(_)) => "no page".to_owned(),
            };
            let decided = e.and_then(|e| e.facts.as_deref()).map_or("", |f| f.decided_by.name());
            let verified = match e.and_then(|e| e.meta()).and_then(|m| m.page_verified) {
                Some(true) => " ✓",
                Some(false) => " ✗",
                None => "",
            };
            format!("{size} {decided}{verified}")
        }
    }
}

/// One document's pages across the rounds.
pub fn render_history(
    state: &State,
    frame: &mut Frame,
    area: Rect,
    document: &str,
    page: u32,
    round: usize,
    opened: bool,
) {
    let areas = layout::summary(area.width, area.height);
    let h = screen::page_history(state, document);
    let pages: Vec<u32> = h.pages.keys().map(|(_, p)| *p).collect();
    let lost = h.losses.len();
    let title = format!(
        " {} across {} · {} · {} lost ",
        visible(document, false),
        plural(h.rounds.len(), "round", "rounds"),
        plural(pages.len(), "page", "pages"),
        thousands(lost)
    );
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(accent())
        .title(Span::styled(title, bold()))
        .title_bottom(Span::styled(" j/k page · h/l round · Enter this round beside the earlier · Esc back ", dim()));
    frame.render_widget(block, areas.frame);
    frame.render_widget(
        Paragraph::new(Line::styled(
            "each page's final answer: its characters of page, how the seed decided, its verification (✓ ✗); ⚑ lost since an earlier round",
            dim(),
        )),
        areas.head,
    );
    let body = Rect::new(
        areas.body.x,
        areas.body.y,
        areas.body.width,
        areas.body.height + areas.panel.map_or(0, |p| p.height),
    );
    if opened {
        side_by_side(state, frame, body, &h, document, page, round);
        return;
    }
    // As wide as the rounds leave room for, within bounds.
    let cell_w = ((body.width as usize).saturating_sub(8) / h.rounds.len().max(1)).saturating_sub(1).clamp(22, 36);
    let fit_rounds = ((body.width as usize).saturating_sub(8) / (cell_w + 1)).max(1);
    let first = round.saturating_sub(fit_rounds.saturating_sub(1));
    let shown: Vec<usize> = (first..h.rounds.len()).take(fit_rounds).collect();
    let mut header = vec![Span::styled(pad("page", 7), dim())];
    for &r in &shown {
        header.push(Span::styled(format!(" {}", pad(&visible(&h.rounds[r], false), cell_w)), bold()));
    }
    let mut lines = vec![Line::from(header)];
    let at = pages.iter().position(|&p| p == page).unwrap_or(0);
    let rows = (body.height as usize).saturating_sub(1);
    let top = at.saturating_sub(rows.saturating_sub(1));
    for (i, ((_, p), by_round)) in h.pages.iter().enumerate().skip(top).take(rows) {
        let mut spans = vec![Span::styled(pad(&format!("p{p}"), 7), if i == at { bold() } else { Style::new() })];
        for &r in &shown {
            let d = by_round.get(r).copied().flatten();
            let (text, mut style) = match &d {
                None => ("—".to_owned(), dim()),
                Some(d) => {
                    let key = match d {
                        Delivered::Answer { reply, .. } => *reply,
                        _ => None,
                    };
                    let e = key.and_then(|k| state.list.entry(k));
                    let text = answer_cell(e, d);
                    match screen::lost_at(&h, *p, r) {
                        Some(l) => {
                            (format!("⚑ {text} (was {})", thousands(l.before)), bad().add_modifier(Modifier::BOLD))
                        }
                        None if matches!(d, Delivered::Answer { .. }) => (text, Style::new()),
                        None => (text, warn()),
                    }
                }
            };
            if i == at && r == round {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::raw(" "));
            spans.push(Span::styled(pad(&text, cell_w), style));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), body);
}

/// This round's final answer of the page beside the earlier round's: each reply's id, its
/// page, how the seed decided, its flags, its verification, and a sketch of its answer.
fn side_by_side(
    state: &State,
    frame: &mut Frame,
    area: Rect,
    h: &crate::scan::rounds::History<EntryKey>,
    document: &str,
    page: u32,
    round: usize,
) {
    let (now, before) = screen::compared(h, document, page, round);
    let half = area.width / 2;
    let left = Rect::new(area.x, area.y, half, area.height);
    let right = Rect::new(area.x + half, area.y, area.width - half, area.height);
    let name = |r: usize| h.rounds.get(r).map_or_else(String::new, |n| visible(n, false));
    let describe = |title: String, key: Option<EntryKey>| -> Vec<Line<'static>> {
        let mut out = vec![Line::styled(title, bold().patch(accent()))];
        let Some(e) = key.and_then(|k| state.list.entry(k)) else {
            out.push(Line::styled("no final answer", dim()));
            return out;
        };
        // A long value (a flag's sentence) wraps within its half.
        let row = |k: &str, v: String, style: Style| {
            Line::from(vec![Span::styled(format!("{k:<10}"), dim()), Span::styled(v, style)])
        };
        out.push(row("reply", visible(&e.label(), false), Style::new()));
        out.push(row(
            "page",
            e.html.map_or_else(|| "no page".to_owned(), chars),
            if e.html.unwrap_or(0) == 0 { bad() } else { good() },
        ));
        if let Some(f) = e.facts.as_deref() {
            out.push(row(
                "decided",
                format!("{} · whole reply {}", f.decided_by.name(), f.verdict.name()),
                Style::new(),
            ));
            for r in &f.flags {
                out.push(row("⚑", format!("{}: {}", r.flag().name(), crate::analysis::flags::explain(r)), warn()));
            }
        }
        let verified = match e.meta().and_then(|m| m.page_verified) {
            Some(true) => ("verified".to_owned(), good()),
            Some(false) => ("rejected".to_owned(), bad()),
            None => ("—".to_owned(), dim()),
        };
        out.push(row("verdict", verified.0, verified.1));
        out.push(row("answer", visible(e.sketch.as_deref().unwrap_or("reading…"), false), dim()));
        out
    };
    let now_lines = describe(format!("{} · page {page} · {}", name(round), visible(document, false)), now);
    let before_lines = match before {
        Some((r, k)) => describe(format!("{} · the earlier round", name(r)), Some(k)),
        None => vec![Line::styled("no earlier round delivered this page", dim())],
    };
    let wrap = Wrap { trim: false };
    frame.render_widget(Paragraph::new(now_lines).wrap(wrap), Rect { width: left.width.saturating_sub(2), ..left });
    frame.render_widget(Paragraph::new(before_lines).wrap(wrap), right);
}
