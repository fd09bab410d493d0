"""Hooks that let `conclave watch` steer a run of another framework.

The protocol client (`Steer`) uses the standard library alone (http.client, json); each
framework's adapter is a module of its own, imported only when used:

    from conclave_steer import Steer
    from conclave_steer.openai_agents import SteerHooks, guarded
    from conclave_steer.langgraph import invoke, steered

docs/steer.md in Conclave's repository describes the protocol and what
each adapter holds.
"""

from .client import Steer, Stopped, Verdict

__all__ = ["Steer", "Stopped", "Verdict"]
