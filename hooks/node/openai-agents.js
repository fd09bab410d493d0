// The OpenAI Agents SDK for JavaScript (@openai/agents), steered from
// `conclave watch`:
//
//   const result = await run(steer, agent, "settle invoice 7", { runner });
//
// `run` is `runner.run` with a `model_call` gate before every model call
// (the run's `callModelInputFilter`, which the SDK awaits), every tool
// approval the SDK asks for (a tool's own `needsApproval`) put to a person
// and answered on the run's state (a rejection's reason is the message
// the model reads), and the run's `signal` aborted on a stop. `gated(steer,
// tool)` adds a `tool_call` gate before each call of a function tool;
// `flag(steer, name)` is a tool's or a handoff's `isEnabled`, read at each
// turn. The SDK's run hooks are events it does not await, so they cannot
// hold a run; the filter and the tool are where a gate can wait.

import { Stopped, rejection } from "./index.js";

/**
 * `runner.run(agent, input, options)` steered (options.runner: the
 * Runner, else a new one). Approvals are asked until the run ends; a stop
 * throws `Stopped`. Unreachable, the hook approves (strict: rejects).
 */
export async function run(steer, agent, input, options = {}) {
  const { runner: given, ...rest } = options;
  const runner = given ?? new (await import("@openai/agents")).Runner();
  const own = rest.signal;
  const signal = own ? AbortSignal.any([steer.signal(), own]) : steer.signal();
  const filter = rest.callModelInputFilter;
  const callModelInputFilter = async (args) => {
    const name = args.agent?.name ?? "agent";
    await steer.gate("model_call", name, { agent: name });
    return filter ? filter(args) : args.modelData;
  };
  const settings = { ...rest, signal, callModelInputFilter };
  let result = await stopping(signal, () => runner.run(agent, input, settings));
  while (result.interruptions?.length) {
    for (const item of result.interruptions) {
      const tool = item.name ?? item.rawItem?.name ?? "tool";
      const asker = item.agent?.name;
      const { approved, reason } = await steer.approve(tool, item.rawItem?.arguments, { agent: asker });
      if (approved) result.state.approve(item);
      else result.state.reject(item, { message: rejection(tool, reason) });
    }
    result = await stopping(signal, () => runner.run(agent, result.state, settings));
  }
  return result;
}

/** The run's own error, or the hook's stop when the run ended on it. */
async function stopping(signal, body) {
  try {
    return await body();
  } catch (error) {
    if (signal.aborted && signal.reason instanceof Stopped && !(error instanceof Stopped)) {
      throw signal.reason;
    }
    throw error;
  }
}

/** `tool` (a function tool) with a `tool_call` gate before each call, with its arguments. */
export function gated(steer, tool) {
  const invoke = tool.invoke;
  return {
    ...tool,
    async invoke(context, input, details) {
      const agent = details?.agent?.name ?? context?.agent?.name;
      await steer.gate("tool_call", tool.name, { agent, args: () => input });
      return invoke.call(tool, context, input, details);
    },
  };
}

/** An `isEnabled` predicate: the flag's value as the watch has it. */
export function flag(steer, name, { default: on = false, description = "" } = {}) {
  steer.flagDeclare(name, { default: on, description });
  return async () => steer.flag(name);
}
