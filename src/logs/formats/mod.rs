//! The formats, as a table: one module per format or family of formats, each saying how sure
//! it is that a record (or an event of a stream) is its own, and turning its records into
//! replies, calls that left no reply and problems.
//!
//! Detection is by content. A record is recognized by the fields its API always writes (an
//! Anthropic message's `type: "message"` and `content` blocks, a chat completion's
//! `choices`, a Batch line's `custom_id` and `response`), so a file named anything is read as
//! what it holds. Each format claims a record [`Sure::Certain`] by fields no other format
//! writes, or [`Sure::Likely`] by fields others may share (`{"id", "text"}`, `{"error"}`);
//! a certain claim wins, and the table's order breaks a tie. A test runs every detector over
//! every format's fixtures and shows that none claims another's.
//!
//! The list of formats is [`Format`]: `--format`'s values and help are made from it, and
//! [`spec`] says, for each, how its files are read; a test holds the README's table to it.

use std::io::{self, BufRead};
use std::path::Path;

use serde_json::{Map, Value};

use crate::logs::bytes::sse::{self, Events, Frame};
use crate::logs::formats::fields::describe;
use crate::logs::formats::record::Record;
use crate::logs::formats::stream::{Assemble, At, Out};
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::reply::Format;

pub(crate) mod anthropic;
pub(crate) mod api_error;
pub(crate) mod bedrock;
pub(crate) mod cohere;
pub(crate) mod fields;
pub(crate) mod gemini;
pub(crate) mod helm;
pub(crate) mod inspect;
pub(crate) mod langfuse;
pub(crate) mod langsmith;
pub(crate) mod lm_eval;
pub(crate) mod message;
pub(crate) mod ollama;
pub(crate) mod openai;
pub(crate) mod otel;
pub(crate) mod pointer;
pub(crate) mod promptfoo;
pub(crate) mod record;
pub(crate) mod records;
pub(crate) mod runlog;
mod shape;
pub(crate) mod stream;
pub(crate) mod unknown;

pub(crate) use shape::{Claim, Shape, Sure};

/// A format's (or family's) detector: its name, and its claim on a record.
pub(crate) struct Detector {
    /// What the test that no detector claims another's records names it by.
    #[cfg_attr(not(test), allow(dead_code))]
    pub name: &'static str,
    pub claim: fn(&Map<String, Value>) -> Option<Claim>,
}

/// Every detector, in the order that breaks a tie. The run log's comes first: a campaign is
/// mostly its events, and a certain claim ends the search.
pub(crate) const DETECTORS: &[Detector] = &[
    Detector { name: "run-log", claim: runlog::claim },
    Detector { name: "anthropic", claim: anthropic::claim },
    Detector { name: "openai", claim: openai::claim },
    Detector { name: "bedrock", claim: bedrock::claim },
    Detector { name: "gemini", claim: gemini::claim },
    Detector { name: "ollama", claim: ollama::claim },
    Detector { name: "cohere", claim: cohere::claim },
    Detector { name: "otel", claim: otel::claim },
    Detector { name: "inspect", claim: inspect::claim },
    Detector { name: "promptfoo", claim: promptfoo::claim },
    Detector { name: "lm-eval", claim: lm_eval::claim },
    Detector { name: "helm", claim: helm::claim },
    Detector { name: "langfuse", claim: langfuse::claim },
    Detector { name: "langsmith", claim: langsmith::claim },
    Detector { name: "records", claim: records::claim },
    Detector { name: "api-error", claim: api_error::claim },
];

/// Which shape `record` has: the first certain claim, else the first likely one.
pub(crate) fn classify(record: &Value) -> Shape {
    let Some(o) = record.as_object() else { return Shape::Unknown };
    let mut likely = None;
    for d in DETECTORS {
        match (d.claim)(o) {
            Some(Claim { shape, sure: Sure::Certain }) => return shape,
            Some(Claim { shape, sure: Sure::Likely }) => {
                likely.get_or_insert(shape);
            }
            None => {}
        }
    }
    likely.unwrap_or(Shape::Unknown)
}

/// How the files of a format are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadAs {
    /// Records, one a line or in a document: each read through [`convert`].
    Records,
    /// A stream saved to a file, put back together.
    Stream,
    /// The file is one reply, as written.
    Text,
}

/// What the loader needs to know of a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FormatSpec {
    pub read: ReadAs,
    /// Its replies take their text as the record holds it, one string as it is: only then is
    /// a stand-in in a reply's text the text (see `skim`). Others parse a string, join
    /// several, or read context a listing does not follow: their lines are read whole.
    pub text_as_is: bool,
}

/// The table: what each format is. (A format added to [`Format`] and not here does not
/// build.)
pub(crate) fn spec(format: Format) -> FormatSpec {
    use ReadAs::{Records, Stream, Text};
    let (read, text_as_is) = match format {
        Format::RunLog => (Records, false),
        Format::Text => (Text, false),
        Format::Anthropic => (Records, true),
        Format::AnthropicStream => (Stream, false),
        Format::AnthropicBatch => (Records, true),
        Format::AnthropicCompletion => (Records, true),
        Format::BedrockConverse => (Records, true),
        Format::BedrockStream => (Stream, false),
        Format::OpenAiChat => (Records, true),
        Format::OpenAiChatStream => (Stream, false),
        Format::OpenAiBatch => (Records, true),
        Format::OpenAiResponses => (Records, true),
        Format::OpenAiResponsesStream => (Stream, false),
        Format::Gemini => (Records, true),
        Format::GeminiStream => (Stream, false),
        Format::GeminiBatch => (Records, true),
        Format::VertexBatch => (Records, true),
        Format::Cohere => (Records, true),
        Format::CohereStream => (Stream, false),
        Format::Ollama => (Records, true),
        Format::OllamaStream => (Stream, false),
        Format::Inspect => (Records, false),
        Format::Otel => (Records, false),
        Format::Promptfoo => (Records, false),
        Format::LmEval => (Records, true),
        Format::Helm => (Records, false),
        Format::Langfuse => (Records, false),
        Format::LangSmith => (Records, true),
        Format::Records => (Records, true),
        Format::Json => (Records, true),
    };
    FormatSpec { read, text_as_is }
}

/// Whether replies of `format` take their text as the record holds it ([`FormatSpec::text_as_is`]).
pub(crate) fn takes_text_as_is(format: Format) -> bool {
    spec(format).text_as_is
}

/// What converting a record needs besides the record.
pub(crate) struct Context<'a> {
    /// The format forced on every file, if one is.
    pub forced: Option<Format>,
    pub text_path: Option<&'a str>,
    pub meta: &'a [(String, String)],
    /// Names the record, for the ids of the calls inside it.
    pub base: &'a str,
}

/// The reply or event one record of `shape` gives (several, for a record of many calls), or
/// what is wrong with it.
pub(crate) fn convert(value: Value, shape: Shape, cx: &Context<'_>) -> Record {
    let format = cx.forced.or_else(|| shape.format());
    match format {
        _ if shape == Shape::ApiError && cx.forced.is_none_or(|f| f != Format::Json) => {
            api_error::error(&value, cx.forced.unwrap_or(Format::Json))
        }
        Some(Format::Anthropic | Format::AnthropicStream) => anthropic::message(value, Format::Anthropic),
        Some(Format::AnthropicBatch) => anthropic::batch(&value),
        Some(Format::AnthropicCompletion) => anthropic::completion(&value, Format::AnthropicCompletion),
        Some(Format::BedrockConverse) => bedrock::converse(value),
        Some(Format::BedrockStream) => {
            Record::Problem(Problem::BadRecord("a Bedrock event stream is binary frames, not JSON records".to_owned()))
        }
        Some(Format::OpenAiChat | Format::OpenAiChatStream) => openai::chat(value, Format::OpenAiChat),
        Some(Format::OpenAiBatch) => openai::batch(value),
        Some(Format::OpenAiResponses | Format::OpenAiResponsesStream) => {
            openai::responses(value, Format::OpenAiResponses)
        }
        Some(Format::Gemini | Format::GeminiStream) => gemini::response(&value, Format::Gemini),
        Some(Format::GeminiBatch) => gemini::batch_line(&value),
        Some(Format::VertexBatch) => gemini::vertex_line(&value),
        Some(Format::Cohere) => cohere::response(&value, Format::Cohere),
        Some(Format::CohereStream) => cohere::lone_event(value),
        Some(Format::Ollama | Format::OllamaStream) => ollama::response(&value),
        Some(Format::Inspect) => inspect::log(&value, cx.base),
        Some(Format::Otel) => otel::export(&value),
        Some(Format::Promptfoo) if shape == Shape::PromptfooResult => {
            promptfoo::result(value.get("evalId").and_then(Value::as_str), &value)
        }
        Some(Format::Promptfoo) => promptfoo::document(&value),
        Some(Format::LmEval) => lm_eval::sample(&value),
        Some(Format::Helm) => helm::scenario_state(&value),
        Some(Format::Langfuse) if shape == Shape::LangfuseObservation => langfuse::row(&value),
        Some(Format::Langfuse) => match value.get("observations") {
            Some(_) => langfuse::export(&value),
            None => langfuse::row(&value),
        },
        Some(Format::LangSmith) => langsmith::run(&value),
        Some(Format::Records) => records::record(value),
        Some(Format::Json) => match cx.text_path {
            Some(p) => pointer::record(&value, p, cx.meta),
            None => Record::Problem(Problem::BadRecord("--format json needs --text-path".to_owned())),
        },
        Some(Format::Text | Format::RunLog) => Record::Context,
        None => match (shape, cx.text_path) {
            (Shape::Ledger | Shape::BenchContext | Shape::LmEvalResults, _) => Record::Context,
            (_, Some(p)) => pointer::record(&value, p, cx.meta),
            _ => Record::Problem(Problem::unknown_shape(describe(&value))),
        },
    }
}

/// Each family's claim on an event of a server-sent-event capture: the stream it belongs to.
const EVENT_DETECTORS: [fn(&str, &Value) -> Option<Format>; 4] =
    [anthropic::claim_event, openai::claim_event, gemini::claim_event, cohere::claim_event];

/// Which stream an event of a server-sent-event capture belongs to, by what it holds.
fn event_format(name: Option<&str>, payload: &Value) -> Option<Format> {
    let kind = stream::kind(name, payload);
    EVENT_DETECTORS.iter().find_map(|claim| claim(kind, payload))
}

/// The stream format of the capture `inner` opens, judged by its first event with JSON data.
pub(crate) fn sniff_stream(inner: impl BufRead, max_line: usize) -> io::Result<Sniffed> {
    let mut events = Events::new(inner, max_line);
    for _ in 0..4 {
        match events.next_frame()? {
            Some(Frame::Event(e)) => {
                if let Some(v) = stream::payloads(&e).into_iter().next().and_then(|p| p.ok()) {
                    return Ok(match event_format(e.name.as_deref(), &v) {
                        Some(f) => Sniffed::Stream(f),
                        None => Sniffed::Unknown(describe(&v)),
                    });
                }
            }
            Some(Frame::TooLong(_)) => {}
            None => break,
        }
    }
    Ok(Sniffed::NotEvents)
}

/// What the first events of a capture say it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sniffed {
    /// A stream of this format.
    Stream(Format),
    /// Events whose JSON data is no known stream's: the first one's description.
    Unknown(String),
    /// No event holds JSON: not a capture after all.
    NotEvents,
}

/// Reads a stream of `format` saved to a file, pushing each response put back together.
pub(crate) fn read_stream(
    inner: impl BufRead,
    format: Format,
    max_line: usize,
    out: &mut dyn FnMut(Out),
) -> io::Result<()> {
    match format {
        Format::OllamaStream => stream::read_lines(inner, &mut ollama::Stream::default(), max_line, out),
        Format::BedrockStream => bedrock::read_event_stream(inner, max_line, out),
        Format::CohereStream => {
            let mut inner = inner;
            if sse::looks_like_events(inner.fill_buf()?) {
                sse_read(inner, cohere::V2Stream::default(), max_line, out)
            } else {
                stream::read_lines(inner, &mut cohere::V1Stream::default(), max_line, out)
            }
        }
        Format::AnthropicStream => sse_read(inner, anthropic::MessageStream::default(), max_line, out),
        Format::OpenAiResponsesStream => sse_read(inner, openai::ResponsesStream::default(), max_line, out),
        Format::GeminiStream => sse_read(inner, gemini::Stream::default(), max_line, out),
        _ => sse_read(inner, openai::ChatStream::default(), max_line, out),
    }
}

fn sse_read<A: Assemble>(inner: impl BufRead, asm: A, max_line: usize, out: &mut dyn FnMut(Out)) -> io::Result<()> {
    stream::read_sse(inner, &mut ErrorsEnd(asm), max_line, out)
}

/// A stream's assembler, before which an error event ends the stream under way and is a
/// failed call of its own: `event: error`, or a payload with an `error` (and no choices).
struct ErrorsEnd<A>(A);

impl<A: Assemble> Assemble for ErrorsEnd<A> {
    fn format(&self) -> Format {
        self.0.format()
    }

    fn feed(&mut self, kind: &str, v: Value, at: At, out: &mut dyn FnMut(Out)) {
        if kind == "error" || (v.get("error").is_some_and(|e| !e.is_null()) && v.get("choices").is_none()) {
            self.0.finish(out);
            let format = self.0.format();
            let record = match v.get("response") {
                Some(r) if r.get("error").is_some() => api_error::error(r, format),
                _ => api_error::error(&v, format),
            };
            out(at.out(Ok(record)));
            return;
        }
        self.0.feed(kind, v, at, out);
    }

    fn done(&mut self, out: &mut dyn FnMut(Out)) {
        self.0.done(out);
    }

    fn finish(&mut self, out: &mut dyn FnMut(Out)) {
        self.0.finish(out);
    }
}

/// Whether `path` is named one of `names` and `beside` is a file in its directory: how a
/// tool's context files (a bench run's `meta.json`, a HELM run's `stats.json`) are told apart
/// from records, by the file whose context they are.
pub(crate) fn is_beside(path: &Path, names: &[&str], beside: &str) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    if !names.contains(&name) {
        return false;
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    dir.join(beside).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::model::reply::StopReason;
    use serde_json::json;

    #[test]
    fn each_api_is_recognized_by_its_own_fields() {
        let cases = [
            (json!({"type": "message", "role": "assistant", "content": []}), Shape::Anthropic),
            (json!({"custom_id": "a", "response": {"body": {}}}), Shape::OpenAiBatch),
            (json!({"id": "c", "choices": []}), Shape::OpenAiChat),
            (json!({"object": "response", "output": []}), Shape::OpenAiResponses),
            (json!({"output": {"message": {}}, "stopReason": "end_turn"}), Shape::BedrockConverse),
            (json!({"ts": "2025", "type": "agent_call"}), Shape::RunLogEvent),
            (json!({"id": "d", "session_id": null, "outcome": "failed", "at": "x"}), Shape::Ledger),
            (json!({"id": "d", "sha256": "x", "outcome": "failed", "polls": 3}), Shape::BenchContext),
            (json!({"html": "<p>", "log": "ok"}), Shape::Unknown),
        ];
        for (record, want) in cases {
            assert_eq!(classify(&record), want, "{record}");
        }
    }

    /// The detectors that claim `record`, by name.
    fn claimants(record: &Value) -> Vec<&'static str> {
        let Some(o) = record.as_object() else { return Vec::new() };
        DETECTORS.iter().filter(|d| (d.claim)(o).is_some()).map(|d| d.name).collect()
    }

    /// The records of a fixture: a document's value (each element of an array), or each line.
    fn records_of(path: &std::path::Path) -> Vec<Value> {
        let bytes = std::fs::read(path).unwrap();
        match crate::logs::bytes::nan::parse(&bytes) {
            Ok(Value::Array(items)) => items,
            Ok(one) => vec![one],
            Err(_) => bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                .map(|l| crate::logs::bytes::nan::parse(l).unwrap())
                .collect(),
        }
    }

    /// Every record of every fixture is claimed by its own format's detector and no other.
    #[test]
    fn no_detector_claims_another_formats_records() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs/formats");
        let owners = [
            ("anthropic/copy-editor-max-tokens.json", "anthropic"),
            ("anthropic/messages.jsonl", "anthropic"),
            ("anthropic/page-009.json", "anthropic"),
            ("bedrock/converse.json", "bedrock"),
            ("bedrock/invoke-body.json", "anthropic"),
            ("cohere/chat-v2-tool-call.json", "cohere"),
            ("cohere/chat-v2.json", "cohere"),
            ("gemini/batch-output.jsonl", "gemini"),
            ("gemini/blocked-prompt.json", "gemini"),
            ("gemini/generate-content.json", "gemini"),
            ("gemini/max-tokens.json", "gemini"),
            ("gemini/vertex-batch.jsonl", "gemini"),
            ("inspect/page-transcription.json", "inspect"),
            ("local/llamacpp-chat.json", "openai"),
            ("local/ollama-chat.json", "ollama"),
            ("local/ollama-generate-length.json", "ollama"),
            ("local/vllm-chat.json", "openai"),
            ("no-text/anthropic-tool-use.json", "anthropic"),
            ("no-text/openai-refusal.json", "openai"),
            ("no-text/openai-tool-calls.json", "openai"),
            ("openai/batch-output.jsonl", "openai"),
            ("openai/chat-completion.json", "openai"),
            ("openai/chat-length.json", "openai"),
            ("openai/responses-incomplete.json", "openai"),
            ("openai/responses.json", "openai"),
            ("otel/traces.jsonl", "otel"),
            ("promptfoo/out.json", "promptfoo"),
            ("records/corpus.jsonl", "records"),
            ("streams/ollama-chat.ndjson", "ollama"),
        ];
        for (file, owner) in owners {
            for (i, record) in records_of(&root.join(file)).iter().enumerate() {
                assert_eq!(claimants(record), [owner], "{file} record {i}");
            }
        }
        // An export of no known shape: nobody's.
        for record in records_of(&root.join("custom/eval-export.jsonl")) {
            assert_eq!(claimants(&record), Vec::<&str>::new());
        }
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats");
        let helm = "helm/benchmark_output/runs/v1/ada_json:model=openai_gpt-4o-mini-2024-07-18";
        let lm_eval = "lm-eval/pretrained__EleutherAI__pythia-160m";
        let owners = [
            ("anthropic-batch/msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d_results.jsonl", Some("anthropic")),
            ("anthropic-completion/bedrock-claude-v2.json", Some("anthropic")),
            ("anthropic-completion/completion-max-tokens.json", Some("anthropic")),
            ("api-error/bedrock-throttled.json", Some("api-error")),
            ("api-error/vllm-context-length.json", Some("api-error")),
            ("cohere-stream/chat-v1.ndjson", Some("cohere")),
            (&format!("{helm}/scenario_state.json"), Some("helm")),
            (&format!("{helm}/run_spec.json"), None),
            (&format!("{helm}/per_instance_stats.json"), None),
            (&format!("{helm}/display_predictions.json"), None),
            ("langfuse/observations.jsonl", Some("langfuse")),
            ("langfuse/trace-5d0d3fa8-1a5f-4bd0-9c1e-0f57c3c3b6d2.json", Some("langfuse")),
            ("langfuse/trace-7e2b8c41-0d6a-4f3e-b5c2-91a8f7e6d5c4.json", Some("langfuse")),
            ("langsmith/runs.jsonl", Some("langsmith")),
            (&format!("{lm_eval}/samples_gsm8k_2026-05-01T10-00-00.123456.jsonl"), Some("lm-eval")),
            (&format!("{lm_eval}/samples_arc_easy_2026-05-01T10-00-00.123456.jsonl"), Some("lm-eval")),
            (&format!("{lm_eval}/results_2026-05-01T10-00-00.123456.json"), Some("lm-eval")),
            ("lm-eval/pretrained=EleutherAI__pythia-160m_gsm8k.jsonl", Some("lm-eval")),
            ("promptfoo/out-0.4.json", Some("promptfoo")),
            ("promptfoo/out.jsonl", Some("promptfoo")),
            ("unknown/eval-export.jsonl", None),
        ];
        for (file, owner) in owners {
            // An older promptfoo output is one document of rows: the document is its own.
            let path = fixtures.join(file);
            let records = if file.ends_with("out-0.4.json") {
                vec![serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()]
            } else {
                records_of(&path)
            };
            for (i, record) in records.iter().enumerate() {
                assert_eq!(claimants(record), owner.into_iter().collect::<Vec<_>>(), "{file} record {i}");
            }
        }
    }

    /// Every event of every capture is claimed by its own stream's detector and no other.
    #[test]
    fn no_detector_claims_another_streams_events() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let captures = [
            ("sample-logs/formats/streams/anthropic-cut-short.sse", Format::AnthropicStream),
            ("sample-logs/formats/streams/anthropic-messages.sse", Format::AnthropicStream),
            ("sample-logs/formats/streams/gemini.sse", Format::GeminiStream),
            ("sample-logs/formats/streams/openai-chat.sse", Format::OpenAiChatStream),
            ("sample-logs/formats/streams/openai-responses.sse", Format::OpenAiResponsesStream),
            ("tests/fixtures/formats/anthropic-completion/completion-stream.sse", Format::AnthropicStream),
            ("tests/fixtures/formats/cohere-stream/chat-v2-max-tokens.sse", Format::CohereStream),
            ("tests/fixtures/formats/cohere-stream/chat-v2-error.sse", Format::CohereStream),
            ("tests/fixtures/formats/openai-stream/groq-compound.sse", Format::OpenAiChatStream),
        ];
        for (file, owner) in captures {
            let mut events =
                Events::new(std::fs::File::open(root.join(file)).map(std::io::BufReader::new).unwrap(), 1 << 20);
            while let Some(Frame::Event(e)) = events.next_frame().unwrap() {
                for payload in stream::payloads(&e).into_iter().map(Result::unwrap) {
                    let kind = stream::kind(e.name.as_deref(), &payload);
                    let claims: Vec<_> = EVENT_DETECTORS.iter().filter_map(|claim| claim(kind, &payload)).collect();
                    // A keep-alive (`ping`) is Anthropic's; an error event, nobody's.
                    if kind == "error" {
                        assert!(claims.is_empty(), "{file}: {payload}");
                    } else {
                        assert_eq!(claims, [owner], "{file}: {payload}");
                    }
                }
            }
        }
    }

    fn read(capture: &str, format: Format) -> Vec<Out> {
        let mut got = Vec::new();
        read_stream(capture.as_bytes(), format, 1 << 20, &mut |o| got.push(o)).unwrap();
        got
    }

    fn reply(o: &Out) -> (&str, StopReason, Option<&str>) {
        match &o.what {
            Ok(Record::Reply { text, meta, .. }) => (text.as_str(), meta.stop, meta.stop_detail.as_deref()),
            other => panic!("not a reply: {other:?}"),
        }
    }

    #[test]
    fn chat_chunks_join_choice_zero_and_take_the_last_usage() {
        let capture = concat!(
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"}},{\"index\":1,\"delta\":{\"content\":\"other\"}}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{\\\"a\\\":\"}}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\n",
            "data: [DONE]\n\n",
        );
        let got = read(capture, Format::OpenAiChatStream);
        assert_eq!(got.len(), 1);
        assert_eq!(reply(&got[0]), ("{\"a\":", StopReason::Truncated, Some("length")));
        let Ok(Record::Reply { meta, .. }) = &got[0].what else { unreachable!() };
        assert_eq!(meta.tokens.output, Some(4));
    }

    #[test]
    fn an_anthropic_stream_cut_short_keeps_what_arrived() {
        let capture = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"{\\\"a\\\"\"}}\n\n",
        );
        let got = read(capture, Format::AnthropicStream);
        assert_eq!(reply(&got[0]), ("{\"a\"", StopReason::Truncated, Some("stream cut short")));
        assert_eq!(got[0].line, 1);
    }
}
