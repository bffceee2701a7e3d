//! Where each pane goes for a terminal size and a focus. Both the view (to draw) and
//! `update` (to scroll by a page, to hit-test a click) ask here, so they agree.
//!
//! Wide terminals (140×34 and up) show every pane at once: the list and the decision on
//! the left, the reply text, the readings and the value beside them (the readers pane, when
//! it has focus, in the value's place as well). Smaller ones (down to
//! 80×24) show a tab bar, the list, and the focused pane under it (the text while the list
//! has focus).

use ratatui::layout::Rect;

use super::state::{Pane, State};

/// The rectangles of one frame. A pane that is not shown has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Panes {
    pub list: Option<Rect>,
    pub text: Option<Rect>,
    pub readings: Option<Rect>,
    pub decision: Option<Rect>,
    pub value: Option<Rect>,
    pub compare: Option<Rect>,
    /// The tab bar (small terminals only).
    pub tabs: Option<Rect>,
    pub status: Rect,
    pub wide: bool,
}

impl Panes {
    pub fn get(&self, pane: Pane) -> Option<Rect> {
        match pane {
            Pane::List => self.list,
            Pane::Text => self.text,
            Pane::Readings => self.readings,
            Pane::Decision => self.decision,
            Pane::Value => self.value,
            Pane::Compare => self.compare,
        }
    }

    /// The pane under a point.
    pub fn at(&self, x: u16, y: u16) -> Option<Pane> {
        Pane::ORDER.into_iter().find(|&p| self.get(p).is_some_and(|r| r.contains((x, y).into())))
    }
}

pub const WIDE_MIN: (u16, u16) = (140, 34);

/// The panes for a terminal of `width`×`height` in `state`.
pub fn panes(width: u16, height: u16, state: &State) -> Panes {
    let status = Rect::new(0, height.saturating_sub(1), width, height.min(1));
    let body = Rect::new(0, 0, width, height.saturating_sub(1));
    if width >= WIDE_MIN.0 && height >= WIDE_MIN.1 {
        let left_w = (width * 9 / 20).max(60);
        let left = Rect::new(0, 0, left_w, body.height);
        let right = Rect::new(left_w, 0, width - left_w, body.height);
        let list_h = left.height * 11 / 20;
        let text_h = right.height / 2;
        let readings_h = right.height / 4;
        let bottom_y = text_h + readings_h;
        let bottom = Rect::new(right.x, bottom_y, right.width, right.height.saturating_sub(bottom_y));
        // The readers pane, focused, takes the value pane's place as well: its two trees side
        // by side need the width, and the seed's value is one of them.
        let value_w = if state.focus == Pane::Compare { 0 } else { bottom.width * 3 / 5 };
        return Panes {
            list: Some(Rect::new(0, 0, left_w, list_h)),
            decision: Some(Rect::new(0, list_h, left_w, left.height - list_h)),
            text: Some(Rect::new(right.x, 0, right.width, text_h)),
            readings: Some(Rect::new(right.x, text_h, right.width, readings_h)),
            value: (value_w > 0).then(|| Rect::new(bottom.x, bottom.y, value_w, bottom.height)),
            compare: Some(Rect::new(bottom.x + value_w, bottom.y, bottom.width - value_w, bottom.height)),
            tabs: None,
            status,
            wide: true,
        };
    }
    let tabs = Rect::new(0, 0, width, body.height.min(1));
    let rest = Rect::new(0, tabs.height, width, body.height.saturating_sub(tabs.height));
    let list_h = if state.focus == Pane::List { rest.height * 9 / 20 } else { (rest.height / 4).clamp(3, 7) };
    let list_h = list_h.min(rest.height);
    let list = Rect::new(0, rest.y, width, list_h);
    let detail = Rect::new(0, rest.y + list_h, width, rest.height - list_h);
    let shown = if state.focus == Pane::List { Pane::Text } else { state.focus };
    let mut p = Panes { list: Some(list), tabs: Some(tabs), status, wide: false, ..Panes::default() };
    match shown {
        Pane::List | Pane::Text => p.text = Some(detail),
        Pane::Readings => p.readings = Some(detail),
        Pane::Decision => p.decision = Some(detail),
        Pane::Value => p.value = Some(detail),
        Pane::Compare => p.compare = Some(detail),
    }
    p
}

/// The inside of a bordered pane.
pub fn inner(r: Rect) -> Rect {
    Rect::new(r.x + 1, r.y + 1, r.width.saturating_sub(2), r.height.saturating_sub(2))
}

/// Rows of the text pane above the reply itself: the ruler and the position line.
pub const TEXT_HEADER: u16 = 2;

/// The reply text's own area inside the text pane (right of it, one column of scrollbar).
pub fn text_body(r: Rect) -> Rect {
    let i = inner(r);
    Rect::new(i.x, i.y + TEXT_HEADER.min(i.height), i.width.saturating_sub(1), i.height.saturating_sub(TEXT_HEADER))
}

/// The entry rows of the list pane (below its header row).
pub fn list_body(r: Rect) -> Rect {
    let i = inner(r);
    Rect::new(i.x, i.y + 1.min(i.height), i.width, i.height.saturating_sub(1))
}

/// The summary screen's parts: its frame, the headline, the scrolling rows, and (when
/// there is room) the panel naming the replies behind the selected row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryAreas {
    pub frame: Rect,
    pub head: Rect,
    pub body: Rect,
    pub panel: Option<Rect>,
}

/// The summary screen on a terminal of `width`×`height` (the status line stays below it).
pub fn summary(width: u16, height: u16) -> SummaryAreas {
    let frame = Rect::new(0, 0, width, height.saturating_sub(1));
    let i = inner(frame);
    let head = Rect::new(i.x, i.y, i.width, i.height.min(1));
    let rest = i.height.saturating_sub(head.height);
    let panel_h = if rest >= 15 { (rest / 4).clamp(4, 7) } else { 0 };
    let body = Rect::new(i.x, head.y + head.height, i.width, rest - panel_h);
    let panel = (panel_h > 0).then(|| Rect::new(i.x, body.y + body.height, i.width, panel_h));
    SummaryAreas { frame, head, body, panel }
}
