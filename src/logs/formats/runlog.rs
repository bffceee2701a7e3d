//! The document pipeline's records: run-log events (read by `pipeline`, which follows a
//! run's context across its lines), and the bench harness's ledger lines and run files,
//! which are context for the run logs beside them.

use serde_json::{Map, Value};

use super::shape::{Claim, Shape};
use crate::logs::formats::fields::has;

/// A run-log event (`ts` and `type`), a ledger line, a run's `meta.json`, `status.json` or
/// `diagnostics.json`.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    if o.get("type").is_some_and(Value::is_string) && o.get("ts").is_some_and(Value::is_string) {
        return Some(Claim::certain(Shape::RunLogEvent));
    }
    if has(o, "id") && o.contains_key("outcome") && (o.contains_key("session_id") || o.contains_key("at")) {
        // `meta.json` carries the same three fields and more; its `sha256` tells them apart.
        let meta = o.contains_key("sha256") || o.contains_key("polls");
        return Some(Claim::likely(if meta { Shape::BenchContext } else { Shape::Ledger }));
    }
    if (o.contains_key("sha256") && o.contains_key("outcome"))
        || (has(o, "session_id") && (o.contains_key("model_calls") || o.contains_key("in_flight")))
        || (has(o, "status") && o.contains_key("phase") && (o.contains_key("session_id") || o.contains_key("id")))
    {
        return Some(Claim::likely(Shape::BenchContext));
    }
    None
}
