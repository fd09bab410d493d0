"""The floors the team shapes are measured against (`cargo bench --bench
peers`): the same shape of work in plain asyncio, nothing else, on a
virtual clock (the loop's time jumps to its next timer instead of
sleeping), as `fan_out_floor.py` is the fan-out's.

    python3 benches/team_floor.py chain 40000        # four agents in a ring
    python3 benches/team_floor.py round_table 3000   # rounds of three roles
    python3 benches/team_floor.py coordinator 100000 # distinct members

Every model call is a stub that waits a seeded 1-5 ms (1-50 ms for the
coordinator's members, as the orchestrator's tasks) with a started and a
finished event handed to a consumer that counts them (as a headless run
folds its events and keeps none); what the shape's result keeps is kept
(the chain, each handoff and each turn's output; each round's
contributions; each member's answer) and written as one JSON document at
the end.
"""
import asyncio
import json
import random
import sys

# The same virtual clock as the fan-out's floor (this folder is on the
# path of a script run from it).
from fan_out_floor import VirtualLoop


class Events:
    """The run's events, folded as they come: counted, none kept."""

    def __init__(self):
        self.count = 0
        self.seq = 0

    def publish(self, kind, **fields):
        self.seq += 1
        event = {"seq": self.seq, "t_ms": int(asyncio.get_running_loop().time() * 1000),
                 "type": kind}
        event.update(fields)
        self.count += 1


async def call(events, rng, agent, turn, output, low, high):
    """One stub model call: its events and its wait; its output."""
    events.publish("turn_started", turn=turn, agent=agent)
    await asyncio.sleep(rng.randint(low, high) / 1000)
    events.publish("turn_finished", turn=turn, agent=agent, outcome="ok")
    return output


async def chain(n):
    """Four agents hand control round a ring `n` times; the last replies."""
    rng, events = random.Random(3), Events()
    agents = ["a", "b", "c", "d"]
    transfers = {a: {"transfer_to": agents[(i + 1) % 4], "message": "on"}
                 for i, a in enumerate(agents)}
    holder, chain_, handoffs, history = "a", ["a"], [], []
    for turn in range(1, n + 2):
        output = transfers[holder] if turn <= n else {"reply": "Agreed."}
        output = await call(events, rng, holder, turn, output, 1, 5)
        history.append({"turn": turn, "agent": holder, "output": output})
        if "reply" in output:
            break
        to = output["transfer_to"]
        events.publish("transfer_requested", turn=turn, **{"from": holder, "to": to})
        handoffs.append({"from": holder, "to": to, "accepted": True})
        events.publish("handoff_accepted", handoffs=len(handoffs), **{"from": holder, "to": to})
        holder = to
        chain_.append(to)
    return {"status": "ok", "final_agent": holder, "chain": chain_,
            "handoffs": handoffs, "history": history, "events": events.count}


async def round_table(rounds):
    """Three roles speak in turn each round; the last round agrees."""
    rng, events = random.Random(7), Events()
    roles = ["demand_analyst", "finance_analyst", "risk_analyst"]
    kept, turn = [], 0
    for r in range(1, rounds + 1):
        events.publish("round_started", round=r)
        said = []
        for role in roles:
            turn += 1
            stance = "block" if role == "risk_analyst" and r < rounds else "go"
            output = {"agent": role, "stance": stance, "confidence": 0.8,
                      "summary": "round %d" % r, "actions": ["watch"]}
            said.append(await call(events, rng, role, turn, output, 1, 5))
        decision = "GO" if all(s["stance"] == "go" for s in said) else "NO_GO"
        events.publish("round_finished", round=r, decision=decision)
        kept.append({"round": r, "contributions": said, "decision": decision})
    return {"status": "ok", "rounds": kept, "events": events.count}


async def coordinator(members):
    """A lead's one turn calls `members` distinct members at once, each
    answering in one call; then the lead replies."""
    rng, events = random.Random(3), Events()
    await call(events, rng, "lead", 0, None, 1, 5)

    async def member(i):
        name = "m%d" % i
        answer = await call(events, rng, name, i + 1, {"reply": name + " is done."}, 1, 50)
        return {"member": name, "task": "part %d" % i, "answer": answer["reply"]}

    answers = await asyncio.gather(*(member(i) for i in range(members)))
    await call(events, rng, "lead", members + 1, None, 1, 5)
    return {"status": "ok", "answer": "Done.", "calls": answers, "events": events.count}


if __name__ == "__main__":
    shapes = {"chain": chain, "round_table": round_table, "coordinator": coordinator}
    shape, n = sys.argv[1], int(sys.argv[2])
    result = VirtualLoop().run_until_complete(shapes[shape](n))
    json.dump(result, sys.stdout)
