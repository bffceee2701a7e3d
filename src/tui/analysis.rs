//! What the inspector knows about a reply, at two depths.
//!
//! A [`Summary`] is what the list needs for every reply: which rule decided, the
//! whole-reply verdict, a few flags and a sketch of the value. It comes from the cheap,
//! memoized walk (linear in the reply) and the first-wins reader, and is a few hundred
//! bytes, so 10,000 of them cost nothing. A [`Detail`] is the full decision record of the
//! one reply being looked at: every candidate with its three readings, which is quadratic
//! on brace-laden replies, so it is made only on request, off the event loop, and a few are
//! cached. Both are pure functions of the text (and the stop reason the log gives).

use crate::describe::{floor_boundary, leaf, sketch};
use crate::read::first::{FirstOutcome, FirstWins, first_wins};
use crate::read::trace::{DecidedBy, Fate, NoReading, Trace, WholeReply};
use crate::read::walk::{self, ArrayPrefix, Keep, OnFailure, Readings, WalkOptions, WholeReplyPolicy};
use crate::read::{Value, js};

/// The longest value sketch kept per reply.
const SKETCH_MAX: usize = 160;

/// What the list shows about one reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub decided_by: DecidedBy,
    /// The whole-reply verdict (`WholeReply::name`).
    pub verdict: &'static str,
    /// No candidate, nor the whole text, parses without repair: a strict reader gets nothing.
    pub strict_unreadable: bool,
    /// The answer is not what a strict reading gives: a repair made it.
    pub repaired: bool,
    /// The reply is cut off: the model hit its ceiling, or the reply opens an object that
    /// never closes.
    pub truncated: bool,
    /// The first-wins reader's value differs from the last-wins reader's.
    pub disagree: bool,
    /// A one-line sketch of the value (`{html: 3 chars, log: …}`), or `null`.
    pub sketch: String,
}

impl Summary {
    /// Whether the whole-reply attempt was made (its verdict is worth a badge).
    pub fn tried(&self) -> bool {
        self.verdict != "not-tried"
    }
}

/// The seed walk with strict readings only and no whole-reply attempt: what a reader that
/// never repairs would make of the reply.
const STRICT_ONLY: WalkOptions = WalkOptions {
    readings: Readings::StrictOnly,
    on_failure: OnFailure::Descend,
    keep: Keep::Last,
    whole_reply: WholeReplyPolicy { enabled: false, walk_closed_gate: true, self_contained_gate: true },
};

/// The summary of one reply. `cut` is the log's word that the model was cut off.
pub fn summarize(text: &str, cut: bool) -> Summary {
    let seed = walk::run(text, &WalkOptions::SEED, false);
    // A reply that is its JSON reads the same strictly: no second walk.
    let strict_value =
        if seed.decided_by == DecidedBy::WholeText { None } else { walk::run(text, &STRICT_ONLY, false).value };
    let strictly_same = seed.decided_by == DecidedBy::WholeText || strict_value == seed.value;
    let first = first_value(text, &first_wins(text));
    let never_closes = matches!(seed.whole_reply, WholeReply::NoReading { why: NoReading::NeverCloses, .. });
    Summary {
        decided_by: seed.decided_by,
        verdict: seed.whole_reply.name(),
        strict_unreadable: seed.decided_by != DecidedBy::WholeText && strict_value.is_none(),
        repaired: seed.value.is_some() && !strictly_same,
        truncated: cut || never_closes,
        disagree: first != seed.value,
        sketch: clip(&seed.value.as_ref().map_or_else(|| "null".to_owned(), sketch), SKETCH_MAX),
    }
}

/// The value a caller of the first-wins reader ends up with: the candidate it found,
/// parsed, or (when it hands back the raw reply) the reply parsed whole.
pub fn first_value(text: &str, first: &FirstWins) -> Option<Value> {
    match &first.outcome {
        FirstOutcome::Found(s) => text.get(s.start..s.end).and_then(|t| js::parse(t).ok()),
        _ => js::parse(crate::read::lex::trim(text)).ok(),
    }
}

/// `s` cut to at most `max` bytes, with `…` where it was cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let end = floor_boundary(s, max.saturating_sub(3));
    format!("{}…", &s[..end])
}

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
    pub trace: Trace,
    pub first: FirstWins,
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

/// The full record of `text`.
pub fn detail(text: &str, cut: bool) -> Detail {
    let trace = walk::trace(text);
    let first = first_wins(text);
    let first_value = first_value(text, &first);
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
    let prefix = if cut || never_closes || trace.value.is_none() { array_prefix(text) } else { None };
    Detail { trace, first, first_value, prefix, nested, spans, paint }
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

/// One line per difference between two values: `html: 3 chars → 7,121 chars`. Objects are
/// compared field by field (top level); anything else as a whole.
pub fn differences(first: Option<&Value>, last: Option<&Value>) -> Vec<String> {
    match (first, last) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut out = Vec::new();
            for (k, va) in a.iter() {
                let key = k.to_string_lossy();
                match b.iter().find(|(kb, _)| *kb == k) {
                    Some((_, vb)) if va == vb => {}
                    Some((_, vb)) => out.push(format!("{key}: {} → {}", size(va), size(vb))),
                    None => out.push(format!("{key}: {} → (absent)", size(va))),
                }
            }
            for (k, vb) in b.iter() {
                if !a.iter().any(|(ka, _)| ka == k) {
                    out.push(format!("{}: (absent) → {}", k.to_string_lossy(), size(vb)));
                }
            }
            out
        }
        (a, b) if a == b => Vec::new(),
        (a, b) => vec![format!(
            "{} → {}",
            a.map_or_else(|| "null".to_owned(), size),
            b.map_or_else(|| "null".to_owned(), size)
        )],
    }
}

/// A value's size as the comparison states it: a string by its length, whatever it says.
fn size(v: &Value) -> String {
    match v {
        Value::String(s) => crate::describe::chars(s.char_len()),
        other => leaf(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE_THEN_ANSWER: &str = "Template:\n{ \"html\": \"...\", \"log\": \"...\" }\nAnswer:\n{\"html\": \"<table><tr><td>1</td></tr></table>\", \"log\": \"ok\"}";

    #[test]
    fn a_summary_names_the_rule_and_the_disagreement() {
        let s = summarize(TEMPLATE_THEN_ANSWER, false);
        assert_eq!(s.decided_by, DecidedBy::LastWins);
        assert!(s.disagree, "first-wins keeps the template");
        assert!(!s.repaired && !s.strict_unreadable && !s.truncated);
        assert!(s.sketch.contains("html: 34 chars"), "{}", s.sketch);
    }

    #[test]
    fn a_cut_reply_is_truncated_and_keeps_its_array_prefix() {
        let t = r#"{"edits":[{"a":1},{"b":2},{"c":"#;
        let s = summarize(t, false);
        assert!(s.truncated);
        assert_eq!(s.decided_by, DecidedBy::LastWins);
        let d = detail(t, true);
        let (field, p) = d.prefix.as_ref().unwrap();
        assert_eq!(field, "edits");
        assert_eq!(p.entries.len(), 2);
    }

    #[test]
    fn paint_follows_fates_and_nesting() {
        let t = r#"the contract is {html, log {"html": "x"}} done"#;
        let d = detail(t, false);
        assert_eq!(d.trace.candidates.len(), 2);
        assert_eq!(d.class(0), Paint::Unreadable);
        assert_eq!(d.class(1), Paint::Kept);
        assert_eq!(d.paint_at(17), Paint::Unreadable);
        assert_eq!(d.paint_at(t.find("\"x\"").unwrap()), Paint::Kept);
        assert_eq!(d.candidate_at(t.find("\"x\"").unwrap()), Some(1));
        assert_eq!(d.candidate_at(0), None);
    }

    #[test]
    fn differences_say_how_big_each_field_became() {
        let a = js::parse(r#"{"html":"...","log":"x","n":1}"#).unwrap();
        let b = js::parse(r#"{"html":"<p>long enough</p>","log":"x"}"#).unwrap();
        assert_eq!(differences(Some(&a), Some(&b)), vec!["html: 3 chars → 18 chars", "n: 1 → (absent)"]);
        assert_eq!(differences(None, Some(&b)), vec!["null → {2 fields}"]);
        assert!(differences(Some(&a), Some(&a)).is_empty());
    }

    #[test]
    fn clipping_keeps_char_boundaries() {
        assert_eq!(clip("abcdef", 10), "abcdef");
        assert_eq!(clip("ééééé", 6), "é…");
    }
}
