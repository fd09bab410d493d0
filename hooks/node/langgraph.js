// LangGraph.js, steered from `conclave watch`:
//
//   const result = await invoke(graph, state, { callbacks: [new SteerCallback(steer)],
//                                               configurable: { thread_id: "1" } }, steer);
//
// A `node` gate before every node of the graph (its name; its input as the
// arguments) from a callback handler the graph awaits; or from a node's own
// function (`gateNode(steer, fn, name)`), which costs a run nobody steers
// no callback dispatch. A flag read in a conditional edge (`await
// steer.flag("legal_review")`); a tool function a person approves
// (`guarded(steer, fn, name)`: a rejection is the tool's result, with the
// reason); `interrupt()` answered by a person (`invoke` resumes the graph
// with `new Command({ resume: answer })` until it ends; unanswered, the run
// stays interrupted and its result is returned). A stop throws `Stopped`
// out of `invoke`.

import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { Command } from "@langchain/langgraph";
import { jsonable, rejection } from "./index.js";

/** A gate before every LangGraph node. */
export class SteerCallback extends BaseCallbackHandler {
  name = "conclave_steer";

  constructor(steer) {
    // Awaited, and its error (a stop) raised into the run.
    super({ raiseError: true, ignoreLLM: true, ignoreAgent: true, ignoreRetriever: true, ignoreCustomEvent: true });
    this.awaitHandlers = true;
    this.steer = steer;
  }

  // LangChain calls it with (runId, parentRunId, tags, metadata, runType,
  // runName), not in the order its declarations say: the metadata is the
  // object naming the node, the run's name one of the rest.
  async handleChainStart(chain, inputs, ...rest) {
    const metadata = rest.find((a) => a && typeof a === "object" && !Array.isArray(a) && "langgraph_node" in a);
    const node = metadata?.langgraph_node;
    // A node's own run, not the runnables inside it nor the graph's entry.
    if (node === undefined || node === "__start__" || !rest.includes(node)) return;
    await this.steer.gate("node", String(node), { agent: String(node), args: () => jsonable(inputs) });
  }
}

/** `fn`, a node's function, with a gate before each of its runs (named `name`, else the function's). */
export function gateNode(steer, fn, name = undefined) {
  const node = String(name ?? (fn.name || "node"));
  return async (state, config) => {
    await steer.gate("node", node, { agent: node, args: () => jsonable(state) });
    return fn(state, config);
  };
}

/** `fn` (a tool's function of one input), each call approved or rejected by a person first. */
export function guarded(steer, fn, name = fn.name) {
  return async (input, config) => {
    const { approved, reason } = await steer.approve(name, input);
    if (!approved) return rejection(name, reason);
    return fn(input, config);
  };
}

/**
 * `graph.invoke`, every `interrupt()` answered by a person through the
 * watch (a checkpointer and a thread id in `config` are needed, as for
 * any interrupt). An interrupt's value is the question, or `{question,
 * options}`.
 */
export async function invoke(graph, input, config, steer) {
  let result = await graph.invoke(input, config);
  while (result?.__interrupt__?.length) {
    const asked = result.__interrupt__[0].value;
    const question = typeof asked === "object" && asked !== null ? String(asked.question ?? JSON.stringify(asked)) : String(asked);
    const options = typeof asked === "object" && Array.isArray(asked?.options) ? asked.options : [];
    const answer = await steer.ask(question, { options });
    // Nobody answered: the run stays interrupted, as without a hook.
    if (answer === null) return result;
    result = await graph.invoke(new Command({ resume: answer }), config);
  }
  return result;
}
