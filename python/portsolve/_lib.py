"""Loading libportsolve through ctypes and declaring the C functions the package calls."""
import ctypes
import ctypes.util
import os

c_int, c_double, c_char, c_void_p, c_char_p = (ctypes.c_int, ctypes.c_double, ctypes.c_char,
                                               ctypes.c_void_p, ctypes.c_char_p)
c_int_p = ctypes.POINTER(c_int)


class IterOptions(ctypes.Structure):
    _fields_ = [("tol", c_double), ("max_iter", c_int), ("restart", c_int), ("precond", c_int),
                ("history", ctypes.POINTER(c_double)), ("history_capacity", c_int)]


class IterResult(ctypes.Structure):
    _fields_ = [("iterations", c_int), ("rel_residual", c_double), ("converged", c_int),
                ("history_length", c_int)]


class RefineOptions(ctypes.Structure):
    _fields_ = [("precision", c_int), ("max_iter", c_int), ("gmres", c_int), ("restart", c_int),
                ("factorization", c_int)]


class RefineResult(ctypes.Structure):
    _fields_ = [("path", c_int), ("precision", c_int), ("factorization", c_int), ("iter", c_int),
                ("classical_steps", c_int), ("gmres_iterations", c_int),
                ("backward_error", c_double)]


class ContextOptions(ctypes.Structure):
    _fields_ = [("backend", c_int), ("device", c_char_p), ("lu_block_size", c_int)]


def _candidates():
    """Where libportsolve may be: PORTSOLVE_LIBRARY, the path recorded at install, the loader."""
    env = os.environ.get("PORTSOLVE_LIBRARY")
    if env:
        yield env
    try:
        from . import _install  # written by the CMake install: the library relative to here
        yield os.path.normpath(os.path.join(os.path.dirname(__file__), _install.LIBRARY))
    except ImportError:
        pass
    found = ctypes.util.find_library("portsolve")
    if found:
        yield found
    yield "libportsolve.so.0"


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("portsolve: cannot load libportsolve (set PORTSOLVE_LIBRARY to its path): "
                      + "; ".join(errors))


lib = _load()

_D = c_void_p  # arrays travel as addresses


def _declare(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


_declare("ps_version", c_char_p)
_declare("ps_built_backends", c_char_p)
_declare("ps_status_string", c_char_p, c_int)
_declare("ps_backend_kind_from_name", c_int, c_char_p, c_int_p)
_declare("ps_context_options_default", ContextOptions)
_declare("ps_context_create", c_int, ctypes.POINTER(c_void_p), ctypes.POINTER(ContextOptions))
_declare("ps_last_create_error", c_char_p)
_declare("ps_context_destroy", None, c_void_p)
_declare("ps_context_backend_name", c_char_p, c_void_p)
_declare("ps_context_device_name", c_char_p, c_void_p)
_declare("ps_context_last_error", c_char_p, c_void_p)
_declare("ps_context_last_info", c_int, c_void_p)
_declare("ps_context_synchronize", c_int, c_void_p)
_declare("ps_context_release_memory", c_int, c_void_p)
_declare("ps_context_host_crossover", c_int, c_void_p, c_int)
_declare("ps_context_refine_options", RefineOptions, c_void_p)
_declare("ps_context_set_refine_options", c_int, c_void_p, ctypes.POINTER(RefineOptions))
_declare("ps_context_refine_result", RefineResult, c_void_p)
_declare("ps_lowprec_from_name", c_int, c_char_p, c_int_p)
_declare("ps_lowprec_name", c_char_p, c_int)
_declare("ps_refine_factor_from_name", c_int, c_char_p, c_int_p)
_declare("ps_refine_path_name", c_char_p, c_int)
_declare("ps_iter_options_default", IterOptions)
_declare("ps_matrix_create", c_int, c_void_p, c_int, c_int, c_int, c_int, ctypes.POINTER(c_void_p))
_declare("ps_matrix_wrap_native", c_int, c_void_p, c_int, c_int, c_int, c_int, c_void_p,
         ctypes.c_size_t, ctypes.POINTER(c_void_p))
_declare("ps_matrix_destroy", None, c_void_p)
_declare("ps_matrix_upload", c_int, c_void_p, _D, c_int)
_declare("ps_matrix_upload_finite", c_int, c_void_p, _D, c_int)
_declare("ps_matrix_download", c_int, c_void_p, _D, c_int)
_declare("ps_mat_getrf", c_int, c_void_p, c_void_p, _D)
_declare("ps_mat_getrs", c_int, c_void_p, c_char, c_void_p, _D, c_void_p)
_declare("ps_mat_potrf", c_int, c_void_p, c_char, c_void_p)
_declare("ps_mat_potrs", c_int, c_void_p, c_char, c_void_p, c_void_p)
for p in "sd":
    _declare(f"ps_{p}getrf", c_int, c_void_p, c_int, c_int, _D, c_int, _D)
    _declare(f"ps_{p}getrs", c_int, c_void_p, c_char, c_int, c_int, _D, c_int, _D, _D, c_int)
    _declare(f"ps_{p}gesv", c_int, c_void_p, c_int, c_int, _D, c_int, _D, _D, c_int)
    _declare(f"ps_{p}potrf", c_int, c_void_p, c_char, c_int, _D, c_int)
    _declare(f"ps_{p}potrs", c_int, c_void_p, c_char, c_int, c_int, _D, c_int, _D, c_int)
    _declare(f"ps_{p}posv", c_int, c_void_p, c_char, c_int, c_int, _D, c_int, _D, c_int)
    _declare(f"ps_{p}wztrf", c_int, c_void_p, c_int, _D, c_int, _D)
    _declare(f"ps_{p}wztrs", c_int, c_void_p, c_int, c_int, _D, c_int, _D, _D, c_int)
    _declare(f"ps_{p}wzsv", c_int, c_void_p, c_int, c_int, _D, c_int, _D, _D, c_int)
    _declare(f"ps_{p}getri", c_int, c_void_p, c_int, _D, c_int, _D)
    _declare(f"ps_{p}gjinv", c_int, c_void_p, c_int, _D, c_int)
    _declare(f"ps_{p}gjsv", c_int, c_void_p, c_int, c_int, _D, c_int, _D, c_int)
    for m in ("jacobi", "gs", "cg", "bicgstab", "gmres"):
        _declare(f"ps_{p}{m}", c_int, c_void_p, c_int, _D, c_int, _D, _D,
                 ctypes.POINTER(IterOptions), ctypes.POINTER(IterResult))
_declare("ps_dsgesv", c_int, c_void_p, c_int, c_int, _D, c_int, _D, _D, c_int, _D, c_int, c_int_p)
