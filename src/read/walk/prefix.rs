//! `readArrayPrefix`: the complete entries of a cut-off array field, what a reply cut off
//! inside `"edits": [` still yields.

use crate::read::lex;
use crate::read::value::Value;

use super::options::Readings;
use super::{Readers, read_object_at};

/// `readArrayPrefix(text, field)`: the complete entries of the LAST `"field": [` array in
/// the reply, and whether its `]` was reached.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayPrefix {
    pub entries: Vec<Value>,
    pub closed: bool,
    /// Byte offset just past the array's `[`.
    pub open: usize,
}

pub fn read_array_prefix(text: &str, field: &str) -> Option<ArrayPrefix> {
    let mut entries = Vec::new();
    let (open, closed) = entries_of(text, field, &mut |i| {
        let (v, end) = read_object_at(text, i)?;
        entries.push(v);
        Some(end)
    })?;
    Some(ArrayPrefix { entries, closed, open })
}

/// How many complete entries [`read_array_prefix`] recovers, and whether the `]` was
/// reached, without building them.
pub fn count_array_prefix(text: &str, field: &str) -> Option<(usize, bool)> {
    let mut n = 0;
    // One set of readers for every entry: what reading one learned of the text (a string
    // that never closes, above all) the next need not learn again.
    let mut readers = Readers::new(text);
    let (_, closed) = entries_of(text, field, &mut |i| {
        let (end, _) = readers.read(i, Readings::StrictThenWide)?;
        n += 1;
        Some(end)
    })?;
    Some((n, closed))
}

/// The entries of the last `"field": [` array, each handed to `entry` at its `{` (which
/// reads it and says where it ends, or `None` where it does not read): where the array
/// opened, and whether its `]` was reached.
fn entries_of(text: &str, field: &str, entry: &mut dyn FnMut(usize) -> Option<usize>) -> Option<(usize, bool)> {
    let bytes = text.as_bytes();
    let open = last_array_key(text, field)?;
    let mut i = open;
    loop {
        while i < bytes.len() {
            if bytes[i] == b',' {
                i += 1;
            } else if let Some(n) = lex::whitespace_len_at(text, i) {
                i += n;
            } else {
                break;
            }
        }
        // A `]` is the list the model finished; anything else that is not an entry is where
        // reading stops, the cut itself or a shape this cannot use.
        if bytes.get(i) != Some(&b'{') {
            return Some((open, bytes.get(i) == Some(&b']')));
        }
        match entry(i) {
            None => return Some((open, false)),
            Some(end) => i = end,
        }
    }
}

/// The offset just past the `[` of the last match of `"field"\s*:\s*\[` (matches taken left
/// to right without overlap, as a global regex does) not preceded by a backslash.
fn last_array_key(text: &str, field: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let needle = format!("\"{field}\"");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut open = None;
    let mut from = 0;
    while let Some(found) = bytes.get(from..).and_then(|t| finder.find(t)) {
        let at = from + found;
        let mut j = at + needle.len();
        let skip_ws = |j: &mut usize| {
            while let Some(n) = lex::whitespace_len_at(text, *j) {
                *j += n;
            }
        };
        skip_ws(&mut j);
        let matched = bytes.get(j) == Some(&b':') && {
            j += 1;
            skip_ws(&mut j);
            bytes.get(j) == Some(&b'[')
        };
        if matched {
            if at == 0 || bytes[at - 1] != b'\\' {
                open = Some(j + 1);
            }
            from = j + 1;
        } else {
            from = at + 1;
        }
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_prefix_reads_the_entries_that_arrived() {
        let t = r#"{"edits":[{"a":1},{"b":2},{"c":"#;
        let p = read_array_prefix(t, "edits").unwrap();
        assert_eq!(p.entries.len(), 2);
        assert!(!p.closed);
        assert_eq!(count_array_prefix(t, "edits"), Some((2, false)));
        let p = read_array_prefix(r#"{"edits" : [ {"a":1} ] , "x""#, "edits").unwrap();
        assert!(p.closed);
        assert!(read_array_prefix(r#"{"text": "\"edits\":[{}]"}"#, "edits").is_none());
        assert!(read_array_prefix("none", "edits").is_none());
    }
}
