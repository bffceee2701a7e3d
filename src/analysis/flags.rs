//! Risk flags: the shapes in which the seed's own comments say even the last-wins walk
//! delivers the wrong object, each found in the reply's reading and said with its offsets.
//!
//! The seed decides every reply exactly, and a bench round holds thousands of decisions;
//! these name the few that look like a failure the seed describes:
//!
//! * `inside-unreadable`: the kept candidate lies inside an earlier envelope no reading
//!   could read, and does not close where the reply closes. That is #339's residual (the
//!   quoted contract inside a fence or after a sentence of preamble, which "reads as a pass
//!   on a page the verifier rejected") and the complete child of a cut-off object ("a reply
//!   cut off inside `"fragments": [{…}, {…}` can come back as one fragment"). A restart that
//!   closes on the reply's last character is the answer the seed reads on purpose, and is
//!   not flagged.
//! * `smaller-than-superseded`: the kept candidate has the keys of an earlier candidate it
//!   superseded and is under a quarter of its length: a decoy after the answer ("a model that
//!   answers and then quotes the contract back"). The inline-handler correction, 85
//!   characters shorter than the envelope it replaces, is not.
//! * `placeholder`: a string of the answer is what a model writes in a template (`...`,
//!   `<string>`, `string`): the scratch template whose `html` was `...`.
//! * `read-from-truncated`: the record says the output ceiling stopped the reply, and an
//!   answer was read anyway.
//! * `readers-disagree`: a reader set beside the seed ([`Config::disagreement`]) reads it
//!   otherwise: the inspector's `≠`.
//! * `page-shrank`: the reply is a page's final answer in a bench round, and the page it
//!   delivers vanished, or is under a fraction of its size in the round before: the first
//!   render of a page has no before-page in its own run, but a campaign has one. Raised over
//!   the rounds ([`crate::scan::rounds`]), not from the reply's reading.
//!
//! The first two need the walk's candidates. They come from [`walk::visits`], linear in the
//! reply (span ends and readings memoized), and only where a flag could hold: the seed's
//! answer is its walk's, and either it superseded a candidate or an earlier `{` exists and
//! the answer stops short of the reply's end.

mod sentence;

use std::collections::HashSet;

use crate::exact::lex;
use crate::exact::trace::{DecidedBy, Place, ReadingKind, Trace};
use crate::exact::value::{JsString, Value};
use crate::exact::walk::{self, Visited};
use crate::logs::Name;

use super::config::Config;
use super::difference::account;

pub use sentence::explain;

/// A risk flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flag {
    InsideUnreadable,
    SmallerThanSuperseded,
    Placeholder,
    ReadFromTruncated,
    ReadersDisagree,
    PageShrank,
}

impl Flag {
    pub const ALL: [Flag; 6] = [
        Flag::InsideUnreadable,
        Flag::SmallerThanSuperseded,
        Flag::Placeholder,
        Flag::ReadFromTruncated,
        Flag::ReadersDisagree,
        Flag::PageShrank,
    ];

    /// The flag's name, in `scan --json` and everywhere it is shown.
    pub fn name(self) -> &'static str {
        match self {
            Flag::InsideUnreadable => "inside-unreadable",
            Flag::SmallerThanSuperseded => "smaller-than-superseded",
            Flag::Placeholder => "placeholder",
            Flag::ReadFromTruncated => "read-from-truncated",
            Flag::ReadersDisagree => "readers-disagree",
            Flag::PageShrank => "page-shrank",
        }
    }

    /// What the flag means, in a line.
    pub fn meaning(self) -> &'static str {
        match self {
            Flag::InsideUnreadable => {
                "the kept candidate lies inside an earlier envelope no reading could read, and stops short of the reply's end"
            }
            Flag::SmallerThanSuperseded => {
                "the kept candidate has the keys of one it superseded, and is under a quarter of its length"
            }
            Flag::Placeholder => "a string of the answer is a template's placeholder (`...`, `<string>`, `string`)",
            Flag::ReadFromTruncated => "the record says the reply was cut off, and an answer was read anyway",
            Flag::ReadersDisagree => "a reader set beside the seed reads the reply otherwise",
            Flag::PageShrank => {
                "the page this final answer delivers vanished, or is under a fraction (a half) of its size in the round before"
            }
        }
    }

    /// Its place in [`Flag::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A candidate as a flag names it: its number (1-based, in the order the walk visited them,
/// as `explain` numbers them) and its span; `end` is `None` for a span that never closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Numbered {
    pub number: usize,
    pub start: usize,
    pub end: Option<usize>,
}

/// A flag raised on one reply, with what raised it. Offsets are bytes into the reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Raised {
    /// The kept candidate starts inside `inside`'s strict span (or after its start, when
    /// that never closes), and `inside` opens like an object that no reading could read.
    InsideUnreadable { kept: Numbered, inside: Numbered },
    /// The kept candidate has the same top-level keys as `superseded`, and is less than a
    /// quarter of its length.
    SmallerThanSuperseded { kept: Numbered, superseded: Numbered, keys: usize },
    /// The string at `path` of the answer is a placeholder (`text`, as written); the answer
    /// is at `answer`.
    Placeholder { path: String, text: String, answer: (usize, usize) },
    /// Cut off by the output ceiling, and `decided_by` read the answer at `answer`.
    ReadFromTruncated { decided_by: DecidedBy, answer: (usize, usize) },
    /// `reader` reads it otherwise; the account reads from its answer to the seed's. Both
    /// shared: the name with the catalogue, the account with the reply's difference.
    ReadersDisagree { reader: Name, account: Name },
    /// The final answer of `page` of `document`, whose final answer in round `since`
    /// delivered `before` characters of page, delivers `after` (`None`: no page at all).
    PageShrank { document: Name, page: u32, since: Name, before: usize, after: Option<usize> },
}

impl Raised {
    pub fn flag(&self) -> Flag {
        match self {
            Raised::InsideUnreadable { .. } => Flag::InsideUnreadable,
            Raised::SmallerThanSuperseded { .. } => Flag::SmallerThanSuperseded,
            Raised::Placeholder { .. } => Flag::Placeholder,
            Raised::ReadFromTruncated { .. } => Flag::ReadFromTruncated,
            Raised::ReadersDisagree { .. } => Flag::ReadersDisagree,
            Raised::PageShrank { .. } => Flag::PageShrank,
        }
    }
}

/// Whether the walk's candidates could raise a flag on the seed's reading of `text`
/// (`trace`): its answer is the walk's, and the walk superseded a candidate, or an earlier
/// `{` exists and the answer stops short of the reply's end. Elsewhere [`raised`] needs no
/// visits.
pub fn needs_visits(text: &str, trace: &Trace) -> bool {
    let (_, reply_end) = lex::trim_range(text);
    match (trace.decided_by, trace.place) {
        (DecidedBy::LastWins, Place::Span { start, end, .. }) => {
            trace.reads.candidates > 1
                || (end != reply_end && text.as_bytes().get(..start).is_some_and(|b| memchr::memchr(b'{', b).is_some()))
        }
        _ => false,
    }
}

/// The flags of the seed's reading of `text`, all but `readers-disagree` (which is a
/// comparison's): `trace` is the seed's (recorded or not), `value` its answer, `stopped`
/// whether the record says the output ceiling stopped the reply. `visits` are the walk's
/// candidates ([`walk::visits`]), where [`needs_visits`] says so.
pub fn raised(
    text: &str,
    trace: &Trace,
    value: Option<&Value>,
    stopped: bool,
    visits: Option<&mut Visited>,
) -> Vec<Raised> {
    raised_reading(text, trace, value.is_some(), value, stopped, visits)
}

/// Whether [`raised`] needs the seed's answer built to say its flags on `text`, where its
/// `trace` reads one: for the walk's candidates (`visits`, which compare keys), or where a
/// string of the answer could be a placeholder, told from its text in the reply
/// (`may_hold_placeholder`): most replies have none that could be.
pub fn needs_value(text: &str, trace: &Trace, visits: bool) -> bool {
    let answer = match trace.place {
        Place::Span { start, end, .. } => text.get(start..end),
        Place::WholeText => Some(lex::trim(text)),
        Place::Nothing => return false,
        Place::Raw => None,
    };
    (visits && trace.decided_by == DecidedBy::LastWins) || answer.is_none_or(may_hold_placeholder)
}

/// Whether a string of the value that `answer`, a reading of it (strict or repaired), reads
/// could be a placeholder. A placeholder holds no `"`, so in any reading it is written
/// between two quotes in a row, the second one not escaped and not followed by a `:` (a
/// value followed by a colon reads in no reading; a key is no string of the answer). Each
/// such run short enough to be one is tested as written where it holds no backslash (every
/// reading reads such a run as itself), or as `JSON.parse` decodes it (where that reads it,
/// the repair has nothing to change in it), or else taken to be one.
fn may_hold_placeholder(answer: &str) -> bool {
    let b = answer.as_bytes();
    let mut quotes = memchr::memchr_iter(b'"', b);
    let Some(mut open) = quotes.next() else { return false };
    for close in quotes {
        let run = open + 1..close;
        open = close;
        let body = b.get(run.clone()).unwrap_or_default();
        let backslashes = body.iter().rev().take_while(|&&c| c == b'\\').count();
        let after = b.get(close + 1..).unwrap_or_default().iter().find(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
        // A placeholder is at most 64 bytes, and an escape at most six times what it means.
        if backslashes % 2 == 1 || after == Some(&b':') || body.len() > 6 * PLACEHOLDER_MAX {
            continue;
        }
        let maybe = if !body.contains(&b'\\') {
            answer.get(run).is_none_or(|s| placeholder_str(s).is_some())
        } else {
            match answer.get(run.start - 1..=run.end).map(crate::exact::js::parse) {
                Some(Ok(Value::String(ref s))) => placeholder(s).is_some(),
                _ => true,
            }
        };
        if maybe {
            return true;
        }
    }
    false
}

/// [`raised`], where the seed reads a value (`reads`) that may not be built (`value`:
/// where [`needs_value`] says it is not needed).
pub fn raised_reading(
    text: &str,
    trace: &Trace,
    reads: bool,
    value: Option<&Value>,
    stopped: bool,
    visits: Option<&mut Visited>,
) -> Vec<Raised> {
    let mut out = Vec::new();
    let (_, reply_end) = lex::trim_range(text);
    let answer = match trace.place {
        Place::Span { start, end, .. } => Some((start, end)),
        Place::WholeText | Place::Raw => Some(lex::trim_range(text)),
        Place::Nothing => None,
    };
    if let (DecidedBy::LastWins, Place::Span { start, end, .. }, Some(visits)) = (trace.decided_by, trace.place, visits)
    {
        out.extend(walked(text, visits, (start, end), reply_end, value));
    }
    if let (Some(v), Some(answer)) = (value, answer)
        && let Some((path, text)) = walk::first_string(v, placeholder)
    {
        out.push(Raised::Placeholder { path, text, answer });
    }
    if let (true, true, Some(answer)) = (stopped, reads, answer) {
        out.push(Raised::ReadFromTruncated { decided_by: trace.decided_by, answer });
    }
    out
}

/// The flags of one reply read outside a scan (`explain`): the seed's `trace` (recorded or
/// not) with its answer, and the comparisons of `config`'s early readers with the seed (the
/// `≠`), each reader read here. What a scan's facts say of the reply under `config`, where
/// no reader command is compared.
pub fn of_trace(text: &str, trace: &Trace, stopped: bool, config: &Config) -> Vec<Raised> {
    let mut visits = needs_visits(text, trace).then(|| walk::visits(text).1);
    let mut out = raised(text, trace, trace.value.as_ref(), stopped, visits.as_mut());
    let disagreed = (0..config.pairs.len()).filter(|&p| config.is_early(p)).find_map(|p| {
        let reader = config.pairs[p].from;
        let theirs = config.catalogue.read(reader, text);
        // What a caller holds: JavaScript's `null` is nothing.
        let seed = trace.value.as_ref().filter(|v| !matches!(v, Value::Null));
        let account = account(theirs.as_ref(), seed)?;
        Some(Raised::ReadersDisagree { reader: config.catalogue.shared_name(reader), account: account.into() })
    });
    out.extend(disagreed);
    out
}

/// The flags the walk's candidates raise on its kept one, at `start..end` read by `by`.
fn walked(
    text: &str,
    visited: &mut Visited,
    (start, end): (usize, usize),
    reply_end: usize,
    value: Option<&Value>,
) -> Vec<Raised> {
    let mut out = Vec::new();
    let Visited { visits, spans } = visited;
    let Some(k) = visits.iter().rposition(|v| v.start == start && v.read_end == Some(end)) else { return out };
    let kept = Numbered { number: k + 1, start, end: Some(end) };
    let earlier = &visits[..k];
    if end != reply_end {
        // The span of a candidate is scanned for only where nothing else rules it out.
        let inside = earlier.iter().enumerate().find_map(|(n, v)| {
            if v.strict_ok || v.repaired_ok || !opens_like_an_object(text, v.start) {
                return None;
            }
            let strict_end = spans.end(v, visits);
            strict_end.is_none_or(|e| start < e).then_some(Numbered { number: n + 1, start: v.start, end: strict_end })
        });
        if let Some(inside) = inside {
            out.push(Raised::InsideUnreadable { kept, inside });
        }
    }
    let length = end - start;
    let keys = value.and_then(top_keys);
    if let Some(keys) = keys {
        // Superseded candidates do not overlap (the walk goes on past each), so building
        // those long enough to matter costs at most the reply's length.
        let found = earlier.iter().enumerate().find_map(|(n, v)| {
            let e = v.read_end?;
            if length.saturating_mul(4) >= e - v.start {
                return None;
            }
            let read_by = if v.strict_ok { ReadingKind::Strict } else { ReadingKind::Wide };
            let theirs = walk::value_at(text, v.start, e, read_by)?;
            (top_keys(&theirs).as_ref() == Some(&keys)).then_some(Numbered {
                number: n + 1,
                start: v.start,
                end: Some(e),
            })
        });
        if let Some(superseded) = found {
            out.push(Raised::SmallerThanSuperseded { kept, superseded, keys: keys.len() });
        }
    }
    out
}

/// The top-level keys of an object.
fn top_keys(value: &Value) -> Option<HashSet<&JsString>> {
    Some(value.as_object()?.iter().map(|(k, _)| k).collect())
}

/// A `{` followed, past JavaScript whitespace, by a `"`: the start of an object with a key.
fn opens_like_an_object(text: &str, start: usize) -> bool {
    let mut i = start + 1;
    while let Some(n) = lex::whitespace_len_at(text, i) {
        i += n;
    }
    text.as_bytes().get(i) == Some(&b'"')
}

/// The type names a template gives as a field's value.
pub const TYPE_NAMES: [&str; 10] =
    ["string", "str", "number", "int", "integer", "float", "boolean", "bool", "object", "array"];

/// The string, as written, where it is a template's placeholder: after trimming
/// JavaScript's whitespace, only dots and ellipses (at least two dots, or an ellipsis:
/// `...`, `…`, `. . .`); one `<…>` holding no `<`, `>`, `=`, quote or `/` and not a bare word
/// (`<string>`, `<html here>`, `<...>`; not `<br>` or `<p>`), or a type name in one; or a bare
/// type name ([`TYPE_NAMES`], any case).
pub fn placeholder(s: &JsString) -> Option<String> {
    placeholder_str(s.as_str()?)
}

/// The longest of [`TYPE_NAMES`], in bytes.
const TYPE_NAME_MAX: usize = 7;

/// The longest placeholder, in bytes.
const PLACEHOLDER_MAX: usize = 64;

/// [`placeholder`], of a string that is text.
fn placeholder_str(s: &str) -> Option<String> {
    // A placeholder is a few characters: a long string (a page) is none, and is not looked at.
    let s = Some(s).filter(|s| s.len() <= PLACEHOLDER_MAX)?;
    // Most short strings looked at are words, numbers and what lies between a key and its
    // value (`: `). Past whitespace a placeholder starts with a dot, an ellipsis or `<`, or is
    // a type name, a word of at most `integer`'s length: the rest is told by its ends, without
    // the trim (a printable ASCII byte is nothing JavaScript trims).
    let printable = |b: u8| (0x21..0x7f).contains(&b);
    let (first, last) = (s.as_bytes().first().copied(), s.as_bytes().last().copied());
    match first {
        Some(b'.' | b'<') => {}
        Some(b'a'..=b'z' | b'A'..=b'Z') if s.len() > TYPE_NAME_MAX && last.is_some_and(printable) => return None,
        Some(b) if printable(b) && !b.is_ascii_alphabetic() => return None,
        _ => {}
    }
    placeholder_trimmed(s)
}

/// [`placeholder_str`] of a string at most [`PLACEHOLDER_MAX`] long, looked at in full.
fn placeholder_trimmed(s: &str) -> Option<String> {
    let t = lex::trim(s);
    let dots = t.chars().all(|c| matches!(c, '.' | '…' | ' ')) && (t.contains('…') || t.matches('.').count() >= 2);
    let type_name = |w: &str| TYPE_NAMES.iter().any(|n| n.eq_ignore_ascii_case(w));
    let angled = t.strip_prefix('<').and_then(|r| r.strip_suffix('>')).is_some_and(|inner| {
        let inner = inner.trim();
        !inner.is_empty()
            && !inner.contains(['<', '>', '=', '"', '\'', '/'])
            && (type_name(inner) || !inner.chars().all(|c| c.is_ascii_alphanumeric()))
    });
    (dots || angled || type_name(t)).then(|| t.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::walk::{WalkOptions, run};

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 4000, ..Default::default() })]
        /// Telling a plain string at once tells what the whole test tells.
        #[test]
        fn plain_strings_are_told_as_the_whole_test_tells(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![".", "…", " ", "<", ">", "string", "Integer", "x", "\u{b}", "\u{feff}", "\t", "bool", "9", "=", ":", ","]),
                0..12,
            ),
        ) {
            let s = pieces.concat();
            proptest::prop_assert_eq!(placeholder_str(&s), placeholder_trimmed(&s).filter(|_| s.len() <= PLACEHOLDER_MAX));
        }
    }

    fn flags(text: &str, stopped: bool) -> Vec<Raised> {
        let trace = run(text, &WalkOptions::SEED, false);
        let mut visits = needs_visits(text, &trace).then(|| walk::visits(text).1);
        raised(text, &trace, trace.value.as_ref(), stopped, visits.as_mut())
    }

    fn names(text: &str, stopped: bool) -> Vec<&'static str> {
        flags(text, stopped).iter().map(|r| r.flag().name()).collect()
    }

    /// #339's verdict, quoting the contract back in its `notes`.
    const VERDICT: &str = r#"{"faithful": false, "problems": [{"row": 3, "issue": "missing row"}], "notes": "I first read it as { "faithful": true, "problems": [] }; it is not."}"#;

    #[test]
    fn the_quoted_contract_in_a_fence_is_inside_unreadable() {
        let text = format!("Here is my verdict.\n```json\n{VERDICT}\n```\n");
        let got = flags(&text, false);
        let inside = text.find('{').unwrap();
        let kept = text.find("{ \"faithful\": true").unwrap();
        match got.as_slice() {
            [Raised::InsideUnreadable { kept: k, inside: i }] => {
                assert_eq!((k.start, i.start, i.number), (kept, inside, 1));
                assert!(i.end.is_some_and(|e| e > kept));
            }
            other => panic!("{other:?}"),
        }
        let preamble = format!("The page drops a row, so it is not faithful. {VERDICT}\n\nThat is all.");
        assert_eq!(names(&preamble, false), ["inside-unreadable"]);
    }

    #[test]
    fn the_verdict_the_whole_reply_reading_takes_is_not_flagged() {
        let trace = run(VERDICT, &WalkOptions::SEED, false);
        assert_eq!(trace.decided_by, DecidedBy::WholeReply);
        assert!(flags(VERDICT, false).is_empty());
    }

    #[test]
    fn a_complete_child_of_a_cut_off_object_is_inside_unreadable() {
        let text = r#"{"fragments": [{"text": "one"}, {"text": "two"}, {"text": "thr"#;
        assert_eq!(names(text, false), ["inside-unreadable"]);
        // Where the record says it was cut off, that is said too.
        assert_eq!(names(text, true), ["inside-unreadable", "read-from-truncated"]);
    }

    #[test]
    fn a_restart_that_closes_the_reply_is_not_flagged() {
        let text = "{\"html\": \"<p>draft\n{\"html\": \"<table></table>\", \"log\": \"ok\"}";
        assert!(flags(text, false).is_empty());
        let trailing = "{\"html\": \"<p>draft\n{\"html\": \"<table></table>\", \"log\": \"ok\"}\nDone.";
        assert_eq!(names(trailing, false), ["inside-unreadable"]);
    }

    #[test]
    fn a_decoy_in_prose_before_the_answer_is_not_inside_it() {
        // The quoted `{html, log}` opens no object with a key; `{"html":"` does, but the
        // answer after it closes the reply.
        for text in [
            r#"The contract is {html, log, suggested_agent}. {"html": "<p>x</p>", "log": "ok"}"#,
            r#"It asks for {"html":" in prose. {"issues": ["a", "b"], "faithful": true}"#,
        ] {
            assert!(flags(text, false).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_contract_quoted_after_the_answer_is_smaller_than_superseded() {
        let page = "x".repeat(400);
        let text = format!(
            "{{\"html\": \"<p>{page}</p>\", \"log\": \"Page 4\", \"suggested_agent\": null}}\n\nThe contract was {{\"html\": \"\", \"log\": \"\", \"suggested_agent\": null}}."
        );
        let got = flags(&text, false);
        match got.as_slice() {
            [Raised::SmallerThanSuperseded { kept, superseded, keys: 3 }, ..] => {
                assert_eq!((kept.number, superseded.number, superseded.start), (2, 1, 0));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_inline_handler_correction_is_not_smaller_than_superseded() {
        let body = "<table><tr><td>Measure</td><td>Target</td></tr></table>".repeat(3);
        let text = format!(
            "{{\"html\": \"<button onclick=\\\"show()\\\">Show</button>{body}\", \"log\": \"Page 4\", \"suggested_agent\": null}}\n\nThat uses an inline handler, which the rules forbid. Corrected:\n\n{{\"html\": \"{body}\", \"log\": \"Page 4, no handler\", \"suggested_agent\": null}}"
        );
        let trace = run(&text, &WalkOptions::SEED, false);
        assert_eq!(trace.reads.candidates, 2);
        assert!(flags(&text, false).is_empty());
        // A quarter of the length, with other keys, is not it either.
        let other = format!("{{\"html\": \"{body}{body}{body}\"}} then {{\"log\": \"x\"}}");
        assert!(flags(&other, false).is_empty());
    }

    #[test]
    fn a_template_answer_is_a_placeholder() {
        let got = flags(r#"Answer: { "html": "...", "log": "...", "suggested_agent": null }"#, false);
        match got.as_slice() {
            [Raised::Placeholder { path, text, answer }] => {
                assert_eq!((path.as_str(), text.as_str(), answer.0), ("html", "...", 8));
            }
            other => panic!("{other:?}"),
        }
        for (json, path) in [
            (r#"{"html": "<p>x</p>", "log": "…"}"#, "log"),
            (r#"{"problems": [{"row": 1, "text": "<describe the problem>"}]}"#, "problems[0].text"),
            (r#"{"html": "<string>"}"#, "html"),
            (r#"{"faithful": "boolean"}"#, "faithful"),
            (r#"{"log": ". . ."}"#, "log"),
        ] {
            match flags(json, false).as_slice() {
                [Raised::Placeholder { path: p, .. }] => assert_eq!(p, path, "{json}"),
                other => panic!("{json}: {other:?}"),
            }
        }
    }

    #[test]
    fn ordinary_strings_are_not_placeholders() {
        for s in [
            "",
            ".",
            "Page 17.",
            "<br>",
            "<p>",
            "<p>x</p>",
            "<a href=\"x\">",
            "null",
            "strings",
            "Total ... 12",
            "<hr/>",
        ] {
            assert_eq!(placeholder(&JsString::from(s)), None, "{s:?}");
        }
        let long = format!("...{}", " ".repeat(80));
        assert_eq!(placeholder(&JsString::from(long.as_str())), None);
        // Keys are not strings of the answer.
        assert!(flags(r#"{"...": "fine"}"#, false).is_empty());
    }

    #[test]
    fn an_answer_read_from_a_truncated_reply_is_flagged_only_when_read() {
        assert_eq!(names(r#"{"html": "<p>all of it</p>"}"#, true), ["read-from-truncated"]);
        assert!(flags(r#"{"html": "<p>all of it</p>"}"#, false).is_empty());
        assert!(flags(r#"{"html": "<p>cut"#, true).is_empty());
    }

    #[test]
    fn a_value_is_built_for_the_flags_only_where_a_string_could_be_a_placeholder() {
        for (text, needs) in [
            (r#"{"html": "<p>x</p>", "log": "Page 4"}"#, false),
            (r#"Here: {"a": [1, "two", {"b": "<p class=\"x\">y</p>"}]} done"#, false),
            (r#"{"...": "fine", "string": 1}"#, false),
            ("[1, 2]", false),
            ("nothing here", false),
            (r#"{"html": "..."}"#, true),
            (r#"x {"a": [{"b": "<string>"}]} y"#, true),
            (r#"{"a": "\u002e\u002e"}"#, true),
            (r#"{"a": "Integer"}"#, true),
            (r#"  "…"  "#, true),
            // Read by the repair: a raw line feed, or a quote that does not close.
            ("{\"a\": \"x\ny\"} {oops", false),
            ("{\"a\": \"...\n\"} {oops", true),
            (r#"{"a": "say "hi" ok", "b": "<string>"} {oops"#, true),
            (r#"{"a": "say "..." ok"} {oops"#, true),
            // Quoted dots are no placeholder, nor is a backslash.
            (r#"{"a": "\"...\"", "b": "\\"}"#, false),
            (r#"{"a": "a\"b", "c": "d"}"#, false),
        ] {
            let trace = run(text, &WalkOptions::SEED, false);
            assert_eq!(needs_value(text, &trace, false), needs, "{text}");
        }
    }

    /// Where the answer is not built, no placeholder is missed: on every golden reply.
    #[test]
    fn an_answer_left_unbuilt_has_no_placeholder() {
        let replies = include_str!("../../tests/golden/replies.jsonl");
        let mut unbuilt = 0;
        for line in replies.lines().filter(|l| !l.trim().is_empty()) {
            let record = crate::exact::js::parse(line).unwrap();
            let Some(Value::String(text)) = record.as_object().and_then(|o| o.get("text")) else {
                panic!("a golden record has a text")
            };
            let text = text.to_string_lossy();
            let trace = run(&text, &WalkOptions::SEED, false);
            if let Some(value) = &trace.value
                && !needs_value(&text, &trace, false)
            {
                unbuilt += 1;
                assert_eq!(walk::first_string(value, placeholder), None, "{text}");
            }
        }
        assert!(unbuilt > 100, "{unbuilt} answers left unbuilt");
    }

    #[test]
    fn a_reply_with_one_candidate_is_not_walked_again() {
        for text in ["Prose first.\n```json\n{\"html\": \"<p>x</p>\"}\n```", "{\"a\": 1} and more", "x {\"a\": 1}"] {
            assert!(!needs_visits(text, &run(text, &WalkOptions::SEED, false)), "{text}");
        }
        for text in ["{x} {\"a\": 1} and more", "{\"a\": 1} {\"a\": 2}"] {
            assert!(needs_visits(text, &run(text, &WalkOptions::SEED, false)), "{text}");
        }
    }
}
