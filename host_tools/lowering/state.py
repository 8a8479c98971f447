"""Mutable buffers: module state that forward updates in place.

torch.export functionalizes `self.state.copy_(new)` / `self.count += 1` into a
graph that returns the buffer's new value (an output of kind
BUFFER_MUTATION). As ExecuTorch's emitter does, the buffer becomes a planned
tensor alive across execute() calls, whose initial value the program carries
(ExecuTorch's `mutable_data_segments`), and the method ends with
`aten::copy_(buffer, new value)`, which writes the new value back.
"""

from torch.export.graph_signature import OutputKind

COPY_OP = "aten::copy_"


class StateError(Exception):
    """A kind of in-place update the exporter does not support."""


def mutated_buffers(ep, shared=()):
    """Names (fully qualified) of the buffers that live as state in this
    method: those it mutates, plus `shared` (buffers another method of the
    same program mutates; they must not become constants here).

    Raises StateError when forward mutates one of its inputs in place."""
    sig = ep.graph_signature
    inputs_mutated = getattr(sig, "user_inputs_to_mutate", None) or {}
    if inputs_mutated:
        raise StateError(
            "the method mutates its input(s) %s in place; return the new value instead (only buffers may be updated in place)"
            % sorted(inputs_mutated.values())
        )
    names = set(sig.buffers_to_mutate.values())
    buffers = set(sig.inputs_to_buffers.values())
    names.update(b for b in shared if b in buffers)
    return names


def output_roles(ep, outputs):
    """Pair each graph output with what it is: ("user", node) for a method
    output, ("state", node, fqn) for a buffer's new value."""
    roles = []
    for spec, node in zip(ep.graph_signature.output_specs, outputs):
        if spec.kind == OutputKind.BUFFER_MUTATION:
            roles.append(("state", node, spec.target))
        elif spec.kind == OutputKind.USER_OUTPUT:
            roles.append(("user", node))
        else:
            raise StateError("output %s of kind %s is not supported" % (spec.arg.name, spec.kind.name))
    return roles
