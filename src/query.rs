//! The query language: one line that selects replies by what is known of them and by what
//! they say, the same on the command line (`--filter`) and in the inspector's query line.
//!
//! ```text
//! doc=3f1c page=17 agent=page,feedback decided!=none size>10k /fragments?/ !draft
//! ```
//!
//! A query is terms separated by spaces, all required (AND). A term is:
//!
//! * `FIELD=V` (`,` between values: any of them, `agent=page,feedback`), `FIELD!=V` (none of
//!   them: the complement of `=`, so it also holds where the field is absent);
//! * `FIELD~RE`, `FIELD!~RE`: a regex over the field's value;
//! * `FIELD>N`, `<`, `>=`, `<=` for the numbers (`page`, `iteration`, `size`: `10k`, `2M`);
//! * a bare word, or `/RE/` (for a regex with spaces or `=` in it), or `text~RE`: a regex
//!   over the reply's text, as `/` searches one reply (smart case: a pattern with no
//!   capital letter matches either case, as in lnav, vim and k9s);
//! * any term after `!`: its complement (`!/draft/`, `!agent=page`).
//!
//! A value with spaces is quoted (`model="a b"`); `none` is the value of a field a record
//! does not carry (`page=none`). Strings compare without regard to case: `doc` and `id` by
//! their start (`doc=3f1c`), `path` (the reply's `PATH:LINE`) and `model` by a part, the
//! others whole; names with a closed set of values (`format`, `stop`, `decided`, `verdict`,
//! `flag`, `verified`) are checked when the query is read, so a typo is an error, not an
//! empty list. An error says what and at which column.
//!
//! Evaluation is pure and three-valued: a term on facts not read yet, or on a text not
//! searched yet, is unknown ([`Known::Pending`]), and a front end shows the reply once it is
//! known to hold, so the inspector, `list` and `scan` select the same replies.

use std::borrow::Cow;
use std::fmt;

use regex::{Regex, RegexBuilder};

use crate::analysis::{Facts, Flag};
use crate::exact::trace::{DecidedBy, Verdict};
use crate::logs::{Event, Format, Meta, Name, Reply, StopReason};

/// A parsed query.
#[derive(Debug, Clone)]
pub struct Query {
    source: String,
    terms: Vec<Term>,
}

impl PartialEq for Query {
    fn eq(&self, other: &Query) -> bool {
        self.source == other.source
    }
}

impl Eq for Query {}

/// A query that could not be read: what is wrong, and the (1-based) column it starts at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct QueryError {
    pub column: usize,
    pub message: String,
}

/// Whether something is known of a reply: yes, not yet (being read), or never (a call that
/// left no reply has no facts and no text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known<T> {
    Yes(T),
    Pending,
    Never,
}

impl<T> Known<T> {
    fn as_option(&self) -> Result<Option<&T>, Unknown> {
        match self {
            Known::Yes(t) => Ok(Some(t)),
            Known::Pending => Err(Unknown),
            Known::Never => Ok(None),
        }
    }
}

/// A term that cannot be decided yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unknown;

/// What a query is evaluated against, but the text: a reply's (or a call's) name and
/// metadata, its size and its facts.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub id: &'a str,
    /// `PATH:LINE`, or `PATH`.
    pub reference: &'a str,
    pub meta: Option<&'a Meta>,
    /// Bytes of reply text; `None` for what is not a reply.
    pub size: Option<usize>,
    pub facts: Known<&'a Facts>,
}

/// What the text terms make of one text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextHit {
    /// Every text term holds.
    pub holds: bool,
    /// Matches of the text regexes that are not negated.
    pub matches: usize,
}

#[derive(Debug, Clone)]
struct Term {
    test: Test,
    negated: bool,
}

#[derive(Debug, Clone)]
enum Test {
    /// A regex over the reply's text.
    Text(Regex),
    /// One of these values (`None`: the field is absent).
    Str {
        field: StrField,
        values: Vec<Option<String>>,
    },
    Regex {
        field: StrField,
        regex: Regex,
    },
    Num {
        field: NumField,
        cmp: Cmp,
        values: Vec<Option<u64>>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StrField {
    Doc,
    Agent,
    Round,
    Model,
    Format,
    Stop,
    Decided,
    Verdict,
    Flag,
    Verified,
    Id,
    Path,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumField {
    Page,
    Iteration,
    Size,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The fields, as the help and the errors name them.
pub const FIELDS: &[(&str, &str)] = &[
    ("doc", "the document id, by its start (doc=3f1c)"),
    ("page", "the page number (page=17, page>=10)"),
    ("agent", "the agent (agent=page,feedback)"),
    ("iteration", "the review iteration (it=1)"),
    ("round", "the bench round (round=round-4)"),
    ("model", "the model, by a part (model=sonnet)"),
    ("format", "the record format (format=run-log)"),
    ("stop", "why the model stopped: finished, truncated, other, unknown"),
    ("decided", "how the seed decided: whole-text, last-wins, whole-reply, none"),
    ("verdict", "the whole-reply verdict (verdict=taken)"),
    ("flag", "a risk flag (flag=readers-disagree)"),
    ("verified", "the page's verification: yes, no, none"),
    ("size", "bytes of reply text (size>10k; k, M, G are thousands, millions, billions)"),
    ("id", "the reply's id, by its start"),
    ("path", "the reply's PATH:LINE, by a part"),
    ("text", "a regex over the reply's text (text~RE; a bare word or /RE/ is the same)"),
];

/// The risk flags a reply has, by name, of all there are (`facts`: none for a call that
/// left no reply, or for the names alone). The one place the query knows flags.
fn flags(facts: Option<&Facts>) -> [(&'static str, bool); Flag::ALL.len()] {
    Flag::ALL.map(|flag| (flag.name(), facts.is_some_and(|f| f.has(flag))))
}

impl Query {
    /// Reads a query. The empty query selects everything.
    pub fn parse(source: &str) -> Result<Query, QueryError> {
        let mut terms = Vec::new();
        for (column, word) in words(source)? {
            terms.push(term(&word, column)?);
        }
        Ok(Query { source: source.trim().to_owned(), terms })
    }

    /// The query as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether a term reads the reply's text.
    pub fn reads_text(&self) -> bool {
        self.terms.iter().any(|t| matches!(t.test, Test::Text(_)))
    }

    /// Whether a term reads the reply's facts (what the readers make of it).
    pub fn reads_facts(&self) -> bool {
        self.terms.iter().any(|t| t.test.reads_facts())
    }

    /// Whether a term reads the risk flags: `page-shrank` among them is raised over every
    /// round, so a reply is selected once every round is read.
    pub fn reads_flags(&self) -> bool {
        self.terms.iter().any(|t| {
            matches!(t.test, Test::Str { field: StrField::Flag, .. } | Test::Regex { field: StrField::Flag, .. })
        })
    }

    /// Whether every term but the text's holds: `None` while one depends on facts not read
    /// yet and none is known to fail.
    pub fn fields(&self, s: &Subject) -> Option<bool> {
        let mut unknown = false;
        for t in self.terms.iter().filter(|t| !matches!(t.test, Test::Text(_))) {
            match t.test.holds(s) {
                Ok(h) if h == t.negated => return Some(false),
                Ok(_) => {}
                Err(Unknown) => unknown = true,
            }
        }
        (!unknown).then_some(true)
    }

    /// What the text terms make of a reply's text (`None`: there is none, a call that left
    /// no reply). With no text term, every text holds.
    pub fn text(&self, text: Option<&str>) -> TextHit {
        let mut hit = TextHit { holds: true, matches: 0 };
        for t in &self.terms {
            let Test::Text(re) = &t.test else { continue };
            let n = text.map_or(0, |text| re.find_iter(text).filter(|m| !m.is_empty()).count());
            let found = text.is_some_and(|text| n > 0 || re.is_match(text));
            if found == t.negated {
                hit.holds = false;
            }
            if !t.negated {
                hit.matches += n;
            }
        }
        hit
    }

    /// Whether the query selects `s`, whose text (if any) is `text`: every term holds.
    /// Pending facts select nothing.
    pub fn matches(&self, s: &Subject, text: Option<&str>) -> bool {
        self.fields(s) == Some(true) && (!self.reads_text() || self.text(text).holds)
    }

    /// Whether the query selects a loaded reply, with its facts (`None`: not read, which a
    /// query that [`reads_facts`](Query::reads_facts) needs).
    pub fn matches_reply(&self, r: &Reply, facts: Option<&Facts>) -> bool {
        let reference = r.reference();
        let facts = facts.map_or(Known::Never, Known::Yes);
        let s = Subject { id: &r.id, reference: &reference, meta: Some(&r.meta), size: Some(r.text.len()), facts };
        self.matches(&s, Some(&r.text))
    }

    /// Whether the query selects a call that left no reply: it has no facts and no text.
    pub fn matches_event(&self, e: &Event) -> bool {
        let reference = e.reference();
        let s = Subject { id: &e.id, reference: &reference, meta: Some(&e.meta), size: None, facts: Known::Never };
        self.matches(&s, None)
    }
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl Test {
    fn reads_facts(&self) -> bool {
        match self {
            Test::Str { field, .. } | Test::Regex { field, .. } => {
                matches!(field, StrField::Decided | StrField::Verdict | StrField::Flag)
            }
            _ => false,
        }
    }

    /// Whether the (not negated) test holds of `s`.
    fn holds(&self, s: &Subject) -> Result<bool, Unknown> {
        match self {
            Test::Text(_) => Ok(true),
            Test::Str { field: StrField::Flag, values } => {
                let facts = s.facts.as_option()?;
                let on = flags(facts.copied());
                Ok(values.iter().any(|v| on.iter().any(|(name, has)| *has && v.as_deref() == Some(name))))
            }
            Test::Str { field, values } => {
                let got = str_value(*field, s)?;
                Ok(values.iter().any(|v| match (v, &got) {
                    (None, None) => true,
                    (Some(want), Some(got)) => compare_str(*field, want, got),
                    _ => false,
                }))
            }
            Test::Regex { field: StrField::Flag, regex } => {
                let facts = s.facts.as_option()?;
                Ok(flags(facts.copied()).iter().any(|(name, has)| *has && regex.is_match(name)))
            }
            Test::Regex { field, regex } => Ok(str_value(*field, s)?.is_some_and(|v| regex.is_match(&v))),
            Test::Num { field, cmp, values } => {
                let got = match field {
                    NumField::Page => s.meta.and_then(|m| m.page).map(u64::from),
                    NumField::Iteration => s.meta.and_then(|m| m.iteration).map(u64::from),
                    NumField::Size => s.size.map(|n| n as u64),
                };
                Ok(values.iter().any(|v| match (cmp, v, got) {
                    (Cmp::Eq, v, got) => *v == got,
                    (_, None, _) | (_, _, None) => false,
                    (Cmp::Lt, Some(v), Some(g)) => g < *v,
                    (Cmp::Le, Some(v), Some(g)) => g <= *v,
                    (Cmp::Gt, Some(v), Some(g)) => g > *v,
                    (Cmp::Ge, Some(v), Some(g)) => g >= *v,
                }))
            }
        }
    }
}

/// The value of a string field of `s`, `None` where it has none.
fn str_value<'a>(field: StrField, s: &Subject<'a>) -> Result<Option<Cow<'a, str>>, Unknown> {
    let meta = s.meta;
    let text = |v: Option<&'a Name>| v.map(|v| Cow::Borrowed(&**v));
    Ok(match field {
        StrField::Doc => text(meta.and_then(|m| m.document.as_ref())),
        StrField::Agent => text(meta.and_then(|m| m.agent.as_ref())),
        StrField::Round => text(meta.and_then(|m| m.round.as_ref())),
        StrField::Model => text(meta.and_then(|m| m.model.as_ref())),
        StrField::Format => meta.map(|m| Cow::Borrowed(m.format.name())),
        StrField::Stop => meta.map(|m| Cow::Borrowed(m.stop.name())),
        StrField::Verified => meta.and_then(|m| m.page_verified).map(|v| Cow::Borrowed(if v { "yes" } else { "no" })),
        StrField::Id => Some(Cow::Borrowed(s.id)),
        StrField::Path => Some(Cow::Borrowed(s.reference)),
        StrField::Decided => s.facts.as_option()?.map(|f| Cow::Borrowed(f.decided_by.name())),
        StrField::Verdict => s.facts.as_option()?.map(|f| Cow::Borrowed(f.verdict.name())),
        StrField::Flag => None,
    })
}

/// `want` is lower-cased already.
fn compare_str(field: StrField, want: &str, got: &str) -> bool {
    let got = got.to_lowercase();
    match field {
        StrField::Doc | StrField::Id => got.starts_with(want),
        StrField::Model | StrField::Path => got.contains(want),
        _ => got == want,
    }
}

/// The words of a query, each with the column it starts at: split at spaces, except inside
/// `"…"` and `/…/`.
fn words(source: &str) -> Result<Vec<(usize, String)>, QueryError> {
    let mut out = Vec::new();
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let mut word = String::new();
        // A regex between slashes opens a word (after `!`) or a value (after an operator).
        let slash_at = |i: usize, word: &str| {
            chars[i] == '/' && (word.is_empty() || word == "!" || word.ends_with(['=', '~', '>', '<']))
        };
        while i < chars.len() && !chars[i].is_whitespace() {
            let c = chars[i];
            if c == '"' || slash_at(i, &word) {
                let open = i;
                word.push(c);
                i += 1;
                loop {
                    match chars.get(i) {
                        None => {
                            let what = if c == '"' { "a quoted value" } else { "a /regex/" };
                            return Err(error(open + 1, format!("{what} that never closes (`{c}` missing)")));
                        }
                        Some('\\') if chars.get(i + 1).is_some() => {
                            word.push('\\');
                            word.push(chars[i + 1]);
                            i += 2;
                        }
                        Some(&d) => {
                            word.push(d);
                            i += 1;
                            if d == c {
                                break;
                            }
                        }
                    }
                }
                continue;
            }
            word.push(c);
            i += 1;
        }
        out.push((start + 1, word));
    }
    Ok(out)
}

#[cold]
fn error(column: usize, message: String) -> QueryError {
    QueryError { column, message }
}

/// One term, at `column`.
fn term(word: &str, column: usize) -> Result<Term, QueryError> {
    let (negated, body, column) = match word.strip_prefix('!') {
        Some(rest) if !rest.is_empty() => (true, rest, column + 1),
        _ => (false, word, column),
    };
    // The field's name: letters up to the operator.
    let name_len = body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).unwrap_or(body.len());
    let (name, rest) = body.split_at(name_len);
    let op = ["!=", "!~", ">=", "<=", "=", "~", ">", "<"].into_iter().find(|op| rest.starts_with(op));
    let Some(op) = op.filter(|_| !name.is_empty()) else {
        // No operator: a regex over the text, the word itself or between slashes.
        let re = unslash(body).unwrap_or(body);
        return Ok(Term { test: Test::Text(regex(re, column)?), negated });
    };
    let value = &rest[op.len()..];
    let value_column = column + name.chars().count() + op.len();
    let negated = negated ^ op.starts_with('!');
    let op = op.trim_start_matches('!');
    if value.is_empty() {
        return Err(error(value_column, format!("`{name}{op}` needs a value")));
    }
    let field = field(name).ok_or_else(|| {
        let names: Vec<&str> = FIELDS.iter().map(|f| f.0).collect();
        error(column, format!("no field `{name}`: the fields are {}", names.join(", ")))
    })?;
    let test = match (field, op) {
        (Field::Text, "~" | "=") => Test::Text(regex(unquote_regex(value), value_column)?),
        (Field::Text, _) => return Err(error(column, format!("`text` takes `~` (a regex), not `{op}`"))),
        (Field::Str(f), "~") => Test::Regex { field: f, regex: regex(unquote_regex(value), value_column)? },
        (Field::Str(f), "=") => Test::Str { field: f, values: str_values(f, value, value_column)? },
        (Field::Str(_), _) => {
            return Err(error(
                column + name.len(),
                format!("`{name}` is not a number: it takes =, != or ~, not `{op}`"),
            ));
        }
        (Field::Num(_), "~") => {
            return Err(error(
                column + name.len(),
                format!("`{name}` is a number: it takes = or a comparison, not `~`"),
            ));
        }
        (Field::Num(f), op) => {
            let cmp = match op {
                "=" => Cmp::Eq,
                "<" => Cmp::Lt,
                "<=" => Cmp::Le,
                ">" => Cmp::Gt,
                _ => Cmp::Ge,
            };
            let values = num_values(f, value, value_column, cmp != Cmp::Eq)?;
            Test::Num { field: f, cmp, values }
        }
    };
    Ok(Term { test, negated })
}

enum Field {
    Str(StrField),
    Num(NumField),
    Text,
}

fn field(name: &str) -> Option<Field> {
    Some(match name.to_ascii_lowercase().as_str() {
        "doc" | "document" => Field::Str(StrField::Doc),
        "agent" => Field::Str(StrField::Agent),
        "round" => Field::Str(StrField::Round),
        "model" => Field::Str(StrField::Model),
        "format" => Field::Str(StrField::Format),
        "stop" => Field::Str(StrField::Stop),
        "decided" => Field::Str(StrField::Decided),
        "verdict" => Field::Str(StrField::Verdict),
        "flag" => Field::Str(StrField::Flag),
        "verified" => Field::Str(StrField::Verified),
        "id" => Field::Str(StrField::Id),
        "path" => Field::Str(StrField::Path),
        "page" => Field::Num(NumField::Page),
        "iteration" | "it" => Field::Num(NumField::Iteration),
        "size" => Field::Num(NumField::Size),
        "text" => Field::Text,
        _ => return None,
    })
}

/// The values a field with a closed set may take.
fn closed(field: StrField) -> Option<Vec<&'static str>> {
    Some(match field {
        StrField::Format => <Format as clap::ValueEnum>::value_variants().iter().map(|f| f.name()).collect(),
        StrField::Stop => [StopReason::Finished, StopReason::Truncated, StopReason::Other, StopReason::Unknown]
            .iter()
            .map(|s| s.name())
            .collect(),
        StrField::Decided => DecidedBy::ALL.iter().map(|d| d.name()).collect(),
        StrField::Verdict => Verdict::ALL.iter().map(|v| v.name()).collect(),
        StrField::Flag => flags(None).iter().map(|f| f.0).collect(),
        StrField::Verified => vec!["yes", "no"],
        _ => return None,
    })
}

/// Alternatives separated by `,`, lower-cased; `none` is the field's absence (where a
/// field can be absent).
fn str_values(field: StrField, value: &str, column: usize) -> Result<Vec<Option<String>>, QueryError> {
    let mut out = Vec::new();
    let mut at = column;
    for part in split_alternatives(value) {
        let v = unquote(&part).to_lowercase();
        if v.is_empty() {
            return Err(error(at, "an empty value (two commas, or one at the end)".to_owned()));
        }
        let allowed = closed(field);
        let absent_ok = !matches!(field, StrField::Decided | StrField::Id | StrField::Path | StrField::Flag);
        if v == "none" && absent_ok && !allowed.as_ref().is_some_and(|a| a.contains(&"none")) {
            out.push(None);
        } else if let Some(allowed) = allowed.filter(|a| !a.contains(&v.as_str())) {
            let v = match (field, v.as_str()) {
                (StrField::Verified, "true") => "yes".to_owned(),
                (StrField::Verified, "false") => "no".to_owned(),
                _ => return Err(error(at, format!("no such value `{v}`: it is one of {}", allowed.join(", ")))),
            };
            out.push(Some(v));
        } else {
            out.push(Some(v));
        }
        at += part.chars().count() + 1;
    }
    Ok(out)
}

/// `a,"b,c",d` into its three parts, quotes kept.
fn split_alternatives(value: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut escaped = false;
    for c in value.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

fn unquote(s: &str) -> Cow<'_, str> {
    match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(inner) => Cow::Owned(inner.replace("\\\"", "\"").replace("\\\\", "\\")),
        None => Cow::Borrowed(s),
    }
}

/// `/re/` without its slashes (`\/` in it is a slash).
fn unslash(s: &str) -> Option<&str> {
    s.strip_prefix('/').and_then(|s| s.strip_suffix('/')).filter(|_| s.len() >= 2)
}

fn unquote_regex(s: &str) -> &str {
    unslash(s).or_else(|| s.strip_prefix('"').and_then(|s| s.strip_suffix('"'))).unwrap_or(s)
}

/// A regex, smart case: one with no capital letter matches either case.
fn regex(pattern: &str, column: usize) -> Result<Regex, QueryError> {
    let pattern = pattern.replace("\\/", "/");
    let insensitive = !pattern.chars().any(char::is_uppercase);
    RegexBuilder::new(&pattern).case_insensitive(insensitive).size_limit(1 << 22).build().map_err(|e| {
        let msg = e.to_string();
        let last = msg.lines().last().unwrap_or("invalid").trim().trim_start_matches("error: ").to_owned();
        error(column, format!("not a regex: {last}"))
    })
}

/// Numbers separated by `,` (one alone for a comparison), with `k`, `M`, `G` for size.
fn num_values(field: NumField, value: &str, column: usize, one: bool) -> Result<Vec<Option<u64>>, QueryError> {
    let parts: Vec<&str> = value.split(',').collect();
    if one && parts.len() > 1 {
        return Err(error(column, "a comparison takes one number, not a list".to_owned()));
    }
    let mut out = Vec::new();
    let mut at = column;
    for part in parts {
        let lower = part.to_ascii_lowercase();
        if lower == "none" && !one {
            out.push(None);
        } else {
            out.push(Some(number(field, part).ok_or_else(|| {
                let what = if field == NumField::Size { "a size (10k, 2M, 512)" } else { "a whole number" };
                error(at, format!("`{part}` is not {what}"))
            })?));
        }
        at += part.chars().count() + 1;
    }
    Ok(out)
}

fn number(field: NumField, s: &str) -> Option<u64> {
    let digits = s.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &s[digits.len()..];
    let scale: u64 = match (field, suffix.trim_end_matches(['b', 'B'])) {
        (_, "") => 1,
        (NumField::Size, "k" | "K") => 1_000,
        (NumField::Size, "M" | "m") => 1_000_000,
        (NumField::Size, "G" | "g") => 1_000_000_000,
        _ => return None,
    };
    if field != NumField::Size && !suffix.is_empty() {
        return None;
    }
    if let Ok(n) = digits.parse::<u64>() {
        return n.checked_mul(scale);
    }
    // `1.5k`
    let f: f64 = digits.parse().ok().filter(|f: &f64| f.is_finite() && *f >= 0.0 && scale > 1)?;
    Some((f * scale as f64).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::Meta;

    fn meta() -> Meta {
        let mut m = Meta::new(Format::RunLog);
        m.document = Some("3f1c9a0e7b2d4c58".into());
        m.page = Some(17);
        m.agent = Some("page".into());
        m.round = Some("round-4".into());
        m.model = Some("us.anthropic.claude-sonnet-4".into());
        m.page_verified = Some(false);
        m
    }

    fn holds(q: &str, m: &Meta, size: usize, text: &str) -> bool {
        let q = Query::parse(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        let s = Subject {
            id: "log.jsonl:135",
            reference: "r4/log.jsonl:135",
            meta: Some(m),
            size: Some(size),
            facts: Known::Never,
        };
        q.matches(&s, Some(text))
    }

    #[test]
    fn fields_select_and_combine() {
        let m = meta();
        for q in [
            "",
            "doc=3f1c page=17",
            "doc=3F1C",
            "agent=page,feedback",
            "agent!=feedback",
            "!agent=feedback",
            "page>=17 page<18 page>16 page<=17",
            "size>10k size<62.1k size=62017",
            "model=sonnet",
            "model~^us\\.",
            "round=round-4",
            "format=run-log stop=unknown",
            "verified=no verified!=yes",
            "iteration=none it!=1",
            "id=log.jsonl path=log.jsonl:135",
        ] {
            assert!(holds(q, &m, 62_017, ""), "{q}");
        }
        for q in
            ["doc=8a0d", "page=16", "agent=feedback", "size>62017", "verified=none", "page=none", "it=0", "doc=c58"]
        {
            assert!(!holds(q, &m, 62_017, ""), "{q}");
        }
    }

    #[test]
    fn text_terms_are_regexes_with_smart_case_and_counted() {
        let m = meta();
        let text = "Page 17. Table 3 continues; table ends";
        assert!(holds("table", &m, 1, text));
        assert!(!holds("Tables", &m, 1, text));
        assert!(holds("/table \\d/ !draft", &m, 1, text));
        assert!(holds("text~continues", &m, 1, text) && !holds("text!~continues", &m, 1, text));
        assert!(!holds("!table", &m, 1, text));
        let q = Query::parse("table !draft page=17").unwrap();
        assert_eq!(q.text(Some(text)), TextHit { holds: true, matches: 2 });
        assert_eq!(q.text(None), TextHit { holds: false, matches: 0 });
        // A call with no reply has no text: a negated text term holds of it.
        assert!(Query::parse("!draft").unwrap().text(None).holds);
        assert!(Query::parse("/a b/").unwrap().text(Some("xa by")).holds);
    }

    #[test]
    fn facts_not_read_yet_are_unknown_and_never_read_are_absent() {
        let m = meta();
        let q = Query::parse("decided=none").unwrap();
        let pending = Subject { id: "x", reference: "x", meta: Some(&m), size: None, facts: Known::Pending };
        assert_eq!(q.fields(&pending), None);
        let never = Subject { facts: Known::Never, ..pending };
        assert_eq!(q.fields(&never), Some(false));
        assert_eq!(Query::parse("decided!=none").unwrap().fields(&never), Some(true));
        // A known failure decides, whatever is pending.
        assert_eq!(Query::parse("decided=none page=3").unwrap().fields(&pending), Some(false));
        assert!(q.reads_facts() && !q.reads_text());
    }

    #[test]
    fn flags_answer_from_the_facts() {
        let config = crate::analysis::Config::default();
        let m = meta();
        fn s<'a>(m: &'a Meta, f: &'a Facts) -> Subject<'a> {
            Subject { id: "x", reference: "x", meta: Some(m), size: Some(1), facts: Known::Yes(f) }
        }
        // The scratch template alone: its `...` is a placeholder, and nothing else is raised.
        let template = Facts::of_text("Template: {\"html\": \"...\", \"log\": \"...\"}", false, &config, &[]);
        assert!(template.has(Flag::Placeholder), "{:?}", template.flags);
        let plain = Facts::of_text("{\"html\": \"<p>Page 3</p>\"}", false, &config, &[]);
        assert!(plain.flags.is_empty(), "{:?}", plain.flags);
        for (query, on_template, on_plain) in [
            ("flag=placeholder", true, false),
            ("flag!=placeholder", false, true),
            ("flag=inside-unreadable,placeholder", true, false),
            ("flag~^place", true, false),
            ("flag=readers-disagree", template.has(Flag::ReadersDisagree), false),
        ] {
            let q = Query::parse(query).unwrap();
            assert_eq!(q.fields(&s(&m, &template)), Some(on_template), "{query} on the template");
            assert_eq!(q.fields(&s(&m, &plain)), Some(on_plain), "{query} on the plain reply");
        }
        assert_eq!(Query::parse("decided=last-wins").unwrap().fields(&s(&m, &template)), Some(true));
    }

    #[test]
    fn errors_say_what_and_at_which_column() {
        let e = |q: &str| Query::parse(q).unwrap_err().to_string();
        assert_eq!(
            e("doc=3f1c pgae=17"),
            "column 10: no field `pgae`: the fields are doc, page, agent, iteration, round, model, format, stop, decided, verdict, flag, verified, size, id, path, text"
        );
        assert_eq!(e("page=seventeen"), "column 6: `seventeen` is not a whole number");
        assert_eq!(e("size>10q"), "column 6: `10q` is not a size (10k, 2M, 512)");
        assert_eq!(
            e("decided=nothing"),
            "column 9: no such value `nothing`: it is one of whole-text, last-wins, whole-reply, none"
        );
        assert_eq!(e("agent=page,,feedback"), "column 12: an empty value (two commas, or one at the end)");
        assert_eq!(e("x (unclosed"), "column 3: not a regex: unclosed group");
        assert_eq!(e("model=\"a b"), "column 7: a quoted value that never closes (`\"` missing)");
        assert_eq!(e("/a b"), "column 1: a /regex/ that never closes (`/` missing)");
        assert_eq!(e("agent>page"), "column 6: `agent` is not a number: it takes =, != or ~, not `>`");
        assert_eq!(e("page>1,2"), "column 6: a comparison takes one number, not a list");
        assert_eq!(e("page="), "column 6: `page=` needs a value");
        assert_eq!(
            e("flag=placeholders"),
            "column 6: no such value `placeholders`: it is one of inside-unreadable, smaller-than-superseded, placeholder, read-from-truncated, readers-disagree, page-shrank"
        );
    }

    #[test]
    fn quoted_values_and_slashed_regexes_keep_their_spaces() {
        let mut m = meta();
        m.model = Some("Big Model, v2".into());
        assert!(holds("model=\"big model, v2\"", &m, 1, ""));
        assert!(holds("model=\"big model, v2\",other", &m, 1, ""));
        assert!(holds("model~/big m/", &m, 1, ""));
        assert!(holds("/a\\/b c/", &m, 1, "x a/b c"));
        assert_eq!(Query::parse("  doc=3f1c   x ").unwrap().source(), "doc=3f1c   x");
    }
}
