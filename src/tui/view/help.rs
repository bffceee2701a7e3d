//! The help screen, built from the key tables (so it lists exactly the keys that work)
//! and from the badge and colour legends.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::analysis::Config;
use crate::readers::ReaderId;

use crate::tui::badges;
use crate::tui::keymap::{self, Binding};
use crate::tui::state::State;
use unicode_width::UnicodeWidthStr;

use super::{accent, bad, bold, centered, dim, flow, paint_glyph, paint_style, paint_word, popup};
use crate::analysis::detail::Paint;

/// The help text, one line per entry; the badges are those of `config`'s readers, the `≠`
/// one for `compared`.
pub fn lines(config: &Config, compared: ReaderId) -> Vec<Line<'static>> {
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
    for (title, rows) in keymap::TABLES {
        section(&mut out, title);
        table(&mut out, rows);
    }
    section(&mut out, "Queries (:), also `--filter QUERY` on the command line");
    for line in QUERY_SYNTAX {
        out.push(Line::styled(format!("  {line}"), dim()));
    }
    for (name, what) in crate::query::FIELDS {
        out.push(Line::from(vec![Span::styled(format!("  {name:<16}"), bold()), Span::raw(*what)]));
    }
    section(&mut out, "Mouse");
    for (k, what) in keymap::MOUSE {
        out.push(Line::from(vec![Span::styled(format!("  {k:<16}"), bold()), Span::raw(*what)]));
    }
    section(&mut out, "Badges in the list");
    for look in badges::table(config, compared) {
        out.push(Line::from(vec![Span::styled(format!("  {:<20}", look.glyph), look.style), Span::raw(look.legend)]));
    }
    section(&mut out, "Risk flags (⚑; readers-disagree is the ≠): the filter (f) and flag= take each");
    for f in crate::analysis::Flag::ALL {
        out.push(Line::from(vec![Span::styled(format!("  {:<24}", f.name()), bold()), Span::raw(f.meaning())]));
    }
    section(&mut out, "The what-if column");
    out.push(Line::from(vec![
        Span::styled(format!("  {:<20}", "same / ≠ …"), bad()),
        Span::raw("what-if column (w): the what-if's answer against last-wins, and how they differ"),
    ]));
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

/// How a query is written, for the help screen (the fields follow it).
const QUERY_SYNTAX: &[&str] = &[
    "Terms separated by spaces, all required: doc=3f1c page=17 agent=page,feedback decided!=none size>10k",
    "FIELD=A,B  any of the values    FIELD!=A  none of them (also where the field is absent)    none: absent",
    "FIELD~RE  FIELD!~RE  a regex    page, iteration, size also take > < >= <=    !TERM  any term's opposite",
    "A bare word, /RE with spaces/ or text~RE: a regex over every reply's text (no capital: either case)",
    "doc and id match by their start, model and path by a part, the rest whole; case never matters",
];

/// The help's lines laid into `width` cells: an entry too long for it goes on under its
/// description (or its own indent), so no line is cut at the popup's edge.
pub fn fitted(config: &Config, compared: ReaderId, width: u16) -> Vec<Line<'static>> {
    lines(config, compared)
        .into_iter()
        .flat_map(|line| {
            if line.width() <= width as usize {
                return vec![line];
            }
            // A key's column, or the line's own leading spaces, is the indent to keep.
            let indent = match line.spans.as_slice() {
                [key, _, ..] if key.content.starts_with("  ") && key.content.ends_with(' ') => key.content.width(),
                spans => {
                    let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
                    text.len() - text.trim_start().len()
                }
            };
            let pieces = line.spans.into_iter().map(|s| (s.content.into_owned(), s.style)).collect();
            flow(pieces, width, indent)
        })
        .collect()
}

pub fn render(state: &State, frame: &mut Frame, area: Rect, scroll: u16) {
    let r = centered(area, 104, area.height.saturating_sub(2).max(10));
    let inner = popup(frame, r, "help · Esc or ? closes · j/k scroll");
    let all = fitted(&state.config, state.compared, inner.width);
    let max = all.len().saturating_sub(inner.height as usize);
    let top = (scroll as usize).min(max);
    let shown: Vec<Line> = all.into_iter().skip(top).take(inner.height as usize).collect();
    frame.render_widget(Paragraph::new(shown), Rect { ..inner });
}
