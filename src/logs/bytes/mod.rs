//! Bytes as a loader meets them, before any format: lines of a file counted exactly, JSON as
//! Python writes it, a JSON document read as a stream, a line skimmed for a listing,
//! server-sent events and AWS event-stream frames. Nothing here knows which tool wrote them.

pub(super) mod document;
pub(super) mod eventstream;
pub(super) mod json;
pub(super) mod lines;
pub(super) mod nan;
pub(super) mod skim;
pub(super) mod sse;
