"""The package version, read by the package root, the command line and the build."""

__version__ = "0.1.0"
