"""`mpy-et run --port PORT`: run a program on a board that holds a flashed
dist, and bring outputs and timings back (the same RunResult as the other
targets: host_tools/targets/run.py, host_tools/targets/device/run_program.py).

The job's files (the inputs, job.json and, unless the board already has the
same bytes next to the dist, the .pte) are put in RUN_DIR on the board,
copied only when they changed; then run_program.py is executed in the raw
REPL with DATA_DIR pointing there. The board imports mpy_et from its own
file system: run `mpy-et flash` first.
"""

import contextlib
import hashlib
import json
import os
import tempfile

from host_tools.deploy.build_targets import BuildError, compile_files, safe_name
from host_tools.deploy.flash import Device, FlashError, connect, device_path, link_errors
from host_tools.targets import TargetError
from host_tools.targets.run import job_files, parse_result, quantized_inputs

RUN_DIR = ".mpy_et_run"


def _bytes(data):
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    with open(data, "rb") as f:
        return f.read()


def run_on_port(port, pte, inputs, *, method="forward", repeat=3, heap_lock=False, timeout=600, dest="", transport=None):
    """Run `pte` (path or bytes) on the board at `port`; return a RunResult.

    Raises TargetError with the board's traceback (e.g. OperatorMissing when
    the flashed dist lacks a kernel) or when the link fails.
    """
    files, script = job_files(pte, quantized_inputs(pte, inputs), method, repeat, heap_lock)
    files = {name: _bytes(data) for name, data in files.items()}
    own = transport is None
    try:
        if own:
            transport = connect(port)
        dev = Device(transport)
        run_dir = device_path(dest, RUN_DIR)
        program = files.pop("model.pte")
        # The dist's copy of the program, if the board has it: no second copy.
        beside = device_path(dest, safe_name(pte) + ".pte") if not isinstance(pte, (bytes, bytearray)) else None
        sha = hashlib.sha256(program).hexdigest()
        if beside and _same(dev, beside, sha):
            job = json.loads(files["job.json"])
            job["pte"] = beside if beside.startswith("/") else transport.eval("os.getcwd()") + "/" + beside
            files["job.json"] = json.dumps(job).encode()
        else:
            files["model.pte"] = program
        _put(dev, run_dir, files)
        label = "port %s" % (port or "board")
        path = "import sys\nif %r not in sys.path:\n    sys.path.insert(0, %r)\n" % (dest, dest) if dest else ""
        source = "DATA_DIR = %r\n" % run_dir + script
        compiled = _compiled(transport, source)
        if compiled is None:
            out, err = transport.exec_raw(path + source, timeout=timeout)
        else:
            # Bytecode compiled on the host: the board's compiler would need
            # several KB of its heap for the script's parse tree.
            _put(dev, run_dir, {_JOB + ".mpy": compiled})
            code = "import sys\nsys.path.insert(0, %r)\ntry:\n    import %s\nfinally:\n    sys.path.pop(0)\n    sys.modules.pop(%r, None)\n"
            out, err = transport.exec_raw(path + code % (run_dir, _JOB, _JOB), timeout=timeout)
    except FlashError as e:
        raise TargetError(str(e)) from e
    except link_errors() as e:
        raise TargetError("lost the board on %s: %s" % (port, e)) from e
    finally:
        if own and transport is not None:
            with contextlib.suppress(Exception):
                transport.close()
    out = out.decode("utf-8", "replace")
    if err:
        err = err.decode("utf-8", "replace")
        hint = ""
        if "no module named 'mpy_et" in err.lower():
            hint = "\n(the board has no mpy_et: `mpy-et build PTE --target T -o dist && mpy-et flash dist --port %s`)" % port
        raise TargetError("%s raised:\n%s%s%s" % (label, out[-2000:], err[-4000:], hint))
    return parse_result(out, label)


_JOB = "mpy_et_job"


def _compiled(transport, source):
    """`source` as a bytecode .mpy the board loads, or None when it cannot
    (another .mpy version, CircuitPython's own format, no mpy-cross)."""
    board = transport.eval("__import__('sys').implementation.name == 'micropython' and __import__('sys').implementation._mpy & 0xff")
    with tempfile.TemporaryDirectory(prefix="mpy_et_job_") as tmp:
        src, dst = os.path.join(tmp, _JOB + ".py"), os.path.join(tmp, _JOB + ".mpy")
        with open(src, "w") as f:
            f.write(source)
        try:
            compile_files([(src, dst, _JOB + ".py")], None)
        except BuildError:
            return None
        with open(dst, "rb") as f:
            data = f.read()
    return data if board and data[1] == board else None


def _same(dev, path, sha):
    st = dev.state([path])[path]
    return isinstance(st, list) and st[1] == sha


def _put(dev, run_dir, files):
    for name, data in sorted(files.items()):
        path = run_dir + "/" + name
        if _same(dev, path, hashlib.sha256(data).hexdigest()):
            continue
        dev.mkdirs(path)
        dev.write(path, data, 0)
        if not _same(dev, path, hashlib.sha256(data).hexdigest()):
            raise FlashError("%s did not verify on the board after copying" % path)
