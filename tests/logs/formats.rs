//! Every format the loading layer (`logs`) reads, from fixtures made here: what each reply's text and
//! metadata come out as, and how a file is recognized by its content.

use crate::support::loaded;

use std::fs;
use std::path::Path;

use bracewalk::logs::{self, EventKind, Format, LoadOptions, StopReason};
use loaded::{load, load_with};
use serde_json::json;

fn jsonl(values: &[serde_json::Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn call(ts: &str, agent: &str, phase: &str, image: Option<&str>, output: &str) -> serde_json::Value {
    json!({"ts": ts, "type": "agent_call", "phase": phase, "agent": agent, "image": image,
           "capabilities": ["vision"], "agent_sha": "0123abcd", "agent_content": null, "output": output})
}

fn model(ts: &str, agent: &str, model: &str, ok: bool, out: u64) -> serde_json::Value {
    json!({"ts": ts, "type": "model_call", "agent": agent, "step": "page", "capability": "vision", "model": model,
           "provider": "bedrock", "duration_ms": 9000, "ok": ok, "input_tokens": 3000, "output_tokens": out,
           "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0})
}

/// A bench campaign: two rounds side by side, a ledger each, run directories with every file.
fn campaign(root: &Path) {
    for (round, outcome) in [("round-1", "ready_for_review"), ("round-2", "failed")] {
        let dir = root.join(round);
        write(
            &dir.join("ledger.jsonl"),
            &jsonl(&[
                json!({"id": "doc-a", "session_id": "s1", "outcome": outcome, "round_trip_ms": 1200, "at": "2025-05-01T10:00:00Z"}),
            ]),
        );
        let run = dir.join("doc-a");
        let mut events = vec![
            json!({"ts": "2025-05-01T09:00:00.000Z", "type": "run_start", "pages": 2}),
            json!({"ts": "2025-05-01T09:00:00.010Z", "type": "phase", "phase": "extraction"}),
            model("2025-05-01T09:00:09.000Z", "page", "m-p1", true, 120),
            model("2025-05-01T09:00:09.500Z", "page", "m-p2", true, 240),
            call(
                "2025-05-01T09:00:09.503Z",
                "page.md",
                "extraction",
                Some("doc-a-p2.png"),
                "{\"html\": \"<p>two</p>\"}",
            ),
            call(
                "2025-05-01T09:00:09.504Z",
                "page.md",
                "extraction",
                Some("doc-a-p1.png"),
                "{\"html\": \"<p>one</p>\"}",
            ),
            json!({"ts": "2025-05-01T09:00:12.000Z", "type": "page_verify_failed", "image": "doc-a-p1.png", "problems": [{"issue": "x"}]}),
            json!({"ts": "2025-05-01T09:00:12.100Z", "type": "page_verify_ok", "image": "doc-a-p2.png"}),
            json!({"ts": "2025-05-01T09:01:00.000Z", "type": "phase", "phase": "review"}),
            model("2025-05-01T09:01:30.000Z", "reader", "m-r", true, 50),
            call("2025-05-01T09:01:30.003Z", "reader.md", "review", None, "{\"issues\": []}"),
            json!({"ts": "2025-05-01T09:01:30.005Z", "type": "reader", "iteration": 0, "issues": 0}),
        ];
        events.push(if outcome == "failed" {
            json!({"ts": "2025-05-01T09:02:00.000Z", "type": "run_failed", "error": "bedrock: throttled"})
        } else {
            json!({"ts": "2025-05-01T09:02:00.000Z", "type": "run_complete", "iterations": 0, "unresolved": 0})
        });
        write(&run.join("log.jsonl"), &jsonl(&events));
        write(
            &run.join("meta.json"),
            &json!({"id": "doc-a", "sha256": "ab", "outcome": outcome, "polls": 3}).to_string(),
        );
        write(&run.join("status.json"), &json!({"session_id": "s1", "status": outcome, "phase": "done"}).to_string());
        write(
            &run.join("diagnostics.json"),
            &json!({"session_id": "s1", "status": outcome, "model_calls": {}}).to_string(),
        );
        write(&run.join("output.html"), "<!doctype html><html><body><p>one</p><p>two</p></body></html>");
    }
}

#[test]
fn a_run_log_gives_its_replies_with_agent_page_round_and_the_paired_model_call() {
    let dir = tempfile::tempdir().unwrap();
    campaign(dir.path());
    let got = load(&[dir.path()]);
    assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
    // output.html, meta.json, status.json, diagnostics.json and the ledger are context.
    assert_eq!(got.replies.len(), 6);
    let r = &got.replies[0];
    assert_eq!(r.source, dir.path().join("round-1/doc-a/log.jsonl"));
    assert_eq!((r.line, r.id.ends_with("log.jsonl:5")), (Some(5), true));
    assert_eq!(r.text, "{\"html\": \"<p>two</p>\"}");
    let m = &r.meta;
    assert_eq!(m.format, Format::RunLog);
    assert_eq!((m.agent.as_deref(), m.phase.as_deref(), m.page), (Some("page"), Some("extraction"), Some(2)));
    assert_eq!((m.round.as_deref(), m.document.as_deref()), (Some("round-1"), Some("doc-a")));
    assert_eq!(m.document_outcome.as_deref(), Some("ready_for_review"));
    assert_eq!(m.run_outcome.as_deref(), Some("complete"));
    assert_eq!(m.ts.as_deref(), Some("2025-05-01T09:00:09.503Z"));
    // Interleaved: page 2's reply follows page 2's model call, the nearest before it.
    assert_eq!((m.model.as_deref(), m.tokens.output), (Some("m-p2"), Some(240)));
    assert_eq!(m.stop, StopReason::Finished);
    assert_eq!(m.page_verified, Some(true));
    assert!(m.is_inferred("model") && m.is_inferred("stop") && m.is_inferred("page_verified"));
    let p1 = &got.replies[1].meta;
    assert_eq!((p1.page, p1.model.as_deref(), p1.page_verified), (Some(1), Some("m-p1"), Some(false)));
    let reader = &got.replies[2].meta;
    assert_eq!((reader.agent.as_deref(), reader.iteration, reader.page), (Some("reader"), Some(0), None));
    let failed = &got.replies[3].meta;
    assert_eq!(failed.round.as_deref(), Some("round-2"));
    assert_eq!(failed.document_outcome.as_deref(), Some("failed"));
    assert_eq!(failed.run_outcome.as_deref(), Some("failed: bedrock: throttled"));
}

#[test]
fn a_truncated_call_is_an_event_in_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let mut cut = model("2025-05-01T09:00:01Z", "copy_editor", "m", false, 32000);
    cut["error"] = json!("bedrock: response hit the 32000-token output ceiling and was truncated (99 chars returned).");
    let mut stalled = model("2025-05-01T09:00:02Z", "page", "m", false, 0);
    stalled["error"] = json!("bedrock: no output arrived within 60s");
    write(
        &log,
        &jsonl(&[
            cut,
            json!({"ts": "2025-05-01T09:00:01.5Z", "type": "editor", "iteration": 2}),
            stalled,
            call("2025-05-01T09:00:03Z", "page.md", "extraction", Some("d-p4.png"), "x"),
        ]),
    );
    let got = load(&[&log]);
    assert_eq!(got.events.len(), 2);
    let e = &got.events[0];
    assert_eq!(
        (e.kind, e.line, e.meta.stop, e.meta.iteration),
        (EventKind::Truncated, Some(1), StopReason::Truncated, Some(2))
    );
    assert_eq!((e.meta.agent.as_deref(), e.meta.tokens.output), (Some("copy_editor"), Some(32000)));
    assert_eq!(got.events[1].kind, EventKind::Failed);
    // A failed call is not paired with the reply that follows it.
    assert_eq!((got.replies[0].meta.model.as_deref(), got.replies[0].meta.stop), (None, StopReason::Unknown));
}

#[test]
fn anthropic_messages_one_per_file_and_one_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let msg = |id: &str, text: &str, stop: &str| {
        json!({"id": id, "type": "message", "role": "assistant", "model": "claude-x",
               "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": text}, {"type": "text", "text": "!"}],
               "stop_reason": stop, "usage": {"input_tokens": 10, "output_tokens": 20, "cache_read_input_tokens": 5}})
    };
    write(
        &dir.path().join("a.json"),
        &serde_json::to_string_pretty(&msg("msg_1", "{\"edits\": [{\"find\": \"a\"", "max_tokens")).unwrap(),
    );
    write(&dir.path().join("b.jsonl"), &jsonl(&[msg("msg_2", "one", "end_turn"), msg("msg_3", "two", "tool_use")]));
    let mut bedrock = msg("msg_bdrk_4", "three", "end_turn");
    bedrock["amazon-bedrock-invocationMetrics"] = json!({"invocationLatency": 900});
    // Named as text, read by content.
    write(&dir.path().join("c.txt"), &bedrock.to_string());
    let got = load(&[dir.path()]);
    assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
    let summary: Vec<_> = got.replies.iter().map(|r| (r.id.as_str(), r.text.as_str(), r.meta.stop, r.line)).collect();
    assert_eq!(
        summary,
        [
            ("msg_1", "{\"edits\": [{\"find\": \"a\"!", StopReason::Truncated, None),
            ("msg_2", "one!", StopReason::Finished, Some(1)),
            ("msg_3", "two!", StopReason::Other, Some(2)),
            ("msg_bdrk_4", "three!", StopReason::Finished, Some(1)),
        ]
    );
    let m = &got.replies[0].meta;
    assert_eq!(
        (m.format, m.model.as_deref(), m.stop_detail.as_deref()),
        (Format::Anthropic, Some("claude-x"), Some("max_tokens"))
    );
    assert_eq!((m.tokens.input, m.tokens.output, m.tokens.cache_read), (Some(10), Some(20), Some(5)));
}

#[test]
fn bedrock_converse_responses() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("converse.json");
    write(
        &path,
        &json!({"output": {"message": {"role": "assistant", "content": [{"text": "a"}, {"text": "b"}]}},
                "stopReason": "max_tokens", "usage": {"inputTokens": 1, "outputTokens": 2}, "metrics": {"latencyMs": 30}})
        .to_string(),
    );
    let got = load(&[&path]);
    let r = &got.replies[0];
    assert_eq!((r.text.as_str(), r.meta.format, r.meta.stop), ("ab", Format::BedrockConverse, StopReason::Truncated));
    assert_eq!((r.meta.tokens.output, r.meta.duration_ms), (Some(2), Some(30)));
}

#[test]
fn openai_chat_completions_and_batch_output() {
    let dir = tempfile::tempdir().unwrap();
    let chat = |id: &str, text: &str, finish: &str| {
        json!({"id": id, "object": "chat.completion", "model": "gpt-x",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
               "usage": {"prompt_tokens": 7, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 4}}})
    };
    write(&dir.path().join("chat.json"), &serde_json::to_string_pretty(&chat("chatcmpl-1", "cut", "length")).unwrap());
    write(
        &dir.path().join("batch.jsonl"),
        &jsonl(&[
            json!({"id": "batch_req_1", "custom_id": "page-3", "response": {"status_code": 200, "body": chat("c2", "page three", "stop")}, "error": null}),
            json!({"id": "batch_req_2", "custom_id": "page-4", "response": {"status_code": 429, "body": {"error": {"message": "rate limited"}}}, "error": null}),
            json!({"id": "batch_req_3", "custom_id": "page-5", "response": null, "error": {"code": "batch_expired", "message": "expired"}}),
        ]),
    );
    let got = load(&[dir.path()]);
    assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
    let replies: Vec<_> =
        got.replies.iter().map(|r| (r.id.as_str(), r.text.as_str(), r.meta.format, r.meta.stop)).collect();
    assert_eq!(
        replies,
        [
            ("page-3", "page three", Format::OpenAiBatch, StopReason::Finished),
            ("chatcmpl-1", "cut", Format::OpenAiChat, StopReason::Truncated),
        ]
    );
    assert_eq!(got.replies[1].meta.tokens.cache_read, Some(4));
    let events: Vec<_> = got
        .events
        .iter()
        .map(|e| (e.id.as_str(), e.kind, e.message.contains("rate limited") || e.message == "expired"))
        .collect();
    assert_eq!(events, [("page-4", EventKind::Failed, true), ("page-5", EventKind::Failed, true)]);
}

#[test]
fn openai_responses_take_the_output_text_of_message_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let resp = |id: &str, status: &str, reason: Option<&str>| {
        json!({"id": id, "object": "response", "status": status,
               "incomplete_details": reason.map(|r| json!({"reason": r})), "model": "gpt-y",
               "output": [{"type": "reasoning", "summary": []},
                          {"type": "message", "content": [{"type": "output_text", "text": "an"}, {"type": "refusal", "refusal": "no"}, {"type": "output_text", "text": "swer"}]}],
               "usage": {"input_tokens": 3, "output_tokens": 4, "input_tokens_details": {"cached_tokens": 1}}})
    };
    write(&dir.path().join("a.json"), &resp("resp_1", "completed", None).to_string());
    write(&dir.path().join("b.json"), &resp("resp_2", "incomplete", Some("max_output_tokens")).to_string());
    let got = load(&[dir.path()]);
    let r: Vec<_> = got
        .replies
        .iter()
        .map(|r| (r.id.as_str(), r.text.as_str(), r.meta.stop, r.meta.stop_detail.as_deref()))
        .collect();
    assert_eq!(
        r,
        [
            ("resp_1", "answer", StopReason::Finished, Some("completed")),
            ("resp_2", "answer", StopReason::Truncated, Some("incomplete: max_output_tokens")),
        ]
    );
    assert_eq!((got.replies[0].meta.format, got.replies[0].meta.tokens.cache_read), (Format::OpenAiResponses, Some(1)));
}

#[test]
fn a_file_that_is_one_reply_is_read_exactly_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let texts = [
        ("page.txt", "I'll re-read the page.\n{\"html\": \"<p>x</p>\"}\n"),
        ("verdict.md", "{ \"faithful\": true,\n  \"problems\": [] }"),
        ("page.html", "<h2>Outlook</h2><p>The Authority expects to"),
        // JSON of no known shape, not named as JSON: a reply that is its envelope.
        ("envelope", "{\"html\": \"<p>y</p>\", \"log\": \"ok\", \"suggested_agent\": null}"),
        // Not JSON at all though it opens with a brace.
        ("lenient.txt", "{ \"html\": \"<blockquote><p>\"(1) bring together\"</p></blockquote>\" }"),
    ];
    for (name, text) in texts {
        write(&dir.path().join(name), text);
    }
    let got = load(&[dir.path()]);
    assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
    let mut want: Vec<_> = texts.iter().map(|(n, t)| (dir.path().join(n), t.to_string())).collect();
    want.sort();
    let have: Vec<_> = got.replies.iter().map(|r| (r.source.clone(), r.text.clone())).collect();
    assert_eq!(have, want);
    assert!(got.replies.iter().all(|r| r.meta.format == Format::Text && r.line.is_none() && r.meta.agent.is_none()));
}

#[test]
fn any_other_json_is_read_through_the_pointers_given() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.jsonl");
    write(
        &path,
        &jsonl(&[
            json!({"case": "c-1", "out": {"text": "first"}, "m": {"agent": "page.md", "image": "doc-p7.png", "tier": "gold"}}),
            json!({"case": "c-2", "out": {"text": 3}}),
        ]),
    );
    let unknown = load(&[&path]);
    assert!(unknown.replies.is_empty());
    assert_eq!(unknown.diagnostics.len(), 2);
    assert!(unknown.diagnostics.iter().all(|d| d.problem.kind() == "unknown-shape"));

    let opts = LoadOptions {
        text_path: Some("/out/text".into()),
        meta: vec![
            ("id".into(), "/case".into()),
            ("agent".into(), "/m/agent".into()),
            ("image".into(), "/m/image".into()),
            ("tier".into(), "/m/tier".into()),
        ],
        ..LoadOptions::default()
    };
    let got = load_with(&[&path], &opts);
    let r = &got.replies[0];
    assert_eq!((r.id.as_str(), r.text.as_str(), r.meta.format), ("c-1", "first", Format::Json));
    assert_eq!((r.meta.agent.as_deref(), r.meta.page), (Some("page"), Some(7)));
    assert_eq!(r.meta.extra, [("tier".to_owned(), "gold".to_owned())]);
    assert_eq!(got.diagnostics.len(), 1);
    assert_eq!(got.diagnostics[0].line, Some(2));
    assert!(got.diagnostics[0].message().contains("/out/text"), "{}", got.diagnostics[0]);
}

#[test]
fn a_forced_format_overrides_detection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("msg.json");
    let msg = json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "t"}]});
    write(&path, &msg.to_string());
    let got = load_with(&[&path], &LoadOptions { format: Some(Format::Text), ..LoadOptions::default() });
    assert_eq!((got.replies[0].text.clone(), got.replies[0].meta.format), (msg.to_string(), Format::Text));
}

/// Paths in order, each name's numbers as numbers (`round-2` before `round-10`), then lines.
#[test]
fn replies_come_in_path_then_line_order() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["b/2.txt", "a/z.txt", "b/10.txt", "a/a.txt", "c.txt"] {
        write(&dir.path().join(name), name);
    }
    let got = load(&[dir.path()]);
    let order: Vec<_> = got.replies.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(order, ["a/a.txt", "a/z.txt", "b/2.txt", "b/10.txt", "c.txt"]);
}

#[test]
fn a_reply_reference_names_one_reply() {
    let dir = tempfile::tempdir().unwrap();
    campaign(dir.path());
    let log = dir.path().join("round-1/doc-a/log.jsonl");
    let found = logs::resolve(&format!("{}:6", log.display()), &LoadOptions::default()).unwrap();
    assert_eq!(found.reply.text, "{\"html\": \"<p>one</p>\"}");
    let err = logs::resolve(&format!("{}:7", log.display()), &LoadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("no reply on that line; replies are on lines 6, 5"), "{err}");
    let err = logs::resolve(&log.display().to_string(), &LoadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("holds 3 replies"), "{err}");
    // A file of no record format is the reply, as it is.
    let plain = dir.path().join("reply.json");
    write(&plain, "{\"html\": \"<p>envelope</p>\"}");
    assert_eq!(
        logs::resolve(&plain.display().to_string(), &LoadOptions::default()).unwrap().reply.text,
        "{\"html\": \"<p>envelope</p>\"}"
    );
    // A line that could not be read says why.
    let broken = dir.path().join("broken.jsonl");
    write(&broken, &format!("{}\n{{\"cut\n", "[".repeat(200)));
    let err = logs::resolve(&format!("{}:1", broken.display()), &LoadOptions::default()).unwrap_err();
    assert!(
        err.to_string().ends_with("no reply on that line: not JSON: recursion limit exceeded at column 128"),
        "{err}"
    );
}
