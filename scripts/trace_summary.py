#!/usr/bin/env python3
"""Summarizes a timeline from tools/trace (cupti_trace.c): the busiest stretches of GPU work
(runs of records with no gap over --gap ms), and for one of them the time per stream and kernel
kind, each stream's idle time inside it, and the time any stream was busy.

    python3 scripts/trace_summary.py trace.csv [--segment -1] [--gap 2] [--list 0]

--segment picks among the stretches of more than --min records (default: the last, which in a
portsolve-bench run is the last timed repetition of the last method); --list N prints its first
N records in time order (stream, start and length in us, blocks, kind). --bins MS prints the
stretch as a timeline: per MS milliseconds, how long some kernel ran and how long copies from
and to the host ran, with where the first kernel and each direction's copies start and end (for
host-array calls: how far the transfers hide behind the work), how long kernels of two or more
streams ran at once (a factorization's lanes overlapping) and each direction's bulk rate. Traces
of several ranks share one clock, so their timelines line up by --segment.

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
    ap.add_argument("--bins", type=float, default=0, help="timeline bin in ms (0: none)")
    args = ap.parse_args()

    recs = []
    with open(args.trace) as f:
        for row in csv.reader(f):
            if len(row) >= 7 and row[0] != "R":  # R: host API calls (TRACE_API=1)
                # copies (M) keep CUPTI's copy kind: 1 host to device, 2 device to host
                kind = int(row[5]) if row[0] == "M" else 0
                recs.append((int(row[1]), int(row[2]), int(row[3]), row[4], ",".join(row[6:]),
                             row[0], kind))
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
    for start, stop, stream, _, name, *_ in seg:
        key = (stream, kind_of(name))
        total[key] += stop - start
        count[key] += 1
        busy[stream] += stop - start
    print(f"{'stream':>6} {'kind':<28} {'calls':>6} {'ms':>8} {'avg us':>8}")
    for key, ns in total.most_common():
        print(f"{key[0]:>6} {key[1]:<28} {count[key]:>6} {ns / 1e6:>8.2f} {ns / count[key] / 1e3:>8.1f}")
    if args.in_order:
        charged, last = collections.Counter(), t0
        for start, stop, _, _, name, *_ in seg:
            charged[kind_of(name)] += stop - last
            last = stop
        print(f"in order, from the previous end: {'kind':<28} {'ms':>8}")
        for kind, ns in charged.most_common():
            print(f"{'':>32} {kind:<28} {ns / 1e6:>8.2f}")
    for stream in sorted(busy):
        idle, last = 0, t0
        for start, stop, s, *_ in seg:
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
    for start, stop, stream, blocks, name, *_ in seg[: args.list]:
        print(f"{stream:>6} {(start - t0) / 1e3:>9.1f} {(stop - start) / 1e3:>8.1f} {blocks:>6} "
              f"{kind_of(name)}")
    if args.bins > 0:
        timeline(seg, t0, t1, max(1, int(args.bins * 1e6)))


def merged(spans):
    """The union of (start, stop) spans, as sorted disjoint spans."""
    out = []
    for start, stop in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], stop)
        else:
            out.append([start, stop])
    return out


def at_once(spans_by_stream):
    """The time two or more streams' spans run at once (each stream's spans merged first)."""
    events = sorted((t, d) for spans in spans_by_stream for start, stop in merged(spans)
                    for t, d in ((start, 1), (stop, -1)))
    total, active, last = 0, 0, None
    for t, d in events:
        if active >= 2:
            total += t - last
        active += d
        last = t
    return total


def timeline(seg, t0, t1, width):
    """Per bin of width ns: ms of some kernel running, of host-to-device and of device-to-host
    copies (each direction's copies merged, as they share one engine). Times are taken from t0
    in integers: nanoseconds since the epoch do not fit a float's mantissa. The first lines say
    when each group starts and ends; for the kernels, how long kernels of two or more streams
    ran at once (a factorization's lanes overlapping); for the copies of a megabyte or more
    (the bulk transfers, not the few bytes fetched between them) their bytes, span and rate."""
    groups = {
        "kernels": [(r[0] - t0, r[1] - t0) for r in seg if r[5] == "K"],
        "to device": [(r[0] - t0, r[1] - t0) for r in seg if r[5] == "M" and r[6] == 1],
        "to host": [(r[0] - t0, r[1] - t0) for r in seg if r[5] == "M" and r[6] == 2],
    }
    streams = collections.defaultdict(list)
    for r in seg:
        if r[5] == "K":
            streams[r[2]].append((r[0], r[1]))
    bulk = {1: [], 2: []}  # copies of a megabyte or more: (start, stop, bytes)
    for r in seg:
        if r[5] == "M" and r[6] in bulk and int(r[3]) >= 1 << 20:
            bulk[r[6]].append((r[0] - t0, r[1] - t0, int(r[3])))
    t1 -= t0
    nbins = t1 // width + 1
    busy = {name: [0] * nbins for name in groups}
    for name, spans in groups.items():
        for start, stop in merged(spans):
            while start < stop:
                b = start // width
                edge = min(stop, (b + 1) * width)
                busy[name][b] += edge - start
                start = edge
        if spans:
            first, last = min(s for s, _ in spans), max(e for _, e in spans)
            line = f"{name}: {first / 1e6:.1f} to {last / 1e6:.1f} ms"
            if name == "kernels":
                line += f", two or more streams at once {at_once(streams.values()) / 1e6:.1f} ms"
            else:
                big = bulk[1 if name == "to device" else 2]
                if big:
                    b0, b1 = min(c[0] for c in big), max(c[1] for c in big)
                    gb = sum(c[2] for c in big) / 1e9
                    line += (f"; copies of 1 MB or more {gb:.2f} GB, {b0 / 1e6:.1f} to "
                             f"{b1 / 1e6:.1f} ms, {gb / max(b1 - b0, 1) * 1e9:.1f} GB/s")
            print(line)
    print(f"{'from ms':>8} " + " ".join(f"{name:>10}" for name in groups))
    for b in range(nbins):
        print(f"{b * width / 1e6:>8.0f} " +
              " ".join(f"{busy[name][b] / 1e6:>10.1f}" for name in groups))


if __name__ == "__main__":
    main()
