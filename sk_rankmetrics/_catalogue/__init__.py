"""Recommender evaluation at catalogue scale: scores from factors, never stored whole."""
