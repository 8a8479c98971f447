"""Load a method on the host as a board would, to size what it keeps there.

Run in a process of its own (`python -m host_tools.analysis.board_sim
TARGET PTE [METHOD]`, used by host_tools/analysis/board_ram.py): the kernel
modules are imported with the board's emitter flags
(portable_kernels/util/emitters.py: Thumb-2, 32-bit words), so the kernels
pick the fast paths the board would and build the same load-time objects
(control arrays, scratch rows, context tuples). The native functions
themselves are never called at load; their decorators are replaced by stubs,
so their modules import on CPython. Prints one JSON line: the device modules
the load imported, the operators, and the method's objects sized as a 32-bit
MicroPython lays them out (host_tools/analysis/mpy_sizes.py), arena included.
"""

import builtins
import json
import sys
import types

# MicroPython's native architecture numbers (sys.implementation._mpy bits 10..13)
ARCH = {"armv6m": 4, "armv7m": 5, "armv7em": 6, "armv7emsp": 7, "armv7emdp": 8}


def _stub_micropython():
    mp = types.ModuleType("micropython")

    def emitter(f):
        def native_function(*args):
            return 0

        native_function.__name__ = f.__name__
        return native_function

    mp.viper = mp.native = mp.asm_thumb = emitter
    mp.const = lambda x: x
    sys.modules["micropython"] = mp
    for name in ("ptr8", "ptr16", "ptr32", "uint"):  # viper's annotation types
        setattr(builtins, name, object)


def simulate(pte_path, march, method="forward"):
    import mpy_et.port  # noqa: F401  (decided on CPython before the stub exists)
    from mpy_et import Program

    before = set(sys.modules)
    from portable_kernels.util import emitters

    emitters.ARCH = ARCH[march]
    emitters.HAS_NATIVE = emitters.HAS_THUMB = True
    emitters.THUMB2 = ARCH[march] >= 5
    emitters.WIDE = False
    # the Cortex-M7 board (armv7emdp) has the DSP extension and a double-precision FPU; the
    # Cortex-M3 neither (the device reads them from the CPU's ID registers)
    emitters.DSP = emitters.FPU = emitters.FPU_DP = march == "armv7emdp"
    _stub_micropython()
    from host_tools.analysis.inspect_pte import method_objects
    from host_tools.analysis.mpy_sizes import BOARD

    with open(pte_path, "rb") as f:
        program = Program.load(f.read())
    m = program.load_method(method)
    modules = sorted(k for k in set(sys.modules) - before if k.split(".")[0] in ("mpy_et", "portable_kernels"))
    skip = {id(program.buf), id(program), id(program.reader)}
    # what steps reach through their modules: the shared scratch rows and a module's _shared
    # tuple (native/q_conv_dw3x3_thumb.py); a fresh process, so only this load's
    from portable_kernels.util import scratch

    roots = list(scratch._ROWS.values()) + list(scratch._WORDS.values()) + list(scratch._POOLS.values())
    roots += [sys.modules[k]._shared for k in modules if isinstance(getattr(sys.modules[k], "_shared", None), tuple)]
    return {
        "modules": modules,
        "operators": sorted(set(program.operator_names(method))),
        "objects": method_objects(m, BOARD, skip, roots),
        "program": BOARD.size(program, set(), {id(program.buf), id(program.reader)}),
        "arena": m.planned_bytes,
        "instructions": len(m._steps),
    }


if __name__ == "__main__":
    target_march, path = sys.argv[1], sys.argv[2]
    print(json.dumps(simulate(path, target_march, *sys.argv[3:4])))
