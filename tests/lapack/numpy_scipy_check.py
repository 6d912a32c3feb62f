"""NumPy and SciPy through libportsolve_lapack (run under LD_PRELOAD by run_numpy_scipy.sh).

Each call is judged by LAPACK's residual test, ||b - A x||_1 / (||A||_1 ||x||_1 n eps) < 30 (for
an inverse, ||I - A X||_1 / (||A||_1 ||X||_1 n eps); for a Cholesky factor, ||A - L L^T||_1 /
(||A||_1 n eps)), on random and ill-conditioned matrices in both precisions. The same test holds
without the preload, so the answers agree with LAPACK's to the accuracy LAPACK promises.
(NumPy's linalg computes float32 input in float64, so its calls reach the d routines; SciPy's
reach the s routines.)
"""
import sys

import numpy as np
import scipy.linalg as sla

THRESHOLD = 30.0
rng = np.random.default_rng(20261128)
failures = []


def eps(dtype):
    return np.finfo(dtype).eps / 2


def ratio_solve(a, x, b):
    n = a.shape[0]
    r = b - a.astype(np.float64) @ x.astype(np.float64)
    r = r.reshape(n, -1)
    xs = x.astype(np.float64).reshape(n, -1)
    an = np.linalg.norm(a.astype(np.float64), 1)
    worst = 0.0
    for j in range(xs.shape[1]):
        den = an * np.abs(xs[:, j]).sum() * n * eps(a.dtype)
        worst = max(worst, np.abs(r[:, j]).sum() / den if den > 0 else 0.0)
    return worst


def check(name, value):
    ok = value < THRESHOLD
    print(f"{name}: ratio {value:.3g} {'ok' if ok else 'FAILED'}")
    if not ok:
        failures.append(name)


def matrix(n, cond, dtype, spd=False):
    """Singular values spread geometrically from 1 to 1/cond, random orthogonal factors."""
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    s = np.geomspace(1.0, 1.0 / cond, n)
    if spd:
        return ((u * s) @ u.T).astype(dtype)
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return ((u * s) @ v.T).astype(dtype)


for dtype in (np.float64, np.float32):
    conds = (10.0, 1e6) if dtype == np.float64 else (10.0, 1e3)
    for n in (1, 3, 67, 300):
        for cond in conds:
            tag = f"{np.dtype(dtype).name} n={n} cond={cond:g}"
            a = matrix(n, cond, dtype)
            b = rng.standard_normal((n, 3)).astype(dtype)
            x = np.linalg.solve(a, b)
            check(f"numpy.linalg.solve {tag}", ratio_solve(a, x, b))
            ainv = np.linalg.inv(a)
            r = np.eye(n) - a.astype(np.float64) @ ainv.astype(np.float64)
            check(f"numpy.linalg.inv {tag}",
                  np.linalg.norm(r, 1) / (np.linalg.norm(a.astype(np.float64), 1) *
                                          np.linalg.norm(ainv.astype(np.float64), 1) * n * eps(dtype)))
            ainv = sla.inv(a)
            r = np.eye(n) - a.astype(np.float64) @ ainv.astype(np.float64)
            check(f"scipy.linalg.inv {tag}",
                  np.linalg.norm(r, 1) / (np.linalg.norm(a.astype(np.float64), 1) *
                                          np.linalg.norm(ainv.astype(np.float64), 1) * n * eps(dtype)))
            lu, piv = sla.lu_factor(a)
            x = sla.lu_solve((lu, piv), b)
            check(f"scipy.linalg.lu_factor/lu_solve {tag}", ratio_solve(a, x, b))
            x = sla.lu_solve((lu, piv), b, trans=1)
            check(f"scipy.linalg.lu_solve trans {tag}", ratio_solve(a.T.copy(), x, b))
            x = sla.solve(a, b)
            check(f"scipy.linalg.solve {tag}", ratio_solve(a, x, b))
            s = matrix(n, cond, dtype, spd=True)
            l = np.linalg.cholesky(s)
            r = s.astype(np.float64) - l.astype(np.float64) @ l.astype(np.float64).T
            check(f"numpy.linalg.cholesky {tag}",
                  np.linalg.norm(r, 1) / (np.linalg.norm(s.astype(np.float64), 1) * n * eps(dtype)))
            for lower in (False, True):
                c = sla.cho_factor(s, lower=lower)
                x = sla.cho_solve(c, b)
                check(f"scipy.linalg.cho_factor/cho_solve lower={lower} {tag}",
                      ratio_solve(s, x, b))
            x = sla.solve(s, b, assume_a="pos")
            check(f"scipy.linalg.solve assume_a=pos {tag}", ratio_solve(s, x, b))

# LAPACK's answers on singular and non-SPD input: the same exceptions as without portsolve
try:
    np.linalg.solve(np.zeros((300, 300)), np.ones(300))
    failures.append("numpy.linalg.solve singular: no LinAlgError")
except np.linalg.LinAlgError:
    print("numpy.linalg.solve singular: LinAlgError ok")
try:
    np.linalg.cholesky(-np.eye(300))
    failures.append("numpy.linalg.cholesky not SPD: no LinAlgError")
except np.linalg.LinAlgError:
    print("numpy.linalg.cholesky not SPD: LinAlgError ok")

# NaN input: portsolve refuses it and hands the call to the host LAPACK, which propagates NaN as
# it would without the preload (run_numpy_scipy.sh checks the log says so)
with np.errstate(all="ignore"):
    bad = matrix(300, 10.0, np.float64)
    bad[7, 7] = np.nan
    try:
        x = np.linalg.solve(bad, np.ones(300))
        ok = np.isnan(x).any()
    except np.linalg.LinAlgError:
        ok = True
print(f"numpy.linalg.solve with NaN: {'NaN propagated' if ok else 'FAILED'}")
if not ok:
    failures.append("numpy.linalg.solve with NaN: a finite answer")

if failures:
    print("FAILED:", *failures, sep="\n  ")
    sys.exit(1)
print("all NumPy and SciPy checks passed")
