// Types of the steering protocol's client (index.js).

export declare const DEFAULT_URL: string;

/** A person stopped the run from the watch. */
export declare class Stopped extends Error {
  constructor(reason?: string);
  readonly reason: string;
}

export interface SteerOptions {
  /** The watch's HTTP address (default $CONCLAVE_STEER_URL, else http://127.0.0.1:4318). */
  url?: string;
  /** The bearer token when the watch was started with --token-env (default $CONCLAVE_STEER_TOKEN). */
  token?: string | null;
  /** The run's trace id (32 hex digits), before anything else (default $CONCLAVE_RUN_ID). */
  run?: string;
  /** Reject what needs approval when the watch cannot be reached. */
  strict?: boolean;
  /** Seconds one request may take beyond its long poll (5). */
  timeout?: number;
  /** Seconds the watch may hold one request (10). */
  heartbeat?: number;
  /** Seconds an unreachable watch is left alone (60). */
  retryAfter?: number;
}

export type GateKind = "agent_turn" | "model_call" | "tool_call" | "handoff" | "node" | "message" | (string & {});

export declare class Steer {
  constructor(options?: SteerOptions);
  readonly url: string;
  readonly session: string;
  /** The run's trace id: `run`, else the current span's, else the hook's own. */
  traceId(): string;
  /** The current run's signal, aborted with a `Stopped` when the hook learns of a stop. */
  signal(): AbortSignal;
  flagDeclare(name: string, options?: { default?: boolean; description?: string }): void;
  flag(name: string): Promise<boolean>;
  gate(kind: GateKind, name: string, options?: { agent?: string; args?: unknown | (() => unknown) }): Promise<void>;
  approve(tool: string, args?: unknown, options?: { agent?: string }): Promise<{ approved: boolean; reason?: string }>;
  ask(question: string, options?: { options?: string[]; agent?: string }): Promise<string | null>;
  /** Tell the watch of the gates passed under leases and not told yet. */
  flush(): Promise<void>;
}

/** A value as the protocol carries it. */
export declare function jsonable(value: unknown): unknown;
/** The text a rejected tool call answers the model with. */
export declare function rejection(tool: string, reason: string): string;
