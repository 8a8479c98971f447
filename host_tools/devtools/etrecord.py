"""ETRecord from our export, so executorch.devtools.Inspector maps the events
of our ETDumps to the user's graph nodes and modules.

An ETRecord (ExecuTorch's zip, written by its ETRecord.save) holds the graph
that was lowered, each node with a "debug_handle", and per method the map
instruction id -> debug handles. Our export keeps the graph and each
instruction's node names (export(..., report=r): r["graph"],
r["instruction_nodes"]); this module numbers the graph's nodes and writes
the record. Inspector(etdump_path=..., etrecord=path) then fills each
event's debug_handles, stack_traces and module_hierarchy.
"""

import copy

from mpy_et.errors import INVALID_ARGUMENT, MpyEtError


def write(report, path, method="forward"):
    """Write the ETRecord of an export.

    Args:
        report: the dict export(..., report=report) filled.
        path: the file to write (ExecuTorch names them *.bin).
        method: the program's method name.
    """
    from executorch.devtools.etrecord import ETRecord

    if "graph" not in report or "instruction_nodes" not in report:
        raise MpyEtError(INVALID_ARGUMENT, "an ETRecord needs export(..., report=r)'s graph and instruction_nodes")
    graph = copy.deepcopy(report["graph"])  # the handles go on a copy: the caller's graph stays as it was
    _fill_values(graph)
    handles = {}
    for node in graph.graph.nodes:
        if node.op == "call_function":
            handles[node.name] = node.meta["debug_handle"] = len(handles) + 1
    debug_map, outs = {}, {}
    for i, names in enumerate(report["instruction_nodes"]):
        found = [handles[n] for n in names if n in handles]
        if found:
            debug_map[i] = found
            outs[i] = len(names)
    record = ETRecord(
        edge_dialect_program=graph,
        _debug_handle_map={method: debug_map},
        _instruction_id_to_num_outs_map={method: outs},
    )
    record.save(path)


def _fill_values(graph):
    """Give every node a "val" (the serializer needs one): nodes that graph
    passes added without it (batch-norm folding's arithmetic) get the value
    they compute on the program's example inputs."""
    missing = [n for n in graph.graph.nodes if n.op == "call_function" and "val" not in n.meta]
    if not missing:
        return
    from host_tools.devtools.values import node_values

    args, _ = graph.example_inputs
    values = node_values(graph, args)
    for n in missing:
        if n.name in values:
            n.meta["val"] = values[n.name]
