//! The files providers' APIs hand back, from fixtures in each one's documented shape
//! (`tests/fixtures/formats/`): Anthropic Message Batches results and legacy completions, Cohere
//! chat streams, and Bedrock binary event streams.

use crate::support::loaded;

use std::path::{Path, PathBuf};

use bracewalk::logs::{EventKind, Format, StopReason};
use loaded::{load, one};

fn fixtures(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats").join(name)
}

#[test]
fn anthropic_batch_results_are_a_reply_each_or_why_there_is_none() {
    let got = load(&[&fixtures("anthropic-batch")]).clean();
    let replies: Vec<_> = got.replies.iter().map(|r| (r.id.as_str(), r.text.as_str(), r.meta.stop)).collect();
    assert_eq!(
        replies,
        [
            ("page-1", "{\"html\": \"<h1>Annual report</h1>\"}", StopReason::Finished),
            ("page-2", "{\"html\": \"<p>Revenue rose 6 percent to $412 million, and", StopReason::Truncated),
        ]
    );
    let m = &got.replies[1].meta;
    assert_eq!(
        (m.format, m.model.as_deref(), m.tokens.input, m.tokens.output, m.tokens.cache_read),
        (Format::AnthropicBatch, Some("claude-sonnet-4-5-20250929"), Some(1498), Some(16), Some(1024))
    );
    let events: Vec<_> = got.events.iter().map(|e| (e.id.as_str(), e.kind, e.message.as_str())).collect();
    assert_eq!(
        events,
        [
            (
                "page-3",
                EventKind::Failed,
                "API error: messages: text content blocks must be non-empty (invalid_request_error)"
            ),
            ("page-4", EventKind::Failed, "canceled: the batch was canceled before this request ran"),
            ("page-5", EventKind::Failed, "expired: the batch ended before this request ran"),
            ("page-6", EventKind::ToolCall, "tool call: record_page"),
        ]
    );
}

#[test]
fn legacy_completions_and_their_streams_are_the_completion() {
    let got = load(&[&fixtures("anthropic-completion")]).clean();
    assert_eq!(
        got.texts(),
        [
            (
                " Sure, here is the page as JSON: {\"html\": \"<p>two</p>\"}",
                StopReason::Finished,
                Some("stop_sequence")
            ),
            (" {\"a\": [1,", StopReason::Truncated, Some("max_tokens")),
            (" {\"a\": 1}", StopReason::Finished, Some("stop_sequence")),
        ]
    );
    let formats: Vec<_> = got.replies.iter().map(|r| r.meta.format).collect();
    assert_eq!(formats, [Format::AnthropicCompletion, Format::AnthropicCompletion, Format::AnthropicStream]);
    assert_eq!(
        (got.replies[1].id.as_str(), got.replies[1].meta.model.as_deref()),
        ("compl_01C7nVV5ofDC4XGbXGSKJBgf", Some("claude-2.1"))
    );
}

#[test]
fn cohere_streams_are_put_back_together_v2_and_v1() {
    let got = load(&[&fixtures("cohere-stream")]).clean();
    let replies: Vec<_> = got
        .replies
        .iter()
        .map(|r| (r.id.as_str(), r.text.as_str(), r.meta.stop, r.meta.stop_detail.as_deref()))
        .collect();
    assert_eq!(
        replies,
        [
            ("c2f9f8a1-6b1e-4b8c-9a52-1f3e2d4c5b6a", "{\"a\": [1,", StopReason::Truncated, Some("MAX_TOKENS")),
            ("9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b", "{\"b\": 2}", StopReason::Finished, Some("COMPLETE")),
            // The thinking part is not the reply.
            (
                "5b0c7e1a-3f2d-4c1e-9a8b-7d6e5f4a3b2c",
                "{\"html\": \"<h1>Annual report</h1><p>Revenue rose",
                StopReason::Truncated,
                Some("MAX_TOKENS")
            ),
        ]
    );
    let v2 = &got.replies[2].meta;
    assert_eq!((v2.format, v2.tokens.input, v2.tokens.output), (Format::CohereStream, Some(215), Some(16)));
    assert_eq!(
        got.kinds(),
        [(EventKind::Failed, "stream error: internal server error, this has been reported to our developers")]
    );
}

/// The v2 capture was once listed as one plain-text reply of all its bytes: events of a stream
/// no format knows are said to be so, never taken for a reply.
#[test]
fn events_of_no_stream_known_are_not_a_reply() {
    let capture = "event: chunk-start\ndata: {\"type\": \"chunk-start\", \"id\": \"x\"}\n\n\
                   event: chunk-delta\ndata: {\"type\": \"chunk-delta\", \"text\": \"hello\"}\n\n";
    let (_dir, got) = one("capture.sse", capture);
    assert!(got.replies.is_empty() && got.events.is_empty());
    assert_eq!(got.diagnostics.len(), 1);
    assert_eq!(got.diagnostics[0].problem.kind(), "unknown-stream");
    assert_eq!(got.diagnostics[0].message(), "server-sent events of no stream known (keys id, type); not read");
    // A text that only opens like events (no JSON in them) is still a reply.
    let (_dir, got) = one("notes.txt", "data: the figures are in table 3\n");
    assert_eq!(got.replies.len(), 1);
}

#[test]
fn bedrock_event_streams_are_their_providers_streams_put_back_together() {
    let got = load(&[&fixtures("bedrock-stream")]).clean();
    let replies: Vec<_> = got
        .replies
        .iter()
        .map(|r| {
            (r.id.rsplit('/').next().unwrap().to_owned(), r.text.as_str(), r.meta.stop, r.meta.stop_detail.as_deref())
        })
        .collect();
    assert_eq!(
        replies,
        [
            // A ConverseStream cut by an exception: what arrived, then the exception.
            (
                "converse-stream-exception.bin#0".to_owned(),
                "{\"html\": \"<p>Revenue",
                StopReason::Truncated,
                Some("stream cut short")
            ),
            // Reasoning is not the reply; metadata comes after messageStop.
            (
                "converse-stream-max-tokens.bin#0".to_owned(),
                "{\"html\": \"<table><tr><td>Revenue</td><td>412",
                StopReason::Truncated,
                Some("max_tokens")
            ),
            // InvokeModelWithResponseStream: Claude 2's completions, Claude's Messages events,
            // Cohere's v1 events, each in base64 chunks.
            ("invoke-claude-v2.bin#0".to_owned(), " {\"a\": [1,", StopReason::Truncated, Some("max_tokens")),
            (
                "msg_bdrk_01Tmr1uVx4ezEeHwvQzEJH3y".to_owned(),
                "{\"html\": \"<h1>Annual report</h1>\"}",
                StopReason::Finished,
                Some("end_turn")
            ),
            ("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d".to_owned(), "{\"b\": 2}", StopReason::Finished, Some("COMPLETE")),
        ]
    );
    assert!(got.replies.iter().all(|r| r.meta.format == Format::BedrockStream));
    let converse = &got.replies[1].meta;
    assert_eq!(
        (converse.tokens.input, converse.tokens.output, converse.duration_ms),
        (Some(1302), Some(16), Some(1391))
    );
    // Usage from the provider's events where they have it, else from Bedrock's metrics.
    assert_eq!((got.replies[3].meta.tokens.input, got.replies[3].meta.tokens.output), (Some(1520), Some(12)));
    assert_eq!((got.replies[2].meta.tokens.input, got.replies[2].meta.tokens.output), (Some(18), Some(8)));
    assert_eq!(
        got.kinds(),
        [(
            EventKind::Failed,
            "API error: The model stream was interrupted; retry the request. (modelStreamErrorException)"
        )]
    );
}

#[test]
fn a_bedrock_frame_that_fails_its_crc_is_said_and_the_rest_read() {
    let good = std::fs::read(fixtures("bedrock-stream/converse-stream-max-tokens.bin")).unwrap();
    // The second frame (the reasoning delta) with a byte of its payload changed.
    let first = u32::from_be_bytes([good[0], good[1], good[2], good[3]]) as usize;
    let mut bad = good.clone();
    bad[first + 60] ^= 0x20;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("capture.bin");
    std::fs::write(&path, &bad).unwrap();
    let got = load(&[&path]);
    assert_eq!(
        got.texts(),
        [("{\"html\": \"<table><tr><td>Revenue</td><td>412", StopReason::Truncated, Some("max_tokens"))]
    );
    let d: Vec<_> = got.diagnostics.iter().map(|d| (d.offset, d.message())).collect();
    assert_eq!(d, [(Some(first as u64), format!("the frame at byte {first} fails its message CRC; skipped"))]);
    // Cut short inside a frame: what arrived, and where it ends.
    std::fs::write(&path, &good[..good.len() - 10]).unwrap();
    let got = load(&[&path]);
    assert_eq!(got.replies.len(), 1);
    assert_eq!(got.diagnostics.len(), 1);
    assert!(got.diagnostics[0].message().contains("cut short"), "{}", got.diagnostics[0].message());
}
