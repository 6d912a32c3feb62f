"""Contexts: one backend and device, used by one thread at a time."""
import ctypes
import threading
import weakref

from . import _errors
from ._lib import ContextOptions, c_int, c_void_p, lib

_BACKENDS = ("cpu", "cuda", "opencl")
_local = threading.local()


def backends():
    """The backends that work on this machine, in the order `auto` tries them (a context can be
    created on each)."""
    found = []
    for name in ("cuda", "opencl", "cpu"):
        try:
            Context(name).close()
            found.append(name)
        except _errors.PortsolveError:
            pass
    return found


def built_backends():
    """The backends this libportsolve was built with (whether they work here or not)."""
    return lib.ps_built_backends().decode().split(",")


class Context:
    """A portsolve context: the backend (None: PORTSOLVE_BACKEND, default "auto"; "cpu",
    "cuda", "opencl") and device ("N", or "P:D" for OpenCL; None: PORTSOLVE_DEVICE).

    Every function takes `context=`; without it, the context of the innermost ``with Context()``
    block of the calling thread is used, else a default context per thread, created on first use
    from the environment. A context must not be used by two threads at once.
    """

    def __init__(self, backend=None, device=None):
        opts = lib.ps_context_options_default()
        if backend is not None:
            kind = c_int()
            if lib.ps_backend_kind_from_name(str(backend).encode(), ctypes.byref(kind)):
                raise ValueError(f"unknown backend {backend!r}; accepted: auto, " +
                                 ", ".join(_BACKENDS))
            opts.backend = kind.value
        self._device = None if device is None else str(device).encode()
        opts.device = self._device
        handle = c_void_p()
        status = lib.ps_context_create(ctypes.byref(handle), ctypes.byref(opts))
        if status:
            _errors.raise_for(status, lib.ps_last_create_error().decode())
        self._handle = handle
        self._matrices = weakref.WeakSet()  # DeviceMatrix objects, released before the context

    @property
    def handle(self):
        if self._handle is None:
            raise ValueError("the context is closed")
        return self._handle

    @property
    def backend(self):
        """"cpu", "cuda" or "opencl"."""
        return lib.ps_context_backend_name(self.handle).decode()

    @property
    def device(self):
        """The device's name as the backend reports it."""
        return lib.ps_context_device_name(self.handle).decode()

    def synchronize(self):
        """Waits for the work queued on the device (for timing)."""
        self.check(lib.ps_context_synchronize(self.handle))

    def release_memory(self):
        """Gives back the memory the context keeps between calls (page-locked staging buffers; on
        CUDA its memory pool's unused part), for other users of the device between calls;
        DeviceMatrix objects stay."""
        self.check(lib.ps_context_release_memory(self.handle))

    def close(self):
        """Releases the context and the DeviceMatrix objects made on it (also done when it is
        collected)."""
        if getattr(self, "_handle", None) is not None:
            for m in list(self._matrices):
                m.close()
            lib.ps_context_destroy(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    def __enter__(self):
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _local.stack.pop()
        self.close()
        return False

    def __repr__(self):
        if self._handle is None:
            return "<portsolve.Context closed>"
        return f"<portsolve.Context backend={self.backend!r} device={self.device!r}>"

    # the status of the last call, raised as an exception
    def check(self, status):
        if status:
            _errors.raise_for(status, lib.ps_context_last_error(self.handle).decode(),
                              lib.ps_context_last_info(self.handle))


def current(context=None):
    """The context to use: the given one, the innermost ``with`` block's, or the thread's
    default."""
    if context is not None:
        return context
    stack = getattr(_local, "stack", None)
    if stack:
        return stack[-1]
    default = getattr(_local, "default", None)
    if default is None:
        default = _local.default = Context()
    return default
