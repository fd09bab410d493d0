"""Generates tests/conformance/research.jsonl: random research scenarios in
Conclave's format, each with the result the 004 reference's
`run_research_agent` returns for the same search results, pages, notes,
hints, plan and synthesis.

The reference's context.py, tools.py, agent.py, gateway.py and main.py are
read at generation time from the reference document (pass the seeds
folder); nothing of them is stored here. The harness swaps in the
scenario's data and scripts, and a clock that advances only by each call's
scripted latency, as Conclave's virtual clock does:

- `search_sources` and `read_source` are the reference's own, over the
  scenario's results and pages. `extract_notes_from_page` (hard-coded to
  two pages in the reference) returns the scenario page's notes with the
  provenance the reference gives them. `verify_notes` is the reference's,
  plus the issues the scenario scripts for a note (after the structural
  ones). A tool call scripted to fail returns an error status (the
  reference then stops with `tool_invalid_output:<tool>`; for
  `extract_notes`, which the reference does not unwrap, the harness stops
  the same way).
- The planner and the synthesis answer from the scenario's script: a
  `$fault` timeout stops with `llm_timeout`, empty output reads as `{}`,
  text is parsed as JSON (`{"invalid": true, "raw": text}` when it is not),
  a list as the plan is its steps, and an output that is not an object
  reads as `{}`. Without a script, the reference's `propose_research_plan`
  plans, and its `synthesize_from_notes` answers with the opening and
  closing Conclave's sim writes around the same claims.
- A flag that is off takes its domains out of the execution allowlist.

It also writes payments_incident_reference.json beside it: the result the
reference's own example run returns (without its run_id and elapsed_ms),
which `conclave run scenarios/payments_incident_research.json --headless`
must equal.

    python3 tests/conformance/research_cases.py ../shared/seeds [count] [out.jsonl]
"""
import copy, json, os, random, re, sys, tempfile, types

REFERENCE = "004_8c87820ad6d0a8a4.txt"
OPENING = "Summary from the notes: "
CLOSING = " Figures and estimates may change as the sources update."
REF_OPENING = "Research brief: "
REF_CLOSING = " Timeline values are estimates and may change."
ACTIONS = ["search_sources", "dedupe_urls", "read_extract_notes", "verify_notes", "synthesize_answer"]


def load_reference(seeds):
    text = open(os.path.join(seeds, REFERENCE), encoding="utf-8").read()
    starts = list(re.finditer(r"\nPYTHON\n", text))
    folder = tempfile.mkdtemp()
    for i, m in enumerate(starts):
        title_at = text[:m.start()].rstrip("\n").rfind("\n") + 1
        title = text[title_at:m.start()].split()[0]
        if i + 1 < len(starts):
            end = text[:starts[i + 1].start()].rstrip("\n").rfind("\n") + 1
        else:
            end = text.index("Що тут найважливіше", m.end())
        name = "main_ref.py" if title == "main.py" else title
        open(os.path.join(folder, name), "w", encoding="utf-8").write(text[m.end():end])
    sys.path.insert(0, folder)
    import tools, agent, gateway, context, main_ref  # noqa: F401
    global BASE
    BASE = reference_base()


def run_reference(scn, launch_flags):
    import tools, agent, gateway, main_ref
    state = {"ms": 0, "calls": {}}
    src = scn["sources"]
    prov = scn["provider"]
    behaviour = src.get("tools", {})

    def latency(tool):
        n = state["calls"].get(tool, 0) + 1
        state["calls"][tool] = n
        lat = behaviour.get(tool, {}).get("latency_ms", 0)
        if isinstance(lat, list):
            lat = lat[min(n - 1, len(lat) - 1)]
        state["ms"] += lat
        return n in behaviour.get(tool, {}).get("fail", [])

    def model_output(key):
        state["ms"] += prov.get("latency_ms", 0)
        out = copy.deepcopy(prov[key])
        if isinstance(out, list):  # one output per call; the first is used
            out = out[0]
        if isinstance(out, dict) and "$fault" in out:
            if out["$fault"] == "timeout":
                raise gateway.StopRun("llm_timeout")
            out = ""
        if isinstance(out, str):
            if not out:
                out = {}
            else:
                try:
                    out = json.loads(out)
                except json.JSONDecodeError:
                    out = {"invalid": True, "raw": out}
        return out

    tools.RAW_SEARCH_RESULTS = copy.deepcopy(src["search_results"])
    tools.PAGES = {url: {"title": p["title"], "published_at": p["published_at"], "body": p.get("body", "")}
                   for url, p in src.get("pages", {}).items()}

    def search_sources(*, query, k):
        if latency("search_sources"):
            return {"status": "error", "error": "failed"}
        return tools.search_sources(query=query, k=k)

    def read_source(*, url):
        if latency("read_source"):
            return {"status": "error", "error": "failed"}
        return tools.read_source(url=url)

    def extract_notes_from_page(*, url, page):
        if latency("extract_notes"):
            raise gateway.StopRun("tool_invalid_output:extract_notes")
        normalized = tools.normalize_url(url)
        spec = src.get("pages", {}).get(normalized, {})
        return [{"claim": n["claim"], "quote": n["quote"], "url": normalized,
                 "title": page["title"], "published_at": page["published_at"]}
                for n in spec.get("notes", [])]

    def verify_notes(*, notes):
        if latency("verify_notes"):
            return {"status": "error", "error": "failed"}
        out = tools.verify_notes(notes=notes)
        issues = out["data"]["issues"]
        for note in notes:
            spec = src.get("pages", {}).get(note.get("url"), {})
            for n in spec.get("notes", []):
                if n["claim"] == note.get("claim") and n["quote"] == note.get("quote"):
                    issues.extend(n.get("issues", []))
                    break
        out["data"]["ok"] = not issues
        return out

    def propose_research_plan(*, goal, request):
        if "plan" not in prov:
            state["ms"] += prov.get("latency_ms", 0)
            return agent.propose_research_plan(goal=goal, request=request)
        out = prov["plan"]
        if isinstance(out, list):
            state["ms"] += prov.get("latency_ms", 0)
            return {"steps": copy.deepcopy(out)}
        out = model_output("plan")
        if isinstance(out, list):
            return {"steps": out}
        return out if isinstance(out, dict) else {}

    def synthesize_from_notes(*, goal, notes):
        if "synthesis" not in prov:
            state["ms"] += prov.get("latency_ms", 0)
            out = agent.synthesize_from_notes(goal=goal, notes=notes)
            answer = out["answer"]
            if answer:
                assert answer.startswith(REF_OPENING) and answer.endswith(REF_CLOSING)
                out["answer"] = OPENING + answer[len(REF_OPENING):-len(REF_CLOSING)] + CLOSING
            return out
        out = model_output("synthesis")
        return out if isinstance(out, dict) else {}

    flags = scn.get("flags", {})
    on = {name: flag.get("default", False) for name, flag in flags.items()}
    on.update(launch_flags)
    gated = {d for name, flag in flags.items() if not on[name] for d in flag.get("domains", [])}

    class FlaggedGateway(gateway.ResearchGateway):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.allowed_domains_execution -= gated

    main_ref.search_sources, main_ref.read_source = search_sources, read_source
    main_ref.extract_notes_from_page, main_ref.verify_notes = extract_notes_from_page, verify_notes
    main_ref.propose_research_plan, main_ref.synthesize_from_notes = propose_research_plan, synthesize_from_notes
    main_ref.ResearchGateway = FlaggedGateway
    main_ref.time = types.SimpleNamespace(monotonic=lambda: state["ms"] / 1000)
    budget = scn.get("budget", {})
    main_ref.DEFAULT_BUDGET = gateway.Budget(max_seconds=budget.get("max_seconds", 25),
                                             max_steps=budget.get("max_steps", 8))
    result = main_ref.run_research_agent(goal=scn["goal"], request=scn["context"])
    result.pop("run_id")
    return result


# --- random scenarios -------------------------------------------------------

HOSTS_POLICY = ["official-status.example.com", "vendor.example.com", "regulator.example.org"]
HOSTS_NEW = ["status.acme.example", "docs.acme.example", "news.example.net", "blog.example.io"]


def url_variants(r, url):
    """Forms of `url` that normalise to it (mostly) and a few that do not."""
    scheme, rest = url.split("://", 1)
    host, _, path = rest.partition("/")
    path = "/" + path
    return r.choice([
        url, url + "#latest", url + "?ref=search", url + "/", url + "/?utm=1#x",
        f"{scheme}://{host.upper()}{path}", f"HTTPS://{host}{path}", f"{host}{path}",
        f"//{host}{path}", f"  {url}  ", url + ";jsessionid=1", f"http://{host}{path}",
        f"{scheme}://{host}{path}//", f"{scheme}://{host}", f"{host}:443{path}",
        f"{scheme}://{host}:443{path}", f"\t{url}\n", f"\x00\x05{url}", f"1{url}",
        f"ftp://{host}{path};type=i", f"mailto:{host}", f"{scheme}://user:PW@{host.upper()}{path}",
        f"{scheme}:{path}", f"{scheme}://{host}{path}?a=1;b#c;d",
    ])


BASE = None


def reference_base():
    import tools
    pages = {}
    for url, p in tools.PAGES.items():
        page = {"title": p["title"], "published_at": p["published_at"], "body": p["body"]}
        notes = [{"claim": n["claim"], "quote": n["quote"]}
                 for n in tools.extract_notes_from_page(url=url, page=p)]
        if notes:
            page["notes"] = notes
        pages[url] = page
    return copy.deepcopy(tools.RAW_SEARCH_RESULTS), pages


def new_page(r, i, host):
    path = f"/{r.choice(['kb', 'status', 'posts'])}/item-{i}"
    notes = []
    for j in range(r.choice([0, 1, 1, 2, 3])):
        claim = r.choice([f"Claim {i}.{j} about the incident.", f"  SLA fact {i}.{j}  ", "Uptime is 99.9%."])
        quote = r.choice([f"Quoted passage number {i}.{j} from the page body.",
                          "Exactly twenty chars", "   short quote     ", "Another sufficiently long quote."])
        note = {"claim": claim, "quote": quote}
        if r.random() < 0.08:
            note["issues"] = r.sample(["stale_source", "quote_mismatch", "date_missing"], r.randint(1, 2))
        notes.append(note)
    page = {"title": f"Page {i}", "published_at": f"2026-0{r.randint(1, 3)}-1{r.randint(0, 9)}", "body": "Body."}
    if notes:
        page["notes"] = notes
    return f"https://{host}{path}", page


def hint_value(r, default):
    return r.choice([default, default, r.randint(-2, 25), str(r.randint(0, 12)), f" {r.randint(1, 9)} ",
                     r.choice([True, False]), r.random() * 10, None, "many", [3], "1_0", "٣", "+4", "3.0"])


def domain_list(r, hosts):
    items = [h for h in hosts if r.random() < 0.7]
    if r.random() < 0.2:
        items = [h.upper() if r.random() < 0.5 else f" {h} " for h in items]
    if r.random() < 0.1:
        items += [7, None, "", "  "]
    return r.choice([items, items, items, "vendor.example.com", None])


def plan_script(r, question):
    steps = [{"id": f"r{i + 1}", "action": a, "args": {}} for i, a in enumerate(ACTIONS)]
    steps[0]["args"]["query"] = question
    m = r.randrange(20)
    if m == 0: return {"$fault": r.choice(["timeout", "empty"])}
    if m == 1: return r.choice(["not json", "", "[]", json.dumps({"steps": steps}), json.dumps(steps), "{}"])
    if m == 2: return r.choice([{"steps": []}, {"steps": "r1"}, {}, {"plan": steps}, 5, [1]])
    if m == 3: return {"steps": steps + [copy.deepcopy(steps[4])] * r.randint(1, 4)}
    if m == 4: r.shuffle(steps)
    if m == 5: steps.pop(r.randrange(5))
    if m == 6: steps[r.randrange(5)]["id"] = r.choice(["", "   ", 3, None, " r9 "])
    if m == 7: steps[r.randrange(5)]["action"] = r.choice(["", None, " search_sources", "SEARCH"])
    if m == 8: steps[r.randrange(5)]["args"] = r.choice([[], "x", None])
    if m == 9: steps[0]["args"]["query"] = r.choice(["", "   ", None, 42, ["q"], " padded "])
    if m == 10: del steps[0]["args"]["query"]
    if m == 11: steps[r.randrange(5)] = r.choice(["step", 3, None])
    if m == 12: steps[r.randrange(5)].pop(r.choice(["id", "action", "args"]))
    if m == 13: return steps
    return {"steps": steps}


def synthesis_script(r, notes_hint):
    m = r.randrange(14)
    ids = [f"n{i + 1}" for i in range(notes_hint)]
    good = {"answer": "The incident is P1; the SLA is 99.95%.", "citations": ids[:2] or ["n1"]}
    if m == 0: return {"$fault": r.choice(["timeout", "empty"])}
    if m == 1: return {"answer": "x" * r.choice([119, 120, 121, 849, 850, 851, 2001]), "citations": ["n1"]}
    if m == 2: return {"answer": r.choice(["", "   ", None]), "citations": ["n1"]}
    if m == 3: return {"answer": "A.", "citations": r.choice([[], [""], ["  "], "", {}])}
    if m == 4: return {"answer": "A.", "citations": r.choice([["n9"], ["n1", "n7"], ["N1"], [1], "n1", {"n1": 1}])}
    if m == 5: return {"answer": "A.", "citations": [" n1 ", "n1"]}
    if m == 6: return r.choice(["not json", "", json.dumps(good), "[1]", "{\"answer\": 5, \"citations\": [\"n1\"]}"])
    if m == 7: return {"citations": ["n1"]}
    if m == 8: return r.choice([[good, "ignored"], [{"$fault": "timeout"}], 7, True])
    if m == 9: return {"answer": "  Ünïcödé ✓ answer  " + "é" * r.choice([0, 100, 2000]), "citations": ["n1"]}
    return good


def scenario(seed):
    r = random.Random(seed)
    results, pages = copy.deepcopy(BASE)
    import tools
    for i in range(r.choice([0, 0, 1, 2, 4, 8])):
        url, page = new_page(r, i, r.choice(HOSTS_NEW + HOSTS_POLICY))
        if r.random() < 0.85:
            pages[url] = page
        results.append({"url": url, "title": page["title"], "snippet": "New.", "score": round(r.random(), 2)})
    for _ in range(r.choice([0, 1, 2, 4])):
        base = r.choice(results)["url"].strip()
        if "://" in base:
            results.append({"url": url_variants(r, base), "title": "Variant"})
    if r.random() < 0.15:
        victim = r.choice(list(pages))
        del pages[victim]
    if r.random() < 0.4:
        r.shuffle(results)
    if r.random() < 0.03:
        results = []
    if r.random() < 0.1:
        for page in pages.values():
            for note in page.get("notes", []):
                if r.random() < 0.5:
                    note["issues"] = [r.choice(["stale_source", "unsupported_claim"])]
    if r.random() < 0.1:
        for page in pages.values():
            for note in page.get("notes", []):
                if r.random() < 0.3:
                    note[r.choice(["claim", "quote"])] = r.choice(["", "  ", "too short"])
    # Only keys the reference can look up (normalisation is not always idempotent).
    pages = {k: v for k, v in pages.items() if tools.normalize_url(k) == k}

    question = ("What is the current US payments incident status and what enterprise SLA "
                "commitments apply for uptime and P1 response time?")
    hints = {}
    if r.random() < 0.8: hints["allowed_domains_policy"] = domain_list(r, HOSTS_POLICY + HOSTS_NEW)
    if r.random() < 0.8: hints["allowed_domains_execution"] = domain_list(r, HOSTS_POLICY + HOSTS_NEW)
    for key, default in [("max_urls", 6), ("max_read_pages", 3), ("max_notes", 6), ("max_answer_chars", 850)]:
        if r.random() < 0.7:
            hints[key] = hint_value(r, default)
    context = {"request": {"report_date": "2026-03-07", "region": "US", "question": question}}
    if r.random() < 0.95:
        context["policy_hints"] = hints if r.random() < 0.97 else "not an object"

    provider = {"kind": "sim", "latency_ms": r.choice([0, 100, 700, 3000])}
    if r.random() < 0.5:
        provider["plan"] = plan_script(r, question)
    if r.random() < 0.6:
        provider["synthesis"] = synthesis_script(r, r.randint(0, 4))
    behaviour = {}
    for tool in ["search_sources", "read_source", "extract_notes", "verify_notes"]:
        if r.random() < 0.5:
            spec = {"latency_ms": r.choice([0, 200, 1500, 5000, [300, 2500, 100]])}
            if r.random() < 0.06:
                spec["fail"] = [r.randint(1, 3)]
            behaviour[tool] = spec
    sources = {"search_results": results, "pages": pages}
    if behaviour:
        sources["tools"] = behaviour

    document = {"name": f"case_{seed}", "pattern": "research", "goal": "Research and cite.",
                "context": context, "sources": sources, "provider": provider}
    budget = {}
    if r.random() < 0.3: budget["max_seconds"] = r.choice([0, 1, 3, 6.5, 10, 25])
    if r.random() < 0.15: budget["max_steps"] = r.randint(3, 9)
    if budget: document["budget"] = budget

    launch = {}
    policy = hints.get("allowed_domains_policy")
    declared = ({str(d).strip().lower() for d in policy if isinstance(d, str) and d.strip()}
                if isinstance(policy, list) and isinstance(context.get("policy_hints"), dict)
                else set(HOSTS_POLICY))
    if declared and r.random() < 0.3:
        flags = {}
        for i in range(r.randint(1, 2)):
            flags[f"reads{i}"] = {"default": r.random() < 0.5, "domains": r.sample(sorted(declared), 1)}
            if r.random() < 0.4:
                launch[f"reads{i}"] = r.random() < 0.5
        document["flags"] = flags
    return document, launch


def write_example(path):
    import main_ref
    result = main_ref.run_research_agent(goal=main_ref.GOAL, request=main_ref.REQUEST)
    result.pop("run_id")
    for entry in result["trace"]:
        entry.pop("elapsed_ms")
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")


def main():
    seeds = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "research.jsonl")
    load_reference(seeds)
    write_example(os.path.join(here, "payments_incident_reference.json"))
    reasons = {}
    with open(out, "w", encoding="utf-8") as f:
        for seed in range(count):
            document, launch = scenario(seed)
            expected = run_reference(copy.deepcopy(document), launch)
            reasons[expected["stop_reason"]] = reasons.get(expected["stop_reason"], 0) + 1
            f.write(json.dumps({"flags": launch, "scenario": document, "expected": expected},
                               ensure_ascii=False) + "\n")
    print(f"wrote {count} cases to {out}")
    for reason, n in sorted(reasons.items(), key=lambda x: -x[1]):
        print(f"  {n:5} {reason}")


if __name__ == "__main__":
    main()
