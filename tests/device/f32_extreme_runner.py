# Runs on the Thumb-2 boards (tests/test_f32_extreme_thumb.py): float32 amax /
# amin through f32_extreme_thumb against f32_extreme_viper on the same walks,
# bit for bit (NaN, -0.0 and +0.0, infinities among random values).
import random

from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels.native import f32_extreme_thumb, f32_extreme_viper
from portable_kernels.util.reduce_extreme import extreme_walk

random.seed(5)
SPECIAL = [float("nan"), -0.0, 0.0, float("inf"), -float("inf"), 1.0, -1.0]


def tensor(sizes):
    t = Tensor(dtypes.FLOAT, sizes)
    t.bind(bytearray(t.nbytes), 0)
    return t


checked = 0
for sizes, dim, keep in (
    ([1, 6, 28, 28], [3], True),
    ([1, 6, 14, 2, 14, 2], [3, 5], False),
    ([2, 3, 4, 5], [1], False),
    ([2, 3, 4, 5], [0, 2], True),
    ([7, 9], [], False),
    ([7, 9], [0], False),
    ([4, 1, 6], [1], True),
):
    for trial in range(3):
        x = tensor(sizes)
        for i in range(x.numel):
            r = random.random()
            x.data[i] = SPECIAL[random.getrandbits(3) % 7] if r < 0.05 * trial else random.uniform(-3, 3)
        if keep:
            osz = [1 if (d in dim or not dim) else s for d, s in enumerate(sizes)]
        else:
            osz = [s for d, s in enumerate(sizes) if dim and d not in dim]
        for sign in (1, -1):
            a, b = tensor(osz), tensor(osz)
            walk = extreme_walk(x, dim, keep, a, "amax")
            assert f32_extreme_thumb.usable(walk)
            f32_extreme_thumb.extreme(x.data, a.data, walk, sign)
            f32_extreme_viper.extreme(x.data, b.data, walk, sign)
            assert bytes(a.buf) == bytes(b.buf), (sizes, dim, keep, sign, trial)
            checked += 1
print("CHECKED", checked)
