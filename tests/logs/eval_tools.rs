//! The files eval frameworks and tracing tools write, from fixtures in each tool's documented
//! shape (`tests/fixtures/formats/`): lm-evaluation-harness samples, HELM scenario states,
//! Langfuse exports (a Vercel AI SDK trace among them), LangSmith runs, promptfoo's older output
//! and its JSONL. Each reply's exact text and stop reason, the calls that left none, and what is
//! context.

use crate::support::loaded;

use std::path::{Path, PathBuf};

use bracewalk::logs::{EventKind, Format, StopReason};
use loaded::{Loaded, load};

fn fixtures(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats").join(name)
}

fn formats(got: &Loaded) -> Vec<Format> {
    got.replies.iter().map(|r| r.meta.format).chain(got.events.iter().map(|e| e.meta.format)).collect()
}

fn extra<'a>(meta: &'a bracewalk::logs::Meta, key: &str) -> Option<&'a str> {
    meta.extra.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[test]
fn lm_eval_samples_give_each_generation_and_nothing_of_log_likelihoods() {
    let run = fixtures("lm-eval/pretrained__EleutherAI__pythia-160m");
    let got = load(&[&run]).clean();
    // arc_easy is multiple choice (log-likelihoods) and the results file is context: only the
    // gsm8k generations, one line per filter, and the three repeats of self-consistency.
    assert_eq!(
        got.texts(),
        [
            (" Janet has 3 + 2 = 5 apples.\n#### 5", StopReason::Unknown, None),
            (" The train travels 60 miles in 1.5 hours, so its speed is 60", StopReason::Unknown, None),
            (" Janet has 3 + 2 = 5 apples.\n#### 5", StopReason::Unknown, None),
            (" The train travels 60 miles in 1.5 hours, so its speed is 60", StopReason::Unknown, None),
            (" 2 plus 3 is 5. The answer is 5.", StopReason::Unknown, None),
            (" The answer is 5.", StopReason::Unknown, None),
            (" 3 and 2 make 6. The answer is 6.", StopReason::Unknown, None),
        ]
    );
    assert!(got.events.is_empty());
    assert!(formats(&got).iter().all(|f| *f == Format::LmEval));
    let second = &got.replies[1];
    assert_eq!((second.line, second.meta.model.as_deref()), (Some(2), Some("EleutherAI/pythia-160m")));
    let extras: Vec<_> =
        ["doc_id", "filter", "filtered", "max_gen_toks"].iter().map(|k| extra(&second.meta, k)).collect();
    assert_eq!(extras, [Some("1"), Some("strict-match"), Some("[invalid]"), Some("16")]);
    assert_eq!(extra(&got.replies[3].meta, "filter"), Some("flexible-extract"));
    let repeats: Vec<_> = got.replies[4..].iter().map(|r| r.id.rsplit('/').next().unwrap().to_owned()).collect();
    assert_eq!(
        repeats,
        [
            "samples_gsm8k_cot_self_consistency_2026-05-01T10-00-00.123456.jsonl:1#0",
            "samples_gsm8k_cot_self_consistency_2026-05-01T10-00-00.123456.jsonl:1#1",
            "samples_gsm8k_cot_self_consistency_2026-05-01T10-00-00.123456.jsonl:1#2",
        ]
    );

    // v0.4.2 wrote one JSON array under a `.jsonl` name, its arguments as lists.
    let old = load(&[&fixtures("lm-eval/pretrained=EleutherAI__pythia-160m_gsm8k.jsonl")]).clean();
    assert_eq!(old.texts(), [(" 5", StopReason::Unknown, None)]);
}

#[test]
fn a_helm_scenario_state_gives_each_completion_with_its_finish_reason() {
    let run = fixtures("helm");
    let got = load(&[&run]).clean();
    // run_spec.json, per_instance_stats.json and display_predictions.json beside it are
    // context; the log-likelihood request (max_tokens 0) is no reply.
    assert_eq!(
        got.texts(),
        [
            ("{\"name\": \"Ada\", \"born\":", StopReason::Truncated, Some("length")),
            ("{\"name\": \"Grace\"}", StopReason::Finished, Some("stop")),
            ("{\"name\": \"Edsger\"}", StopReason::Finished, Some("stop")),
            ("{\"name\": \"Edsger W.", StopReason::Truncated, Some("length")),
            ("{\"name\": \"Barbara\"}", StopReason::Unknown, None),
        ]
    );
    assert_eq!(
        got.kinds(),
        [(
            EventKind::Failed,
            "Error code: 429 - Rate limit reached for gpt-4o-mini in organization org-x on tokens per min (TPM)"
        )]
    );
    let first = &got.replies[0];
    assert_eq!(first.meta.model.as_deref(), Some("openai/gpt-4o-mini-2024-07-18"));
    assert_eq!((first.meta.duration_ms, first.meta.ts.as_deref()), (Some(712), Some("2024-06-10T06:13:20.000Z")));
    assert_eq!((extra(&first.meta, "instance"), extra(&first.meta, "split")), (Some("id7"), Some("test")));
    assert_eq!(extra(&got.events[0].meta, "perturbation"), Some("typos"));
    let ids: Vec<_> =
        got.replies.iter().map(|r| r.id.rsplit_once('#').map(|(a, b)| (a.rsplit('/').next().unwrap(), b))).collect();
    assert_eq!(
        ids,
        [
            Some(("scenario_state.json", "0")),
            Some(("scenario_state.json", "1")),
            Some(("scenario_state.json#4", "0")),
            Some(("scenario_state.json#4", "1")),
            Some(("scenario_state.json", "5")),
        ]
    );
}

#[test]
fn langfuse_exports_give_each_generations_output_in_any_convention() {
    let got = load(&[&fixtures("langfuse")]).clean();
    let replies: Vec<_> = got.replies.iter().map(|r| (r.id.as_str(), r.text.as_str(), r.meta.stop)).collect();
    assert_eq!(
        replies,
        [
            // The table export's rows: an Anthropic-shaped message cut at max_tokens, an
            // OpenAI-shaped one, and a string that is JSON but no message (the reply as it is).
            ("gen-a", "{\"html\": \"<table><tr><td>Revenue", StopReason::Truncated),
            ("gen-b", "{\"html\": \"<p>Five</p>\"}", StopReason::Unknown),
            ("gen-d", "{\"html\": \"<p>Six</p>\"}", StopReason::Unknown),
            // The trace view's download leaves the observations' output out: the trace's own.
            (
                "5d0d3fa8-1a5f-4bd0-9c1e-0f57c3c3b6d2",
                "{\"html\": \"<h1>Annual report</h1><p>Revenue rose 6 percent\"}",
                StopReason::Truncated
            ),
            // The server's download: a message JSON-encoded, a stream's string and its
            // `metadata.finish_reason`.
            ("gen-1", "{\"html\": \"<h1>Annual report</h1>\"}", StopReason::Unknown),
            ("gen-2", "{\"html\": \"<p>Revenue rose 6 percent to $412 million, and", StopReason::Truncated),
            // A Vercel AI SDK trace: the model call's reply, once (below).
            ("8a9b0c1d2e3f4a5b", VERCEL_REPLY, StopReason::Unknown),
        ]
    );
    let failed = &got.events[0];
    assert_eq!((failed.id.as_str(), failed.kind), ("gen-3", EventKind::Failed));
    assert!(failed.message.starts_with("Error code: 429"), "{}", failed.message);
    let a = &got.replies[0].meta;
    assert_eq!(
        (a.model.as_deref(), a.tokens.input, a.tokens.output),
        (Some("claude-sonnet-4-5-20250929"), Some(1320), Some(16))
    );
    let d = &got.replies[2].meta;
    assert_eq!((d.tokens.input, d.tokens.output), (Some(20), Some(8)));
    let trace = &got.replies[3].meta;
    assert_eq!(
        (trace.model.as_deref(), trace.stop_detail.as_deref()),
        (Some("gpt-4o-mini-2024-07-18"), Some("length"))
    );
    assert_eq!(extra(trace, "from"), Some("trace.output"));
    assert!(formats(&got).iter().all(|f| *f == Format::Langfuse));
}

const VERCEL_REPLY: &str =
    "{\"html\": \"<h2>Ridership</h2><p>Weekday boardings rose 4 percent.</p>\", \"log\": \"Page 3. Ridership.\"}";

/// The Vercel AI SDK records a `generateText` call as an `ai.generateText` span holding one
/// `ai.generateText.doGenerate` span per call to the model, and writes the last call's text as
/// the outer span's output too. Typed as two generations, the text was listed twice; the
/// reply is the model call's.
#[test]
fn a_vercel_ai_sdk_trace_gives_the_model_calls_reply_once() {
    let got = load(&[&fixtures("langfuse/trace-vercel-ai-sdk.json")]).clean();
    assert_eq!(got.texts(), [(VERCEL_REPLY, StopReason::Unknown, None)]);
    let reply = &got.replies[0];
    assert_eq!(
        (reply.id.as_str(), reply.meta.model.as_deref(), reply.meta.tokens.output),
        ("8a9b0c1d2e3f4a5b", Some("gpt-4o-mini-2024-07-18"), Some(38))
    );
    assert!(got.events.is_empty());

    // A parent whose output is not its child's is a reply of its own.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures("langfuse/trace-vercel-ai-sdk.json")).unwrap()).unwrap();
    doc["observations"][0]["output"] = serde_json::json!("{\"html\": \"<p>Another</p>\"}");
    let (_dir, got) = loaded::one("trace-parent.json", &doc.to_string());
    let got = got.clean();
    let ids: Vec<&str> = got.replies.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["4f1e2d3c4b5a6978", "8a9b0c1d2e3f4a5b"]);
}

/// HELM's Anthropic client passes on no finish reason of the API's (`""`), so a completion
/// the API cut at `max_tokens` says nothing; its tokens, as many as the request allowed, say
/// it was cut at the limit. One short of the limit stays unknown, and a reason given stands.
#[test]
fn a_helm_completion_whose_tokens_reached_max_tokens_was_cut_at_the_limit() {
    let got = load(&[&fixtures("helm-anthropic")]).clean();
    let cut = Some("cut off at the limit: 8 tokens of max_tokens 8");
    assert_eq!(
        got.texts(),
        [
            ("{\"name\": \"Ada\", \"born\": 18", StopReason::Truncated, cut),
            ("{\"name\": \"Grace\", \"born\":", StopReason::Truncated, cut),
            ("{\"name\": \"Alan\"}", StopReason::Unknown, Some("")),
            ("{\"name\": \"Edsger\", \"x\":1}", StopReason::Finished, Some("stop")),
        ]
    );
    let inferred: Vec<bool> = got.replies.iter().map(|r| r.meta.is_inferred("stop")).collect();
    assert_eq!(inferred, [true, true, false, false], "a stop told by the token count is inferred, and says so");
}

#[test]
fn langsmith_runs_give_each_llm_run_and_pass_over_the_rest() {
    let got = load(&[&fixtures("langsmith")]).clean();
    let replies: Vec<_> = got
        .replies
        .iter()
        .map(|r| (r.text.as_str(), r.meta.stop, r.meta.model.as_deref(), r.meta.tokens.output))
        .collect();
    assert_eq!(
        replies,
        [
            (
                "{\"html\": \"<p>Revenue rose 6 percent to $412",
                StopReason::Truncated,
                Some("gpt-4o-mini-2024-07-18"),
                Some(16)
            ),
            ("{\"html\": \"<h1>Two</h1>\"}", StopReason::Finished, Some("gpt-4o-mini-2024-07-18"), Some(9)),
            // The chain's child LLM run; the chain and its tool are not calls.
            ("{\"html\": \"<p>Three</p>\"}", StopReason::Finished, Some("claude-sonnet-4-5-20250929"), Some(11)),
            ("{\"html\": \"<p>Four", StopReason::Truncated, Some("claude-sonnet-4-5-20250929"), Some(16)),
        ]
    );
    assert_eq!(got.replies[2].id, "3c4d5e6f-7a8b-4c9d-0e1f-2a3b4c5d6e7f");
    assert_eq!(got.replies[0].meta.provider.as_deref(), Some("openai"));
    assert_eq!(
        got.kinds(),
        [(
            EventKind::Failed,
            "openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o-mini', 'type': 'requests'}}"
        )]
    );
}

#[test]
fn promptfoos_older_output_and_its_jsonl_are_detected() {
    let got = load(&[&fixtures("promptfoo")]).clean();
    assert_eq!(
        got.texts(),
        [
            ("{\"name\": \"Ada\"}", StopReason::Unknown, None),
            ("{\"name\": \"Ada\", \"born\":", StopReason::Truncated, Some("length")),
        ]
    );
    assert_eq!(got.kinds(), [(EventKind::Failed, "API error: 429 Too Many Requests")]);
    assert_eq!(got.replies[1].id, "9b2c1d4e-0f3a-4b5c-8d6e-7f8091a2b3c4");
    assert!(formats(&got).iter().all(|f| *f == Format::Promptfoo));
}

/// The trace view's download may write the observations' output as null rather than leave it
/// out: the trace's own output is still the reply, and a generation that failed still says so.
#[test]
fn a_trace_download_with_null_outputs_reads_the_traces_output() {
    let doc = serde_json::json!({
        "trace": {"id": "tr-9", "name": "extract", "output": "{\"html\": \"<p>Nine</p>\"}"},
        "observations": [
            {"id": "g-1", "traceId": "tr-9", "type": "GENERATION", "startTime": "2026-05-01T10:00:00.000Z",
             "model": "gpt-4o-mini", "output": null, "input": null, "level": "DEFAULT"},
            {"id": "g-2", "traceId": "tr-9", "type": "GENERATION", "startTime": "2026-05-01T10:00:01.000Z",
             "model": "gpt-4o-mini", "output": null, "input": null, "level": "ERROR", "statusMessage": "timed out"}
        ]
    });
    let (_dir, got) = loaded::one("trace-tr-9.json", &serde_json::to_string_pretty(&doc).unwrap());
    let got = got.clean();
    assert_eq!(got.texts(), [("{\"html\": \"<p>Nine</p>\"}", StopReason::Unknown, None)]);
    assert_eq!((got.replies[0].id.as_str(), got.replies[0].meta.model.as_deref()), ("tr-9", Some("gpt-4o-mini")));
    assert_eq!(got.kinds(), [(EventKind::Failed, "timed out")]);
}
