"""portsolve's statuses as the exceptions NumPy and SciPy users expect."""
import numpy as np

# status codes (include/portsolve.h)
SUCCESS = 0
INVALID_ARGUMENT, UNKNOWN_BACKEND, CONTEXT_MISMATCH, DTYPE_MISMATCH = 100, 101, 102, 103
CONTEXT_BUSY = 104
OUT_OF_HOST_MEMORY, OUT_OF_MEMORY = 200, 201
BACKEND_UNAVAILABLE, NO_DOUBLE, BACKEND, NOT_SUPPORTED = 300, 301, 302, 303
SINGULAR, NOT_SPD, WZ_BREAKDOWN, NO_CONVERGENCE = 400, 401, 402, 403
NON_FINITE, BREAKDOWN, ZERO_DIAGONAL, RESULT_NOT_FINITE = 404, 405, 406, 407


class PortsolveError(RuntimeError):
    """A backend problem: not built, not available, no double precision, a vendor error."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class BackendUnavailableError(PortsolveError):
    """The requested backend is not built here or its device or runtime is missing."""


class DeviceMemoryError(PortsolveError, MemoryError):
    """Out of device (or host staging) memory."""


class NonFiniteInputError(ValueError):
    """The library refused a NaN or Inf in an input (a ValueError, as SciPy raises). The
    functions that take NumPy arrays raise it again naming the entry as NumPy indexes the
    caller's array (_arrays.names_nonfinite)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class LinAlgError(np.linalg.LinAlgError):
    """Singular, not positive definite, WZ breakdown, a solution beyond the range: NumPy's and
    SciPy's LinAlgError (scipy.linalg.LinAlgError is the same class), with portsolve's status
    and LAPACK-style info (the failing pivot or leading minor, 1-based)."""

    def __init__(self, message, status=None, info=0):
        super().__init__(message)
        self.status = status
        self.info = info


def raise_for(status, message, info=0):
    """Raises the exception for a nonzero status with portsolve's message."""
    if status == SUCCESS:
        return
    if status in (SINGULAR, NOT_SPD, WZ_BREAKDOWN, RESULT_NOT_FINITE, ZERO_DIAGONAL,
                  NO_CONVERGENCE, BREAKDOWN):
        raise LinAlgError(message, status, info)
    if status == NON_FINITE:
        raise NonFiniteInputError(message, status)
    if status in (INVALID_ARGUMENT, CONTEXT_MISMATCH, DTYPE_MISMATCH, UNKNOWN_BACKEND):
        raise ValueError(message)
    if status in (OUT_OF_HOST_MEMORY, OUT_OF_MEMORY):
        raise DeviceMemoryError(message, status)
    if status == BACKEND_UNAVAILABLE:
        raise BackendUnavailableError(message, status)
    raise PortsolveError(message, status)
