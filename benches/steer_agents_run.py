"""What the steering hook costs an OpenAI Agents SDK run nobody steers:
one agent on a stub model (answering at once: CALLS calls of its tool
`count` at once, TURNS - 1 times, then its answer), so a run has a model
call and CALLS tool calls per step: 1,000 gates at 50 turns of 19 calls
(the SDK sends the whole conversation again at every turn: fewer, wider
turns keep the run's own time from growing with the square of its turns); run without
hooks and with `SteerHooks`, interleaved ROUNDS times in this one
process (each round in the reverse order of the one before). Prints one
JSON line: the seconds of each run, both ways, on the wall clock and of
the process's CPU (every thread's, the hook's lease poll too), and the
Python function calls of one more run each way (benches/steer_calls.py).
Usage: steer_agents_run.py URL TURNS CALLS ROUNDS"""

import asyncio
import json
import sys
import time

from agents import Agent, Runner, function_tool
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from conclave_steer import Steer
from steer_calls import acounted
from conclave_steer.openai_agents import SteerHooks

url, turns, calls, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


class StubModel(Model):
    def __init__(self) -> None:
        self.calls = 0

    async def get_response(self, system_instructions, input, model_settings, tools,
                           output_schema, handoffs, tracing, *, previous_response_id=None,
                           conversation_id=None, prompt=None):
        self.calls += 1
        call_id = f"call_{self.calls}"
        if self.calls < turns:
            output = [
                ResponseFunctionToolCall(
                    id=f"fc_{call_id}_{k}", call_id=f"{call_id}_{k}", name="count",
                    arguments=json.dumps({"n": self.calls}), type="function_call",
                    status="completed")
                for k in range(calls)
            ]
        else:
            output = [ResponseOutputMessage(
                id=f"msg_{call_id}", role="assistant", status="completed", type="message",
                content=[ResponseOutputText(text="Counted.", type="output_text", annotations=[])])]
        return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool
def count(n: int) -> str:
    """Count."""
    return f"counted {n}"


async def timed(hooks) -> tuple:
    agent = Agent(name="Counter", instructions="Count.", tools=[count], model=StubModel())
    began, cpu = time.perf_counter(), time.process_time()
    result = await Runner.run(agent, "count", hooks=hooks, max_turns=turns + 5)
    took = (time.perf_counter() - began, time.process_time() - cpu)
    assert result.final_output == "Counted.", result.final_output
    return took


async def main() -> None:
    times = {"without": [], "with": []}
    await timed(None)  # warm up both ways once
    await timed(SteerHooks(Steer(url)))
    for k in range(rounds):
        for way in ("without", "with")[:: 1 if k % 2 == 0 else -1]:
            # A run of its own each time: a new hook.
            times[way].append(await timed(SteerHooks(Steer(url)) if way == "with" else None))
    said = {way: [wall for wall, _ in runs] for way, runs in times.items()}
    said.update({"cpu_" + way: [cpu for _, cpu in runs] for way, runs in times.items()})
    said["calls_without"] = await acounted(lambda: timed(None))
    said["calls_with"] = await acounted(lambda: timed(SteerHooks(Steer(url))))
    print(json.dumps(said), flush=True)


asyncio.run(main())
