"""DeviceMatrix: a matrix kept on the context's device, to factor once and solve many times."""
import ctypes

import numpy as np

from . import _arrays as A
from ._context import current
from ._lib import c_void_p, lib

_DTYPES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1}


class DeviceMatrix:
    """A copy of a 2-D array on the context's device (or, with from_cuda_array, a CUDA array
    used where it lies). lu_factor()/cho_factor() factor it in place; lu_solve()/cho_solve()
    then solve for host right-hand sides, uploading only those."""

    @A.names_nonfinite(a="a")
    def __init__(self, a, context=None, dtype=None, check_finite=True):
        """Uploads a (NaN/Inf refused unless check_finite=False, by the library inside its copy:
        ValueError). A Fortran-ordered array of the dtype is read where it lies."""
        self._ctx = current(context)
        dt = np.dtype(dtype) if dtype is not None else A.common_dtype(a)
        if dt not in _DTYPES:
            raise ValueError("dtype must be float32 or float64")
        host = A.matrix(a, "a", dt, True, square=False)  # only read: the caller's own if it can
        self._create(dt, host.shape)
        self._owner = None
        upload = lib.ps_matrix_upload_finite if check_finite else lib.ps_matrix_upload
        try:
            self._ctx.check(upload(self._handle, A.addr(host), A.ld(host)))
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_cuda_array(cls, obj, context=None):
        """Wraps an object with __cuda_array_interface__ (CuPy, PyTorch, Numba) without a copy:
        2-D, float32 or float64, column-major (Fortran order), on a context of the CUDA
        backend. The object is kept alive with the matrix and is what its factorizations
        overwrite."""
        iface = getattr(obj, "__cuda_array_interface__", None)
        if iface is None:
            raise ValueError("the object has no __cuda_array_interface__")
        self = cls.__new__(cls)
        self._ctx = current(context)
        if self._ctx.backend != "cuda":
            raise ValueError("a CUDA array needs a context on the cuda backend, not "
                             f"{self._ctx.backend!r}")
        shape = tuple(iface["shape"])
        dt = np.dtype(iface["typestr"])
        if len(shape) != 2 or dt not in _DTYPES:
            raise ValueError("a 2-D float32 or float64 CUDA array is needed")
        rows, cols = shape
        strides = iface.get("strides")
        item = dt.itemsize
        if strides is None:  # C order: only a single column (or row of one) is column-major
            if rows > 1 and cols > 1:
                raise ValueError("the CUDA array must be in Fortran (column-major) order")
            ld = max(1, rows)
        else:
            if strides[0] != item or strides[1] % item or strides[1] // item < rows:
                raise ValueError("the CUDA array must be in Fortran (column-major) order")
            ld = max(1, strides[1] // item)
        self.shape, self.dtype = shape, dt
        handle = c_void_p()
        ptr = iface["data"][0]
        self._ctx.check(lib.ps_matrix_wrap_native(self._ctx.handle, _DTYPES[dt], rows, cols, ld,
                                                  c_void_p(ptr), 0, ctypes.byref(handle)))
        self._handle, self._piv, self._lower, self._owner = handle, None, None, obj
        self._ctx._matrices.add(self)
        return self

    def _create(self, dt, shape):
        self.shape, self.dtype = shape, dt
        handle = c_void_p()
        self._handle = None
        self._ctx.check(lib.ps_matrix_create(self._ctx.handle, _DTYPES[dt], shape[0], shape[1], 0,
                                             ctypes.byref(handle)))
        self._handle, self._piv, self._lower = handle, None, None
        self._ctx._matrices.add(self)

    @property
    def handle(self):
        if getattr(self, "_handle", None) is None:
            raise ValueError("the DeviceMatrix is closed")
        return self._handle

    def to_numpy(self):
        """The matrix (or its factors) back on the host, Fortran-ordered."""
        out = np.empty(self.shape, dtype=self.dtype, order="F")
        self._ctx.check(lib.ps_matrix_download(self.handle, A.addr(out), A.ld(out)))
        return out

    def lu_factor(self):
        """LU with partial pivoting in place; the pivots stay with the matrix. Returns self."""
        n = self._square()
        piv = np.empty(max(n, 1), dtype=np.intc)
        self._ctx.check(lib.ps_mat_getrf(self._ctx.handle, self.handle, A.addr(piv)))
        self._piv, self._lower = piv, None
        return self

    @A.names_nonfinite(b="b")
    def lu_solve(self, b, trans=0):
        """Solves with lu_factor's factors for host b ((n,) or (n, k)); returns x."""
        if self._piv is None:
            raise ValueError("lu_solve needs lu_factor first")
        return self._solve(b, lambda bm: lib.ps_mat_getrs(
            self._ctx.handle, b"NTC"[trans:trans + 1], self.handle, A.addr(self._piv), bm))

    def cho_factor(self, lower=False):
        """Cholesky in place (its lower or upper triangle). Returns self."""
        self._square()
        self._ctx.check(lib.ps_mat_potrf(self._ctx.handle, b"L" if lower else b"U",
                                         self.handle))
        self._lower, self._piv = bool(lower), None
        return self

    @A.names_nonfinite(b="b")
    def cho_solve(self, b):
        """Solves with cho_factor's factor for host b; returns x."""
        if self._lower is None:
            raise ValueError("cho_solve needs cho_factor first")
        return self._solve(b, lambda bm: lib.ps_mat_potrs(
            self._ctx.handle, b"L" if self._lower else b"U", self.handle, bm))

    def _square(self):
        if self.shape[0] != self.shape[1]:
            raise ValueError(f"the matrix must be square, it is {self.shape}")
        return self.shape[0]

    def _solve(self, b, call):
        n = self.shape[0]
        bm, vector = A.rhs(b, n, self.dtype, overwrite=True)  # only read
        rhs = DeviceMatrix(bm, self._ctx, self.dtype)
        try:
            self._ctx.check(call(rhs._handle))
            x = rhs.to_numpy()
        finally:
            rhs.close()
        return x.reshape(n) if vector else x

    def close(self):
        """Releases the device memory (also done when the matrix or its context is collected or
        closed; a closed matrix cannot be used)."""
        if getattr(self, "_handle", None) is not None:
            lib.ps_matrix_destroy(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    def __repr__(self):
        return f"<portsolve.DeviceMatrix {self.shape} {self.dtype} on {self._ctx.backend}>"
