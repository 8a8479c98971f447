"""Generators of device source: each writes kernel modules from one hand-written
source and checks that the written copies are current (`--check`).
"""
