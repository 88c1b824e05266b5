"""Recommender evaluation at catalogue scale: scores from factors, never stored whole."""

from .embeddings import evaluate_embeddings

__all__ = ["evaluate_embeddings"]
