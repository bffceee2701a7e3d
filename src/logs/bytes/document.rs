//! A JSON document read as a stream: one value (pretty-printed or not), several values one
//! after another (`jq .` over a JSONL file writes that), or a JSON array of records, each
//! record handed on as soon as it is read. Memory is the largest record, not the file.
//!
//! Four documents hold their records one level down, and those are streamed too: an
//! Inspect AI `.json` log's `samples` (after its `eval` header), a promptfoo output's
//! `results.results`, a HELM scenario state's `request_states` (after its `adapter_spec`),
//! and an OTLP/JSON export's `resourceSpans` / `resourceLogs`. Every other key of a document
//! is read whole, as context.

use std::fmt;
use std::io::Read;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// One record of a document.
pub(crate) enum DocumentItem<'a> {
    /// A top-level value, or an element of a top-level array (`index`), counted across the
    /// whole document.
    Value { value: Value, index: Option<usize> },
    /// An Inspect sample, with the log's header as read so far (`version`, `status`, `eval`).
    Sample { header: &'a Value, sample: Value },
    /// A promptfoo result, with the output's `evalId`.
    Result { eval_id: Option<&'a str>, result: Value },
    /// A HELM request state, with the scenario state's `adapter_spec`.
    RequestState { adapter: &'a Value, state: Value },
}

/// What the caller says after each record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    /// Stop reading: the document is not what it seemed (the caller reads it otherwise).
    Stop,
}

/// How a read ended.
#[derive(Debug)]
pub(crate) struct DocumentRead {
    /// Records handed on.
    pub records: usize,
    /// The caller stopped it.
    pub stopped: bool,
    /// The error it ended on, if any.
    pub error: Option<serde_json::Error>,
}

type Sink<'s> = dyn FnMut(DocumentItem<'_>) -> Flow + 's;

/// The caller stopped the read: what unwinds serde's visit of the document, said to serde as
/// its error (the only way out of a visit), and told apart from a real one by the outcome.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("stopped")]
struct Stopped;

struct State<'s, 'k> {
    sink: &'k mut Sink<'s>,
    records: usize,
    stopped: bool,
}

impl State<'_, '_> {
    fn give(&mut self, item: DocumentItem<'_>) -> Result<(), Stopped> {
        self.records += 1;
        if (self.sink)(item) == Flow::Stop {
            self.stopped = true;
            return Err(Stopped);
        }
        Ok(())
    }
}

/// Reads every value of `input`, handing on its records.
pub(crate) fn read(input: impl Read, sink: &mut Sink<'_>) -> DocumentRead {
    let mut de = serde_json::Deserializer::from_reader(input);
    let mut state = State { sink, records: 0, stopped: false };
    let error = loop {
        if let Err(e) = (Top { state: &mut state }).deserialize(&mut de) {
            break Some(e);
        }
        // `end` is the one public way to look past whitespace: it fails on the next value's
        // first byte without taking it.
        match de.end() {
            Ok(()) => break None,
            Err(e) if e.is_syntax() => continue,
            Err(e) => break Some(e),
        }
    };
    let stopped = state.stopped;
    DocumentRead { records: state.records, stopped, error: error.filter(|_| !stopped) }
}

struct Top<'a, 's, 'k> {
    state: &'a mut State<'s, 'k>,
}

impl<'de> DeserializeSeed<'de> for Top<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

macro_rules! scalar_is_a_record {
    ($($method:ident: $ty:ty),*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<(), E> {
            let index = None;
            self.state.give(DocumentItem::Value { value: Value::from(v), index }).map_err(E::custom)
        }
    )*};
}

impl<'de> Visitor<'de> for Top<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    scalar_is_a_record!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.state.give(DocumentItem::Value { value: Value::Null, index: None }).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(value) = seq.next_element::<Value>()? {
            let index = Some(self.state.records);
            self.state.give(DocumentItem::Value { value, index }).map_err(de::Error::custom)?;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut kept = Map::new();
        let mut streamed = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "samples" if kept.get("eval").is_some_and(Value::is_object) => {
                    let header = Value::Object(kept.clone());
                    let state = &mut *self.state;
                    map.next_value_seed(Elements(&mut |sample| {
                        state.give(DocumentItem::Sample { header: &header, sample })
                    }))?;
                    streamed = true;
                }
                "results" if kept.get("evalId").is_some_and(Value::is_string) => {
                    let eval_id = kept.get("evalId").and_then(Value::as_str).map(str::to_owned);
                    let state = &mut *self.state;
                    let mut give =
                        |result: Value| state.give(DocumentItem::Result { eval_id: eval_id.as_deref(), result });
                    map.next_value_seed(Nested { key: "results", give: &mut give })?;
                    streamed = true;
                }
                "request_states" if kept.get("adapter_spec").is_some_and(Value::is_object) => {
                    let adapter = kept.get("adapter_spec").cloned().unwrap_or(Value::Null);
                    let state = &mut *self.state;
                    map.next_value_seed(Elements(&mut |s| {
                        state.give(DocumentItem::RequestState { adapter: &adapter, state: s })
                    }))?;
                    streamed = true;
                }
                "resourceSpans" | "resourceLogs" => {
                    let state = &mut *self.state;
                    let mut give = |v: Value| {
                        let mut one = Map::new();
                        one.insert(key.clone(), Value::Array(vec![v]));
                        state.give(DocumentItem::Value { value: Value::Object(one), index: None })
                    };
                    map.next_value_seed(Elements(&mut give))?;
                    streamed = true;
                }
                _ => {
                    let value: Value = map.next_value()?;
                    kept.insert(key, value);
                }
            }
        }
        if !streamed {
            self.state
                .give(DocumentItem::Value { value: Value::Object(kept), index: None })
                .map_err(de::Error::custom)?;
        }
        Ok(())
    }
}

type Give<'g> = dyn FnMut(Value) -> Result<(), Stopped> + 'g;

/// An array's elements, each handed on as it is read; anything else is passed over.
struct Elements<'g, 'h>(&'g mut Give<'h>);

impl<'de> DeserializeSeed<'de> for Elements<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

macro_rules! passed_over {
    ($($method:ident: $ty:ty),*) => {$(
        fn $method<E: de::Error>(self, _: $ty) -> Result<(), E> {
            Ok(())
        }
    )*};
}

impl<'de> Visitor<'de> for Elements<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }

    passed_over!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<Value>()? {
            (self.0)(v).map_err(de::Error::custom)?;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// An object whose `key` holds the array to stream (promptfoo's `results.results`); an
/// array in its place is streamed itself.
struct Nested<'g, 'h> {
    key: &'static str,
    give: &'g mut Give<'h>,
}

impl<'de> DeserializeSeed<'de> for Nested<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Nested<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object or an array")
    }

    passed_over!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Elements(self.give).visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == self.key {
                map.next_value_seed(Elements(&mut *self.give))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(input: &str) -> (Vec<String>, Option<String>) {
        let mut got = Vec::new();
        let r = read(input.as_bytes(), &mut |item| {
            got.push(match item {
                DocumentItem::Value { value, index } => format!("{index:?} {value}"),
                DocumentItem::Sample { header, sample } => format!("sample {} of {}", sample, header["eval"]["task"]),
                DocumentItem::Result { eval_id, result } => format!("result {result} of {eval_id:?}"),
                DocumentItem::RequestState { adapter, state } => format!("state {state} of {}", adapter["model"]),
            });
            Flow::Continue
        });
        (got, r.error.map(|e| e.to_string()))
    }

    #[test]
    fn one_value_several_values_and_an_array_of_records() {
        assert_eq!(records("{\n  \"a\": [\n    \"x\"\n  ]\n}\n"), (vec!["None {\"a\":[\"x\"]}".to_owned()], None));
        assert_eq!(records("{\"a\":1}\n{\n\"b\":2}").0, ["None {\"a\":1}", "None {\"b\":2}"]);
        assert_eq!(records("[{\"a\":1},\n {\"a\":2}]").0, ["Some(0) {\"a\":1}", "Some(1) {\"a\":2}"]);
        let (got, err) = records("[{\"a\":1}, {\"a\":");
        assert_eq!((got.len(), err.is_some()), (1, true));
    }

    #[test]
    fn samples_results_and_spans_are_streamed_one_level_down() {
        let log = r#"{"version": 2, "eval": {"task": "t"}, "samples": [{"id": 1}, {"id": 2}], "results": {}}"#;
        assert_eq!(records(log).0, ["sample {\"id\":1} of \"t\"", "sample {\"id\":2} of \"t\""]);
        let pf = r#"{"evalId": "e", "results": {"version": 3, "results": [{"testIdx": 0}]}, "config": {}}"#;
        assert_eq!(records(pf).0, ["result {\"testIdx\":0} of Some(\"e\")"]);
        let otlp = r#"{"resourceSpans": [{"a": 1}, {"b": 2}]}"#;
        assert_eq!(records(otlp).0, ["None {\"resourceSpans\":[{\"a\":1}]}", "None {\"resourceSpans\":[{\"b\":2}]}"]);
    }
}
