"""Direct solvers in SciPy's conventions: solve, lu_factor/lu_solve, cho_factor/cho_solve,
wz_factor/wz_solve, inv, solve_mixed.

check_finite is accepted as SciPy's functions accept it, but NaN and Inf are refused
(ValueError) whatever it says: the library checks every input inside its own copy of it, at no
extra cost, so no separate pass over the array is made here."""
import contextlib
import ctypes
import warnings

import numpy as np

from . import _arrays as A
from ._context import current
from ._errors import RESULT_NOT_FINITE, LinAlgError
from ._lib import RefineOptions, c_int, lib
from .device import DeviceMatrix

_METHODS = ("lu", "wz", "gj", "cholesky", "mixed")


class LinAlgWarning(RuntimeWarning):
    """A factorization that completed on a singular matrix (as SciPy's lu_factor warns)."""


_STRUCTURES = ("gen", "sym", "her", "pos")  # SciPy's assume_a


def _triangle(lower):
    """The triangle of a symmetric matrix that Cholesky reads."""
    return "lower" if lower else "upper"


def _reads_triangle(arguments):
    """Whether solve, called with these arguments, reads only a triangle of a."""
    return (arguments["method"] == "cholesky" or arguments["sym_pos"] or
            arguments["assume_a"] in ("sym", "her", "pos"))


def _symmetric_from_triangle(a, lower):
    """The symmetric matrix whose lower (or upper) triangle is a's (a 2-D square array); the
    other triangle of a is not read."""
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a must be a square 2-D array, got shape {a.shape}")
    half = np.tril(a) if lower else np.triu(a)
    return half + (np.tril(a, -1) if lower else np.triu(a, 1)).T


def _call(ctx, name, dtype, *args):
    ctx.check(getattr(lib, f"ps_{A.prefix(dtype)}{name}")(ctx.handle, *args))


@A.names_nonfinite(a=("a", lambda g: _triangle(g["lower"]) if _reads_triangle(g) else None),
                   b="b")
def solve(a, b, method="lu", lower=False, overwrite_a=False, overwrite_b=False,
          check_finite=True, context=None, *, assume_a=None, transposed=False, sym_pos=False):
    """Solves a x = b for a square a (float32 or float64; C or Fortran order) and b of shape (n,)
    or (n, k).

    method: "lu" (partial pivoting, LAPACK's gesv), "wz" (pivoted WZ factorization), "gj"
    (striped Gauss-Jordan), "cholesky" (a symmetric positive definite, only its `lower` or upper
    triangle read) or "mixed" (float factorization refined to double accuracy, float64 result;
    see solve_mixed). Raises LinAlgError when a is singular (or not positive definite),
    ValueError for bad shapes or non-finite input. NaN and Inf are always refused, by the
    library's own check during its copy (check_finite=False does not skip it; it costs nothing
    extra). A row-major (C-ordered) a is solved as it lies, through its transpose. With "lu"
    above the backend's host crossover, a goes to the device once and only x comes back (a is
    never copied on the host).

    SciPy's keywords, for its programs: assume_a "gen" (LU), "pos" (Cholesky), "sym" or "her"
    (a symmetric matrix given by its `lower` or upper triangle, the other not read: solved by
    LU on the whole matrix built from that triangle, where SciPy factors it by LDL^T; the same
    solution), with the default method only; sym_pos=True as assume_a="pos"; transposed=True
    solves a^T x = b (for "gen"; ignored for the symmetric kinds, as in SciPy).

    As numpy.linalg.solve, a may be a stack of matrices (..., n, n), with b (..., n) (1-D, or one
    dimension less than a) or (..., n, k), the leading dimensions broadcast; each system is
    solved on its own (method and SciPy's keywords apply to each).
    """
    if np.ndim(a) > 2:  # NumPy's stacks of matrices, solved one by one
        return _stacked(lambda m, v: solve(m, v, method, lower, check_finite=check_finite,
                                           context=context, assume_a=assume_a,
                                           transposed=transposed, sym_pos=sym_pos), a, b)
    if sym_pos:
        assume_a = "pos"
    if assume_a is not None:
        if assume_a not in _STRUCTURES:
            raise ValueError(f"assume_a must be one of {', '.join(_STRUCTURES)}, got {assume_a!r}")
        if method != "lu":
            raise ValueError(f"give method or assume_a, not both (method={method!r}, "
                             f"assume_a={assume_a!r})")
        if assume_a == "pos":
            method = "cholesky"
        elif assume_a in ("sym", "her"):
            a = _symmetric_from_triangle(a, lower)
            overwrite_a = True  # a copy of ours
    if method not in _METHODS:
        raise ValueError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
    if transposed and method != "cholesky" and assume_a not in ("sym", "her"):
        a = np.asarray(a).T  # a view: a C-ordered a is then a column-major one, and back
    if method == "mixed":
        return solve_mixed(a, b, check_finite=check_finite, context=context)[0]
    ctx = current(context)
    dt = A.common_dtype(a, b)
    # a row-major a is the column-major a^T: LU factors a^T and solves transposed, Cholesky takes
    # the other triangle (a is symmetric); either way the copy needs no transposition
    flip = A.c_ordered(a) and method in ("lu", "cholesky")
    if method == "lu" and np.ndim(a) == 2 and _on_device(ctx, dt, np.shape(a)[0]):
        return _lu_solve_on_device(ctx, a, b, dt, flip)
    am = A.matrix(a, "a", dt, overwrite_a, transposed=flip)
    n = am.shape[0]
    bm, vector = A.rhs(b, n, dt, overwrite_b)
    k = bm.shape[1]
    if method == "lu" and flip:
        piv = np.empty(max(n, 1), dtype=np.intc)
        _call(ctx, "getrf", dt, n, n, A.addr(am), A.ld(am), A.addr(piv))
        _call(ctx, "getrs", dt, b"T", n, k, A.addr(am), A.ld(am), A.addr(piv), A.addr(bm),
              A.ld(bm))
    elif method == "lu":
        piv = np.empty(max(n, 1), dtype=np.intc)
        _call(ctx, "gesv", dt, n, k, A.addr(am), A.ld(am), A.addr(piv), A.addr(bm), A.ld(bm))
    elif method == "wz":
        piv = np.empty(max(n, 1), dtype=np.intc)
        _call(ctx, "wzsv", dt, n, k, A.addr(am), A.ld(am), A.addr(piv), A.addr(bm), A.ld(bm))
    elif method == "gj":
        _call(ctx, "gjsv", dt, n, k, A.addr(am), A.ld(am), A.addr(bm), A.ld(bm))
    else:
        _call(ctx, "posv", dt, b"L" if lower != flip else b"U", n, k, A.addr(am), A.ld(am),
              A.addr(bm), A.ld(bm))
    return bm.reshape(n) if vector else bm


def _stacked(solve_one, a, b):
    """NumPy's stacked solve: a (..., n, n); b (..., n) when it is 1-D or has one dimension less
    than a (NumPy 2's rule and NumPy 1's), else (..., n, k); the leading dimensions broadcast.
    Each system is solved by solve_one."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"a must be a stack of square matrices, got shape {a.shape}")
    vector = b.ndim == 1 or b.ndim == a.ndim - 1
    columns = b[..., None] if vector else b
    if columns.ndim < 2 or columns.shape[-2] != a.shape[-1]:
        raise ValueError(f"b of shape {b.shape} does not fit a of shape {a.shape}")
    try:
        lead = np.broadcast_shapes(a.shape[:-2], columns.shape[:-2])
    except ValueError:
        raise ValueError(f"the stacks of a {a.shape} and b {b.shape} do not broadcast") from None
    a = np.broadcast_to(a, lead + a.shape[-2:])
    columns = np.broadcast_to(columns, lead + columns.shape[-2:])
    x = np.empty(columns.shape, dtype=A.common_dtype(a, columns))
    for i in np.ndindex(*lead):
        with _naming_matrix(i):
            x[i] = solve_one(a[i], columns[i])
    return x[..., 0] if vector else x


@contextlib.contextmanager
def _naming_matrix(index):
    """A LinAlgError of one matrix of a stack says which one (a[i, j]: ...)."""
    try:
        yield
    except LinAlgError as e:
        where = ", ".join(str(i) for i in index)
        raise LinAlgError(f"a[{where}]: {e}", e.status, e.info) from e


def _on_device(ctx, dtype, n):
    """Whether an LU solve of order n goes through a device matrix: above the host crossover,
    where the host drivers would stage a on the device anyway."""
    return n > lib.ps_context_host_crossover(ctx.handle, 1 if dtype == np.float64 else 0)


def _lu_solve_on_device(ctx, a, b, dtype, flip):
    """solve(method="lu") through a device matrix: a goes up once as it lies (a row-major a as
    its transpose, solved transposed), is factored there, and only x comes back; neither a copy
    of a on the host nor a download of its factors, which solve does not return. NaN and Inf are
    refused by the library's check in the upload."""
    am = A.matrix(a, "a", dtype, True, transposed=flip)  # only read: the caller's own if it can
    dm = DeviceMatrix(am, ctx, dtype)
    try:
        x = dm.lu_factor().lu_solve(b, trans=1 if flip else 0)
    finally:
        dm.close()
    if not np.isfinite(x).all():
        raise LinAlgError("solve: the computed solution is not finite: it lies beyond the "
                          "precision's range, or a pivot is below the safe minimum and its "
                          "reciprocal overflows", RESULT_NOT_FINITE)
    return x


@A.names_nonfinite(a="a")
def lu_factor(a, overwrite_a=False, check_finite=True, context=None):
    """LU with partial pivoting of an m x n a (square or not, as SciPy's): (lu, piv), L (unit
    diagonal, m x min(m, n)) and U (min(m, n) x n) packed in lu, piv the min(m, n) 0-based row
    interchanges (row i was interchanged with row piv[i]). A singular a warns (LinAlgWarning)
    and returns its factors, as SciPy does. lu_solve takes a square one's."""
    ctx = current(context)
    dt = A.common_dtype(a)
    lu = A.matrix(a, "a", dt, overwrite_a, square=False)
    m, n = lu.shape
    k = min(m, n)
    piv = np.empty(max(k, 1), dtype=np.intc)
    status = getattr(lib, f"ps_{A.prefix(dt)}getrf")(ctx.handle, m, n, A.addr(lu), A.ld(lu),
                                                     A.addr(piv))
    if status == 400:  # singular: the factors are complete
        info = lib.ps_context_last_info(ctx.handle)
        warnings.warn(f"Diagonal number {info} is exactly zero. Singular matrix.", LinAlgWarning,
                      stacklevel=2)
    else:
        ctx.check(status)
    return lu, piv[:k] - 1


@A.names_nonfinite(lu_and_piv="lu", b="b")
def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True, context=None):
    """Solves a x = b (trans 0), a^T x = b (1) or a^H x = b (2, = 1 for real data) with
    lu_factor's output."""
    lu, piv = lu_and_piv
    if trans not in (0, 1, 2):
        raise ValueError(f"trans must be 0, 1 or 2, got {trans!r}")
    ctx = current(context)
    dt = A.common_dtype(lu)
    lu = A.matrix(lu, "lu", dt, False)
    n = lu.shape[0]
    piv = np.asarray(piv)
    if piv.shape != (n,):
        raise ValueError(f"piv must have {n} entries, got shape {piv.shape}")
    ipiv = A.ints(piv + 1)
    bm, vector = A.rhs(b, n, dt, overwrite_b)
    _call(ctx, "getrs", dt, b"NTC"[trans:trans + 1], n, bm.shape[1], A.addr(lu), A.ld(lu),
          A.addr(ipiv), A.addr(bm), A.ld(bm))
    return bm.reshape(n) if vector else bm


@A.names_nonfinite(a=("a", lambda g: _triangle(g["lower"])))
def cho_factor(a, lower=False, overwrite_a=False, check_finite=True, context=None):
    """Cholesky factor of a symmetric positive definite a: (c, lower), the factor in c's lower
    (L, a = L L^T) or upper (U, a = U^T U) triangle; the other triangle is left as it was, as in
    SciPy. Only that triangle of a is read. Not positive definite: LinAlgError."""
    ctx = current(context)
    dt = A.common_dtype(a)
    c = A.matrix(a, "a", dt, overwrite_a)
    n = c.shape[0]
    _call(ctx, "potrf", dt, b"L" if lower else b"U", n, A.addr(c), A.ld(c))
    return c, lower


@A.names_nonfinite(c_and_lower=("c", lambda g: _triangle(g["c_and_lower"][1])), b="b")
def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True, context=None):
    """Solves a x = b with cho_factor's output."""
    c, lower = c_and_lower
    ctx = current(context)
    dt = A.common_dtype(c)
    c = A.matrix(c, "c", dt, False)
    n = c.shape[0]
    bm, vector = A.rhs(b, n, dt, overwrite_b)
    _call(ctx, "potrs", dt, b"L" if lower else b"U", n, bm.shape[1], A.addr(c), A.ld(c),
          A.addr(bm), A.ld(bm))
    return bm.reshape(n) if vector else bm


@A.names_nonfinite(a="a")
def wz_factor(a, overwrite_a=False, check_finite=True, context=None):
    """WZ factorization P a = W Z (pivoted; docs/WZ.md): (wz, piv), W and Z packed in wz as lu
    packs L and U, piv the 0-based interchanges in step order. Singular: LinAlgError."""
    ctx = current(context)
    dt = A.common_dtype(a)
    wz = A.matrix(a, "a", dt, overwrite_a)
    n = wz.shape[0]
    piv = np.empty(max(n, 1), dtype=np.intc)
    _call(ctx, "wztrf", dt, n, A.addr(wz), A.ld(wz), A.addr(piv))
    return wz, piv[:n] - 1


@A.names_nonfinite(wz_and_piv="wz", b="b")
def wz_solve(wz_and_piv, b, overwrite_b=False, check_finite=True, context=None):
    """Solves a x = b with wz_factor's output."""
    wz, piv = wz_and_piv
    ctx = current(context)
    dt = A.common_dtype(wz)
    wz = A.matrix(wz, "wz", dt, False)
    n = wz.shape[0]
    ipiv = A.ints(np.asarray(piv) + 1)
    if ipiv.shape != (n,):
        raise ValueError(f"piv must have {n} entries, got shape {ipiv.shape}")
    bm, vector = A.rhs(b, n, dt, overwrite_b)
    _call(ctx, "wztrs", dt, n, bm.shape[1], A.addr(wz), A.ld(wz), A.addr(ipiv), A.addr(bm),
          A.ld(bm))
    return bm.reshape(n) if vector else bm


@A.names_nonfinite(a="a")
def inv(a, method="lu", overwrite_a=False, check_finite=True, context=None):
    """The inverse of a square a: method "lu" (getrf then getri, as LAPACK) or "gj" (blocked
    Gauss-Jordan elimination in place). Singular: LinAlgError. A stack of matrices (..., n, n)
    is inverted matrix by matrix, as numpy.linalg.inv."""
    if method not in ("lu", "gj"):
        raise ValueError(f"method must be 'lu' or 'gj', got {method!r}")
    if np.ndim(a) > 2:  # NumPy's stacks of matrices
        stack = np.asarray(a)
        out = np.empty(stack.shape, dtype=A.common_dtype(stack))
        for i in np.ndindex(*stack.shape[:-2]):
            with _naming_matrix(i):
                out[i] = inv(stack[i], method, check_finite=check_finite, context=context)
        return out
    ctx = current(context)
    dt = A.common_dtype(a)
    flip = A.c_ordered(a)  # inv(a) = inv(a^T)^T, and a^T is column-major as it lies
    x = A.matrix(a, "a", dt, overwrite_a, transposed=flip)
    n = x.shape[0]
    if method == "gj":
        _call(ctx, "gjinv", dt, n, A.addr(x), A.ld(x))
    else:
        piv = np.empty(max(n, 1), dtype=np.intc)
        _call(ctx, "getrf", dt, n, n, A.addr(x), A.ld(x), A.addr(piv))
        _call(ctx, "getri", dt, n, A.addr(x), A.ld(x), A.addr(piv))
    return x.T if flip else x


@A.names_nonfinite(a="a", b="b")
def solve_mixed(a, b, precision="float", factorization="partial", gmres=True, max_iter=30,
                check_finite=True, context=None):
    """Solves a x = b in float64 with a low-precision factorization refined to double accuracy
    (LAPACK's dsgesv; docs/IR.md). precision: "float" (every backend), or on CUDA "tf32",
    "fp16", "bf16", "tf32x3", "fp16x3"; factorization "partial" or "rbt"; gmres: GMRES-IR when
    classical refinement stalls. Returns (x, report), report a dict: path ("classical", "gmres",
    "fallback"), iter (LAPACK's: steps, or < 0 when it fell back to double), classical_steps,
    gmres_iterations, backward_error, precision."""
    ctx = current(context)
    am = A.matrix(a, "a", np.dtype(np.float64), False)
    n = am.shape[0]
    bm, vector = A.rhs(b, n, np.dtype(np.float64), False)
    x = np.zeros_like(bm, order="F")
    opts = lib.ps_context_refine_options(ctx.handle)
    saved = RefineOptions.from_buffer_copy(opts)
    p, f = c_int(), c_int()
    if lib.ps_lowprec_from_name(str(precision).encode(), ctypes.byref(p)):
        raise ValueError(f"unknown precision {precision!r}")
    if lib.ps_refine_factor_from_name(str(factorization).encode(), ctypes.byref(f)):
        raise ValueError(f"unknown factorization {factorization!r}")
    opts.precision, opts.factorization = p.value, f.value
    opts.gmres, opts.max_iter = int(bool(gmres)), int(max_iter)
    ctx.check(lib.ps_context_set_refine_options(ctx.handle, ctypes.byref(opts)))
    try:
        piv = np.empty(max(n, 1), dtype=np.intc)
        it = c_int()
        ctx.check(lib.ps_dsgesv(ctx.handle, n, bm.shape[1], A.addr(am), A.ld(am), A.addr(piv),
                                A.addr(bm), A.ld(bm), A.addr(x), A.ld(x), ctypes.byref(it)))
        r = lib.ps_context_refine_result(ctx.handle)
    finally:
        lib.ps_context_set_refine_options(ctx.handle, ctypes.byref(saved))
    report = {"path": lib.ps_refine_path_name(r.path).decode(), "iter": r.iter,
              "classical_steps": r.classical_steps, "gmres_iterations": r.gmres_iterations,
              "backward_error": r.backward_error,
              "precision": lib.ps_lowprec_name(r.precision).decode()}
    return (x.reshape(n) if vector else x), report
