"""The dense iterative solvers, returning (x, info) as scipy.sparse.linalg does: info 0 when
converged, the iterations done (> 0) when the tolerance was not reached, -1 on a breakdown."""
import ctypes

import numpy as np

from . import _arrays as A
from . import _errors
from ._context import current
from ._lib import IterResult, lib

_NAMES = {"jacobi": "jacobi", "gauss_seidel": "gs", "cg": "cg", "bicgstab": "bicgstab",
          "gmres": "gmres"}


class IterationReport:
    """What an iterative solve did: iterations, the final relative residual ||b - A x|| / ||b||
    (recomputed), whether it converged, and the residual after each iteration (history)."""

    def __init__(self, result, history):
        self.iterations = result.iterations
        self.rel_residual = result.rel_residual
        self.converged = bool(result.converged)
        self.history = history[:result.history_length].copy()

    def __repr__(self):
        return (f"IterationReport(iterations={self.iterations}, "
                f"rel_residual={self.rel_residual:.3g}, converged={self.converged})")


def _solve(method, a, b, x0, rtol, tol, maxiter, restart, M, full_output, check_finite,
           context):
    ctx = current(context)
    dt = A.common_dtype(a, b)
    am = A.matrix(a, "A", dt, False, check_finite)
    n = am.shape[0]
    bv = np.asarray(b)
    if bv.ndim == 2 and bv.shape[1] == 1:
        bv = bv[:, 0]
    if bv.ndim != 1 or bv.shape[0] != n:
        raise ValueError(f"b must have shape ({n},), got {np.shape(b)}")
    bv, _ = A.rhs(bv, n, dt, False, check_finite)
    if x0 is None:
        x = np.zeros(n, dtype=dt)
    else:
        x = np.array(x0, dtype=dt)
        if x.shape not in ((n,), (n, 1)):
            raise ValueError(f"x0 must have shape ({n},), got {np.shape(x0)}")
        x = x.reshape(n)
    if check_finite:
        A.refuse_nonfinite("x0", x)
    opts = lib.ps_iter_options_default()
    if tol is not None:
        rtol = tol
    opts.tol = float(rtol)
    if maxiter is not None:
        opts.max_iter = int(maxiter)
    if restart is not None:
        opts.restart = int(restart)
    if M is not None:
        if M != "jacobi":
            raise ValueError("M must be None or 'jacobi' (the diagonal preconditioner)")
        opts.precond = 1
    history = np.zeros(max(opts.max_iter, 0) + 1)
    if full_output:
        opts.history = history.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        opts.history_capacity = history.size
    res = IterResult()
    fn = getattr(lib, f"ps_{A.prefix(dt)}{_NAMES[method]}")
    status = fn(ctx.handle, n, A.addr(am), A.ld(am), A.addr(bv), A.addr(x), ctypes.byref(opts),
                ctypes.byref(res))
    if status == _errors.NO_CONVERGENCE:
        info = max(res.iterations, 1)
    elif status == _errors.BREAKDOWN:
        info = -1
    else:
        ctx.check(status)
        info = 0
    if full_output:
        return x, info, IterationReport(res, history)
    return x, info


def _doc(name, extra=""):
    return f"""{name} on a dense A (float32 or float64): returns (x, info) as SciPy's iterative
    solvers do (info 0: ||b - A x|| / ||b|| <= rtol; > 0: the iterations done without reaching
    it; -1: breakdown), the best iterate in x either way. x0: initial guess (zeros); rtol (or
    SciPy's older name tol): relative residual to reach; maxiter: iterations (default 1000);
    M: None or "jacobi" (the diagonal preconditioner){extra}. full_output=True returns
    (x, info, IterationReport) with the residual history. A zero diagonal where one is divided
    by raises LinAlgError."""


def cg(A, b, x0=None, rtol=1e-5, tol=None, maxiter=None, M=None, full_output=False,
       check_finite=True, context=None):
    return _solve("cg", A, b, x0, rtol, tol, maxiter, None, M, full_output, check_finite,
                  context)


def bicgstab(A, b, x0=None, rtol=1e-5, tol=None, maxiter=None, M=None, full_output=False,
             check_finite=True, context=None):
    return _solve("bicgstab", A, b, x0, rtol, tol, maxiter, None, M, full_output, check_finite,
                  context)


def gmres(A, b, x0=None, rtol=1e-5, tol=None, restart=None, maxiter=None, M=None,
          full_output=False, check_finite=True, context=None):
    return _solve("gmres", A, b, x0, rtol, tol, maxiter, restart, M, full_output, check_finite,
                  context)


def jacobi(A, b, x0=None, rtol=1e-5, tol=None, maxiter=None, full_output=False,
           check_finite=True, context=None):
    return _solve("jacobi", A, b, x0, rtol, tol, maxiter, None, None, full_output, check_finite,
                  context)


def gauss_seidel(A, b, x0=None, rtol=1e-5, tol=None, maxiter=None, full_output=False,
                 check_finite=True, context=None):
    return _solve("gauss_seidel", A, b, x0, rtol, tol, maxiter, None, None, full_output,
                  check_finite, context)


cg.__doc__ = _doc("Conjugate gradients (A symmetric positive definite)")
bicgstab.__doc__ = _doc("BiCGSTAB")
gmres.__doc__ = _doc("GMRES(restart)", "; restart: GMRES's m (default 35)")
jacobi.__doc__ = _doc("The Jacobi iteration")
gauss_seidel.__doc__ = _doc("The Gauss-Seidel iteration")
