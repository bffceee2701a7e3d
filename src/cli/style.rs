//! Colour for terminal output: on for a terminal, off under `NO_COLOR` or a pipe.

use std::io::IsTerminal;

use crate::describe::trace::{Class, Phrase};

#[derive(Debug, Clone, Copy)]
pub struct Style {
    color: bool,
}

impl Style {
    pub fn plain() -> Style {
        Style { color: false }
    }

    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    pub fn for_stdout() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style { color: !no_color && std::io::stdout().is_terminal() }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color { format!("\x1b[{code}m{s}\x1b[0m") } else { s.to_owned() }
    }

    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    pub fn good(&self, s: &str) -> String {
        self.paint("32", s)
    }
    pub fn warn(&self, s: &str) -> String {
        self.paint("33", s)
    }
    pub fn bad(&self, s: &str) -> String {
        self.paint("31", s)
    }

    /// A phrase of the trace's words, each part in its class's colour.
    pub fn phrase(&self, p: &Phrase) -> String {
        p.parts
            .iter()
            .map(|(text, class)| match class {
                Class::Plain => text.clone(),
                Class::Good => self.good(text),
                Class::Warn => self.warn(text),
                Class::Bad => self.bad(text),
                Class::Dim => self.dim(text),
            })
            .collect()
    }
}
