// Types of the OpenAI Agents SDK adapter (openai-agents.js).

import type { Steer } from "./index.js";

/** `runner.run(agent, input, options)` steered; options.runner: the Runner, else a new one. */
export declare function run<R = any>(steer: Steer, agent: any, input: any, options?: { runner?: any; [key: string]: any }): Promise<R>;
/** A function tool with a `tool_call` gate before each call. */
export declare function gated<T>(steer: Steer, tool: T): T;
/** An `isEnabled` predicate: the flag's value as the watch has it. */
export declare function flag(steer: Steer, name: string, options?: { default?: boolean; description?: string }): () => Promise<boolean>;
