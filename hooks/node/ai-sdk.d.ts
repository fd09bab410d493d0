// Types of the Vercel AI SDK adapter (ai-sdk.js). The SDK's own types are
// not imported: the adapter works with AI SDK 5 to 7.

import type { Steer } from "./index.js";

export interface SteeredOptions<TOOLS extends Record<string, any>> {
  /** The name the gates carry. */
  agent?: string;
  tools?: TOOLS;
  /** Tools whose calls a person approves. */
  approve?: Array<keyof TOOLS & string>;
  /** {tool: flag}: the flag that offers the tool. */
  flags?: Partial<Record<keyof TOOLS & string, string>>;
  /** {flag: on}: a flag's default (on when not said). */
  defaults?: Record<string, boolean>;
  descriptions?: Record<string, string>;
  /** The caller's own, called after the gate. */
  prepareStep?: (step: any) => any;
  activeTools?: Array<keyof TOOLS & string>;
  abortSignal?: AbortSignal;
}

export declare function steered<TOOLS extends Record<string, any>>(
  steer: Steer,
  options?: SteeredOptions<TOOLS>,
): { tools: TOOLS; prepareStep: (step: any) => Promise<any>; abortSignal: AbortSignal };

export declare function gatedTool<T>(steer: Steer, name: string, tool: T, approve?: boolean, agent?: string): T;
