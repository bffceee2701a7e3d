//! What a reader that runs outside (a command, an adapted function) gave for one reply, as
//! its caller holds it.
//!
//! A caller of an extractor either holds a value, or holds nothing, and "nothing" comes in
//! three ways a comparison must tell apart from each other and from the process failing:
//! the extractor returned nothing (`null`, `undefined`, `None`), it threw (the caller catches
//! it), or it returned text that is not JSON (the caller's `JSON.parse` throws). All three
//! read nothing; only [`Given::Failed`] is no answer at all, and is never compared.

use std::sync::Arc;

use crate::exact::js;
use crate::exact::value::Value;

/// How many characters of text that is not JSON an answer keeps for display.
pub const KEPT: usize = 1000;

/// One reply's answer from a reader that runs outside.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    /// It read this value (never JavaScript's `null`).
    Read(Value),
    /// It returned nothing: `null`, `undefined`, `None`, an absent `?unwrap` pointer, or
    /// the `?nothing` value.
    Nothing,
    /// It threw, with this message: nothing read, as a caller that catches it holds.
    Threw(Arc<str>),
    /// It returned text that is not JSON, kept (its first thousand characters) for display:
    /// nothing read, as the caller's `JSON.parse` throws on it.
    NotJson(Arc<str>),
    /// No answer, and why: the process failed (it died, hung, printed what is not an
    /// answer, answered out of order) at this reply or before it, or the reply's answer
    /// could not be carried. Never compared.
    Failed(Arc<str>),
}

/// The kind of a [`Given`], for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Read,
    Nothing,
    Threw,
    NotJson,
    Failed,
}

impl Outcome {
    /// Every outcome, in the order a report lists them.
    pub const ALL: [Outcome; 5] = [Outcome::Read, Outcome::Nothing, Outcome::Threw, Outcome::NotJson, Outcome::Failed];

    /// Its name in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Read => "read",
            Outcome::Nothing => "nothing",
            Outcome::Threw => "threw",
            Outcome::NotJson => "not-json",
            Outcome::Failed => "failed",
        }
    }
}

impl Given {
    /// A value as its caller holds it: JavaScript's `null` is nothing.
    pub fn from_value(value: Option<Value>) -> Given {
        match value {
            None | Some(Value::Null) => Given::Nothing,
            Some(v) => Given::Read(v),
        }
    }

    /// Text that is not JSON, kept for display.
    pub fn not_json(text: &str) -> Given {
        Given::NotJson(Arc::from(crate::visible::clip(text, KEPT)))
    }

    pub fn outcome(&self) -> Outcome {
        match self {
            Given::Read(_) => Outcome::Read,
            Given::Nothing => Outcome::Nothing,
            Given::Threw(_) => Outcome::Threw,
            Given::NotJson(_) => Outcome::NotJson,
            Given::Failed(_) => Outcome::Failed,
        }
    }

    /// The value read, if one was.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Given::Read(v) => Some(v),
            _ => None,
        }
    }

    pub fn into_value(self) -> Option<Value> {
        match self {
            Given::Read(v) => Some(v),
            _ => None,
        }
    }

    /// Why there is no answer, where the reader failed.
    pub fn failure(&self) -> Option<&str> {
        match self {
            Given::Failed(why) => Some(why),
            _ => None,
        }
    }

    /// What a display says beside nothing read, where there is more to say than "null":
    /// `threw: …`, `returned text that is not JSON: …`, `reader failed: …`.
    pub fn note(&self) -> Option<String> {
        match self {
            Given::Read(_) | Given::Nothing => None,
            Given::Threw(message) => Some(format!("threw: {message}")),
            Given::NotJson(text) => Some(format!("returned text that is not JSON: {text}")),
            Given::Failed(why) => Some(why.to_string()),
        }
    }
}

/// What a caller holds of a reader's return: JavaScript's `null` is nothing.
pub fn held(value: Option<Value>) -> Option<Value> {
    value.filter(|v| !matches!(v, Value::Null))
}

/// `value` as JSON text carries it: `JSON.parse(JSON.stringify(value))`, held (a non-finite
/// number prints as `null`, which is nothing read).
pub fn json_view(value: &Value) -> Option<Value> {
    held(js::parse(&value.to_json()).ok())
}

/// Whether JSON text carries `value` otherwise than it is, so that [`json_view`] is needed: only
/// where a number is not finite (it prints as `null`). Strings (lone surrogates as their
/// escapes), finite numbers (printed to round-trip; `-0` as `0`, which `==` it) and the keys
/// in their order (JavaScript's, as every reader builds them) come back as they were.
/// `tests/readers/golden.rs` holds every built-in answer of the corpus to it.
pub fn changes_in_json(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) if !n.is_finite() => return true,
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => stack.extend(o.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_and_what_each_holds() {
        assert_eq!(Given::from_value(None), Given::Nothing);
        assert_eq!(Given::from_value(Some(Value::Null)), Given::Nothing);
        let one = Given::from_value(Some(Value::Number(1.0)));
        assert_eq!((one.outcome(), one.value()), (Outcome::Read, Some(&Value::Number(1.0))));
        let threw = Given::Threw(Arc::from("Error: no JSON"));
        assert_eq!((threw.value(), threw.failure()), (None, None));
        assert_eq!(threw.note().as_deref(), Some("threw: Error: no JSON"));
        let long = "x".repeat(KEPT + 10);
        let Given::NotJson(kept) = Given::not_json(&long) else { panic!("not JSON") };
        assert_eq!(kept.chars().count(), KEPT + 1, "clipped, with an ellipsis");
        let failed = Given::Failed(Arc::from("reader failed: exited"));
        assert_eq!(failed.failure(), Some("reader failed: exited"));
        assert_eq!(Outcome::ALL.map(Outcome::name), ["read", "nothing", "threw", "not-json", "failed"]);
    }
}
