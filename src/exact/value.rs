//! The value `JSON.parse` returns, kept the way JavaScript keeps it.
//!
//! Three things about a JavaScript value are visible in what the seed pipeline delivers and
//! are lost by an ordinary Rust JSON value:
//!
//! * strings are UTF-16 and may hold a lone surrogate (`"\ud800"` parses), so [`JsString`]
//!   falls back to code units when, and only when, the text is not valid Unicode;
//! * an object lists its integer-like keys first, ascending, then the others in the order
//!   they were first written; a duplicate key replaces the value but keeps its first place
//!   ([`Object`] is built that way by the parser and iterated in that order);
//! * every number is an IEEE double, printed as `Number.prototype.toString` prints it.
//!
//! Values can be nested as deep as the reply goes, so nothing here recurses on the value's
//! depth: dropping, printing and walking use explicit stacks.

use std::fmt;

/// A JavaScript string: UTF-8 when it is valid Unicode, UTF-16 code units when it holds a
/// lone surrogate. The representation is canonical, so derived equality is string equality.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum JsString {
    Utf8(String),
    Utf16(Vec<u16>),
}

impl Default for JsString {
    fn default() -> Self {
        JsString::Utf8(String::new())
    }
}

impl JsString {
    /// Builds the canonical form of a sequence of UTF-16 code units.
    pub fn from_utf16(units: Vec<u16>) -> JsString {
        match String::from_utf16(&units) {
            Ok(s) => JsString::Utf8(s),
            Err(_) => JsString::Utf16(units),
        }
    }

    /// The text, with any lone surrogate shown as U+FFFD.
    pub fn to_string_lossy(&self) -> std::borrow::Cow<'_, str> {
        match self {
            JsString::Utf8(s) => std::borrow::Cow::Borrowed(s),
            JsString::Utf16(u) => std::borrow::Cow::Owned(String::from_utf16_lossy(u)),
        }
    }

    /// The valid-Unicode text, if it is that.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsString::Utf8(s) => Some(s),
            JsString::Utf16(_) => None,
        }
    }

    /// Length in UTF-16 code units: JavaScript's `.length`.
    pub fn utf16_len(&self) -> usize {
        match self {
            JsString::Utf8(s) => super::span::utf16_len(s),
            JsString::Utf16(u) => u.len(),
        }
    }

    /// Length in characters (code points), what a person counts.
    pub fn char_len(&self) -> usize {
        match self {
            JsString::Utf8(s) => s.chars().count(),
            JsString::Utf16(u) => char::decode_utf16(u.iter().copied()).count(),
        }
    }

    /// Code points, a lone surrogate as U+FFFD (which is neither brace, so brace counting
    /// over this agrees with JavaScript's `for (const c of s)`).
    pub fn chars(&self) -> Box<dyn Iterator<Item = char> + '_> {
        match self {
            JsString::Utf8(s) => Box::new(s.chars()),
            JsString::Utf16(u) => {
                Box::new(char::decode_utf16(u.iter().copied()).map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER)))
            }
        }
    }
}

impl From<&str> for JsString {
    fn from(s: &str) -> Self {
        JsString::Utf8(s.to_owned())
    }
}

impl From<String> for JsString {
    fn from(s: String) -> Self {
        JsString::Utf8(s)
    }
}

impl fmt::Debug for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_json_string(&mut out, self);
        f.write_str(&out)
    }
}

impl fmt::Display for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// A parsed JSON value as JavaScript holds it.
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(JsString),
    Array(Vec<Value>),
    Object(Object),
}

/// An object's properties in JavaScript's enumeration order.
#[derive(Default)]
pub struct Object {
    entries: Vec<(JsString, Value)>,
}

impl Object {
    pub fn new() -> Object {
        Object::default()
    }

    /// Properties in the order `Object.keys` and `JSON.stringify` give them.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&JsString, &Value)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }

    /// Takes the property `key` out (its value; the object keeps its other properties).
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.entries.iter().position(|(k, _)| k.as_str() == Some(key))?;
        Some(self.entries.remove(at).1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries.iter_mut().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }

    pub(crate) fn from_entries(entries: Vec<(JsString, Value)>) -> Object {
        Object { entries }
    }

    fn take_values(&mut self) -> impl Iterator<Item = Value> + '_ {
        self.entries.drain(..).map(|(_, v)| v)
    }
}

/// The array index a property key denotes, if any: the canonical decimal form of an integer
/// below 2^32 − 1. Such keys are enumerated first, in ascending order.
pub(crate) fn array_index(key: &JsString) -> Option<u32> {
    let s = key.as_str()?;
    let bytes = s.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return None;
    }
    let n: u64 = s.parse().ok()?;
    (n < u64::from(u32::MAX)).then_some(n as u32)
}

impl Value {
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The string this value is, taken out of it.
    pub fn into_js_string(mut self) -> Option<JsString> {
        match &mut self {
            Value::String(s) => Some(std::mem::take(s)),
            _ => None,
        }
    }

    pub fn as_js_string(&self) -> Option<&JsString> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// `JSON.stringify(value)`.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_json(&mut out, self, None);
        out
    }

    /// [`Value::to_json`] appended to `out`.
    pub fn write_json(&self, out: &mut String) {
        write_json(out, self, None);
    }

    /// `JSON.stringify(value, null, indent)`.
    pub fn to_json_pretty(&self, indent: usize) -> String {
        let mut out = String::new();
        write_json(&mut out, self, Some(indent));
        out
    }

    /// A short name for the kind of value, as a person would say it.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

impl Clone for Value {
    /// Copies without recursing on depth.
    fn clone(&self) -> Self {
        // Build bottom-up: visit in post-order with an explicit stack.
        enum Step<'a> {
            Enter(&'a Value),
            Array(usize),
            Object(Vec<&'a JsString>),
        }
        let mut steps = vec![Step::Enter(self)];
        let mut built: Vec<Value> = Vec::new();
        while let Some(step) = steps.pop() {
            match step {
                Step::Enter(v) => match v {
                    Value::Null => built.push(Value::Null),
                    Value::Bool(b) => built.push(Value::Bool(*b)),
                    Value::Number(n) => built.push(Value::Number(*n)),
                    Value::String(s) => built.push(Value::String(s.clone())),
                    Value::Array(a) => {
                        steps.push(Step::Array(a.len()));
                        steps.extend(a.iter().rev().map(Step::Enter));
                    }
                    Value::Object(o) => {
                        steps.push(Step::Object(o.entries.iter().map(|(k, _)| k).collect()));
                        steps.extend(o.entries.iter().rev().map(|(_, v)| Step::Enter(v)));
                    }
                },
                Step::Array(n) => {
                    let items = built.split_off(built.len() - n);
                    built.push(Value::Array(items));
                }
                Step::Object(keys) => {
                    let values = built.split_off(built.len() - keys.len());
                    let entries = keys.into_iter().cloned().zip(values).collect();
                    built.push(Value::Object(Object { entries }));
                }
            }
        }
        built.pop().unwrap_or(Value::Null)
    }
}

impl PartialEq for Value {
    /// Structural equality (numbers by IEEE `==`), without recursing on depth.
    fn eq(&self, other: &Self) -> bool {
        let mut pairs = vec![(self, other)];
        while let Some((a, b)) = pairs.pop() {
            match (a, b) {
                (Value::Null, Value::Null) => {}
                (Value::Bool(x), Value::Bool(y)) if x == y => {}
                (Value::Number(x), Value::Number(y)) if x == y => {}
                (Value::String(x), Value::String(y)) if x == y => {}
                (Value::Array(x), Value::Array(y)) if x.len() == y.len() => pairs.extend(x.iter().zip(y)),
                (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
                    for ((kx, vx), (ky, vy)) in x.iter().zip(y.iter()) {
                        if kx != ky {
                            return false;
                        }
                        pairs.push((vx, vy));
                    }
                }
                _ => return false,
            }
        }
        true
    }
}

impl Drop for Value {
    /// Frees nested containers from an explicit stack: a reply nested a million deep must
    /// not overflow the thread's stack on the way out. A container holding only leaves (or
    /// empty containers) is dropped as usual, which is most of them.
    #[inline]
    fn drop(&mut self) {
        // Leaves, most values, are settled where they are dropped.
        if matches!(self, Value::Array(_) | Value::Object(_)) {
            self.drop_container();
        }
    }
}

impl Value {
    /// [`Value::drop`] for a container.
    #[inline(never)]
    fn drop_container(&mut self) {
        let nested = |v: &Value| match v {
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            _ => false,
        };
        let mut stack: Vec<Value> = match self {
            Value::Array(a) if a.iter().any(nested) => std::mem::take(a),
            Value::Object(o) if o.entries.iter().any(|(_, v)| nested(v)) => o.take_values().collect(),
            _ => return,
        };
        while let Some(mut v) = stack.pop() {
            // A container of leaves is left to drop as usual at the end of this turn, its
            // leaves in place rather than moved through the stack.
            match &mut v {
                Value::Array(a) if a.iter().any(nested) => stack.append(a),
                Value::Object(o) if o.entries.iter().any(|(_, v)| nested(v)) => stack.extend(o.take_values()),
                _ => {}
            }
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

/// `Number.prototype.toString()` for a double.
pub fn js_number_to_string(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity".to_owned() } else { "-Infinity".to_owned() }
    } else if n == 0.0 {
        // Covers -0, which JavaScript prints as "0".
        "0".to_owned()
    } else {
        ryu_js::Buffer::new().format_finite(n).to_owned()
    }
}

/// A string as `JSON.stringify` prints it: `"` and `\` escaped, C0 controls as their short
/// escape or `\u00xx`, lone surrogates as `\udxxx`, everything else as itself.
pub fn write_json_string(out: &mut String, s: &JsString) {
    out.push('"');
    match s {
        JsString::Utf8(s) => write_utf8_inside(out, s),
        JsString::Utf16(units) => {
            for r in char::decode_utf16(units.iter().copied()) {
                match r {
                    Ok(c) if (c as u32) < 0x20 || c == '"' || c == '\\' => push_escape(out, c as u32),
                    Ok(c) => out.push(c),
                    Err(e) => push_escape(out, u32::from(e.unpaired_surrogate())),
                }
            }
        }
    }
    out.push('"');
}

/// A Rust string as `JSON.stringify` prints it: [`write_json_string`] of it.
pub fn write_json_str(out: &mut String, s: &str) {
    out.push('"');
    write_utf8_inside(out, s);
    out.push('"');
}

/// The inside of a JSON string for `s`, escaped.
pub(crate) fn write_utf8_inside(out: &mut String, s: &str) {
    // What JSON escapes in a string is what ends a run of plain text inside one.
    let bytes = s.as_bytes();
    if bytes.len() >= LONG_STRING {
        // Room for all of it and what may follow it, measured once: a 200 MB string
        // that outgrew its buffer at the end would be copied into one twice its size.
        let escaped = escaped_len(bytes);
        out.reserve_exact(escaped + 2 + escaped / 16);
    }
    // Plain runs are found a word at a time and copied whole; where what JSON escapes
    // comes thick (a reply's quotes, `":"` by the page), the stretch is written a byte at
    // a time on the stack: a search would cost more than the bytes it passes over.
    let (mut run, mut i) = (0, 0);
    loop {
        i = super::lex::next_string_special(bytes, i);
        if i >= bytes.len() {
            break;
        }
        super::lex::push_run(out, s, run, i);
        // A byte JSON escapes alone is written as its escape; one with another a byte or
        // two on starts a dense stretch.
        let special = |k: usize| bytes.get(k).is_some_and(|&b| super::lex::escape_of(b).is_some());
        match bytes.get(i) {
            Some(&b) if !special(i + 1) && !special(i + 2) => {
                push_escape(out, u32::from(b));
                i += 1;
            }
            _ => i = super::lex::escape_dense(bytes, i, out),
        }
        run = i;
    }
    super::lex::push_run(out, s, run, bytes.len());
}

/// Strings at least this long are measured before they are written.
const LONG_STRING: usize = 1 << 16;

/// The length of `bytes` written as the inside of a JSON string.
fn escaped_len(bytes: &[u8]) -> usize {
    // `\"`, `\\` and the short escapes take two bytes, other controls six (`\u001b`): each
    // counted over the whole string in a pass the compiler vectorizes.
    let escaped = bytes.iter().filter(|&&b| b == b'"' || b == b'\\' || b < 0x20).count();
    let long = bytes.iter().filter(|&&b| b < 0x20 && !matches!(b, 0x08 | b'\t' | b'\n' | 0x0c | b'\r')).count();
    bytes.len() + escaped + 4 * long
}

/// Writes the escape of a UTF-16 unit JSON escapes: its short escape, or `\uxxxx` (a control,
/// a lone surrogate).
fn push_escape(out: &mut String, unit: u32) {
    match u8::try_from(unit).ok().and_then(super::lex::escape_of) {
        Some(e) if e != b'u' => {
            out.push('\\');
            out.push(char::from(e));
        }
        _ => {
            use fmt::Write;
            let _ = write!(out, "\\u{unit:04x}");
        }
    }
}

/// `JSON.stringify(value)` or, with `indent`, `JSON.stringify(value, null, indent)`.
fn write_json(out: &mut String, value: &Value, indent: Option<usize>) {
    enum Item<'a> {
        Value(&'a Value),
        Key(&'a JsString),
        Raw(&'static str),
        Newline(usize),
    }
    let newline = |out: &mut String, depth: usize| {
        if let Some(width) = indent {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', width * depth));
        }
    };
    // Each entry carries the depth it is printed at, for indentation.
    let mut stack: Vec<(Item, usize)> = vec![(Item::Value(value), 0)];
    while let Some((item, depth)) = stack.pop() {
        match item {
            Item::Raw(s) => out.push_str(s),
            Item::Newline(d) => newline(out, d),
            Item::Key(k) => {
                write_json_string(out, k);
                out.push_str(if indent.is_some() { ": " } else { ":" });
            }
            Item::Value(v) => match v {
                Value::Null => out.push_str("null"),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Number(n) if n.is_finite() => out.push_str(&js_number_to_string(*n)),
                Value::Number(_) => out.push_str("null"),
                Value::String(s) => write_json_string(out, s),
                Value::Array(a) if a.is_empty() => out.push_str("[]"),
                Value::Object(o) if o.is_empty() => out.push_str("{}"),
                Value::Array(a) => {
                    out.push('[');
                    stack.push((Item::Raw("]"), depth));
                    stack.push((Item::Newline(depth), depth));
                    for (i, v) in a.iter().enumerate().rev() {
                        stack.push((Item::Value(v), depth + 1));
                        stack.push((Item::Newline(depth + 1), depth + 1));
                        if i > 0 {
                            stack.push((Item::Raw(","), depth + 1));
                        }
                    }
                }
                Value::Object(o) => {
                    out.push('{');
                    stack.push((Item::Raw("}"), depth));
                    stack.push((Item::Newline(depth), depth));
                    for (i, (k, v)) in o.entries.iter().enumerate().rev() {
                        stack.push((Item::Value(v), depth + 1));
                        stack.push((Item::Key(k), depth + 1));
                        stack.push((Item::Newline(depth + 1), depth + 1));
                        if i > 0 {
                            stack.push((Item::Raw(","), depth + 1));
                        }
                    }
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_of_thick_escapes_print_as_sparse_ones_do() {
        // What JSON escapes one byte in two or three, beside plain and non-ASCII runs, and
        // past the length measured before it is written.
        let pieces = ["\":\"", "\\\"", "a\nb", "é\"", "😀\t", "plain text run ", "\u{1b}x"];
        for n in [1, 7, 300, 40_000] {
            let s: String = (0..n).map(|i| pieces[i % pieces.len()]).collect();
            let mut out = String::new();
            write_json_string(&mut out, &JsString::from(s.as_str()));
            assert_eq!(out, serde_json::to_string(&s).unwrap(), "{n}");
        }
    }

    proptest::proptest! {
        /// Whatever mix of plain, escaped, control and non-ASCII bytes a string holds, and
        /// however thick or sparse, it is written as `JSON.stringify` (and serde) write it.
        #[test]
        fn strings_of_any_mix_of_escapes_print_as_serde_prints_them(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["\"", "\\", ":", "a", "plain text ", "\n", "\u{1b}", "\u{7}", "\t", "é", "😀", "\u{8}"]),
                0..200,
            ),
        ) {
            let s = pieces.concat();
            let mut out = String::new();
            write_json_str(&mut out, &s);
            // Measured before it is written, a long string is measured exactly.
            proptest::prop_assert_eq!(escaped_len(s.as_bytes()) + 2, out.len());
            proptest::prop_assert_eq!(out, serde_json::to_string(&s).unwrap());
        }
    }

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        for (n, s) in [
            (12345678901234567890.0, "12345678901234567000"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (-1500.0, "-1500"),
            (5e-324, "5e-324"),
            (f64::INFINITY, "Infinity"),
        ] {
            assert_eq!(js_number_to_string(n), s, "{n:e}");
        }
    }

    #[test]
    fn non_finite_numbers_stringify_as_null() {
        assert_eq!(Value::Number(f64::INFINITY).to_json(), "null");
    }

    #[test]
    fn a_long_string_is_measured_as_it_is_written() {
        let long = "<p class=\"x\">a\tb\u{1b}\\ é</p>\n".repeat(LONG_STRING / 8);
        let mut out = String::new();
        write_json_string(&mut out, &JsString::from(long.as_str()));
        assert_eq!(out.len(), escaped_len(long.as_bytes()) + 2);
        assert!(out.capacity() < out.len() * 17 / 16 + 8, "{} for {}", out.capacity(), out.len());
    }

    #[test]
    fn strings_escape_as_json_stringify_does() {
        let s = JsString::from("a\"b\\c\n\u{1}\u{7f}\u{2028}é");
        let mut out = String::new();
        write_json_string(&mut out, &s);
        assert_eq!(out, "\"a\\\"b\\\\c\\n\\u0001\u{7f}\u{2028}é\"");
        let lone = JsString::from_utf16(vec![0x61, 0xd800, 0x62]);
        assert!(matches!(lone, JsString::Utf16(_)));
        out.clear();
        write_json_string(&mut out, &lone);
        assert_eq!(out, "\"a\\ud800b\"");
    }

    #[test]
    fn array_indices_are_canonical_integers_below_2_pow_32_minus_1() {
        assert_eq!(array_index(&"0".into()), Some(0));
        assert_eq!(array_index(&"4294967294".into()), Some(4294967294));
        assert_eq!(array_index(&"4294967295".into()), None);
        assert_eq!(array_index(&"01".into()), None);
        assert_eq!(array_index(&"-1".into()), None);
        assert_eq!(array_index(&"".into()), None);
    }

    #[test]
    fn pretty_printing_matches_stringify_with_indent() {
        let v = Value::Object(Object::from_entries(vec![
            ("a".into(), Value::Array(vec![Value::Number(1.0), Value::Array(vec![])])),
            ("b".into(), Value::Object(Object::new())),
        ]));
        assert_eq!(v.to_json_pretty(2), "{\n  \"a\": [\n    1,\n    []\n  ],\n  \"b\": {}\n}");
        assert_eq!(v.to_json(), r#"{"a":[1,[]],"b":{}}"#);
    }

    #[test]
    fn deep_values_drop_clone_and_compare_without_overflow() {
        let mut v = Value::Null;
        for _ in 0..1_000_000 {
            v = Value::Array(vec![v]);
        }
        let w = v.clone();
        assert!(v == w);
        assert_eq!(v.to_json().len(), 2_000_004);
    }
}
