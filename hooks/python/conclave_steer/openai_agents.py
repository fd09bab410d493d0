"""The OpenAI Agents SDK's hooks, steered from `conclave watch`.

    steer = Steer()
    result = await Runner.run(agent, text, hooks=SteerHooks(steer))

A gate at every agent's turn, model call, tool call (with its arguments)
and handoff; a flag as an `is_enabled` callable (`tool(..., is_enabled=
flag(steer, "legal_analyst"))`, read at each turn); a tool whose calls a
person approves (`guarded(steer, tool)`: a rejection reaches the model as
the tool's answer, with the person's reason); a tool that asks a person
(`person_tool(steer)`). A stop raises `StoppedRun` (a `Stopped` that is
also one of the SDK's own exceptions, which the SDK lets through where it
wraps any other error of a tool in `UserError`) out of `Runner.run`.

The SDK's own `needs_approval` interrupts the run and needs the caller to
resume it from a `RunState`; `guarded` decides in place instead, so the
run goes on without code around `Runner.run`.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from agents import FunctionTool, RunHooks, function_tool
from agents.exceptions import AgentsException

from .client import Steer, Stopped


class StoppedRun(Stopped, AgentsException):
    """A stop from the watch, as the SDK lets it out of `Runner.run`."""


async def _steered(call: Any) -> Any:
    """Await a hook call, a stop raised as `StoppedRun`."""
    try:
        return await call
    except StoppedRun:
        raise
    except Stopped as stop:
        raise StoppedRun(stop.reason) from None


class SteerHooks(RunHooks):
    """Gates at the Agents SDK's hook points."""

    def __init__(self, steer: Steer) -> None:
        self.steer = steer

    async def on_agent_start(self, context: Any, agent: Any) -> None:
        await _steered(self.steer.agate("agent_turn", agent.name, agent=agent.name))

    async def on_llm_start(self, context: Any, agent: Any, system_prompt: Any,
                           input_items: Any) -> None:
        await _steered(self.steer.agate("model_call", agent.name, agent=agent.name))

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        arguments = getattr(context, "tool_arguments", None)
        await _steered(self.steer.agate("tool_call", tool.name, agent=agent.name,
                                        arguments=arguments))

    async def on_handoff(self, context: Any, from_agent: Any, to_agent: Any) -> None:
        await _steered(self.steer.agate("handoff", to_agent.name, agent=from_agent.name))


def flag(steer: Steer, name: str, default: bool = False, description: str = ""):
    """An `is_enabled` callable: the flag's value as the watch has it."""
    steer.flag_declare(name, default, description)

    async def is_enabled(context: Any, agent: Any) -> bool:
        return await _steered(steer.aflag(name))

    return is_enabled


def guarded(steer: Steer, tool: FunctionTool) -> FunctionTool:
    """`tool`, each call of it approved or rejected by a person first."""
    invoke = tool.on_invoke_tool

    async def on_invoke_tool(context: Any, arguments: str) -> Any:
        agent = getattr(getattr(context, "agent", None), "name", None)
        verdict = await _steered(steer.adecide(tool.name, arguments, agent=agent))
        if not verdict.approved:
            return verdict.told(tool.name)
        if verdict.edited:
            # A person edited the arguments: the tool receives theirs.
            arguments = json.dumps(verdict.arguments)
        return await invoke(context, arguments)

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool)


def person_tool(steer: Steer, name: str = "ask_person") -> FunctionTool:
    """A tool the model calls to ask a person; their answer is its result."""

    async def ask_person(question: str) -> str:
        """Ask a person watching the run, and wait for their answer."""
        answer = await _steered(steer.aask(question))
        return answer if answer is not None else "Nobody answered."

    return function_tool(ask_person, name_override=name)
