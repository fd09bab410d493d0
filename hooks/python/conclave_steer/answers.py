"""What the watch's answers come to in the hook: a stop (`Stopped`), a
tool call's verdict (`Verdict`: approved, maybe with edited arguments, or
rejected with the reason and who decided), and a value made JSON."""

from __future__ import annotations

import json
from typing import Any, Optional


class Verdict:
    """What became of a tool call asked for approval: `approved`, the
    `arguments` to call it with (a person may have edited them), or the
    rejection's `reason` and who decided (`by`: "person", "rule" for a
    watch's --reject rule, "hook" for a strict hook that could not reach
    the watch)."""

    __slots__ = ("approved", "arguments", "edited", "reason", "by")

    def __init__(self, approved: bool, arguments: Any = None, reason: Optional[str] = None,
                 by: str = "person", edited: bool = False) -> None:
        self.approved = approved
        self.arguments = arguments
        self.edited = edited
        self.reason = reason
        self.by = by

    def told(self, tool: str) -> str:
        """The rejection as the tool's result: what the model reads."""
        who = {
            "rule": "by the watch's rule",
            "hook": "by the steering hook",
            "person": "by a person",
        }.get(self.by, "by " + str(self.by))
        return f"The call of {tool} was rejected {who}: {self.reason}"


class Stopped(Exception):
    """A person stopped the run from the watch."""

    def __init__(self, reason: str = "stopped by a person") -> None:
        super().__init__(reason)
        self.reason = reason


def _jsonable(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)
