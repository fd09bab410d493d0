//! What a model call's answer must be, as an endpoint is asked for it: the
//! contract's strict JSON Schema (`native`), the functions the model is
//! made to call (`tool`), and how the calls of an answer read back as the
//! contract's JSON. Each pattern builds its contracts in its own folder,
//! from the same definitions its validation uses; the provider only sends
//! and reads them and never tells patterns apart.
//!
//! `wire` builds schemas in the strict subset and the one `submit_<name>`
//! function of a single-answer contract; `strict` (tests only) checks a
//! schema against OpenAI's documented rules and writes answers in wire form.

#[cfg(test)]
pub(crate) mod strict;
pub(crate) mod wire;

use serde_json::Value;
use std::ops::Deref;
use std::sync::Arc;

/// `tool` mode: the answer the calls of one model answer stand for, in the
/// contract's own JSON, or what is wrong with them in words a repair can
/// quote. A closure: a turn's reading knows its agents, members and tools.
pub(crate) type AnswerOfCalls = Arc<dyn Fn(&[ToolCall]) -> Result<Value, String> + Send + Sync>;

/// A contract as a request carries it.
#[derive(Clone)]
pub(crate) struct Contract {
    /// The schema's name as a request names it, chosen by the pattern that
    /// asks (`plan`, `turn`, `notes`).
    pub(crate) name: &'static str,
    /// The answer's JSON Schema, in OpenAI's strict subset: every object
    /// closed (`additionalProperties: false`), every property required
    /// (optional ones nullable).
    pub(crate) schema: Value,
    /// `tool` mode: the functions offered; the model must call one.
    pub(crate) functions: Functions,
    /// `tool` mode: the answer the calls of one model answer stand for, in
    /// the contract's own JSON (what a `native` answer would have been);
    /// the error, in words a repair can quote, when they stand for none.
    /// Called as `(contract.answer_of_calls)(&calls)`.
    pub(crate) answer_of_calls: AnswerOfCalls,
    /// An endpoint's answer in the schema's wire form (optional keys
    /// present as nulls, a free-form object written as a string holding
    /// it) turned back into the contract's own JSON; an answer already in
    /// that form is left as it is.
    pub(crate) normalise: fn(Value) -> Value,
}

impl std::fmt::Debug for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contract")
            .field("name", &self.name)
            .field("schema", &self.schema)
            .field("functions", &&*self.functions)
            .finish_non_exhaustive()
    }
}

/// `tool` mode: a contract's functions, given, or made by their `Offer`
/// when first read: a coordinator's turn offers a function per member
/// (100,000 of them), which only a request in `tool` mode reads.
#[derive(Clone)]
pub(crate) struct Functions(Arc<dyn Offer>);

/// What makes a contract's functions, at most once, when they are read.
pub(crate) trait Offer: Send + Sync {
    fn functions(&self) -> &[Function];
}

impl Offer for Vec<Function> {
    fn functions(&self) -> &[Function] {
        self
    }
}

impl Functions {
    /// The functions `offer` makes when they are first read.
    pub(crate) fn offered_by(offer: Arc<dyn Offer>) -> Self {
        Functions(offer)
    }
}

impl From<Vec<Function>> for Functions {
    fn from(functions: Vec<Function>) -> Self {
        Functions(Arc::new(functions))
    }
}

impl Deref for Functions {
    type Target = [Function];

    fn deref(&self) -> &[Function] {
        self.0.functions()
    }
}

/// One function offered to the model in `tool` mode.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Function {
    pub(crate) name: String,
    pub(crate) description: String,
    /// The arguments' JSON Schema.
    pub(crate) parameters: Value,
    /// Whether `parameters` is in the strict subset (a tool whose arguments
    /// are free-form is not).
    pub(crate) strict: bool,
}

/// One function call of a model's answer, its arguments parsed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ToolCall {
    pub(crate) name: String,
    pub(crate) arguments: Value,
}

/// Why the model stopped writing, as the endpoint said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Finish {
    /// It finished (or the endpoint did not say).
    #[default]
    Stop,
    /// Cut at the output limit (`finish_reason: "length"`): the text is
    /// what came before the cut.
    Length,
    /// It refused (`message.refusal`), in its own words (scrubbed).
    Refused(String),
}

/// One round of repair as the next request carries it: the answer that
/// failed its contract, given back as the assistant's turn, and what was
/// wrong with it, as the next user message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RepairTurn {
    pub(crate) answer: String,
    pub(crate) error: String,
}
