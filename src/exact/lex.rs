//! The lexical layer the readers share: JavaScript's whitespace (what `trim()` strips and
//! `\s` matches), and where a JSON string's next special byte, a number and a literal end.
//! Everything here looks at bytes and says where; nothing builds a value. [`super::js`]
//! parses on top of it, [`super::repair`] decides its quotes with it, and the memo's
//! validators and the flat reader read their tokens with it.
//!
//! Whitespace is where a port goes wrong silently: ECMAScript's WhiteSpace and
//! LineTerminator sets include U+FEFF and exclude U+0085; Rust's `char::is_whitespace`
//! (Unicode `White_Space`) does the opposite on both.

/// ECMAScript WhiteSpace ∪ LineTerminator: what `trim()` strips and `\s` matches.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

/// The byte range `s.trim()` keeps.
pub fn trim_range(s: &str) -> (usize, usize) {
    let start = s.len() - s.trim_start_matches(is_js_whitespace).len();
    let end = s.trim_end_matches(is_js_whitespace).len();
    (start, end.max(start))
}

/// `s.trim()`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `s.trimEnd()`.
pub fn trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_whitespace)
}

/// The JavaScript-whitespace character starting at byte `i`, if there is one: its length.
pub fn whitespace_len_at(s: &str, i: usize) -> Option<usize> {
    let b = *s.as_bytes().get(i)?;
    if b < 0x80 {
        return matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ').then_some(1);
    }
    let c = s.get(i..)?.chars().next()?;
    is_js_whitespace(c).then(|| c.len_utf8())
}

/// Where the run of JavaScript whitespace that ends at byte `end` begins ([`whitespace_len_at`]
/// read backwards, a character at a time).
pub fn whitespace_start_before(s: &str, mut end: usize) -> usize {
    let bytes = s.as_bytes();
    while end > 0 {
        // The character that ends at `end`: back over its continuation bytes (three at most).
        let mut start = end - 1;
        while start > 0 && end - start < 4 && bytes[start] & 0xC0 == 0x80 {
            start -= 1;
        }
        match whitespace_len_at(s, start) {
            Some(n) if start + n == end => end = start,
            _ => break,
        }
    }
    end
}

/// The first position at or after `i` that is not JSON's whitespace (space, tab, line feed,
/// carriage return), or the length.
#[inline(always)]
pub(crate) fn past_json_whitespace(bytes: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(i) {
        i += 1;
    }
    i
}

/// The first position at or after `from` holding a byte that means something inside a JSON
/// string (`"`, `\\`, or a control character below 0x20), or the length when none does.
/// Strings are most of what a reply is, and nearly all of a string is bytes that mean
/// nothing: a short stretch is looked at eight bytes at a time, a long one is searched for
/// its next quote or backslash with the vector search `memchr` has, and the stretch before
/// that is checked for control characters in blocks the compiler vectorizes.
#[inline]
pub fn next_string_special(bytes: &[u8], from: usize) -> usize {
    // Keys and short values end within a few words; a search call would cost more.
    let near = swar_special(bytes, from, NEAR_WORDS);
    if near < bytes.len().min(from + 8 * NEAR_WORDS) {
        return near;
    }
    far_string_special(bytes, near)
}

const NEAR_WORDS: usize = 8;

/// [`next_string_special`] over a long stretch.
#[inline(never)]
fn far_string_special(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    let stop = bytes.get(i..).and_then(|rest| memchr::memchr2(b'"', b'\\', rest)).map_or(bytes.len(), |k| i + k);
    // A control character before that quote or backslash comes first.
    const BLOCK: usize = 64;
    while let Some(block) = bytes.get(i..(i + BLOCK).min(stop)).filter(|b| !b.is_empty()) {
        if block.iter().fold(false, |seen, &b| seen | (b < 0x20))
            && let Some(k) = block.iter().position(|&b| b < 0x20)
        {
            return i + k;
        }
        i += block.len();
    }
    stop
}

/// [`next_string_special`] over at most `words` eight-byte words from `from`: the position
/// found, or where the search stopped (a multiple of eight past `from`, or the length).
#[inline(always)]
fn swar_special(bytes: &[u8], from: usize, words: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    for _ in 0..words {
        let Some(chunk) = bytes.get(i..i + 8) else {
            // Fewer than eight bytes are left: look at them one by one.
            return bytes
                .get(i..)
                .and_then(|r| r.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20))
                .map_or(bytes.len(), |k| i + k);
        };
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let quote = x ^ (LO * u64::from(b'"'));
        let backslash = x ^ (LO * u64::from(b'\\'));
        // The lowest flagged byte of each test is exact; higher ones may be false alarms.
        let found = (x.wrapping_sub(LO * 0x20) & !x & HI)
            | (quote.wrapping_sub(LO) & !quote & HI)
            | (backslash.wrapping_sub(LO) & !backslash & HI);
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// Appends `text[from..to]` to `out`: a byte of ASCII pushed as itself, where escapes come
/// thick and a copy call costs more than the byte.
#[inline(always)]
pub(crate) fn push_run(out: &mut String, text: &str, from: usize, to: usize) {
    match text.as_bytes().get(from..to) {
        Some([]) => {}
        Some(&[b]) if b.is_ascii() => out.push(char::from(b)),
        _ => out.push_str(text.get(from..to).unwrap_or_default()),
    }
}

/// Where the JSON number at `at` ends (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`),
/// or where it stops being one.
pub(crate) fn number_end(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let digits = |i: &mut usize| {
        let from = *i;
        while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - from
    };
    let mut i = at;
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return Err(i),
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return Err(i);
        }
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return Err(i);
        }
    }
    Ok(i)
}

/// The character a one-character JSON escape (`\\` and this byte) stands for.
pub(crate) fn simple_escape(e: u8) -> Option<u8> {
    Some(match e {
        b'"' | b'\\' | b'/' => e,
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        _ => return None,
    })
}

/// Where escapes come thick (a page's `\"` by the hundred, `":"` repeated), a byte of text
/// costs less than the call that would copy it: these two step through such a stretch a byte
/// at a time into a buffer on the stack and append it to the string at once. `String` has no
/// safe way to take bytes one by one short of a capacity and UTF-8 check each; the stretch is
/// ASCII, checked once as the buffer is appended.
const DENSE_BLOCK: usize = 256;

/// Plain bytes in a row after which a dense stretch is over and the search takes it back.
const DENSE_PLAIN: usize = 8;

/// Decodes, from the escape at `at`, the one-character escapes and the plain ASCII bytes
/// between them into `out`, while escapes come within [`DENSE_PLAIN`] bytes of each other;
/// stops before anything else (a quote, a control, another escape, a byte past ASCII). Returns
/// where it stopped, never inside an escape or a character.
pub(crate) fn unescape_dense(bytes: &[u8], mut at: usize, out: &mut String) -> usize {
    let mut buf = [0u8; DENSE_BLOCK];
    let (mut n, mut plain) = (0, 0);
    while let Some(slot) = buf.get_mut(n) {
        match bytes.get(at) {
            Some(b'\\') => match bytes.get(at + 1).and_then(|&e| simple_escape(e)) {
                Some(c) => {
                    *slot = c;
                    at += 2;
                    plain = 0;
                }
                None => break,
            },
            Some(&b) if (0x20..0x80).contains(&b) && b != b'"' && plain < DENSE_PLAIN => {
                *slot = b;
                at += 1;
                plain += 1;
            }
            _ => break,
        }
        n += 1;
    }
    out.push_str(std::str::from_utf8(buf.get(..n).unwrap_or_default()).unwrap_or_default());
    at
}

/// Writes, from `at`, the ASCII bytes of `bytes` as the inside of a JSON string, the ones
/// JSON escapes escaped (`\"`, `\\`, the short escapes, `\u00xx`), while those come within
/// [`DENSE_PLAIN`] bytes of each other; stops before a byte past ASCII. Returns where it
/// stopped.
pub(crate) fn escape_dense(bytes: &[u8], mut at: usize, out: &mut String) -> usize {
    let mut buf = [0u8; DENSE_BLOCK + 8];
    let (mut n, mut plain) = (0, 0);
    // Each byte is written as the eight bytes of its table word, of which the first `len`
    // count: one store, where one of the byte's own length would be a call, and a table is
    // one load where telling the escapes apart was a branch each. The block has room past
    // its end for the last word's unused bytes.
    while let Some(&b) = bytes.get(at) {
        let Some(&(word, len)) = WRITTEN.get(usize::from(b)) else { break };
        // Plain bytes in a row: the stretch is over past a few of them.
        plain = if len == 1 { plain + 1 } else { 0 };
        if plain > DENSE_PLAIN {
            break;
        }
        let Some(room) = buf.get_mut(n..n + 8).and_then(|r| <&mut [u8; 8]>::try_from(r).ok()) else { break };
        *room = word;
        n += usize::from(len);
        at += 1;
    }
    out.push_str(std::str::from_utf8(buf.get(..n).unwrap_or_default()).unwrap_or_default());
    at
}

/// Each ASCII byte as written inside a JSON string ([`escape_of`]): its bytes, and how many.
const WRITTEN: [([u8; 8], u8); 128] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut t = [([0u8; 8], 1u8); 128];
    let mut b = 0;
    while b < 128 {
        t[b] = match ESCAPES[b] {
            0 => ([b as u8, 0, 0, 0, 0, 0, 0, 0], 1),
            b'u' => ([b'\\', b'u', b'0', b'0', HEX[b >> 4], HEX[b & 15], 0, 0], 6),
            e => ([b'\\', e, 0, 0, 0, 0, 0, 0], 2),
        };
        b += 1;
    }
    t
};

/// What follows the backslash where JSON (and `JSON.stringify`) escapes the byte in a string:
/// `"`, `\\`, a short escape's letter, or `u` for a control written `\u00xx`; `None` for a
/// byte written as itself.
#[inline]
pub(crate) fn escape_of(b: u8) -> Option<u8> {
    ESCAPES.get(usize::from(b)).copied().filter(|&e| e != 0)
}

/// [`escape_of`] as a table, 0 for a byte written as itself.
const ESCAPES: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut c = 0;
    while c < 0x20 {
        t[c] = b'u';
        c += 1;
    }
    t[0x08] = b'b';
    t[0x0c] = b'f';
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// `true`, `false`, `null` or a number at `at`: where it ends, or where it fails.
pub(crate) fn scalar_end(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let rest = bytes.get(at..).unwrap_or_default();
    let word: &[u8] = match rest {
        // A one-digit number, the commonest in small records, ends at once.
        [b'0'..=b'9', next, ..] if !matches!(next, b'0'..=b'9' | b'.' | b'e' | b'E') => return Ok(at + 1),
        [b't', ..] => b"true",
        [b'f', ..] => b"false",
        [b'n', ..] => b"null",
        _ => b"",
    };
    if !word.is_empty() {
        return if rest.starts_with(word) { Ok(at + word.len()) } else { Err(at) };
    }
    number_end(bytes, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Every way of finding the next special byte (a word at a time, by vector search,
        /// in blocks) finds the first one, wherever the search starts and however far off.
        #[test]
        fn the_next_special_byte_is_the_first(
            body in proptest::collection::vec(
                proptest::prop_oneof![8 => 0x20u8..0x7f, 1 => proptest::sample::select(vec![b'"', b'\\', 0, 0x1f, b'\n', 0x80, 0xff])],
                0..400,
            ),
            from in 0usize..400,
            plain in 0usize..300,
        ) {
            // A long run with nothing in it first, so that the far search is reached too.
            let mut bytes = vec![b'a'; plain];
            bytes.extend(body);
            let from = from.min(bytes.len());
            let naive = bytes[from..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).map_or(bytes.len(), |k| from + k);
            proptest::prop_assert_eq!(next_string_special(&bytes, from), naive);
        }
    }

    #[test]
    fn whitespace_is_ecmascripts_not_unicodes() {
        for c in [
            '\u{FEFF}', '\u{A0}', '\u{1680}', '\u{2000}', '\u{200A}', '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}',
            '\u{3000}', '\u{0B}', '\u{0C}',
        ] {
            assert!(is_js_whitespace(c), "{c:?} is JS whitespace");
        }
        for c in ['\u{85}', '\u{180E}', '\u{200B}', 'a', '\u{1C}'] {
            assert!(!is_js_whitespace(c), "{c:?} is not JS whitespace");
        }
        assert_eq!(trim("\u{FEFF} {} \u{85}"), "{} \u{85}");
        assert_eq!(trim_end("x\u{3000}\u{2029}"), "x");
        assert_eq!(trim_range("  "), (2, 2));
    }
}
