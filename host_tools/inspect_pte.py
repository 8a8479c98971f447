"""Summaries of a .pte, read with the device runtime's own loader."""

from mpy_et import Program


def summary(data):
    """A few lines: methods, operators, instruction count, planned and constant bytes."""
    program = Program.load(data)
    lines = []
    for name in program.method_names:
        m = program.load_method(name)
        ops = sorted({op for _, op in m.step_ops()})
        lines.append(
            "method %s: %d inputs, %d outputs, %d instructions, planned arena %d bytes, constants %d bytes"
            % (name, m.inputs_size(), m.outputs_size(), len(m.step_ops()), m.planned_bytes, program.constant_size)
        )
        lines.append("  operators: %s" % ", ".join(ops))
    return "\n".join(lines)
