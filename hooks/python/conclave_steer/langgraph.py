"""LangGraph, steered from `conclave watch`.

    steer = Steer()
    result = invoke(graph, state, config, steer)      # or steered(graph, steer).invoke(...)

A gate before every node (its name; the node's input as arguments),
set in the node's own function: `steered(graph, steer)` is the compiled
graph with each node's function gated (`gate_node` gates one), and
`invoke` runs the graph steered. A run nobody steers pays a clock read
per node, where any LangChain callback handler at all would add some
10% to a run of cheap nodes on a stub model. A
flag read in a conditional edge (`steer.flag("legal_analyst")`); a tool
a person approves (`guarded(steer, fn)` around the function before
`@tool`: a rejection is the tool's answer, with the reason); `interrupt()`
answered by a person (`invoke(graph, state, config, steer)` resumes the
graph with `Command(resume=answer)` until it finishes; unanswered, the
run stays interrupted and its result is returned). A stop raises
`Stopped` out of the node, and out of `invoke`.
"""

from __future__ import annotations

import copy
import functools
import inspect
from typing import Any

from .client import Steer

# A graph `steered` made, so that steering it again changes nothing.
_STEERED = "_conclave_steered"


def steered(graph: Any, steer: Steer) -> Any:
    """A copy of `graph` (a compiled graph) with a `node` gate before each
    of its nodes, named as the graph names them, the node's input as the
    arguments; a subgraph added as a node has its own nodes gated too."""
    if getattr(graph, _STEERED, None) is steer:
        return graph
    from langgraph._internal._runnable import RunnableCallable
    from langgraph.pregel import Pregel

    nodes = {}
    for name, node in graph.nodes.items():
        bound = node.bound
        if name.startswith("__"):
            nodes[name] = node
        elif isinstance(bound, RunnableCallable):
            gated = copy.copy(bound)
            if bound.func is not None:
                gated.func = gate_node(steer, bound.func, name)
            if bound.afunc is not None:
                gated.afunc = gate_node(steer, bound.afunc, name)
            nodes[name] = node.copy({"bound": gated})
        elif isinstance(bound, Pregel):
            inner = steered(bound, steer)
            nodes[name] = node.copy({"bound": inner, "subgraphs": [inner]})
        else:
            nodes[name] = node
    graph = graph.copy({"nodes": nodes})
    setattr(graph, _STEERED, steer)
    return graph


def gate_node(steer: Steer, fn, name: Any = None):
    """`fn`, a node's function, with a gate before each of its runs: the
    node's name (`name`, else the function's) and its input as arguments.
    Sync or async, its signature kept (LangGraph reads it for `config`)."""
    node = str(name or getattr(fn, "__name__", "node"))

    def arguments(args: Any) -> Any:
        return lambda: _brief(args[0]) if args else None

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            await steer.agate("node", node, agent=node, arguments=arguments(args))
            return await fn(*args, **kwargs)

        return run_async

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        steer.gate("node", node, agent=node, arguments=arguments(args))
        return fn(*args, **kwargs)

    return run


def guarded(steer: Steer, fn):
    """`fn`, each call approved or rejected by a person first."""
    name = fn.__name__

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            args, kwargs, rejected = _decided(await steer.adecide(
                name, _arguments(fn, args, kwargs)), name, args, kwargs)
            if rejected is not None:
                return rejected
            return await fn(*args, **kwargs)

        return run_async

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        args, kwargs, rejected = _decided(steer.decide(name, _arguments(fn, args, kwargs)),
                                          name, args, kwargs)
        if rejected is not None:
            return rejected
        return fn(*args, **kwargs)

    return run


def invoke(graph: Any, state: Any, config: Any, steer: Steer) -> Any:
    """`graph.invoke` of the graph `steered`, every `interrupt()` answered
    by a person through the watch (a checkpointer and a thread id in
    `config` are needed, as for any interrupt)."""
    from langgraph.types import Command

    graph = steered(graph, steer)
    result = graph.invoke(state, config)
    while isinstance(result, dict) and result.get("__interrupt__"):
        asked = result["__interrupt__"][0].value
        if isinstance(asked, dict):
            question = str(asked.get("question", asked))
            options = asked.get("options") or []
        else:
            question, options = str(asked), []
        answer = steer.ask(question, options)
        if answer is None:
            # Nobody answered: the run stays interrupted, as without a hook.
            return result
        result = graph.invoke(Command(resume=answer), config)
    return result


def _decided(verdict: Any, name: str, args: Any, kwargs: Any) -> tuple:
    """The call's arguments (a person's edit as keywords) and, when
    rejected, the tool's result saying so and who decided."""
    if not verdict.approved:
        return args, kwargs, verdict.told(name)
    edited = verdict.arguments
    if verdict.edited and isinstance(edited, dict):
        return (), dict(edited), None
    return args, kwargs, None


def _arguments(fn: Any, args: Any, kwargs: Any) -> Any:
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
        return {k: _brief(v) for k, v in bound.arguments.items()}
    except TypeError:
        return {"args": [_brief(a) for a in args], **{k: _brief(v) for k, v in kwargs.items()}}


def _plain(value: Any) -> Any:
    """A value JSON cannot hold as itself: a message (any pydantic model)
    as its fields, else its repr."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(exclude_none=True)
        except Exception:  # a model that cannot dump itself: its repr
            pass
    return repr(value)


def _brief(value: Any) -> Any:
    """A value as JSON can hold it (messages as their fields), cut to a
    few kB."""
    import json

    try:
        text = json.dumps(value, default=_plain)
    except (TypeError, ValueError):
        text = json.dumps(repr(value))
    if len(text) > 4000:
        return text[:4000] + "…"
    return json.loads(text)


def __getattr__(name: str) -> Any:
    # The callback handler earlier versions gated nodes from: say what
    # replaces it rather than a bare ImportError.
    if name == "SteerCallback":
        raise ImportError(
            "conclave_steer.langgraph.SteerCallback is gone: LangChain charges any callback "
            "handler some 10% of a run of cheap nodes. Run the graph with "
            "invoke(graph, state, config, steer), or steered(graph, steer).invoke(...): "
            "every node is gated in its own function (docs/steer.md, LangGraph)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
