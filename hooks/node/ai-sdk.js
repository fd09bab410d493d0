// The Vercel AI SDK, steered from `conclave watch`: spread what `steered`
// returns into a `generateText` / `streamText` call (or a `ToolLoopAgent`).
//
//   const result = await generateText({ model, prompt, stopWhen: stepCountIs(5),
//     ...steered(steer, { agent: "Billing Agent", tools, approve: ["lookup_invoice"],
//                         flags: { legal_check: "legal_analyst" } }) });
//
// A `model_call` gate before every step (`prepareStep`), a `tool_call` gate
// before every call of a tool (its `execute` wrapped, with the call's
// input); the tools in `approve` are approved or rejected by a person
// before they run (a rejection is the tool's result, with the reason, which
// the model reads at its next step); `flags` maps a tool to the flag that
// offers it (`activeTools` of each step); a stop throws `Stopped` out of the
// call and aborts its `abortSignal`, which ends a model call under way.
// The SDK's own `needsApproval` ends the call with an approval request the
// caller answers in a new call; the wrapped tool decides in place instead.
// The hook imports nothing of the SDK: it works with AI SDK 5 to 7.

import { rejection } from "./index.js";

/**
 * What a `generateText` / `streamText` call takes to be steered: `tools`
 * (wrapped), `prepareStep` (a gate per step, the step's active tools) and
 * `abortSignal` (aborted on a stop).
 *
 * options: agent (the name the gates carry), tools, approve (tool names
 * whose calls a person approves), flags ({tool: flag}), defaults ({flag:
 * on}, on when not said), descriptions ({flag: text}), prepareStep (the
 * caller's own, called after the gate), abortSignal (the caller's own,
 * followed too).
 */
export function steered(steer, options = {}) {
  const { agent, tools = {}, approve = [], flags = {}, defaults = {}, descriptions = {} } = options;
  for (const flag of new Set(Object.values(flags))) {
    steer.flagDeclare(flag, { default: defaults[flag] ?? true, description: descriptions[flag] ?? "" });
  }
  const approved = new Set(approve);
  const wrapped = Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [name, gatedTool(steer, name, tool, approved.has(name), agent)]),
  );
  const signal = steer.signal();
  const abortSignal = options.abortSignal ? AbortSignal.any([signal, options.abortSignal]) : signal;
  async function prepareStep(step) {
    await steer.gate("model_call", agent ?? "model", {
      agent,
      args: () => ({ step: step.stepNumber }),
    });
    const own = (await options.prepareStep?.(step)) ?? {};
    const names = own.activeTools ?? options.activeTools ?? Object.keys(wrapped);
    const active = [];
    for (const name of names) {
      if (!(name in flags) || (await steer.flag(flags[name]))) active.push(name);
    }
    return { ...own, activeTools: active };
  }
  return { tools: wrapped, prepareStep, abortSignal };
}

/** `tool` with a `tool_call` gate before each call and, when `approve`, a person's approval. */
export function gatedTool(steer, name, tool, approve = false, agent = undefined) {
  if (typeof tool?.execute !== "function") return tool;
  const execute = tool.execute;
  return {
    ...tool,
    async execute(input, context) {
      await steer.gate("tool_call", name, { agent, args: () => input });
      if (approve) {
        const { approved, reason } = await steer.approve(name, input, { agent });
        if (!approved) return rejection(name, reason);
      }
      return execute.call(tool, input, context);
    },
  };
}
