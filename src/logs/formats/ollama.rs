//! Ollama's `/api/chat` (`message.content`) and `/api/generate` (`response`) responses, and
//! their streams: one JSON chunk a line, the text in pieces, until a chunk with `done: true`
//! carries the stop reason and the counts. `thinking` is the model's reasoning, not the reply.

use serde_json::{Map, Value};

use super::api_error;
use super::shape::{Claim, Shape};
use crate::logs::formats::fields::{describe, has, name, string, uint};
use crate::logs::formats::record::{NoText, Record};
use crate::logs::formats::stream::{Assemble, At, Out};
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::{EventKind, Format, Meta, StopReason, Tokens};

/// A response or a chunk of a stream: `done`, `created_at` and `model` (a chunk that goes on
/// has `done: false`).
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    if !(o.get("done").is_some_and(Value::is_boolean) && has(o, "created_at") && has(o, "model")) {
        return None;
    }
    let shape = if o.get("done") == Some(&Value::Bool(false)) { Shape::OllamaChunk } else { Shape::Ollama };
    Some(Claim::certain(shape))
}

fn stop(reason: Option<&str>) -> StopReason {
    match reason {
        Some("stop") => StopReason::Finished,
        Some("length") => StopReason::Truncated,
        Some(_) => StopReason::Other,
        None => StopReason::Unknown,
    }
}

/// The text one chunk (or a whole response) adds.
pub(crate) fn piece(record: &Value) -> Option<&str> {
    match record.get("message") {
        Some(m) => m.get("content").and_then(Value::as_str),
        None => record.get("response").and_then(Value::as_str),
    }
}

fn tool_calls(record: &Value, tools: &mut Vec<String>) {
    if let Some(Value::Array(calls)) = record.get("message").and_then(|m| m.get("tool_calls")) {
        for c in calls {
            tools.push(c.get("function").and_then(|f| string(f, "name")).unwrap_or_else(|| "tool".to_owned()));
        }
    }
}

/// A stream (or one whole response, a stream of one chunk) being put together.
#[derive(Debug)]
pub(crate) struct Assembly {
    pub line: usize,
    pub offset: u64,
    text: String,
    tools: Vec<String>,
    meta: Meta,
}

impl Assembly {
    pub fn new(line: usize, offset: u64, format: Format) -> Assembly {
        Assembly { line, offset, text: String::new(), tools: Vec::new(), meta: Meta::new(format) }
    }

    /// Folds in one chunk; whether it was the last.
    pub fn add(&mut self, record: &Value) -> bool {
        if let Some(p) = piece(record) {
            self.text.push_str(p);
        }
        tool_calls(record, &mut self.tools);
        if self.meta.model.is_none() {
            self.meta.model = name(record, "model");
            self.meta.ts = name(record, "created_at");
        }
        let done = record.get("done").and_then(Value::as_bool) == Some(true);
        if done {
            self.meta.stop_detail = name(record, "done_reason");
            self.meta.stop = stop(self.meta.stop_detail.as_deref());
            self.meta.tokens = Tokens {
                input: uint(record, "prompt_eval_count"),
                output: uint(record, "eval_count"),
                ..Tokens::default()
            };
            self.meta.duration_ms = uint(record, "total_duration").map(|ns| ns / 1_000_000);
        }
        done
    }

    /// What arrived. A stream with no `done` chunk was cut short: what arrived is a prefix.
    pub fn finish(mut self, ended: bool) -> Record {
        if !ended {
            self.meta.stop = StopReason::Truncated;
            self.meta.stop_detail = Some("stream cut short".into());
        }
        if self.text.is_empty() {
            if !ended {
                return Record::event(None, EventKind::Truncated, "stream cut short before any text".into(), self.meta);
            }
            return NoText { tools: self.tools, ..NoText::default() }.into_record(None, self.meta);
        }
        Record::Reply { id: None, text: self.text, meta: self.meta }
    }
}

/// One whole response.
pub(crate) fn response(record: &Value) -> Record {
    let mut a = Assembly::new(0, 0, Format::Ollama);
    let ended = a.add(record);
    // A lone unfinished chunk is the start of a stream; read alone, it is what arrived.
    a.finish(ended)
}

/// An Ollama stream: one chunk a line; each `done: true` ends a response.
#[derive(Default)]
pub(crate) struct Stream {
    cur: Option<Assembly>,
}

impl Assemble for Stream {
    fn format(&self) -> Format {
        Format::OllamaStream
    }

    fn feed(&mut self, _kind: &str, chunk: Value, at: At, out: &mut dyn FnMut(Out)) {
        if chunk.get("error").is_some() && chunk.get("done").is_none() {
            out(at.out(Ok(api_error::error(&chunk, Format::OllamaStream))));
            return;
        }
        if chunk.get("done").is_none() {
            out(at.out(Err(Problem::unknown_shape(describe(&chunk)))));
            return;
        }
        let a = self.cur.get_or_insert_with(|| Assembly::new(at.line, at.offset, Format::OllamaStream));
        if a.add(&chunk)
            && let Some(a) = self.cur.take()
        {
            out(Out { line: a.line, offset: a.offset, what: Ok(a.finish(true)) });
        }
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        if let Some(a) = self.cur.take() {
            out(Out { line: a.line, offset: a.offset, what: Ok(a.finish(false)) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn thinking_is_not_the_reply_and_length_is_truncation() {
        let r = json!({"model": "qwen3", "created_at": "t", "message": {"role": "assistant", "content": "{\"a\"",
            "thinking": "hmm"}, "done": true, "done_reason": "length", "prompt_eval_count": 9, "eval_count": 12,
            "total_duration": 3_000_000_000u64});
        let Record::Reply { text, meta, .. } = response(&r) else { panic!("a reply") };
        assert_eq!((text.as_str(), meta.stop, meta.tokens.output), ("{\"a\"", StopReason::Truncated, Some(12)));
        assert_eq!(meta.duration_ms, Some(3000));
    }
}
