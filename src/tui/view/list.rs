//! The reply list: where each reply is from, who asked, how big it is, and its badges.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::describe::thousands;
use crate::readers::ReaderId;
use crate::visible::visible;

use super::{bad, block, dim, warn};
use crate::tui::badges::{self, Badge, Look};
use crate::tui::entry::{Body, Entry};
use crate::tui::layout;
use crate::tui::state::{Pane, State};
use crate::tui::wrap::{fit, fit_end, pad, pad_left};

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let total = state.list.entries().len();
    let shown = state.list.view().len();
    let mut title = if shown == total {
        format!("replies {}", thousands(state.list.reply_count()))
    } else {
        format!("replies {} of {}", thousands(shown), thousands(total))
    };
    if !state.loading.progress.done {
        title.push_str(" · loading…");
    }
    frame.render_widget(block(state, Pane::List, title), area);
    let inner = layout::inner(area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let rounds = Rounds::of(state.list.rounds());
    let cols = Columns::for_width(inner.width as usize, state.what_if, &rounds);
    let table = badges::table(&state.config, state.compared);
    let header = Rect::new(inner.x, inner.y, inner.width, 1);
    frame.render_widget(Paragraph::new(Line::styled(cols.header(state), dim())), header);
    let body = layout::list_body(area);
    if state.list.view().is_empty() {
        let msg = if !state.loading.progress.done {
            "loading…"
        } else if total > 0 {
            "no reply passes the filter (f to change it)"
        } else {
            "no replies found here"
        };
        frame.render_widget(Paragraph::new(Span::styled(msg, dim())), body);
        return;
    }
    let lines: Vec<Line> = state
        .list
        .view()
        .iter()
        .enumerate()
        .skip(state.list.top())
        .take(body.height as usize)
        .filter_map(|(pos, &i)| state.list.entries().get(i).map(|e| (pos, e)))
        .map(|(pos, e)| {
            let mut line = row(state, e, &cols, &table, &rounds);
            if pos == state.list.cursor() {
                let hl = if state.focus == Pane::List {
                    Style::new().add_modifier(Modifier::REVERSED)
                } else {
                    Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
                };
                line = line.patch_style(hl);
            }
            line
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

/// How the round column names rounds: whole where the list is wide, else by what tells
/// them apart (`round-4`, `round-10` are `4`, `10`: the prefix every round shares, up to
/// the number in it, is left out), so that a round shows at every width.
pub(super) struct Rounds {
    /// Characters every round's name starts with, left out where the column is short.
    prefix: usize,
    any: bool,
}

impl Rounds {
    pub(super) fn of<'a>(names: impl Iterator<Item = &'a str>) -> Rounds {
        let names: Vec<&str> = names.collect();
        // With one round, its name up to the number in it: `round-4` is `4`.
        let prefix = match names.as_slice() {
            [] => 0,
            [first, rest @ ..] => {
                let mut n = first.len();
                for r in rest {
                    n = n.min(first.bytes().zip(r.bytes()).take_while(|(a, b)| a == b).count());
                }
                // Not into a number: `round-1`, `round-10` share `round-`, not `round-1`.
                let b = first.as_bytes();
                while n > 0 && b.get(n - 1).is_some_and(u8::is_ascii_digit) {
                    n -= 1;
                }
                while n > 0 && !first.is_char_boundary(n) {
                    n -= 1;
                }
                n
            }
        };
        Rounds { prefix, any: !names.is_empty() }
    }

    /// `name` as the short column shows it.
    pub(super) fn short<'a>(&self, name: &'a str) -> &'a str {
        name.get(self.prefix..).filter(|s| !s.is_empty()).unwrap_or(name)
    }
}

/// The column widths for a list `width` cells wide.
struct Columns {
    label: usize,
    agent: usize,
    page: usize,
    round: usize,
    /// The round column names rounds whole (and the review iteration), not short.
    round_whole: bool,
    size: usize,
    wide: bool,
    /// The what-if column, when one is chosen: its reader and width.
    what_if: Option<(ReaderId, usize)>,
}

/// The round column's width where the list is not wide: `round` over names told apart by
/// what follows the prefix they share (`4`, `10`).
const ROUND_SHORT: usize = 5;

/// The decided-by word's width, when a what-if column follows it.
const DECIDED: usize = 11;

impl Columns {
    fn for_width(width: usize, what_if: Option<ReaderId>, rounds: &Rounds) -> Columns {
        let wide = width >= 66;
        // Where rounds are named, the round shows at every width: short where the list is.
        let short = if rounds.any { ROUND_SHORT } else { 0 };
        let (agent, page, round, size) = if width >= 110 {
            (10, 5, 10, 7)
        } else if width >= 56 && what_if.is_some() {
            // The page gives way to the what-if's verdict.
            (8, 0, short, 6)
        } else if width >= 56 {
            (8, 4, short, 6)
        } else {
            (0, 0, short, 6)
        };
        let round_whole = width >= 110;
        // The label takes what it needs (`3f1c9a0e7b2d4c58:135`), the badges the rest.
        let fixed = 2 + agent + page + round + size + 5;
        let label = match (width >= 110, what_if.is_some()) {
            (true, false) => 32,
            (true, true) => 22,
            (false, false) => 20,
            (false, true) => 16,
        };
        let label = label.min(width.saturating_sub(fixed + if round > 0 && width < 110 { 10 } else { 12 })).max(8);
        // The what-if's verdict takes what the decided-by word and a few flags leave: the
        // row is the mark, the label, each column after a space, two spaces after the size.
        let used = 2 + label + [agent, page, round].iter().map(|&w| if w > 0 { w + 1 } else { 0 }).sum::<usize>();
        let flags = if width >= 110 { 12 } else { 10 };
        let rest = width.saturating_sub(used + 1 + size + 2 + DECIDED + 2 + flags);
        let what_if = what_if.map(|r| (r, rest.clamp(10, 48)));
        Columns { label, agent, page, round, round_whole, size, wide, what_if }
    }

    fn header(&self, state: &State) -> String {
        let mut s = format!("  {}", pad("source", self.label));
        if self.agent > 0 {
            s.push(' ');
            s.push_str(&pad("agent", self.agent));
        }
        if self.page > 0 {
            s.push(' ');
            s.push_str(&pad("page", self.page));
        }
        if self.round > 0 {
            s.push(' ');
            s.push_str(&pad("round", self.round));
        }
        s.push(' ');
        s.push_str(&pad_left("size", self.size));
        match self.what_if {
            Some((r, w)) => {
                s.push_str(&format!(
                    "  {} {} flags",
                    pad("decided by", DECIDED),
                    pad(&format!("{} → last-wins", state.config.catalogue.name(r)), w)
                ));
            }
            None => s.push_str("  decided by · flags"),
        }
        s
    }
}

fn size_text(n: usize, wide: bool) -> String {
    if wide || n < 10_000 {
        thousands(n)
    } else if n < 1_000_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    }
}

fn row(state: &State, e: &Entry, cols: &Columns, table: &[Look], rounds: &Rounds) -> Line<'static> {
    let marked = state.list.is_marked(e);
    let look = |b: Badge| table.iter().find(|l| l.badge == b);
    let mut spans = vec![match look(Badge::Marked).filter(|_| marked) {
        Some(l) => Span::styled(format!("{} ", l.glyph), l.style),
        None => Span::raw("  "),
    }];
    let label_style = if e.gone { dim().add_modifier(Modifier::CROSSED_OUT) } else { Style::new() };
    match &e.body {
        Body::Diagnostic(d) => {
            if let Some(l) = look(Badge::Diagnostic) {
                spans.push(Span::styled(format!("{} ", l.glyph), l.style));
            }
            let text = visible(&d.to_string(), false);
            spans.push(Span::styled(
                fit(&text, cols.label + cols.agent + cols.page + cols.round + cols.size + 30),
                warn(),
            ));
            return Line::from(spans);
        }
        _ => spans.push(Span::styled(pad(&fit_end(&visible(&e.label(), false), cols.label), cols.label), label_style)),
    }
    let meta = e.meta();
    if cols.agent > 0 {
        let agent = meta.and_then(|m| m.agent.as_deref()).unwrap_or("—");
        spans.push(Span::raw(format!(" {}", pad(&visible(agent, false), cols.agent))));
    }
    if cols.page > 0 {
        let page = meta.and_then(|m| m.page).map_or_else(|| "—".to_owned(), |p| format!("p{p}"));
        spans.push(Span::raw(format!(" {}", pad(&page, cols.page))));
    }
    if cols.round > 0 {
        let name = meta.and_then(|m| m.round.as_deref()).unwrap_or_default();
        // Where rounds differ is at their ends: a name cut short keeps its end.
        let mut round = if cols.round_whole { name.to_owned() } else { fit_end(rounds.short(name), cols.round) };
        if let Some(it) = meta.and_then(|m| m.iteration).filter(|_| cols.round_whole) {
            round = if round.is_empty() { format!("it{it}") } else { format!("{round} it{it}") };
        }
        if round.is_empty() {
            round.push('—');
        }
        spans.push(Span::raw(format!(" {}", pad(&visible(&round, false), cols.round))));
    }
    let size = if e.is_reply() { size_text(e.size(), cols.wide) } else { "—".to_owned() };
    spans.push(Span::styled(format!(" {}  ", pad_left(&size, cols.size)), dim()));
    let mut flags = badges(state, e, cols.wide, table);
    if let (Some((r, w)), true) = (cols.what_if, e.is_reply()) {
        // The decided-by word, the what-if's verdict beside it, then the other flags.
        let rest = if flags.len() > 2 { flags.split_off(2) } else { Vec::new() };
        flags.truncate(1);
        let head = flags.first().map_or(0, |s| s.content.width());
        flags.push(Span::raw(" ".repeat(DECIDED.saturating_sub(head) + 1)));
        flags.push(what_if_cell(state, e, r, w));
        if !rest.is_empty() {
            flags.push(Span::raw(" "));
            flags.extend(rest);
        }
    }
    spans.extend(flags);
    Line::from(spans)
}

/// What the chosen what-if makes of the reply, against the seed: `same`, or `≠` and the
/// scan's account of the difference (from the what-if's answer to the seed's).
fn what_if_cell(state: &State, e: &Entry, reader: ReaderId, width: usize) -> Span<'static> {
    if e.failed(reader).is_some() {
        return Span::styled(pad("reader failed", width), warn());
    }
    match e.against_seed(&state.config, reader) {
        None => Span::styled(pad("…", width), dim()),
        Some(None) => Span::styled(pad("same", width), dim()),
        Some(Some(account)) => Span::styled(pad(&format!("≠ {}", visible(account, false)), width), bad()),
    }
}

/// The badges of an entry, as styled words, in the table's order.
pub(super) fn badges(state: &State, e: &Entry, wide: bool, table: &[Look]) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut push = |text: &str, style: Style| {
        if !out.is_empty() {
            out.push(Span::raw(" "));
        }
        out.push(Span::styled(text.to_owned(), style));
    };
    if e.is_reply() && e.facts.is_none() {
        push("…", dim());
    }
    let marked = state.list.is_marked(e);
    for look in table {
        if (look.wide_only && !wide) || !look.badge.on(e, marked, &state.config) {
            continue;
        }
        match (&look.badge, &e.body) {
            (Badge::NoReply, Body::Event { kind, .. }) => push(&format!("{}: {}", look.glyph, kind.name()), look.style),
            // Shown in place of the label, and as the row's mark.
            (Badge::Diagnostic | Badge::Marked, _) => {}
            _ => push(look.glyph, look.style),
        }
    }
    if marked
        && let Some(m) = state.list.marks().get(&*e.id)
        && !m.note.is_empty()
        && wide
    {
        push(&fit(&visible(&m.note, false), 24), warn());
    }
    out
}
