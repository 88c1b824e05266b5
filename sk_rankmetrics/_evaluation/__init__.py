"""Evaluation: ranked chunks through the kernels to per-row values and one number."""
