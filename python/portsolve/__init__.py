"""portsolve for NumPy: dense linear-system solvers on CUDA GPUs, any OpenCL device or the CPU,
chosen at run time, in SciPy's conventions.

    import portsolve as ps
    x = ps.solve(a, b)                        # LU; method="wz", "gj", "cholesky", "mixed"
    lu = ps.lu_factor(a); x = ps.lu_solve(lu, b)
    x, info = ps.gmres(a, b, restart=30)
    with ps.Context("cuda"):                  # or PORTSOLVE_BACKEND; default: auto
        ...

Errors: LinAlgError (NumPy's and SciPy's class) for singular or not positive definite
matrices, ValueError for bad shapes or NaN/Inf input (NonFiniteInputError, a ValueError that
names the first such entry as NumPy indexes it: "a[2, 0] is nan"), PortsolveError (a
RuntimeError) for backend problems, each with portsolve's message.
"""
from ._context import Context, backends, built_backends
from ._errors import (BackendUnavailableError, DeviceMemoryError, LinAlgError,
                      NonFiniteInputError, PortsolveError)
from ._lib import lib as _lib
from .device import DeviceMatrix
from .iterative import IterationReport, bicgstab, cg, gauss_seidel, gmres, jacobi
from .linalg import (LinAlgWarning, cho_factor, cho_solve, inv, lu_factor, lu_solve, solve,
                     solve_mixed, wz_factor, wz_solve)

__version__ = _lib.ps_version().decode()
__all__ = ["Context", "backends", "built_backends", "DeviceMatrix", "solve", "lu_factor",
           "lu_solve", "cho_factor", "cho_solve", "wz_factor", "wz_solve", "inv", "solve_mixed",
           "cg", "bicgstab", "gmres", "jacobi", "gauss_seidel", "IterationReport",
           "LinAlgError", "LinAlgWarning", "PortsolveError", "BackendUnavailableError",
           "DeviceMemoryError", "NonFiniteInputError"]
