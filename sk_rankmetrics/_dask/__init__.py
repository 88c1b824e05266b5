"""Dask: the same kernels on partitions."""
