"""Memory planning ahead of time: tensor lifetimes (`lifetimes.py`), placement
algorithms (`algorithms.py`), the planner with its verifier (`memory_plan.py`),
and patch-based execution of the first conv stages (`patch.py`, `patch_ops.py`).
"""
