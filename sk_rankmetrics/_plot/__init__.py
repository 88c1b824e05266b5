"""Displays, one module each, and their shared style."""
