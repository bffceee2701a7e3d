//! The full record of one reply: every candidate with its three readings, which is
//! quadratic on brace-laden replies (the seed reads each from scratch), so the inspector
//! makes it only on request, off its event loop, and caches a few; with what its panes derive
//! from it (how each candidate is painted, the first-wins reader's tries). What is known of
//! every reply is its facts ([`Facts`](super::Facts)), not this.

use crate::exact::Value;
use std::sync::Arc;

use crate::analysis::Config;
use crate::exact::first::{FirstWins, first_wins};
use crate::exact::trace::{Fate, NoReading, Step, Trace, WholeReply};
use crate::exact::walk::{self, ArrayPrefix};
use crate::readers::{Answers, ReaderId, held};

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

/// A built-in reader's answer, as the record keeps it.
#[derive(Debug, Clone, PartialEq)]
pub enum Beside {
    /// The seed's answer (most are): not kept twice.
    Seed,
    /// Another answer; `None` for nothing read.
    Own(Option<Value>),
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
    /// What a caller of each other built-in reader the config compares with the seed holds,
    /// for the readers pane: the what-ifs.
    pub others: Vec<(ReaderId, Beside)>,
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
    let others = others(&text, config);
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
    let prefix = if cut || never_closes || trace.value.is_none() { array_prefix(&text, &config.fields) } else { None };
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    Detail { text, lines, trace, first, first_value, others, prefix, nested, spans, paint }
}

/// The answers of the built-in readers `config` compares with the seed (first-wins aside,
/// which the record has), read once, through what the seed's walk learned of the text.
fn others(text: &str, config: &Config) -> Vec<(ReaderId, Beside)> {
    let catalogue = &config.catalogue;
    let mut readers: Vec<ReaderId> = config
        .pairs
        .iter()
        .filter(|p| p.against_seed() && p.from != ReaderId::FIRST_WINS && !catalogue.is_command(p.from))
        .map(|p| p.from)
        .collect();
    readers.dedup();
    let (mut answers, _) = Answers::with_seed(catalogue, text);
    let seed = answers.get(ReaderId::LAST_WINS).cloned();
    readers
        .into_iter()
        .map(|r| {
            if answers.known_same(r, ReaderId::LAST_WINS) {
                return (r, Beside::Seed);
            }
            let own = answers.get(r).cloned();
            (r, if own == seed { Beside::Seed } else { Beside::Own(own) })
        })
        .collect()
}

/// The array prefix of a cut reply: the first of the configured `fields` (the scan's
/// truncation fields) that has complete entries, else the first other `"name": [` field that
/// has.
fn array_prefix(text: &str, fields: &[String]) -> Option<(String, ArrayPrefix)> {
    let mut fields = fields.to_vec();
    for found in array_fields(text, 4) {
        if !fields.contains(&found) {
            fields.push(found);
        }
    }
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

    /// What a caller of built-in reader `reader` holds (`None` inside for nothing read), if
    /// the record has it: the seed, first-wins, and the readers compared with the seed.
    pub fn answer(&self, reader: ReaderId) -> Option<Option<&Value>> {
        let seed = || self.trace.value.as_ref().filter(|v| !matches!(v, Value::Null));
        if reader == ReaderId::LAST_WINS {
            return Some(seed());
        }
        if reader == ReaderId::FIRST_WINS {
            return Some(self.first_value.as_ref());
        }
        match &self.others.iter().find(|(r, _)| *r == reader)?.1 {
            Beside::Seed => Some(seed()),
            Beside::Own(v) => Some(v.as_ref()),
        }
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
    fn a_cut_reply_looks_first_at_the_configured_fields() {
        // Two arrays cut short: `edits` by default, `steps` where the config names it.
        let t = r#"{"steps":[{"x":1},{"edits":[{"a":1},{"b":2},{"c":"#;
        let by_default = detail(t.into(), true, &Config::default());
        assert_eq!(by_default.prefix.as_ref().map(|(f, p)| (f.as_str(), p.entries.len())), Some(("edits", 2)));
        let config = Config { fields: vec!["steps".to_owned()], ..Config::default() };
        let configured = detail(t.into(), true, &config);
        assert_eq!(configured.prefix.as_ref().map(|(f, p)| (f.as_str(), p.entries.len())), Some(("steps", 1)));
    }

    #[test]
    fn the_record_holds_every_what_if_answer_the_catalogue_reads() {
        let config = Config::default();
        for t in [
            "Template:\n{ \"html\": \"...\" }\nAnswer:\n{\"html\": \"<p>real</p>\"}",
            r#"{"faithful": false, "notes": "I first read it as { "faithful": true }; no."}"#,
            "```json\n{\"a\": 1}\n```\nand {\"b\": 2}",
            "nothing",
        ] {
            let d = detail(t.into(), false, &config);
            for p in &config.pairs {
                let want = config.catalogue.read(p.from, t);
                assert_eq!(d.answer(p.from), Some(want.as_ref()), "{} on {t:?}", config.catalogue.name(p.from));
            }
            assert_eq!(d.answer(ReaderId::LAST_WINS), Some(d.seed_value().as_ref()));
        }
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
