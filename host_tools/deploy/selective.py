"""Selective build: which device modules a program needs.

The runtime's modules plus, for each operator the program calls, the kernel
module the registry names and the portable_kernels helpers it imports
(followed through `import` statements, read with ast, never executed).
"""

import ast
import os

from host_tools.device_packages import DEVICE_PACKAGES

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The runtime core: every module of mpy_et is needed to load any program.
RUNTIME_PACKAGE = "mpy_et"


def program_operators(pte):
    """Operator names ("aten::add.out", ...) the program's methods call."""
    from mpy_et.program import Program

    program = Program.load(pte)
    ops = set()
    for name in program.method_names:
        ops.update(program.operator_names(name))
    return sorted(ops)


def program_backends(pte):
    """Ids of the backends the program's methods delegate to ("UlabBackend", ...)."""
    from mpy_et.program import Program

    program = Program.load(pte)
    return sorted({b for name in program.method_names for b in program.backend_ids(name)})


def _module_path(module):
    return os.path.join(_ROOT, *module.split(".")) + ".py"


def _imports(module):
    """Device modules imported by `module` (dotted names within DEVICE_PACKAGES)."""
    with open(_module_path(module)) as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            # `from pkg import mod` may name a submodule: keep it when it is one.
            names = [node.module] + [node.module + "." + a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in DEVICE_PACKAGES and os.path.isfile(_module_path(name)):
                found.add(name)
    return found


def device_modules(operators, registry=None, backends=()):
    """{package: [module, ...]} needed to run programs calling `operators`
    and delegating to `backends` (ids, program_backends()).

    Operators the registry lacks are left out: the runtime reports them at
    load (OperatorMissing, every missing operator named); so are backends
    the runtime does not know (NotSupported naming the backend).
    """
    from mpy_et.backends import _KNOWN

    if registry is None:
        from portable_kernels.registry import KERNELS as registry
    todo = ["portable_kernels.registry"] + sorted({registry[op][0] for op in operators if op in registry})
    if backends:  # the registry package, and the modules of the backends it knows
        todo += ["mpy_et.backends.__init__"] + [_KNOWN[b] for b in backends if b in _KNOWN]
    todo += [RUNTIME_PACKAGE + "." + f[:-3] for f in os.listdir(os.path.join(_ROOT, RUNTIME_PACKAGE)) if f.endswith(".py")]
    seen = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(_imports(module) - seen)
    out = {pkg: [] for pkg in DEVICE_PACKAGES}
    for module in sorted(seen):
        pkg, _, name = module.partition(".")
        if name:
            out[pkg].append(name)
    return out
