//! The help screen, built from the key tables (so it lists exactly the keys that work)
//! and from the badge and colour legends.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::super::analysis::Paint;
use super::super::keymap::{self, Binding};
use super::{
    accent, bad, bold, centered, dim, good, paint_glyph, paint_style, paint_word, popup, warn, whole_reply_style,
};

/// The help text, one line per entry.
pub fn lines() -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let section = |out: &mut Vec<Line<'static>>, title: &str| {
        if !out.is_empty() {
            out.push(Line::raw(""));
        }
        out.push(Line::styled(title.to_owned(), bold().patch(accent())));
    };
    let table = |out: &mut Vec<Line<'static>>, rows: &[Binding]| {
        for b in rows {
            out.push(Line::from(vec![
                Span::styled(format!("  {:<16}", keymap::keys_text(b)), bold()),
                Span::raw(b.what),
            ]));
        }
    };
    section(&mut out, "Keys");
    table(&mut out, keymap::NORMAL);
    section(&mut out, "In the filter menu (f)");
    table(&mut out, keymap::FILTER);
    section(&mut out, "On the summary screen (S)");
    table(&mut out, keymap::SUMMARY);
    section(&mut out, "Typing a search (/) or a note (m)");
    for (k, what) in keymap::PROMPT {
        out.push(Line::from(vec![Span::styled(format!("  {k:<16}"), bold()), Span::raw(*what)]));
    }
    section(&mut out, "Mouse");
    for (k, what) in keymap::MOUSE {
        out.push(Line::from(vec![Span::styled(format!("  {k:<16}"), bold()), Span::raw(*what)]));
    }
    section(&mut out, "Badges in the list");
    let badges: [(&str, Style, &str); 14] = [
        ("whole-text", good(), "the trimmed reply is JSON, read whole"),
        ("last-wins", good(), "the walk's last readable `{` candidate is the answer"),
        ("whole-reply", whole_reply_style(), "the narrow-colon reading of the whole reply is the answer"),
        ("none", bad(), "nothing reads: the reader returns null"),
        ("wr:taken", whole_reply_style(), "the whole-reply attempt was made and taken"),
        ("wr:closed", warn(), "refused by the walk-closed gate: the walk's answer ends where the reply ends"),
        ("wr:strings", warn(), "refused by the self-contained gate: a string leaves a brace unbalanced"),
        ("wr:none", dim(), "tried, but no narrow reading spans the reply and parses"),
        ("strict✗", warn(), "no candidate parses without repair"),
        ("repaired", warn(), "the answer is not what a strict reading gives: a repair made it"),
        ("≠", bad(), "the first-wins reader (seed 001) returns something else"),
        ("cut", bad(), "the reply was cut off (output ceiling, or an object that never closes)"),
        ("new / gone / ★", accent(), "arrived while watching / file deleted / marked for triage"),
        ("same / ≠ …", bad(), "what-if column (w): the what-if's answer against last-wins, and how they differ"),
    ];
    for (name, style, what) in badges {
        out.push(Line::from(vec![Span::styled(format!("  {name:<20}"), style), Span::raw(what)]));
    }
    section(&mut out, "Candidates in the reply text and the ruler");
    for p in [Paint::Kept, Paint::Superseded, Paint::Unreadable, Paint::Nested] {
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(paint_glyph(p), paint_style(p)),
            Span::raw(" "),
            Span::styled(" {…} ", paint_style(p)),
            Span::raw(format!("  {}", paint_word(p))),
        ]));
    }
    out.push(Line::from(vec![Span::raw("  ▼ "), Span::raw("      the selected candidate (its `{` is shown white)")]));
    out.push(Line::styled(
        "  Offsets are bytes of the reply as logged; UTF-16 (what the pipeline logs) is given where it differs.",
        dim(),
    ));
    out.push(Line::styled(
        "  Control characters are shown as symbols (␛ ␇ ⇄ …): nothing in a reply reaches the terminal raw.",
        dim(),
    ));
    out
}

pub fn render(frame: &mut Frame, area: Rect, scroll: u16) {
    let r = centered(area, 104, area.height.saturating_sub(2).max(10));
    let inner = popup(frame, r, "help · Esc or ? closes · j/k scroll");
    let all = lines();
    let max = all.len().saturating_sub(inner.height as usize);
    let top = (scroll as usize).min(max);
    let shown: Vec<Line> = all.into_iter().skip(top).take(inner.height as usize).collect();
    frame.render_widget(Paragraph::new(shown), Rect { ..inner });
}
