//! Eval frameworks and traces: Inspect AI logs (`.eval` archives, deflated and zstd, and
//! `.json` logs with Python's NaN), OpenTelemetry GenAI spans in OTLP/JSON, and promptfoo's
//! `eval -o out.json`.

use crate::support::loaded;

use std::io::Write;
use std::path::Path;

use bracewalk::logs::{EventKind, Format, StopReason};
use loaded::{load, one, write};
use serde_json::{Value, json};

fn header() -> Value {
    json!({"version": 2, "status": "success",
           "eval": {"eval_id": "E1", "run_id": "R1", "created": "2026-05-01T10:00:00+00:00", "task": "ada_json",
                    "task_id": "T1", "task_version": 0, "model": "anthropic/claude-sonnet-4-5", "config": {}},
           "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}]},
           "results": {"total_samples": 3, "completed_samples": 3}, "stats": {"started_at": "s", "completed_at": "c"}})
}

fn sample(id: Value, epoch: u64, content: Value, completion: &str, stop: &str) -> Value {
    json!({"id": id, "epoch": epoch, "input": "Give Ada as JSON", "target": "{\"name\":\"Ada\"}",
           "messages": [{"role": "user", "content": "Give Ada as JSON"}],
           "output": {"model": "claude-sonnet-4-5", "choices": [{"message": {"role": "assistant", "content": content,
                        "source": "generate"}, "stop_reason": stop}],
                      "completion": completion, "usage": {"input_tokens": 20, "output_tokens": 64, "total_tokens": 84,
                        "input_tokens_cache_read": 5}, "time": 2.1},
           "scores": {"match": {"value": "C"}}, "metadata": {}, "total_time": 2.5,
           "started_at": "2026-05-01T10:00:00+00:00", "completed_at": "2026-05-01T10:00:02+00:00", "error": null})
}

fn samples() -> Vec<Value> {
    vec![
        sample(
            json!(1),
            1,
            json!([{"type": "reasoning", "reasoning": "The user wants JSON.", "signature": "s"},
                                   {"type": "text", "text": "{\"name\": \"Ada\"}"}]),
            "{\"name\": \"Ada\"}",
            "stop",
        ),
        // `completion` left empty: the text parts are the reply, joined as Inspect joins them.
        sample(
            json!("two"),
            1,
            json!([{"type": "reasoning", "reasoning": "hmm"}, {"type": "text", "text": "{\"name\":"},
                                       {"type": "text", "text": "\"Ad"}]),
            "",
            "max_tokens",
        ),
        {
            let mut failed = sample(json!(3), 2, json!(""), "", "unknown");
            failed["output"] = json!({"model": "claude-sonnet-4-5", "choices": [], "completion": ""});
            failed["error"] = json!({"message": "RateLimitError: 429", "traceback": "…"});
            failed
        },
    ]
}

/// A `.eval` archive written the way Inspect writes one, its members compressed by `method`.
fn eval_archive(path: &Path, method: zip::CompressionMethod) {
    let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(method);
    w.start_file("_journal/start.json", opts).unwrap();
    w.write_all(json!({"version": 2, "eval": header()["eval"], "plan": header()["plan"]}).to_string().as_bytes())
        .unwrap();
    for s in samples() {
        let id = match &s["id"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        w.start_file(format!("samples/{id}_epoch_{}.json", s["epoch"]), opts).unwrap();
        w.write_all(s.to_string().as_bytes()).unwrap();
    }
    w.start_file("summaries.json", opts).unwrap();
    w.write_all(b"[]").unwrap();
    w.start_file("header.json", opts).unwrap();
    w.write_all(header().to_string().as_bytes()).unwrap();
    w.finish().unwrap();
}

fn check_samples(got: &loaded::Loaded, base: &str) {
    assert_eq!(
        got.texts(),
        [
            ("{\"name\": \"Ada\"}", StopReason::Finished, Some("stop")),
            ("{\"name\":\n\"Ad", StopReason::Truncated, Some("max_tokens")),
        ]
    );
    let r = &got.replies[0];
    assert_eq!(r.id, format!("{base}#1_epoch_1"));
    let m = &r.meta;
    assert_eq!(
        (m.format, m.round.as_deref(), m.model.as_deref()),
        (Format::Inspect, Some("ada_json"), Some("claude-sonnet-4-5"))
    );
    assert_eq!(m.extra, [("sample".to_owned(), "1".to_owned()), ("epoch".to_owned(), "1".to_owned())]);
    assert_eq!(
        (m.tokens.input, m.tokens.output, m.tokens.cache_read, m.duration_ms),
        (Some(20), Some(64), Some(5), Some(2500))
    );
    assert_eq!(got.replies[1].id, format!("{base}#two_epoch_1"));
    assert_eq!(got.kinds(), [(EventKind::Failed, "RateLimitError: 429")]);
    assert_eq!(got.events[0].id, format!("{base}#3_epoch_2"));
}

#[test]
fn an_eval_archive_opens_deflated_and_zstd() {
    let dir = tempfile::tempdir().unwrap();
    for (name, method) in
        [("deflated.eval", zip::CompressionMethod::Deflated), ("zstd.eval", zip::CompressionMethod::Zstd)]
    {
        let path = dir.path().join(name);
        eval_archive(&path, method);
        let got = load(&[&path]).clean();
        check_samples(&got, &path.display().to_string());
    }
}

/// The CRC-32 a zip entry carries (IEEE, reflected), bit by bit: the test's one use.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A zip of stored-size members compressed with method 93 (zstd) as given, laid out by hand:
/// Inspect caps a zstd frame, so a large member is several frames, which the zip crate's
/// writer never makes.
fn zip_by_hand(members: &[(&str, Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for (name, plain, packed) in members {
        let offset = out.len() as u32;
        let fields = |v: &mut Vec<u8>| {
            v.extend_from_slice(&63u16.to_le_bytes()); // version needed
            v.extend_from_slice(&0u16.to_le_bytes()); // flags
            v.extend_from_slice(&93u16.to_le_bytes()); // zstd
            v.extend_from_slice(&[0, 0, 0x21, 0]); // time, date
            v.extend_from_slice(&crc32(plain).to_le_bytes());
            v.extend_from_slice(&(packed.len() as u32).to_le_bytes());
            v.extend_from_slice(&(plain.len() as u32).to_le_bytes());
            v.extend_from_slice(&(name.len() as u16).to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes()); // extra
        };
        out.extend_from_slice(b"PK\x03\x04");
        fields(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(packed);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&63u16.to_le_bytes()); // made by
        fields(&mut central);
        central.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let at = out.len() as u32;
    let n = members.len() as u16;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

#[test]
fn a_zstd_member_of_several_frames_reads_whole() {
    let text = "{\"name\": \"Ada\"}".repeat(3);
    let s = sample(json!(1), 1, json!(text), &text, "stop").to_string();
    let (a, b) = s.as_bytes().split_at(s.len() / 2);
    let frames = [zstd::encode_all(a, 3).unwrap(), zstd::encode_all(b, 3).unwrap()].concat();
    let head = header().to_string().into_bytes();
    let archive = zip_by_hand(&[
        ("header.json", head.clone(), zstd::encode_all(head.as_slice(), 3).unwrap()),
        ("samples/1_epoch_1.json", s.clone().into_bytes(), frames),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frames.eval");
    std::fs::write(&path, archive).unwrap();
    let got = load(&[&path]).clean();
    assert_eq!(got.texts(), [(text.as_str(), StopReason::Finished, Some("stop"))]);
}

#[test]
fn a_json_log_with_nan_scores_opens_and_streams_its_samples() {
    let mut log = header();
    log["results"] =
        json!({"scores": [{"name": "match", "metrics": {"accuracy": {"value": 0.5}, "stderr": {"value": 0.1}}}]});
    log["samples"] = Value::Array(samples());
    let pretty = serde_json::to_string_pretty(&log).unwrap();
    // Python's json.dumps writes a float that is no number as a bare word.
    let pretty = pretty.replace("\"value\": 0.1", "\"value\": NaN").replace("\"value\": 0.5", "\"value\": Infinity");
    assert!(pretty.contains("NaN") && pretty.contains("Infinity"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2026-05-01T10-00-00_ada-json_E1.json");
    write(&path, &pretty);
    let got = load(&[&path]).clean();
    check_samples(&got, &path.display().to_string());
}

fn attr(key: &str, value: Value) -> Value {
    let v = match value {
        Value::String(s) => json!({"stringValue": s}),
        Value::Number(n) => json!({"intValue": n.to_string()}),
        other => other,
    };
    json!({"key": key, "value": v})
}

fn span(name: &str, span_id: &str, attributes: Vec<Value>) -> Value {
    json!({"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": span_id, "name": name, "kind": 3,
           "startTimeUnixNano": "1718000000000000000", "endTimeUnixNano": "1718000001200000000",
           "attributes": attributes, "status": {}})
}

fn spans(spans: Vec<Value>) -> Value {
    json!({"resourceSpans": [{"resource": {"attributes": [attr("service.name", json!("rag-api"))]},
           "scopeSpans": [{"scope": {"name": "instrumentation"}, "spans": spans}]}]})
}

#[test]
fn an_otlp_file_yields_exactly_its_genai_replies() {
    let messages = json!([{"role": "assistant", "parts": [{"type": "reasoning", "content": "Thinking it over."},
        {"type": "text", "content": "{\"a\": 1"}], "finish_reason": "length"}]);
    let structured = json!({"arrayValue": {"values": [{"kvlistValue": {"values": [
        {"key": "role", "value": {"stringValue": "assistant"}},
        {"key": "parts", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": [
            {"key": "type", "value": {"stringValue": "text"}}, {"key": "content", "value": {"stringValue": "{\"b\": 2}"}}]}}]}}},
        {"key": "finish_reason", "value": {"stringValue": "stop"}}]}}]}});
    let line1 = spans(vec![
        span(
            "GET /search",
            "a1",
            vec![attr("http.request.method", json!("GET")), attr("http.response.status_code", json!(200))],
        ),
        span(
            "chat gpt-4o",
            "a2",
            vec![
                attr("gen_ai.operation.name", json!("chat")),
                attr("gen_ai.provider.name", json!("openai")),
                attr("gen_ai.response.model", json!("gpt-4o-2024-08-06")),
                attr("gen_ai.response.id", json!("chatcmpl-9J3u")),
                json!({"key": "gen_ai.response.finish_reasons", "value": {"arrayValue": {"values": [{"stringValue": "length"}]}}}),
                attr("gen_ai.usage.input_tokens", json!(12)),
                attr("gen_ai.usage.output_tokens", json!(200)),
                attr("gen_ai.output.messages", json!(messages.to_string())),
            ],
        ),
        span("SELECT docs", "a3", vec![attr("db.system.name", json!("postgresql"))]),
        span(
            "chat claude",
            "a4",
            vec![
                attr("gen_ai.operation.name", json!("chat")),
                attr("gen_ai.request.model", json!("claude-sonnet-4-5")),
                json!({"key": "gen_ai.output.messages", "value": structured}),
            ],
        ),
        // A GenAI span that recorded no output (content capture is off by default): no reply.
        span(
            "embeddings",
            "a5",
            vec![attr("gen_ai.operation.name", json!("embeddings")), attr("gen_ai.usage.input_tokens", json!(4))],
        ),
    ]);
    let line2 = spans(vec![
        // OpenLLMetry's flattened attributes.
        span(
            "openai.chat",
            "b1",
            vec![
                attr("llm.request.type", json!("chat")),
                attr("gen_ai.system", json!("OpenAI")),
                attr("gen_ai.request.model", json!("gpt-4o-mini")),
                attr("gen_ai.completion.0.role", json!("assistant")),
                attr("gen_ai.completion.0.content", json!("{\"c\": 3}")),
                attr("gen_ai.completion.0.finish_reason", json!("stop")),
                attr("gen_ai.usage.completion_tokens", json!(7)),
            ],
        ),
        // The older `gen_ai.completion` attribute.
        span(
            "chat mistral",
            "b2",
            vec![
                attr("gen_ai.system", json!("mistral_ai")),
                attr("gen_ai.completion", json!("[{\"role\": \"assistant\", \"content\": \"{\\\"d\\\": 4}\"}]")),
            ],
        ),
    ]);
    let line3 = json!({"resourceLogs": [{"resource": {"attributes": []}, "scopeLogs": [{"scope": {"name": "x"}, "logRecords": [
        {"timeUnixNano": "1718000002000000000", "eventName": "gen_ai.choice", "spanId": "c1",
         "attributes": [attr("gen_ai.system", json!("openai"))],
         "body": {"kvlistValue": {"values": [{"key": "index", "value": {"intValue": "0"}},
             {"key": "finish_reason", "value": {"stringValue": "stop"}},
             {"key": "message", "value": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "{\"e\": 5}"}}]}}}]}}},
        {"timeUnixNano": "1718000002000000000", "severityText": "INFO", "body": {"stringValue": "request done"}},
    ]}]}]});
    let text = [line1, line2, line3].iter().map(|l| format!("{l}\n")).collect::<String>();
    let (_dir, got) = one("traces.jsonl", &text);
    let got = got.clean();
    assert_eq!(
        got.texts(),
        [
            ("{\"a\": 1", StopReason::Truncated, Some("length")),
            ("{\"b\": 2}", StopReason::Finished, Some("stop")),
            ("{\"c\": 3}", StopReason::Finished, Some("stop")),
            ("{\"d\": 4}", StopReason::Unknown, None),
            ("{\"e\": 5}", StopReason::Finished, Some("stop")),
        ]
    );
    assert!(got.events.is_empty(), "{:?}", got.events);
    let r = &got.replies[0];
    assert_eq!((r.id.as_str(), r.line, r.meta.format), ("chatcmpl-9J3u", Some(1), Format::Otel));
    assert_eq!((r.meta.model.as_deref(), r.meta.provider.as_deref()), (Some("gpt-4o-2024-08-06"), Some("openai")));
    assert_eq!((r.meta.tokens.input, r.meta.tokens.output, r.meta.duration_ms), (Some(12), Some(200), Some(1200)));
    assert_eq!(r.meta.ts.as_deref(), Some("2024-06-10T06:13:20.000Z"));
    assert_eq!(got.replies[1].id, "a4");
    assert_eq!(got.replies[2].meta.tokens.output, Some(7));
}

#[test]
fn a_promptfoo_output_gives_a_reply_per_result() {
    let result = |idx: u64, output: Value, finish: Option<&str>| {
        json!({"id": format!("r{idx}"), "promptIdx": 0, "testIdx": idx, "provider": {"id": "openai:gpt-4o-mini", "label": ""},
               "prompt": {"raw": "Return JSON for {{who}}", "label": "json-prompt"}, "vars": {"who": "Ada"},
               "response": {"output": output, "finishReason": finish, "tokenUsage": {"total": 30, "prompt": 14, "completion": 16},
                            "cached": false},
               "success": true, "score": 1, "latencyMs": 812})
    };
    let mut failed = result(3, Value::Null, None);
    failed["response"] = json!({"error": "API error: 500 Internal Server Error"});
    failed["error"] = json!("API error: 500 Internal Server Error");
    let doc = json!({"evalId": "eval-abc", "results": {"version": 3, "timestamp": "2026-05-01T10:00:00Z",
        "prompts": [{"raw": "Return JSON for {{who}}", "label": "json-prompt", "provider": "openai:gpt-4o-mini"}],
        "results": [result(0, json!("{\"name\": \"Ada\"}"), None), result(1, json!("{\"name\": \"A"), Some("length")),
                    result(2, json!({"name": "Ada"}), None), failed],
        "stats": {"successes": 3, "failures": 1}}, "config": {}, "shareableUrl": null});
    let (_dir, got) = one("out.json", &serde_json::to_string_pretty(&doc).unwrap());
    let got = got.clean();
    assert_eq!(
        got.texts(),
        [("{\"name\": \"Ada\"}", StopReason::Unknown, None), ("{\"name\": \"A", StopReason::Truncated, Some("length"))]
    );
    let m = &got.replies[0].meta;
    assert_eq!(
        (got.replies[0].id.as_str(), m.format, m.provider.as_deref()),
        ("r0", Format::Promptfoo, Some("openai:gpt-4o-mini"))
    );
    assert!(
        m.extra.contains(&("prompt".to_owned(), "json-prompt".to_owned()))
            && m.extra.contains(&("test".to_owned(), "0".to_owned()))
    );
    assert_eq!((m.tokens.input, m.tokens.output, m.duration_ms), (Some(14), Some(16), Some(812)));
    assert_eq!(
        got.kinds(),
        [
            (EventKind::Empty, "the output is a JSON value, not text"),
            (EventKind::Failed, "API error: 500 Internal Server Error")
        ]
    );
}
