//! Amazon Bedrock: Converse responses (`output.message.content[].text`). Bedrock's invoke
//! bodies are the provider's own shape, read by that provider's format.

use serde_json::{Map, Value};

use super::{Claim, Shape, anthropic};
use crate::runlog::fields::{has, join_text, string, uint};
use crate::runlog::record::{NoText, Record};
use crate::runlog::reply::{Format, Meta, Tokens};

/// A Converse response: `output.message`, and a stop reason or usage beside it.
pub(crate) fn claim(o: &Map<String, Value>) -> Option<Claim> {
    let message = o.get("output").and_then(|v| v.get("message")).is_some();
    (message && (has(o, "stopReason") || has(o, "usage"))).then(|| Claim::certain(Shape::BedrockConverse))
}

/// A Bedrock Converse response.
pub(crate) fn converse(mut record: Value) -> Record {
    let mut meta = Meta::new(Format::BedrockConverse);
    meta.stop_detail = string(&record, "stopReason");
    meta.stop = anthropic::stop(meta.stop_detail.as_deref());
    if let Some(u) = record.get("usage") {
        meta.tokens = Tokens {
            input: uint(u, "inputTokens"),
            output: uint(u, "outputTokens"),
            cache_read: uint(u, "cacheReadInputTokens"),
            cache_write: uint(u, "cacheWriteInputTokens"),
        };
    }
    meta.duration_ms = record.get("metrics").and_then(|m| uint(m, "latencyMs"));
    let content = record.get_mut("output").and_then(|o| o.get_mut("message")).and_then(|m| m.get_mut("content"));
    let (text, blocks) = join_text(content, &["text"], "text");
    if blocks == 0 || text.is_empty() {
        let content = record.get("output").and_then(|o| o.get("message")).and_then(|m| m.get("content"));
        let tools = match content {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter_map(|b| b.get("toolUse"))
                .map(|t| string(t, "name").unwrap_or_else(|| "toolUse".to_owned()))
                .collect(),
            _ => Vec::new(),
        };
        return NoText { tools, ..NoText::default() }.into_record(None, meta);
    }
    Record::Reply { id: None, text, meta }
}
