"""Generates tests/conformance/orchestrator.jsonl: random orchestrator
scenarios in Conclave's format, each with the result the 001 reference's
`run_orchestrator` returns for the same planner output, workers and budget.

The reference's gateway.py and main.py are read at generation time from the
reference document (pass the seeds folder); nothing of them is stored here.
Its planner and final-brief calls are answered from the scenario's sim
script, its three workers are replaced by the scenario's simulated workers,
and its threads run on a virtual clock (see `World`), as Conclave's engine
runs on tokio's paused clock.

    python3 tests/conformance/orchestrator_cases.py ../shared/seeds [count] [out.jsonl]

Where the harness idealises the reference's real threads (each point is a
race or a wait in the reference that Conclave settles the way written here):

- Time passes only where the reference waits: a worker's sleep and
  `future.result(timeout)` in `_call_once`, and `as_completed`'s timeout.
  Everything else takes no time. Times are whole milliseconds: a timeout
  computed in float seconds (`deadline - time.monotonic()`) is rounded to
  the nearest millisecond, as tokio's timer counts them.
- Several threads that can move at the same instant move one at a time, in
  plan order: first the tasks whose waits end at that instant, then queued
  tasks taking free pool slots (also in plan order). So the dispatch budget
  and each worker's call count are consumed in that order. Real threads race.
- A wait that ends at the same instant as its timeout wins: a worker whose
  latency equals the attempt's timeout answers, and a task that ends exactly
  at `as_completed`'s deadline counts as completed.
- A timed-out attempt is cancelled at its timeout. In the reference the
  worker thread sleeps on and the inner pool's `shutdown(wait=True)` holds
  the task until it returns, so the retry starts later; Conclave cancels the
  attempt (its future is dropped) and retries at once, and so does this
  harness.
- When `as_completed` times out, the outer pool's shutdown would wait for
  the running tasks; here they are abandoned. The result is the same
  (`max_seconds` with an empty trace).
"""
import copy, heapq, json, os, random, re, sys, tempfile, threading, types

REFERENCE = "001_10759f1aa91c22af.txt"
WORKERS = ["sales_worker", "payments_worker", "inventory_worker"]


def load_reference(seeds):
    text = open(os.path.join(seeds, REFERENCE), encoding="utf-8").read()
    blocks = {}
    for m in re.finditer(r"\nPYTHON\n", text):
        title = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1].split()[0]
        blocks[title] = text[m.end():text.index("\nWhat matters most here", m.end())]
    folder = tempfile.mkdtemp()
    open(os.path.join(folder, "gateway.py"), "w").write(blocks["gateway.py"])
    open(os.path.join(folder, "main_ref.py"), "w").write(blocks["main.py"])
    sys.path.insert(0, folder)


class Abandoned(BaseException):
    """Unwinds a task thread the dispatch gave up on."""


class World:
    """The virtual clock and the one-thread-at-a-time scheduler of a run."""

    def __init__(self):
        self.now_ms = 0
        self.events = []  # (wake_ms, plan index, seq, SimThread)
        self.seq = 0
        self.back = threading.Semaphore(0)
        self.threads = {}  # thread ident -> SimThread

    def current(self):
        return self.threads.get(threading.get_ident())

    def sleep(self, ms):
        """Called on a task thread: wait `ms` of virtual time."""
        me = self.current()
        heapq.heappush(self.events, (self.now_ms + ms, me.index, self.seq, me))
        self.seq += 1
        self.back.release()
        me.go.acquire()
        if me.abandoned:
            raise Abandoned()


WORLD = None


class SimThread:
    """One task of the outer pool on its own real thread, run only while the
    scheduler hands it control; also the task's future."""

    def __init__(self, index, fn, args):
        self.index, self.fn, self.args = index, fn, args
        self.go = threading.Semaphore(0)
        self.done, self.abandoned, self.started = False, False, False
        self.value, self.error = None, None
        self.thread = threading.Thread(target=self._main, daemon=True)

    def _main(self):
        WORLD.threads[threading.get_ident()] = self
        self.go.acquire()
        try:
            if not self.abandoned:
                self.value = self.fn(*self.args)
        except Abandoned:
            pass
        except BaseException as e:  # the reference's own errors surface in result()
            self.error = e
        self.done = True
        WORLD.back.release()

    def step(self):
        """Run until the thread waits or ends."""
        if not self.started:
            self.started = True
            self.thread.start()
        self.go.release()
        WORLD.back.acquire()

    def abandon(self):
        if self.started and not self.done:
            self.abandoned = True
            self.step()

    def result(self, timeout=None):
        if self.error is not None:
            raise self.error
        return self.value


class WorkerCall:
    """The inner pool's future in `_call_once`: the worker runs when its
    result is asked for, on the asking task's thread."""

    def __init__(self, fn, kwargs):
        self.fn, self.kwargs = fn, kwargs

    def result(self, timeout=None):
        timeout_ms = round(timeout * 1000)
        latency, outcome = self.fn(**self.kwargs)  # a bad binding raises TypeError here
        if latency is None or latency > timeout_ms:
            if timeout_ms > 0:
                WORLD.sleep(timeout_ms)
            raise TimeoutError()
        if latency > 0:
            WORLD.sleep(latency)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


class FakeExecutor:
    def __init__(self, max_workers=None):
        if max_workers is not None and max_workers <= 0:
            raise ValueError("max_workers must be greater than 0")
        self.max_workers = max_workers
        self.inner = WORLD.current() is not None
        self.tasks = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for task in self.tasks:
            task.abandon()
        return False

    def submit(self, fn, *args, **kwargs):
        if self.inner:
            return WorkerCall(fn, kwargs)
        task = SimThread(len(self.tasks), fn, args)
        task.pool = self
        self.tasks.append(task)
        return task


def fake_as_completed(fs, timeout=None):
    tasks = list(fs)
    pool = tasks[0].pool
    end = WORLD.now_ms + round(timeout * 1000)
    queue, running, finished = list(tasks), [], []

    def fill():
        while queue and len(running) < pool.max_workers:
            task = queue.pop(0)
            running.append(task)
            task.step()
            if task.done:
                running.remove(task)
                finished.append(task)

    fill()
    while True:
        while finished:
            yield finished.pop(0)
        if not running and not queue:
            return
        if not WORLD.events or WORLD.events[0][0] > end:
            raise TimeoutError()
        WORLD.now_ms = WORLD.events[0][0]
        while WORLD.events and WORLD.events[0][0] == WORLD.now_ms:
            task = heapq.heappop(WORLD.events)[3]
            task.step()
            if task.done:
                running.remove(task)
                finished.append(task)
        fill()


def make_worker(gateway, name, spec):
    """The scenario's simulated worker with 001's worker signature. Returns
    (latency in ms or None for a hang, observation or error)."""
    short = name[:-len("_worker")] if name.endswith("_worker") else name
    calls = [0]

    def worker(report_date, region, request_id):
        calls[0] += 1
        n = calls[0]
        if any(a <= WORLD.now_ms < b for a, b in spec.get("outage_ms", [])):
            return (None, None) if spec.get("hang") else (0, gateway.StopRun(f"worker_error:{name}"))
        latency = spec.get("latency_ms", 0)
        if isinstance(latency, list):
            latency = latency[min(n, len(latency)) - 1]
        if n in spec.get("fail", []):
            return latency, gateway.StopRun(f"worker_error:{name}")
        found = spec.get("data", {}).get(f"{report_date}:{region.upper()}")
        result = found if found else {"warning": f"{short}_data_missing"}
        return latency, {"status": "done", "worker": name, "result": result}

    return worker


def run_reference(scn, launch_flags):
    global WORLD
    WORLD = World()
    prov = scn["provider"]
    latency = prov.get("latency_ms", 0)

    class LLMTimeout(Exception): pass
    class LLMEmpty(Exception): pass

    def model_output(script):
        # A list in a sim script is one output per call; each runs once.
        WORLD.now_ms += latency
        out = copy.deepcopy(script[0] if isinstance(script, list) else script)
        if isinstance(out, dict) and "$fault" in out:
            if out["$fault"] == "timeout":
                raise LLMTimeout("llm_timeout")
            return ""
        return out

    def create_plan(*, goal, report_date, region, max_tasks):
        out = model_output(prov["plan"])
        if not isinstance(out, str):
            return out
        text = out or "{}"
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return {"kind": "invalid", "raw": text}

    def compose_final_answer(*, goal, aggregate):
        out = model_output(prov["final_answer"])
        text = (out if isinstance(out, str) else json.dumps(out)).strip()
        if not text:
            raise LLMEmpty("llm_empty")
        return text

    llm = types.ModuleType("llm")
    llm.LLMTimeout, llm.LLMEmpty = LLMTimeout, LLMEmpty
    llm.create_plan, llm.compose_final_answer = create_plan, compose_final_answer
    workers = types.ModuleType("workers")
    for name in WORKERS:
        setattr(workers, name, None)
    sys.modules.update({"llm": llm, "workers": workers})
    for module in ("gateway", "main_ref"):
        sys.modules.pop(module, None)
    import gateway, main_ref

    clock = types.SimpleNamespace(monotonic=lambda: WORLD.now_ms / 1000)
    gateway.time = main_ref.time = clock
    gateway.ThreadPoolExecutor = FakeExecutor
    gateway.as_completed = fake_as_completed

    main_ref.BUDGET = gateway.Budget(**scn.get("budget", {}))
    declared = scn["workers"]
    main_ref.WORKER_REGISTRY = {name: make_worker(gateway, name, spec) for name, spec in declared.items()}
    flags = scn.get("flags", {})
    on = {name: flag.get("default", False) for name, flag in flags.items()}
    on.update(launch_flags)
    allowed = lambda w: all(on[n] or w not in f.get("workers", []) for n, f in flags.items())
    main_ref.ALLOWED_WORKERS_POLICY = set(declared)
    main_ref.ALLOWED_WORKERS_EXECUTION = {w for w in declared if allowed(w)}
    context = scn["context"] if isinstance(scn["context"], dict) else {}
    main_ref.REPORT_DATE, main_ref.REGION = context.get("report_date"), context.get("region")
    return main_ref.run_orchestrator(scn["goal"])


# ---------------------------------------------------------------- generation

DATES = ["2026-02-26", "2026-02-27"]
# 001's health rules written out as scenario rules: they must rate exactly
# as the reference's built-in ones.
REFERENCE_RULES = [
    {"worker": "payments_worker", "field": "failed_payment_rate", "op": ">=", "value": 0.03, "level": "yellow"},
    {"worker": "inventory_worker", "field": "out_of_stock_skus", "op": "non_empty", "level": "yellow"},
    {"worker": "payments_worker", "field": "gateway_incident", "op": "not_in", "value": [None, "none"], "level": "red"},
]
REGIONS = ["US", "EU"]


def metrics(r, worker):
    if r.random() < 0.12:
        return {}
    if worker == "sales_worker":
        return {"gross_sales_usd": r.choice([182450.0, 99.5, 0]), "orders": r.randint(0, 5000), "aov_usd": 37.85}
    if worker == "payments_worker":
        m = {"chargeback_alerts": r.randint(0, 5)}
        if r.random() < 0.85:
            m["failed_payment_rate"] = r.choice([0.023, 0.03, 0.05, 0, 1, 0.0299, True, False])
        if r.random() < 0.8:
            m["gateway_incident"] = r.choice(["none", "none", "none", "degraded", None, "", 0, False, []])
        return m
    m = {"low_stock_skus": ["SKU-4411"], "restock_eta_days": 2}
    if r.random() < 0.8:
        m["out_of_stock_skus"] = r.choice([["SKU-9033"], [], "", "x", 0, None, {}])
    return m


def worker_spec(r, name, timeout_ms):
    spec = {"description": f"{name} for the report"}
    spec["data"] = {f"{d}:{g}": metrics(r, name) for d in DATES for g in REGIONS if r.random() < 0.7}
    around = [0, 1, 100, timeout_ms - 1, timeout_ms, timeout_ms + 1, timeout_ms * 2, 300, 450]
    if r.random() < 0.5:
        spec["latency_ms"] = r.choice(around)
    elif r.random() < 0.8:
        spec["latency_ms"] = [r.choice(around) for _ in range(r.randint(1, 4))]
    if r.random() < 0.2:
        spec["fail"] = sorted(r.sample(range(1, 6), r.randint(1, 2)))
    if r.random() < 0.15:
        start = r.choice([0, 100, 500, 1000])
        spec["outage_ms"] = [[start, start + r.choice([1, 300, 2000, 60000])]]
        if r.random() < 0.5:
            spec["hang"] = True
    return spec


def args(r):
    a = {"report_date": r.choice(DATES), "region": r.choice(["US", "EU", "us", "eu", "Us", "APAC"])}
    roll = r.random()
    if roll < 0.05:
        a.pop(r.choice(["report_date", "region"]))
    elif roll < 0.09:
        a["limit"] = 3
    elif roll < 0.12:
        a["request_id"] = "from-the-plan"
    elif roll < 0.17:
        a["report_date"] = r.choice([20260226, None, True, 1.5])
    elif roll < 0.2:
        a = {"region": a["region"], "report_date": a["report_date"]}
    return a


def task(r, i, declared, good_rate):
    t = {"id": f"t{i}", "worker": r.choice(declared), "args": args(r), "critical": r.random() < 0.5}
    if r.random() < good_rate:
        return t
    mutation = r.randrange(12)
    if mutation == 0: return r.choice(["t", 5, None, [t]])
    if mutation == 1: t.pop(r.choice(list(t)))
    if mutation == 2: t["id"] = r.choice(["", "  ", 7, None, f" t{i} "])
    if mutation == 3: t["id"] = "t1"
    if mutation == 4: t["worker"] = r.choice(["", " ", 3, None])
    if mutation == 5: t["worker"] = r.choice(["fraud_worker", " sales_worker", "SALES_WORKER"])
    if mutation == 6: t["args"] = r.choice([[], "US", None, 1])
    if mutation == 7: t["critical"] = r.choice(["true", 1, 0, None])
    if mutation == 8: t["note"] = {"extra": True}
    if mutation == 9: t["args"] = {}
    if mutation == 10: t["worker"] = "inventory_worker"
    return t


def plan(r, declared, max_tasks):
    good_rate = r.choice([0.75, 0.97])
    count = r.randint(1, max_tasks) if r.random() < 0.9 else max_tasks + 1
    tasks = [task(r, i + 1, declared, good_rate) for i in range(count)]
    p = {"kind": "plan", "tasks": tasks}
    roll = r.random()
    if roll < 0.03: return r.choice(["not json", "", "[1, 2]", "5", "null"])
    if roll < 0.06: return {"$fault": r.choice(["timeout", "empty"])}
    if roll < 0.08: p["kind"] = r.choice(["PLAN", None, "tasks"])
    if roll < 0.10: p["tasks"] = r.choice([{}, "t1", None])
    if roll < 0.12: p.pop("tasks")
    if roll < 0.14: return r.choice([[[p]], 7, [p, "unused"]])
    if roll < 0.20: return json.dumps(p)
    if roll < 0.22: return json.dumps(p) + " trailing"
    if roll < 0.24: p["tasks"] = []
    return p


def scenario(seed):
    r = random.Random(seed)
    timeout_s = r.choice([0.05, 0.3, 1.0, 2.0, 2.0])
    timeout_ms = round(timeout_s * 1000)
    budget = {}
    max_tasks = r.choice([1, 2, 3, 4, 4, 6])
    if r.random() < 0.8: budget["max_tasks"] = max_tasks
    else: max_tasks = 4
    if r.random() < 0.8: budget["max_parallel"] = r.choice([1, 1, 2, 3, 4])
    if r.random() < 0.6: budget["max_retries_per_task"] = r.choice([0, 1, 1, 2, 3])
    if r.random() < 0.6: budget["max_dispatches"] = r.choice([0, 1, 2, 3, 4, 5, 8])
    budget["task_timeout_seconds"] = timeout_s
    if r.random() < 0.7: budget["max_seconds"] = r.choice([0.1, 0.105, 0.5, 0.7, 1, 1.005, 2.5, 3, 25])
    flags, launch = {}, {}
    if r.random() < 0.5:
        for i in range(r.randint(1, 2)):
            flags[f"flag{i}"] = {"default": r.random() < 0.5, "workers": r.sample(WORKERS, r.randint(1, 2))}
            if r.random() < 0.4:
                launch[f"flag{i}"] = r.random() < 0.5
    document = {
        "name": f"case_{seed}", "pattern": "orchestrator", "goal": "Report.",
        "context": r.choice([{"report_date": "2026-02-26", "region": "US"}, {"report_date": "2026-02-27", "region": "EU"},
                             {}, {"region": "US", "extra": [1]}]),
        "budget": budget,
        "workers": {name: worker_spec(r, name, timeout_ms) for name in WORKERS},
        "provider": {"kind": "sim", "latency_ms": r.choice([0, 0, 100, 400, 1000]),
                     "plan": plan(r, WORKERS, max_tasks),
                     "final_answer": r.choice(["Brief.", "  spaced brief  ", "", "   ", {"$fault": "timeout"},
                                               {"$fault": "empty"}, {"brief": [1, 2.5]}, ["First.", "unused"],
                                               "Brief."])},
    }
    if flags: document["flags"] = flags
    if r.random() < 0.2: document["health_rules"] = r.sample(REFERENCE_RULES, 3)
    return document, launch


def main():
    seeds = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 240
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "orchestrator.jsonl")
    load_reference(seeds)
    with open(out, "w", encoding="utf-8") as f:
        for seed in range(count):
            document, launch = scenario(seed)
            expected = run_reference(copy.deepcopy(document), launch)
            f.write(json.dumps({"flags": launch, "scenario": document, "expected": expected}, ensure_ascii=False) + "\n")
    print(f"wrote {count} cases to {out}")


if __name__ == "__main__":
    main()
