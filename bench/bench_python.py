"""The Python package against NumPy, in one run: numpy.linalg.solve on the CPU beside
portsolve.solve (host arrays in and out; above the host crossover through a device matrix, and
the same call forced through the host drivers) and a DeviceMatrix factorization and solve (the
matrix already on the device, as the C API's device level), float64, one right-hand side.

    PYTHONPATH=python PORTSOLVE_LIBRARY=build/libportsolve.so \
        python3 bench/bench_python.py --backend cuda --sizes 4096,16384 [--numpy-repeats 1]
"""
import argparse
import time

import numpy as np

import portsolve as ps
import portsolve.linalg as linalg


def timed(f, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", default=None)
    p.add_argument("--sizes", default="1024,4096")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--numpy-repeats", type=int, default=1)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    with ps.Context(args.backend) as ctx:
        print(f"portsolve {ps.__version__} on {ctx.backend} ({ctx.device}); NumPy {np.__version__}")
        print("    n   numpy.solve   ps.solve  ratio(np/ps)   DeviceMatrix getrf+getrs"
              "   ps.solve by host drivers")
        for n in [int(s) for s in args.sizes.split(",")]:
            a = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)
            b = rng.standard_normal(n)
            x = ps.solve(a, b)  # warm-up (kernels, staging ring)
            err = np.linalg.norm(b - a @ x, 1) / (np.linalg.norm(a, 1) * np.linalg.norm(x, 1))
            assert err < 1e-14, err
            t_ps = timed(lambda: ps.solve(a, b), args.repeats)
            t_np = timed(lambda: np.linalg.solve(a, b), args.numpy_repeats)
            t_dev = float("inf")
            for _ in range(args.repeats):
                d = ps.DeviceMatrix(a)  # the upload is not timed: the device level
                ctx.synchronize()
                t = time.perf_counter()
                d.lu_factor()
                d.lu_solve(b)
                t_dev = min(t_dev, time.perf_counter() - t)
                d.close()
            on_device = linalg._on_device
            linalg._on_device = lambda c, d, m: False
            try:
                ps.solve(a, b)
                t_host = timed(lambda: ps.solve(a, b), args.repeats)
            finally:
                linalg._on_device = on_device
            print(f"{n:6d}  {t_np:11.4f}  {t_ps:9.4f}  {t_np / t_ps:11.1f}   {t_dev:9.4f}"
                  f"   {t_host:9.4f}")


if __name__ == "__main__":
    main()
