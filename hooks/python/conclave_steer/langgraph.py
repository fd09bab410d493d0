"""LangGraph, steered from `conclave watch`.

    steer = Steer()
    graph.invoke(state, config={"callbacks": [SteerCallback(steer)]})

A gate before every node (its name; the node's input as arguments),
from a callback handler; or, where LangChain's dispatch of callbacks
costs too much (any handler at all adds some 10% to a run of cheap
nodes on a stub model), from the node's own function: `builder.add_node("agent",
gate_node(steer, agent))` costs a run nobody steers nothing measurable. A
flag read in a conditional edge (`steer.flag("legal_analyst")`); a tool
a person approves (`guarded(steer, fn)` around the function before
`@tool`: a rejection is the tool's answer, with the reason); `interrupt()`
answered by a person (`invoke(graph, state, config, steer)` resumes the
graph with `Command(resume=answer)` until it finishes; unanswered, the
run stays interrupted and its result is returned). A stop raises
`Stopped` out of `invoke`.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from .client import Steer


class SteerCallback(BaseCallbackHandler):
    """A gate before every LangGraph node."""

    raise_error = True
    run_inline = True
    # Only the chains' starts are read: every other event passes it by.
    ignore_llm = True
    ignore_chat_model = True
    ignore_retriever = True
    ignore_agent = True
    ignore_retry = True
    ignore_custom_event = True

    def __init__(self, steer: Steer) -> None:
        self.steer = steer

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID,
                       parent_run_id: Any = None, tags: Any = None,
                       metadata: Any = None, **kwargs: Any) -> None:
        node = (metadata or {}).get("langgraph_node")
        # A node's own run, not the runnables inside it.
        if node is None or kwargs.get("name") != node:
            return
        # The node's input is read only when the gate asks (not under a lease).
        self.steer.gate("node", str(node), agent=str(node), arguments=lambda: _brief(inputs))


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
    """`graph.invoke`, every `interrupt()` answered by a person through the
    watch (a checkpointer and a thread id in `config` are needed, as for
    any interrupt)."""
    from langgraph.types import Command

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
