//! A reader's id: its place in the catalogue of a run.

/// A reader of a [`Catalogue`](super::Catalogue), by its place in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReaderId(pub(super) u16);

impl ReaderId {
    /// Seed 000 `extractJson`: the reader the others are compared with.
    pub const LAST_WINS: ReaderId = ReaderId(0);
    /// Seed 001 `extractJsonObject`, parsed as its caller parses it.
    pub const FIRST_WINS: ReaderId = ReaderId(1);
    /// The seed's walk with no repair of any kind.
    pub const STRICT_ONLY: ReaderId = ReaderId(2);

    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}
