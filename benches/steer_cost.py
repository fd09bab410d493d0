"""What the steering hook costs a PydanticAI or an AutoGen run nobody
steers, on a stub model answering at once. PydanticAI: an agent whose
model asks for 100 calls of the tool `count` at each of 10 steps, then
answers: 1,000 tool calls, through `SteerToolset` or the plain toolset.
AutoGen: a round robin of one assistant whose model answers at once
(its context the last four messages, so a turn costs the same at the
end as at the start), for 250 turns: about 1,000 messages the runtime
carries, through `SteerIntervention`, a handler that does nothing, or no
handler; and (`autogen_model`) for 1,000 turns, its model client steered
(`SteerModel`, a gate per model call) or not. Each run without and with the hook,
interleaved ROUNDS times in this one process (a run of its own each
time; each round in the reverse order of the one before). Prints one
JSON line: the seconds of each run, both ways, on the wall clock and of
the process's CPU (every thread's, the hook's lease poll too), and the
Python function calls of one more run each way (benches/steer_calls.py).
Usage: steer_cost.py FRAMEWORK URL ROUNDS"""

import asyncio
import json
import sys
import time

from conclave_steer import Steer
from steer_calls import acounted

framework, url, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
STEPS, CALLS = 10, 100


def count(n: int) -> str:
    """Count."""
    return f"counted {n}"


async def pydantic_ai(way: str) -> tuple:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import UsageLimits
    from conclave_steer.pydantic_ai import SteerToolset

    steps = [0]

    async def answer(messages, info) -> ModelResponse:
        steps[0] += 1
        if steps[0] > STEPS:
            return ModelResponse(parts=[TextPart(content="Counted.")])
        return ModelResponse(parts=[ToolCallPart(tool_name="count", args={"n": k},
                                                 tool_call_id=f"c{steps[0]}_{k}")
                                    for k in range(CALLS)])

    tools = FunctionToolset([count])
    if way == "with":
        tools = SteerToolset(tools, Steer(url))
    agent = Agent(FunctionModel(answer), toolsets=[tools], name="Counter")
    began, cpu = time.perf_counter(), time.process_time()
    result = await agent.run("count", usage_limits=UsageLimits(request_limit=STEPS + 5))
    took = (time.perf_counter() - began, time.process_time() - cpu)
    assert result.output == "Counted.", result.output
    return took


async def autogen(way: str, turns: int = 250) -> tuple:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.conditions import MaxMessageTermination
    from autogen_agentchat.teams import RoundRobinGroupChat
    from autogen_core import DefaultInterventionHandler, SingleThreadedAgentRuntime
    from autogen_core.model_context import BufferedChatCompletionContext
    from autogen_core.models import ModelFamily, ModelInfo
    from autogen_ext.models.replay import ReplayChatCompletionClient
    from conclave_steer.autogen import SteerIntervention, SteerModel

    info = ModelInfo(vision=False, function_calling=True, json_output=False,
                     family=ModelFamily.UNKNOWN, structured_output=False)
    handlers = {"with": SteerIntervention(Steer(url)).handlers(),
                "idle": [DefaultInterventionHandler()]}
    runtime = SingleThreadedAgentRuntime(intervention_handlers=handlers.get(way))
    model = ReplayChatCompletionClient(["counted"] * (turns + 5), model_info=info)
    if way == "model":
        model = SteerModel(Steer(url), model, agent="counter")
    counter = AssistantAgent("counter", model_client=model,
                             model_context=BufferedChatCompletionContext(buffer_size=4))
    team = RoundRobinGroupChat([counter], runtime=runtime,
                               termination_condition=MaxMessageTermination(turns))
    runtime.start()
    began, cpu = time.perf_counter(), time.process_time()
    await team.run(task="count")
    took = (time.perf_counter() - began, time.process_time() - cpu)
    await runtime.stop_when_idle()
    return took


async def autogen_model(way: str) -> tuple:
    # A gate per model call: 1,000 turns make 1,000 gates.
    return await autogen("model" if way == "with" else way, turns=1000)


async def main() -> None:
    run = globals()[framework]
    # AutoGen's runtime pays for any intervention handler at all: one
    # that does nothing is timed too.
    ways = ("without", "with", "idle") if framework == "autogen" else ("without", "with")
    times = {way: [] for way in ways}
    for way in ways:  # warm up each way once
        await run(way)
    for k in range(rounds):
        for way in ways[:: 1 if k % 2 == 0 else -1]:
            times[way].append(await run(way))
    said = {way: [wall for wall, _ in runs] for way, runs in times.items()}
    said.update({"cpu_" + way: [cpu for _, cpu in runs] for way, runs in times.items()})
    said.update({"calls_" + way: await acounted(lambda: run(way)) for way in ways})
    print(json.dumps(said), flush=True)


asyncio.run(main())
