"""AutoGen, steered from `conclave watch`.

    steer = Steer()
    stop = ExternalTermination()
    runtime = SingleThreadedAgentRuntime(
        intervention_handlers=SteerIntervention(steer, stop).handlers())
    team = RoundRobinGroupChat(agents, termination_condition=done | stop, runtime=runtime)

A gate at every message the runtime carries (`on_send` and
`on_publish`: the message's type, the agent it goes to or comes from),
or, where AutoGen's charge for any intervention handler matters, at
every model call of an agent (`AssistantAgent("billing", model_client=
SteerModel(steer, client, agent="billing"))`); a tool a person approves (`guarded(steer, tool)` around an AgentChat
tool: a rejection is the tool's result, with the reason); a flag read
anywhere with `steer.flag(name)`, and tools offered by a flag
(`AssistantAgent(workbench=flagged(steer, tools, {"escalate": "legal_analyst"}))`:
a tool whose flag reads off is left out of the agent's next model call);
a person's answer for
`UserProxyAgent(input_func=person_input(steer))`, or a `PersonProxy`
(a user proxy whose question to the person is the chat's last message).
A stop, with the team run by `run(team, task, intervention)`, drops every
message from then on (no agent speaks, no model call starts) and raises
`Stopped` out of `run` (so does a stop at a `SteerModel`'s gate, with
`run(team, task, *models)`); else it sets the `ExternalTermination`: the team
ends at its next termination check, with its stop reason.
"""

from __future__ import annotations

import asyncio
import re
import warnings
from typing import Any, AsyncGenerator, Optional, Sequence

from autogen_agentchat.agents import UserProxyAgent
from autogen_core import CancellationToken, DefaultInterventionHandler, DropMessage, FunctionCall
from autogen_core.models import ChatCompletionClient
from autogen_core.tools import (
    BaseTool,
    FunctionTool,
    StaticWorkbench,
    TextResultContent,
    ToolResult,
)


from .client import Steer, Stopped


# The runtime warns whenever a handler's `on_response` returns None, which
# it must for a response that is None (an agent's handler that answers
# nothing): any handler at all warns on every such run. That one warning
# is silenced; a handler's own mistakes are not.
warnings.filterwarnings("ignore", message="Intervention handler on_response returned None",
                        category=RuntimeWarning)

_TEAM_ID = re.compile(r"_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


# Each agent type's name without the team's id, cut once: a gate per
# message must cost the run next to nothing, and a team has few agents.
_AGENTS: dict = {}


def _agent(agent_type: Optional[str]) -> Optional[str]:
    """An agent's type as the person reads it: without the team's id."""
    if not agent_type:
        return agent_type
    name = _AGENTS.get(agent_type)
    if name is None:
        name = _TEAM_ID.sub("", agent_type)
        if len(_AGENTS) < 1024:
            _AGENTS[agent_type] = name
    return name


class SteerIntervention(DefaultInterventionHandler):
    """A gate per message. A stop drops every later message when the team
    runs under `run` (which then raises `Stopped`), else ends the team
    through `termination`.

    Give the runtime `intervention_handlers=handler.handlers()`: while the
    run's lease holds, the handler then leaves the runtime's list, which
    calls it for no message until a pause, a stop or a breakpoint ends the
    lease (AutoGen charges every message for any handler in it). In a
    plain list it is called for every message."""

    def __init__(self, steer: Steer, termination: Any = None) -> None:
        self.steer = steer
        self.termination = termination
        self.stopped: Optional[str] = None
        self.cancellation: Optional[CancellationToken] = None
        # Asleep: the run whose lease it sleeps under (see `handlers`).
        self.asleep: Optional[str] = None
        self.slept = self.folded = 0
        self._listed = False

    def handlers(self, *others: Any) -> list:
        """The runtime's intervention handlers: this one, then `others`."""
        self._listed = True
        return _Handlers(self, others)

    async def _gate(self, message: Any, agent: Optional[str]) -> Any:
        if self.stopped is not None:
            return DropMessage if self.cancellation is not None else message
        kind = "message"
        name = type(message).__name__
        arguments = None
        if isinstance(message, FunctionCall):
            kind, name, arguments = "tool_call", message.name, message.arguments
        agent = _agent(agent)
        # Under a lease the message passes here, with no coroutine of the
        # hook's to run: the runtime already pays for one per handler.
        if self.steer._pass_leased(name, agent):
            if self._listed:
                self.steer._doze(self)
            return message
        try:
            await self.steer.agate(kind, name, agent=agent, arguments=arguments)
        except Stopped as stop:
            self.stopped = stop.reason
            if self.cancellation is not None:
                self.cancellation.cancel()
                return DropMessage
            if self.termination is None:
                raise
            self.termination.set()
        return message

    async def on_send(self, message: Any, *, message_context: Any, recipient: Any) -> Any:
        return await self._gate(message, getattr(recipient, "type", None))

    async def on_response(self, message: Any, *, sender: Any, recipient: Any) -> Any:
        return message

    async def on_publish(self, message: Any, *, message_context: Any) -> Any:
        sender = getattr(message_context, "sender", None)
        return await self._gate(message, getattr(sender, "type", None))


# An iterator with nothing left: iterating it again costs no call.
_NONE = iter(())


class _Handlers(list):
    """A runtime's intervention handlers, the steering one left out while
    it sleeps under its run's lease. The runtime walks the list for every
    message it carries; asleep, the walk is a look at the current run,
    counted as a gate passed (a message of another run is its gate)."""

    def __init__(self, steering: SteerIntervention, others: Sequence[Any]) -> None:
        super().__init__((steering, *others))
        self._steering = steering
        self._others = tuple(others)

    def __iter__(self):
        steering = self._steering
        asleep = steering.asleep
        if asleep is None or not steering.steer._still(asleep):
            return list.__iter__(self)
        steering.slept += 1
        return iter(self._others) if self._others else _NONE


class SteerModel(ChatCompletionClient):
    """`client`, an agent's model client, with a `model_call` gate before
    each of its calls, named by `agent`: a pause holds the agent before its
    next model call. AutoGen's runtime pays for any intervention handler
    on every message it carries; a gate here costs a run nobody steers one
    clock read per model call. A stop raises `Stopped` from the gate and
    from every later call (no model call starts after it) and ends the
    team under `run`, which raises `Stopped`."""

    def __init__(self, steer: Steer, client: ChatCompletionClient, agent: str = "model") -> None:
        self.steer = steer
        self.client = client
        self.agent = agent
        self.stopped: Optional[str] = None
        self.cancellation: Optional[CancellationToken] = None

    async def _gate(self) -> None:
        if self.stopped is not None:
            raise Stopped(self.stopped)
        # Under a lease the call passes here, with no coroutine of the hook's.
        if self.steer._pass_leased(self.agent, self.agent):
            return
        try:
            await self.steer.agate("model_call", self.agent, agent=self.agent)
        except Stopped as stop:
            self.stopped = stop.reason
            if self.cancellation is not None:
                self.cancellation.cancel()
            raise

    async def create(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        await self._gate()
        return await self.client.create(messages, **kwargs)

    async def create_stream(self, messages: Sequence[Any], **kwargs: Any) -> AsyncGenerator:
        await self._gate()
        async for item in self.client.create_stream(messages, **kwargs):
            yield item

    async def close(self) -> None:
        await self.client.close()

    def actual_usage(self) -> Any:
        return self.client.actual_usage()

    def total_usage(self) -> Any:
        return self.client.total_usage()

    def count_tokens(self, messages: Sequence[Any], **kwargs: Any) -> int:
        return self.client.count_tokens(messages, **kwargs)

    def remaining_tokens(self, messages: Sequence[Any], **kwargs: Any) -> int:
        return self.client.remaining_tokens(messages, **kwargs)

    @property
    def capabilities(self) -> Any:
        return self.client.capabilities

    @property
    def model_info(self) -> Any:
        return self.client.model_info


class _Guarded(BaseTool):
    def __init__(self, steer: Steer, tool: BaseTool) -> None:
        super().__init__(tool.args_type(), tool.return_type(), tool.name, tool.description)
        self._steer = steer
        self._tool = tool

    async def run(self, args: Any, cancellation_token: CancellationToken) -> Any:
        arguments = args.model_dump() if hasattr(args, "model_dump") else args
        verdict = await self._steer.adecide(self.name, arguments)
        if not verdict.approved:
            return verdict.told(self.name)
        if verdict.edited and isinstance(verdict.arguments, dict):
            # A person edited the arguments: the tool receives theirs.
            args = self._tool.args_type().model_validate(verdict.arguments)
        return await self._tool.run(args, cancellation_token)

    def return_value_as_string(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        return self._tool.return_value_as_string(value)


def guarded(steer: Steer, tool: Any) -> BaseTool:
    """`tool` (a BaseTool, or a function made one), each call approved or
    rejected by a person first."""
    if not isinstance(tool, BaseTool):
        tool = FunctionTool(tool, description=tool.__doc__ or tool.__name__)
    return _Guarded(steer, tool)


class FlaggedWorkbench(StaticWorkbench):
    """An agent's tools, each offered while its flag (if it has one) is on.
    The flags are read at every model call (the workbench lists its tools
    for each), so a flag turned off removes the tool from the next turn; a
    call of a tool switched off meanwhile is refused, as an error result."""

    def __init__(self, steer: Steer, tools: list, flags: dict[str, str]) -> None:
        made = [t if isinstance(t, BaseTool) else FunctionTool(t, description=t.__doc__ or t.__name__)
                for t in tools]
        super().__init__(made)
        self._steer = steer
        self._flags = dict(flags)

    async def _off(self) -> set[str]:
        off = set()
        for tool, flag in self._flags.items():
            if not await self._steer.aflag(flag):
                off.add(tool)
        return off

    async def list_tools(self) -> Any:
        off = await self._off()
        return [schema for schema in await super().list_tools() if schema["name"] not in off]

    async def call_tool(self, name: str, arguments: Any = None,
                        cancellation_token: Optional[CancellationToken] = None,
                        call_id: Optional[str] = None) -> ToolResult:
        if name in await self._off():
            said = f"The tool {name} is switched off (the flag {self._flags[name]} is off)."
            return ToolResult(name=name, result=[TextResultContent(content=said)], is_error=True)
        return await super().call_tool(name, arguments, cancellation_token, call_id)


def flagged(steer: Steer, tools: list, flags: dict[str, str]) -> FlaggedWorkbench:
    """A workbench of `tools`, `flags` naming the flag each flagged tool
    needs on (declare the flags on `steer` first)."""
    return FlaggedWorkbench(steer, tools, flags)


def person_input(steer: Steer, agent: Optional[str] = None):
    """An `input_func` for `UserProxyAgent`: a person's answer through the
    watch ("" when nobody answers), asked as `agent`."""

    async def input_func(prompt: str, cancellation_token: Optional[CancellationToken] = None) -> str:
        answer = await steer.aask(prompt or "Your answer?", agent=agent)
        return answer if answer is not None else ""

    return input_func


class PersonProxy(UserProxyAgent):
    """A user proxy whose person answers through the watch: asked as this
    agent, the question the chat's last message ("" when nobody answers)."""

    def __init__(self, name: str, steer: Steer, **kwargs: Any) -> None:
        self._steer = steer
        self._last = ""
        super().__init__(name, input_func=self._ask, **kwargs)

    async def on_messages_stream(self, messages: Sequence[Any],
                                 cancellation_token: CancellationToken) -> AsyncGenerator:
        for message in reversed(messages):
            text = getattr(message, "content", None)
            if isinstance(text, str) and text.strip():
                self._last = f"{message.source}: {text}"
                break
        async for item in super().on_messages_stream(messages, cancellation_token):
            yield item

    async def _ask(self, prompt: str, cancellation_token: Optional[CancellationToken] = None) -> str:
        answer = await self._steer.aask(self._last or prompt, agent=self.name)
        return answer if answer is not None else ""


async def run(team: Any, task: Any, *steering: Any, **kwargs: Any) -> Any:
    """`team.run(task=task)`, stopped from the watch as a run is: from the
    stop no message passes (no model call starts) and `Stopped` comes out.
    `steering`: the team's `SteerIntervention`, or its agents' `SteerModel`s."""
    token = kwargs.pop("cancellation_token", None) or CancellationToken()
    for hook in steering:
        hook.cancellation = token

    def stopped() -> Optional[str]:
        return next((hook.stopped for hook in steering if hook.stopped is not None), None)

    try:
        return await team.run(task=task, cancellation_token=token, **kwargs)
    except (asyncio.CancelledError, RuntimeError):
        # A stop at a model call also comes as the team's error.
        reason = stopped()
        if reason is None:
            raise
        raise Stopped(reason) from None


__all__ = ["FlaggedWorkbench", "PersonProxy", "SteerIntervention", "SteerModel", "flagged",
           "guarded", "person_input", "run"]
