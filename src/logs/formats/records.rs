//! bracewalk's own records, `{"id", "text", "fields"?}`: what `extract --jsonl` reads.

use serde_json::{Map, Value};

use super::shape::{Claim, Shape};
use crate::logs::formats::fields::take_string;
use crate::logs::formats::record::Record;
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{Format, Meta};

/// A `text` string, and no key but `id`, `text` and `fields`: a shape others may share.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let own =
        o.get("text").is_some_and(Value::is_string) && o.keys().all(|k| matches!(k.as_str(), "id" | "text" | "fields"));
    own.then(|| Claim::likely(Shape::Records))
}

/// bracewalk's own record: the text as given, the id as given (a number or any other JSON
/// as it is written).
pub(crate) fn record(mut record: Value) -> Record {
    let id = match record.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    let text = record.as_object_mut().and_then(|o| take_string(o, "text"));
    match text {
        Some(text) => Record::Reply { id, text, meta: Meta::new(Format::Records) },
        None => Record::Problem(Problem::BadRecord("a record whose \"text\" is not a string".to_owned())),
    }
}
