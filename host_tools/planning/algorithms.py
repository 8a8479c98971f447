"""Placement algorithms: buffers with lifetimes -> offsets in one arena.

Each algorithm takes a list of lifetimes.Buffer and an alignment and
returns {owner: offset}. The planner runs them all and keeps the smallest.

- greedy_by_size: largest first, each at the lowest aligned offset that fits
  between the already placed buffers alive at the same time (TFLite Micro's
  GreedyMemoryPlanner).
- greedy_by_breadth: instructions in order of decreasing live bytes; the
  buffers alive there are placed largest first, best fit (TFLite GPU's
  "greedy by breadth").
- shuffled_restarts: greedy-by-size orders with random local swaps.
- greedy_by_start: buffers in order of first use, first fit.
- search: a depth-first search over placement orders in which each buffer
  goes at offset 0 or directly above a placed buffer alive at the same time
  (every placement can be pushed down into that form), with branch-and-bound
  against the best plan so far. Exact for up to EXACT_LIMIT buffers when it
  finishes within its node budget; for larger graphs it only tries the three
  largest remaining buffers at each level (a near-exact improvement).
"""

import random

EXACT_LIMIT = 10


def _align(n, alignment):
    return (n + alignment - 1) // alignment * alignment


def _first_fit(b, placed, alignment, best_fit=False):
    """Lowest (or, with best_fit, tightest) aligned offset where b fits beside placed."""
    if b.tail_from is not None or any(p.tail_from is not None for p, _ in placed):
        return _first_fit_tails(b, placed, alignment)
    size = _align(b.nbytes, alignment)
    busy = sorted((off, off + _align(p.nbytes, alignment)) for p, off in placed if p.overlaps(b))
    offset, best, best_gap = 0, None, None
    for start, end in busy:
        gap = start - offset
        if gap >= size:
            if not best_fit:
                return offset
            if best_gap is None or gap < best_gap:
                best, best_gap = offset, gap
        offset = max(offset, _align(end, alignment))
    return offset if best is None else best


def _first_fit_tails(b, placed, alignment):
    """_first_fit where a buffer narrows (lifetimes.Buffer.tail_from): what
    each pair can meet is its extent against the other, so b's room depends
    on the neighbour. The lowest aligned offset clear of all of them."""
    clash = [(off, _align(off + p.extent(b), alignment), _align(b.extent(p), alignment)) for p, off in placed if p.overlaps(b)]
    for cand in sorted({0} | {end for _, end, _ in clash}):
        if all(cand >= end or cand + need <= off for off, end, need in clash):
            return cand
    return max((end for _, end, _ in clash), default=0)


def _place_in_order(order, alignment, best_fit=False):
    placed, offsets = [], {}
    for b in order:
        off = _first_fit(b, placed, alignment, best_fit)
        offsets[b.owner] = off
        placed.append((b, off))
    return offsets


def size_of(bufs, offsets, alignment):
    return max((_align(offsets[b.owner] + b.nbytes, alignment) for b in bufs), default=0)


def greedy_by_size(bufs, alignment):
    return _place_in_order(sorted(bufs, key=lambda b: (-b.nbytes, b.start, b.owner)), alignment)


def greedy_by_size_best_fit(bufs, alignment):
    return _place_in_order(sorted(bufs, key=lambda b: (-b.nbytes, b.start, b.owner)), alignment, best_fit=True)


def greedy_by_area(bufs, alignment):
    """Largest size x lifetime first: long-lived big buffers settle at the bottom."""
    return _place_in_order(sorted(bufs, key=lambda b: (-b.nbytes * (b.end - b.start + 1), b.owner)), alignment)


def greedy_by_breadth(bufs, alignment):
    steps = sorted({s for b in bufs for s in (b.start, b.end)})
    breadth = {s: sum(_align(b.nbytes, alignment) for b in bufs if b.start <= s <= b.end) for s in steps}
    order, seen = [], set()
    for s in sorted(steps, key=lambda s: (-breadth[s], s)):
        for b in sorted((b for b in bufs if b.start <= s <= b.end), key=lambda b: (-b.nbytes, b.owner)):
            if b.owner not in seen:
                seen.add(b.owner)
                order.append(b)
    return _place_in_order(order, alignment, best_fit=True)


def greedy_by_start(bufs, alignment):
    """In order of first use (largest first among those starting together),
    each at the lowest offset that fits: many short-lived buffers around a few
    long ones (the bands of a patched stage, patch.py) pack as they come."""
    return _place_in_order(sorted(bufs, key=lambda b: (b.start, -b.nbytes, b.owner)), alignment)


def shuffled_restarts(bufs, alignment, tries=64, seed=0):
    """Greedy-by-size orders with random swaps of near neighbours; the best of `tries`."""
    rng = random.Random(seed)
    base = sorted(bufs, key=lambda b: (-b.nbytes, b.start, b.owner))
    best, best_size = None, None
    for _ in range(tries):
        order = list(base)
        for _ in range(max(1, len(order) // 4)):
            i = rng.randrange(len(order))
            j = min(len(order) - 1, i + rng.randrange(1, 4))
            order[i], order[j] = order[j], order[i]
        offsets = _place_in_order(order, alignment, best_fit=rng.random() < 0.5)
        size = size_of(bufs, offsets, alignment)
        if best is None or size < best_size:
            best, best_size = offsets, size
    return best


def search(bufs, alignment, bound, incumbent, max_nodes=200000):
    """Branch-and-bound placement: (offsets no larger than the incumbent's, proven optimal).

    bound: a lower bound (stop as soon as it is reached); incumbent: offsets
    of the best plan known.
    """
    best = [size_of(bufs, incumbent, alignment), dict(incumbent)]
    if best[0] <= bound:
        return best[1], True
    order = sorted(bufs, key=lambda b: (-b.nbytes, b.start, b.owner))
    sizes = {b.owner: _align(b.nbytes, alignment) for b in bufs}
    conflicts = {b.owner: [c for c in bufs if c is not b and c.overlaps(b)] for b in bufs}
    nodes = [0]
    offsets = {}

    def fits(b, off):
        for c in conflicts[b.owner]:
            o = offsets.get(c.owner)
            if o is not None and off < o + _align(c.extent(b), alignment) and o < off + _align(b.extent(c), alignment):
                return False
        return True

    def dfs(remaining, top):
        if best[0] <= bound or nodes[0] > max_nodes:
            return
        if not remaining:
            if top < best[0]:
                best[0], best[1] = top, dict(offsets)
            return
        nodes[0] += 1
        for k, b in enumerate(remaining):
            cands = {0} | {offsets[c.owner] + _align(c.extent(b), alignment) for c in conflicts[b.owner] if c.owner in offsets}
            rest = remaining[:k] + remaining[k + 1 :]
            for off in sorted(cands):
                new_top = max(top, off + sizes[b.owner])
                if new_top >= best[0] or not fits(b, off):
                    continue
                offsets[b.owner] = off
                dfs(rest, new_top)
                del offsets[b.owner]
            if k >= 2 and len(bufs) > EXACT_LIMIT:
                break

    dfs(order, 0)
    return best[1], nodes[0] <= max_nodes and len(bufs) <= EXACT_LIMIT


ALGORITHMS = {
    "greedy_by_size": greedy_by_size,
    "greedy_by_size_best_fit": greedy_by_size_best_fit,
    "greedy_by_area": greedy_by_area,
    "greedy_by_breadth": greedy_by_breadth,
    "shuffled_restarts": shuffled_restarts,
    "greedy_by_start": greedy_by_start,
}
