"""The program benches/launch.rs starts, directly and through a launch:
its first line says when it started (the monotonic clock, in ns); then,
given N > 0, it sends N spans of one trace (model calls under an agent,
the agent last) as OTLP/HTTP JSON to the endpoint its environment
names, 100 to a request, and prints a line per span. Standard library
only, so that its start is Python's and not a framework's imports."""

import time

STARTED = time.monotonic_ns()
print(f"started {STARTED}", flush=True)

import json  # noqa: E402
import os  # noqa: E402
import secrets  # noqa: E402
import sys  # noqa: E402
import urllib.request  # noqa: E402


def span(trace, span_id, name, attrs, parent=None):
    now = time.time_ns()
    out = {
        "traceId": trace,
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": str(now - 1_000_000),
        "endTimeUnixNano": str(now),
        "attributes": [{"key": k, "value": v} for k, v in attrs.items()],
    }
    if parent:
        out["parentSpanId"] = parent
    return out


def send(endpoint, spans):
    service = os.environ.get("OTEL_SERVICE_NAME", "launch_bench")
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
    body = json.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [
        {"scope": {"name": "launch_bench"}, "spans": spans}]}]})
    request = urllib.request.Request(endpoint, data=body.encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()


def main(count):
    endpoint = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if count == 0 or not endpoint:
        return
    trace, root = secrets.token_hex(16), secrets.token_hex(8)
    batch = []
    for n in range(count - 1):
        batch.append(span(trace, secrets.token_hex(8), "chat gpt-4o-mini", {
            "gen_ai.operation.name": {"stringValue": "chat"},
            "gen_ai.request.model": {"stringValue": "gpt-4o-mini"},
            "gen_ai.usage.input_tokens": {"intValue": "100"},
            "gen_ai.usage.output_tokens": {"intValue": "20"},
        }, parent=root))
        print(f"call {n} answered", flush=True)
        if len(batch) == 100:
            send(endpoint, batch)
            batch = []
    batch.append(span(trace, root, "invoke_agent bench", {
        "gen_ai.operation.name": {"stringValue": "invoke_agent"},
        "gen_ai.agent.name": {"stringValue": "bench"},
    }))
    send(endpoint, batch)
    print("done", flush=True)


main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
