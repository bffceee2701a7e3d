//! What loading produces: a reply with its normalized metadata, a call that left no reply,
//! and the item a loader pushes to its sink.

use std::path::PathBuf;

use crate::logs::model::diagnostic::Diagnostic;
use crate::logs::model::hash::text_hash;
use crate::logs::model::names::{Name, Names};
use crate::logs::model::written::Written;

/// The record format a reply was read from. Every one is detected by content; `--format`
/// forces one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// The pipeline's `log.jsonl`: `agent_call` events carry the replies.
    #[value(name = "run-log")]
    RunLog,
    /// A file that is one reply, as written.
    Text,
    /// Anthropic Messages responses (and Bedrock invoke bodies, which are the same shape).
    Anthropic,
    /// Anthropic Messages streams saved as server-sent events: the `text_delta`s of the text
    /// blocks (and legacy Text Completions streams, their `completion` events).
    #[value(name = "anthropic-stream")]
    AnthropicStream,
    /// Anthropic Message Batches results, `{"custom_id", "result"}`: a succeeded request's
    /// message; an errored, canceled or expired one is a call without a reply.
    #[value(name = "anthropic-batch")]
    AnthropicBatch,
    /// Anthropic legacy Text Completions, and the Claude 2 bodies Bedrock returns:
    /// `completion`.
    #[value(name = "anthropic-completion")]
    AnthropicCompletion,
    /// Bedrock Converse responses: `output.message.content[].text`.
    #[value(name = "bedrock-converse")]
    BedrockConverse,
    /// Bedrock binary event streams (`application/vnd.amazon.eventstream`) of ConverseStream
    /// and InvokeModelWithResponseStream, each frame's CRCs checked, the provider's own stream
    /// inside put back together.
    #[value(name = "bedrock-stream")]
    BedrockStream,
    /// OpenAI chat completions, and the servers that speak them (vLLM, llama.cpp):
    /// `choices[0].message.content`.
    #[value(name = "openai-chat")]
    OpenAiChat,
    /// OpenAI chat completion streams saved as server-sent events: `choices[0].delta.content`.
    #[value(name = "openai-chat-stream")]
    OpenAiChatStream,
    /// OpenAI Batch output lines: `response.body` is a completion, `custom_id` the id.
    #[value(name = "openai-batch")]
    OpenAiBatch,
    /// OpenAI Responses: the `output_text` parts of the `message` outputs.
    #[value(name = "openai-responses")]
    OpenAiResponses,
    /// OpenAI Responses streams saved as server-sent events: the final `response`, or the
    /// `output_text` deltas of a stream cut short.
    #[value(name = "openai-responses-stream")]
    OpenAiResponsesStream,
    /// Gemini `generateContent` responses (Developer API and Vertex AI): the text parts of
    /// `candidates[0]`, thought parts left out.
    Gemini,
    /// Gemini `streamGenerateContent` streams saved as server-sent events.
    #[value(name = "gemini-stream")]
    GeminiStream,
    /// Gemini Developer API batch output lines: `{"key", "response"}` or `{"key", "error"}`.
    #[value(name = "gemini-batch")]
    GeminiBatch,
    /// Vertex AI batch prediction output lines: `{"status", "processed_time", "request",
    /// "response"}`.
    #[value(name = "vertex-batch")]
    VertexBatch,
    /// Cohere chat responses (v2 `message.content[]`, and v1 `text`).
    Cohere,
    /// Cohere chat streams: v2 server-sent events (`content-delta`), v1 NDJSON
    /// (`text-generation`).
    #[value(name = "cohere-stream")]
    CohereStream,
    /// Ollama `/api/chat` and `/api/generate` responses: `message.content` or `response`.
    Ollama,
    /// Ollama streams: one chunk a line until `done`.
    #[value(name = "ollama-stream")]
    OllamaStream,
    /// Inspect AI eval logs, `.eval` archives and `.json` logs: one reply per sample and
    /// epoch.
    Inspect,
    /// OpenTelemetry GenAI spans in OTLP/JSON files: one reply per model call.
    Otel,
    /// promptfoo `eval -o out.json` results, in every writer's layout: `response.output`.
    Promptfoo,
    /// lm-evaluation-harness `--log_samples` files: each generation of `resps` (scores and
    /// log-likelihoods are not replies; `results_*.json` is passed over).
    #[value(name = "lm-eval")]
    LmEval,
    /// HELM `scenario_state.json`: `request_states[].result.completions[].text`.
    Helm,
    /// Langfuse exports (a trace's download, observation rows): the `output` of each
    /// GENERATION, a string or a message in any provider's convention.
    Langfuse,
    /// LangSmith runs (a JSON array or JSONL of runs, child runs within): the outputs of each
    /// LLM run.
    #[value(name = "langsmith")]
    LangSmith,
    /// bracewalk's own records, `{"id", "text", "fields"?}`: what `extract --jsonl` reads.
    Records,
    /// Any other JSON or JSONL, read through `--text-path` and `--meta` pointers.
    Json,
}

impl Format {
    /// The name used on the command line and in `--json` output.
    pub fn name(self) -> &'static str {
        match self {
            Format::RunLog => "run-log",
            Format::Text => "text",
            Format::Anthropic => "anthropic",
            Format::AnthropicStream => "anthropic-stream",
            Format::AnthropicBatch => "anthropic-batch",
            Format::AnthropicCompletion => "anthropic-completion",
            Format::BedrockConverse => "bedrock-converse",
            Format::BedrockStream => "bedrock-stream",
            Format::OpenAiChat => "openai-chat",
            Format::OpenAiChatStream => "openai-chat-stream",
            Format::OpenAiBatch => "openai-batch",
            Format::OpenAiResponses => "openai-responses",
            Format::OpenAiResponsesStream => "openai-responses-stream",
            Format::Gemini => "gemini",
            Format::GeminiStream => "gemini-stream",
            Format::GeminiBatch => "gemini-batch",
            Format::VertexBatch => "vertex-batch",
            Format::Cohere => "cohere",
            Format::CohereStream => "cohere-stream",
            Format::Ollama => "ollama",
            Format::OllamaStream => "ollama-stream",
            Format::Inspect => "inspect",
            Format::Otel => "otel",
            Format::Promptfoo => "promptfoo",
            Format::LmEval => "lm-eval",
            Format::Helm => "helm",
            Format::Langfuse => "langfuse",
            Format::LangSmith => "langsmith",
            Format::Records => "records",
            Format::Json => "json",
        }
    }
}

/// Why the model stopped, normalized across providers. The provider's own word is kept
/// beside it in [`Meta::stop_detail`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopReason {
    /// The model ended its turn (`end_turn`, `stop`, `completed`).
    Finished,
    /// The output ceiling cut it off (`max_tokens`, `length`, `incomplete`): the reply is
    /// a prefix of what the model meant to send.
    Truncated,
    /// Any other stop: a tool call, a content filter, a refusal.
    Other,
    /// The record does not say.
    #[default]
    Unknown,
}

impl StopReason {
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Finished => "finished",
            StopReason::Truncated => "truncated",
            StopReason::Other => "other",
            StopReason::Unknown => "unknown",
        }
    }
}

/// Token counts as the provider reported them; absent means not reported, not zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tokens {
    pub input: Option<u64>,
    pub output: Option<u64>,
    /// Prompt tokens read from a cache (Anthropic `cache_read_input_tokens`, OpenAI
    /// `cached_tokens`).
    pub cache_read: Option<u64>,
    /// Prompt tokens written to a cache (Anthropic `cache_creation_input_tokens`).
    pub cache_write: Option<u64>,
}

/// What is known about a reply. Every fact is optional: a fact the record does not carry
/// is absent, never guessed. The few that are inferred (the run log's model facts, its
/// review round, its page verification) are named in `inferred`.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    pub format: Format,
    /// The agent, as the pipeline names its prompt file, without `.md`: `page`, `feedback`.
    pub agent: Option<Name>,
    /// `extraction` or `review`.
    pub phase: Option<Name>,
    /// The page number, from the page image's name (`<base>-p<N>.png`).
    pub page: Option<u32>,
    /// The page image the call was given.
    pub image: Option<Name>,
    /// The bench round: the name of the campaign directory the run sits in.
    pub round: Option<Name>,
    /// The document: the name of the run directory (the bench's document id).
    pub document: Option<Name>,
    /// The review iteration the call belongs to.
    pub iteration: Option<u32>,
    pub model: Option<Name>,
    pub provider: Option<Name>,
    pub stop: StopReason,
    /// The stop reason in the provider's own words (`max_tokens`, `length`, …).
    pub stop_detail: Option<Name>,
    pub tokens: Tokens,
    pub duration_ms: Option<u64>,
    /// When the record was written, as logged (ISO-8601 in the run log).
    pub ts: Option<Name>,
    /// The document's outcome from the bench ledger (or `meta.json`): `ready_for_review`,
    /// `failed`, `client_timeout`, …
    pub document_outcome: Option<Name>,
    /// How the run ended according to its own log: `complete`, or `failed: <error>`.
    pub run_outcome: Option<Name>,
    /// The Feedback Agent's verdict on this page, from the `page_verify_ok` /
    /// `page_verify_failed` event that followed the call.
    pub page_verified: Option<bool>,
    /// Which of the fields above were inferred rather than read off the record.
    pub inferred: Inferred,
    /// `--meta NAME=POINTER` values whose NAME is none of the fields above.
    pub extra: Vec<(String, String)>,
}

impl Meta {
    /// Nothing known but the format.
    pub fn new(format: Format) -> Meta {
        Meta {
            format,
            agent: None,
            phase: None,
            page: None,
            image: None,
            round: None,
            document: None,
            iteration: None,
            model: None,
            provider: None,
            stop: StopReason::Unknown,
            stop_detail: None,
            tokens: Tokens::default(),
            duration_ms: None,
            ts: None,
            document_outcome: None,
            run_outcome: None,
            page_verified: None,
            inferred: Inferred::default(),
            extra: Vec::new(),
        }
    }

    /// Whether `field` was inferred.
    pub fn is_inferred(&self, field: &str) -> bool {
        self.inferred.contains(field)
    }

    /// Shares the names this metadata repeats with every other metadata given `names`. Its
    /// time and its extras are its own and left as they are: keeping them would only grow
    /// the set.
    pub fn share_names(&mut self, names: &mut Names) {
        let Meta {
            agent,
            phase,
            image,
            round,
            document,
            model,
            provider,
            stop_detail,
            document_outcome,
            run_outcome,
            ..
        } = self;
        let fields =
            [agent, phase, image, round, document, model, provider, stop_detail, document_outcome, run_outcome];
        for name in fields.into_iter().flatten() {
            *name = names.name(name);
        }
    }

    pub(crate) fn infer(&mut self, field: &'static str) {
        let known = self.inferred.insert(field);
        debug_assert!(known, "{field} is not one of Inferred::FIELDS");
    }
}

/// The fields of a [`Meta`] that were inferred: a set of [`Inferred::FIELDS`], a bit each
/// (every reply of a run log has five; a list of them would cost each reply a vector).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Inferred(u8);

impl Inferred {
    /// Every field that can be inferred, in the order they are named: the order the run log
    /// infers them in.
    pub const FIELDS: [&'static str; 7] =
        ["model", "provider", "tokens", "duration_ms", "stop", "iteration", "page_verified"];

    pub fn contains(self, field: &str) -> bool {
        Inferred::FIELDS.iter().position(|&f| f == field).is_some_and(|i| self.0 & (1 << i) != 0)
    }

    /// Adds `field`; false if it is none of [`Inferred::FIELDS`] (nothing is added).
    fn insert(&mut self, field: &str) -> bool {
        let at = Inferred::FIELDS.iter().position(|&f| f == field);
        if let Some(i) = at {
            self.0 |= 1 << i;
        }
        at.is_some()
    }

    /// The fields inferred, in the order of [`Inferred::FIELDS`].
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Inferred::FIELDS.into_iter().enumerate().filter(move |(i, _)| self.0 & (1 << i) != 0).map(|(_, f)| f)
    }
}

/// One reply, with the text exactly as logged.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Stable and unique within a load: the record's own id where it has one (an OpenAI
    /// Batch `custom_id`, a message id), otherwise `path:line`, or `path` for a file that
    /// is one reply.
    pub id: String,
    pub source: PathBuf,
    /// The 1-based line the record is on, for line-oriented formats.
    pub line: Option<usize>,
    /// The byte offset of the record (its line) in the source.
    pub offset: u64,
    pub text: String,
    pub meta: Meta,
}

impl Reply {
    /// A file that is one reply, named by its path.
    pub fn text_file(path: &std::path::Path, text: String) -> Reply {
        Reply {
            id: path.display().to_string(),
            source: path.to_path_buf(),
            line: None,
            offset: 0,
            text,
            meta: Meta::new(Format::Text),
        }
    }

    /// `path:line`, or `path`: what `extract` and `explain` accept to name this reply.
    pub fn reference(&self) -> String {
        reference(&self.source, self.line)
    }
}

/// A reply as a listing keeps it: all but its text, which is measured (its length and
/// hash) and read again from its file when it is wanted ([`crate::logs::Locator`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub id: String,
    pub source: PathBuf,
    pub line: Option<usize>,
    pub offset: u64,
    /// Bytes of the text.
    pub len: usize,
    /// [`text_hash`] of the text, to tell it changed when it is read again.
    pub hash: u64,
    /// Where the text is written as one JSON string of its line, when it is.
    pub written: Option<Written>,
    pub meta: Meta,
}

impl Listed {
    /// A reply loaded whole, as a listing keeps it.
    pub fn of(reply: &Reply) -> Listed {
        Listed {
            id: reply.id.clone(),
            source: reply.source.clone(),
            line: reply.line,
            offset: reply.offset,
            len: reply.text.len(),
            hash: text_hash(&reply.text),
            written: None,
            meta: reply.meta.clone(),
        }
    }
}

impl Event {
    /// `path:line`, or `path`: where the call is.
    pub fn reference(&self) -> String {
        reference(&self.source, self.line)
    }
}

pub(crate) fn reference(source: &std::path::Path, line: Option<usize>) -> String {
    match line {
        Some(n) => format!("{}:{n}", source.display()),
        None => source.display().to_string(),
    }
}

/// What a call that produced no reply was. A response that is fine but holds no text (a
/// tool call, a refusal, a blocked prompt) is one of these, not a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The call hit its output ceiling before any text (or, in a run log, the pipeline
    /// raised instead of logging the text).
    Truncated,
    /// The call failed for another reason (an error, a stall, a refused request).
    Failed,
    /// The model answered with tool calls only.
    ToolCall,
    /// The model refused, in a refusal field or by its stop reason.
    Refusal,
    /// A safety or content filter blocked the prompt or the answer.
    Blocked,
    /// The response holds no text and says no more about why.
    Empty,
}

impl EventKind {
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Truncated => "truncated-call",
            EventKind::Failed => "failed-call",
            EventKind::ToolCall => "tool-call",
            EventKind::Refusal => "refusal",
            EventKind::Blocked => "blocked",
            EventKind::Empty => "empty",
        }
    }
}

/// A model call that left no reply, listed beside the replies because its absence is
/// what a reader of the log is looking for.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: String,
    pub source: PathBuf,
    pub line: Option<usize>,
    pub offset: u64,
    pub kind: EventKind,
    /// The error as logged.
    pub message: String,
    pub meta: Meta,
}

/// What a loader pushes to its sink, in path-then-line order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Reply(Reply),
    Event(Event),
    Diagnostic(Diagnostic),
}

/// What a listing pushes: an item, or a reply listed without its text.
#[derive(Debug, Clone, PartialEq)]
pub enum Listing {
    Item(Item),
    Listed(Listed),
}

/// What reading a file pushes: items, (only in a tail) amendments to earlier ones, and (only
/// in a listing) replies listed without their texts.
#[derive(Debug)]
pub(crate) enum FileOut {
    Item(Item),
    Amended { line: usize, meta: Meta },
    Listed(Listed),
}

impl FileOut {
    /// The line and the metadata of a reply or an event, to be given what comes after it.
    pub(crate) fn line_and_meta(&mut self) -> Option<(Option<usize>, &mut Meta)> {
        match self {
            FileOut::Item(Item::Reply(r)) => Some((r.line, &mut r.meta)),
            FileOut::Item(Item::Event(e)) => Some((e.line, &mut e.meta)),
            FileOut::Listed(l) => Some((l.line, &mut l.meta)),
            FileOut::Item(Item::Diagnostic(_)) | FileOut::Amended { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn shared_names_are_one_copy_and_times_stay_their_own() {
        let mut names = Names::new();
        let meta = |ts: &str| {
            let mut m = Meta::new(Format::RunLog);
            m.agent = Some(Name::from("page"));
            m.round = Some(Name::from("round-01"));
            m.ts = Some(Name::from(ts));
            m
        };
        let (mut a, mut b) = (meta("2026-01-01T00:00:00Z"), meta("2026-01-01T00:00:01Z"));
        a.share_names(&mut names);
        b.share_names(&mut names);
        let (Some(x), Some(y)) = (&a.agent, &b.agent) else { unreachable!() };
        assert!(Name::ptr_eq(x, y), "one copy of `page`");
        assert_ne!(a.ts, b.ts);
        assert_eq!(names.len(), 2, "agent and round kept, the times not");
    }

    #[test]
    fn inferred_fields_are_named_in_one_order_whatever_the_order_they_came_in() {
        let mut m = Meta::new(Format::RunLog);
        for field in ["page_verified", "stop", "model"] {
            m.infer(field);
        }
        assert_eq!(m.inferred.names().collect::<Vec<_>>(), ["model", "stop", "page_verified"]);
        assert!(m.is_inferred("stop") && !m.is_inferred("tokens") && !m.is_inferred("page"));
    }
}
