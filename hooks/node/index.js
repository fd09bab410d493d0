// The steering protocol's client for Node, on Node's own `fetch` alone.
//
// A `Steer` names its run by `run` / $CONCLAVE_RUN_ID when given, else by
// the trace id of the current OpenTelemetry span (when @opentelemetry/api
// is installed and a span is current), else by a trace id of its own. It
// declares flags, waits at gates, asks approval and questions, and throws
// `Stopped` when a person stopped the run.
//
// A watch that cannot be reached never holds a run: the call goes on as if
// nobody steered (gates go, flags keep their last known values, approvals
// pass, questions go unanswered), with one warning on stderr, and no call
// is tried again for `retryAfter` seconds. A strict hook (`strict: true`)
// rejects what needs approval instead. docs/steer.md has the protocol.

import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";

export const DEFAULT_URL = "http://127.0.0.1:4318";

/** A person stopped the run from the watch. */
export class Stopped extends Error {
  constructor(reason = "stopped by a person") {
    super(reason);
    this.name = "Stopped";
    this.reason = reason;
  }
}

// The OpenTelemetry API where the hook is installed, else where the
// program runs (a hook linked from elsewhere finds the program's copy).
// Every copy of the API reads the same global registration.
const otel = await import("@opentelemetry/api").catch(() => {
  try {
    return createRequire(join(process.cwd(), "package.json"))("@opentelemetry/api");
  } catch {
    return null;
  }
});

function currentTrace() {
  const context = otel?.trace?.getActiveSpan?.()?.spanContext?.();
  if (!context || !otel.isSpanContextValid(context)) return null;
  return context.traceId;
}

// Texts the watch takes are at most 4096 bytes and a body 64 KiB: a
// call's arguments beyond this are sent cut, as text.
const MOST_ARGUMENTS = 16 * 1024;

/** One hook's connection to `conclave watch`'s steering. */
export class Steer {
  #flags = new Map(); // name -> [default, description]
  #values = new Map(); // trace -> {name: on}
  #declared = new Set();
  #downUntil = 0;
  #lease = new Map(); // trace -> until (ms, monotonic)
  #passed = new Map(); // trace -> gates passed under the lease, untold
  #renewing = new Set();
  #warned = new Set();
  #signals = new Map(); // trace -> AbortController
  #flushing = false;

  /**
   * url: the watch's HTTP address (default $CONCLAVE_STEER_URL, else the
   * OTLP/HTTP port on loopback); token: the bearer token when the watch
   * was started with --token-env (default $CONCLAVE_STEER_TOKEN); run: the
   * run's trace id, before anything else (default $CONCLAVE_RUN_ID);
   * strict: reject what needs approval when the watch cannot be reached;
   * timeout: seconds one request may take beyond its long poll;
   * heartbeat: seconds the watch may hold one request; retryAfter:
   * seconds an unreachable watch is left alone.
   */
  constructor({
    url,
    token,
    run,
    strict = false,
    timeout = 5,
    heartbeat = 10,
    retryAfter = 60,
  } = {}) {
    const env = process.env;
    this.url = (url || env.CONCLAVE_STEER_URL || DEFAULT_URL).replace(/\/+$/, "");
    this.token = token ?? env.CONCLAVE_STEER_TOKEN ?? null;
    this.run = (run || env.CONCLAVE_RUN_ID || "").toLowerCase() || null;
    this.strict = strict;
    this.timeout = timeout;
    this.heartbeat = heartbeat;
    this.retryAfter = retryAfter;
    this.session = randomBytes(16).toString("hex");
    this.ownTrace = randomBytes(16).toString("hex");
    // Gates passed in a run's last lease are told when the program ends.
    process.on("beforeExit", () => {
      if (!this.#flushing) this.flush();
    });
  }

  /** The run's trace id: `run`, else the current span's, else the hook's own. */
  traceId() {
    return this.run || currentTrace() || this.ownTrace;
  }

  /**
   * An AbortSignal of the current run, aborted (with a `Stopped`) when the
   * hook learns that a person stopped the run: a framework's call given it
   * ends there, even in the middle of a model call.
   */
  signal() {
    const trace = this.traceId();
    let controller = this.#signals.get(trace);
    if (!controller) {
      controller = new AbortController();
      this.#signals.set(trace, controller);
    }
    return controller.signal;
  }

  // -- flags ---------------------------------------------------------------

  /** Declare a flag; the watch learns of it at the run's first call. */
  flagDeclare(name, { default: on = false, description = "" } = {}) {
    this.#flags.set(name, [Boolean(on), description]);
  }

  /** The flag's value now, as the watch has it (a person's setting, a --flag rule, or the default). */
  async flag(name) {
    const trace = this.traceId();
    if (this.#declared.has(trace) && this.#lease.has(trace)) return this.#value(trace, name);
    const answer =
      this.#declared.has(trace) || this.#flags.size === 0
        ? await this.#call({ op: "declare", flags: [] }, trace, false)
        : await this.#declare(trace);
    if (answer) this.#values.set(trace, answer.flags ?? {});
    return this.#value(trace, name);
  }

  #value(trace, name) {
    const values = this.#values.get(trace) ?? {};
    if (name in values) return Boolean(values[name]);
    return this.#flags.get(name)?.[0] ?? false;
  }

  async #declare(trace) {
    const flags = [...this.#flags].map(([name, [on, description]]) => ({
      name,
      default: on,
      description,
    }));
    const answer = await this.#call({ op: "declare", flags }, trace, false);
    if (answer) this.#declared.add(trace);
    return answer;
  }

  // -- gates, approvals, questions -------------------------------------------

  /**
   * Wait here until the watch lets the run go. kind: agent_turn,
   * model_call, tool_call, handoff, node or message. While the watch's
   * lease lasts (a run nobody holds) the gate passes without asking and
   * is counted in the next call. `args` may be a function returning them:
   * it is called only when the gate asks.
   */
  async gate(kind, name, { agent, args } = {}) {
    if (this.#passLeased()) return;
    const body = { op: "gate", kind, name: String(name) };
    if (agent != null) body.agent = String(agent);
    const value = typeof args === "function" ? args() : args;
    if (value !== undefined) body.arguments = jsonable(value);
    await this.#ask(body);
  }

  /** Ask approval of a tool call: `{approved: true}` or `{approved: false, reason}`. */
  async approve(tool, args, { agent } = {}) {
    const body = { op: "approval", tool: String(tool), arguments: jsonable(args) };
    if (agent != null) body.agent = String(agent);
    const answer = await this.#ask(body);
    if (!answer) {
      if (this.strict) {
        return {
          approved: false,
          reason: "the watch could not be reached and this hook is strict",
        };
      }
      return { approved: true };
    }
    if (answer.status === "rejected") return { approved: false, reason: answer.reason || "rejected" };
    return { approved: true };
  }

  /** Ask a person: their answer, or null when nobody answers. */
  async ask(question, { options = [], agent } = {}) {
    const body = { op: "question", question: String(question), options: [...options].map(String) };
    if (agent != null) body.agent = String(agent);
    const answer = await this.#ask(body);
    return answer?.status === "answered" ? (answer.text ?? null) : null;
  }

  async #ask(body) {
    const trace = this.traceId();
    if (!this.#declared.has(trace) && this.#flags.size > 0) {
      const declared = await this.#declare(trace);
      if (declared) this.#values.set(trace, declared.flags ?? {});
    }
    let answer = await this.#call(body, trace, true);
    while (answer?.status === "waiting") {
      answer = await this.#call({ op: "poll", id: answer.id }, trace, true);
    }
    if (!answer) return null;
    this.#heard(trace, answer);
    if (answer.status === "stopped") throw new Stopped(answer.reason || "stopped by a person");
    return answer;
  }

  /** What an answer says of the run: its flags, its lease, its stop. */
  #heard(trace, answer) {
    if (answer.flags) this.#values.set(trace, answer.flags);
    const lease = answer.status === "go" ? answer.lease_ms : null;
    if (typeof lease === "number" && lease > 0) {
      this.#lease.set(trace, performance.now() + lease);
    } else {
      this.#lease.delete(trace);
    }
    if (answer.status === "stopped") {
      this.#signals.get(trace)?.abort(new Stopped(answer.reason || "stopped by a person"));
    }
  }

  /**
   * A gate of the current run passes under its lease: counted. A lease
   * run out is renewed in the background while the gates go on passing,
   * so a run nobody holds never waits on the watch; a renewal refused
   * (the run was paused or stopped) ends the lease and the next gate asks.
   */
  #passLeased() {
    const trace = this.traceId();
    const until = this.#lease.get(trace);
    if (until === undefined) return false;
    this.#passed.set(trace, (this.#passed.get(trace) ?? 0) + 1);
    if (performance.now() >= until && !this.#renewing.has(trace)) {
      this.#renewing.add(trace);
      this.#call({ op: "lease" }, trace, false)
        .then((answer) => {
          if (answer) this.#heard(trace, answer);
        })
        .finally(() => this.#renewing.delete(trace));
    }
    return true;
  }

  /** Tell the watch of the gates passed under leases and not told yet. */
  async flush() {
    this.#flushing = true;
    try {
      for (const [trace, passed] of [...this.#passed]) {
        if (passed) await this.#call({ op: "lease" }, trace, false);
      }
    } finally {
      this.#flushing = false;
    }
  }

  // -- the wire ---------------------------------------------------------------

  /** POST one hook request: the answer, or null when the watch is down or refused. */
  async #call(fields, trace, hold) {
    if (performance.now() < this.#downUntil) return null;
    const body = { ...fields, trace_id: trace, session: this.session };
    const passed = this.#passed.get(trace) ?? 0;
    this.#passed.delete(trace);
    if (passed) body.passed = passed;
    if (hold) body.wait_ms = Math.round(this.heartbeat * 1000);
    const headers = { "content-type": "application/json" };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const seconds = this.timeout + (hold ? this.heartbeat : 0);
    let status;
    let text;
    try {
      const response = await fetch(`${this.url}/v1/steer/hook`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(seconds * 1000),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      this.#downUntil = performance.now() + this.retryAfter * 1000;
      const why = error?.cause?.code || error?.cause?.message || error?.message || String(error);
      this.#warn(
        `cannot reach the watch at ${this.url} (${why}); the run goes on unsteered ` +
          `${this.strict ? "(approvals rejected: strict) " : ""}` +
          `and no call is tried for ${this.retryAfter} s`,
        "down",
      );
      return null;
    }
    let value = null;
    try {
      value = JSON.parse(text);
    } catch {
      value = null;
    }
    if (status !== 200) {
      const said = typeof value?.error === "string" ? value.error : "";
      this.#warn(`refused (${status}): ${said}`, `refused ${status}`);
      return null;
    }
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  }

  #warn(message, key) {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    process.stderr.write(`conclave-steer: ${message}\n`);
  }
}

/** A value as the protocol carries it: JSON text parsed, the rest as JSON holds it, cut when long. */
export function jsonable(value) {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") {
    try {
      return jsonable(JSON.parse(value));
    } catch {
      return cut(value);
    }
  }
  let text;
  try {
    text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? String(v) : v));
  } catch {
    return cut(String(value));
  }
  if (text === undefined) return cut(String(value));
  return text.length > MOST_ARGUMENTS ? cut(text) : JSON.parse(text);
}

function cut(text) {
  return text.length > MOST_ARGUMENTS ? `${text.slice(0, MOST_ARGUMENTS)}…` : text;
}

/** The text a rejected tool call answers the model with. */
export function rejection(tool, reason) {
  return `The call of ${tool} was rejected by a person: ${reason}`;
}
