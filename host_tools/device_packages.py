"""The device packages (mpy_et, portable_kernels) as files: which modules they
hold and which files a set of modules needs, for everything that copies device
code (targets, builds, freezes). Kernels live in sub-packages
(portable_kernels/util, quantized, native), so a module's file needs the
__init__ of every package on its way.
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICE_PACKAGES = ("mpy_et", "portable_kernels")


def all_modules(pkg):
    """Dotted names, relative to `pkg`, of every module in it ("op_add", "util.loops", ...)."""
    top = os.path.join(ROOT, pkg)
    out = []
    for here, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(here, top)
        prefix = "" if rel == "." else rel.replace(os.sep, ".") + "."
        out += [prefix + f[:-3] for f in sorted(files) if f.endswith(".py")]
    return out


def module_files(modules):
    """Paths relative to the package, without extension, of `modules` (dotted
    names relative to it) plus the package's __init__ and every sub-package's
    __init__ on their way: "util.loops" -> ["__init__", "util/__init__", "util/loops"]."""
    out = {"__init__"}
    for module in modules:
        parts = module.split(".")
        for i in range(1, len(parts)):
            out.add("/".join(parts[:i]) + "/__init__")
        out.add("/".join(parts))
    return sorted(out, key=lambda p: (p.count("/"), p))
