//! An API's error response, which holds no reply: the call failed.

use serde_json::{Map, Value};

use super::{Claim, Shape};
use crate::runlog::fields::{clip, string};
use crate::runlog::record::Record;
use crate::runlog::reply::{EventKind, Format, Meta};

/// `{"error": …}` with nothing beside it but a type, a request id, a status or a code.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let error = o.contains_key("error")
        && o.keys().all(|k| matches!(k.as_str(), "error" | "type" | "request_id" | "status" | "code"));
    error.then(|| Claim::likely(Shape::ApiError))
}

/// An API's error response: `{"error": {"message"}}` (OpenAI, Gemini), `{"type": "error",
/// "error": {…}}` (Anthropic), `{"error": "…"}` (Ollama). The call failed.
pub(crate) fn error(record: &Value, format: Format) -> Record {
    let error = record.get("error");
    let message = match error {
        Some(Value::String(s)) => s.clone(),
        Some(e) => {
            let what = string(e, "message").unwrap_or_else(|| e.to_string());
            match string(e, "type").or_else(|| string(e, "status")) {
                Some(kind) => format!("{kind}: {what}"),
                None => what,
            }
        }
        None => "an error".to_owned(),
    };
    Record::event(None, EventKind::Failed, clip(&message, 300), Meta::new(format))
}
