//! The summary screen: the corpus scan's counts as rows with a bar each, the agents and
//! rounds as stacked bars of how the seed decided, and under them the replies behind the
//! selected row (with each what-if's account of how it reads them differently).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::describe::thousands;
use crate::exact::trace::DecidedBy;
use crate::visible::visible;

use crate::analysis::Class;
use crate::describe::plural;
use crate::exact::trace::Verdict;
use crate::scan::report::{self, Row};
use crate::tui::layout;
use crate::tui::state::State;

use super::{accent, bad, bold, dim, warn, whole_reply_style};
use crate::tui::summary::{self, Corpus, ScreenRow, ScreenSection, Slot};
use crate::tui::wrap::{fit, fit_end, pad, pad_left};

/// The glyph and colour of each way the seed decides, in [`DecidedBy::ALL`] order: a
/// stacked bar reads without colour too.
const OUTCOMES: [(&str, Color); 4] =
    [("█", Color::Green), ("▓", Color::Cyan), ("▒", Color::Magenta), ("░", Color::Red)];

fn outcome(d: DecidedBy) -> (&'static str, Style) {
    let (glyph, color) = OUTCOMES[d.index()];
    (glyph, Style::new().fg(color))
}

/// The glyph and colour of each class of difference, in [`Class::ALL`] order.
const CLASSES: [(&str, Color); 3] = [("█", Color::Green), ("▓", Color::Red), ("░", Color::Yellow)];

fn class_look(c: Class) -> (&'static str, Style) {
    let (glyph, color) = CLASSES[c.index()];
    (glyph, Style::new().fg(color))
}

/// Draws the screen over the whole terminal `area` but its status line.
pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let areas = layout::summary(area.width, area.height);
    let sections = state.corpus.as_ref().map(|c| summary::blocks(&c.scan)).unwrap_or_default();
    let rows = summary::row_count(&sections);
    let cursor = state.summary.cursor.min(rows.saturating_sub(1));
    let title = if rows == 0 { " summary ".to_owned() } else { format!(" summary · row {} of {} ", cursor + 1, rows) };
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(accent())
        .title(Span::styled(title, bold()))
        .title_bottom(Span::styled(" j/k move · Tab section · Enter list them · w what-if · Esc back ", dim()));
    frame.render_widget(block, areas.frame);
    let Some(corpus) = &state.corpus else { return };
    frame.render_widget(Paragraph::new(headline(corpus, areas.head.width)), areas.head);

    let slots = summary::slots(&sections);
    let w = widths(&sections, areas.body.width);
    let lines: Vec<Line> = slots
        .iter()
        .skip(state.summary.top)
        .take(areas.body.height as usize)
        .map(|slot| match *slot {
            Slot::Title(s) => title_line(&sections[s]),
            Slot::Row(s, r, flat) => row_line(&sections[s].lines[r], flat == cursor, &w),
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), areas.body);
    if let Some(panel) = areas.panel
        && let Some(row) = summary::row_at(&sections, cursor)
    {
        frame.render_widget(Paragraph::new(behind(state, corpus, row, panel)), panel);
    }
}

fn headline(corpus: &Corpus, width: u16) -> Line<'static> {
    let mut spans = vec![Span::styled(corpus.headline(), bold())];
    if corpus.pending > 0 {
        spans.push(Span::styled(
            format!(" · reading {} for the scan…", plural(corpus.pending, "reply", "replies")),
            accent(),
        ));
    }
    if corpus.gone > 0 {
        spans.push(Span::styled(
            format!(" · {} not counted: could not be read again", plural(corpus.gone, "reply", "replies")),
            dim(),
        ));
    }
    let w: usize = spans.iter().map(|s| s.content.width()).sum();
    if w > width as usize {
        let joined: String = spans.iter().map(|s| s.content.as_ref()).collect();
        return Line::styled(fit(&joined, width as usize), bold());
    }
    Line::from(spans)
}

fn title_line(section: &ScreenSection) -> Line<'static> {
    if section.lines.iter().any(|r| r.classes.is_some()) {
        // The classes' legend says what the title would: it stands in for it.
        let mut spans = vec![Span::styled("reader comparisons", bold().patch(accent())), Span::raw("   ")];
        for c in Class::ALL {
            let (glyph, style) = class_look(c);
            spans.push(Span::styled(glyph, style));
            spans.push(Span::styled(format!(" {}  ", c.name()), dim()));
        }
        let meanings: Vec<String> = Class::ALL.iter().map(|c| c.meaning("A", "B")).collect();
        spans.push(Span::styled(format!(" (A → B: {})", meanings.join(" · ")), dim()));
        return Line::from(spans);
    }
    let mut spans = vec![Span::styled(section.title.to_owned(), bold().patch(accent()))];
    if section.lines.iter().any(|r| r.mix.is_some()) {
        spans.push(Span::raw("   "));
        for d in DecidedBy::ALL {
            let (glyph, style) = outcome(d);
            spans.push(Span::styled(glyph, style));
            spans.push(Span::styled(format!(" {}  ", d.name()), dim()));
        }
    }
    Line::from(spans)
}

/// The widths every row shares, so the numbers and bars line up across sections.
struct Widths {
    label: usize,
    bar: usize,
    note: bool,
}

fn widths(sections: &[ScreenSection], width: u16) -> Widths {
    let all = || sections.iter().flat_map(|s| s.lines.iter());
    let label = all().map(|r| r.label.width()).max().unwrap_or(0).clamp(12, 36);
    // Mark, label, count, percentage, gaps.
    let fixed = 2 + label + 1 + 7 + 1 + 6 + 2;
    let note = all().map(|r| r.note.width()).max().unwrap_or(0);
    let room = (width as usize).saturating_sub(fixed);
    if note > 0 && room >= note + 1 + 12 {
        Widths { label, bar: room - note - 1, note: true }
    } else {
        Widths { label, bar: room, note: false }
    }
}

fn row_line(row: &ScreenRow, selected: bool, w: &Widths) -> Line<'static> {
    let pick = if selected { Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD) } else { Style::new() };
    let count_style = if row.count == 0 { dim() } else { Style::new() };
    let pct = summary::percent(row.count, row.of);
    let pct = if pct.is_empty() { String::new() } else { format!("{pct}%") };
    let mut spans = vec![
        Span::styled(if selected { "▸ " } else { "  " }, accent()),
        Span::styled(pad(&row.label, w.label), pick),
        Span::styled(format!(" {}", pad_left(&thousands(row.count), 7)), pick.patch(count_style)),
        Span::styled(format!(" {}", pad_left(&pct, 6)), pick.patch(dim())),
        Span::raw("  "),
    ];
    let cells = |n: usize| -> usize {
        if row.scale == 0 || n == 0 || w.bar == 0 {
            0
        } else {
            // A count that is not zero shows, however small.
            ((n as f64 * w.bar as f64 / row.scale as f64).round() as usize).clamp(1, w.bar)
        }
    };
    let mut used = 0;
    match (row.mix, row.classes) {
        (Some(mix), _) => {
            for (d, cut) in DecidedBy::ALL.iter().zip(stack(mix, cells(row.count))) {
                let (glyph, style) = outcome(*d);
                spans.push(Span::styled(glyph.repeat(cut), style));
                used += cut;
            }
        }
        (None, Some([g, l, c])) => {
            for (k, cut) in Class::ALL.iter().zip(stack([g, l, c, 0], cells(row.count))) {
                let (glyph, style) = class_look(*k);
                spans.push(Span::styled(glyph.repeat(cut), style));
                used += cut;
            }
        }
        (None, None) => {
            let n = cells(row.count);
            let (glyph, style) = bar_look(&row.target, row.count);
            spans.push(Span::styled(glyph.repeat(n), style));
            used = n;
        }
    }
    if w.note && !row.note.is_empty() {
        spans.push(Span::raw(" ".repeat(w.bar.saturating_sub(used) + 1)));
        spans.push(Span::styled(row.note.clone(), dim()));
    }
    Line::from(spans)
}

/// The bar of a row that is not a group.
fn bar_look(target: &Row, count: usize) -> (&'static str, Style) {
    match target {
        Row::Decided(d) => outcome(*d),
        Row::Verdict(Verdict::Taken) => ("█", whole_reply_style()),
        Row::Verdict(Verdict::RefusedWalkClosed | Verdict::RefusedNotSelfContained) => ("█", warn()),
        Row::Verdict(_) => ("█", dim()),
        Row::StrictUnreadable | Row::Rescued | Row::RepairChanged => ("█", warn()),
        Row::CutOff | Row::Truncated(_) => ("█", bad()),
        Row::Differs(_) if count > 0 => ("█", bad()),
        _ => ("█", dim()),
    }
}

/// `total` cells shared among `counts` in proportion, each count that is not zero getting
/// at least one where there are enough cells.
fn stack(counts: [usize; 4], total: usize) -> [usize; 4] {
    let sum: usize = counts.iter().sum();
    let mut out = [0; 4];
    if sum == 0 || total == 0 {
        return out;
    }
    // Cumulative rounding keeps the segments adding up to the total.
    let mut acc = 0;
    let mut prev = 0;
    for (i, &c) in counts.iter().enumerate() {
        acc += c;
        let end = ((acc as f64) * total as f64 / sum as f64).round() as usize;
        out[i] = end - prev;
        prev = end;
    }
    let nonzero = counts.iter().filter(|&&c| c > 0).count();
    if total >= nonzero {
        for i in 0..4 {
            if counts[i] > 0
                && out[i] == 0
                && let Some(big) = (0..4).max_by_key(|&j| out[j])
            {
                out[big] = out[big].saturating_sub(1);
                out[i] = 1;
            }
        }
    }
    out
}

/// The panel under the rows: what the selected row is, and the first replies behind it.
fn behind(state: &State, corpus: &Corpus, row: &ScreenRow, area: Rect) -> Vec<Line<'static>> {
    let width = area.width as usize;
    let scan = &corpus.scan;
    let what = match (&row.target, row.mix) {
        (Row::Differs(p), _) => report::sentence(scan, *p),
        (_, Some(mix)) => {
            let parts: Vec<String> =
                DecidedBy::ALL.iter().zip(mix).map(|(d, n)| format!("{} {}", thousands(n), d.name())).collect();
            format!("{}: {}", row.target.name(&scan.config), parts.join(" · "))
        }
        _ => row.label.trim().to_owned(),
    };
    // Found among the entries as the screen settled: a comparison's by class, each reply's
    // class before its account; no more than the panel shows.
    let list: Vec<&(usize, String)> = corpus.behind(&row.target).map(|b| b.replies().collect()).unwrap_or_default();
    let total = row.count;
    let tail = if total == 0 {
        " · no replies ".to_owned()
    } else {
        format!(" · {} · Enter lists them ", plural(total, "reply", "replies"))
    };
    let head = fit(&format!("── {}{tail}", visible(&what, false)), width);
    let rule = "─".repeat(width.saturating_sub(head.width()));
    let mut out = vec![Line::from(vec![Span::styled(head, bold()), Span::styled(rule, dim())])];
    // A comparison says what its first reader is.
    if let Row::Differs(_) = &row.target {
        out.push(Line::styled(
            format!("  {}", fit(&visible(&row.target.note(scan), false), width.saturating_sub(2))),
            dim(),
        ));
    }
    let room = (area.height as usize).saturating_sub(out.len());
    let shown = if total > room { room.saturating_sub(1) } else { room };
    let id_w = list
        .iter()
        .take(shown)
        .map(|(i, _)| visible(corpus.id(&state.list, *i), false).width())
        .max()
        .unwrap_or(0)
        .min(width * 2 / 5);
    for (i, note) in list.iter().take(shown) {
        let id = pad(&fit_end(&visible(corpus.id(&state.list, *i), false), id_w), id_w);
        let (note, style) = if note.is_empty() {
            // No account: what the seed reads, from the list's own summary.
            let sketch = corpus
                .keys
                .get(*i)
                .and_then(|&k| state.list.entry(k))
                .and_then(|e| e.sketch.as_deref())
                .unwrap_or_default()
                .to_owned();
            (sketch, dim())
        } else {
            (note.clone(), Style::new())
        };
        let room = width.saturating_sub(id_w + 4);
        out.push(Line::from(vec![
            Span::raw(format!("  {id}  ")),
            Span::styled(fit(&visible(&note, false), room), style),
        ]));
    }
    if total > shown {
        out.push(Line::styled(format!("  … and {} more", thousands(total - shown)), dim()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::stack;

    #[test]
    fn a_stacked_bar_adds_up_and_shows_every_part() {
        let s = stack([50, 7, 0, 1], 40);
        assert_eq!(s.iter().sum::<usize>(), 40);
        assert!(s[3] >= 1 && s[2] == 0);
        assert_eq!(stack([0; 4], 10), [0; 4]);
        assert_eq!(stack([1, 0, 0, 0], 0), [0; 4]);
    }
}
