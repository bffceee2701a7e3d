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
        Utf16Index(Checkpoints::new(text, utf16_len))
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
        CharIndex(Checkpoints::new(text, |s| s.chars().count()))
    }

    /// The number of characters before byte offset `byte` (a character `byte` falls inside
    /// counts as before it).
    pub fn chars(&self, byte: usize) -> usize {
        self.0.count(byte)
    }
}

/// A count of some unit (characters, UTF-16 code units) at every 256-byte block of a text.
struct Checkpoints<'a> {
    text: &'a str,
    /// The count of a run of the text.
    measure: fn(&str) -> usize,
    /// The count at each block's first char boundary at or after the block start, with that
    /// boundary's byte offset. Empty when the text is ASCII (every count is the byte offset).
    blocks: Vec<(usize, usize)>,
}

const BLOCK: usize = 256;

impl<'a> Checkpoints<'a> {
    fn new(text: &'a str, measure: fn(&str) -> usize) -> Checkpoints<'a> {
        if text.is_ascii() {
            return Checkpoints { text, measure, blocks: Vec::new() };
        }
        let mut blocks = Vec::with_capacity(text.len() / BLOCK + 1);
        let (mut units, mut at) = (0, 0);
        for start in (0..=text.len()).step_by(BLOCK) {
            let boundary = ceil_boundary(text, start);
            units += measure(&text[at..boundary]);
            blocks.push((boundary, units));
            at = boundary;
        }
        Checkpoints { text, measure, blocks }
    }

    fn count(&self, byte: usize) -> usize {
        let byte = byte.min(self.text.len());
        if self.blocks.is_empty() {
            return byte;
        }
        let Some(&(from, units)) = self.blocks.get(byte / BLOCK) else {
            return (self.measure)(self.text);
        };
        if from >= byte {
            return units;
        }
        // A character `byte` falls inside counts as before it.
        units + (self.measure)(&self.text[from..ceil_boundary(self.text, byte)])
    }
}

/// The smallest char boundary of `s` at or after `i`.
fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

/// Length in UTF-16 code units: JavaScript's `.length`.
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    // One unit per character, two for those outside the Basic Multilingual Plane (the ones
    // UTF-8 writes in four bytes). The standard library counts characters in bulk; the
    // four-byte lead bytes are counted eight at a time.
    s.chars().count() + four_byte_leads(s.as_bytes())
}

/// How many bytes of `bytes` are 0xF0 or above: in UTF-8, the first bytes of four-byte
/// characters.
fn four_byte_leads(bytes: &[u8]) -> usize {
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut n = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // Bit 7 of each byte ends up set iff its top four bits are.
        n += (x & (x << 1) & (x << 2) & (x << 3) & HI).count_ones() as usize;
    }
    n + chunks.remainder().iter().filter(|&&b| b >= 0xF0).count()
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
    fn utf16_length_counts_astral_characters_twice() {
        for t in ["", "abc", "é", "😀", "a😀b€c\u{10FFFF}", &"xé😀€".repeat(100)] {
            assert_eq!(utf16_len(t), t.encode_utf16().count(), "{t:?}");
        }
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_col("ab\ncé{", 6), (2, 3));
        assert_eq!(line_col("x", 0), (1, 1));
    }
}
