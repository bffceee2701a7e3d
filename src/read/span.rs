//! Positions in a reply.
//!
//! Every position bracewalk keeps is a byte offset into the reply as logged. What the
//! JavaScript pipeline logs are UTF-16 code unit offsets, and what a person reads is a line
//! and a column; both are derived here, when something is shown, never stored.

/// A half-open byte range `start..end` of a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    pub fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end
    }
}

/// Converts byte offsets of one text to UTF-16 code unit offsets (JavaScript string
/// indices) in O(1) per lookup after one pass, with a checkpoint every 256 bytes.
pub struct Utf16Index<'a>(Checkpoints<'a>);

impl<'a> Utf16Index<'a> {
    pub fn new(text: &'a str) -> Utf16Index<'a> {
        Utf16Index(Checkpoints::new(text, char::len_utf16))
    }

    /// The UTF-16 offset of byte offset `byte` (which should be a char boundary; an offset
    /// inside a character counts the whole character as before it).
    pub fn utf16(&self, byte: usize) -> usize {
        self.0.count(byte)
    }
}

/// Converts byte offsets of one text to character offsets, as [`Utf16Index`] does to UTF-16:
/// a column on a line of 200 MB costs a lookup, not a count from the line's start.
pub struct CharIndex<'a>(Checkpoints<'a>);

impl<'a> CharIndex<'a> {
    pub fn new(text: &'a str) -> CharIndex<'a> {
        CharIndex(Checkpoints::new(text, |_| 1))
    }

    /// The number of characters before byte offset `byte` (a character `byte` falls inside
    /// counts as before it).
    pub fn chars(&self, byte: usize) -> usize {
        self.0.count(byte)
    }
}

/// A count of some unit per character, at every 256-byte block of a text.
struct Checkpoints<'a> {
    text: &'a str,
    unit: fn(char) -> usize,
    /// The count at each block's first char boundary at or after the block start, with that
    /// boundary's byte offset. Empty when the text is ASCII (every count is the byte offset).
    blocks: Vec<(usize, usize)>,
}

const BLOCK: usize = 256;

impl<'a> Checkpoints<'a> {
    fn new(text: &'a str, unit: fn(char) -> usize) -> Checkpoints<'a> {
        if text.is_ascii() {
            return Checkpoints { text, unit, blocks: Vec::new() };
        }
        let mut blocks = Vec::with_capacity(text.len() / BLOCK + 1);
        let mut units = 0;
        let mut next_block = 0;
        for (i, c) in text.char_indices() {
            while i >= next_block {
                blocks.push((i, units));
                next_block += BLOCK;
            }
            units += unit(c);
        }
        while next_block <= text.len() {
            blocks.push((text.len(), units));
            next_block += BLOCK;
        }
        Checkpoints { text, unit, blocks }
    }

    fn count(&self, byte: usize) -> usize {
        if self.blocks.is_empty() {
            return byte.min(self.text.len());
        }
        let byte = byte.min(self.text.len());
        let Some(&(from, units)) = self.blocks.get(byte / BLOCK) else {
            return self.text.chars().map(self.unit).sum();
        };
        if from >= byte {
            return units;
        }
        let unit = self.unit;
        let rest: usize = match self.text.get(from..byte) {
            Some(s) => s.chars().map(unit).sum(),
            None => self.text[from..].char_indices().take_while(|(i, _)| *i < byte - from).map(|(_, c)| unit(c)).sum(),
        };
        units + rest
    }
}

/// Length in UTF-16 code units: JavaScript's `.length`.
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(char::len_utf16).sum()
}

/// 1-based line and column (in characters) of byte offset `byte`.
pub fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let byte = byte.min(text.len());
    let before = text.get(..byte).unwrap_or(text);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_offsets_agree_with_a_direct_count() {
        let text = "aé😀{".repeat(200) + "end";
        let index = Utf16Index::new(&text);
        for (i, _) in text.char_indices().chain([(text.len(), ' ')]) {
            assert_eq!(index.utf16(i), utf16_len(&text[..i]), "byte {i}");
        }
        let ascii = Utf16Index::new("abc");
        assert_eq!(ascii.utf16(2), 2);
    }

    #[test]
    fn char_offsets_agree_with_a_direct_count() {
        let text = "aé😀{".repeat(200) + "end";
        let index = CharIndex::new(&text);
        for (i, _) in text.char_indices().chain([(text.len(), ' ')]) {
            assert_eq!(index.chars(i), text[..i].chars().count(), "byte {i}");
        }
        // Inside a character: the character counts as before.
        assert_eq!(index.chars(2), 2);
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_col("ab\ncé{", 6), (2, 3));
        assert_eq!(line_col("x", 0), (1, 1));
    }
}
