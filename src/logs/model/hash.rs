//! The hash a listing keeps of a reply's text, to tell it changed when it is read again
//! (xxh3: some 10 GB/s, next to nothing beside reading the text).

/// The hash a listing keeps of a reply's text.
pub fn text_hash(text: &str) -> u64 {
    hash_bytes(text.as_bytes())
}

/// [`text_hash`] of text still in bytes.
pub(crate) fn hash_bytes(text: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text)
}
