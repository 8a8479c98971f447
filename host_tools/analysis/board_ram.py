"""The runtime's own RAM on a board, predicted on the host (`mpy-et inspect
--target cortex-m3`): what `Program.load` + the first `load_method` keep
beyond the planned arena, kernel-module imports included, as
`host_tools.run` measures it (`program_heap_bytes +
first_load_method_heap_bytes - arena_bytes`; benchmarks/board_zoo.md).

Three parts, each sized as the board lays it out:
- the method's objects: the load simulated on the host with the board's
  emitter flags (host_tools/analysis/board_sim.py), objects sized for 32-bit
  words (host_tools/analysis/mpy_sizes.py);
- each device module the load imports: its objects, measured once on the
  board (a table per target in board_ram/<target>.json, made by
  `python -m host_tools.analysis.board_ram TARGET`), and the registry the
  run deploys (the program's operators only);
- interned names (qstrs): modules run in place from ROMFS keep their
  names' characters in flash, but each new name takes an entry in
  MicroPython's qstr pools, which grow by doubling. The table records the
  pools' capacities and sizes and how many names the harness has interned
  before the load; the prediction counts the new names of the imported
  modules (read from their .mpy files) and adds the pools they overflow
  into: this is what moves the figure in 4-5 KB steps.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

_HERE = os.path.dirname(os.path.abspath(__file__))
TABLE_DIR = os.path.join(_HERE, "board_ram")
# The state the harness measures from: host_tools/targets/device/run_program.py
# loaded (its names interned, the runtime core imported), before the load. Its
# module-level code then stops at the missing DATA_DIR (set by the runner).
# The import after that failed one releases ~1.3 KB the failure left behind: an
# empty module takes that import, so it is not charged to the first module measured.
HARNESS_IMPORTS = "import gc\nimport sys\ntry:\n    import run_program\nexcept NameError:\n    pass\nimport mpy_et_ram_empty\n"
_HARNESS_SRC = os.path.join(os.path.dirname(_HERE), "targets", "device", "run_program.py")


class BoardRamError(Exception):
    pass


def table_path(target):
    return os.path.join(TABLE_DIR, target + ".json")


def read_table(target):
    path = table_path(target)
    if not os.path.isfile(path):
        raise BoardRamError("no import table for %s (make one: python -m host_tools.analysis.board_ram %s)" % (target, target))
    with open(path) as f:
        return json.load(f)


# --- names a .mpy interns ---------------------------------------------------


def _uint(data, i):
    v = 0
    while True:
        b = data[i]
        i += 1
        v = (v << 7) | (b & 0x7F)
        if not b & 0x80:
            return v, i


def mpy_qstrs(data):
    """The names a compiled module interns when it loads: its qstr table's
    entries that are not MicroPython's static qstrs (the first is the
    source file's name). MicroPython's .mpy v6 layout: 4 header bytes,
    n_qstr, n_obj, then each qstr as len << 1 (+ bytes + NUL) or index << 1 | 1."""
    if len(data) < 4 or data[0] != ord("M") or data[1] != 6:
        raise BoardRamError("not a .mpy v6 file")
    i = 4
    n_qstr, i = _uint(data, i)
    _, i = _uint(data, i)
    names = []
    for _ in range(n_qstr):
        v, i = _uint(data, i)
        if v & 1:
            continue  # static
        n = v >> 1
        names.append(bytes(data[i : i + n]).decode("utf-8", "replace"))
        i += n + 1
    return names


def compiled_qstrs(modules, march, registry_text=None):
    """{module: [names]} for dotted device module names, compiled with the
    board's mpy-cross options (host_tools/targets/board.compile_mpy)."""
    from host_tools.deploy.selective import _module_path
    from host_tools.targets.board import compile_mpy

    out = {}
    with tempfile.TemporaryDirectory(prefix="mpy_et_qstr_") as tmp:
        files = {}
        for m in modules:
            dst = os.path.join(tmp, *m.split(".")) + ".py"
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            src = _module_path(m)
            if m == "portable_kernels.registry" and registry_text is not None:
                with open(dst, "w") as f:
                    f.write(registry_text)
            elif os.path.isfile(src):
                with open(src) as f, open(dst, "w") as g:
                    g.write(f.read())
            else:  # a package
                pkg = os.path.join(os.path.dirname(src), m.split(".")[-1], "__init__.py")
                dst = os.path.join(tmp, *m.split("."), "__init__.py")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(pkg) as f, open(dst, "w") as g:
                    g.write(f.read())
            files[m] = dst[:-3] + ".mpy"
        compile_mpy(tmp, march)
        for m, path in files.items():
            with open(path, "rb") as f:
                out[m] = mpy_qstrs(f.read())
    return out


# --- measuring the table on a board ----------------------------------------

_QI = re.compile(r"qstr pool: n_pool=(\d+), n_qstr=(\d+), n_str_data_bytes=(\d+), n_total_bytes=(\d+)")


def _import_order():
    """Every device module, each after the modules it imports (packages first)."""
    from host_tools.deploy.selective import _imports
    from host_tools.device_packages import all_modules

    mods = []
    for pkg in ("mpy_et", "portable_kernels"):
        for m in all_modules(pkg):
            mods.append(pkg if m == "__init__" else pkg + "." + (m[: -len(".__init__")] if m.endswith(".__init__") else m))
    order, seen = [], set()

    def visit(m):
        if m in seen:
            return
        seen.add(m)
        parts = m.split(".")
        for k in range(1, len(parts)):
            visit(".".join(parts[:k]))
        try:
            deps = _imports(m)
        except OSError:
            deps = set()
        for d in sorted(deps):
            visit(d)
        order.append(m)

    for m in sorted(mods):
        visit(m)
    return order


def _device_code(order):
    lines = [
        HARNESS_IMPORTS,
        "import micropython",
        "def _free():\n    gc.collect()\n    gc.collect()\n    return gc.mem_free()",
        "print('MPY_ET_FREE', _free())",
        "print('MPY_ET_LOADED', ' '.join(sorted(k for k in sys.modules if k.startswith(('mpy_et', 'portable_kernels')))))",
        "micropython.qstr_info()",
        "print('MPY_ET_BASELINE_NAMES')",
        "micropython.qstr_info(1)",
        "print('MPY_ET_BASELINE_END')",
        # one measuring cycle first (nothing imported): whatever the first cycle allocates once
        # (the loop's list, its frame) must not be charged to the first module
        "_a = _free()\nmicropython.qstr_info()\n__import__('gc')\n_b = _free()\nmicropython.qstr_info()",
        "for _m in %r:" % (order,),
        "    if _m in sys.modules:\n        continue",
        "    _a = _free()\n    micropython.qstr_info()",
        "    try:\n        __import__(_m)\n    except Exception as _e:\n        print('MPY_ET_IMPORT_FAILED', _m, repr(_e))\n        continue",
        "    _b = _free()\n    micropython.qstr_info()",
        "    print('MPY_ET_IMPORT', _m, _a - _b)",
        "print('MPY_ET_FINAL_NAMES')",
        "micropython.qstr_info(1)",
        "print('MPY_ET_FINAL_END')",
        "print('MPY_ET_DONE')",
    ]
    return "\n".join(lines) + "\n"


def _probe_code():
    """Device code interning names one at a time after the harness's imports:
    the qstr pools' exact capacities and sizes."""
    lines = [
        HARNESS_IMPORTS,
        "import micropython",
        "class _C:\n    pass",
        "gc.collect()\ngc.collect()\nprint('MPY_ET_FREE', gc.mem_free())",
        "micropython.qstr_info()",
        "for _i in range(%d):" % _PROBE_NAMES,
        "    getattr(_C, 'p%d' % _i, None)",  # interns the name, stores nothing
        "    micropython.qstr_info()",
        "print('MPY_ET_DONE')",
    ]
    return "\n".join(lines) + "\n"


_PROBE_NAMES = 3800  # short names: their characters take heap here
# where the module table is measured when the target's heap cannot hold every module at once
_MODULES_ON = {"cortex-m3": "cortex-m3-large"}


def measure(target):
    """Measure the table of `target` on its emulated board; return it."""
    from host_tools.targets import board
    from host_tools.targets.common import stage_files

    order = _import_order()
    with tempfile.TemporaryDirectory(prefix="mpy_et_ram_table_") as tmp:
        root = os.path.join(tmp, "fs")
        os.mkdir(root)
        stage_files(root, None)
        with open(_HARNESS_SRC) as f, open(os.path.join(root, "run_program.py"), "w") as g:
            g.write(f.read())
        with open(os.path.join(root, "mpy_et_ram_table.py"), "w") as f:
            f.write(_device_code(order))
        with open(os.path.join(root, "mpy_et_ram_pools.py"), "w") as f:
            f.write(_probe_code())
        with open(os.path.join(root, "mpy_et_ram_empty.py"), "w") as f:
            f.write("# imported first: see HARNESS_IMPORTS\n")
        board.compile_mpy(root, board.BOARDS[target].march)
        image = os.path.join(tmp, "rom.img")
        board.build_romfs(root, image)
        # every module imported in one boot: on a small board, on its large sibling (the same
        # firmware with a bigger heap: the same object sizes and names)
        with board.Board(_MODULES_ON.get(target, target), romfs_image=image) as b:
            out = b.exec("import sys\nsys.path.insert(0, '/rom')\nimport mpy_et_ram_table\n", timeout=1200)
        with board.Board(target, romfs_image=image) as b:
            probe = b.exec("import sys\nsys.path.insert(0, '/rom')\nimport mpy_et_ram_pools\n", timeout=1200)
    table = _parse(out, target)
    table["pools"] = _pools(probe)
    table["baseline"]["heap_free"] = int(probe.split("MPY_ET_FREE ", 1)[1].split()[0])  # the target's own heap
    # names the modules hold that are in the firmware's own (static) pool: never interned
    final = table.pop("final_names") | set(table["baseline_names"])
    held = set()
    for found in compiled_qstrs([m for m in order if m in table["modules"]], table["march"]).values():
        held.update(found)
    table["firmware_names"] = sorted(n for n in held - final if "/" not in n)  # (not the source paths)
    return table


def _pools(out):
    """[{"first_name", "bytes"}]: the dynamic names count at which each new pool opens, and its bytes."""
    qi = [tuple(map(int, m.groups())) for m in map(_QI.match, out.splitlines()) if m]
    if "MPY_ET_DONE" not in out or not qi:
        raise BoardRamError("the pool probe did not finish:\n%s" % out[-2000:])
    pools = []
    for prev, cur in zip(qi, qi[1:]):
        if cur[0] == prev[0] + 1:  # one name added, one pool opened
            pools.append({"first_name": prev[1], "bytes": (cur[3] - cur[2]) - (prev[3] - prev[2])})
    return pools


def _parse(out, target):
    from host_tools.targets import board

    lines = out.splitlines()
    qi = []  # (n_pool, n_qstr, pool bytes) after each qstr_info()
    baseline_names, final_names, in_names = [], set(), None
    modules = {}
    last = None
    free = None
    loaded = []
    unavailable = []
    for line in lines:
        m = _QI.match(line)
        if m:
            n_pool, n_qstr, n_data, n_total = map(int, m.groups())
            last = (n_pool, n_qstr, n_total - n_data)
            qi.append(last)
            continue
        if line.startswith("MPY_ET_BASELINE_NAMES"):
            in_names = baseline_names
        elif line.startswith("MPY_ET_FINAL_NAMES"):
            in_names = final_names
        elif line.startswith(("MPY_ET_BASELINE_END", "MPY_ET_FINAL_END")):
            in_names = None
        elif in_names is not None and line.startswith("Q(") and line.endswith(")"):
            if in_names is final_names:
                final_names.add(line[2:-1])
            else:
                baseline_names.append(line[2:-1])
        elif line.startswith("MPY_ET_FREE "):
            free = int(line.split()[1])
        elif line.startswith("MPY_ET_IMPORT_FAILED "):  # e.g. a backend needing ulab, a module for another arch
            if "MemoryError" in line:
                raise BoardRamError("%s: the heap ran out importing %s: the table would be incomplete" % (target, line.split()[1]))
            unavailable.append(line.split()[1])
        elif line.startswith("MPY_ET_LOADED"):
            loaded = line.split()[1:]
        elif line.startswith("MPY_ET_IMPORT "):
            _, name, freed = line.split()
            before, after = qi[-2], qi[-1]
            # the module's own objects: what the import took minus the qstr pools it grew
            modules[name] = {"bytes": int(freed) - (after[2] - before[2]), "qstrs": after[1] - before[1]}
    if "MPY_ET_DONE" not in out or not qi:
        raise BoardRamError("%s: the table run did not finish:\n%s" % (target, out[-2000:]))
    baseline = qi[0]
    return {
        "target": target,
        "firmware": board.BOARDS[target].firmware,
        "march": board.BOARDS[target].march,
        "baseline": {"pools": baseline[0], "names": baseline[1], "pool_bytes": baseline[2], "heap_free": free},
        "baseline_names": sorted(baseline_names),
        "baseline_modules": loaded,
        "unavailable": unavailable,
        "final_names": final_names,
        "modules": modules,
    }


def pool_bytes(table, n_new):
    """Bytes of the qstr pools that n_new names beyond the harness's open."""
    have = table["baseline"]["names"]
    total = have + n_new
    return sum(p["bytes"] for p in table["pools"] if have <= p["first_name"] < total)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m host_tools.analysis.board_ram TARGET [TARGET ...]  (measures on the emulated board)")
        return 2
    for target in argv:
        table = measure(target)
        os.makedirs(TABLE_DIR, exist_ok=True)
        with open(table_path(target), "w") as f:
            json.dump(table, f, indent=1, sort_keys=True)
            f.write("\n")
        print("wrote %s: %d modules, %d pools" % (table_path(target), len(table["modules"]), len(table["pools"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())


def _simulate(target, pte_path, method):
    from host_tools.targets.board import BOARDS

    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(_HERE))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "host_tools.analysis.board_sim", BOARDS[target].march, pte_path, method],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    if proc.returncode:
        raise BoardRamError("simulating the load for %s failed:\n%s" % (target, proc.stderr[-2000:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def predict(data, target, method="forward"):
    """{"runtime_ram_bytes", parts...}: what the first load on `target` keeps
    beyond the arena (see the module's docstring). data: .pte bytes or path."""
    from host_tools.deploy.build import registry_source
    from portable_kernels.registry import KERNELS

    table = read_table(target)
    with tempfile.TemporaryDirectory(prefix="mpy_et_predict_") as tmp:
        path = data if isinstance(data, str) else os.path.join(tmp, "p.pte")
        if not isinstance(data, str):
            with open(path, "wb") as f:
                f.write(data)
        sim = _simulate(target, path, method)
    registry = "portable_kernels.registry"
    modules = [m for m in sim["modules"] if m != registry]
    unknown = [m for m in modules if m not in table["modules"]]
    imports = sum(table["modules"][m]["bytes"] for m in modules if m in table["modules"])
    ops = [op for op in sim["operators"] if op in KERNELS]
    full = table["modules"].get(registry, {"bytes": 0})["bytes"]
    registry_bytes = full * len(ops) // max(1, len(KERNELS))
    text = registry_source(ops, KERNELS, None)
    names = set()
    for found in compiled_qstrs(modules + [registry], table["march"], text).values():
        names.update(found)
    names -= set(table["baseline_names"]) | set(table.get("firmware_names", ()))
    for m in modules + [registry]:  # each import interns the module's dotted name and the file's path
        names.update((m, "/rom/" + m.replace(".", "/") + ".mpy"))
    pools = pool_bytes(table, len(names))
    objects = sim["objects"] - sim["arena"] + sim["program"]
    return {
        "target": target,
        "runtime_ram_bytes": imports + registry_bytes + pools + objects,
        "module_bytes": imports,
        "registry_bytes": registry_bytes,
        "qstr_pool_bytes": pools,
        "new_names": len(names),
        "method_object_bytes": objects,
        "modules": modules,
        "modules_not_in_table": unknown,
        "instructions": sim["instructions"],
        "arena_bytes": sim["arena"],
        "heap_free": table["baseline"].get("heap_free"),
    }


def describe(pred, arena):
    """Report lines for inspect."""
    free = pred.get("heap_free")
    need = arena + pred["runtime_ram_bytes"]
    lines = [
        "on %s (predicted; host_tools.run measures the same quantity): runtime RAM beyond the arena %d bytes"
        % (pred["target"], pred["runtime_ram_bytes"]),
        "  kernel modules %d B (%d imported), registry %d B, qstr pools %d B (%d new names), the method's objects %d B"
        % (
            pred["module_bytes"],
            len(pred["modules"]),
            pred["registry_bytes"],
            pred["qstr_pool_bytes"],
            pred["new_names"],
            pred["method_object_bytes"],
        ),
    ]
    if free:
        lines.append(
            "  arena + runtime RAM = %d bytes of ~%d free before the load: %s"
            % (need, free, "fits" if need <= free else "does NOT fit (%d bytes over)" % (need - free))
        )
    if pred["modules_not_in_table"]:
        lines.append("  (modules missing from the table, not counted: %s)" % ", ".join(pred["modules_not_in_table"]))
    return lines
