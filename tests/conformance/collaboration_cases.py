"""Generates tests/conformance/collaboration.jsonl: random collaboration
scenarios in Conclave's format, each with the result the 000 reference's
`run_collaboration` returns for the same scripted model outputs.

The reference code is read at generation time from the reference document
(pass the seeds folder); nothing of it is stored here. Its LLM calls are
answered from the scenario's sim script and its clock advances by the
scripted latency, as Conclave's virtual clock does.

    python3 tests/conformance/collaboration_cases.py ../shared/seeds [count] [out.jsonl] [first_seed]

Without `out.jsonl` it rewrites the committed cases; `CONCLAVE_COLLABORATION_CASES=
/abs/out.jsonl cargo test --test conformance` checks another set.
"""
import copy, json, os, random, sys, tempfile, types

REFERENCE = "000_8fd5e4ecf732da63.txt"
ROLES = ["demand_analyst", "finance_analyst", "risk_analyst", "legal_analyst", "ops_analyst"]


def load_reference(seeds):
    text = open(os.path.join(seeds, REFERENCE), encoding="utf-8").read()
    def block(title):
        start = text.index("PYTHON\n", text.rindex(title)) + len("PYTHON\n")
        return text[start:text.index("Was hier am wichtigsten", start)]
    folder = tempfile.mkdtemp()
    open(os.path.join(folder, "gateway.py"), "w").write(block("gateway.py — Policy Boundary für Kollaboration\n"))
    open(os.path.join(folder, "main_ref.py"), "w").write(block("main.py — Team Loop -> Resolve -> Finalize\n"))
    sys.path.insert(0, folder)


def run_reference(scn, launch_flags):
    state = {"ms": 0, "cursor": {}}
    prov = scn["provider"]
    latency = prov.get("latency_ms", 0)

    class LLMTimeout(Exception): pass
    class LLMEmpty(Exception): pass

    def next_output(key, script):
        entries = script if isinstance(script, list) else [script]
        i = state["cursor"].get(key, 0)
        state["cursor"][key] = i + 1
        state["ms"] += latency
        return copy.deepcopy(entries[min(i, len(entries) - 1)])

    def as_text(out):
        if isinstance(out, dict) and "$fault" in out:
            if out["$fault"] == "timeout":
                raise LLMTimeout("llm_timeout")
            return ""
        return out

    def propose_contribution(*, role, goal, shared_context, history, open_conflicts):
        out = as_text(next_output(role, prov["responses"][role]))
        if not isinstance(out, str):
            return out
        text = out or "{}"
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return {"invalid": True, "raw": text}

    def compose_final_answer(*, goal, final_decision, history):
        out = as_text(next_output("final_answer", prov["final_answer"]))
        text = (out if isinstance(out, str) else json.dumps(out)).strip()
        if not text:
            raise LLMEmpty("llm_empty")
        return text

    llm = types.ModuleType("llm")
    llm.LLMTimeout, llm.LLMEmpty = LLMTimeout, LLMEmpty
    llm.propose_contribution, llm.compose_final_answer = propose_contribution, compose_final_answer
    signals = types.ModuleType("signals")
    signals.build_shared_context = lambda **_: scn["context"]
    sys.modules.update({"llm": llm, "signals": signals})
    sys.modules.pop("main_ref", None)
    import gateway, main_ref

    main_ref.time = types.SimpleNamespace(monotonic=lambda: state["ms"] / 1000)
    budget = scn.get("budget", {})
    main_ref.BUDGET = gateway.Budget(**budget)
    flags = scn.get("flags", {})
    on = {name: flag.get("default", False) for name, flag in flags.items()}
    on.update(launch_flags)
    roles = list(scn["team"]["roles"])
    allowed = lambda r: all(on[n] or r not in f.get("roles", []) for n, f in flags.items())
    main_ref.TEAM_ROLES_POLICY = set(roles)
    main_ref.TEAM_ROLES_EXECUTION = {r for r in roles if allowed(r)}
    sequence = list(scn["team"]["sequence"])
    for name, flag in flags.items():
        if on[name] and flag.get("joins"):
            sequence += [r for r in flag.get("roles", []) if r not in sequence]
    main_ref.TEAM_SEQUENCE = sequence
    context = scn["context"] if isinstance(scn["context"], dict) else {}
    main_ref.REPORT_DATE, main_ref.REGION = context.get("report_date"), context.get("region")
    return main_ref.run_collaboration(scn["goal"])


def output(r, role, roles, good_rate):
    good = {"agent": role, "stance": r.choice(["go", "go", "caution", "block"]),
            "summary": r.choice(["fine", "  padded  ", "x"]),
            "confidence": r.choice([0.5, 0.9, 1, 0, 0.0625, 0.12345, 0.9995]),
            "actions": r.choice([["a"], ["a", "b", "c", "d"], [" a ", "b"]])}
    if r.random() < good_rate:
        return good
    bad = dict(good)
    mutation = r.randrange(16)
    if mutation == 0: return json.dumps(good)
    if mutation == 1: return "not json at all"
    if mutation == 2: return ""
    if mutation == 3: return {"$fault": r.choice(["timeout", "empty"])}
    if mutation == 4: bad.pop(r.choice(list(bad)))
    if mutation == 5: bad["agent"] = r.choice(["", "  ", 5, r.choice(roles), "stranger", " " + role + " "])
    if mutation == 6: bad["stance"] = r.choice(["GO", "maybe", 1, " caution "])
    if mutation == 7: bad["summary"] = r.choice(["", "   ", 3, None, "\x1c\x1d"])
    if mutation == 8: bad["confidence"] = r.choice(["0.5", True, None, 1.5, -0.01, 100])
    if mutation == 9: bad["actions"] = r.choice([[], "x", None, {}])
    if mutation == 10: bad["actions"] = r.choice([["a", ""], ["a", 1], [None]])
    if mutation == 11: return r.choice([[good], 5, None, "[1,2]", "\"s\"", "null"])
    if mutation == 12: bad["extra"] = {"x": 1}
    if mutation == 13: return json.dumps(good) + " trailing"
    if mutation == 14: bad["agent"] = r.choice(roles)
    return bad


def scenario(seed):
    r = random.Random(seed)
    roles = ROLES[:r.randint(1, 5)]
    sequence = [r.choice(roles) for _ in range(r.randint(0 if r.random() < 0.05 else 1, 5))]
    flags, launch = {}, {}
    if r.random() < 0.6:
        for i in range(r.randint(1, 2)):
            gated = r.sample(roles, r.randint(1, min(2, len(roles))))
            flags[f"flag{i}"] = {"default": r.random() < 0.5, "roles": gated, "joins": r.random() < 0.5}
            if r.random() < 0.4:
                launch[f"flag{i}"] = r.random() < 0.5
    good_rate = r.choice([0.55, 0.9])
    responses = {role: [output(r, role, roles, good_rate) for _ in range(r.randint(1, 4))] for role in roles}
    budget = {}
    if r.random() < 0.7: budget["max_rounds"] = r.randint(0, 4)
    if r.random() < 0.5: budget["max_messages"] = r.randint(0, 12)
    if r.random() < 0.5: budget["max_seconds"] = r.choice([0, 1, 3, 10, 40, 2.5])
    if r.random() < 0.5: budget["min_go_votes"] = r.randint(0, 4)
    document = {
        "name": f"case_{seed}", "pattern": "collaboration", "goal": "Decide.",
        "context": r.choice([{"report_date": "2026-03-02", "region": "US", "x": [1, 2]}, {}, {"region": "EU"}]),
        "team": {"roles": {role: {"focus": role} for role in roles}, "sequence": sequence},
        "provider": {"kind": "sim", "latency_ms": r.choice([0, 100, 1000, 5000]), "responses": responses,
                     "final_answer": r.choice(["Brief.", "  spaced brief  ", "", "   ", {"$fault": "timeout"},
                                               {"$fault": "empty"}, ["first", "second"], "Brief."])},
    }
    if flags: document["flags"] = flags
    if budget: document["budget"] = budget
    return document, launch


def main():
    seeds = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "collaboration.jsonl")
    first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    load_reference(seeds)
    with open(out, "w", encoding="utf-8") as f:
        for seed in range(first, first + count):
            document, launch = scenario(seed)
            expected = run_reference(copy.deepcopy(document), launch)
            f.write(json.dumps({"flags": launch, "scenario": document, "expected": expected}, ensure_ascii=False) + "\n")
    print(f"wrote {count} cases to {out}")


if __name__ == "__main__":
    main()
