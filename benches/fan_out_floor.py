"""The floor a fan-out is measured against: the same shape of work in plain
asyncio, nothing else. N stub model calls, at most 256 at once, each
waiting 1-50 ms on a virtual clock (the loop's time jumps to its next
timer instead of sleeping), each with a started and a finished event kept
in memory and its result kept. Run it beside Conclave's fan-out of the
same N, interleaved (docs/development.md, "Comparing two builds"):

    python3 benches/fan_out_floor.py 100000
"""
import asyncio
import json
import random
import sys


class VirtualLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock jumps to its next timer when nothing is
    ready: a run of simulated waits takes no wall time for them."""

    def __init__(self):
        super().__init__()
        self._virtual = 0.0

    def time(self):
        return self._virtual

    def _run_once(self):
        if not self._ready and self._scheduled:
            self._virtual = max(self._virtual, self._scheduled[0]._when)
        super()._run_once()


async def fan_out(n, width=256):
    rng = random.Random(1)
    loop = asyncio.get_running_loop()
    events, results = [], [None] * n
    tasks = iter(range(n))

    async def worker():
        for i in tasks:
            name = "t%d" % i
            events.append({"kind": "task_started", "task": name, "t_ms": int(loop.time() * 1000)})
            await asyncio.sleep(rng.randint(1, 50) / 1000)
            answer = {"task": name, "answer": {"value": 1}, "tokens": {"input": 12, "output": 3}}
            events.append({"kind": "task_finished", "task": name,
                           "t_ms": int(loop.time() * 1000), "result": answer})
            results[i] = answer

    await asyncio.gather(*(worker() for _ in range(width)))
    done = sum(r is not None for r in results)
    print(json.dumps({"tasks": done, "events": len(events)}))


if __name__ == "__main__":
    VirtualLoop().run_until_complete(fan_out(int(sys.argv[1]) if len(sys.argv) > 1 else 100000))
