"""Memory planning ahead of time: tensor lifetimes (`lifetimes.py`), placement
algorithms (`algorithms.py`) and the planner with its verifier (`memory_plan.py`).
"""
