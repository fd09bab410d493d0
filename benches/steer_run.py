"""What the steering hook costs a LangGraph run nobody steers: one graph
whose `agent` node calls a stub chat model (LangChain's fake, answering
at once) and loops back until it has run GATES times (a gate before every node visit), run without the hook,
`steered` (every node gated, as `invoke` runs a graph), with a callback
handler that does nothing (what LangChain's dispatch costs any handler,
the way a callback gate would) and with `gate_node` around the node's
function, interleaved ROUNDS times in this one process (each round in the reverse
order of the one before, so no way always follows another). Prints one
JSON line: the seconds of each run, each way, on the wall clock and of
the process's CPU (every thread's, the hook's lease poll too), and the
Python function calls of one more run each way (benches/steer_calls.py).
Usage: steer_run.py URL GATES ROUNDS"""

import json
import sys
import time
from typing import TypedDict

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph

from conclave_steer import Steer
from conclave_steer.langgraph import gate_node, steered
from steer_calls import counted

url, gates, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


class State(TypedDict):
    turns: int
    said: str


model = FakeListChatModel(responses=["Noted; on to the next step."])


def agent(state: State) -> State:
    answer = model.invoke([HumanMessage(f"turn {state['turns']}: {state['said'][-40:]}")])
    return {"turns": state["turns"] + 1, "said": str(answer.content)}


def again(state: State) -> str:
    return "agent" if state["turns"] < gates else END


def build(node):
    builder = StateGraph(State)
    builder.add_node("agent", node)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", again)
    return builder.compile()


graph = build(agent)
config = {"recursion_limit": gates + 10}


def timed(callbacks, graph=graph):
    began, cpu = time.perf_counter(), time.process_time()
    out = graph.invoke({"turns": 0, "said": ""}, config=dict(config, callbacks=callbacks))
    took = (time.perf_counter() - began, time.process_time() - cpu)
    assert out["turns"] == gates, out
    return took


class Idle(BaseCallbackHandler):
    """A handler that reads a chain's starts, as a gate would, and does nothing."""

    ignore_llm = ignore_chat_model = ignore_retriever = ignore_agent = True
    ignore_retry = ignore_custom_event = True


def gated():
    # A run of its own each time: a new hook, a new trace.
    return build(gate_node(Steer(url), agent, name="agent"))


ways = {
    "without": lambda: timed([]),
    # A run of its own each time: a new hook, a new trace.
    "with": lambda: timed([], steered(graph, Steer(url))),
    "idle": lambda: timed([Idle()]),
    "nodes": lambda: timed([], gated()),
}
times = {way: [] for way in ways}
for run in ways.values():  # warm up each way once
    run()
for k in range(rounds):
    for way in list(ways)[:: 1 if k % 2 == 0 else -1]:
        times[way].append(ways[way]())
said = {way: [wall for wall, _ in runs] for way, runs in times.items()}
said.update({"cpu_" + way: [cpu for _, cpu in runs] for way, runs in times.items()})
said.update({"calls_" + way: counted(run) for way, run in ways.items()})
print(json.dumps(said), flush=True)
