//! Provider responses beyond the first three: Gemini and Vertex AI (responses and batch
//! lines), Cohere, Ollama, OpenAI-compatible servers, API errors, bracewalk's own records;
//! responses that hold no text, which are calls without a reply and never diagnostics; and
//! JSON documents told from JSONL by reading them.

use crate::support::loaded;

use bracewalk::logs::{EventKind, Format, StopReason};
use loaded::{jsonl, load, one, write};
use serde_json::json;

fn message(text: &str) -> serde_json::Value {
    json!({"id": "msg_p", "type": "message", "role": "assistant", "model": "claude-x",
           "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
           "stop_sequence": null, "usage": {"input_tokens": 3, "output_tokens": 4},
           "tools_seen": ["search_only_tool", "web_fetch"], "flags": [true, null, 7]})
}

#[test]
fn a_pretty_printed_response_with_strings_on_lines_of_their_own_is_one_document() {
    // `curl … | jq . > reply.json`: `"search_only_tool"` alone on a line is JSON too.
    let pretty = serde_json::to_string_pretty(&message("{\"a\": 1}")).unwrap();
    assert!(pretty.lines().any(|l| l.trim() == "\"web_fetch\""));
    for name in ["reply.json", "reply.jsonl", "reply.txt", "reply"] {
        let (_dir, got) = one(name, &format!("{pretty}\n"));
        let got = got.clean();
        assert_eq!(got.texts(), [("{\"a\": 1}", StopReason::Finished, Some("end_turn"))], "{name}");
        assert_eq!((got.replies[0].line, got.replies[0].id.as_str()), (None, "msg_p"), "{name}");
    }
}

#[test]
fn several_pretty_documents_one_after_another_and_a_pretty_array_are_their_records() {
    // `jq . responses.jsonl > all.json` writes the values one after another.
    let a = serde_json::to_string_pretty(&message("one")).unwrap();
    let mut b = message("two");
    b["id"] = json!(null);
    let b = serde_json::to_string_pretty(&b).unwrap();
    let (dir, got) = one("all.json", &format!("{a}\n{b}\n"));
    let got = got.clean();
    let ids: Vec<_> = got.replies.iter().map(|r| (r.id.clone(), r.text.clone())).collect();
    let path = dir.path().join("all.json").display().to_string();
    assert_eq!(ids, [("msg_p".to_owned(), "one".to_owned()), (format!("{path}#1"), "two".to_owned())]);

    let array = serde_json::to_string_pretty(&json!([message("x"), {"html": "<p>"}, message("y")])).unwrap();
    let (_dir, got) = one("array.json", &array);
    assert_eq!(got.texts().iter().map(|t| t.0).collect::<Vec<_>>(), ["x", "y"]);
    assert_eq!(got.diagnostics.len(), 1);
    assert!(got.diagnostics[0].message().contains("element 1"), "{:?}", got.diagnostics);
}

#[test]
fn a_broken_pretty_document_says_where() {
    let pretty = serde_json::to_string_pretty(&message("x")).unwrap();
    let cut = &pretty[..pretty.len() - 40];
    let (_dir, got) = one("cut.json", cut);
    assert!(got.replies.is_empty());
    assert_eq!(got.diagnostics.len(), 1);
    let d = &got.diagnostics[0];
    assert_eq!(d.problem.kind(), "malformed-json");
    assert_eq!(d.line, Some(cut.lines().count()), "{d}");
}

#[test]
fn responses_with_no_text_are_calls_without_a_reply_not_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-text.jsonl");
    write(
        &path,
        &jsonl(&[
            // Anthropic: only a tool_use block.
            json!({"id": "msg_t", "type": "message", "role": "assistant", "model": "c",
                   "content": [{"type": "tool_use", "id": "tu", "name": "get_weather", "input": {"city": "Oslo"}}],
                   "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 2}}),
            // Anthropic: a refusal stop with nothing written.
            json!({"id": "msg_r", "type": "message", "role": "assistant", "content": [], "stop_reason": "refusal"}),
            // Anthropic: thinking ran out the ceiling before any text.
            json!({"id": "msg_m", "type": "message", "role": "assistant",
                   "content": [{"type": "thinking", "thinking": "long", "signature": "s"}], "stop_reason": "max_tokens"}),
            // OpenAI chat: `content: null` and tool calls.
            json!({"id": "chatcmpl-t", "object": "chat.completion", "model": "gpt",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": null,
                     "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
                     "finish_reason": "tool_calls"}]}),
            // OpenAI chat: a refusal.
            json!({"id": "chatcmpl-r", "object": "chat.completion",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."},
                     "finish_reason": "stop"}]}),
            // OpenAI chat: the content filter.
            json!({"id": "chatcmpl-f", "object": "chat.completion",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": null}, "finish_reason": "content_filter"}]}),
            // Responses: a function call only.
            json!({"id": "resp_f", "object": "response", "status": "completed",
                   "output": [{"type": "function_call", "name": "search", "arguments": "{}", "call_id": "c"}]}),
            // Gemini: a prompt the filter blocked, no candidates.
            json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 8},
                   "modelVersion": "gemini-2.5-flash", "responseId": "g_b"}),
            // Gemini: a function call.
            json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "turn_on", "args": {}}}]},
                     "finishReason": "STOP"}], "modelVersion": "gemini-2.5-flash", "responseId": "g_f"}),
            // Bedrock Converse: a toolUse block.
            json!({"output": {"message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "calc", "input": {}}}]}},
                   "stopReason": "tool_use", "usage": {"inputTokens": 1, "outputTokens": 1}}),
            // Anthropic: a server tool paused the turn before any text.
            json!({"id": "msg_s", "type": "message", "role": "assistant", "stop_reason": "pause_turn",
                   "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}]}),
            // An empty text.
            json!({"id": "chatcmpl-e", "object": "chat.completion",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}]}),
        ]),
    );
    let got = load(&[&path]).clean();
    assert!(got.replies.is_empty(), "{:?}", got.replies);
    assert_eq!(
        got.kinds(),
        [
            (EventKind::ToolCall, "tool call: get_weather"),
            (EventKind::Refusal, "refused (refusal)"),
            (EventKind::Truncated, "cut off before any text (max_tokens)"),
            (EventKind::ToolCall, "tool call: lookup"),
            (EventKind::Refusal, "refusal: I can't help with that."),
            (EventKind::Blocked, "blocked (content_filter)"),
            (EventKind::ToolCall, "tool call: search"),
            (EventKind::Blocked, "blocked: PROHIBITED_CONTENT"),
            (EventKind::ToolCall, "tool call: turn_on"),
            (EventKind::ToolCall, "tool call: calc"),
            (EventKind::ToolCall, "tool call: web_search"),
            (EventKind::Empty, "no text (stop)"),
        ]
    );
    let ids: Vec<_> = got.events.iter().map(|e| e.id.rsplit('/').next().unwrap().to_owned()).collect();
    assert_eq!(ids[..3], ["msg_t", "msg_r", "msg_m"]);
    assert_eq!(got.events[0].meta.tokens.output, Some(2));
}

#[test]
fn gemini_responses_leave_thoughts_out_and_max_tokens_is_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let developer = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "The user wants JSON.", "thought": true},
            {"text": "{\"name\": \"Ada\", ", "thoughtSignature": "CiIB"},
            {"text": "\"tags\": [\"x\""}]}, "finishReason": "MAX_TOKENS", "index": 0}],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 64, "thoughtsTokenCount": 40,
                          "cachedContentTokenCount": 2, "totalTokenCount": 116},
        "modelVersion": "gemini-2.5-flash", "responseId": "mF1aaO3xBqW2"});
    let vertex = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "{\"ok\": true}"}]},
            "finishReason": "STOP", "avgLogprobs": -0.1}], "usageMetadata": {"promptTokenCount": 3,
            "candidatesTokenCount": 4, "totalTokenCount": 7, "trafficType": "ON_DEMAND"},
        "modelVersion": "gemini-2.0-flash-001", "createTime": "2025-08-14T16:27:27.775Z", "responseId": "v1"});
    // Several candidates: the first is the reply, as the SDK's `.text` takes it.
    let two = json!({"candidates": [{"content": {"parts": [{"text": "first"}]}, "finishReason": "STOP", "index": 0},
                                    {"content": {"parts": [{"text": "second"}]}, "finishReason": "STOP", "index": 1}]});
    write(&dir.path().join("a-developer.json"), &serde_json::to_string_pretty(&developer).unwrap());
    write(&dir.path().join("b-vertex.json"), &vertex.to_string());
    write(&dir.path().join("c-two.json"), &two.to_string());
    let got = load(&[dir.path()]).clean();
    assert_eq!(
        got.texts(),
        [
            ("{\"name\": \"Ada\", \"tags\": [\"x\"", StopReason::Truncated, Some("MAX_TOKENS")),
            ("{\"ok\": true}", StopReason::Finished, Some("STOP")),
            ("first", StopReason::Finished, Some("STOP")),
        ]
    );
    let m = &got.replies[0].meta;
    assert_eq!(
        (got.replies[0].id.as_str(), m.format, m.model.as_deref()),
        ("mF1aaO3xBqW2", Format::Gemini, Some("gemini-2.5-flash"))
    );
    assert_eq!((m.tokens.input, m.tokens.output, m.tokens.cache_read), (Some(12), Some(64), Some(2)));
    assert_eq!(got.replies[1].meta.ts.as_deref(), Some("2025-08-14T16:27:27.775Z"));
}

#[test]
fn gemini_and_vertex_batch_lines() {
    let dir = tempfile::tempdir().unwrap();
    let response = |text: &str, finish: &str| {
        json!({"candidates": [{"content": {"parts": [{"text": "thinking…", "thought": true}, {"text": text}], "role": "model"},
               "finishReason": finish}], "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 5},
               "modelVersion": "gemini-2.5-flash", "responseId": "r"})
    };
    write(
        &dir.path().join("gemini-batch.jsonl"),
        &jsonl(&[
            json!({"key": "req-7", "response": response("{\"ok\":true}", "STOP")}),
            json!({"key": "req-8", "response": response("{\"ok\":", "MAX_TOKENS")}),
            json!({"key": "req-9", "error": {"code": 400, "message": "Request contains an invalid argument."}}),
        ]),
    );
    let request = json!({"contents": [{"role": "user", "parts": [{"text": "Q"}]}]});
    write(
        &dir.path().join("vertex-predictions.jsonl"),
        &jsonl(&[
            json!({"status": "", "processed_time": "2025-08-14T16:27:27.775+00:00", "request": request, "response": response("{\"a\":1}", "STOP")}),
            json!({"status": "Bad Request: {\"error\": {\"code\": 400}}", "processed_time": "2025-08-14T16:27:28+00:00", "request": request}),
        ]),
    );
    let got = load(&[dir.path()]).clean();
    let replies: Vec<_> = got
        .replies
        .iter()
        .map(|r| (r.id.rsplit('/').next().unwrap(), r.text.as_str(), r.meta.stop, r.meta.format))
        .collect();
    assert_eq!(
        replies,
        [
            ("req-7", "{\"ok\":true}", StopReason::Finished, Format::GeminiBatch),
            ("req-8", "{\"ok\":", StopReason::Truncated, Format::GeminiBatch),
            ("r", "{\"a\":1}", StopReason::Finished, Format::VertexBatch),
        ]
    );
    assert_eq!(got.replies[2].meta.ts.as_deref(), Some("2025-08-14T16:27:27.775+00:00"));
    let events: Vec<_> = got.events.iter().map(|e| (e.kind, e.meta.format, e.message.as_str())).collect();
    assert_eq!(
        events,
        [
            (EventKind::Failed, Format::GeminiBatch, "Request contains an invalid argument."),
            (EventKind::Failed, Format::VertexBatch, "Bad Request: {\"error\": {\"code\": 400}}"),
        ]
    );
    assert_eq!(got.events[0].id, "req-9");
}

#[test]
fn cohere_v2_and_v1_chat() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("cohere.jsonl"),
        &jsonl(&[
            json!({"id": "c-1", "finish_reason": "COMPLETE", "message": {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Let me work out the JSON."}, {"type": "text", "text": "{\"a\": 1}"}]},
                "usage": {"billed_units": {"input_tokens": 5, "output_tokens": 7}, "tokens": {"input_tokens": 70, "output_tokens": 7}}}),
            json!({"id": "c-2", "finish_reason": "MAX_TOKENS", "message": {"role": "assistant", "content": [{"type": "text", "text": "{\"a\":"}]}}),
            json!({"id": "c-3", "finish_reason": "TOOL_CALL", "message": {"role": "assistant", "tool_plan": "I will look it up.",
                "tool_calls": [{"id": "t", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}}),
            json!({"response_id": "r-4", "text": "v1 text", "generation_id": "g", "finish_reason": "COMPLETE",
                   "meta": {"billed_units": {"input_tokens": 1, "output_tokens": 2}}}),
        ]),
    );
    let got = load(&[dir.path()]).clean();
    assert_eq!(
        got.texts(),
        [
            ("{\"a\": 1}", StopReason::Finished, Some("COMPLETE")),
            ("{\"a\":", StopReason::Truncated, Some("MAX_TOKENS")),
            ("v1 text", StopReason::Finished, Some("COMPLETE")),
        ]
    );
    assert_eq!((got.replies[0].meta.format, got.replies[0].meta.tokens.input), (Format::Cohere, Some(70)));
    assert_eq!(got.kinds(), [(EventKind::ToolCall, "tool call: lookup")]);
}

#[test]
fn ollama_chat_and_generate_responses() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("ollama.jsonl"),
        &jsonl(&[
            json!({"model": "qwen3:4b", "created_at": "2026-05-01T10:00:02Z", "message": {"role": "assistant",
                   "content": "{\"a\": 1", "thinking": "I should answer in JSON."}, "done": true, "done_reason": "length",
                   "total_duration": 2_500_000_000u64, "prompt_eval_count": 9, "eval_count": 128}),
            json!({"model": "llama3.2", "created_at": "2026-05-01T10:00:03Z", "response": "{\"b\": 2}", "thinking": "hmm",
                   "done": true, "done_reason": "stop", "context": [1, 2, 3], "eval_count": 6}),
        ]),
    );
    let got = load(&[dir.path()]).clean();
    assert_eq!(
        got.texts(),
        [("{\"a\": 1", StopReason::Truncated, Some("length")), ("{\"b\": 2}", StopReason::Finished, Some("stop"))]
    );
    let m = &got.replies[0].meta;
    assert_eq!(
        (m.format, m.model.as_deref(), m.tokens.output, m.duration_ms),
        (Format::Ollama, Some("qwen3:4b"), Some(128), Some(2500))
    );
    assert_eq!(m.ts.as_deref(), Some("2026-05-01T10:00:02Z"));
}

#[test]
fn openai_compatible_servers_keep_their_reasoning_out_of_the_reply() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("local.jsonl"),
        &jsonl(&[
            // vLLM with a reasoning parser: `reasoning` (and, before, `reasoning_content`).
            json!({"id": "chatcmpl-v", "object": "chat.completion", "model": "Qwen/Qwen3-8B",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"a\": 1}",
                     "reasoning": "think", "reasoning_content": "think"}, "finish_reason": "length", "stop_reason": null}],
                   "usage": {"prompt_tokens": 5, "completion_tokens": 9}}),
            // llama.cpp's server, with its timings.
            json!({"id": "chatcmpl-l", "object": "chat.completion", "model": "gguf",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"b\": 2}", "reasoning_content": "r"},
                     "finish_reason": "stop"}], "timings": {"predicted_n": 9}}),
            // A legacy completion, as both serve on /v1/completions.
            json!({"id": "cmpl-1", "object": "text_completion", "model": "m",
                   "choices": [{"index": 0, "text": "{\"c\": 3}", "finish_reason": "stop"}]}),
        ]),
    );
    let got = load(&[dir.path()]).clean();
    assert_eq!(
        got.texts(),
        [
            ("{\"a\": 1}", StopReason::Truncated, Some("length")),
            ("{\"b\": 2}", StopReason::Finished, Some("stop")),
            ("{\"c\": 3}", StopReason::Finished, Some("stop")),
        ]
    );
}

#[test]
fn api_errors_are_failed_calls() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("errors.jsonl"),
        &jsonl(&[
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_1"}),
            json!({"error": {"message": "Rate limit reached", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}),
            json!({"error": {"code": 429, "message": "Resource exhausted.", "status": "RESOURCE_EXHAUSTED"}}),
            json!({"error": "model \"nope\" not found, try pulling it first"}),
        ]),
    );
    let got = load(&[dir.path()]).clean();
    assert_eq!(
        got.kinds(),
        [
            (EventKind::Failed, "API error: Overloaded (overloaded_error)"),
            (EventKind::Failed, "API error: Rate limit reached (requests)"),
            (EventKind::Failed, "API error: Resource exhausted. (RESOURCE_EXHAUSTED)"),
            (EventKind::Failed, "API error: model \"nope\" not found, try pulling it first"),
        ]
    );
}

#[test]
fn bracewalks_own_records_read_without_flags() {
    let (dir, got) = one(
        "corpus.jsonl",
        &jsonl(&[
            json!({"id": "r-1", "text": "Final: {\"a\": 2}"}),
            json!({"id": 7, "text": "{\"edits\": [", "fields": ["edits"]}),
            json!({"text": "no id"}),
        ]),
    );
    let got = got.clean();
    let path = dir.path().join("corpus.jsonl").display().to_string();
    let ids: Vec<_> = got.replies.iter().map(|r| (r.id.clone(), r.text.as_str(), r.meta.format)).collect();
    assert_eq!(
        ids,
        [
            ("r-1".to_owned(), "Final: {\"a\": 2}", Format::Records),
            ("7".to_owned(), "{\"edits\": [", Format::Records),
            (format!("{path}:3"), "no id", Format::Records),
        ]
    );
}

#[test]
fn a_python_nan_on_a_line_is_read_as_null() {
    let line = r#"{"id": "n", "text": "ok", "fields": null}"#.replace("null", "NaN");
    let (_dir, got) = one("nan.jsonl", &format!("{line}\n"));
    assert_eq!(got.clean().texts(), [("ok", StopReason::Unknown, None)]);
}

fn fixtures(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats").join(name)
}

#[test]
fn api_error_bodies_are_failed_calls_that_say_so() {
    let got = load(&[&fixtures("api-error")]).clean();
    assert_eq!(
        got.kinds(),
        [
            (EventKind::Failed, "API error: Too many requests, please wait before trying again."),
            (
                EventKind::Failed,
                "API error: This model's maximum context length is 4096 tokens. However, you requested 5012 tokens. (BadRequestError)"
            ),
        ]
    );
}
