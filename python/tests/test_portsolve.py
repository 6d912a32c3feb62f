"""The Python package against NumPy/SciPy on the backend PORTSOLVE_BACKEND names: LAPACK-style
residual ratios on random and ill-conditioned matrices, both precisions, both memory orders,
1-D and 2-D right-hand sides, and the exceptions of bad input."""
import os

import numpy as np
import pytest
import scipy.linalg as sla

import portsolve as ps

BACKEND = os.environ.get("PORTSOLVE_BACKEND", "cpu")
THRESHOLD = 30.0
rng = np.random.default_rng(int(os.environ.get("PORTSOLVE_TEST_SEED", "12345")))


@pytest.fixture(scope="module")
def ctx():
    with ps.Context(BACKEND) as c:
        yield c


def eps(dtype):
    return np.finfo(dtype).eps / 2


def matrix(n, cond, dtype, kind="general", order="F"):
    """Singular values from 1 to 1/cond (geometric), random orthogonal factors."""
    u, _ = np.linalg.qr(rng.standard_normal((n, n))) if n else (np.zeros((0, 0)), None)
    s = np.geomspace(1.0, 1.0 / cond, n) if n else np.zeros(0)
    if kind == "spd":
        a = (u * s) @ u.T
    else:
        v, _ = np.linalg.qr(rng.standard_normal((n, n))) if n else (np.zeros((0, 0)), None)
        a = (u * s) @ v.T
        if kind == "dominant":
            a = a + 2 * np.eye(n)
    return np.array(a, dtype=dtype, order=order)


def solve_ratio(a, x, b, trans=False):
    """max_j ||b_j - op(a) x_j||_1 / (||a||_1 ||x_j||_1 n eps)."""
    n = a.shape[0]
    if n == 0:
        return 0.0
    a64 = a.astype(np.float64).T if trans else a.astype(np.float64)
    x2 = x.astype(np.float64).reshape(n, -1)
    r = b.astype(np.float64).reshape(n, -1) - a64 @ x2
    den = np.linalg.norm(a64, 1) * np.abs(x2).sum(axis=0) * n * eps(a.dtype)
    return float(np.max(np.abs(r).sum(axis=0) / np.where(den > 0, den, 1)))


def inverse_ratio(a, x):
    n = a.shape[0]
    r = np.eye(n) - a.astype(np.float64) @ x.astype(np.float64)
    return np.linalg.norm(r, 1) / (np.linalg.norm(a.astype(np.float64), 1) *
                                   np.linalg.norm(x.astype(np.float64), 1) * n * eps(a.dtype))


DTYPES = [np.float64, np.float32]
CONDS = {np.float64: (10.0, 1e8), np.float32: (10.0, 1e3)}
ORDERS = [1, 2, 3, 37, 130]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("method", ["lu", "wz", "gj", "cholesky"])
def test_solve(ctx, dtype, order, method):
    for n in ORDERS:
        for cond in CONDS[dtype]:
            kind = "spd" if method == "cholesky" else "general"
            a = matrix(n, cond, dtype, kind, order)
            a0 = a.copy()
            for b in (rng.standard_normal(n).astype(dtype),
                      np.array(rng.standard_normal((n, 3)), dtype=dtype, order=order)):
                x = ps.solve(a, b, method=method)
                assert x.shape == b.shape and x.dtype == dtype
                assert solve_ratio(a, x, b) < THRESHOLD, (method, n, cond)
                assert np.array_equal(a, a0), "a changed without overwrite_a"
                if dtype == np.float64 and cond == 10.0:
                    assert np.allclose(x, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("on_device", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
def test_solve_lu_paths(ctx, monkeypatch, order, on_device):
    """solve(method="lu") both ways: through a device matrix (above the host crossover: a up as
    it lies, only x back) and through the host drivers (at or below it), whichever this
    backend's crossover picks; the same answers, a untouched, NaN and Inf refused."""
    import portsolve.linalg as linalg
    monkeypatch.setattr(linalg, "_on_device", lambda c, d, n: on_device)
    for dtype in DTYPES:
        for n in (1, 5, 64, 131):
            a = matrix(n, 1e3, dtype, order=order)
            a0 = a.copy()
            for b in (rng.standard_normal(n).astype(dtype),
                      np.array(rng.standard_normal((n, 2)), dtype=dtype, order=order)):
                x = ps.solve(a, b)
                assert x.shape == b.shape and x.dtype == dtype
                assert solve_ratio(a, x, b) < THRESHOLD, (order, on_device, n)
                assert np.array_equal(a, a0), "a changed"
            bad = a.copy()
            bad[n - 1, 0] = np.nan
            with pytest.raises(ValueError, match=rf"a\[{n - 1}, 0\] is nan"):
                ps.solve(bad, np.ones(n, dtype=dtype))
            with pytest.raises(ValueError, match=r"b\[0\] is inf"):
                ps.solve(a, np.full(n, np.inf, dtype=dtype))
        with pytest.raises(np.linalg.LinAlgError):
            ps.solve(np.zeros((9, 9), order=order), np.ones(9))


def test_solve_empty_and_one(ctx):
    assert ps.solve(np.zeros((0, 0)), np.zeros(0)).shape == (0,)
    assert ps.solve(np.array([[4.0]]), np.array([2.0]))[0] == 0.5


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu(ctx, dtype):
    for n in ORDERS:
        for cond in CONDS[dtype]:
            a = matrix(n, cond, dtype, order="C")
            lu, piv = ps.lu_factor(a)
            ref_lu, ref_piv = sla.lu_factor(a)
            assert lu.dtype == dtype and piv.shape == (n,) and piv.min(initial=0) >= 0
            if cond == 10.0:  # well conditioned: the same pivots as LAPACK's
                assert np.array_equal(piv, ref_piv)
            b = rng.standard_normal((n, 2)).astype(dtype)
            for trans in (0, 1):
                x = ps.lu_solve((lu, piv), b, trans=trans)
                assert solve_ratio(a, x, b, trans=bool(trans)) < THRESHOLD


def test_lu_rectangular(ctx):
    """lu_factor of an m x n a, as SciPy's: L and U packed, min(m, n) pivots, the same as
    LAPACK's on random entries; ||P a - L U|| small; lu_solve refuses the factors."""
    for dtype in DTYPES:
        for shape in ((9, 4), (4, 9), (1, 5), (5, 1), (0, 3), (3, 0)):
            for order in ("C", "F"):
                a = np.array(rng.standard_normal(shape), dtype=dtype, order=order)
                lu, piv = ps.lu_factor(a)
                k = min(shape)
                assert lu.shape == shape and piv.shape == (k,) and lu.dtype == dtype
                if k == 0:
                    continue
                ref_lu, ref_piv = sla.lu_factor(a)
                assert np.array_equal(piv, ref_piv), (shape, order)
                low = np.tril(lu[:, :k], -1) + np.eye(*lu[:, :k].shape)
                pa = a.astype(np.float64)
                for i, p in enumerate(piv):
                    pa[[i, p]] = pa[[p, i]]
                err = np.linalg.norm(pa - low @ np.triu(lu[:k]), 1)
                assert err <= 30 * max(shape) * np.finfo(dtype).eps * np.linalg.norm(a, 1)
    with pytest.raises(ValueError, match="square"):
        ps.lu_solve(ps.lu_factor(np.arange(12.0).reshape(4, 3) + np.eye(4, 3)), np.ones(4))


def test_lu_overwrite(ctx):
    a = np.asfortranarray(matrix(20, 10.0, np.float64))
    lu, _ = ps.lu_factor(a, overwrite_a=True)
    assert np.shares_memory(lu, a)
    c = np.ascontiguousarray(matrix(20, 10.0, np.float64))
    c0 = c.copy()
    ps.lu_factor(c, overwrite_a=True)  # C order: copied, the caller's array stays
    assert np.array_equal(c, c0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky(ctx, dtype, lower):
    for n in ORDERS:
        a = matrix(n, CONDS[dtype][1], dtype, "spd")
        c, low = ps.cho_factor(a, lower=lower)
        assert low == lower
        f = np.tril(c) if lower else np.triu(c)
        g = f @ f.T if lower else f.T @ f
        if n:
            r = np.linalg.norm(a.astype(np.float64) - g.astype(np.float64), 1)
            assert r / (np.linalg.norm(a.astype(np.float64), 1) * n * eps(dtype)) < THRESHOLD
        b = rng.standard_normal(n).astype(dtype)
        assert solve_ratio(a, ps.cho_solve((c, lower), b), b) < THRESHOLD


@pytest.mark.parametrize("dtype", DTYPES)
def test_wz(ctx, dtype):
    for n in ORDERS:
        a = matrix(n, CONDS[dtype][1], dtype)
        f = ps.wz_factor(a)
        b = rng.standard_normal((n, 4)).astype(dtype)
        assert solve_ratio(a, ps.wz_solve(f, b), b) < THRESHOLD


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", ["lu", "gj"])
def test_inv(ctx, dtype, method):
    for n in ORDERS[1:]:
        for cond in CONDS[dtype]:
            a = matrix(n, cond, dtype, order="C")
            x = ps.inv(a, method=method)
            assert x.dtype == dtype and inverse_ratio(a, x) < THRESHOLD


def test_solve_mixed(ctx):
    for n in (5, 100):
        a = matrix(n, 1e4, np.float64)
        b = rng.standard_normal((n, 2))
        x, report = ps.solve_mixed(a, b)
        assert solve_ratio(a, x, b) < THRESHOLD
        assert report["path"] in ("classical", "gmres", "fallback")
        assert (report["iter"] >= 0) == (report["path"] != "fallback")
        assert report["precision"] == "float"
        assert ps.solve(a, b, method="mixed").shape == b.shape
    a = matrix(50, 1e12, np.float64)  # beyond float: falls back, still right
    x, report = ps.solve_mixed(a, np.ones(50), gmres=False)
    assert report["path"] == "fallback" and report["iter"] < 0
    assert solve_ratio(a, x, np.ones(50)) < THRESHOLD


@pytest.mark.parametrize("dtype", DTYPES)
def test_iterative(ctx, dtype):
    n = 60
    spd = matrix(n, 100.0, dtype, "spd")
    dom = np.array(rng.standard_normal((n, n)) / n + np.eye(n), dtype=dtype)
    b = rng.standard_normal(n).astype(dtype)
    rtol = 1e-10 if dtype == np.float64 else 1e-4
    cases = [(ps.cg, spd, {}), (ps.cg, spd, {"M": "jacobi"}), (ps.bicgstab, dom, {}),
             (ps.gmres, dom, {"restart": 20}), (ps.jacobi, dom, {}), (ps.gauss_seidel, dom, {})]
    for solver, a, kw in cases:
        x, info = solver(a, b, rtol=rtol, **kw)
        assert info == 0, solver.__name__
        assert np.linalg.norm(b - a @ x) <= 2 * rtol * np.linalg.norm(b), solver.__name__
        x, info, report = solver(a, b, rtol=rtol, full_output=True, **kw)
        assert report.converged and report.iterations == len(report.history) > 0
        assert report.rel_residual <= rtol
    x, info = ps.cg(spd, b, rtol=1e-14, maxiter=2)
    assert info > 0 and x.shape == (n,)
    x, info = ps.cg(spd, b, x0=np.linalg.solve(spd, b), tol=1e-3)  # SciPy's older name
    assert info == 0
    with pytest.raises(ValueError, match=r"x0 must have shape \(60,\)"):
        ps.cg(spd, b, x0=np.zeros(n - 1))


def test_scipy_keywords(ctx):
    """solve's SciPy keywords: assume_a ("pos", "sym", "her": only the lower or upper triangle
    read), sym_pos and transposed, against SciPy's own solve, in both orders and precisions."""
    n = 9
    for dtype in DTYPES:
        a = rng.standard_normal((n, n)).astype(dtype)
        b = rng.standard_normal((n, 2)).astype(dtype)
        spd, sym = (a @ a.T + n * np.eye(n)).astype(dtype), (a + a.T).astype(dtype)
        tol = 1e-10 if dtype == np.float64 else 1e-3
        for order in ("C", "F"):
            g = np.array(a, order=order)
            for method in ("lu", "wz", "gj"):
                x = ps.solve(g, b, method=method, transposed=True)
                assert np.allclose(x, sla.solve(a.T, b), rtol=tol, atol=tol), (order, method)
            for lower in (False, True):
                spoil = np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)
                for kind, m in (("pos", spd), ("sym", sym), ("her", sym)):
                    given = np.array(m, order=order)
                    given[spoil] = 1e3  # the triangle that is not read
                    want = sla.solve(m, b, assume_a=kind, lower=lower)
                    for t in (False, True):  # transposed: ignored for these, as in SciPy
                        x = ps.solve(given, b, assume_a=kind, lower=lower, transposed=t)
                        assert np.allclose(x, want, rtol=tol, atol=tol), (order, kind, lower)
                given = np.array(spd, order=order)
                given[spoil] = np.nan
                x = ps.solve(given, b, sym_pos=True, lower=lower)
                assert np.allclose(x, sla.solve(spd, b), rtol=tol, atol=tol)
    with pytest.raises(ValueError, match="assume_a must be one of"):
        ps.solve(np.eye(2), np.ones(2), assume_a="banded")
    with pytest.raises(ValueError, match="not both"):
        ps.solve(np.eye(2), np.ones(2), method="wz", assume_a="pos")
    with pytest.raises(ps.LinAlgError):
        ps.solve(-np.eye(2), np.ones(2), assume_a="pos")


def test_stacks(ctx):
    """NumPy's stacks of matrices: solve and inv matrix by matrix, b's leading dimensions
    broadcast (b 1-D, one dimension less than a, or a stack of n x k), against NumPy."""
    a = rng.standard_normal((3, 2, 6, 6)) + 6 * np.eye(6)
    for b in (rng.standard_normal((3, 2, 6)), rng.standard_normal((3, 2, 6, 4)),
              rng.standard_normal((6, 4)), rng.standard_normal((1, 2, 6)),
              rng.standard_normal(6)):
        want = np.linalg.solve(a, b if b.ndim > 1 else np.broadcast_to(b, (3, 2, 6)))
        for method in ("lu", "wz", "gj"):
            x = ps.solve(a, b, method=method)
            assert x.shape == want.shape and np.allclose(x, want), (b.shape, method)
    spd = a @ np.swapaxes(a, -1, -2)
    assert np.allclose(ps.solve(spd, np.ones((3, 2, 6)), assume_a="pos"),
                       np.linalg.solve(spd, np.ones((3, 2, 6))))
    assert np.allclose(ps.inv(a), np.linalg.inv(a))
    assert ps.inv(a.astype(np.float32)).dtype == np.float32
    single = a.copy()
    single[2, 1] = 0
    with pytest.raises(ps.LinAlgError, match=r"a\[2, 1\]"):
        ps.solve(single, np.ones((3, 2, 6)))
    with pytest.raises(ps.LinAlgError, match=r"a\[2, 1\]"):
        ps.inv(single)
    for bad in (np.ones(4), np.ones((2, 6))):  # no fit, no broadcast
        with pytest.raises(ValueError):
            ps.solve(a, bad)
    with pytest.raises(ValueError):
        ps.solve(np.ones((2, 3, 4)), np.ones(4))


def test_nonfinite_named(ctx):
    """A NaN or Inf is named as NumPy indexes the caller's array, in either order (the library
    sees a C-ordered array as its transpose), and for Cholesky only in the triangle it reads."""
    for order in ("C", "F"):
        a = np.array(np.eye(6) * 4, order=order)
        a[1, 4] = np.nan
        calls = [lambda: ps.solve(a, np.ones(6)), lambda: ps.solve(a, np.ones(6), method="wz"),
                 lambda: ps.solve(a, np.ones(6), method="gj"), lambda: ps.lu_factor(a),
                 lambda: ps.inv(a), lambda: ps.inv(a, method="gj"), lambda: ps.wz_factor(a),
                 lambda: ps.solve_mixed(a, np.ones(6)), lambda: ps.DeviceMatrix(a),
                 lambda: ps.cho_factor(a), lambda: ps.gmres(a, np.ones(6))]
        for call in calls:
            with pytest.raises(ps.NonFiniteInputError, match=r"a\[1, 4\] is nan|A\[1, 4\] is nan"):
                call()
        a[4, 1] = -np.inf  # the lower triangle's only one
        with pytest.raises(ValueError, match=r"a\[4, 1\] is -inf"):
            ps.cho_factor(a, lower=True)
        with pytest.raises(ValueError, match=r"a\[4, 1\] is -inf"):
            ps.solve(a, np.ones(6), method="cholesky", lower=True)
    lu = ps.lu_factor(np.eye(3) * 2)
    b = np.ones((3, 2))
    b[2, 1] = np.inf
    with pytest.raises(ValueError, match=r"b\[2, 1\] is inf"):
        ps.lu_solve(lu, b)
    with pytest.raises(ValueError, match=r"b\[2, 1\] is inf"):
        ps.DeviceMatrix(np.eye(3) * 2).lu_factor().lu_solve(b)


def test_device_matrix(ctx):
    for dtype in DTYPES:
        a = matrix(80, 100.0, dtype)
        d = ps.DeviceMatrix(a)
        assert d.shape == (80, 80) and d.dtype == dtype
        assert np.array_equal(d.to_numpy(), a)
        d.lu_factor()
        for k in (1, 3):
            b = rng.standard_normal((80, k)).astype(dtype)
            assert solve_ratio(a, d.lu_solve(b), b) < THRESHOLD
            assert solve_ratio(a, d.lu_solve(b, trans=1), b, trans=True) < THRESHOLD
        s = matrix(80, 100.0, dtype, "spd")
        e = ps.DeviceMatrix(s).cho_factor(lower=True)
        b = rng.standard_normal(80).astype(dtype)
        assert solve_ratio(s, e.cho_solve(b), b) < THRESHOLD
        d.close()
        e.close()
    with pytest.raises(ValueError):
        ps.DeviceMatrix(np.eye(3)).lu_solve(np.ones(3))  # not factored
    if ctx.backend != "cuda":
        with pytest.raises(ValueError):
            ps.DeviceMatrix.from_cuda_array(np.eye(3))


def test_errors(ctx):
    with pytest.raises(np.linalg.LinAlgError):
        ps.solve(np.zeros((4, 4)), np.ones(4))
    with pytest.raises(sla.LinAlgError) as e:  # SciPy's class is NumPy's
        ps.inv(np.ones((5, 5)))
    assert e.value.info > 0 and "singular" in str(e.value)
    with pytest.raises(ps.LinAlgError):
        ps.cho_factor(-np.eye(3))
    with pytest.raises(ps.LinAlgError):
        ps.solve(np.diag([1.0, -1.0]), np.ones(2), method="cholesky")
    with pytest.warns(ps.LinAlgWarning):
        ps.lu_factor(np.zeros((3, 3)))
    bad = [lambda: ps.solve(np.ones((3, 4)), np.ones(3)),
           lambda: ps.solve(np.eye(3), np.ones(4)),
           lambda: ps.solve(np.eye(3), np.ones((3, 2, 1))),
           lambda: ps.solve(np.ones(3), np.ones(3)),
           lambda: ps.solve(np.array([[np.nan]]), np.ones(1)),
           lambda: ps.solve(np.array([[np.nan]]), np.ones(1), check_finite=False),
           lambda: ps.solve(np.eye(2), np.array([np.inf, 1.0])),
           lambda: ps.solve(np.eye(2), np.ones(2), method="qr"),
           lambda: ps.solve(np.eye(2, dtype=complex), np.ones(2)),
           lambda: ps.inv(np.eye(2), method="qr"),
           lambda: ps.lu_solve((np.eye(2), np.zeros(3, dtype=int)), np.ones(2)),
           lambda: ps.lu_solve(ps.lu_factor(np.eye(2)), np.ones(2), trans=3),
           lambda: ps.cg(np.eye(2), np.ones(2), M="ilu"),
           lambda: ps.solve_mixed(np.eye(2), np.ones(2), precision="fp8"),
           lambda: ps.Context("quantum")]
    for call in bad:
        with pytest.raises(ValueError):
            call()
    with pytest.raises(ps.LinAlgError):
        ps.jacobi(np.diag([1.0, 0.0]), np.ones(2))  # zero diagonal


def test_contexts(ctx):
    assert ctx.backend == BACKEND and ctx.device
    assert BACKEND in ps.backends() and BACKEND in ps.built_backends()
    with ps.Context(BACKEND) as inner:
        x = ps.solve(np.eye(3) * 2, np.ones(3))
        assert np.allclose(x, 0.5)
        kept = ps.DeviceMatrix(np.eye(3))
    with pytest.raises(ValueError):
        inner.backend  # closed on leaving the block
    with pytest.raises(ValueError):
        kept.to_numpy()  # released with its context
    x = ps.solve(np.eye(2) * 4, np.ones(2), context=ctx)
    assert np.allclose(x, 0.25)


def test_release_memory(ctx):
    a = matrix(150, 100.0, np.float64)
    d = ps.DeviceMatrix(a, context=ctx)
    b = rng.standard_normal(150)
    assert solve_ratio(a, ps.solve(a, b, context=ctx), b) < THRESHOLD
    ctx.release_memory()
    assert np.array_equal(d.to_numpy(), a)  # device matrices stay
    assert solve_ratio(a, ps.solve(a, b, context=ctx), b) < THRESHOLD
    d.close()
