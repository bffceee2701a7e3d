//! The full record of the one reply being looked at: every candidate with its three
//! readings, which is quadratic on brace-laden replies (the seed reads each from scratch), so
//! it is made only on request, off the event loop, and a few are cached; with what the other
//! panes derive from it (how each candidate is painted, the first-wins reader's tries). What
//! the list knows of every reply is the scan's facts ([`crate::reading::Facts`]), not this.

use crate::read::Value;
use std::sync::Arc;

use crate::read::first::{FirstWins, first_wins};
use crate::read::trace::{Fate, NoReading, Step, Trace, WholeReply};
use crate::read::walk::{self, ArrayPrefix};
use crate::readers::{ReaderId, held};
use crate::reading::Config;

/// What a candidate's span is painted as in the reply text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Paint {
    /// Not inside any candidate.
    Plain,
    Kept,
    Superseded,
    Unreadable,
    /// An unreadable candidate reached by descending into another.
    Nested,
}

/// The full record of one reply, for the panes that show a single reply.
#[derive(Debug)]
pub struct Detail {
    /// The text the record is of, as it was read for it.
    pub text: Arc<str>,
    /// Its lines (newlines, plus one).
    pub lines: usize,
    pub trace: Trace,
    pub first: FirstWins,
    /// What a caller of the first-wins reader holds.
    pub first_value: Option<Value>,
    /// The complete entries of a cut-off array field, when the reply is cut and has one.
    pub prefix: Option<(String, ArrayPrefix)>,
    /// Per candidate: whether it starts inside an earlier unreadable one.
    pub nested: Vec<bool>,
    /// Per candidate: the span it is painted over (the reading the walk took, else the first
    /// balanced one, else just its `{`).
    pub spans: Vec<(usize, usize)>,
    /// The paint of each byte of the reply (empty for a reply with no candidates).
    pub paint: Vec<Paint>,
}

impl Detail {
    pub fn paint_at(&self, byte: usize) -> Paint {
        self.paint.get(byte).copied().unwrap_or(Paint::Plain)
    }

    /// What a candidate is painted as.
    pub fn class(&self, index: usize) -> Paint {
        match self.trace.fate(index) {
            Some(Fate::Kept) => Paint::Kept,
            Some(Fate::Superseded) => Paint::Superseded,
            Some(Fate::Unreadable) if self.nested.get(index).copied().unwrap_or(false) => Paint::Nested,
            Some(Fate::Unreadable) => Paint::Unreadable,
            None => Paint::Plain,
        }
    }

    /// The candidate whose span holds `byte` most closely (the latest one starting at or
    /// before it whose span covers it).
    pub fn candidate_at(&self, byte: usize) -> Option<usize> {
        let upto = self.trace.candidates.partition_point(|c| c.start <= byte);
        (0..upto).rev().find(|&i| self.spans.get(i).is_some_and(|&(s, e)| s <= byte && byte < e.max(s + 1)))
    }
}

/// The full record of `text`; the first-wins reader's answer as the catalogue of `config`
/// reads it (what the `≠` badge compared).
pub fn detail(text: Arc<str>, cut: bool, config: &Config) -> Detail {
    let trace = walk::trace(&text);
    let first = first_wins(&text);
    let first_value = config.catalogue.read(ReaderId::FIRST_WINS, &text);
    let nested = trace.nested();
    let spans: Vec<(usize, usize)> = trace
        .candidates
        .iter()
        .map(|c| {
            let end = c
                .read_end()
                .or_else(|| c.strict.span().map(|s| s.end))
                .or_else(|| c.wide.span().map(|s| s.end))
                .unwrap_or(c.start + 1);
            (c.start, end.min(text.len()))
        })
        .collect();
    let mut paint = Vec::new();
    if !trace.candidates.is_empty() {
        paint = vec![Paint::Plain; text.len()];
        // In walk order, so a candidate inside another is painted over it.
        for (i, &(s, e)) in spans.iter().enumerate() {
            let class = match trace.fate(i) {
                Some(Fate::Kept) => Paint::Kept,
                Some(Fate::Superseded) => Paint::Superseded,
                _ if nested[i] => Paint::Nested,
                _ => Paint::Unreadable,
            };
            if let Some(run) = paint.get_mut(s..e) {
                run.fill(class);
            }
        }
    }
    let never_closes = matches!(trace.whole_reply, WholeReply::NoReading { why: NoReading::NeverCloses, .. });
    let prefix = if cut || never_closes || trace.value.is_none() { array_prefix(&text) } else { None };
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    Detail { text, lines, trace, first, first_value, prefix, nested, spans, paint }
}

/// The array prefix of a cut reply: the `edits` field the pipeline reads, else the first
/// other `"name": [` field that has complete entries.
fn array_prefix(text: &str) -> Option<(String, ArrayPrefix)> {
    let mut fields = vec!["edits".to_owned()];
    fields.extend(array_fields(text, 4));
    fields.dedup();
    fields
        .into_iter()
        .find_map(|f| walk::read_array_prefix(text, &f).filter(|p| !p.entries.is_empty() && !p.closed).map(|p| (f, p)))
}

/// The names of the first few `"name": [` fields in `text`.
fn array_fields(text: &str, max: usize) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bytes.len() && out.len() < max {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let name_start = i + 1;
        let Some(len) = bytes[name_start..].iter().take(64).position(|&b| b == b'"') else {
            i += 1;
            continue;
        };
        let name_end = name_start + len;
        let mut j = name_end + 1;
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if bytes.get(j) == Some(&b':') {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if bytes.get(j) == Some(&b'[')
                && let Some(name) = text.get(name_start..name_end)
                && !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                && !out.iter().any(|o| o == name)
            {
                out.push(name.to_owned());
            }
        }
        i = name_end + 1;
    }
    out
}

impl Detail {
    /// A candidate's value: the reading the walk took, else the first reading that parses.
    pub fn candidate_value(&self, index: usize) -> Option<&Value> {
        let c = self.trace.candidates.get(index)?;
        match c.step {
            Step::Took { by, .. } => c.reading(by).value(),
            _ => [&c.strict, &c.wide, &c.narrow].into_iter().find_map(|r| r.value()),
        }
    }

    /// What a caller of the seed holds: its answer, JavaScript's `null` being nothing.
    pub fn seed_value(&self) -> Option<Value> {
        held(self.trace.value.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_reply_keeps_its_array_prefix() {
        let t = r#"{"edits":[{"a":1},{"b":2},{"c":"#;
        let d = detail(t.into(), true, &Config::default());
        let (field, p) = d.prefix.as_ref().unwrap();
        assert_eq!(field, "edits");
        assert_eq!(p.entries.len(), 2);
    }

    #[test]
    fn paint_follows_fates_and_nesting() {
        let t = r#"the contract is {html, log {"html": "x"}} done"#;
        let d = detail(t.into(), false, &Config::default());
        assert_eq!(d.trace.candidates.len(), 2);
        assert_eq!(d.class(0), Paint::Unreadable);
        assert_eq!(d.class(1), Paint::Kept);
        assert_eq!(d.paint_at(17), Paint::Unreadable);
        assert_eq!(d.paint_at(t.find("\"x\"").unwrap()), Paint::Kept);
        assert_eq!(d.candidate_at(t.find("\"x\"").unwrap()), Some(1));
        assert_eq!(d.candidate_at(0), None);
    }
}
