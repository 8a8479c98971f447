"""Resolve operator names to kernels through a registry that is plain data.

A registry maps "aten::add.out" to ("portable_kernels.op_add", "add_out").
Only the modules of operators a program uses are imported, so a trimmed
registry (selective build) pulls in only those kernels. A registry written by
`mpy-et build` also holds REBUILD, the command that makes a dist for more
programs; OperatorMissing quotes it.
"""

import sys

from mpy_et.errors import OPERATOR_MISSING, MpyEtError
from mpy_et.port import collect_garbage


def default_registry():
    from portable_kernels.registry import KERNELS

    return KERNELS


def _import(module, function):
    if module not in sys.modules:
        # Loading a module leaves garbage (file buffers, the loader's
        # temporaries) between the objects it keeps; collected before the
        # next import, the kept objects pack together. Without it, on the
        # 224 KB board, a kernel import failed to find 640 bytes with 147 KB
        # free (tests/test_flash.py's board run).
        collect_garbage()
    mod = __import__(module)
    for part in module.split(".")[1:]:
        mod = getattr(mod, part)
    return getattr(mod, function)


def resolve(names, uses, registry=None, kernels=None):
    """Map each operator name to its kernel; report every missing one at once.

    Args:
        names: operator names, e.g. ["aten::add.out", ...].
        uses: dict name -> list of instruction indices (for the message; a
            last -1: more than listed).
        registry: dict name -> (module, function), default portable_kernels.
        kernels: dict name -> kernel function, found before the registry
            (custom operators, e.g. a user module's KERNELS).
    Returns:
        dict name -> kernel function.
    """
    default = registry is None
    if default:
        registry = default_registry()
    found, missing = {}, []
    for name in names:
        if kernels is not None and name in kernels:
            found[name] = kernels[name]
            continue
        entry = registry.get(name)
        if entry is None:
            at = uses.get(name, [])
            shown = ", ".join(str(i) for i in at if i >= 0) + (", ..." if at and at[-1] < 0 else "")
            missing.append("%s (instructions [%s])" % (name, shown))
            continue
        try:
            found[name] = _import(entry[0], entry[1])
        except (ImportError, AttributeError) as e:
            missing.append("%s (registered as %s.%s, which cannot be imported: %s)" % (name, entry[0], entry[1], e))
    if missing:
        msg = "%d operator(s) missing from the kernel registry: %s" % (len(missing), "; ".join(missing))
        hint = _rebuild_hint() if default else None
        if hint:
            msg += (
                "; this kernel set is a selective build holding %d operator(s): rebuild it with this program "
                "added: %s, then flash it again" % (len(registry), hint)
            )
        raise MpyEtError(OPERATOR_MISSING, msg)
    return found


def _rebuild_hint():
    """The rebuild command a generated registry carries (None for the full library)."""
    from portable_kernels import registry

    return getattr(registry, "REBUILD", None)
