"""Solves one dense system on every backend that works here and times portsolve.solve against
numpy.linalg.solve over a range of orders; plots time against order when matplotlib is there.

    PYTHONPATH=<prefix>/lib/python3/dist-packages python3 examples/python_backends.py \
        [--sizes 256,512,1024] [--plot backends.png]
"""
import argparse
import time

import numpy as np

import portsolve as ps


def best_time(f, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,512,1024,2048")
    parser.add_argument("--plot", help="write the figure to this file (needs matplotlib)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = np.random.default_rng(0)
    times = {"numpy": []}
    for backend in ps.backends():
        with ps.Context(backend) as ctx:
            print(f"{backend}: {ctx.device}")
            times[backend] = []
            for n in sizes:
                a = rng.standard_normal((n, n)) + n * np.eye(n)
                b = rng.standard_normal(n)
                x = ps.solve(a, b)  # also the warm-up
                residual = np.linalg.norm(b - a @ x) / (np.linalg.norm(a, 1) * np.linalg.norm(x))
                assert residual < 1e-13, residual
                times[backend].append(best_time(lambda: ps.solve(a, b)))
    for n in sizes:
        a = rng.standard_normal((n, n)) + n * np.eye(n)
        b = rng.standard_normal(n)
        times["numpy"].append(best_time(lambda: np.linalg.solve(a, b)))
    print("order  " + "  ".join(f"{k:>10}" for k in times))
    for i, n in enumerate(sizes):
        print(f"{n:5d}  " + "  ".join(f"{times[k][i]:10.4f}" for k in times))
    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no plot")
            return
        for k, v in times.items():
            plt.loglog(sizes, v, marker="o", label=k if k == "numpy" else f"portsolve {k}")
        plt.xlabel("order n")
        plt.ylabel("seconds (best of 3), float64, one right-hand side")
        plt.legend()
        plt.savefig(args.plot)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
