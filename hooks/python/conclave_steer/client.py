"""The steering protocol's client, standard library only.

A `Steer` names its run by, first, the name it was given (`Steer(run=…)`),
then `$CONCLAVE_RUN_ID` (set when Conclave launched the program, so that
every gate joins the launched run whatever span is current), then the
trace id of the current OpenTelemetry context (when opentelemetry is
importable and a span is current), else a trace id of its own. It declares flags, waits at gates, asks approval
and questions, and raises `Stopped` when a person stopped the run.

A watch that cannot be reached never holds a run: the call goes on as if
nobody steered (gates go, flags keep their last known values, approvals
pass, questions go unanswered), with one warning on stderr, and no call
is tried again for `retry_after` seconds. A strict hook (`strict=True`)
rejects what needs approval instead.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import sys
import time
import http.client
import threading
import urllib.parse
import uuid
from typing import Any, Optional, Sequence

from .answers import Stopped, Verdict, _jsonable

DEFAULT_URL = "http://127.0.0.1:4318"


try:
    from opentelemetry import trace as _otel_trace
except ImportError:
    _otel_trace = None


def _current_trace() -> Optional[str]:
    if _otel_trace is None:
        return None
    context = _otel_trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return format(context.trace_id, "032x")


class Steer:
    """One hook's connection to `conclave watch`'s steering.

    url: the watch's HTTP address (default: $CONCLAVE_STEER_URL, else the
    OTLP/HTTP port on loopback). token: the bearer token when the watch
    was started with --token-env (default: $CONCLAVE_STEER_TOKEN).
    strict: reject what needs approval when the watch cannot be reached.
    timeout: the longest one request may take beyond its long poll.
    heartbeat: how long the watch may hold one request (it holds at most
    its own heartbeat). retry_after: how long an unreachable watch is left
    alone. run: the run's id (32 hex digits), for a program whose
    framework makes no span current and that Conclave did not launch.
    lease_poll: the longest a lease's long poll is held, so how often a
    run's count of gates is told.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        token: Optional[str] = None,
        strict: bool = False,
        timeout: float = 5.0,
        heartbeat: float = 10.0,
        retry_after: float = 60.0,
        trace_id: Optional[str] = None,
        run: Optional[str] = None,
        lease_poll: float = 1.0,
    ) -> None:
        self.url = (url or os.environ.get("CONCLAVE_STEER_URL") or DEFAULT_URL).rstrip("/")
        self.token = token if token is not None else os.environ.get("CONCLAVE_STEER_TOKEN")
        self.strict = strict
        self.timeout = timeout
        self.heartbeat = heartbeat
        self.retry_after = retry_after
        self.session = uuid.uuid4().hex
        self._own_trace = trace_id or uuid.uuid4().hex
        # The run named outright: given, or the launch's (32 hex digits).
        self._run = run or os.environ.get("CONCLAVE_RUN_ID") or None
        self._flags: dict[str, tuple[bool, str]] = {}
        self._values: dict[str, dict[str, bool]] = {}
        self._declared: set[str] = set()
        self._down_until = 0.0
        # Per run: until when gates may pass without asking (a lease the
        # watch gives a running run), how many did since the last call, and
        # how many in all (a run whose count stands still is let go).
        self._lease: dict[str, float] = {}
        self._passed: dict[str, int] = {}
        self._count: dict[str, int] = {}
        self._counting = threading.Lock()
        # Runs under a lease, each kept fresh by a thread of the hook's own
        # that long polls the watch from the epoch it saw: a pause, a flag
        # or a stop ends the poll at once, so no gate passes on stale news.
        self.lease_poll = lease_poll
        self._watching: set[str] = set()
        # Breakpoints: gates of these names (or agents) always ask.
        self._breaks: frozenset = frozenset()
        # Per run: the adapters asleep under its lease (their framework
        # stops calling them until it ends; see `_doze`).
        self._asleep: dict[str, set] = {}
        # Gates passed in a run's last lease are told at the process's end.
        atexit.register(self.flush)
        self._warned: set[str] = set()
        self._local = threading.local()
        self._path = urllib.parse.urlsplit(self.url).path.rstrip("/")

    # -- naming the run --------------------------------------------------

    def trace_id(self) -> str:
        """The run's id: the one named (`run=`, `$CONCLAVE_RUN_ID`), else the
        current OpenTelemetry context's trace id, else the hook's own."""
        return self._run or _current_trace() or self._own_trace

    # -- flags -----------------------------------------------------------

    def flag_declare(self, name: str, default: bool = False, description: str = "") -> None:
        """Declare a flag; the watch learns of it at the run's first call."""
        self._flags[name] = (default, description)

    def flag(self, name: str) -> bool:
        """The flag's value now, as the watch has it (a person's setting,
        a --flag rule, or the default)."""
        trace = self.trace_id()
        if trace in self._declared and self._fresh(trace):
            return self._value(trace, name)
        if trace in self._declared or not self._flags:
            answer = self._call({"op": "declare", "flags": []}, trace, hold=False)
        else:
            answer = self._declare(trace)
        if answer is not None:
            self._told(trace, answer)
        return self._value(trace, name)

    def _value(self, trace: str, name: str) -> bool:
        values = self._values.get(trace, {})
        if name in values:
            return bool(values[name])
        return self._flags.get(name, (False, ""))[0]

    def _declare(self, trace: str) -> Optional[dict]:
        flags = [
            {"name": n, "default": d, "description": text}
            for n, (d, text) in self._flags.items()
        ]
        answer = self._call({"op": "declare", "flags": flags}, trace, hold=False)
        if answer is not None:
            self._declared.add(trace)
        return answer

    # -- gates, approvals, questions --------------------------------------

    def gate(self, kind: str, name: str, agent: Optional[str] = None,
             arguments: Any = None) -> None:
        """Wait here until the watch lets the run go. kind: agent_turn,
        model_call, tool_call, handoff, node or message. While the watch's
        lease lasts (a run nobody holds), the gate passes without asking
        and is counted in the next call (but a breakpoint's gate asks).
        `arguments` may be a function returning them: it is called only
        when the gate asks."""
        if self._pass_leased(name, agent):
            return
        body: dict = {"op": "gate", "kind": kind, "name": name}
        if agent is not None:
            body["agent"] = agent
        if callable(arguments):
            arguments = arguments()
        if arguments is not None:
            body["arguments"] = _jsonable(arguments)
        self._ask(body)

    def approve(self, tool: str, arguments: Any = None,
                agent: Optional[str] = None) -> tuple[bool, Optional[str]]:
        """Ask approval of a tool call: (True, None), or (False, reason)."""
        verdict = self.decide(tool, arguments, agent)
        return verdict.approved, verdict.reason

    def decide(self, tool: str, arguments: Any = None,
               agent: Optional[str] = None) -> Verdict:
        """Ask approval of a tool call: a `Verdict` (approved, maybe with
        arguments a person edited; or rejected, with the reason and who
        decided)."""
        body: dict = {"op": "approval", "tool": tool, "arguments": _jsonable(arguments)}
        if agent is not None:
            body["agent"] = agent
        answer = self._ask(body)
        if answer is None:
            if self.strict:
                reason = "the watch could not be reached and this hook is strict"
                return Verdict(False, reason=reason, by="hook")
            return Verdict(True, arguments)
        if answer.get("status") == "rejected":
            return Verdict(False, reason=answer.get("reason") or "rejected",
                           by=str(answer.get("by") or "person"))
        if "arguments" in answer:
            return Verdict(True, answer["arguments"], edited=True)
        return Verdict(True, arguments)

    def ask(self, question: str, options: Optional[Sequence[str]] = None,
            agent: Optional[str] = None) -> Optional[str]:
        """Ask a person; their answer, or None when nobody answers."""
        body: dict = {"op": "question", "question": question, "options": list(options or [])}
        if agent is not None:
            body["agent"] = agent
        answer = self._ask(body)
        if answer is None or answer.get("status") != "answered":
            return None
        return answer.get("text")

    # asyncio.to_thread copies the caller's context: the trace stays the caller's.
    async def agate(self, kind: str, name: str, agent: Optional[str] = None,
                    arguments: Any = None) -> None:
        # Under a lease the gate passes here, without a thread's hop.
        if self._pass_leased(name, agent):
            return
        await asyncio.to_thread(self.gate, kind, name, agent, arguments)

    async def aapprove(self, *args: Any, **kwargs: Any) -> tuple[bool, Optional[str]]:
        return await asyncio.to_thread(self.approve, *args, **kwargs)

    async def adecide(self, *args: Any, **kwargs: Any) -> Verdict:
        return await asyncio.to_thread(self.decide, *args, **kwargs)

    async def aask(self, *args: Any, **kwargs: Any) -> Optional[str]:
        return await asyncio.to_thread(self.ask, *args, **kwargs)

    async def aflag(self, name: str) -> bool:
        trace = self.trace_id()
        if trace in self._declared and self._fresh(trace):
            return self._value(trace, name)
        return await asyncio.to_thread(self.flag, name)

    def _ask(self, body: dict) -> Optional[dict]:
        trace = self.trace_id()
        if trace not in self._declared and self._flags:
            answer = self._declare(trace)
            if answer is not None:
                self._told(trace, answer)
        answer = self._call(body, trace, hold=True)
        while answer is not None and answer.get("status") == "waiting":
            answer = self._call({"op": "poll", "id": answer["id"]}, trace, hold=True)
        if answer is None:
            return None
        self._told(trace, answer)
        self._leased(trace, answer)
        if answer.get("status") == "stopped":
            raise Stopped(answer.get("reason") or "stopped by a person")
        return answer

    # -- the wire --------------------------------------------------------

    def _call(self, body: dict, trace: str, *, hold: bool,
              wait: Optional[float] = None) -> Optional[dict]:
        """POST one hook request; None when the watch is down or refused.
        hold: it may wait a heartbeat; wait: it may wait this long."""
        if time.monotonic() < self._down_until:
            return None
        body = dict(body, trace_id=trace, session=self.session)
        with self._counting:
            self._fold(trace)
            passed = self._passed.pop(trace, 0)
        if passed:
            body["passed"] = passed
        if hold:
            wait = self.heartbeat
        if wait is not None:
            body["wait_ms"] = int(wait * 1000)
        timeout = self.timeout + (wait or 0.0)
        try:
            status, answer = self._post(json.dumps(body).encode(), timeout)
        except (OSError, http.client.HTTPException) as error:
            self._down_until = time.monotonic() + self.retry_after
            self._warn(
                f"cannot reach the watch at {self.url} ({error}); the run goes on unsteered "
                f"{'(approvals rejected: strict) ' if self.strict else ''}"
                f"and no call is tried for {self.retry_after:g} s",
                key="down",
            )
            return None
        try:
            value = json.loads(answer)
        except ValueError:
            value = {}
        if status != 200:
            said = value.get("error", "") if isinstance(value, dict) else ""
            self._warn(f"refused ({status}): {said}", key=f"refused {status}")
            return None
        return value if isinstance(value, dict) else None

    def _post(self, data: bytes, timeout: float) -> tuple[int, bytes]:
        """One request on this thread's kept connection; a connection the
        watch closed meanwhile is opened again once."""
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        for attempt in (1, 2):
            connection = getattr(self._local, "connection", None)
            if connection is None:
                parts = urllib.parse.urlsplit(self.url)
                kind = (http.client.HTTPSConnection if parts.scheme == "https"
                        else http.client.HTTPConnection)
                connection = kind(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
                self._local.connection = connection
            connection.timeout = timeout
            if connection.sock is not None:
                connection.sock.settimeout(timeout)
            try:
                connection.request("POST", self._path + "/v1/steer/hook", body=data,
                                   headers=headers)
                response = connection.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                connection.close()
                self._local.connection = None
                if attempt == 2:
                    raise
            except (OSError, http.client.HTTPException):
                connection.close()
                self._local.connection = None
                raise
        raise http.client.HTTPException("unreachable")

    def leased(self) -> bool:
        """Whether the current run's gates pass without asking now (a
        lease the watch keeps fresh)."""
        return self._fresh(self.trace_id())

    def _told(self, trace: str, answer: dict) -> None:
        """What every answer tells: the run's flags, the breakpoints."""
        if "flags" in answer:
            self._values[trace] = answer["flags"]
        self._breaks = frozenset(answer.get("breaks") or ())
        if self._breaks and self._asleep:
            # A breakpoint's gate asks: every gate must be seen again.
            with self._counting:
                for asleep in list(self._asleep):
                    self._wake(asleep)

    def _fresh(self, trace: str) -> bool:
        """The run's lease holds: what the hook knows of it is current."""
        until = self._lease.get(trace)
        return until is not None and time.monotonic() < until

    def _pass_leased(self, name: str, agent: Optional[str]) -> bool:
        """A gate of the current run passes under its lease: counted. The
        lease stays while the hook's long poll for the run says nothing
        changed; a pause, a flag or a stop ends the poll at once and the
        lease with it, and the next gate asks. A breakpoint's gate asks."""
        if self._breaks and (name in self._breaks or agent in self._breaks):
            return False
        trace = self.trace_id()
        until = self._lease.get(trace)
        if until is None or time.monotonic() >= until:
            return False
        with self._counting:
            self._passed[trace] = self._passed.get(trace, 0) + 1
            self._count[trace] = self._count.get(trace, 0) + 1
        return True

    def _leased(self, trace: str, answer: Optional[dict]) -> bool:
        """Take a lease from `answer` (a `go` with `lease_ms`), kept fresh by
        the run's long poll (started when it has none); no lease: the next
        gate asks. Whether a lease holds."""
        lease = answer.get("lease_ms") if answer and answer.get("status") == "go" else None
        with self._counting:
            if not isinstance(lease, (int, float)) or lease <= 0:
                self._lease.pop(trace, None)
                self._wake(trace)
                return False
            epoch = answer.get("epoch")
            if not isinstance(epoch, int):
                # A watch that does not long poll: the lease lasts what it says.
                self._lease[trace] = time.monotonic() + lease / 1000.0
                return True
            # Good while the long poll is out: its wait and a margin.
            self._lease[trace] = time.monotonic() + self.lease_poll + self.timeout
            if trace not in self._watching:
                self._watching.add(trace)
                threading.Thread(target=self._watch, args=(trace, epoch), daemon=True,
                                 name="conclave_steer lease").start()
        return True

    def _watch(self, trace: str, epoch: int) -> None:
        """Long poll the run's lease from `epoch` until it ends (paused,
        stopped, the watch gone) or the run passes no gate for a whole
        poll (it ended, or waits on something slow: its next gate asks).
        Whatever ends it, the adapters asleep under the lease wake."""
        ended = False
        try:
            while True:
                with self._counting:
                    self._fold(trace)
                    count = self._count.get(trace, 0)
                answer = self._call({"op": "lease", "epoch": epoch}, trace, hold=False,
                                    wait=self.lease_poll)
                if answer is not None:
                    self._told(trace, answer)
                with self._counting:
                    self._fold(trace)
                    idle = self._count.get(trace, 0) == count and not self._passed.get(trace)
                    if idle or answer is None or answer.get("status") != "go":
                        self._lease.pop(trace, None)
                        self._watching.discard(trace)
                        self._wake(trace)
                        ended = True
                        return
                self._leased(trace, answer)
                epoch = answer.get("epoch", epoch)
        finally:
            if not ended:
                # The poll itself failed: no lease without it.
                with self._counting:
                    self._lease.pop(trace, None)
                    self._watching.discard(trace)
                    self._wake(trace)

    # -- adapters asleep under a lease ---------------------------------------

    def _doze(self, adapter: Any) -> bool:
        """Put `adapter` to sleep while the current run's lease holds: a
        handler its framework calls for every message, however cheap its
        gate, costs a run what the framework charges any handler, so it
        leaves the framework's list of handlers (`adapter.asleep`, the run;
        it counts the gates it misses in `adapter.slept`). It wakes when
        the lease ends (a pause, a stop, the watch gone or the run idle)
        or a breakpoint is set. Only under a lease the hook's long poll
        keeps fresh: nothing else would wake it. Whether it sleeps."""
        if self._breaks:
            return False
        trace = self.trace_id()
        with self._counting:
            if trace not in self._watching or not self._fresh(trace):
                return False
            if adapter.asleep is not None:
                # Asleep under another run's lease until now.
                self._fold(adapter.asleep)
                self._asleep.get(adapter.asleep, set()).discard(adapter)
            adapter.slept = adapter.folded = 0
            adapter.asleep = trace
            self._asleep.setdefault(trace, set()).add(adapter)
        return True

    def _still(self, trace: str) -> bool:
        """Whether the current run is still `trace` (the one an adapter
        sleeps under): a program may run one team after another."""
        return self._run is not None or (_current_trace() or self._own_trace) == trace

    def _fold(self, trace: str) -> None:
        """Count the gates the run's sleeping adapters let by (under the
        lock: only the adapters' own thread adds to `slept`)."""
        for adapter in self._asleep.get(trace, ()):
            slept = adapter.slept
            new = slept - adapter.folded
            if new > 0:
                adapter.folded = slept
                self._passed[trace] = self._passed.get(trace, 0) + new
                self._count[trace] = self._count.get(trace, 0) + new

    def _wake(self, trace: str) -> None:
        """Wake the run's sleeping adapters (under the lock): their next
        message is a gate again."""
        self._fold(trace)
        for adapter in self._asleep.pop(trace, ()):
            if adapter.asleep == trace:
                adapter.asleep = None

    def flush(self) -> None:
        """Tell the watch of the gates passed under leases and not told
        yet (at the process's end, or when a run ends)."""
        with self._counting:
            for trace in list(self._asleep):
                self._fold(trace)
        for trace, passed in list(self._passed.items()):
            if passed:
                self._call({"op": "lease"}, trace, hold=False)

    def _warn(self, message: str, *, key: str) -> None:
        if key in self._warned:
            return
        self._warned.add(key)
        print(f"conclave_steer: {message}", file=sys.stderr, flush=True)
