//! Where a reply's text is written in its line, as a listing found it: enough to read that
//! text again by its string alone.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use crate::logs::model::hash::text_hash;

/// A reply's text as a listing found it written in a line of its file: one JSON string,
/// the text as it is (`logs::bytes::skim`). Read again, those bytes alone are decoded, and the
/// text is taken only where it is still the one listed (its length and hash); anything else
/// (the file changed, or was never a plain file of lines) is read again through the loader.
/// A campaign's analysis reads every text again, and reading the string alone costs a
/// fraction of reading its line through the loader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// The byte offset, in its file, of the string's first byte past its opening quote.
    pub at: u64,
    /// Its bytes as written, up to the closing quote.
    pub raw: u32,
    /// The text's bytes and [`crate::logs::text_hash`], as listed.
    pub len: usize,
    pub hash: u64,
}

/// Where a text is written, without what it was as listed: what a list that keeps the
/// text's length and hash beside it keeps ([`Written::placed`] puts the two together again),
/// 16 bytes a reply where [`Written`] is 32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub at: u64,
    pub raw: u32,
}

impl Written {
    /// Where it is written.
    pub fn place(&self) -> Place {
        Place { at: self.at, raw: self.raw }
    }

    /// The text of `len` bytes and hash `hash` written at `place`.
    pub fn placed(place: Place, len: usize, hash: u64) -> Written {
        Written { at: place.at, raw: place.raw, len, hash }
    }

    /// A long string of the line at `offset`, measured by a listing's skim.
    pub(crate) fn of(offset: u64, m: &Measured) -> Option<Written> {
        Some(Written { at: offset + u64::from(m.within.0), raw: m.within.1, len: m.len, hash: m.hash })
    }

    /// The bytes it is written as, read from `file` into `buf`, with its quotes (which tell
    /// that the string is where it was); `None` where they cannot be read.
    pub(crate) fn read_written(&self, file: &mut File, buf: &mut Vec<u8>) -> Option<()> {
        let raw = usize::try_from(self.raw).ok()?;
        buf.clear();
        buf.resize(raw + 2, 0);
        file.seek(SeekFrom::Start(self.at.checked_sub(1)?)).ok()?;
        file.read_exact(buf).ok()
    }

    /// Whether `text` is the text listed: its length and hash.
    pub(crate) fn is(&self, text: &str) -> bool {
        text.len() == self.len && text_hash(text) == self.hash
    }
}

/// A long string's measure: what a listing keeps of a reply's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measured {
    /// Bytes of the string as decoded.
    pub len: usize,
    /// [`crate::logs::text_hash`] of it.
    pub hash: u64,
    /// Where it is written in its line: the byte past its opening quote, and its bytes as
    /// written up to the closing one. What it takes to read the text again alone
    /// ([`Written`]).
    pub within: (u32, u32),
}
