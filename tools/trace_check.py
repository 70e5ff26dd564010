#!/usr/bin/env python3
"""Checks a g16 trace file (G16_TRACE_FILE / g16__trace_write_json) and prints a summary.

Checks: valid JSON; {"traceEvents": [...]}; every "X" event has a string name, numeric ts >= 0
and dur >= 0, integer pid/tid, an args object; every thread with events has a thread_name
metadata event; on each thread the spans nest (no partial overlap), as Perfetto and
chrome://tracing expect. Exit status 0 when all hold, 1 otherwise.

usage: tools/trace_check.py TRACE.json [--top N]
"""
import json
import sys
from collections import defaultdict


def fail(msg):
    print(f"trace_check: {msg}", file=sys.stderr)
    sys.exit(1)


def check(path, top):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        fail(f"{path}: not valid JSON: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("top level must be an object with a traceEvents array")
    spans = defaultdict(list)
    names = {}
    for i, ev in enumerate(doc["traceEvents"]):
        if not isinstance(ev, dict) or "ph" not in ev:
            fail(f"event {i}: not an object with ph")
        if ev["ph"] == "M":
            if ev.get("name") == "thread_name":
                names[(ev.get("pid"), ev.get("tid"))] = ev.get("args", {}).get("name")
            continue
        if ev["ph"] != "X":
            fail(f"event {i}: unexpected ph {ev['ph']!r}")
        for key, typ in (("name", str), ("pid", int), ("tid", int), ("args", dict)):
            if not isinstance(ev.get(key), typ):
                fail(f"event {i}: {key} missing or not {typ.__name__}")
        for key in ("ts", "dur"):
            v = ev.get(key)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
                fail(f"event {i}: {key} must be a number >= 0, got {v!r}")
        spans[(ev["pid"], ev["tid"])].append((ev["ts"], ev["ts"] + ev["dur"], ev["name"], i))
    for thread, evs in spans.items():
        if thread not in names:
            fail(f"thread {thread} has spans but no thread_name metadata")
        evs.sort(key=lambda e: (e[0], -e[1]))
        stack = []
        for t0, t1, name, i in evs:
            while stack and stack[-1][1] <= t0:
                stack.pop()
            # 1 ns of slack: timestamps are printed in microseconds with 3 decimals
            if stack and t1 > stack[-1][1] + 1e-3:
                fail(f"event {i} ({name}) overlaps {stack[-1][2]} on thread {names[thread]} without nesting")
            stack.append((t0, t1, name))
    total = defaultdict(float)
    count = defaultdict(int)
    for evs in spans.values():
        for t0, t1, name, _ in evs:
            total[name] += t1 - t0
            count[name] += 1
    nev = sum(len(v) for v in spans.values())
    print(f"{path}: OK, {nev} spans on {len(spans)} thread(s)")
    for name, us in sorted(total.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {us / 1e3:12.3f} ms  {count[name]:8d}  {name}")


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if args else 2)
    top = 10
    if "--top" in args:
        k = args.index("--top")
        top = int(args[k + 1])
        del args[k:k + 2]
    for p in args:
        check(p, top)


if __name__ == "__main__":
    main()
