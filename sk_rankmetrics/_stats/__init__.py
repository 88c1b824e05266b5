"""Comparing systems: paired tests, intervals, the report, estimators."""
