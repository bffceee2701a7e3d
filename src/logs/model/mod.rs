//! What loading produces and how it is asked: a reply with its metadata, a call that left no
//! reply, a diagnostic with its place, where a reply's text is written, the options a user
//! gives. The lowest floor of the loading layer: it reads no file and knows no format.

pub(super) mod diagnostic;
pub(super) mod hash;
pub(super) mod names;
pub(super) mod options;
pub(super) mod reply;
pub(super) mod written;
