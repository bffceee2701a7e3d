//! Files followed as they change: one file whose reads return only what is new ([`tail`]),
//! and every path opened watched (native events, or polling) with each change pushed to a
//! sink ([`follow`]). Above the loader's front, which reads what changed.

pub(super) mod follow;
pub(super) mod tail;
