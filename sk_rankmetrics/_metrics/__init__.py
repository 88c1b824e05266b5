"""What each metric is (registry, names, requests, gains) and its per-row formula
(the kernels)."""
