//! Small flat objects, read without the validator's frames.
//!
//! Most braces a walk visits open a small flat object: a record of a page of them (`{"a":1}`),
//! or a few bytes of prose that fail a key or two in. Such an object is shorter than anything
//! the memo keeps ([`MEMO_MIN`]), so reading it straight, byte by byte within a window of
//! [`MAX`] bytes, leaves no later question unanswered, and costs no frame, lookup or entry.
//! What it cannot decide by ASCII alone within the window (an escape under the strict
//! reading, a nested value, JavaScript whitespace beyond ASCII after a quote) it leaves to the
//! validator: [`Flat::Unknown`].
//!
//! The walk asks the seed's two readings of such an object at once
//! ([`strict_then_wide`]): the wide one departs from the strict one only at the string right
//! before the strict failure, so it is read on from that string's quote.

use crate::exact::lex::{past_json_whitespace as ws, scalar_end};
use crate::exact::repair::{after_quote_ascii, escaped_before_plain, is_escape};

use super::{MEMO_MIN, Mode};

/// What a reading of a small flat object makes of it, read without a validator.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Flat {
    /// It reads, and ends here.
    Reads(usize),
    /// It fails at this token, which followed a key or a value, the string before it closing
    /// at this quote if it was one: what the validator would say, and how it would say what
    /// the failure carries.
    Fails(usize, Slot, Option<usize>),
    /// Something else: the validator's to read.
    Unknown,
}

/// This mode's reading of a small flat object at `start`: an object of at most [`MAX`]
/// bytes whose keys and values are strings, numbers or literals.
pub(super) fn object(bytes: &[u8], start: usize, mode: Mode) -> Flat {
    let near = window(bytes, start);
    let i = ws(near, start + 1);
    if near.get(i) == Some(&b'}') {
        return Flat::Reads(i + 1);
    }
    members(near, i, mode, Slot::Key)
}

/// Where a flat reading goes on from, or what its failing token followed: a key, or a
/// member's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    Key,
    Value,
}

/// [`object`] on from the string or value at `i`, in `slot`.
#[inline(always)]
fn members(near: &[u8], mut i: usize, mode: Mode, mut slot: Slot) -> Flat {
    loop {
        if slot == Slot::Key {
            if near.get(i) != Some(&b'"') {
                return Flat::Unknown;
            }
            let Some(key_end) = string(near, i + 1, mode, true) else { return Flat::Unknown };
            i = match colon(near, key_end) {
                Ok(value) => value,
                Err(flat) => return flat,
            };
        }
        let (end, quote) = match near.get(i) {
            Some(b'"') => match string(near, i + 1, mode, false) {
                Some(end) => (end, Some(end - 1)),
                None => return Flat::Unknown,
            },
            Some(_) => match scalar_end(near, i) {
                Ok(end) => (end, None),
                Err(_) => return Flat::Unknown,
            },
            None => return Flat::Unknown,
        };
        i = match comma(near, end, quote) {
            Ok(key) => key,
            Err(flat) => return flat,
        };
        slot = Slot::Key;
    }
}

/// After the key ending at `end`: `Ok` where its value starts, past the colon.
#[inline(always)]
fn colon(near: &[u8], end: usize) -> Result<usize, Flat> {
    let i = ws(near, end);
    match near.get(i) {
        Some(b':') => Ok(ws(near, i + 1)),
        Some(_) => Err(Flat::Fails(i, Slot::Key, Some(end - 1))),
        None => Err(Flat::Unknown),
    }
}

/// After the value ending at `end` (a string closing at `quote`, if it was one): `Ok` where
/// the next key starts, past the comma, or `Err` with the reading's end.
#[inline(always)]
fn comma(near: &[u8], end: usize, quote: Option<usize>) -> Result<usize, Flat> {
    let i = ws(near, end);
    match near.get(i) {
        Some(b',') => Ok(ws(near, i + 1)),
        Some(b'}') => Err(Flat::Reads(i + 1)),
        Some(_) => Err(Flat::Fails(i, Slot::Value, quote)),
        None => Err(Flat::Unknown),
    }
}

/// The strict reading of a small flat object at `start`, whose first key opens at `key`,
/// and, where it fails, the wide one, read together. `Some(Some((end, wide)))` when one
/// reads, `Some(None)` when neither does, `None` when this is not a flat object (as
/// [`object`] says).
///
/// The wide reading makes the strict one's tokens up to the first string whose closing quote
/// the repair reads past (or may: where ASCII does not decide it). A string the strict reading
/// reads on after is followed by a `:`, `,` or `}`, which the repair closes it at; so the only
/// string the repair can read past is the one right before the strict failure. The wide
/// reading reads on from that quote, or fails where the strict one does.
#[inline(always)]
pub(crate) fn strict_then_wide(bytes: &[u8], start: usize, key: usize) -> Option<Option<(usize, bool)>> {
    let near = window(bytes, start);
    let (at, after, quote) = match members(near, key, Mode::Strict, Slot::Key) {
        Flat::Reads(end) => return Some(Some((end, false))),
        Flat::Unknown => return None,
        Flat::Fails(_, _, None) => return Some(None),
        Flat::Fails(at, after, Some(quote)) => (at, after, quote),
    };
    // The token the strict reading failed at, where it follows the quote at once, mostly says
    // that the repair reads on past it.
    let passed = at == quote + 1 && near.get(at).is_some_and(|&b| escaped_before_plain(b));
    if !passed && after_quote_ascii(near, quote)?.closes(true) {
        return Some(None);
    }
    // Up to that quote the string holds no backslash and no control character (the strict
    // flat reading leaves those to the validator), so the repair reads it alike.
    let in_key = after == Slot::Key;
    let end = string(near, quote + 1, Mode::Wide, in_key)?;
    let on = if in_key {
        colon(near, end).map(|value| (value, Slot::Value))
    } else {
        comma(near, end, Some(end - 1)).map(|key| (key, Slot::Key))
    };
    let wide = match on {
        Ok((i, slot)) => members(near, i, Mode::Wide, slot),
        Err(flat) => flat,
    };
    match wide {
        Flat::Reads(end) => Some(Some((end, true))),
        Flat::Fails(..) => Some(None),
        Flat::Unknown => None,
    }
}

/// Where the string read on from `j` (past its opening quote, or past a quote the mode reads
/// as a character) ends in this mode, where that is decided within `near` by ASCII alone:
/// `None` past `near`, at a control character the mode refuses, or where JavaScript
/// whitespace beyond ASCII could decide a quote.
#[inline(always)]
fn string(near: &[u8], mut j: usize, mode: Mode, key: bool) -> Option<usize> {
    loop {
        // A byte at a time: these strings are a few bytes long.
        while near.get(j).is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20) {
            j += 1;
        }
        match (near.get(j)?, mode) {
            (b'"', Mode::Strict) => return Some(j + 1),
            (b'"', _) => {
                if after_quote_ascii(near, j)?.closes(mode == Mode::Wide || key) {
                    return Some(j + 1);
                }
                j += 1;
            }
            // The repair keeps an escape JSON allows and reads any other backslash as itself
            // (either way the byte after the backslash means nothing, unless it is the quote
            // of `\"`).
            (b'\\', Mode::Wide | Mode::Narrow) => {
                near.get(j + 1)?;
                j += if is_escape(near, j) { 2 } else { 1 };
            }
            (b'\n' | b'\r' | b'\t', Mode::Wide | Mode::Narrow) => j += 1,
            _ => return None,
        }
    }
}

/// The longest object [`object`] reads: below [`MEMO_MIN`], as the validator stores no
/// shorter outcome.
const MAX: usize = MEMO_MIN - 1;

/// The bytes a flat reading of the object at `start` may look at: nothing past them is looked
/// at, so its cost is bounded whatever follows.
#[inline(always)]
fn window(bytes: &[u8], start: usize) -> &[u8] {
    &bytes[..start.saturating_add(MAX).min(bytes.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A flat reading looks at nothing past its window, so a walk's flat readings cost
        /// at most [`MAX`] bytes a brace, whatever follows: the same text cut at the window's
        /// end reads the same.
        #[test]
        fn a_flat_reading_looks_nothing_past_its_window(
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["{", "}", "\"", ":", ",", "a", "1", " ", "\\", "x\"y", "\"b\""]),
                0..40,
            ),
        ) {
            let text = parts.concat();
            let bytes = text.as_bytes();
            for start in (0..bytes.len()).filter(|&j| bytes[j] == b'{') {
                // Cut here, not by `window`: it is the window that is checked.
                let cut = &bytes[..bytes.len().min(start + MAX)];
                let key = ws(bytes, start + 1);
                if bytes.get(key) == Some(&b'"') {
                    proptest::prop_assert_eq!(strict_then_wide(bytes, start, key), strict_then_wide(cut, start, key));
                }
                for mode in [Mode::Strict, Mode::Wide, Mode::Narrow] {
                    proptest::prop_assert_eq!(object(bytes, start, mode), object(cut, start, mode));
                }
            }
        }
    }
}
