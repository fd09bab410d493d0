"""What the steering hook costs a LangGraph run nobody steers: one graph
whose `agent` node calls a stub chat model (LangChain's fake, answering
at once) and loops back until it has run GATES times (a gate before every node visit), run without the hook,
with `SteerCallback` and with `gate_node` around the node's function,
interleaved ROUNDS times in this one process. Prints one JSON line: the
seconds of each run, each way. Usage: steer_run.py URL GATES ROUNDS"""

import json
import sys
import time
from typing import TypedDict

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph

from conclave_steer import Steer
from conclave_steer.langgraph import SteerCallback, gate_node

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
    began = time.perf_counter()
    out = graph.invoke({"turns": 0, "said": ""}, config=dict(config, callbacks=callbacks))
    took = time.perf_counter() - began
    assert out["turns"] == gates, out
    return took


def gated():
    # A run of its own each time: a new hook, a new trace.
    return build(gate_node(Steer(url), agent, name="agent"))


without, hooked, nodes = [], [], []
timed([])  # warm up each way once
timed([SteerCallback(Steer(url))])
timed([], gated())
for _ in range(rounds):
    without.append(timed([]))
    hooked.append(timed([SteerCallback(Steer(url))]))
    nodes.append(timed([], gated()))
print(json.dumps({"without": without, "with": hooked, "nodes": nodes}), flush=True)
