"""Backend delegates: ExecuTorch's BackendInterface on the device.

A program's `DelegateCall` instruction runs a subgraph a backend took at
export. The backend is an object with ExecuTorch's four methods:

    is_available() -> bool          this port can run it (e.g. has ulab)
    init(processed, compile_specs)  at load: processed is the backend's blob
                                    (a memoryview into the program: read in
                                    place, never copied), compile_specs a list
                                    of (key, memoryview); returns a handle
    execute(handle, args)           in the step: args are the call's values
                                    (inputs, then outputs), the same list of
                                    Tensors at every call
    destroy(handle)                 Method.close()

and, mpy_et's addition, optionally `prepare(handle, args)`: called once at
load with that list, so a backend builds its views of the tensors there
(errors at load, nothing made per inference).

Backends are found by their id: first those given to register_backend(),
then the modules of _KNOWN (imported on first use). The runtime imports this
package only for a program with delegate calls, and `mpy-et build` ships it
(with the backends' modules) only with such programs: the others pay nothing.
"""

from mpy_et.errors import NOT_SUPPORTED, MpyEtError

# backend id -> device module holding `backend` (a selective build ships the module
# only with programs that use it: host_tools/deploy/selective.py)
_KNOWN = {"UlabBackend": "mpy_et.backends.ulab_backend"}
_REGISTERED = {}


def register_backend(backend_id, backend):
    """Make `backend` run delegates with this id (before loading the method)."""
    _REGISTERED[backend_id] = backend


def get_backend(backend_id, where):
    """The available backend for backend_id, or NotSupported naming it and `where`."""
    backend = _REGISTERED.get(backend_id)
    why = None
    if backend is None and backend_id in _KNOWN:
        module = _KNOWN[backend_id]
        try:
            mod = __import__(module)
            for part in module.split(".")[1:]:
                mod = getattr(mod, part)
            backend = mod.backend
        except ImportError as e:
            why = "its module %s is not on this device (%s)" % (module, e)
    if backend is None:
        known = sorted(set(_KNOWN) | set(_REGISTERED))
        raise MpyEtError(
            NOT_SUPPORTED,
            "%s: backend %r is not registered (%s); mpy_et knows %s: re-export without that delegate "
            "(portable kernels) or register_backend() one" % (where, backend_id, why or "no such backend", known),
        )
    if not backend.is_available():
        raise MpyEtError(
            NOT_SUPPORTED,
            "%s: backend %r is not available on this port (%s); re-export without delegate= to run it with portable kernels"
            % (where, backend_id, getattr(backend, "NEEDS", "is_available() is False")),
        )
    return backend


def delegate_step(ctx):
    """The step of a DelegateCall: ctx = (backend.execute, handle, args)."""
    ctx[0](ctx[1], ctx[2])
