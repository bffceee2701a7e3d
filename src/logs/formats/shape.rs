//! What a record is: its shape, and how sure a format is of it. The words every format's
//! detector answers in, apart from the table that asks them (so that no format module
//! imports the table).

use crate::logs::model::reply::Format;

/// The shape of one JSON record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A pipeline run-log event: `{"ts", "type", …}`.
    RunLogEvent,
    /// A bench ledger line: `{id, session_id, outcome, round_trip_ms, at}`.
    Ledger,
    /// A bench run's `meta.json`, `status.json` or `diagnostics.json`: context, no reply.
    BenchContext,
    Anthropic,
    /// A Message Batches results line.
    AnthropicBatch,
    /// A legacy Text Completion (or a Bedrock Claude 2 body).
    AnthropicCompletion,
    BedrockConverse,
    OpenAiChat,
    OpenAiBatch,
    OpenAiResponses,
    Gemini,
    GeminiBatch,
    VertexBatch,
    Cohere,
    /// A line of a Cohere v1 stream (`event_type`).
    CohereChunk,
    Ollama,
    /// A chunk of an Ollama stream that goes on (`done: false`).
    OllamaChunk,
    InspectLog,
    Otel,
    Promptfoo,
    /// A line of promptfoo's `-o out.jsonl`.
    PromptfooResult,
    /// An lm-evaluation-harness sample line.
    LmEvalSample,
    /// An lm-evaluation-harness results file: scores, context.
    LmEvalResults,
    HelmScenarioState,
    /// A Langfuse trace download.
    LangfuseExport,
    /// A Langfuse observation row.
    LangfuseObservation,
    LangSmithRun,
    Records,
    /// An API's error response (`{"error": …}`): a call that failed.
    ApiError,
    Unknown,
}

impl Shape {
    /// The format a record of this shape is read as, for a shape that holds replies.
    pub fn format(self) -> Option<Format> {
        Some(match self {
            Shape::RunLogEvent => Format::RunLog,
            Shape::Anthropic => Format::Anthropic,
            Shape::AnthropicBatch => Format::AnthropicBatch,
            Shape::AnthropicCompletion => Format::AnthropicCompletion,
            Shape::BedrockConverse => Format::BedrockConverse,
            Shape::OpenAiChat => Format::OpenAiChat,
            Shape::OpenAiBatch => Format::OpenAiBatch,
            Shape::OpenAiResponses => Format::OpenAiResponses,
            Shape::Gemini => Format::Gemini,
            Shape::GeminiBatch => Format::GeminiBatch,
            Shape::VertexBatch => Format::VertexBatch,
            Shape::Cohere => Format::Cohere,
            Shape::CohereChunk => Format::CohereStream,
            Shape::Ollama => Format::Ollama,
            Shape::OllamaChunk => Format::OllamaStream,
            Shape::InspectLog => Format::Inspect,
            Shape::Otel => Format::Otel,
            Shape::Promptfoo | Shape::PromptfooResult => Format::Promptfoo,
            Shape::LmEvalSample => Format::LmEval,
            Shape::HelmScenarioState => Format::Helm,
            Shape::LangfuseExport | Shape::LangfuseObservation => Format::Langfuse,
            Shape::LangSmithRun => Format::LangSmith,
            Shape::Records => Format::Records,
            Shape::Ledger | Shape::BenchContext | Shape::LmEvalResults | Shape::ApiError | Shape::Unknown => {
                return None;
            }
        })
    }
}

/// How sure a format is that a record is its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Sure {
    /// By fields other shapes may share: taken when no format is certain.
    Likely,
    /// By fields only this format writes.
    Certain,
}

/// A format's claim on a record: the record's shape, and how sure it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Claim {
    pub shape: Shape,
    pub sure: Sure,
}

impl Claim {
    pub fn certain(shape: Shape) -> Claim {
        Claim { shape, sure: Sure::Certain }
    }

    pub fn likely(shape: Shape) -> Claim {
        Claim { shape, sure: Sure::Likely }
    }
}
