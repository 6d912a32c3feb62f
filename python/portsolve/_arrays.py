"""NumPy arrays as the C API takes them: column-major, float32 or float64, copied only when
needed."""
import ctypes
import functools
import inspect

import numpy as np

from ._errors import NonFiniteInputError
from ._lib import c_void_p

FLOAT_TYPES = (np.float32, np.float64)


def common_dtype(*arrays):
    """float32 when every input is float32 (or a smaller float), else float64; complex is
    refused."""
    for a in arrays:
        if np.iscomplexobj(a):
            raise ValueError("portsolve solves real systems; complex input is not supported")
    dt = np.result_type(*[np.asarray(a).dtype for a in arrays], np.float32)
    return np.dtype(np.float32) if dt == np.float32 else np.dtype(np.float64)


def matrix(a, name, dtype, overwrite=False, check_finite=False, square=True, transposed=False):
    """a as a column-major 2-D array of dtype, the caller's own when overwrite allows. The host
    drivers refuse NaN and Inf themselves, inside their copy to the device, so check_finite is
    only asked for where no driver will look (DeviceMatrix). transposed: a^T is wanted instead
    (for a C-ordered a, a copy without transposition)."""
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got {a.ndim}-D")
    if square and a.shape[0] != a.shape[1]:
        raise ValueError(f"{name} must be square, got shape {a.shape}")
    if check_finite:
        refuse_nonfinite(name, a)
    if transposed:
        a = a.T
    if overwrite and a.dtype == dtype and a.flags.f_contiguous and a.flags.writeable:
        return a
    return np.array(a, dtype=dtype, order="F", copy=True)


def c_ordered(a):
    """Whether a is held row by row (its transpose is column-major without a copy)."""
    a = np.asarray(a)
    return a.ndim == 2 and a.flags.c_contiguous and not a.flags.f_contiguous


def rhs(b, n, dtype, overwrite=False, check_finite=False):
    """b (1-D or 2-D, n rows) as a column-major n x k array, and whether it was 1-D."""
    b = np.asarray(b)
    if b.ndim not in (1, 2):
        raise ValueError(f"b must be 1-D or 2-D, got {b.ndim}-D")
    if b.shape[0] != n:
        raise ValueError(f"b has {b.shape[0]} rows, the matrix is {n} x {n}")
    vector = b.ndim == 1
    b2 = b.reshape(n, 1) if vector else b
    return matrix(b2, "b", dtype, overwrite and not vector, check_finite, square=False), vector


def addr(a):
    return c_void_p(a.ctypes.data)


def ld(a):
    """The leading dimension of a column-major array (at least 1)."""
    return max(1, a.shape[0])


def ints(values):
    return np.ascontiguousarray(values, dtype=np.intc)


def prefix(dtype):
    return "d" if dtype == np.float64 else "s"


def byref(x):
    return ctypes.byref(x)


def refuse_nonfinite(label, array, part=None):
    """Raises NonFiniteInputError naming array's first NaN or Inf as NumPy indexes it ("a[2, 0]
    is nan"); returns when there is none or array holds no floats. part: "lower" or "upper" to
    look only in that triangle (what Cholesky reads), None for all of it."""
    array = np.asarray(array)
    if array.dtype.kind != "f":
        return
    bad = ~np.isfinite(array)
    if part is not None and array.ndim == 2:
        bad = np.tril(bad) if part == "lower" else np.triu(bad)
    bad = np.argwhere(bad)
    if bad.size:
        where = ", ".join(str(i) for i in bad[0])
        raise NonFiniteInputError(f"{label} must not contain infs or NaNs: {label}[{where}] is "
                                  f"{array[tuple(bad[0])]}")


def names_nonfinite(**labels):
    """Decorator for the functions that take NumPy arrays: a NaN or Inf that the library refuses
    (its message places the entry in the library's column-major copy, which for a C-ordered
    array is the transpose) is raised again (a ValueError still) naming the first such entry as
    NumPy indexes the caller's array, e.g. "a must not contain infs or NaNs: a[2, 0] is nan".
    labels: parameter name -> the name the message uses, or (that name, a function of the
    call's arguments that says which triangle the library read: "lower", "upper" or None); a
    tuple argument ((lu, piv), (c, lower)) is looked at in its first element."""
    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except NonFiniteInputError as refused:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                arguments = bound.arguments
                for param, label in labels.items():
                    label, part = label if isinstance(label, tuple) else (label, None)
                    value = arguments.get(param)
                    if isinstance(value, tuple) and value:
                        value = value[0]
                    if value is not None:
                        try:
                            refuse_nonfinite(label, value, part(arguments) if part else None)
                        except NonFiniteInputError as named:
                            named.status = refused.status
                            raise named from refused
                raise
        return call
    return wrap
