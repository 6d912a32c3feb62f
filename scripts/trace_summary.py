#!/usr/bin/env python3
"""Summarizes a timeline from tools/trace (cupti_trace.c): the busiest stretches of GPU work
(runs of records with no gap over --gap ms), and for one of them the time per stream and kernel
kind, each stream's idle time inside it, and the time any stream was busy.

    python3 scripts/trace_summary.py trace.csv [--segment -1] [--gap 2] [--list 0]

--segment picks among the stretches of more than --min records (default: the last, which in a
portsolve-bench run is the last timed repetition of the last method); --list N prints its first
N records in time order (stream, start and length in us, blocks, kind).

--in-order (for the OpenCL backend's cl_profile files, one in-order queue whose CLBlast
calls report only their last kernel) also charges each record the time from the previous
record's end to its own end: what the call cost the queue, its other kernels and any wait for
the host included."""
import argparse
import collections
import csv

KINDS = [("potrf_tall", "potrf_tall"), ("lu_panel", "lu_leaf"), ("wz_panel", "wz_leaf"),
         ("laswp", "laswp"), ("syherk", "syrk (small)"), ("syrk", "syrk"), ("trsm", "trsm"),
         ("trsv", "trsv"), ("gemm", "gemm"), ("stripe", "stripe"), ("copy", "copy"),
         ("memset", "memset")]


def kind_of(name):
    for key, label in KINDS:
        if key in name:
            return label
    return name[:48]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--segment", type=int, default=-1)
    ap.add_argument("--gap", type=float, default=2.0, help="ms without work that ends a stretch")
    ap.add_argument("--min", type=int, default=200, help="records a stretch needs to count")
    ap.add_argument("--list", type=int, default=0)
    ap.add_argument("--in-order", action="store_true")
    args = ap.parse_args()

    recs = []
    with open(args.trace) as f:
        for row in csv.reader(f):
            if len(row) >= 7 and row[0] != "R":  # R: host API calls (TRACE_API=1)
                recs.append((int(row[1]), int(row[2]), int(row[3]), row[4], ",".join(row[6:])))
    if not recs:
        raise SystemExit("no records in " + args.trace)
    recs.sort()
    segments, current, end = [], [recs[0]], recs[0][1]
    for r in recs[1:]:
        if r[0] - end > args.gap * 1e6:
            segments.append(current)
            current = []
        current.append(r)
        end = max(end, r[1])
    segments.append(current)
    big = [s for s in segments if len(s) > args.min]
    print(f"{len(segments)} stretches, {len(big)} with more than {args.min} records")
    if not big:
        return
    seg = big[args.segment]
    t0, t1 = seg[0][0], max(r[1] for r in seg)
    print(f"stretch {args.segment}: {(t1 - t0) / 1e6:.2f} ms, {len(seg)} records")

    total, count, busy = collections.Counter(), collections.Counter(), collections.Counter()
    for start, stop, stream, _, name in seg:
        key = (stream, kind_of(name))
        total[key] += stop - start
        count[key] += 1
        busy[stream] += stop - start
    print(f"{'stream':>6} {'kind':<28} {'calls':>6} {'ms':>8} {'avg us':>8}")
    for key, ns in total.most_common():
        print(f"{key[0]:>6} {key[1]:<28} {count[key]:>6} {ns / 1e6:>8.2f} {ns / count[key] / 1e3:>8.1f}")
    if args.in_order:
        charged, last = collections.Counter(), t0
        for start, stop, _, _, name in seg:
            charged[kind_of(name)] += stop - last
            last = stop
        print(f"in order, from the previous end: {'kind':<28} {'ms':>8}")
        for kind, ns in charged.most_common():
            print(f"{'':>32} {kind:<28} {ns / 1e6:>8.2f}")
    for stream in sorted(busy):
        idle, last = 0, t0
        for start, stop, s, _, _ in seg:
            if s != stream:
                continue
            idle += max(0, start - last)
            last = max(last, stop)
        print(f"stream {stream}: busy {busy[stream] / 1e6:.2f} ms, idle inside the stretch "
              f"{idle / 1e6:.2f} ms")
    union, (cs, ce) = 0, (seg[0][0], seg[0][1])
    for start, stop, *_ in seg[1:]:
        if start > ce:
            union += ce - cs
            cs, ce = start, stop
        else:
            ce = max(ce, stop)
    union += ce - cs
    print(f"some stream busy: {union / 1e6:.2f} ms")
    for start, stop, stream, blocks, name in seg[: args.list]:
        print(f"{stream:>6} {(start - t0) / 1e3:>9.1f} {(stop - start) / 1e3:>8.1f} {blocks:>6} "
              f"{kind_of(name)}")


if __name__ == "__main__":
    main()
