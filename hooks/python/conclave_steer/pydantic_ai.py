"""PydanticAI, steered from `conclave watch`.

    steer = Steer()
    tools = SteerToolset(FunctionToolset([lookup_invoice, legal_check, ask_person(steer)]), steer,
                         approve={"lookup_invoice"}, flags={"legal_check": "legal_analyst"})
    agent = Agent(model, toolsets=[tools])

A wrapper toolset: a `tool_call` gate before every call (its arguments
shown), an approval of the calls of the tools in `approve` (a rejection is
the tool's result, with the person's reason; delegation to another agent
is a tool call, so it is held and approved the same way), and a tool
offered only while its flag is on (`flags`: tool name to flag name, read
at each step, so a flag turned off removes the tool from the next model
request). `ask_person(steer)` is a tool whose result is a person's
answer. A stop raises `Stopped` out of `agent.run`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.toolsets import WrapperToolset

from .client import Steer


@dataclass
class SteerToolset(WrapperToolset):
    """Gates, approvals and flags around a toolset's tools."""

    steer: Steer = field(default=None)  # type: ignore[assignment]
    approve: frozenset = field(default_factory=frozenset)
    flags: dict = field(default_factory=dict)

    def __init__(self, wrapped: Any, steer: Steer, *, approve: Any = (),
                 flags: Any = None, defaults: Any = None) -> None:
        super().__init__(wrapped)
        self.steer = steer
        self.approve = frozenset(approve)
        self.flags = dict(flags or {})
        for flag in self.flags.values():
            steer.flag_declare(flag, (defaults or {}).get(flag, True), f"offers {flag}'s tool")

    async def get_tools(self, ctx: Any) -> dict:
        tools = await super().get_tools(ctx)
        for tool, flag in self.flags.items():
            if tool in tools and not await self.steer.aflag(flag):
                del tools[tool]
        return tools

    async def call_tool(self, name: str, tool_args: dict, ctx: Any, tool: Any) -> Any:
        agent = getattr(getattr(ctx, "agent", None), "name", None)
        await self.steer.agate("tool_call", name, agent=agent, arguments=tool_args)
        if name in self.approve:
            verdict = await self.steer.adecide(name, tool_args, agent=agent)
            if not verdict.approved:
                return verdict.told(name)
            if verdict.edited and isinstance(verdict.arguments, dict):
                # A person edited the arguments: the tool receives theirs.
                tool_args = verdict.arguments
        return await super().call_tool(name, tool_args, ctx, tool)


def ask_person(steer: Steer):
    """A tool function the model calls to ask a person."""

    async def ask_person(question: str) -> str:
        """Ask a person watching the run, and wait for their answer."""
        answer = await steer.aask(question)
        return answer if answer is not None else "Nobody answered."

    return ask_person
