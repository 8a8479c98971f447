"""Backends a program can delegate to (ExecuTorch's backend delegates): device side."""
