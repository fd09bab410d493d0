"""How late a pause holds a hooked run: FRAMEWORK's agent runs on a
model served over loopback HTTP (each answer takes DELAY seconds: call
the tool `count`), under the framework's steering adapter; PAUSES times,
at a random moment, a person pauses it through the watch at URL, waits
until a gate is held, counts the gates that passed after the pause and
the model calls that started after it, and lets it run on. Then the run
is stopped (the adapter's `Stopped` must come out of the run call).
Prints one JSON line: per pause the gates passed after it, their kinds,
the model calls started after it, and the ms until held.
Usage: steer_pause.py FRAMEWORK URL PAUSES DELAY SEED"""

import asyncio
import http.client
import http.server
import json
import random
import sys
import threading
import time
import urllib.parse

from conclave_steer import Steer, Stopped

framework, url, pauses, delay, seed = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                                       float(sys.argv[4]), int(sys.argv[5]))
CALLS = 10_000


class Counted(Steer):
    """A hook that logs each gate it lets pass, with when."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.passed: list = []

    def gate(self, kind, name, agent=None, arguments=None) -> None:
        super().gate(kind, name, agent, arguments)
        self.passed.append((time.monotonic(), kind))

    async def agate(self, kind, name, agent=None, arguments=None) -> None:
        if not self._pass_leased(name, agent):
            await asyncio.to_thread(super().gate, kind, name, agent, arguments)
        self.passed.append((time.monotonic(), kind))


# -- the loopback model: every answer after DELAY seconds -------------------

started: list = []


class ModelServer(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        started.append(time.monotonic())
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(delay)
        body = json.dumps({"tool": "count", "n": len(started)}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ModelServer)
threading.Thread(target=server.serve_forever, daemon=True).start()


def model() -> dict:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    connection.request("POST", "/v1/answer", body=b"{}")
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return answer


def count(n: int) -> str:
    """Count."""
    return f"counted {n}"


# -- the person: pauses at random moments ------------------------------------

watch = urllib.parse.urlsplit(url)


def steer_call(method: str, path: str, body: dict = None) -> dict:
    connection = http.client.HTTPConnection(watch.hostname, watch.port, timeout=30)
    connection.request(method, path, body=json.dumps(body).encode() if body else None)
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return answer


def held(trace: str) -> None:
    version = None
    while True:
        query = "" if version is None else f"?after={version}&wait_ms=5000"
        listed = steer_call("GET", "/v1/steer/runs" + query)
        for run in listed["runs"]:
            if run["trace_id"] == trace and any(w["ask"] == "gate" for w in run["waiting"]):
                return
        version = listed["version"]


def person(steer: Counted, trace: str, said: list) -> None:
    rng = random.Random(seed)
    while len(steer.passed) == 0:
        time.sleep(0.01)
    for _ in range(pauses):
        time.sleep(rng.uniform(0.05, 2.0))
        at = time.monotonic()
        steer_call("POST", "/v1/steer/control", {"op": "pause", "trace_id": trace})
        held(trace)
        took = time.monotonic() - at
        after = [kind for when, kind in steer.passed if when > at]
        calls = sum(1 for when in started if when > at)
        said.append({"gates": len(after), "kinds": after, "model_calls": calls,
                     "held_ms": round(took * 1000, 1)})
        steer_call("POST", "/v1/steer/control", {"op": "run_on", "trace_id": trace})
    steer_call("POST", "/v1/steer/control", {"op": "stop", "trace_id": trace,
                                              "reason": "the bench is done"})


# -- the frameworks ------------------------------------------------------------

async def openai_agents(steer: Counted) -> None:
    from agents import Agent, Runner, function_tool
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall
    from conclave_steer.openai_agents import SteerHooks

    class Loopback(Model):
        async def get_response(self, *args, **kwargs):
            answer = await asyncio.to_thread(model)
            call = ResponseFunctionToolCall(
                id=f"fc_{answer['n']}", call_id=f"call_{answer['n']}", name="count",
                arguments=json.dumps({"n": answer["n"]}), type="function_call",
                status="completed")
            return ModelResponse(output=[call], usage=Usage(requests=1), response_id=None)

        def stream_response(self, *args, **kwargs):
            raise NotImplementedError

    agent = Agent(name="Counter", instructions="Count.", tools=[function_tool(count)],
                  model=Loopback())
    await Runner.run(agent, "count", hooks=SteerHooks(steer), max_turns=CALLS)


async def langgraph(steer: Counted) -> None:
    from typing import TypedDict
    from langgraph.graph import END, START, StateGraph
    from conclave_steer.langgraph import steered

    class State(TypedDict):
        n: int

    def call_model(state: State) -> State:
        return {"n": model()["n"]}

    def call_tool(state: State) -> State:
        count(state["n"])
        return state

    builder = StateGraph(State)
    builder.add_node("model", call_model)
    builder.add_node("count", call_tool)
    builder.add_edge(START, "model")
    builder.add_edge("model", "count")
    builder.add_conditional_edges("count", lambda s: END if s["n"] >= CALLS else "model")
    graph = steered(builder.compile(), steer)
    config = {"recursion_limit": 3 * CALLS}
    await asyncio.to_thread(graph.invoke, {"n": 0}, config)


async def pydantic_ai(steer: Counted) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.toolsets import FunctionToolset
    from conclave_steer.pydantic_ai import SteerToolset

    async def answer(messages, info) -> ModelResponse:
        said = await asyncio.to_thread(model)
        return ModelResponse(parts=[ToolCallPart(tool_name="count", args={"n": said["n"]})])

    tools = SteerToolset(FunctionToolset([count]), steer)
    agent = Agent(FunctionModel(answer), toolsets=[tools], name="Counter")
    from pydantic_ai.usage import UsageLimits
    await agent.run("count", usage_limits=UsageLimits(request_limit=CALLS))


async def autogen(steer: Counted) -> None:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.conditions import MaxMessageTermination
    from autogen_agentchat.teams import RoundRobinGroupChat
    from autogen_core import FunctionCall, SingleThreadedAgentRuntime
    from autogen_core.models import CreateResult, ModelFamily, ModelInfo, RequestUsage
    from autogen_ext.models.replay import ReplayChatCompletionClient
    from conclave_steer.autogen import SteerIntervention, run

    info = ModelInfo(vision=False, function_calling=True, json_output=False,
                     family=ModelFamily.UNKNOWN, structured_output=False)

    class Loopback(ReplayChatCompletionClient):
        async def create(self, messages, **kwargs) -> CreateResult:
            said = await asyncio.to_thread(model)
            call = FunctionCall(id=f"call_{said['n']}", name="count",
                                arguments=json.dumps({"n": said["n"]}))
            return CreateResult(finish_reason="function_calls", content=[call], cached=False,
                                usage=RequestUsage(prompt_tokens=1, completion_tokens=1))

    intervention = SteerIntervention(steer)
    handlers = intervention.handlers()

    class Logged(type(handlers)):
        """The handlers, each message the runtime carries while the
        handler sleeps under its lease logged as a gate passed."""

        def __iter__(self):
            if intervention.asleep is not None:
                steer.passed.append((time.monotonic(), "message"))
            return super().__iter__()

    runtime = SingleThreadedAgentRuntime(
        intervention_handlers=Logged(intervention, ()))
    counter = AssistantAgent("counter", model_client=Loopback([], model_info=info),
                             tools=[count])
    team = RoundRobinGroupChat([counter], runtime=runtime,
                               termination_condition=MaxMessageTermination(CALLS))
    runtime.start()
    try:
        await run(team, "count", intervention)
    finally:
        await runtime.stop()


async def main() -> None:
    steer = Counted(url)
    trace = steer.trace_id()
    said: list = []
    threading.Thread(target=person, args=(steer, trace, said), daemon=True).start()
    stopped = None
    try:
        await globals()[framework](steer)
    except Stopped as stop:
        stopped = stop.reason
    print(json.dumps({"pauses": said, "stopped": stopped}), flush=True)


asyncio.run(main())
