//! The integration tests, one test binary: each module is one file of
//! `tests/`, and linking the crate once instead of once per file is most
//! of what CI saves on two cores. A test that measures its whole process
//! (`dashboard_memory` counts every allocation, `hostile_memory` measures
//! a child whose peak includes its parent's size at the fork) runs in a
//! process of its own, this binary filtered to it (`common::alone`).
//! `compare_secrets` stays a binary of its own (see `Cargo.toml`): it
//! registers a secret for the whole process.

mod common;
/// The allocator of every test here, counting the bytes held: what
/// `dashboard_memory` measures, in a process of its own.
#[path = "../benches/common/counting.rs"]
mod counting;

/// The side-by-side bench's shapes as scenarios (`chain_memory` runs its
/// handoff chain and its coordinator of many members).
#[path = "../benches/common/shapes.rs"]
mod shapes;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;
/// A loopback OTLP collector, for the OTLP and NATS tests.
#[path = "otlp/receiver.rs"]
mod receiver;

mod cassette;
mod chain_memory;
mod chain_snapshots;
mod ci_lints;
mod cli;
mod collaboration;
mod compare;
mod conformance;
mod coordinator;
mod cost;
mod dashboard_memory;
mod durations_at_run_time;
mod escalation;
mod escaping_programs;
mod fallback_row;
mod fan_out_memory;
mod fork_dashboard;
mod fork_faithful;
mod fork_link;
mod fork_programs;
mod gateway_cassette;
mod gateway_fork;
mod gateway_frameworks;
mod gateway_launch;
mod graph;
mod graph_checks;
mod graph_classes;
mod graph_decided;
mod graph_fork;
mod graph_live;
mod graph_pane;
mod graph_prompt;
mod graph_sweep;
mod graph_team;
mod graph_tools;
mod honest_usage;
mod hostile_memory;
mod hostile_models;
mod hostile_recordings;
mod hostile_scenarios;
mod huge_numbers;
mod imports;
mod knob_flags;
mod last_known_good;
mod launch;
mod launch_fork_dashboard;
mod launch_frameworks;
mod launch_journal;
mod launch_screen;
mod local_servers_every_scenario;
mod mcp;
mod member_calls;
mod messy_model;
mod names;
mod nats_attach;
mod nats_attach_garbage;
mod nats_core;
mod nats_events;
mod nats_outage;
mod nats_sweep;
mod nats_sweep_from;
mod nats_worker_rules;
mod nested_properties;
mod nested_runs;
mod nested_teams;
mod old_recordings;
mod openai;
mod operator_edges;
mod orchestrator;
mod orchestrator_live;
mod otlp;
mod otlp_far_ends;
mod outcome_e2e;
mod output;
mod package_hosts;
mod probe;
mod program_env;
mod question_gate;
mod real_breaker;
mod real_dashboard;
mod real_examples;
mod real_fetch;
mod real_mcp;
mod real_models;
mod real_research;
mod real_scenario_errors;
mod real_workers;
mod record_cli;
mod recording;
mod recording_damage;
mod recording_files;
mod repair_screens;
mod replay;
mod research;
mod research_live;
mod research_scenarios;
mod research_snapshots;
mod resilience;
mod resilience_scenarios;
mod scenario_descriptions;
mod scenario_errors;
mod scenario_properties;
mod secrets;
mod short_records;
mod slow_models;
mod steer;
mod steer_autogen;
mod steer_break;
mod steer_faults;
mod steer_langgraph;
mod steer_node;
mod steer_pause;
mod steer_screen;
mod step_down_retries;
mod streaming;
mod swarm;
mod sweep;
mod sweep_caps;
mod sweep_from;
mod team_cli;
mod team_safe_mode;
mod team_scenario_errors;
mod tight_schema;
mod token_parts;
mod tool_mode_turns;
mod tree_dashboard;
mod tree_snapshots;
mod trust;
mod tui_e2e;
mod tui_escalation;
mod tui_health;
mod tui_lists;
mod tui_outcome;
mod tui_partial_cost;
mod tui_resilience;
mod tui_snapshots;
mod tui_streaming;
mod tui_streaming_e2e;
mod tui_sweep;
mod unused_answers;
mod vocabulary;
mod watch_dashboard;
mod watch_ending;
mod watch_forward;
mod watch_own_runs;
mod watch_screen;
mod watched_panes;
