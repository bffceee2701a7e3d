//! The inspector's palette: the few styles every pane, badge and screen is drawn in.

use ratatui::style::{Color, Modifier, Style};

pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}
pub fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}
pub fn good() -> Style {
    Style::new().fg(Color::Green)
}
pub fn warn() -> Style {
    Style::new().fg(Color::Yellow)
}
pub fn bad() -> Style {
    Style::new().fg(Color::Red)
}
pub fn accent() -> Style {
    Style::new().fg(Color::Cyan)
}
pub fn whole_reply_style() -> Style {
    Style::new().fg(Color::Magenta)
}
