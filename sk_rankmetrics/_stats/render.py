"""The formats of the statistics reports, one way everywhere: numbers as text,
escaping for Markdown and LaTeX, text and LaTeX tables, wrapped lines, the notes
section, and JSON without NaN. :class:`~sk_rankmetrics.ComparisonReport`,
:class:`~sk_rankmetrics.LeaderboardReport` and the qrels reports write
through it."""

from __future__ import annotations

import json
import math

import numpy as np

from .._utils.errors import printable as _printable


def format_pvalue(p):
    """A p-value as text: four decimals, or ``<0.0001`` below that."""
    if p != p:
        return "nan"
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def format_value(v):
    """A mean or a difference as text: four decimals."""
    return "nan" if v != v else f"{v:.4f}"


def signed(v, digits=4):
    """``+0.0123``; a value that rounds to zero is ``+0.0000``, never ``-0.0000``."""
    if v != v:
        return "nan"
    text = f"{v:+.{digits}f}"
    return "+" + text[1:] if text[1:].strip("0.") == "" else text


#: Characters a Markdown table cell escapes with a backslash: the cell separator,
#: emphasis, code, links, HTML and entities.
_MARKDOWN_SPECIAL = frozenset("\\|*_`[]<>&~")


def escape_markdown(text):
    """``text`` as the content of a Markdown table cell, shown as written."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in _printable(text))


def json_ready(value):
    """``value`` with every number JSON can write: a non-finite float is None
    (JSON has no NaN), a NumPy scalar a Python one; containers are followed."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def json_text(doc):
    """A report's JSON document as text (no NaN: non-finite numbers are null)."""
    return json.dumps(json_ready(doc), indent=1, allow_nan=False)


#: Every character that LaTeX's text mode does not print as itself: its ten
#: special characters, those its fonts set as something else (``<`` is an
#: inverted exclamation mark in OT1, a backtick or a quote a curly quote; the
#: default OT1 encoding has no straight double quote but in its typewriter font),
#: the brackets (``[`` after a row's ``\\`` would be read as its argument)
#: and ``-`` (``--`` is a dash).
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}", "`": r"\textasciigrave{}", "'": r"\textquotesingle{}",
                  '"': r"{\ttfamily\char34}", "[": "{[}", "]": "{]}", "-": "-{}"}


def latex(text):
    """``text`` as LaTeX text, shown as written (on one line)."""
    out = "".join(_LATEX_SPECIAL.get(c, c) for c in _printable(text)).replace(",,", ",{},")
    return "{}" + out if out.startswith("*") else out  # \\* is a command of its own


def text_table(header, rows, right=()):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(f"{c:>{w}}" if i in right else f"{c:<{w}}"
                  for i, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in [header, *rows]
    )


#: Width of the lines of text outputs (tables excepted).
WIDTH = 88


def wrap(text, width=72, indent=""):
    """Break ``text`` at spaces into lines of at most about ``width`` characters."""
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = indent + w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return "\n".join(lines)


def text_notes(notes):
    """The lines of a text report's notes (none without notes)."""
    if not notes:
        return []
    return ["", "Notes:"] + [wrap(f"- {_printable(n)}", WIDTH, indent="  ") for n in notes]


def markdown_notes(notes):
    """The lines of a Markdown report's notes (none without notes)."""
    if not notes:
        return []
    return ["", "Notes:", ""] + [f"- {escape_markdown(n)}" for n in notes]


def wrap_row(cells, width=WIDTH):
    r"""A LaTeX table row ``a & b & ... \\``, broken after an ``&`` when it gets long
    (LaTeX reads the line break as a space)."""
    lines, line = [], cells[0]
    for c in cells[1:]:
        if len(line) + 3 + len(c) > width - 3:  # room for the closing " \\"
            lines.append(line + " &")
            line = "    " + c
        else:
            line = f"{line} & {c}"
    lines.append(line + r" \\")
    return "\n".join(lines)


def latex_table(caption, cols, header, rows):
    r"""The lines of one LaTeX table: ``caption``, the tabular columns ``cols``,
    the header (a list of cells, or a row already written) and the rows (lists
    of cells), each row as :func:`wrap_row` writes it."""
    head = header if isinstance(header, str) else wrap_row(header)
    return [r"\begin{table}", r"\centering", rf"\caption{{{wrap(caption)}}}",
            rf"\begin{{tabular}}{{{cols}}}", r"\hline", head, r"\hline",
            *(wrap_row(cells) for cells in rows), r"\hline", r"\end{tabular}",
            r"\end{table}"]
