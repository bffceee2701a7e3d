//! Replies of the shapes the seed's comments tell of, named by what the seed's walk makes of
//! them: the inspector's tests read them in its panes, screens and badges.

/// Issue #339: a verdict whose notes quote the contract; the walk's last object is the
/// quotation, the whole-reply reading is taken.
pub const WHOLE_REPLY_TAKEN: &str = "{ \"faithful\": false, \"problems\": [{ \"issue\": \"The row Capital reserve is missing from Table 4.\", \"severity\": \"major\" }],\n\"notes\": \"I first read the contract as { \"faithful\": true, \"problems\": [] }; it is not: a row is missing.\" }";

/// An abandoned draft cut by a restart: the walk reads the envelope that closes the reply,
/// so the walk-closed gate refuses the whole-reply reading.
pub const REFUSED_WALK_CLOSED: &str =
    "{\"html\": \"<p>draft\n{\"html\": \"<table><tr><td>1</td></tr></table>\", \"log\": \"restarted\"}";

/// A `"` before `:` inside a value: the narrow reading spans the reply, but its `html`
/// leaves a `{` open, so the self-contained gate refuses it; nothing else reads.
pub const REFUSED_NOT_SELF_CONTAINED: &str =
    "{\"html\":\"<p>Use { to open; \": 5 units</p><h3>Budget</h3>\",\"log\":\"Page 4.\",\"suggested_agent\":null}";

/// An edit list cut off by the output ceiling: two whole entries before the cut.
pub const TRUNCATED_ARRAY: &str = "{\"edits\": [{\"find\": \"Captial\", \"replace\": \"Capital\"}, {\"find\": \"recieved\", \"replace\": \"received\"}, {\"find\": \"adopte";
