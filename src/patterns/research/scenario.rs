//! The research pattern's words in a scenario file: the `budget` keys it
//! reads and what a sim script's `synthesis` holds. Data only: the
//! scenario floor reads it.

/// The `budget` keys a research run reads beside the shared ones.
pub(crate) const BUDGET_KEYS: &[&str] = &["max_steps"];

/// The schema's words for the sim's `provider.synthesis`.
pub(crate) const SYNTHESIS_SCRIPT: &str = "sim, research: the synthesis, `{\"answer\": text, \"citations\": [note\nids]}` (one call per run). Without it the sim answers from the first\nthree notes' claims and cites them.";
