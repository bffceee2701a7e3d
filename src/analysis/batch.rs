//! How many replies are read at once: the batches `scan` reads in parallel and those of the
//! inspector's readings thread are filled alike.

/// Replies per batch: enough to keep every core busy, few enough that a batch of long
/// replies is a few megabytes.
pub const REPLIES: usize = 256;
/// A batch is full once its replies hold this many bytes of text.
pub const BYTES: usize = 16 << 20;

/// A batch being filled: its replies and the bytes of their texts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Filling {
    replies: usize,
    bytes: usize,
}

impl Filling {
    /// One more reply, of `bytes` of text.
    pub fn add(&mut self, bytes: usize) {
        self.replies += 1;
        self.bytes += bytes;
    }

    /// Whether the batch holds [`REPLIES`] replies, or [`BYTES`] of text.
    pub fn is_full(&self) -> bool {
        self.replies >= REPLIES || self.bytes >= BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_full_at_its_count_of_replies_or_of_bytes() {
        let mut by_count = Filling::default();
        for _ in 1..REPLIES {
            by_count.add(10);
        }
        assert!(!by_count.is_full());
        by_count.add(10);
        assert!(by_count.is_full());
        let mut by_bytes = Filling::default();
        by_bytes.add(BYTES - 1);
        assert!(!by_bytes.is_full());
        by_bytes.add(1);
        assert!(by_bytes.is_full());
    }
}
