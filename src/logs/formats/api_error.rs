//! An API's error response, which holds no reply: a call that failed, said as `API error:
//! <message>`, with the kind of error where the body names one.
//!
//! The shapes (each provider's SDK reads them so): OpenAI and most compatible servers
//! `{"error": {"message", "type", "code"}}`; Anthropic `{"type": "error", "error": {"type",
//! "message"}}`; Gemini `{"error": {"code", "message", "status"}}`; Ollama `{"error": "…"}`;
//! FastChat-style servers `{"object": "error", "message", "type", "code"}`; AWS services such as
//! Bedrock `{"message": "…"}`, with `__type` or `code` at times (smithy reads `message`,
//! `Message` or `errorMessage`).

use serde_json::{Map, Value};

use super::shape::{Claim, Shape};
use crate::logs::formats::fields::string;
use crate::logs::formats::record::Record;
use crate::logs::model::reply::{EventKind, Format, Meta};
use crate::visible::clip;

/// The keys an AWS error body may hold besides its message.
const AWS_KEYS: [&str; 6] = ["message", "Message", "errorMessage", "__type", "code", "Type"];

/// The fields a reply is read from, and those that make an error a batch line's: a record
/// holding one is no error body of its own, whatever else it holds.
const OTHERS_KEYS: [&str; 13] = [
    "choices",
    "candidates",
    "content",
    "output",
    "completion",
    "message",
    "messages",
    "text",
    "response",
    "result",
    "generations",
    "key",
    "custom_id",
];

/// `{"error": …}` with nothing beside it but a type, a request id, a status or a code, or an
/// error that says its message beside little else; a FastChat-style error object; an AWS error
/// body, a message and nothing else of note.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let said = match o.get("error") {
        Some(Value::String(_)) => true,
        Some(e @ Value::Object(_)) => e.get("message").is_some_and(Value::is_string),
        _ => false,
    };
    let only_error = o.contains_key("error")
        && o.keys().all(|k| matches!(k.as_str(), "error" | "type" | "request_id" | "status" | "code"));
    // An error said beside a field or two of the service's own (a user id, a request id),
    // not beside a record of another kind (a trace's run that raised has its `error` too).
    let beside_little = o.len() <= 3 && !OTHERS_KEYS.iter().any(|k| o.contains_key(*k));
    if only_error || (said && beside_little) {
        return Some(Claim::likely(Shape::ApiError));
    }
    if o.get("object").and_then(Value::as_str) == Some("error") && o.get("message").is_some_and(Value::is_string) {
        return Some(Claim::certain(Shape::ApiError));
    }
    let aws = ["message", "Message", "errorMessage"].iter().any(|k| o.get(*k).is_some_and(Value::is_string))
        && o.keys().all(|k| AWS_KEYS.contains(&k.as_str()));
    aws.then(|| Claim::likely(Shape::ApiError))
}

/// What an error body says, as `API error: <message> (<kind>)`; `None` for a value that is no
/// error body.
pub(crate) fn message(body: &Value) -> Option<String> {
    let (what, kind) = match body.get("error") {
        Some(Value::String(s)) => (s.clone(), None),
        Some(e @ Value::Object(_)) => {
            let what = string(e, "message").unwrap_or_else(|| e.to_string());
            // Anthropic's `type`, Google's `status` (`RESOURCE_EXHAUSTED`), OpenAI's `type`.
            let code = e.get("code").filter(|c| c.is_string() || c.is_number());
            let code = code.map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned));
            let kind = string(e, "type").or_else(|| string(e, "status")).or(code);
            (what, kind)
        }
        Some(_) => return None,
        None => {
            let what = ["message", "Message", "errorMessage"].iter().find_map(|k| string(body, k))?;
            let kind = string(body, "__type").or_else(|| string(body, "code")).or_else(|| string(body, "type"));
            (what, kind.map(|k| aws_kind(&k).to_owned()))
        }
    };
    Some(match kind.filter(|k| !k.is_empty()) {
        Some(kind) => format!("API error: {what} ({kind})"),
        None => format!("API error: {what}"),
    })
}

/// An AWS error code without its namespace (`com.amazon…#`) or its `:http…` suffix, as
/// smithy strips them.
fn aws_kind(code: &str) -> &str {
    let code = code.rsplit_once('#').map_or(code, |(_, c)| c);
    code.split_once(':').map_or(code, |(c, _)| c)
}

/// An API's error response read as the call that failed.
pub(crate) fn error(record: &Value, format: Format) -> Record {
    let message = message(record).unwrap_or_else(|| "API error".to_owned());
    Record::event(None, EventKind::Failed, clip(&message, 300), Meta::new(format))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_providers_error_body_says_its_message_and_kind() {
        let cases = [
            (
                json!({"error": {"message": "Too long.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
                "API error: Too long. (invalid_request_error)",
            ),
            (
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_1"}),
                "API error: Overloaded (overloaded_error)",
            ),
            (
                json!({"error": {"code": 429, "message": "Quota exceeded.", "status": "RESOURCE_EXHAUSTED"}}),
                "API error: Quota exceeded. (RESOURCE_EXHAUSTED)",
            ),
            (json!({"error": "model \"x\" not found"}), "API error: model \"x\" not found"),
            (
                json!({"object": "error", "message": "Only 4096 tokens.", "type": "BadRequestError", "param": null, "code": 400}),
                "API error: Only 4096 tokens. (BadRequestError)",
            ),
            (
                json!({"message": "The security token included in the request is invalid."}),
                "API error: The security token included in the request is invalid.",
            ),
            (
                json!({"message": "Too many requests", "__type": "com.amazon.coral.availability#ThrottlingException:http://internal"}),
                "API error: Too many requests (ThrottlingException)",
            ),
        ];
        for (body, want) in cases {
            let o = body.as_object().unwrap();
            assert!(claim(o).is_some(), "{body}");
            assert_eq!(message(&body).as_deref(), Some(want));
        }
        // An error said beside fields of the service's own.
        let routed = json!({"error": {"message": "Provider returned error", "code": 429, "metadata": {"raw": "x"}}, "user_id": "u1"});
        assert!(claim(routed.as_object().unwrap()).is_some());
        assert_eq!(message(&routed).as_deref(), Some("API error: Provider returned error (429)"));
        // A message beside a reply's fields is no error body.
        assert!(claim(json!({"message": "hi", "role": "user"}).as_object().unwrap()).is_none());
    }
}
