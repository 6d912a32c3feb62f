"""DeviceMatrix.from_cuda_array: a CUDA array (here memory from cudaMalloc through ctypes,
standing in for CuPy or PyTorch) factored and solved where it lies, on the CUDA backend; refused
elsewhere."""
import ctypes
import os

import numpy as np
import pytest

import portsolve as ps

BACKEND = os.environ.get("PORTSOLVE_BACKEND", "cpu")


def cudart():
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12",
                 "/usr/local/cuda/lib64/libcudart.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    pytest.fail("the cuda backend works but libcudart cannot be loaded")


class CudaArray:
    """A column-major device array exposing __cuda_array_interface__ (version 3)."""

    def __init__(self, rt, host, order="F"):
        self.rt, self.shape, self.dtype = rt, host.shape, host.dtype
        self.ptr = ctypes.c_void_p()
        assert rt.cudaMalloc(ctypes.byref(self.ptr), ctypes.c_size_t(host.nbytes)) == 0
        src = np.asfortranarray(host) if order == "F" else np.ascontiguousarray(host)
        assert rt.cudaMemcpy(self.ptr, src.ctypes.data_as(ctypes.c_void_p),
                             ctypes.c_size_t(host.nbytes), 1) == 0  # host to device
        item = host.dtype.itemsize
        strides = (item, item * host.shape[0]) if order == "F" else None
        self.__cuda_array_interface__ = {"shape": host.shape, "typestr": host.dtype.str,
                                         "data": (self.ptr.value, False), "strides": strides,
                                         "version": 3}

    def get(self):
        out = np.empty(self.shape, dtype=self.dtype, order="F")
        assert self.rt.cudaMemcpy(out.ctypes.data_as(ctypes.c_void_p), self.ptr,
                                  ctypes.c_size_t(out.nbytes), 2) == 0  # device to host
        return out

    def free(self):
        self.rt.cudaFree(self.ptr)


def test_from_cuda_array():
    with ps.Context(BACKEND) as ctx:
        if ctx.backend != "cuda":
            with pytest.raises(ValueError):
                ps.DeviceMatrix.from_cuda_array(np.eye(2))
            return
        rt = cudart()
        rng = np.random.default_rng(7)
        for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-4)):
            n = 200
            a = (rng.standard_normal((n, n)) + n * np.eye(n)).astype(dtype)
            arr = CudaArray(rt, a)
            d = ps.DeviceMatrix.from_cuda_array(arr)
            assert d.shape == (n, n) and d.dtype == dtype
            assert np.array_equal(d.to_numpy(), a)
            b = rng.standard_normal(n).astype(dtype)
            x = d.lu_factor().lu_solve(b)
            assert np.linalg.norm(b - a @ x) <= tol * np.linalg.norm(a) * np.linalg.norm(x)
            assert not np.array_equal(arr.get(), a), "the factors were written where it lies"
            d.close()
            arr.free()
        c_order = CudaArray(rt, np.eye(3), order="C")
        with pytest.raises(ValueError):
            ps.DeviceMatrix.from_cuda_array(c_order)
        c_order.free()
