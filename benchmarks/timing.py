"""Host-side timing shared by the benchmark scripts (run from this folder or the repo root)."""

import time


def median_us(fn, repeat):
    """Median wall time of fn() over `repeat` calls, in microseconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e6)
    return sorted(times)[len(times) // 2]
