"""ExecuTorch's ETDump flatbuffer from the ticks an mpy_et EventTracer recorded.

The device records raw ticks (mpy_et/event_tracer.py); this module writes
what ExecuTorch's runtime would have written for the same runs: per run one
RunData holding one ProfileEvent per instruction (named by its operator,
with its instruction id) and a "Method::execute" span, times in nanoseconds
(on the emulated boards, QEMU -icount shift=0: board instructions). The file
is size-prefixed with identifier ED00, as executorch.devtools.Inspector
expects (schema: host_tools/devtools/schema/etdump.fbs).
"""

import os

import flatbuffers

from host_tools.lowering import fbs
from host_tools.lowering.flatbuffer_writer import FlatbufferWriter
from mpy_et.errors import INVALID_ARGUMENT, MpyEtError

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "schema", "etdump.fbs")
VERSION = 0  # the schema version ExecuTorch 1.5's runtime writes
EXECUTE_EVENT = "Method::execute"  # ExecuTorch's name for the span of one execute()


class _SizePrefixedWriter(FlatbufferWriter):
    def serialize(self, root):
        b = flatbuffers.Builder(1024)
        self._shared = {}
        off = self._table(b, self.schema.root_type, root)
        b.FinishSizePrefixed(off, file_identifier=self.schema.file_identifier.encode())
        return bytes(b.Output())


def write(runs, method="forward", debug=None):
    """ETDump bytes for profiled runs.

    Args:
        runs: one list per run of (name, instruction_id, start_ns, end_ns);
            instruction_id -1 for a span that is not one instruction.
        method: the RunData name.
        debug: intermediate outputs, [(name, instruction_id, [(scalar type,
            sizes, offset in the debug buffer), ...])]: one DebugEvent per
            output tensor in every run (Inspector(..., debug_buffer_path=...)
            reads them as event.debug_data, and groups runs only when their
            events match). The device's buffer holds the last run's outputs;
            the profiled runs execute the same program on the same inputs.
    Returns:
        bytes (size-prefixed flatbuffer, identifier ED00).
    """
    run_data = []
    for events in runs:
        out = []
        for name, instruction, start, end in events:
            if start < 0 or end < start:
                raise MpyEtError(INVALID_ARGUMENT, "ETDump event %s (instruction %d): bad times %r..%r" % (name, instruction, start, end))
            out.append(
                {"profile_event": {"name": name, "chain_index": 0, "instruction_id": instruction, "start_time": start, "end_time": end}}
            )
        if debug:
            out += _debug_events(debug)
        run_data.append({"name": method, "bundled_input_index": -1, "events": out})
    return _SizePrefixedWriter(fbs.load(SCHEMA_PATH)).serialize({"version": VERSION, "run_data": run_data})


def _debug_events(debug):
    out = []
    for name, instruction, tensors in debug:
        for scalar_type, sizes, offset in tensors:
            strides, step = [], 1
            for d in reversed(sizes):
                strides.insert(0, step)
                step *= d
            tensor = {"scalar_type": scalar_type, "sizes": list(sizes), "strides": strides, "offset": offset}
            entry = {"val": _VALUE_TENSOR, "tensor": tensor}
            out.append({"debug_event": {"chain_index": 0, "instruction_id": instruction, "debug_entry": entry, "name": name}})
    return out


_VALUE_TENSOR = 5  # ValueType.Tensor
