//! The readers menu (`r`): every reader that can be set beside the seed, with what it is and
//! how the replies read so far differ from the seed under it, the what-if set marked.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::analysis::Class;
use crate::describe::thousands;
use crate::readers::ReaderId;
use crate::visible::visible;

use super::{accent, bad, bold, centered, dim, popup};
use crate::tui::state::State;
use crate::tui::wrap::fit;

pub fn render(state: &State, frame: &mut Frame, area: Rect, cursor: usize) {
    let rows = rows(state);
    let h = (rows.len() as u16 + 4).min(area.height.saturating_sub(2));
    let name_w = rows.iter().map(|r| r.name.width()).max().unwrap_or(0);
    // The mark, the name, a gap, what it says, and the borders.
    let longest = 2 + name_w + 2 + rows.iter().map(|r| r.said.width()).max().unwrap_or(0) + 2;
    let w = (longest as u16).clamp(56, area.width.saturating_sub(4).max(56));
    let inner = popup(frame, centered(area, w, h), "readers beside the seed (Enter sets it, Esc closes)");
    let shown = inner.height.saturating_sub(1) as usize;
    let top = cursor.saturating_sub(shown.saturating_sub(1));
    let width = inner.width as usize;
    let lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(top)
        .take(shown)
        .map(|(i, r)| {
            let mark = if r.set { "● " } else { "  " };
            let rest = width.saturating_sub(name_w + 4);
            let said = fit(&r.said, rest);
            let pad = " ".repeat(name_w.saturating_sub(r.name.width()) + 2);
            let mut line = Line::from(vec![
                Span::styled(mark, accent()),
                Span::styled(r.name.clone(), if r.set { bold().patch(accent()) } else { bold() }),
                Span::raw(pad),
                Span::styled(said, if r.differ > 0 { bad() } else { dim() }),
            ]);
            if i == cursor {
                line = line.patch_style(Style::new().add_modifier(Modifier::REVERSED));
            }
            line
        })
        .collect();
    frame
        .render_widget(Paragraph::new(lines), Rect::new(inner.x, inner.y, inner.width, inner.height.saturating_sub(1)));
    let described = rows.get(cursor).map_or(String::new(), |r| r.what.clone());
    let foot = Rect::new(inner.x, inner.y + inner.height.saturating_sub(1), inner.width, 1.min(inner.height));
    frame.render_widget(Paragraph::new(Span::styled(fit(&described, width), dim())), foot);
}

/// One row of the menu.
struct Row {
    name: String,
    /// What it is.
    what: String,
    /// How the replies read so far differ from the seed under it.
    said: String,
    differ: usize,
    /// It is the what-if set.
    set: bool,
}

/// None, then every what-if, each with its count of differences by class over the replies
/// whose comparisons are made.
fn rows(state: &State) -> Vec<Row> {
    let config = &state.config;
    let mut out = vec![Row {
        name: "none".to_owned(),
        what: "no what-if: the readers pane shows the ≠ badge's reader beside the seed".to_owned(),
        said: "no column".to_owned(),
        differ: 0,
        set: state.what_if.is_none(),
    }];
    let readers: Vec<ReaderId> = state.what_ifs();
    let mut counts = vec![([0usize; 3], 0usize); readers.len()];
    let pairs: Vec<Option<usize>> = readers.iter().map(|&r| config.pair_with_seed(r)).collect();
    for f in state.list.entries().iter().filter(|e| !e.gone).filter_map(|e| e.facts.as_deref()) {
        for (k, p) in pairs.iter().enumerate() {
            let Some(p) = *p else { continue };
            if !(f.complete || config.is_early(p)) {
                continue;
            }
            counts[k].1 += 1;
            if let Some((class, _)) = f.differs(p) {
                counts[k].0[class.index()] += 1;
            }
        }
    }
    for (&r, (classes, read)) in readers.iter().zip(counts) {
        let differ: usize = classes.iter().sum();
        let by: Vec<String> =
            Class::ALL.iter().zip(classes).map(|(c, n)| format!("{} {}", thousands(n), c.name())).collect();
        out.push(Row {
            name: visible(config.catalogue.name(r), false),
            what: visible(config.catalogue.description(r), false),
            said: if read == 0 {
                "being read for the scan…".to_owned()
            } else {
                format!("{} of {} differ: {}", thousands(differ), thousands(read), by.join(", "))
            },
            differ,
            set: state.what_if == Some(r),
        });
    }
    out
}
