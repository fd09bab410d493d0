"""Generates tests/conformance/swarm.jsonl: random swarm scenarios in
Conclave's format, each with the result DESIGN.md's swarm rules give for it.

There is no reference code to run for the swarm (002 describes a Go
framework in prose), so the expected results come from `expected` below: a
deliberately plain model of the rules, written from DESIGN.md ("swarm")
and nothing else, that shares no code with Conclave. It keeps a clock in
whole milliseconds that moves only by the scripted latencies.

    python3 tests/conformance/swarm_cases.py [count] [out.jsonl] [seed]

The rules, as the model applies them before and after each turn:

- The agent holding control takes the turn. If a flag that is off gates
  it, the run stops with `agent_denied:<agent>`. Then, before the model
  call: more than `max_seconds` gone stops it with `max_seconds`; a call
  that would exceed `max_llm_calls` stops it with `max_llm_calls`. The
  call is counted when it starts.
- A holder that came by a transfer with `node_timeout_ms > 0` must be done
  by (time of the accepted transfer + node timeout). A model call or tool
  call that would end after that deadline is cut at it: the clock moves to
  the deadline and the run stops with `node_timeout:<agent>`. Ending
  exactly at the deadline is in time. The entry agent has no deadline.
- The turn's output: a reply ends the run with its stripped text as the
  answer (blank text: `llm_empty`); raw text is a reply; `$fault` timeout
  stops with `llm_timeout`, empty with `llm_empty`; a tool call takes the
  tool's latency (an undeclared tool answers at once) and the same agent
  goes on; a transfer is decided as below and, refused or not, the turn
  is over.
- A transfer to an undeclared agent is refused as `unknown_agent:<name>`,
  to the holder itself as `self_transfer`, to a gated-off agent as
  `agent_denied:<name>`; none of these count. Otherwise the count goes up;
  `max_handoffs > 0` and count > max_handoffs refuses it as
  `max_handoffs_exceeded` (and the window is left alone). Otherwise, when
  window and minimum are both > 0, the target joins the window (the last
  `window` targets kept) and a full window with fewer than `min_unique`
  distinct names refuses it as `repetitive_handoff`. Otherwise control
  passes to the target, which joins the chain.
"""
import json, random, sys

AGENT_POOL = ["triage", "billing", "refunds", "legal", "ops", "sales", "qa"]
TOOL_POOL = ["lookup", "notify"]
DEFAULTS = {"max_handoffs": 20, "node_timeout_ms": 0,
            "repetitive_handoff_window": 8, "repetitive_handoff_min_unique": 3}
DEFAULT_MAX_LLM_CALLS = 30
DEFAULT_MAX_SECONDS = 120


def expected(scenario, flags):
    """The result fields DESIGN.md's rules give for `scenario` with the
    flags `flags` set at launch."""
    agents = list(scenario["agents"])
    limits = dict(DEFAULTS, **scenario.get("limits", {}))
    max_handoffs = limits["max_handoffs"]
    node_timeout = limits["node_timeout_ms"]
    window_size = limits["repetitive_handoff_window"]
    min_unique = limits["repetitive_handoff_min_unique"]
    budget = scenario.get("budget", {})
    max_calls = budget.get("max_llm_calls", DEFAULT_MAX_LLM_CALLS)
    max_ms = budget.get("max_seconds", DEFAULT_MAX_SECONDS) * 1000
    provider = scenario["provider"]
    default_latency = provider.get("latency_ms", 0)
    tools = scenario.get("tools", {})

    on = {name: spec.get("default", False) for name, spec in scenario.get("flags", {}).items()}
    on.update(flags)
    gated = set()
    for name, spec in scenario.get("flags", {}).items():
        if not on[name]:
            gated.update(spec.get("agents", []))

    now = 0
    holder = scenario["entry"]
    deadline = None
    chain = [holder]
    handoffs = []
    count = 0
    window = []
    calls = 0
    cursor = {agent: 0 for agent in agents}

    def end(reason, answer=None):
        result = {"status": "ok" if reason == "success" else "stopped",
                  "stop_reason": reason, "final_agent": holder,
                  "chain": chain, "handoffs": handoffs, "llm_calls": calls}
        if answer is not None:
            result["answer"] = answer
        return result

    while True:
        if holder in gated:
            return end("agent_denied:" + holder)
        if now > max_ms:
            return end("max_seconds")
        if calls + 1 > max_calls:
            return end("max_llm_calls")
        calls += 1
        script = provider["turns"][holder]
        if not isinstance(script, list):
            script = [script]
        output = script[min(cursor[holder], len(script) - 1)]
        cursor[holder] += 1
        latency = default_latency
        if isinstance(output, dict) and "latency_ms" in output:
            latency = output["latency_ms"]
        if deadline is not None and now + latency > deadline:
            now = deadline
            return end("node_timeout:" + holder)
        now += latency

        if isinstance(output, str):
            text = output.strip()
            return end("success", text) if text else end("llm_empty")
        if "$fault" in output:
            return end("llm_timeout" if output["$fault"] == "timeout" else "llm_empty")
        if "reply" in output:
            text = output["reply"].strip()
            return end("success", text) if text else end("llm_empty")
        if "call" in output:
            spent = tools[output["call"]].get("latency_ms", 0) if output["call"] in tools else 0
            if deadline is not None and now + spent > deadline:
                now = deadline
                return end("node_timeout:" + holder)
            now += spent
            continue

        target = output["transfer_to"]
        reason = None
        if target not in agents:
            reason = "unknown_agent:" + target
        elif target == holder:
            reason = "self_transfer"
        elif target in gated:
            reason = "agent_denied:" + target
        else:
            count += 1
            if max_handoffs > 0 and count > max_handoffs:
                reason = "max_handoffs_exceeded"
            elif window_size > 0 and min_unique > 0:
                window.append(target)
                window = window[-window_size:]
                if len(window) == window_size and len(set(window)) < min_unique:
                    reason = "repetitive_handoff"
        if reason is None:
            handoffs.append({"from": holder, "to": target, "accepted": True})
            holder = target
            chain.append(target)
            deadline = now + node_timeout if node_timeout > 0 else None
        else:
            handoffs.append({"from": holder, "to": target, "accepted": False, "reason": reason})


def latency_near(rng, node_timeout):
    """A turn's latency, often right around the node timeout."""
    if node_timeout > 0:
        return rng.choice([0, 50, node_timeout // 2, node_timeout - 1, node_timeout,
                           node_timeout + 1, node_timeout * 2])
    return rng.choice([0, 50, 100, 400, 1000])


def make_turn(rng, agent, agents, tools, node_timeout, index, bouncing):
    roll = rng.random()
    if bouncing:
        # Mostly transfers among the agents, for the loop check to weigh.
        roll = 0.42 + roll * 0.58 if rng.random() < 0.9 else roll
    if roll < 0.14:
        turn = {"reply": rng.choice([f"{agent} answers #{index}", f"  {agent} is done.  "])}
    elif roll < 0.17:
        turn = {"reply": "   "}
    elif roll < 0.21:
        return rng.choice([f"Plain words from {agent}.", " \n "])
    elif roll < 0.27:
        turn = {"$fault": rng.choice(["timeout", "empty"])}
    elif roll < 0.42:
        tool = rng.choice(tools + ["missing_tool"]) if tools else "missing_tool"
        turn = {"call": tool, "args": {"id": index}}
    else:
        pick = rng.random()
        if pick < 0.05:
            target = "ghost"
        elif pick < 0.1:
            target = agent
        else:
            target = rng.choice([a for a in agents if a != agent])
        turn = {"transfer_to": target, "message": f"over to {target}"}
    if rng.random() < 0.65:
        turn["latency_ms"] = latency_near(rng, node_timeout)
    return turn


def make_case(rng, number):
    agents = rng.sample(AGENT_POOL, rng.randint(2, 5))
    entry = rng.choice(agents)
    # A bouncing case hands control around a lot under an active loop
    # check; the others mix every kind of turn and limit.
    bouncing = rng.random() < 0.4
    limits = {}
    for key, choices in [
        ("max_handoffs", [0, 10, 20] if bouncing else [0, 1, 2, 3, 4, 6, 20]),
        ("node_timeout_ms", [0, 0, 150, 300, 500, 1000]),
        ("repetitive_handoff_window", [2, 3, 4, 5, 6] if bouncing else [0, 1, 2, 3, 4, 8]),
        ("repetitive_handoff_min_unique", [2, 3, 4] if bouncing else [0, 1, 2, 3, 4]),
    ]:
        if rng.random() < 0.8:
            limits[key] = rng.choice(choices)
    node_timeout = limits.get("node_timeout_ms", 0)
    budget = {}
    if bouncing:
        budget["max_llm_calls"] = rng.choice([15, 20, 30, 40])
    elif rng.random() < 0.8:
        budget["max_llm_calls"] = rng.choice([1, 2, 3, 5, 8, 12, 20, 40])
    if rng.random() < 0.6:
        budget["max_seconds"] = rng.choice([0.5, 1, 1.5, 2, 3, 5, 10])
    tool_names = rng.sample(TOOL_POOL, rng.randint(0, 2))
    tools = {}
    for name in tool_names:
        spec = {"description": f"{name} for the desk",
                "latency_ms": rng.choice([0, 100, 300, 600])}
        if rng.random() < 0.3:
            spec["fail"] = [1]
        tools[name] = spec
    turns = {}
    for agent in agents:
        script = [make_turn(rng, agent, agents, tool_names, node_timeout, i, bouncing)
                  for i in range(rng.randint(1, 8 if bouncing else 5))]
        turns[agent] = script if len(script) > 1 or rng.random() < 0.5 else script[0]
    scenario = {
        "name": f"swarm_case_{number}", "pattern": "swarm", "goal": "Help the customer.",
        "context": {}, "entry": entry,
        "agents": {a: {"description": f"the {a} desk"} for a in agents},
        "provider": {"kind": "sim", "latency_ms": rng.choice([0, 50, 100, 250]), "turns": turns},
    }
    if limits:
        scenario["limits"] = limits
    if budget:
        scenario["budget"] = budget
    if tools:
        scenario["tools"] = tools
    flags = {}
    if rng.random() < 0.35:
        gated = [rng.choice(agents)]
        scenario["flags"] = {"desk": {"default": rng.random() < 0.5, "agents": gated}}
        if rng.random() < 0.5:
            flags["desk"] = rng.random() < 0.5
    return {"flags": flags, "scenario": scenario, "expected": expected(scenario, flags)}


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    out = sys.argv[2] if len(sys.argv) > 2 else "tests/conformance/swarm.jsonl"
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 2002
    rng = random.Random(seed)
    with open(out, "w") as f:
        for number in range(count):
            f.write(json.dumps(make_case(rng, number), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
