"""Sphinx configuration of the sk_rankmetrics documentation."""

import logging
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # document the checkout being built
sys.path.insert(0, str(ROOT / "docs" / "_ext"))  # the site's own extensions

import sk_rankmetrics  # noqa: E402

project = "sk_rankmetrics"
author = "sk_rankmetrics developers"
copyright = "sk_rankmetrics developers"
version = release = sk_rankmetrics.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    # MathJax 3 served from the site itself (_static/mathjax), not from a CDN,
    # so that formulas render offline and behind firewalls.
    "sphinx-mathjax-offline",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    # The metric reference tables, generated from the registry (docs/_ext).
    "metric_reference",
    # Fails the build if a page loads anything from outside the site (docs/_ext).
    "offline_check",
]

templates_path = ["_templates"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_templates", "examples/README.txt", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.md5", "auto_examples/*.json",
                    "auto_examples/*.zip"]

myst_enable_extensions = ["dollarmath", "amsmath", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
# The signatures carry type annotations (for type checkers); the pages show each
# parameter's type in the docstring's words instead of NumPy's expanded unions.
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

html_theme = "pydata_sphinx_theme"
html_title = f"sk_rankmetrics {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
    "header_links_before_dropdown": 5,
}
# The pages are reached from the top bar (and the API pages from the API
# reference); without a left sidebar the text, its tables and its code get the
# width of the window.
html_sidebars = {"**": []}
# The theme's colour mode follows the reader's system; without a default the
# theme logs a console error on a first visit.
html_context = {"default_mode": "auto"}
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"

# Links to the scikit-learn and NumPy docs. The inventories are fetched over the
# network; a build without network still succeeds (see _OfflineInventories).
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable/", None),
    "sklearn": ("https://scikit-learn.org/stable/", None),
}
intersphinx_timeout = 5

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "show_memory": False,
    "plot_gallery": "True",
    # The execution-time pages load Bootstrap and DataTables from CDNs: not built,
    # so that every page of the site loads only the site's own files.
    "write_computation_times": False,
}


class _OfflineInventories(logging.Filter):
    """Turn intersphinx's "failed to reach any of the inventories" into one note.

    Without network the inventories cannot be fetched; cross-references to
    scikit-learn and NumPy then render as plain text instead of failing a
    build run with warnings as errors. Every other warning stays an error.
    """

    said = False

    def filter(self, record):
        if "failed to reach any of the inventories" in str(record.msg):
            if _OfflineInventories.said:
                return False
            _OfflineInventories.said = True
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = "intersphinx: inventories not reachable (offline); links left plain."
            record.args = ()
            record.nonl = False
        return True


class _QuietMyst(logging.Filter):
    """Leave out the whole MyST configuration that myst-parser logs at every build."""

    def filter(self, record):
        return not re.sub(r"\x1b\[[0-9;]*m", "", str(record.msg)).startswith("myst v")


def _skip_generated_request_methods(app, what, name, obj, skip, options):
    """Leave out the ``set_*_request`` methods scikit-learn generates for estimators."""
    if "RequestMethod" in getattr(obj, "__qualname__", ""):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_generated_request_methods)
    for name in ("sphinx.sphinx.ext.intersphinx", "sphinx.sphinx.ext.intersphinx._load"):
        logging.getLogger(name).addFilter(_OfflineInventories())
    logging.getLogger("sphinx.myst_parser.sphinx_ext.main").addFilter(_QuietMyst())
