//! Where the candidates are: the next `{`, and the next one that may open an object, with
//! brace-laden text stepped over a word at a time rather than a brace at a time.

use std::ops::Range;

use crate::exact::lex;

pub(super) fn find_brace(text: &str, from: usize) -> Option<usize> {
    let rest = text.as_bytes().get(from..)?;
    // On brace-laden text the next brace is usually right here, or within a word; a search
    // call costs more.
    if rest.first() == Some(&b'{') {
        return Some(from);
    }
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    if let Some(&word) = rest.first_chunk::<8>() {
        let x = u64::from_le_bytes(word) ^ (LO * u64::from(b'{'));
        // The lowest flagged byte is exact; higher ones may be false alarms.
        let found = x.wrapping_sub(LO) & !x & HI;
        if found != 0 {
            return Some(from + (found.trailing_zeros() / 8) as usize);
        }
        return memchr::memchr(b'{', rest.get(8..)?).map(|i| i + from + 8);
    }
    rest.iter().position(|&b| b == b'{').map(|i| i + from)
}

/// The first `{` at or after `from` that may open an object: one whose first token is a key
/// or its `}`. Brace-laden text (`{{{`, `{[{[`) is stepped over here without a reader.
pub(super) fn find_candidate(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = find_brace(text, from)?;
    loop {
        match bytes.get(at + 1) {
            Some(b'"' | b'}') => return Some(at),
            // A brace before a brace opens no object: on to the last of the run.
            Some(b'{') => at = last_of_brace_run(bytes, at + 1),
            Some(b' ' | b'\t' | b'\n' | b'\r') if matches!(bytes.get(first_token(bytes, at)), Some(b'"' | b'}')) => {
                return Some(at);
            }
            _ => at = find_brace(text, at + 2)?,
        }
    }
}

/// The last `{` of the run of them that starts with the one at `at`, a word at a time.
pub(super) fn last_of_brace_run(bytes: &[u8], mut at: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while let Some(&word) = bytes.get(at + 1..).and_then(|rest| rest.first_chunk::<8>()) {
        let x = u64::from_le_bytes(word) ^ (LO * u64::from(b'{'));
        // The high bit of every byte that is not a brace: exact, as no sum crosses a byte.
        let other = ((x & !HI).wrapping_add(!HI) | x) & HI;
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at + 1) == Some(&b'{') {
        at += 1;
    }
    at
}

/// The first candidate at or after `from` not known to fail: [`find_candidate`]'s, past
/// every `{` whose first key lies in `failing` ([`Readers::failing_keys`]). Such a candidate
/// fails under every reading ([`Readers::read_object`] turns it away), so the walk would
/// only descend past it: on `"{"{"{`… that is every brace after the first.
#[inline]
pub(super) fn next_candidate(text: &str, from: usize, failing: &Range<usize>) -> Option<usize> {
    let at = find_candidate(text, from)?;
    // (A key lies after its brace: none of a brace at or past the end is in the range.)
    if at < failing.end {
        return past_failing_keys(text.as_bytes(), at, failing.clone());
    }
    Some(at)
}

/// [`next_candidate`] from the candidate at `at`, before the end of `failing`.
#[inline(never)]
pub(super) fn past_failing_keys(bytes: &[u8], mut at: usize, failing: Range<usize>) -> Option<usize> {
    loop {
        let first = first_token(bytes, at);
        match bytes.get(first) {
            Some(b'"') if failing.contains(&first) => {}
            Some(b'"' | b'}') => return Some(at),
            _ => {}
        }
        // The next brace: close by on brace-laden text, where a search call costs more.
        at += 1;
        let near = bytes.len().min(at + 8);
        while at < near && bytes.get(at) != Some(&b'{') {
            at += 1;
        }
        if bytes.get(at) != Some(&b'{') {
            at += memchr::memchr(b'{', bytes.get(at..)?)?;
        }
    }
}

/// Where the first token after the `{` at `start` is, past JSON whitespace.
#[inline]
pub(super) fn first_token(bytes: &[u8], start: usize) -> usize {
    lex::past_json_whitespace(bytes, start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A run of braces ends at its last brace, whatever the bytes around it.
        #[test]
        fn a_brace_run_ends_at_its_last_brace(bytes in proptest::collection::vec(
            proptest::sample::select(vec![b'{', b'{', b'{', b'z', 0xfb, 0x7b ^ 0x80, 0x00, b'"']), 0..=40,
        )) {
            for at in (0..bytes.len()).filter(|&i| bytes[i] == b'{') {
                let last = at + bytes[at..].iter().take_while(|&&b| b == b'{').count() - 1;
                proptest::prop_assert_eq!(last_of_brace_run(&bytes, at), last);
            }
        }
    }
}
