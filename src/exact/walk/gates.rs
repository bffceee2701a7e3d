//! The whole-reply attempt and its two gates (`walkClosedOnTheLastCharacter`,
//! `stringsAreSelfContained`): for a reply that is one object from first to last character,
//! the narrow-colon reading of the whole, taken only where both gates let it through.

use crate::exact::js::{self, ParseError, ParseErrorKind};
use crate::exact::memo::{Mode, Validator};
use crate::exact::repair::{ColonRule, repaired_end};
use crate::exact::trace::{NoReading, NotSelfContained, Reading, ReadingKind, WholeReply, WholeText};
use crate::exact::value::{JsString, Value};

use super::WholeNarrow;
use super::options::WholeReplyPolicy;
use super::recorded::reading_at;

/// The whole-reply attempt and its gates, recording the narrow reading.
pub(super) fn whole_reply(
    text: &str,
    whole_text: &WholeText,
    walk_end: Option<usize>,
    policy: &WholeReplyPolicy,
) -> WholeReply {
    let span = whole_text.span;
    if !policy.enabled || text.as_bytes().get(span.start) != Some(&b'{') {
        return WholeReply::NotTried { whole_text_parsed: false };
    }
    // Reading from the trimmed start inside the full text is the same as reading the
    // trimmed text: what follows it is JavaScript whitespace, which the repair's lookahead
    // skips to the same end, and holds no brace to move the span.
    let reading = reading_at(text, span.start, ReadingKind::Narrow);
    let why = match &reading {
        Reading::Unbalanced => Some(NoReading::NeverCloses),
        Reading::Balanced { span: s, .. } if s.end != span.end => {
            Some(NoReading::ClosesShort { end: s.end, reply_end: span.end })
        }
        Reading::Balanced { outcome: Err(e), .. } => Some(NoReading::DoesNotParse(*e)),
        Reading::Balanced { .. } => None,
    };
    if let Some(why) = why {
        return WholeReply::NoReading { reading: Some(reading), why };
    }
    judge(walk_end, span.end, policy, reading)
}

/// The gates, in the seed's order, over a narrow reading that spans the reply and parses.
fn judge(walk_end: Option<usize>, reply_end: usize, policy: &WholeReplyPolicy, reading: Reading) -> WholeReply {
    // An object the walk read that closes where the reply closes is the reply's own
    // envelope: there is nothing left for a second reading to recover.
    if policy.walk_closed_gate && walk_end == Some(reply_end) {
        return WholeReply::RefusedWalkClosed { reading: Some(reading), walk_end: reply_end, reply_end };
    }
    if policy.self_contained_gate
        && let Some(fault) = reading.value().and_then(strings_not_self_contained)
    {
        return WholeReply::RefusedNotSelfContained { reading: Some(reading), fault };
    }
    WholeReply::Taken { reading: Some(reading) }
}

/// The same verdict without recording: the narrow reading is validated first, and built
/// only when a gate or the answer needs its value. When it is taken, its value is handed
/// back beside the verdict and the verdict carries no reading.
///
/// `built`: the narrow reading, where the walk built it before walking (it reads to the
/// reply's last character): neither validated nor built again, and taken from there only
/// where it is taken.
pub(super) fn whole_reply_unrecorded(
    text: &str,
    whole_text: &WholeText,
    last: Option<(usize, usize, ReadingKind)>,
    policy: &WholeReplyPolicy,
    strict: Option<&Validator>,
    learned: &mut WholeNarrow,
    built: &mut Option<Value>,
) -> (WholeReply, Option<Value>) {
    let span = whole_text.span;
    if !policy.enabled || text.as_bytes().get(span.start) != Some(&b'{') {
        return (WholeReply::NotTried { whole_text_parsed: false }, None);
    }
    let walk_end = last.map(|(_, end, _)| end);
    // Where the walk read the whole reply by the wide reading, the narrow one reads it too,
    // making the same decisions: the rules differ only at a value string's `"` followed by
    // `:`, which the wide reading, had it met one, would have closed and then failed at.
    let read = if last == Some((span.start, span.end, ReadingKind::Wide)) || built.is_some() {
        Ok(span.end)
    } else {
        Validator::once(text, Mode::Narrow).object_at_knowing(span.start, strict)
    };
    learned.reads = Some(read == Ok(span.end));
    let why = match read {
        Ok(end) if end == span.end => None,
        Ok(end) => Some(NoReading::ClosesShort { end, reply_end: span.end }),
        // The seed's reasons, in its order: where the span ends, then whether it parses.
        Err(at) => Some(match repaired_end(text, span.start, ColonRule::Narrow) {
            None => NoReading::NeverCloses,
            Some(end) if end != span.end => NoReading::ClosesShort { end, reply_end: span.end },
            Some(_) => NoReading::DoesNotParse(ParseError { kind: ParseErrorKind::Invalid, offset: at }),
        }),
    };
    if let Some(why) = why {
        return (WholeReply::NoReading { reading: None, why }, None);
    }
    if policy.walk_closed_gate && walk_end == Some(span.end) {
        return (WholeReply::RefusedWalkClosed { reading: None, walk_end: span.end, reply_end: span.end }, None);
    }
    let Some(value) =
        built.take().or_else(|| js::parse_repaired_at(text, span.start, ColonRule::Narrow).ok().map(|(v, _)| v))
    else {
        // Validated above, so this does not happen; were it to, the reading is no reading.
        let why = NoReading::DoesNotParse(ParseError { kind: ParseErrorKind::Invalid, offset: span.start });
        return (WholeReply::NoReading { reading: None, why }, None);
    };
    if policy.self_contained_gate {
        let fault = strings_not_self_contained(&value);
        learned.self_contained = Some(fault.is_none());
        if let Some(fault) = fault {
            // The walk's answer may be this reading still (the walk-closed gate off).
            *built = Some(value);
            return (WholeReply::RefusedNotSelfContained { reading: None, fault }, None);
        }
    }
    (WholeReply::Taken { reading: None }, Some(value))
}

/// `!stringsAreSelfContained(value)`, with where: the first string (in JavaScript's
/// enumeration order) in which a `}` closes a `{` it never opened, or a `{` is left open.
pub fn strings_not_self_contained(value: &Value) -> Option<NotSelfContained> {
    first_string(value, brace_fault).map(|(path, (brace, at_char))| NotSelfContained { path, brace, at_char })
}

/// The first string of `value` (a string value, not a key; in JavaScript's enumeration
/// order) that `test` says something of, with its path (`notes`, `problems[0].text`) and
/// what it said.
pub fn first_string<T>(value: &Value, mut test: impl FnMut(&JsString) -> Option<T>) -> Option<(String, T)> {
    // Depth-first, in order, without recursion. The path to the value being visited is kept
    // as borrowed parts, and written out only for the culprit.
    enum Visit<'a> {
        Enter(&'a Value, Option<PathPart<'a>>),
        Leave,
    }
    let mut trail: Vec<PathPart> = Vec::new();
    let mut stack = vec![Visit::Enter(value, None)];
    while let Some(visit) = stack.pop() {
        let (v, part) = match visit {
            Visit::Enter(v, part) => (v, part),
            Visit::Leave => {
                trail.pop();
                continue;
            }
        };
        match v {
            Value::String(s) => {
                if let Some(found) = test(s) {
                    trail.extend(part);
                    return Some((render_path(&trail), found));
                }
            }
            Value::Array(items) => {
                if let Some(p) = part {
                    trail.push(p);
                    stack.push(Visit::Leave);
                }
                stack.extend(
                    items.iter().enumerate().rev().map(|(i, item)| Visit::Enter(item, Some(PathPart::Index(i)))),
                );
            }
            Value::Object(o) => {
                if let Some(p) = part {
                    trail.push(p);
                    stack.push(Visit::Leave);
                }
                stack.extend(o.iter().rev().map(|(k, item)| Visit::Enter(item, Some(PathPart::Key(k)))));
            }
            _ => {}
        }
    }
    None
}

/// `stringsAreSelfContained(value)`.
pub fn strings_are_self_contained(value: &Value) -> bool {
    strings_not_self_contained(value).is_none()
}

fn brace_fault(s: &JsString) -> Option<(char, usize)> {
    if let JsString::Utf8(t) = s {
        // Braces are ASCII: find them by byte, and count characters only for the culprit.
        let bytes = t.as_bytes();
        let at_char = |i: usize| t.get(..i).map_or(i, |p| p.chars().count());
        let mut open: Vec<usize> = Vec::new();
        for i in memchr::memchr2_iter(b'{', b'}', bytes) {
            if bytes[i] == b'{' {
                open.push(i);
            } else if open.pop().is_none() {
                return Some(('}', at_char(i)));
            }
        }
        return open.first().map(|&i| ('{', at_char(i)));
    }
    let mut open: Vec<usize> = Vec::new();
    for (i, c) in s.chars().enumerate() {
        if c == '{' {
            open.push(i);
        } else if c == '}' && open.pop().is_none() {
            return Some(('}', i));
        }
    }
    open.first().map(|&i| ('{', i))
}

#[derive(Clone, Copy)]
enum PathPart<'a> {
    Key(&'a JsString),
    Index(usize),
}

fn render_path(parts: &[PathPart]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            PathPart::Index(i) => out.push_str(&format!("[{i}]")),
            PathPart::Key(k) => {
                let name = k.to_string_lossy();
                if is_identifier(&name) {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&name);
                } else {
                    out.push('[');
                    crate::exact::value::write_json_string(&mut out, &JsString::from(&*name));
                    out.push(']');
                }
            }
        }
    }
    if out.is_empty() { "(the value itself)".to_owned() } else { out }
}

fn is_identifier(k: &str) -> bool {
    let mut chars = k.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brace_fault_is_named_by_its_path() {
        let fault = |t: &str| strings_not_self_contained(&js::parse(t).unwrap()).map(|f| (f.path, f.brace, f.at_char));
        assert_eq!(fault(r#"{"a": [{"b": "{x}"}, {"c d": "ok", "e": "é}"}]}"#), Some(("a[1].e".into(), '}', 1)));
        assert_eq!(fault(r#"{"a": [{"b": "{x}"}, {"c d": "x{"}]}"#), Some(("a[1][\"c d\"]".into(), '{', 1)));
        assert_eq!(fault(r#""{""#), Some(("(the value itself)".into(), '{', 0)));
        assert_eq!(fault(r#"{"a": ["{}", {"b": "}{"}]}"#), Some(("a[1].b".into(), '}', 0)));
        assert_eq!(fault(r#"{"a": ["{}", {"b": "{ }"}], "c": 1}"#), None);
    }

    #[test]
    fn self_contained_reports_the_path_and_brace() {
        let v = js::parse(r#"{"a": ["ok {}", {"b": "x { y"}]}"#).unwrap();
        let fault = strings_not_self_contained(&v).unwrap();
        assert_eq!(fault, NotSelfContained { path: "a[1].b".into(), brace: '{', at_char: 2 });
        let v = js::parse(r#"{"odd key": "}"}"#).unwrap();
        assert_eq!(strings_not_self_contained(&v).unwrap().path, r#"["odd key"]"#);
    }
}
