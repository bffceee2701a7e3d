//! Streams saved to a file: server-sent-event captures of OpenAI chat completions, OpenAI
//! Responses, Anthropic Messages and Gemini, and Ollama's NDJSON, each put back together as
//! its SDK does, whatever the file is called.

use crate::support::loaded;

use bracewalk::logs::{EventKind, Format, StopReason};
use loaded::{load, one};
use serde_json::{Value, json};

/// `data:` lines (and `event:` lines where the provider names its events), CRLF if asked.
fn sse(events: &[(Option<&str>, Value)], crlf: bool) -> String {
    let nl = if crlf { "\r\n" } else { "\n" };
    let mut out = String::new();
    for (name, data) in events {
        if let Some(n) = name {
            out.push_str(&format!("event: {n}{nl}"));
        }
        out.push_str(&format!("data: {data}{nl}{nl}"));
    }
    out
}

fn chunk(delta: Value, finish: Option<&str>) -> (Option<&'static str>, Value) {
    (
        None,
        json!({"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1718000000, "model": "gpt-4o-mini",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": null}]}),
    )
}

#[test]
fn an_openai_chat_stream_is_its_deltas_and_its_last_usage() {
    let mut events = vec![
        chunk(json!({"role": "assistant", "content": ""}), None),
        // A compatible server's reasoning deltas are not the reply.
        chunk(json!({"reasoning_content": "The user wants JSON."}), None),
        chunk(json!({"content": "{\"a\":"}), None),
        chunk(json!({"content": " 1, \"b\": [\"x\""}), None),
        chunk(json!({}), Some("length")),
    ];
    events.push((
        None,
        json!({"id": "chatcmpl-9", "object": "chat.completion.chunk", "choices": [],
               "usage": {"prompt_tokens": 9, "completion_tokens": 16, "total_tokens": 25}}),
    ));
    let capture = sse(&events, true) + "data: [DONE]\r\n\r\n";
    let (_dir, got) = one("chat.sse", &capture);
    let got = got.clean();
    assert_eq!(got.texts(), [("{\"a\": 1, \"b\": [\"x\"", StopReason::Truncated, Some("length"))]);
    let r = &got.replies[0];
    assert_eq!((r.id.as_str(), r.line, r.meta.format), ("chatcmpl-9", Some(1), Format::OpenAiChatStream));
    assert_eq!(
        (r.meta.tokens.input, r.meta.tokens.output, r.meta.model.as_deref()),
        (Some(9), Some(16), Some("gpt-4o-mini"))
    );
}

#[test]
fn a_stream_is_told_by_its_content_whatever_its_name() {
    let capture =
        sse(&[chunk(json!({"content": "hi"}), None), chunk(json!({}), Some("stop"))], false) + "data: [DONE]\n\n";
    for name in ["capture.txt", "stream.log", "response", "x.json"] {
        let (_dir, got) = one(name, &capture);
        assert_eq!(got.clean().texts(), [("hi", StopReason::Finished, Some("stop"))], "{name}");
    }
    // Prose that opens with "data:" is a reply, as written.
    let (_dir, got) = one("notes.txt", "data: the figures below\n\nare from 2024\n");
    assert_eq!(got.clean().replies[0].meta.format, Format::Text);
}

#[test]
fn a_chat_stream_cut_short_gives_what_arrived_marked_truncated() {
    let capture = sse(&[chunk(json!({"content": "{\"a\": [1, "}), None), chunk(json!({"content": "2"}), None)], false);
    let (_dir, got) = one("cut.sse", &capture);
    assert_eq!(got.clean().texts(), [("{\"a\": [1, 2", StopReason::Truncated, Some("stream cut short"))]);
    let tools = sse(
        &[
            chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                  "function": {"name": "lookup", "arguments": ""}}]}),
                None,
            ),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}), None),
            chunk(json!({}), Some("tool_calls")),
        ],
        false,
    ) + "data: [DONE]\n\n";
    let (_dir, got) = one("tools.sse", &tools);
    assert_eq!(got.clean().kinds(), [(EventKind::ToolCall, "tool call: lookup")]);
}

fn responses_events(terminal: Option<(&'static str, Value)>) -> Vec<(Option<&'static str>, Value)> {
    let mut events = vec![
        (
            Some("response.created"),
            json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1",
            "object": "response", "status": "in_progress", "model": "gpt-4.1-mini", "output": []}}),
        ),
        (
            Some("response.reasoning_summary_text.delta"),
            json!({"type": "response.reasoning_summary_text.delta",
            "sequence_number": 1, "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "Thinking"}),
        ),
        (
            Some("response.output_text.delta"),
            json!({"type": "response.output_text.delta", "sequence_number": 4,
            "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "{\"a\":", "logprobs": []}),
        ),
        (
            Some("response.output_text.delta"),
            json!({"type": "response.output_text.delta", "sequence_number": 5,
            "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": " 1", "logprobs": []}),
        ),
    ];
    if let Some((name, response)) = terminal {
        events.push((Some(name), json!({"type": name, "sequence_number": 9, "response": response})));
    }
    events
}

#[test]
fn a_responses_stream_ends_in_its_whole_response_or_its_deltas() {
    let incomplete = json!({"id": "resp_1", "object": "response", "model": "gpt-4.1-mini", "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Thinking"}]},
                   {"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "{\"a\": 1", "annotations": []}]}],
        "usage": {"input_tokens": 9, "output_tokens": 16, "total_tokens": 25}});
    let (_dir, got) = one("responses.sse", &sse(&responses_events(Some(("response.incomplete", incomplete))), false));
    let got = got.clean();
    assert_eq!(got.texts(), [("{\"a\": 1", StopReason::Truncated, Some("incomplete: max_output_tokens"))]);
    assert_eq!((got.replies[0].id.as_str(), got.replies[0].meta.tokens.output), ("resp_1", Some(16)));
    assert_eq!(got.replies[0].meta.format, Format::OpenAiResponsesStream);

    let (_dir, got) = one("responses-cut.sse", &sse(&responses_events(None), false));
    assert_eq!(got.clean().texts(), [("{\"a\": 1", StopReason::Truncated, Some("stream cut short"))]);
}

fn anthropic_events(text_deltas: &[&str], stop: Option<&str>) -> String {
    let mut events = vec![
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 12, "output_tokens": 1, "cache_read_input_tokens": 3}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Plan the JSON."}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}}),
        ),
        (Some("content_block_stop"), json!({"type": "content_block_stop", "index": 0})),
        (Some("ping"), json!({"type": "ping"})),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        ),
    ];
    for d in text_deltas {
        events.push((
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": d}}),
        ));
    }
    if let Some(stop) = stop {
        events.push((Some("content_block_stop"), json!({"type": "content_block_stop", "index": 1})));
        events.push((
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 16}}),
        ));
        events.push((Some("message_stop"), json!({"type": "message_stop"})));
    }
    sse(&events, false)
}

#[test]
fn an_anthropic_stream_joins_its_text_blocks_and_leaves_thinking_out() {
    let (_dir, got) = one("messages.sse", &anthropic_events(&["{\"a\": ", "1"], Some("max_tokens")));
    let got = got.clean();
    assert_eq!(got.texts(), [("{\"a\": 1", StopReason::Truncated, Some("max_tokens"))]);
    let m = &got.replies[0].meta;
    assert_eq!(
        (got.replies[0].id.as_str(), m.format, m.model.as_deref()),
        ("msg_01", Format::AnthropicStream, Some("claude-sonnet-4-5"))
    );
    assert_eq!((m.tokens.input, m.tokens.output, m.tokens.cache_read), (Some(12), Some(16), Some(3)));

    let (_dir, got) = one("cut.sse", &anthropic_events(&["{\"a\": "], None));
    assert_eq!(got.clean().texts(), [("{\"a\": ", StopReason::Truncated, Some("stream cut short"))]);

    // Two messages in one capture, the second an error.
    let two = anthropic_events(&["one"], Some("end_turn"))
        + "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";
    let (_dir, got) = one("two.sse", &two);
    let got = got.clean();
    assert_eq!(got.texts(), [("one", StopReason::Finished, Some("end_turn"))]);
    assert_eq!(got.kinds(), [(EventKind::Failed, "API error: Overloaded (overloaded_error)")]);
}

#[test]
fn an_anthropic_stream_of_a_tool_call_is_a_call_without_a_reply() {
    let events = [
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "msg_t", "type": "message", "role": "assistant",
            "model": "c", "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use",
            "id": "toolu_1", "name": "get_weather", "input": {}}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"city\":"}}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ];
    let (_dir, got) = one("tool.sse", &sse(&events, false));
    assert_eq!(got.clean().kinds(), [(EventKind::ToolCall, "tool call: get_weather")]);
}

#[test]
fn a_gemini_stream_joins_candidate_zero_and_takes_the_last_usage() {
    let part = |t: &str, thought: bool| if thought { json!({"text": t, "thought": true}) } else { json!({"text": t}) };
    let c = |parts: Vec<Value>, finish: Option<&str>, usage: Value| {
        (
            None,
            json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
                      "usageMetadata": usage, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}),
        )
    };
    let events = [
        c(vec![part("**Planning**", true)], None, json!({"promptTokenCount": 9, "totalTokenCount": 9})),
        c(vec![part("{\"a\":", false)], None, json!({"promptTokenCount": 9, "totalTokenCount": 12})),
        c(
            vec![part(" 1}", false)],
            None,
            json!({"promptTokenCount": 9, "candidatesTokenCount": 5, "totalTokenCount": 30}),
        ),
        // The finish reason alone in a last chunk, as some models send it.
        c(
            vec![part("", false)],
            Some("STOP"),
            json!({"promptTokenCount": 9, "candidatesTokenCount": 6, "totalTokenCount": 31}),
        ),
    ];
    let (_dir, got) = one("gemini.sse", &sse(&events, true));
    let got = got.clean();
    assert_eq!(got.texts(), [("{\"a\": 1}", StopReason::Finished, Some("STOP"))]);
    let m = &got.replies[0].meta;
    assert_eq!((got.replies[0].id.as_str(), m.format, m.tokens.output), ("r1", Format::GeminiStream, Some(6)));

    let cut = [c(vec![part("{\"a\":", false)], None, json!({}))];
    let (_dir, got) = one("gemini-cut.sse", &sse(&cut, false));
    assert_eq!(got.clean().texts(), [("{\"a\":", StopReason::Truncated, Some("stream cut short"))]);
    let max = [c(vec![part("{\"a\":", false)], Some("MAX_TOKENS"), json!({}))];
    let (_dir, got) = one("gemini-max.sse", &sse(&max, false));
    assert_eq!(got.clean().texts(), [("{\"a\":", StopReason::Truncated, Some("MAX_TOKENS"))]);
}

#[test]
fn several_data_lines_make_one_payload_and_lost_blank_lines_are_forgiven() {
    // One event whose JSON is split over two `data:` lines, then two events run together.
    let capture = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\ndata: \"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n\
                   data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n\
                   data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
                   data: [DONE]\n\n";
    let (_dir, got) = one("lines.sse", capture);
    assert_eq!(got.clean().texts(), [("ab", StopReason::Finished, Some("stop"))]);
}

#[test]
fn an_ollama_stream_is_its_chunks_until_done() {
    let chunk = |content: &str, thinking: Option<&str>| {
        let mut m = json!({"role": "assistant", "content": content});
        if let Some(t) = thinking {
            m["thinking"] = json!(t);
        }
        json!({"model": "qwen3:4b", "created_at": "2026-05-01T10:00:00Z", "message": m, "done": false})
    };
    let done = json!({"model": "qwen3:4b", "created_at": "2026-05-01T10:00:02Z", "message": {"role": "assistant", "content": ""},
                      "done": true, "done_reason": "length", "total_duration": 2_000_000_000u64, "prompt_eval_count": 9, "eval_count": 3});
    let lines = [chunk("", Some("Let me think.")), chunk("{\"a\"", None), chunk(": 1", None), done.clone()];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (_dir, got) = one("ollama.ndjson", &text);
    let got = got.clean();
    assert_eq!(got.texts(), [("{\"a\": 1", StopReason::Truncated, Some("length"))]);
    let r = &got.replies[0];
    assert_eq!(
        (r.line, r.meta.format, r.meta.tokens.output, r.meta.duration_ms),
        (Some(1), Format::OllamaStream, Some(3), Some(2000))
    );

    let cut: String = lines[..3].iter().map(|l| format!("{l}\n")).collect();
    let (_dir, got) = one("ollama-cut.log", &cut);
    assert_eq!(got.clean().texts(), [("{\"a\": 1", StopReason::Truncated, Some("stream cut short"))]);
}

#[test]
fn a_gemini_stream_saved_as_a_json_array_is_one_reply_and_whole_responses_stay_apart() {
    // `streamGenerateContent` without `alt=sse`: a JSON array of chunks.
    let c = |t: &str, finish: Option<&str>, id: &str| {
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}, "finishReason": finish, "index": 0}],
               "usageMetadata": {"promptTokenCount": 4}, "modelVersion": "gemini-2.5-flash", "responseId": id})
    };
    let stream = json!([
        c("{\"a\":", None, "s1"),
        c(" 1}", Some("STOP"), "s1"),
        c("{\"b\":", None, "s2"),
        c(" 2", Some("MAX_TOKENS"), "s2")
    ]);
    let (_dir, got) = one("stream.json", &serde_json::to_string_pretty(&stream).unwrap());
    let got = got.clean();
    assert_eq!(
        got.texts(),
        [("{\"a\": 1}", StopReason::Finished, Some("STOP")), ("{\"b\": 2", StopReason::Truncated, Some("MAX_TOKENS"))]
    );
    assert_eq!(got.replies[0].meta.format, Format::GeminiStream);
    // An array of whole responses, each finished, and no ids: a reply each.
    let whole = json!([c("one", Some("STOP"), ""), c("two", Some("STOP"), "")]);
    let (_dir, got) = one("responses.json", &whole.to_string());
    let got = got.clean();
    assert_eq!(got.texts().iter().map(|t| t.0).collect::<Vec<_>>(), ["one", "two"]);
    assert_eq!(got.replies[0].meta.format, Format::Gemini);
    // Cut short: the array's last chunk has no finish reason.
    let cut = json!([c("{\"a\":", None, "s3"), c(" [1,", None, "s3")]);
    let (_dir, got) = one("cut.json", &cut.to_string());
    assert_eq!(got.clean().texts(), [("{\"a\": [1,", StopReason::Truncated, Some("stream cut short"))]);
}

fn fixtures(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats").join(name)
}

#[test]
fn an_openai_compatible_stream_is_one_reply_whatever_ids_its_chunks_carry() {
    let got = load(&[&fixtures("openai-stream/groq-compound.sse")]).clean();
    assert_eq!(got.texts(), [("{\"city\": \"San Francisco\", \"temp_c\": 17", StopReason::Truncated, Some("length"))]);
    let r = &got.replies[0];
    // The first chunk's id, as openai-python reports it; the ids said to vary.
    assert_eq!(r.id, "chatcmpl-03ea1ed2-c2dc-4f8d-ba51-54e08ca9287c");
    assert_eq!(r.meta.extra, [("chunk_ids".to_owned(), "vary".to_owned())]);
    assert_eq!((r.meta.tokens.input, r.meta.tokens.output), (Some(1200), Some(16)));
}
