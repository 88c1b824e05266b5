"""Shared utilities every layer uses: errors and warnings, parameter constraints and
the parameter table, docstring templates, threads, the backend registry. Knows no metric."""
