// Types of the LangGraph.js adapter (langgraph.js).

import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Steer } from "./index.js";

/** A gate before every LangGraph node. */
export declare class SteerCallback extends BaseCallbackHandler {
  constructor(steer: Steer);
  name: string;
  readonly steer: Steer;
}
export declare function gateNode<S, C, R>(steer: Steer, fn: (state: S, config: C) => R, name?: string): (state: S, config: C) => Promise<Awaited<R>>;
export declare function guarded<I, C, R>(steer: Steer, fn: (input: I, config: C) => R, name?: string): (input: I, config: C) => Promise<Awaited<R> | string>;
/** `graph.invoke`, every `interrupt()` answered by a person through the watch. */
export declare function invoke(graph: any, input: any, config: any, steer: Steer): Promise<any>;
