//! Short human descriptions of values, sizes and positions, and ([`trace`]) the words a
//! decision record is told in: shared by the CLI and the TUI, so both say the same things.

pub mod trace;

use crate::exact::span::{CharIndex, Utf16Index};
use crate::exact::value::{Value, js_number_to_string};
use crate::visible::visible;

/// `12345` → `12,345`.
pub fn thousands(n: usize) -> String {
    let mut out = String::new();
    push_thousands(&mut out, n);
    out
}

/// [`thousands`], written onto `out`.
pub fn push_thousands(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let len = digits.len() - at;
    for (i, &d) in digits[at..].iter().enumerate() {
        if i > 0 && (len - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(char::from(d));
    }
}

/// `1 reply`, `2,814 replies`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    let mut out = String::new();
    push_plural(&mut out, n, one, many);
    out
}

/// [`plural`], written onto `out`.
pub fn push_plural(out: &mut String, n: usize, one: &str, many: &str) {
    if n == 1 {
        out.push_str("1 ");
        out.push_str(one);
    } else {
        push_thousands(out, n);
        out.push(' ');
        out.push_str(many);
    }
}

/// `1 char`, `7,121 chars`.
pub fn chars(n: usize) -> String {
    plural(n, "char", "chars")
}

/// `72.5%`: `n` of `of` as a percentage (empty of nothing).
pub fn percent(n: usize, of: usize) -> String {
    if of == 0 { String::new() } else { format!("{:.1}%", n as f64 * 100.0 / of as f64) }
}

/// A one-line sketch of a value: a string by its size (and its start when short), a
/// container by its count, an object by its top-level fields. What would make `html: 3
/// chars` jump out.
pub fn sketch(value: &Value) -> String {
    match value {
        Value::Object(o) => {
            let fields: Vec<String> =
                o.iter().map(|(k, v)| format!("{}: {}", visible(&k.to_string_lossy(), false), leaf(v))).collect();
            format!("{{{}}}", fields.join(", "))
        }
        other => leaf(other),
    }
}

/// A value in a few words.
pub fn leaf(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number_to_string(*n),
        Value::String(s) => {
            let n = s.char_len();
            if n <= 24 { visible(&value.to_json(), false) } else { chars(n) }
        }
        // An empty one is what it is, not a count of nothing.
        Value::Array(a) => match a.len() {
            0 => "[]".to_owned(),
            1 => "[1 item]".to_owned(),
            n => format!("[{} items]", thousands(n)),
        },
        Value::Object(o) => match o.len() {
            0 => "{}".to_owned(),
            1 => "{1 field}".to_owned(),
            n => format!("{{{} fields}}", thousands(n)),
        },
    }
}

/// Where a byte offset is, in every unit a reader of the reply may have in hand: bytes (what
/// bracewalk keeps), line and column (what a person reads), UTF-16 (what the pipeline logs).
pub struct Positions<'a> {
    text: &'a str,
    utf16: Utf16Index<'a>,
    /// Columns count characters; on a reply that is one long line, counting them from the
    /// line's start for each position would make a trace's positions quadratic.
    chars: CharIndex<'a>,
    /// Where each line starts, so a position costs a search, not a scan of the text (the
    /// inspector asks for dozens per frame).
    lines: Vec<usize>,
}

impl<'a> Positions<'a> {
    pub fn new(text: &'a str) -> Self {
        let lines = std::iter::once(0).chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1)).collect();
        Positions { text, utf16: Utf16Index::new(text), chars: CharIndex::new(text), lines }
    }

    /// 1-based line and column (in characters) of `byte`, as [`crate::exact::span::line_col`] counts them.
    pub fn line_col(&self, byte: usize) -> (usize, usize) {
        let byte = floor_boundary(self.text, byte);
        let line = self.lines.partition_point(|&start| start <= byte).max(1);
        let start = self.lines.get(line - 1).copied().unwrap_or(0);
        (line, self.chars.chars(byte) - self.chars.chars(start) + 1)
    }

    /// `byte 1,234 (3:17, utf16 1,230)`; the UTF-16 figure only where it differs.
    pub fn at(&self, byte: usize) -> String {
        let (line, col) = self.line_col(byte);
        let u = self.utf16.utf16(byte);
        if u == byte {
            format!("byte {} ({line}:{col})", thousands(byte))
        } else {
            format!("byte {} ({line}:{col}, utf16 {})", thousands(byte), thousands(u))
        }
    }

    /// The UTF-16 offset of `byte`.
    pub fn utf16(&self, byte: usize) -> usize {
        self.utf16.utf16(byte)
    }

    /// A single line of context around `byte`, control characters made visible.
    pub fn context(&self, byte: usize, before: usize, after: usize) -> String {
        let start = floor_boundary(self.text, byte.saturating_sub(before));
        let end = floor_boundary(self.text, (byte + after).min(self.text.len()));
        let mut s = String::new();
        if start > 0 {
            s.push('…');
        }
        s.push_str(&visible(&self.text[start..end], false));
        if end < self.text.len() {
            s.push('…');
        }
        s
    }
}

/// The largest char boundary of `s` at or before `i`.
pub fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::js::parse;

    #[test]
    fn the_locator_counts_lines_and_columns_as_line_col_does() {
        let text = "ab\ncé{\n\nx😀y";
        let loc = Positions::new(text);
        for (i, _) in text.char_indices().chain([(text.len(), ' ')]) {
            assert_eq!(loc.line_col(i), crate::exact::span::line_col(text, i), "byte {i}");
        }
    }

    #[test]
    fn sizes_read_as_a_person_counts_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(62017), "62,017");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(100000), "100,000");
        assert_eq!(thousands(u64::MAX as usize), "18,446,744,073,709,551,615");
        assert_eq!(chars(1), "1 char");
        assert_eq!(chars(0), "0 chars");
        assert_eq!(plural(1001, "item", "items"), "1,001 items");
    }

    #[test]
    fn a_sketch_shows_field_sizes() {
        let v =
            parse(r#"{"html":"...","log":"Page 17. Table 3 continues beyond this page","n":null,"e":[1,2]}"#).unwrap();
        assert_eq!(sketch(&v), r#"{html: "...", log: 43 chars, n: null, e: [2 items]}"#);
    }
}
