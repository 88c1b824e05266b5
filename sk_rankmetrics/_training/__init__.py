"""Metrics inside a training loop: boosting libraries' custom evaluation metrics and
a mergeable accumulator of per-query values."""
