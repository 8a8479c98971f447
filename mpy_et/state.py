"""A method's mutable buffers (module state): planned tensors that keep
their values from one execute() to the next.

ExecuTorch marks them in the program two ways: a planned tensor with an
initial value (data_buffer_idx > 0 and allocation_info, the value in
Program.mutable_data_segments), or a planned tensor that `aten::copy_`
writes back at the end of the method (ExecuTorch's default export, whose
initial state is "meaningless": here it is zeros). Both are set to their
initial value when the method loads and by Method.reset_state().
Imported only by methods that have state.
"""


class State:
    """The state tensors of one method: (buffer, offset, view, source) each,
    where view is a memoryview of the tensor's bytes made at load and source
    the initial bytes (a memoryview into the program), their offset in the
    program file (a streamed program) or None (zeros)."""

    def __init__(self, file):
        self.items = []
        self.file = file  # Program.file: the open .pte of a streamed program, else None

    def add(self, t, source, initialize=True):
        """Register tensor t (planned) with its initial value, and set it to
        that value when `initialize`; once per place."""
        for buf, off, _, _ in self.items:
            if buf is t.buf and off == t.offset:
                return
        item = (t.buf, t.offset, t.buffer, source)
        self.items.append(item)
        if initialize:
            self._set(item)

    def nbytes(self):
        n = 0
        for item in self.items:
            n += len(item[2])
        return n

    def reset(self):
        """Every state tensor back to its initial value. Allocates nothing
        (a streamed program reads its initial values from the file)."""
        for item in self.items:
            self._set(item)

    def _set(self, item):
        view, source = item[2], item[3]
        if source is None:
            for i in range(len(view)):
                view[i] = 0
        elif isinstance(source, int):
            self.file.seek(source)
            self.file.readinto(view)
        else:
            view[:] = source
