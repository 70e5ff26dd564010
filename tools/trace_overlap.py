#!/usr/bin/env python3
"""Does span A take longer when span B starts inside it? Reads a g16 trace file (G16_TRACE_FILE).

For each span named A (any thread), splits the A spans into those during which some span named B
began (any thread) and the others, and prints both groups' durations. Then a timeline of the A and
B spans in start order (seconds from the trace's first span, duration, name, thread).

Made to check whether a step waits for work another thread enqueued meanwhile, e.g. the H step for
the next circuit's prefetch (bench/RESULTS.md, twenty-first session):
    tools/trace_overlap.py trace27.json ntt.h.gpu gpu.prefetch_w gpu.prefetch_abc

usage: tools/trace_overlap.py TRACE.json A B [B ...] | --selftest
"""
import json
import sys


def classify(doc, a_name, b_names):
    """(durations in ms of the A spans with a B span starting inside, of the others, the A and B
    spans in start order, the first span's start, thread names)"""
    events = doc.get("traceEvents", [])
    threads = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    t0 = min((e["ts"] for e in spans), default=0)
    b_starts = [e["ts"] for e in spans if e["name"] in b_names]
    hit, miss = [], []
    for a in (e for e in spans if e["name"] == a_name):
        inside = any(a["ts"] <= t <= a["ts"] + a["dur"] for t in b_starts)
        (hit if inside else miss).append(a["dur"] / 1000.0)
    rows = sorted((e for e in spans if e["name"] == a_name or e["name"] in b_names), key=lambda e: e["ts"])
    return hit, miss, rows, t0, threads


def selftest():
    """A synthetic trace: three A spans, B starting inside the first and the third, one B between."""
    def x(name, ts, dur, tid):
        return {"name": name, "ph": "X", "ts": ts, "dur": dur, "pid": 1, "tid": tid, "args": {}}
    doc = {"traceEvents": [
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "main"}},
        x("A", 1000, 100000, 1), x("A", 200000, 80000, 1), x("A", 400000, 120000, 1),
        x("B", 50000, 10, 2), x("B2", 150000, 10, 2), x("B", 450000, 10, 2), x("C", 210000, 10, 2)]}
    hit, miss, rows, t0, threads = classify(doc, "A", {"B", "B2"})
    assert hit == [100.0, 120.0] and miss == [80.0], (hit, miss)
    assert [e["name"] for e in rows] == ["A", "B", "B2", "A", "A", "B"] and t0 == 1000 and threads == {1: "main"}
    hit, miss, _, _, _ = classify(doc, "A", {"C"})
    assert hit == [80.0] and miss == [100.0, 120.0], (hit, miss)
    print("trace_overlap: self-test passed")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--selftest":
        return selftest()
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        doc = json.load(f)
    a_name, b_names = argv[2], set(argv[3:])
    hit, miss, rows, t0, threads = classify(doc, a_name, b_names)
    if not rows:
        print(f"no spans named {a_name} or {', '.join(sorted(b_names))} in the trace", file=sys.stderr)
        return 1

    def group(label, d):
        if not d:
            return f"{label}: none"
        return f"{label}: {len(d)}, mean {sum(d) / len(d):.1f} ms ({', '.join(f'{x:.1f}' for x in d)})"

    print(f"{a_name}: {len(hit) + len(miss)} spans; {len(rows) - len(hit) - len(miss)} spans of "
          f"{', '.join(sorted(b_names))}")
    print("  " + group("with one of them starting inside", hit))
    print("  " + group("without", miss))
    print("timeline (s, ms, span, thread):")
    for e in rows:
        thread = threads.get(e["tid"], e["tid"])
        print(f"  {(e['ts'] - t0) / 1e6:9.3f} {e['dur'] / 1000.0:9.1f}  {e['name']:<20} {thread}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
