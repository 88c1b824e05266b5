"""The scikit-learn integration: scorers, estimator responses, the group ranker."""
