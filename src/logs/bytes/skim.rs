//! A JSON line skimmed for a listing: its structure and short strings as they are, and each
//! long string (a reply's text, most of the line) decoded only to be measured and hashed,
//! then stood in for by a short name. A listing of a 1 GB campaign then costs a pass over
//! its bytes and a small parse a line, not a `Value` of every text, dropped once built.
//!
//! A skim is exact or not made. Whatever about a string that reading the line whole would
//! decide (an escape or a byte JSON refuses, a lone surrogate, bytes that are not UTF-8)
//! makes the skim give up, and the line is read whole, as it always was. A line that parses
//! skimmed parses whole, to the same value but for the long strings: outside strings the
//! two are the same bytes, and each long string is one JSON accepts.

use serde_json::Value;

use crate::logs::bytes::nan;
use crate::logs::model::hash::hash_bytes;
use crate::logs::model::written::Measured;

/// Strings at least this long (in the line's bytes, without the quotes) are measured, not
/// held. Shorter ones (ids, models, stop reasons) are what a record's shape is told by.
pub(crate) const LONG: usize = 512;

/// What a stand-in begins with: a noncharacter, which no text is meant to hold (a line
/// that holds one anyway, outside its long strings, is not skimmed).
const MARK: char = '\u{FDD0}';

/// A line skimmed: `small` is the line with its long strings stood in for; the `n`-th
/// stand-in names `long[n]`.
#[derive(Debug)]
pub(crate) struct Skim {
    pub small: Vec<u8>,
    pub long: Vec<Measured>,
}

/// `line` skimmed, or `None` when it has no long string or a skim would not be exact.
/// `scratch` is reused across lines for the decoded strings.
pub(crate) fn skim(line: &[u8], scratch: &mut Vec<u8>) -> Option<Skim> {
    // A line that is not UTF-8 is read whole, which says where it is not. Checked once here,
    // so that the strings are decoded without looking at their characters again.
    simdutf8::basic::from_utf8(line).ok()?;
    let mut long = Vec::new();
    let small = stand_in(line, scratch, &mut |text, within| {
        long.push(Measured { len: text.len(), hash: hash_bytes(text), within });
        Some(())
    })?;
    Some(Skim { small, long })
}

/// `line` read as loading reads it whole ([`nan::parse`]), its long strings decoded once,
/// each into a string of its own length, and the small rest parsed: what serde_json does to
/// a reply's text (finding its end, checking its UTF-8, copying it into a buffer it grows,
/// and out again) done once. `None` where a skim would not be exact, or a long string is not
/// UTF-8: the line is read whole, which says where.
pub(crate) fn load(line: &[u8], scratch: &mut Vec<u8>) -> Option<Value> {
    let mut texts = Vec::new();
    // Each long string's bytes are checked once, decoded; the small line's are checked by its
    // parse (outside its strings, JSON allows no byte that is not ASCII).
    let small = stand_in(line, scratch, &mut |text, _| {
        texts.push(Some(simdutf8::basic::from_utf8(text).ok()?.to_owned()));
        Some(())
    })?;
    let mut value = nan::parse(&small).ok()?;
    (put_back(&mut value, &mut texts) == texts.len()).then_some(value)
}

/// What takes each long string of a line, decoded, with where it is written (the byte past
/// its opening quote, and its length as written); `None` gives the line up.
type Long<'a> = dyn FnMut(&[u8], (u32, u32)) -> Option<()> + 'a;

/// The small line: `line` with each long string stood in for, and handed to `long` decoded,
/// with where it is written. `None` where the line has no long string, a skim would not be
/// exact, or `long` says so.
fn stand_in(line: &[u8], scratch: &mut Vec<u8>, long: &mut Long) -> Option<Vec<u8>> {
    // Bytes outside the long strings stay in the small line, whose parse checks them.
    let mut small = Vec::new();
    let mut count = 0;
    // `line[..copied]` is in `small` already.
    let (mut at, mut copied) = (0, 0);
    while let Some(q) = memchr::memchr(b'"', &line[at..]) {
        let open = at + q;
        let close = decode(line, open + 1, scratch)?;
        at = close + 1;
        if close - (open + 1) < LONG {
            continue;
        }
        small.extend_from_slice(&line[copied..open]);
        small.push(b'"');
        let mut mark = [0; 4];
        small.extend_from_slice(MARK.encode_utf8(&mut mark).as_bytes());
        small.extend_from_slice(count.to_string().as_bytes());
        small.push(b'"');
        copied = at;
        // A line is at most 256 MiB (`max_line`): its positions fit.
        let within = (u32::try_from(open + 1).ok()?, u32::try_from(close - (open + 1)).ok()?);
        long(scratch, within)?;
        count += 1;
    }
    if count == 0 {
        return None;
    }
    small.extend_from_slice(&line[copied..]);
    // The marks in the small line must be the stand-ins' own, none the line's.
    let marks = memchr::memmem::find_iter(&small, MARK.to_string().as_bytes()).count();
    let escaped = memchr::memmem::find_iter(&small, b"\\u")
        .any(|i| small.get(i + 2..i + 6).is_some_and(|hex| hex.eq_ignore_ascii_case(b"fdd0")));
    (marks == count && !escaped).then_some(small)
}

/// The text of `written`, one JSON string with its quotes and nothing else, decoded as a
/// skim decodes a long string (the way its length and hash were listed); `None` where it is
/// not one such string, holds a lone surrogate, or is not UTF-8: what the readers' own parser
/// makes of it (`exact::js::parse`), at a fraction of the cost. `len`: the bytes it is
/// expected to decode to, room made for at once.
///
/// The escapes give whole characters and the runs between them begin and end at ASCII
/// bytes, so the text is UTF-8 exactly where `written` is: checked there, once, and decoded
/// straight into the text, copied once.
pub(crate) fn string(written: &[u8], len: usize) -> Option<String> {
    if written.first() != Some(&b'"') {
        return None;
    }
    let line = simdutf8::basic::from_utf8(written).ok()?;
    let mut out = InText { line, text: String::with_capacity(len) };
    let close = decode_into(written, 1, &mut out)?;
    (close + 1 == written.len()).then_some(out.text)
}

/// Puts each long string back in place of its stand-in, in a value read from a small line
/// ([`load`]); how many it put back (a stand-in for a key is not put back).
fn put_back(value: &mut Value, texts: &mut [Option<String>]) -> usize {
    let mut put = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Some(text) = stand_in_index(s).and_then(|i| texts.get_mut(i)).and_then(Option::take) {
                    *s = text;
                    put += 1;
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            Value::Object(o) => stack.extend(o.values_mut()),
            _ => {}
        }
    }
    put
}

/// Which long string `text` stands in for, when it is a stand-in.
fn stand_in_index(text: &str) -> Option<usize> {
    let n = text.strip_prefix(MARK)?;
    let i: usize = n.parse().ok()?;
    (i.to_string() == n).then_some(i)
}

/// Decodes the JSON string whose first byte (past its opening quote) is `line[start]` into
/// `out`; the index of its closing quote. `None` for anything JSON would refuse and for a lone
/// surrogate, which a text cannot hold. `line` is UTF-8 ([`skim`] checks it): the runs between
/// escapes are copied as they are.
pub(crate) fn decode(line: &[u8], start: usize, out: &mut Vec<u8>) -> Option<usize> {
    out.clear();
    decode_into(line, start, out)
}

/// Where [`decode_into`] puts a string's text: bytes, or a `String`, whose runs are slices
/// of a line already known to be UTF-8, so that nothing is checked or copied again.
trait Decoded {
    /// Appends `line[from..to]`, which begins and ends at a character's edge.
    fn run(&mut self, line: &[u8], from: usize, to: usize) -> Option<()>;
    fn escaped(&mut self, c: char);
}

impl Decoded for Vec<u8> {
    /// A block at a time, each a fixed copy, the last cut back to the run's end: a run is a
    /// few dozen bytes, where a copy of any length is a call (15% more over the hard
    /// campaign's texts). A `String` cannot take a block that ends within a character, so
    /// its runs are copied whole.
    #[inline(always)]
    fn run(&mut self, line: &[u8], from: usize, to: usize) -> Option<()> {
        let mut at = from;
        while at < to {
            match line.get(at..at + BLOCK).and_then(|b| <&[u8; BLOCK]>::try_from(b).ok()) {
                Some(block) => {
                    self.extend_from_slice(block);
                    at += BLOCK;
                }
                None => {
                    self.extend_from_slice(line.get(at..to)?);
                    return Some(());
                }
            }
        }
        self.truncate(self.len() - (at - to));
        Some(())
    }

    #[inline(always)]
    fn escaped(&mut self, c: char) {
        match u8::try_from(c) {
            Ok(b) if b.is_ascii() => self.push(b),
            _ => self.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
}

/// A `String` decoded from a line that is UTF-8 as a whole.
struct InText<'l> {
    line: &'l str,
    text: String,
}

impl Decoded for InText<'_> {
    #[inline(always)]
    fn run(&mut self, _: &[u8], from: usize, to: usize) -> Option<()> {
        self.text.push_str(self.line.get(from..to)?);
        Some(())
    }

    #[inline(always)]
    fn escaped(&mut self, c: char) {
        self.text.push(c);
    }
}

/// [`decode`], into `out`.
///
/// A text written in a log has an escape every few dozen bytes (each `\"` of a page's
/// attributes, each `\n`), so its runs are short and the cost is in finding where each
/// ends: a block of bytes is looked at at once ([`specials`]), and the runs and escapes
/// within it are taken by its bits, where a search call for each run cost 1.5x as much
/// over the hard campaign's texts.
#[inline(always)]
fn decode_into<O: Decoded>(line: &[u8], start: usize, out: &mut O) -> Option<usize> {
    let mut i = start;
    // The block looked at last: where it begins, and its special bytes.
    let mut block: Option<(usize, u64)> = None;
    loop {
        // The next quote, backslash or control character, and the run before it.
        let from = i;
        i = loop {
            match block {
                Some((at, found)) if i < at + BLOCK => {
                    let left = found & (u64::MAX << (i - at));
                    if left != 0 {
                        break at + left.trailing_zeros() as usize;
                    }
                    i = at + BLOCK;
                }
                _ => match line.get(i..i + BLOCK).and_then(|b| <[u8; BLOCK]>::try_from(b).ok()) {
                    Some(bytes) => block = Some((i, specials(bytes))),
                    // Fewer than a block's bytes are left: the readers' search looks at them.
                    None => break crate::exact::lex::next_string_special(line, i),
                },
            }
        };
        out.run(line, from, i)?;
        match line.get(i)? {
            b'"' => return Some(i),
            b'\\' => {}
            // A control character, which JSON refuses in a string.
            _ => return None,
        }
        let escape = *line.get(i + 1)?;
        i += 2;
        let c = match escape {
            b'u' => {
                let unit = hex4(line.get(i..i + 4)?)?;
                i += 4;
                let code = match unit {
                    0xd800..=0xdbff => {
                        if line.get(i..i + 2)? != b"\\u" {
                            return None;
                        }
                        let low = hex4(line.get(i + 2..i + 6)?)?;
                        if !(0xdc00..=0xdfff).contains(&low) {
                            return None;
                        }
                        i += 6;
                        0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
                    }
                    0xdc00..=0xdfff => return None,
                    unit => unit,
                };
                char::from_u32(code)?
            }
            e => char::from(crate::exact::lex::simple_escape(e)?),
        };
        out.escaped(c);
    }
}

/// Bytes [`decode_into`] looks at at once.
const BLOCK: usize = 64;

/// A bit for each byte of `block` that ends a run of a string: a quote, a backslash or a
/// control character (which JSON refuses there), by one vector compare each. (`wide` gives
/// the compares without `unsafe`; on x86-64 they are SSE2's, which every such machine has.)
#[inline(always)]
fn specials(block: [u8; BLOCK]) -> u64 {
    use wide::u8x64;
    let v = u8x64::new(block);
    let control = v.min(u8x64::splat(0x1f)).simd_eq(v);
    (v.simd_eq(u8x64::splat(b'"')) | v.simd_eq(u8x64::splat(b'\\')) | control).to_bitmask()
}

fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))
}

/// The long string `text` stands in for, when it is a stand-in.
pub(crate) fn stood_for(text: &str, long: &[Measured]) -> Option<Measured> {
    long.get(stand_in_index(text)?).copied()
}

/// Whether `text` holds a stand-in, whole or in part.
pub(crate) fn mentions(text: &str) -> bool {
    text.contains(MARK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn long(s: &str) -> String {
        s.repeat(LONG / s.len() + 1)
    }

    /// Skims `line`; checks that the small line is the whole line's value with stand-ins,
    /// and that each measure is of the string the whole line holds there.
    fn check(line: &str) -> Option<Skim> {
        let s = skim(line.as_bytes(), &mut Vec::new())?;
        let whole: Value = serde_json::from_str(line).unwrap();
        let small: Value = serde_json::from_slice(&s.small).unwrap();
        let (Value::Object(whole), Value::Object(small)) = (whole, small) else { panic!("objects") };
        for (k, v) in &small {
            match stood_for(v.as_str().unwrap_or(""), &s.long) {
                Some(m) => {
                    let text = whole[k].as_str().unwrap();
                    assert_eq!((m.len, m.hash), (text.len(), crate::logs::text_hash(text)), "{k}");
                    let (at, len) = (m.within.0 as usize, m.within.1 as usize);
                    let written: String = serde_json::from_slice(&line.as_bytes()[at - 1..at + len + 1]).unwrap();
                    assert_eq!(written, text, "{k}: where it is written");
                }
                None => assert_eq!(&whole[k], v, "{k}"),
            }
        }
        Some(s)
    }

    #[test]
    fn long_strings_are_measured_as_decoded_and_the_rest_kept() {
        let text = long(r#"a \"quoted\" line\n\ttab \u00e9 \ud83d\ude00 é € \/ \b\f\r\\ "#);
        let line = format!(r#"{{"id":"x-1","text":"{text}","n":[1,null,"short \" one"],"t":"{text}"}}"#);
        let s = check(&line).unwrap();
        assert_eq!(s.long.len(), 2);
        assert!(s.small.len() < 100, "{}", String::from_utf8_lossy(&s.small));
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 3000, ..Default::default() })]
        /// A string decodes as serde decodes it (which refuses lone surrogates too), or, where
        /// serde refuses it, not at all; its closing quote is found.
        #[test]
        fn a_string_decodes_as_serde_decodes_it(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "plain text ", "é", "😀", r#"\""#, r#"\\"#, r#"\n"#, r#"\/"#, r#"\u00e9"#,
                    r#"\ud83d\ude00"#, r#"\ud800"#, r#"\udc00x"#, r#"\q"#, r#"\u12"#, "\u{1}", "\t",
                ]),
                0..120,
            ),
        ) {
            let body = pieces.concat();
            let line = format!("\"{body}\",1");
            let mut out = Vec::new();
            let got = decode(line.as_bytes(), 1, &mut out).map(|close| (close, String::from_utf8(out).unwrap()));
            let want = serde_json::from_str::<String>(&format!("\"{body}\"")).ok().map(|s| (body.len() + 1, s));
            proptest::prop_assert_eq!(got, want);
        }
    }

    /// A line loaded through its skim is the line read whole; one it cannot load so (a long
    /// key, a key repeated over a long string, a long string that is not UTF-8) is left to
    /// the whole line.
    #[test]
    fn a_line_loaded_through_its_skim_is_the_line_read_whole() {
        let text = long(r#"a \"quoted\" line\n\ttab \u00e9 \ud83d\ude00 é € \/ \b\f\r\\ "#);
        for line in [
            format!(r#"{{"id":"x-1","text":"{text}","n":[1,null,"short \" one"],"t":"{text}"}}"#),
            format!(r#"[{{"a":"{text}"}},{{"b":{{"c":["{text}", 2.50]}}}}]"#),
            format!(r#"{{"score":NaN,"text":"{text}"}}"#),
        ] {
            let whole = nan::parse(line.as_bytes()).unwrap();
            assert_eq!(load(line.as_bytes(), &mut Vec::new()), Some(whole), "{}", &line[..40]);
        }
        for line in [format!(r#"{{"{text}":"key"}}"#), format!(r#"{{"text":"{text}","text":"{text}x"}}"#)] {
            assert!(nan::parse(line.as_bytes()).is_ok());
            assert_eq!(load(line.as_bytes(), &mut Vec::new()), None, "{}", &line[..40]);
        }
        let mut not_utf8 = format!(r#"{{"text":"{text}"}}"#).into_bytes();
        not_utf8[12] = 0xff;
        assert_eq!(load(&not_utf8, &mut Vec::new()), None);
    }

    #[test]
    fn a_line_of_short_strings_is_not_skimmed() {
        assert!(skim(br#"{"id":"a","text":"short"}"#, &mut Vec::new()).is_none());
    }

    #[test]
    fn what_json_refuses_or_a_text_cannot_hold_is_left_to_the_whole_line() {
        let body = long("x");
        for bad in [
            format!("{{\"text\":\"{body}\x01\"}}"),
            format!(r#"{{"text":"{body}\q"}}"#),
            format!(r#"{{"text":"{body}\u12"}}"#),
            format!(r#"{{"text":"{body}\ud800"}}"#),
            format!(r#"{{"text":"{body}\ud800\u0041"}}"#),
            format!(r#"{{"text":"{body}\udc00"}}"#),
            format!(r#"{{"text":"{body}"#),
            format!(r#"{{"a":"{MARK}","text":"{body}"}}"#),
            format!(r#"{{"a":"\uFDD0","text":"{body}"}}"#),
        ] {
            assert!(skim(bad.as_bytes(), &mut Vec::new()).is_none(), "{}", &bad[bad.len() - 20..]);
        }
        let mut not_utf8 = format!(r#"{{"text":"{body}"}}"#).into_bytes();
        not_utf8[12] = 0xff;
        assert!(skim(&not_utf8, &mut Vec::new()).is_none());
    }

    #[test]
    fn a_stand_in_is_known_only_whole() {
        let m = [Measured { len: 1, hash: 2, within: (3, 4) }; 3];
        assert_eq!(stood_for(&format!("{MARK}2"), &m), Some(m[2]));
        assert_eq!(stood_for(&format!("{MARK}02"), &m), None);
        assert_eq!(stood_for(&format!("{MARK}3"), &m), None);
        assert_eq!(stood_for(&format!("x{MARK}1"), &m), None);
        assert!(mentions(&format!("x{MARK}1")));
    }

    /// What the readers' own parser makes of `written`, as the text of one string or none.
    fn parsed(written: &[u8]) -> Option<String> {
        let written = std::str::from_utf8(written).ok()?;
        if !(written.starts_with('"') && written.ends_with('"')) {
            return None;
        }
        match &crate::exact::js::parse(written).ok()? {
            crate::exact::Value::String(crate::exact::JsString::Utf8(text)) => Some(text.clone()),
            _ => None,
        }
    }

    /// A string read again where a listing found it written is what the readers' parser
    /// makes of it: the same text, or none where it is not one JSON string of UTF-8.
    #[test]
    fn a_written_string_reads_as_the_readers_parse_it() {
        let cases: [&[u8]; 22] = [
            br#""""#,
            br#""plain""#,
            br#""caf\u00e9 \"quoted\" \\ \/ \b\f\n\r\t""#,
            "\"caf\u{e9} \u{1F600} \u{FDD0}\"".as_bytes(),
            br#""\ud83d\ude00 a pair""#,
            br#""\ud83d alone""#,
            br#""\ude00 alone""#,
            br#""\ud83d\u0041""#,
            br#""\u00""#,
            br#""\x""#,
            b"\"a\x01b\"",
            b"\"a\x7fb\"",
            b"\"\xc3\"",
            b"\"\xc3\\u0041\"",
            b"\"\\u00c3\x83\"",
            b"\"\xff\"",
            br#""two" "strings""#,
            br#""ends" "#,
            br#""a"b""#,
            br#"unquoted"#,
            br#""open"#,
            br#""\""#,
        ];
        for written in cases {
            let got = string(written, 0);
            assert_eq!(got, parsed(written), "{}", String::from_utf8_lossy(written));
        }
        assert_eq!(string(br#""caf\u00e9""#, 5).as_deref(), Some("caf\u{e9}"));
        // Each kind of byte that ends a run, at every place in and across the blocks the
        // runs are looked for in, with runs of ASCII and of wider characters before it.
        for special in [r#"\""#, r#"\n"#, r#"\u00e9"#, r#"\ud83d\ude00"#, "\u{1}", "\u{1f}", r#"\q"#] {
            for run in ["a", "é", "€", "😀", "\u{7f}", " "] {
                for k in 0..140 {
                    let written = format!("\"{}{special}{}\"", run.repeat(k), run.repeat(140 - k));
                    let bytes = written.as_bytes();
                    assert_eq!(string(bytes, 0), parsed(bytes), "{written:?}");
                    let mut out = Vec::new();
                    let decoded = decode(bytes, 1, &mut out).map(|close| (close, out));
                    let want = parsed(bytes).map(|t| (bytes.len() - 1, t.into_bytes()));
                    assert_eq!(decoded, want, "{written:?}");
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 4000, ..Default::default() })]
        /// Any bytes between quotes, and any text written by a JSON writer, read the same.
        #[test]
        fn any_written_string_reads_as_the_readers_parse_it(
            bytes in proptest::collection::vec(proptest::prop_oneof![
                proptest::sample::select(b"\\\"u0dD8aAfF/bnrt \x01\x7f".to_vec()),
                proptest::num::u8::ANY,
            ], 0..80),
            text in "\\PC{0,80}",
        ) {
            let mut written = vec![b'"'];
            written.extend_from_slice(&bytes);
            written.push(b'"');
            proptest::prop_assert_eq!(string(&written, 0), parsed(&written));
            let json = serde_json::to_string(&text).unwrap();
            proptest::prop_assert_eq!(string(json.as_bytes(), text.len()), Some(text));
        }
    }
}
