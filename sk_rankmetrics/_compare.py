r"""Comparing systems: :func:`compare`, :class:`ComparisonReport`, :func:`compare_estimators`.

This module turns what the systems were scored with (``EvaluationResult``,
mappings of per-query arrays, pandas objects, plain arrays) into one matrix
of paired per-query values per metric, hands each to
:func:`sk_rankmetrics._stats.compare_metric`, and formats the result. The
statistics themselves live in :mod:`sk_rankmetrics._stats`.
"""

from __future__ import annotations

import inspect
import json
import math
import numbers
import warnings
from collections.abc import Mapping

import numpy as np

from . import _stats
from ._registry import RESPONSE_METHODS, as_metric_list, split_request, validate
from ._validation import InvalidParameterError, as_ids, as_numeric_array, short_repr, unique, warn
from ._validation import printable as _printable

__all__ = ["ComparisonReport", "compare", "compare_estimators"]

_TEST_NAMES = {
    "t-test": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomisation (sign-flip) test",
    "bootstrap": "paired bootstrap test",
    "sign": "sign test",
}
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni",
                     "fdr_bh": "Benjamini-Hochberg"}


# -- formatting, one way everywhere ---------------------------------------------------


def format_pvalue(p):
    """A p-value as text: four decimals, or ``<0.0001`` below that."""
    if p != p:
        return "nan"
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def format_value(v):
    """A mean or a difference as text: four decimals."""
    return "nan" if v != v else f"{v:.4f}"


def _signed(v, digits=4):
    """``+0.0123``; a value that rounds to zero is ``+0.0000``, never ``-0.0000``."""
    if v != v:
        return "nan"
    text = f"{v:+.{digits}f}"
    return "+" + text[1:] if text[1:].strip("0.") == "" else text


#: Up to this many systems, each is marked by a letter (``a`` to ``z``) and a marker
#: lists letters (``^ac``); beyond, by its number, and a marker lists numbers
#: and ranges separated by commas (``^1,3-5,27``) so that they never run together.
_MAX_LETTERS = 26


def _system_ids(n):
    """The marks of ``n`` systems: letters up to 26 systems, numbers beyond."""
    if n <= _MAX_LETTERS:
        return [chr(97 + i) for i in range(n)]
    return [str(i + 1) for i in range(n)]


def _marker(indices, n, dash="-"):
    """The marker naming the systems at ``indices`` (sorted positions) among ``n``:
    ``ac`` with letters; ``1,3-5`` with numbers (three or more in a row as a range)."""
    if n <= _MAX_LETTERS:
        return "".join(chr(97 + i) for i in indices)
    parts, start = [], 0
    while start < len(indices):
        end = start
        while end + 1 < len(indices) and indices[end + 1] == indices[end] + 1:
            end += 1
        lo, hi = indices[start] + 1, indices[end] + 1
        if end - start >= 2:
            parts.append(f"{lo}{dash}{hi}")
        else:
            parts += [str(i + 1) for i in indices[start:end + 1]]
        start = end + 1
    return ",".join(parts)


#: Characters a Markdown table cell escapes with a backslash: the cell separator,
#: emphasis, code, links, HTML and entities.
_MARKDOWN_SPECIAL = frozenset("\\|*_`[]<>&~")


def _markdown(text):
    """``text`` as the content of a Markdown table cell, shown as written."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in _printable(text))


def _finite_or_none(v):
    if isinstance(v, (tuple, list)):
        return [_finite_or_none(x) for x in v]
    v = float(v)
    return v if math.isfinite(v) else None


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}"}


def _latex(text):
    """``text`` as LaTeX text, shown as written (on one line)."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in _printable(text))


def _text_table(header, rows, right=()):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(f"{c:>{w}}" if i in right else f"{c:<{w}}"
                  for i, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in [header, *rows]
    )


# -- the report -----------------------------------------------------------------------


class ComparisonReport:
    r"""Means, intervals and paired tests of several systems on several metrics.

    Built by :func:`compare` and :func:`compare_estimators`. Every statistic
    is a plain Python or NumPy value in a dict keyed by metric, then by
    system (``report.means["ndcg@10"]["bm25"]``) or by compared pair
    (``report.pvalues["ndcg@10"][("rerank", "bm25")]``). For a pair
    ``(a, b)`` the difference is ``a - b`` on every query:

    .. math::

        \bar d = \frac{1}{n} \sum_{q=1}^{n} (m_a(q) - m_b(q)), \qquad
        \mathrm{effect} = \bar d / s_d

    with :math:`s_d` the standard deviation (ddof 1) of the differences.

    Parameters
    ----------
    systems : list of str
        System names, in the order given.
    metrics : list of str
        Metric names.
    pairs : list of (str, str)
        The compared pairs ``(a, b)``, difference ``a - b``.
    query_ids : dict of str -> ndarray
        Per metric, the queries every statistic of that metric is computed on
        (positions ``0..n-1`` for inputs without query ids).
    per_query : dict of str -> dict of str -> ndarray
        Per metric and system, the values on those queries.
    stats : dict of str -> dict
        Per metric, the statistics computed by the comparison (the attributes
        below).
    settings : dict
        ``test``, ``correction``, ``alpha``, ``confidence_level``,
        ``n_resamples``, ``random_state``, ``baseline`` and ``on_missing``.
    notes : list of str
        What the comparison left out or treated as a special case.

    Attributes
    ----------
    n_queries : dict of str -> int
        Queries compared per metric.
    means : dict of str -> dict of str -> float
        Mean of each system.
    intervals : dict of str -> dict of str -> (float, float)
        BCa bootstrap confidence interval of each mean.
    differences : dict of str -> dict of (str, str) -> float
        Mean difference of each pair.
    difference_intervals : dict of str -> dict of (str, str) -> (float, float)
        BCa bootstrap confidence interval of each mean difference.
    effect_sizes : dict of str -> dict of (str, str) -> float
        Mean difference over the standard deviation of the differences.
    pvalues_raw : dict of str -> dict of (str, str) -> float
        Two-sided p-value of each pair's test.
    pvalues : dict of str -> dict of (str, str) -> float
        The p-values corrected for multiple testing over the pairs of each
        metric (equal to ``pvalues_raw`` when ``correction`` is None).
    significant : dict of str -> dict of (str, str) -> bool
        ``pvalues < alpha``.
    win_tie_loss : dict of str -> dict of (str, str) -> (int, int, int)
        Queries where ``a`` is higher than, equal to, lower than ``b``.
    exact : dict of str -> bool or None
        Per metric, whether the randomisation test enumerated every sign
        flip (None for the other tests).
    test, correction, alpha, confidence_level, n_resamples, random_state, baseline
        The settings of the comparison.

    See Also
    --------
    compare : Builds the report from scored systems.
    compare_estimators : Builds it from cross-validated estimators.

    Notes
    -----
    A system *significantly beats* another on a metric when their
    comparison's corrected p-value is below ``alpha`` and its mean is the
    higher one (every metric here: higher is better). Text outputs mark it
    with the other system's letter: ``^ab`` in :meth:`__str__`, a superscript
    in :meth:`to_markdown` and :meth:`to_latex`, where the best mean of each
    metric is also set in bold. Beyond 26 systems, systems are numbered and a
    marker lists numbers and ranges separated by commas (``^1,3-5,27``).
    Every output escapes the names (control characters as ``\n``-style
    escapes; Markdown's and LaTeX's special characters), so that no name can
    break a table. p-values are written one way everywhere:
    four decimals, ``<0.0001`` below that. In :meth:`to_json` non-finite
    numbers (an infinite effect size, the NaN interval of a single query)
    are ``null``.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import compare
    >>> rng = np.random.default_rng(0)
    >>> base = rng.uniform(size=30)
    >>> report = compare({"bm25": base, "rerank": base + 0.1 + 0.05 * rng.normal(size=30)},
    ...                  random_state=0)
    >>> report.pvalues["score"][("bm25", "rerank")] < 0.05
    True
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    #  system  score
    a  bm25    0.5344
    b  rerank  0.6482^a
    <BLANKLINE>
    ^x: significantly better than system x (paired t-test, one comparison per
    metric, p < 0.05; 30 queries)
    <BLANKLINE>
    metric  comparison     difference  95% CI              effect   W/T/L  p (raw)  p (holm)
    score   bm25 - rerank     -0.1138  [-0.1300, -0.0973]   -2.39  0/0/30  <0.0001   <0.0001
    """

    def __init__(self, *, systems, metrics, pairs, query_ids, per_query, stats, settings,
                 notes):
        self.systems = list(systems)
        self.metrics = list(metrics)
        self.pairs = [tuple(p) for p in pairs]
        self.query_ids = query_ids
        self.per_query = per_query
        self.settings = dict(settings)
        self.notes = list(notes)
        self.n_queries = {m: len(query_ids[m]) for m in self.metrics}
        index = {s: i for i, s in enumerate(self.systems)}
        self.means, self.intervals = {}, {}
        self.differences, self.difference_intervals, self.effect_sizes = {}, {}, {}
        self.pvalues_raw, self.pvalues, self.significant, self.win_tie_loss = {}, {}, {}, {}
        self.exact = {}
        alpha = self.settings["alpha"]
        for m in self.metrics:
            st = stats[m]
            self.means[m] = {s: float(st["means"][index[s]]) for s in self.systems}
            self.intervals[m] = {s: tuple(map(float, st["intervals"][index[s]]))
                                 for s in self.systems}
            self.differences[m] = {p: float(v) for p, v in zip(self.pairs, st["differences"])}
            self.difference_intervals[m] = {
                p: tuple(map(float, v)) for p, v in zip(self.pairs, st["difference_intervals"])
            }
            self.effect_sizes[m] = {p: float(v) for p, v in zip(self.pairs, st["effect_sizes"])}
            self.pvalues_raw[m] = {p: float(v) for p, v in zip(self.pairs, st["pvalues_raw"])}
            self.pvalues[m] = {p: float(v) for p, v in zip(self.pairs, st["pvalues"])}
            self.significant[m] = {p: bool(v < alpha) for p, v in self.pvalues[m].items()}
            self.win_tie_loss[m] = {p: tuple(map(int, v))
                                    for p, v in zip(self.pairs, st["win_tie_loss"])}
            self.exact[m] = st["exact"]

    # -- settings as attributes -------------------------------------------------------

    test = property(lambda self: self.settings["test"])
    correction = property(lambda self: self.settings["correction"])
    alpha = property(lambda self: self.settings["alpha"])
    confidence_level = property(lambda self: self.settings["confidence_level"])
    n_resamples = property(lambda self: self.settings["n_resamples"])
    random_state = property(lambda self: self.settings["random_state"])
    baseline = property(lambda self: self.settings["baseline"])

    # -- derived ------------------------------------------------------------------------

    def _letters(self):
        """Each system's mark: its letter (up to 26 systems) or its number."""
        return dict(zip(self.systems, _system_ids(len(self.systems))))

    def _beaten(self, metric, dash="-"):
        """Per system, the marker naming the systems it significantly beats."""
        index = {s: i for i, s in enumerate(self.systems)}
        out = {s: [] for s in self.systems}
        for (a, b), sig in self.significant[metric].items():
            if not sig:
                continue
            d = self.differences[metric][(a, b)]
            if d > 0:
                out[a].append(index[b])
            elif d < 0:
                out[b].append(index[a])
        n = len(self.systems)
        return {s: _marker(sorted(beaten), n, dash) for s, beaten in out.items()}

    def _best(self, metric):
        vals = self.means[metric]
        top = max(vals.values())
        return {s for s, v in vals.items() if v == top}

    def _family(self):
        test = _TEST_NAMES[self.test]
        n_pairs = len(self.pairs)
        if self.correction is None or n_pairs == 1:
            corr = "no correction" if self.correction is None else "one comparison per metric"
        else:
            corr = (f"{_CORRECTION_NAMES[self.correction]} correction over the {n_pairs} "
                    "comparisons of each metric")
        return test, corr

    def _queries_text(self):
        counts = sorted(set(self.n_queries.values()))
        if len(counts) == 1:
            return f"{counts[0]} queries"
        return "queries per metric: " + ", ".join(f"{m} {n}" for m, n in self.n_queries.items())

    def _legend(self, sup="^x"):
        test, corr = self._family()
        if len(self.systems) > _MAX_LETTERS:  # numbered systems
            what = (f"{sup.replace('x', '1,3-5')}: significantly better than systems 1, 3, "
                    "4 and 5")
        else:
            what = f"{sup}: significantly better than system x"
        return f"{what} ({test}, {corr}, p < {self.alpha:g}; {self._queries_text()})"

    def _pair_cells(self, name, dash="-", pvalue=format_pvalue):
        """The cells of the comparisons table, one list per (metric, pair), with
        the names passed through ``name``."""
        rows = []
        for r in self._pair_rows():
            rows.append([
                name(r["metric"]), f"{name(r['system_a'])} {dash} {name(r['system_b'])}",
                _signed(r["difference"]),
                f"[{_signed(r['ci_low'])}, {_signed(r['ci_high'])}]",
                _signed(r["effect_size"], 2),
                f"{r['wins']}/{r['ties']}/{r['losses']}",
                pvalue(r["p_raw"]), pvalue(r["p"]),
            ])
        return rows

    def _pair_header(self):
        level = f"{self.confidence_level * 100:g}% CI"
        corr = "p" if self.correction is None else f"p ({self.correction})"
        return ["metric", "comparison", "difference", level, "effect", "W/T/L", "p (raw)",
                corr]

    def _pair_rows(self):
        """One dict per (metric, pair), for :meth:`to_frame` and the command line."""
        rows = []
        for m in self.metrics:
            for p in self.pairs:
                a, b = p
                w, t, loss = self.win_tie_loss[m][p]
                lo, hi = self.difference_intervals[m][p]
                rows.append({
                    "metric": m, "system_a": a, "system_b": b,
                    "mean_a": self.means[m][a], "mean_b": self.means[m][b],
                    "difference": self.differences[m][p], "ci_low": lo, "ci_high": hi,
                    "effect_size": self.effect_sizes[m][p], "wins": w, "ties": t,
                    "losses": loss, "p_raw": self.pvalues_raw[m][p], "p": self.pvalues[m][p],
                    "significant": self.significant[m][p], "n_queries": self.n_queries[m],
                })
        return rows

    # -- outputs ------------------------------------------------------------------------

    def __repr__(self):
        n_m = len(self.metrics)
        return (f"ComparisonReport({len(self.systems)} systems, {n_m} "
                f"metric{'s' if n_m > 1 else ''}, "
                f"{self._queries_text()}, test={self.test!r}, "
                f"correction={self.correction!r})")

    def __str__(self):
        """Systems x metrics with markers and a legend, then every comparison.

        Returns
        -------
        text : str
            The two tables, the legend and the notes.
        """
        letters = self._letters()
        beaten = {m: self._beaten(m) for m in self.metrics}
        header = ["#", "system", *map(_printable, self.metrics)]
        columns = []
        for m in self.metrics:
            vals = [format_value(self.means[m][s]) for s in self.systems]
            marks = [f"^{beaten[m][s]}" if beaten[m][s] else "" for s in self.systems]
            wv, wm = max(map(len, vals)), max(map(len, marks))
            columns.append([f"{v:>{wv}}{k:<{wm}}" for v, k in zip(vals, marks)])
        rows = [[letters[s], _printable(s), *(col[i] for col in columns)]
                for i, s in enumerate(self.systems)]
        parts = [
            _text_table(header, rows, set()),
            "",
            _wrap(self._legend(), _WIDTH),
            "",
            _text_table(self._pair_header(), self._pair_cells(_printable),
                        {2, 4, 5, 6, 7}),
        ]
        if self.notes:
            parts += ["", "Notes:"] + [_wrap(f"- {_printable(n)}", _WIDTH, indent="  ")
                                       for n in self.notes]
        return "\n".join(parts)

    def to_markdown(self):
        """The report as Markdown (GitHub's pipe tables): both tables of the text report.

        Returns
        -------
        text : str
            The systems x metrics table and a line explaining its markers,
            then the table of every comparison (difference, interval, effect
            size, wins/ties/losses, raw and corrected p-values), then the
            notes. The best mean of each metric is in bold; ``<sup>ab</sup>``
            names the systems it significantly beats (beyond 26 systems,
            numbers such as ``<sup>1,3-5</sup>``). Names are escaped: no name
            can break a table or format its cell.

        Examples
        --------
        >>> from sk_rankmetrics import compare
        >>> report = compare({"A": [0.2, 0.4, 0.5, 0.1], "B": [0.3, 0.5, 0.6, 0.3]},
        ...                  random_state=0)
        >>> print(report.to_markdown())  # doctest: +NORMALIZE_WHITESPACE
        | # | system | score |
        |---|---|---:|
        | a | A | 0.3000 |
        | b | B | **0.4250**<sup>a</sup> |
        <BLANKLINE>
        <sup>x</sup>: significantly better than system x (paired t-test, one
        comparison per metric, p < 0.05; 4 queries); best mean of each metric in
        bold.
        <BLANKLINE>
        | metric | comparison | difference | 95% CI | effect | W/T/L | p (raw) | p (holm) |
        |---|---|---:|---:|---:|---:|---:|---:|
        | score | A - B | -0.1250 | [-0.1750, -0.1000] | -2.50 | 0/0/4 | 0.0154 | 0.0154 |
        """
        letters = self._letters()
        beaten = {m: self._beaten(m) for m in self.metrics}
        best = {m: self._best(m) for m in self.metrics}
        lines = ["| # | system | " + " | ".join(map(_markdown, self.metrics)) + " |",
                 "|---|---|" + "---:|" * len(self.metrics)]
        for s in self.systems:
            cells = []
            for m in self.metrics:
                v = format_value(self.means[m][s])
                if s in best[m]:
                    v = f"**{v}**"
                if beaten[m][s]:
                    v += f"<sup>{beaten[m][s]}</sup>"
                cells.append(v)
            lines.append(f"| {letters[s]} | {_markdown(s)} | " + " | ".join(cells) + " |")
        lines += ["", _wrap(self._legend("<sup>x</sup>") + "; best mean of each metric in "
                            "bold.", _WIDTH), ""]
        header = self._pair_header()
        lines += ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
        lines += ["| " + " | ".join(row) + " |"
                  for row in self._pair_cells(_markdown, pvalue=lambda p:
                                              format_pvalue(p).replace("<", "\\<"))]
        if self.notes:
            lines += ["", "Notes:", ""] + [f"- {_markdown(n)}" for n in self.notes]
        return "\n".join(lines)

    def to_latex(self):
        r"""The report as two LaTeX ``table`` environments for a paper.

        Returns
        -------
        text : str
            The systems x metrics table: one row per system (its letter, its
            name), one column per metric; the best mean of each metric in
            ``\textbf``, ``\textsuperscript`` letters naming the systems it
            significantly beats (beyond 26 systems, numbers such as
            ``1,3--5``), and a caption that says so. Then the table of every
            comparison (difference, interval, effect size, wins/ties/losses,
            raw and corrected p-values), with the notes in its caption. Names
            are escaped (LaTeX's special characters, control characters). It
            needs no LaTeX package.

        Examples
        --------
        >>> from sk_rankmetrics import compare
        >>> report = compare({"A": [0.2, 0.4, 0.5, 0.1], "B": [0.3, 0.5, 0.6, 0.3]},
        ...                  random_state=0)
        >>> print(report.to_latex())  # doctest: +ELLIPSIS
        \begin{table}
        \centering
        \caption{Mean of each metric over 4 queries. Bold: the best system of each
        metric. A superscript letter: significantly better than that system
        (paired t-test, one comparison per metric, $p < 0.05$).}
        \begin{tabular}{llr}
        \hline
        \# & System & score \\
        \hline
        a & A & 0.3000 \\
        b & B & \textbf{0.4250}\textsuperscript{a} \\
        \hline
        \end{tabular}
        \end{table}
        <BLANKLINE>
        \begin{table}
        \centering
        \caption{Paired comparisons (paired t-test, one comparison per metric):
        ...
        A $-$ B & $-$0.1250 & [$-$0.1750, $-$0.1000] & $-$2.50 & 0/0/4 & 0.0154 &
            0.0154 \\
        ...
        \end{table}
        """
        letters = self._letters()
        beaten = {m: self._beaten(m, dash="--") for m in self.metrics}
        best = {m: self._best(m) for m in self.metrics}
        test, corr = self._family()
        counts = sorted(set(self.n_queries.values()))
        over = (f"over {counts[0]} queries" if len(counts) == 1 else "over "
                + ", ".join(f"{n} queries ({_latex(m)})" for m, n in self.n_queries.items()))
        if len(self.systems) > _MAX_LETTERS:
            marks = ("A superscript number: significantly better than that system "
                     "(1,3--5: systems 1, 3, 4 and 5)")
        else:
            marks = "A superscript letter: significantly better than that system"
        caption = (f"Mean of each metric {over}. Bold: the best system of each metric. "
                   f"{marks} ({test}, {corr}, $p < {self.alpha:g}$).")
        lines = [r"\begin{table}", r"\centering", rf"\caption{{{_wrap(caption)}}}",
                 rf"\begin{{tabular}}{{ll{'r' * len(self.metrics)}}}", r"\hline",
                 r"\# & System & " + " & ".join(_latex(m) for m in self.metrics) + r" \\",
                 r"\hline"]
        for s in self.systems:
            cells = []
            for m in self.metrics:
                v = format_value(self.means[m][s])
                if s in best[m]:
                    v = rf"\textbf{{{v}}}"
                if beaten[m][s]:
                    v += rf"\textsuperscript{{{beaten[m][s]}}}"
                cells.append(v)
            lines.append(_wrap_row([letters[s], _latex(s), *cells]))
        lines += [r"\hline", r"\end{tabular}", r"\end{table}", ""]
        level = f"{self.confidence_level * 100:g}"
        caption = (f"Paired comparisons ({test}, {corr}): the difference of the means "
                   f"(first system minus second), its {level}\\% bootstrap confidence "
                   "interval, the effect size (mean difference over the standard deviation "
                   "of the differences), the queries where the first system wins, ties "
                   "and loses, and the raw and corrected $p$-values.")
        if self.notes:
            caption += " Notes: " + " ".join(_latex(n) for n in self.notes)
        p_corr = ("$p$" if self.correction is None
                  else f"$p$ ({_CORRECTION_NAMES[self.correction]})")
        header = ["Metric", "Comparison", "Difference", f"{level}\\% CI", "Effect", "W/T/L",
                  "$p$ (raw)", p_corr]
        lines += [r"\begin{table}", r"\centering", rf"\caption{{{_wrap(caption)}}}",
                  r"\begin{tabular}{llrrrrrr}", r"\hline", _wrap_row(header), r"\hline"]
        for row in self._pair_cells(_latex, dash="$-$",
                                    pvalue=lambda p: format_pvalue(p).replace("<", "$<$")):
            row[2:5] = [c.replace("-", "$-$") for c in row[2:5]]  # minus signs
            lines.append(_wrap_row(row))
        lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines)

    def to_json(self):
        """Every statistic as a JSON document.

        Returns
        -------
        text : str
            An object with ``settings``, ``systems``, ``metrics``,
            ``n_queries``, ``means``, ``intervals`` and ``comparisons`` (one
            object per metric and pair), and ``notes``. p-values are numbers
            at full precision; non-finite numbers are ``null``.

        Examples
        --------
        >>> import json
        >>> from sk_rankmetrics import compare
        >>> report = compare({"A": [0.2, 0.4, 0.5, 0.1], "B": [0.3, 0.5, 0.6, 0.3]},
        ...                  random_state=0)
        >>> doc = json.loads(report.to_json())
        >>> doc["comparisons"][0]["system_a"], round(doc["comparisons"][0]["p"], 4)
        ('A', 0.0154)
        """
        doc = {
            "settings": {k: (v if not isinstance(v, float) else _finite_or_none(v))
                         for k, v in self.settings.items()},
            "systems": self.systems,
            "metrics": self.metrics,
            "n_queries": self.n_queries,
            "means": {m: {s: _finite_or_none(v) for s, v in d.items()}
                      for m, d in self.means.items()},
            "intervals": {m: {s: _finite_or_none(v) for s, v in d.items()}
                          for m, d in self.intervals.items()},
            "comparisons": [
                {k: (_finite_or_none(v) if isinstance(v, float) else v) for k, v in r.items()}
                for r in self._pair_rows()
            ],
            "exact": self.exact,
            "notes": self.notes,
        }
        return json.dumps(doc, indent=1, allow_nan=False)

    @validate
    def to_frame(self, *, rows="systems"):
        """The statistics as a pandas DataFrame (pandas is imported here).

        Parameters
        ----------
        rows : {"systems", "pairs"}, default="systems"
            ``"systems"``: one row per system, columns ``(metric, "mean")``,
            ``(metric, "ci_low")``, ``(metric, "ci_high")``. ``"pairs"``: one
            row per metric and compared pair, with both means, the
            difference, its interval, the effect size, wins/ties/losses, the
            raw and corrected p-values, ``significant`` and ``n_queries``.

        Returns
        -------
        frame : pandas.DataFrame
            The table.

        Examples
        --------
        >>> from sk_rankmetrics import compare
        >>> report = compare({"A": [0.2, 0.4, 0.5, 0.1], "B": [0.3, 0.5, 0.6, 0.3]},
        ...                  random_state=0)
        >>> report.to_frame()[("score", "mean")].round(3).tolist()
        [0.3, 0.425]
        >>> report.to_frame(rows="pairs")[["system_a", "system_b", "wins", "losses"]]
          system_a system_b  wins  losses
        0        A        B     0       4
        """
        import pandas as pd

        if rows == "pairs":
            return pd.DataFrame(self._pair_rows())
        data = {}
        for m in self.metrics:
            data[(m, "mean")] = [self.means[m][s] for s in self.systems]
            data[(m, "ci_low")] = [self.intervals[m][s][0] for s in self.systems]
            data[(m, "ci_high")] = [self.intervals[m][s][1] for s in self.systems]
        frame = pd.DataFrame(data, index=pd.Index(self.systems, name="system"))
        frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["metric", None])
        return frame


#: Width of the lines of text outputs (tables excepted).
_WIDTH = 88


def _wrap(text, width=72, indent=""):
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


def _wrap_row(cells, width=_WIDTH):
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


# -- reading the inputs ---------------------------------------------------------------


def _values(v, where):
    arr = as_numeric_array(v, where)
    if arr.ndim != 1:
        raise ValueError(f"{where} must be 1-D (one value per query), got shape {arr.shape}.")
    arr = arr.astype(np.float64)
    if np.isinf(arr).any():
        i = int(np.flatnonzero(np.isinf(arr))[0])
        raise ValueError(f"{where} is infinite at entry {i}; per-query values must be finite "
                         "(NaN marks a query left out, as no_relevant='skip' does).")
    return arr


def _system(name, value):
    """``(query ids or None, {metric: values})`` of one system."""
    where = f"results[{name!r}]"
    if hasattr(value, "per_query") and hasattr(value, "query_ids"):  # EvaluationResult
        ids = as_ids(value.query_ids, f"{where}.query_ids")
        cols = {m: _values(v, f"{where}.per_query[{m!r}]") for m, v in value.per_query.items()}
    elif hasattr(value, "columns") and hasattr(value, "index"):  # pandas DataFrame
        ids = as_ids(value.index.to_numpy(), f"{where}.index")
        cols = {str(c): _values(value[c].to_numpy(), f"{where}[{c!r}]") for c in value.columns}
    elif hasattr(value, "index") and hasattr(value, "to_numpy"):  # pandas Series
        ids = as_ids(value.index.to_numpy(), f"{where}.index")
        cols = {"score": _values(value.to_numpy(), where)}
    elif isinstance(value, Mapping):
        ids = None
        bad = [m for m in value if not isinstance(m, str)]
        if bad:
            raise InvalidParameterError(f"{where} must map metric names (strings) to per-query "
                                        f"values, got the key {short_repr(bad[0])}.")
        cols = {m: _values(v, f"{where}[{m!r}]") for m, v in value.items()}
    else:
        ids = None
        cols = {"score": _values(value, where)}
    if not cols:
        raise ValueError(f"{where} has no metric.")
    lengths = {m: v.shape[0] for m, v in cols.items()}
    n = len(ids) if ids is not None else next(iter(lengths.values()))
    for m, k in lengths.items():
        if k != n:
            raise ValueError(f"{where}: metric {m!r} has {k} values, but the system has {n} "
                             "queries; every metric needs one value per query.")
    if ids is not None:
        uniq, counts = np.unique(ids, return_counts=True)
        if (counts > 1).any():
            raise ValueError(f"{where}: query {uniq[counts > 1][0].item()!r} appears "
                             f"{int(counts.max())} times; query ids must be unique.")
    return ids, cols


def _systems(results):
    if not isinstance(results, Mapping):
        raise InvalidParameterError(
            "results must be a mapping {system name: scores}, with scores an EvaluationResult, "
            "a mapping {metric: per-query values} or an array of per-query values; got "
            f"{type(results).__name__}."
        )
    if len(results) < 2:
        raise ValueError(f"results holds {len(results)} system(s); a comparison needs at "
                         "least two.")
    bad = [k for k in results if not isinstance(k, str)]
    if bad:
        raise InvalidParameterError(f"results must be keyed by system names (strings), got the "
                                    f"key {short_repr(bad[0])}.")
    return {name: _system(name, value) for name, value in results.items()}


def _choose_metrics(systems, metrics):
    names = list(systems)
    have = {s: list(cols) for s, (_, cols) in systems.items()}
    if metrics is None:
        chosen = have[names[0]]
        for s in names[1:]:
            if set(have[s]) != set(chosen):
                extra = sorted(set(have[s]) ^ set(chosen))
                raise ValueError(
                    f"results: the systems have different metrics ({names[0]!r}: "
                    f"{', '.join(chosen)}; {s!r}: {', '.join(have[s])}; not in both: "
                    f"{', '.join(extra)}). Name the metrics to compare with metrics=[...]."
                )
        return list(chosen)
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        chosen = list(metrics)
    except TypeError:
        raise InvalidParameterError(f"metrics must be a metric name or a list of them, got "
                                    f"{short_repr(metrics)}.") from None
    if not chosen or not all(isinstance(m, str) for m in chosen):
        raise InvalidParameterError(f"metrics must be a non-empty list of metric names, got "
                                    f"{short_repr(metrics)}.")
    if len(set(chosen)) != len(chosen):
        raise InvalidParameterError(f"metrics names a metric twice: {chosen}.")
    for s in names:
        for m in chosen:
            if m not in have[s]:
                raise ValueError(f"metrics: {m!r} is not among the metrics of system {s!r} "
                                 f"({', '.join(have[s])}).")
    return chosen


def _count(n, one, many):
    return f"{n} {one if n == 1 else many}"


def _shown(ids, limit=5):
    items = ", ".join(repr(i) for i in ids[:limit].tolist())
    return items + (", ..." if len(ids) > limit else "")


def _pair_queries(systems, on_missing, notes):
    """Shared query ids and, per system, the positions of those queries."""
    names = list(systems)
    ids = {s: systems[s][0] for s in names}
    with_ids = [s for s in names if ids[s] is not None]
    if with_ids and len(with_ids) != len(names):
        without = [s for s in names if ids[s] is None]
        raise InvalidParameterError(
            f"results mixes systems with query ids ({', '.join(map(repr, with_ids))}) and "
            f"without ({', '.join(map(repr, without))}): queries can be paired by id or by "
            "position, not both. Give every system as an EvaluationResult (or a pandas "
            "object indexed by query), or every system as plain arrays."
        )
    if not with_ids:
        lengths = {s: next(iter(systems[s][1].values())).shape[0] for s in names}
        if len(set(lengths.values())) > 1:
            raise ValueError(
                "results: the systems have different numbers of queries ("
                + ", ".join(f"{s!r}: {n}" for s, n in lengths.items())
                + ") and no query ids to pair them by; give EvaluationResults or pandas "
                "objects indexed by query id."
            )
        n = lengths[names[0]]
        return np.arange(n), {s: np.arange(n) for s in names}
    kinds = {s: ids[s].dtype.kind for s in names}
    if len({k == "U" for k in kinds.values()}) > 1:
        raise ValueError("results: some systems have integer query ids and others string ids "
                         f"({', '.join(f'{s!r}: {ids[s].dtype}' for s in names)}), so no "
                         "query can be paired; give the ids one type.")
    union = unique(np.concatenate([ids[s] for s in names]))
    lacking = {s: np.setdiff1d(union, ids[s]) for s in names}
    missing = {s: v for s, v in lacking.items() if v.size}
    first = ids[names[0]]
    keep = np.ones(first.shape[0], dtype=bool)
    for s in names[1:]:
        keep &= np.isin(first, ids[s])
    shared = first[keep]
    if missing:
        if on_missing == "raise" or shared.size == 0:
            detail = "; ".join(f"{s!r} lacks {v.size} ({_shown(v)})" for s, v in missing.items())
            advice = ("Score every query in every system (evaluate_run(..., complete=True), "
                      "or -c on the command line, scores a query missing from a run as 0)")
            if shared.size:
                advice += (f", or compare on the {_count(shared.size, 'query', 'queries')} "
                           "they share with on_missing='drop' (--on-missing drop).")
            else:
                advice = "They share no query at all. " + advice + "."
            raise ValueError(f"results: the systems do not have the same queries: {detail}. "
                             + advice)
        notes.append(f"{union.size - shared.size} of {union.size} queries, not scored in "
                     "every system, were left out (on_missing='drop').")
    positions = {}
    for s in names:
        order = np.argsort(ids[s], kind="stable")
        positions[s] = order[np.searchsorted(ids[s], shared, sorter=order)]
    return shared, positions


@validate
def compare(results, *, metrics=None, test="t-test", correction="holm", baseline=None,
            alpha=0.05, confidence_level=0.95, n_resamples=10_000, random_state=None,
            on_missing="raise"):
    r"""Compare systems on their per-query values: paired tests, intervals, effect sizes.

    For every metric, each system's mean comes with a confidence interval,
    and each compared pair ``(a, b)`` with the mean of the per-query
    differences :math:`d_q = m_a(q) - m_b(q)`, its interval, the effect size
    :math:`\bar d / s_d`, win/tie/loss counts and a two-sided p-value,
    corrected for the multiple comparisons of the metric.

    Parameters
    ----------
    results : mapping of str -> EvaluationResult, mapping or array-like
        ``{system name: scores}``. Scores are an :class:`EvaluationResult`
        (from :func:`evaluate_run` or :func:`evaluate_ranked`; queries are
        paired by ``query_ids``), a pandas DataFrame (one column per metric,
        indexed by query id) or Series (indexed by query id), a mapping
        ``{metric: per-query values}`` (from ``per_row=True``; paired by
        position) or a 1-D array of per-query values (one metric, named
        ``"score"``).
    metrics : str or list of str, default=None
        The metrics to compare; None compares every metric, which must then
        be the same for every system.
    test : {"t-test", "wilcoxon", "randomization", "bootstrap", "sign"}, default="t-test"
        The paired two-sided test: Student's paired t-test
        (``scipy.stats.ttest_rel``), the Wilcoxon signed-rank test
        (``scipy.stats.wilcoxon``: zero differences dropped, exact
        distribution where SciPy uses it), Fisher's randomisation test
        (random sign flips of the differences; every flip enumerated when
        :math:`2^{n-1} \le \max(\mathrm{n\_resamples}, 2^{15})`, so for
        :math:`n \le 16`), a bootstrap test of the mean difference, or the
        sign test (exact binomial test of wins against losses).
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        Multiple-testing correction over the comparisons of each metric:
        Holm's step-down (controls the family-wise error rate, and is never
        less powerful than Bonferroni), Bonferroni, Benjamini-Hochberg (the
        false discovery rate), or none.
    baseline : str, default=None
        None compares every pair of systems (``(a, b)`` in the order of
        ``results``, difference ``a - b``); a system's name compares every
        other system with it (difference ``system - baseline``).
    alpha : float, default=0.05
        Significance level of the markers and of ``report.significant``.
    confidence_level : float, default=0.95
        Level of the BCa bootstrap intervals.
    n_resamples : int, default=10_000
        Bootstrap resamples of the queries (intervals and the bootstrap
        test) and random sign flips of the randomisation test.
    random_state : int, default=None
        Seed of the resamples and sign flips; None draws a fresh one.
    on_missing : {"raise", "drop"}, default="raise"
        What to do with queries that some systems have and others lack:
        raise an error that names them, or leave them out.

    Returns
    -------
    report : ComparisonReport
        Means, intervals, differences, effect sizes, raw and corrected
        p-values and win/tie/loss counts; ``print(report)``,
        ``report.to_latex()``, ``report.to_markdown()``...

    See Also
    --------
    compare_estimators : The same comparison for cross-validated estimators.
    QueryDifferenceDisplay : Plot the per-query differences of two systems.

    Notes
    -----
    **Pairing.** Queries are paired by id when the scores carry ids, by
    position otherwise. A query that one system lacks raises (or is left
    out with ``on_missing="drop"``). Per metric, a query whose value is NaN
    in any system (``no_relevant="skip"`` makes such values) is left out of
    every mean, interval and test of that metric, so that the means in the
    table are over the same queries as the tests; the report notes how
    many, and a warning is given when the systems disagree on which queries
    are NaN (then the means differ from each system's own).

    **Intervals.** Each mean's interval is the bias-corrected and
    accelerated (BCa) bootstrap interval over queries [1]_, computed as
    ``scipy.stats.bootstrap(method="BCa")`` computes it; one set of
    resamples of the queries serves every system of a metric, so a
    difference's interval comes from the same resamples as the two means.
    The bootstrap test's two-sided p-value is :math:`(1 + \#\{|\theta^*_b -
    \bar d| \ge |\bar d|\}) / (1 + B)` over the bootstrap means
    :math:`\theta^*_b` of the differences [1]_. The randomisation test's
    p-value is the fraction of sign vectors :math:`s` with
    :math:`|\sum_q s_q d_q| \ge |\sum_q d_q|` (exact), or :math:`(1 +
    \mathrm{hits}) / (1 + B)` with random sign vectors [2]_.

    **Degenerate inputs** give stated values, never a NaN p-value:
    a difference that rounds to 0 on a grid of :math:`2^{-40}` times the
    largest value of the metric (about :math:`10^{-12}` of it) is 0, so that
    round-off never turns a tie into a win (``0.1 + 0.2 - 0.3``), and the
    Wilcoxon test ranks the differences rounded to that grid, so that
    round-off does not break a tie between equal differences (``0.3 - 0.2``
    and ``0.5 - 0.4``); with one query every p-value is 1, and the
    intervals and effect sizes are NaN (with a warning); when every
    difference is 0 the p-value is 1, the interval (0, 0) and the effect
    size 0; when every difference is the same number :math:`c \ne 0` the
    t statistic is infinite and the t-test reports :math:`2/2^n`, the exact
    randomisation p-value of such data, with interval :math:`(c, c)` and an
    infinite effect size; a system whose values are all equal to :math:`v`
    has the interval :math:`(v, v)`.

    Every metric is taken as higher-is-better when marking which system
    beats which. Cost: :math:`O(B\,n\,S)` time per metric for :math:`B`
    resamples, :math:`n` queries and :math:`S` systems, in blocks of bounded
    memory, plus the :math:`B \times S` bootstrap means (:math:`8BS` bytes)
    and one test per pair.

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. (1993). An Introduction to the
           Bootstrap. Chapman & Hall, chapters 14 and 16.
    .. [2] Smucker, M. D., Allan, J. and Carterette, B. (2007). A comparison
           of statistical significance tests for information retrieval
           evaluation. CIKM 2007, 623-632.

    Examples
    --------
    >>> from sk_rankmetrics import compare, evaluate_ranked
    >>> truth = {"u1": {"a"}, "u2": {"b"}, "u3": {"c"}, "u4": {"a", "d"}, "u5": {"e"},
    ...          "u6": {"b"}}
    >>> popular = evaluate_ranked({u: ["a", "b", "c", "d", "e"] for u in truth}, truth,
    ...                           ["mrr", "ndcg@3"])
    >>> knn = evaluate_ranked({"u1": ["a", "b"], "u2": ["b", "a"], "u3": ["c", "a"],
    ...                        "u4": ["d", "a"], "u5": ["a", "e"], "u6": ["c", "b"]},
    ...                       truth, ["mrr", "ndcg@3"])
    >>> report = compare({"popular": popular, "knn": knn}, test="randomization",
    ...                  random_state=0)
    >>> report.means["mrr"]
    {'popular': 0.5888888888888889, 'knn': 0.8333333333333334}
    >>> report.pvalues["mrr"][("popular", "knn")]  # exact: every sign flip enumerated
    0.25
    >>> report.win_tie_loss["ndcg@3"][("popular", "knn")]
    (0, 2, 4)
    """
    notes = []
    systems = _systems(results)
    names = list(systems)
    chosen = _choose_metrics(systems, metrics)
    if baseline is not None and baseline not in systems:
        raise InvalidParameterError(f"compare: baseline={baseline!r} is not one of the systems "
                                    f"({', '.join(map(repr, names))}).")
    shared, positions = _pair_queries(systems, on_missing, notes)
    if baseline is None:
        pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    else:
        b = names.index(baseline)
        pairs = [(i, b) for i in range(len(names)) if i != b]
    rng = _stats.rng_from(random_state)
    query_ids, per_query, stats = {}, {}, {}
    for m in chosen:
        V = np.column_stack([systems[s][1][m][positions[s]] for s in names])
        nan = np.isnan(V)
        keep = ~nan.any(axis=1)
        dropped = int((~keep).sum())
        if dropped:
            partial = int((nan.any(axis=1) & ~nan.all(axis=1)).sum())
            notes.append(f"{m}: {_count(dropped, 'query', 'queries')} with NaN in some "
                         f"system {'was' if dropped == 1 else 'were'} left out.")
            if partial:
                warn(f"compare: for {m!r}, {_count(partial, 'query', 'queries')} NaN in "
                     "some systems but not in others; left out of every system's mean and "
                     "test of this metric, so the means differ from the systems' own.")
        V = V[keep]
        if V.shape[0] == 0:
            raise ValueError(f"results: metric {m!r} has no query with a value in every "
                             "system (all are NaN or missing).")
        if V.shape[0] == 1:
            notes.append(f"{m}: one query only: every p-value is 1, intervals and effect "
                         "sizes are NaN.")
            warn(f"compare: {m!r} has a single query in common; nothing can be tested "
                 "(p-values 1, intervals NaN).")
        query_ids[m] = shared[keep]
        per_query[m] = {s: V[:, i] for i, s in enumerate(names)}
        stats[m] = _stats.compare_metric(
            V, pairs, test=test, correction=correction, confidence_level=confidence_level,
            n_resamples=n_resamples, rng=rng,
        )
        if test == "randomization":
            how = (f"exact, every sign flip of the {V.shape[0]} queries enumerated"
                   if stats[m]["exact"] else f"{n_resamples} random sign flips")
            notes.append(f"{m}: randomisation test {how}.")
    settings = dict(test=test, correction=correction, alpha=alpha,
                    confidence_level=confidence_level, n_resamples=n_resamples,
                    random_state=random_state, baseline=baseline, on_missing=on_missing)
    return ComparisonReport(
        systems=names, metrics=chosen, pairs=[(names[i], names[j]) for i, j in pairs],
        query_ids=query_ids, per_query=per_query, stats=stats, settings=settings, notes=notes,
    )


# -- estimators under cross-validation ---------------------------------------------------


def _n_samples(x):
    if hasattr(x, "shape") and len(x.shape):
        return int(x.shape[0])
    return len(x)


def _take(x, idx):
    if hasattr(x, "iloc"):
        return x.iloc[idx]
    if hasattr(x, "shape"):
        return x[idx]
    return np.asarray(x)[idx]


def _estimators(estimators):
    if isinstance(estimators, Mapping):
        items = list(estimators.items())
        bad = [k for k, _ in items if not isinstance(k, str)]
        if bad:
            raise InvalidParameterError("estimators must be keyed by names (strings), got the "
                                        f"key {short_repr(bad[0])}.")
    else:
        try:
            ests = list(estimators)
        except TypeError:
            raise InvalidParameterError(
                "estimators must be a mapping {name: estimator} or a list of estimators, got "
                f"{type(estimators).__name__}."
            ) from None
        base = [type(e).__name__ for e in ests]
        items = [(n if base.count(n) == 1 else f"{n} ({base[:i + 1].count(n)})", e)
                 for i, (n, e) in enumerate(zip(base, ests))]
    if len(items) < 2:
        raise ValueError(f"estimators holds {len(items)} estimator(s); a comparison needs at "
                         "least two.")
    for name, est in items:
        if not hasattr(est, "fit"):
            raise InvalidParameterError(f"estimators[{name!r}] has no fit method; give "
                                        "scikit-learn estimators.")
    return items


def _splits(cv, X, y, qid, n):
    from sklearn.model_selection import GroupKFold, KFold

    if isinstance(cv, numbers.Integral) and not isinstance(cv, (bool, np.bool_)):
        if cv < 2:
            raise InvalidParameterError(f"compare_estimators: cv={cv} is not accepted; give "
                                        "a number of folds >= 2, a splitter or a list of "
                                        "(train, test) index arrays.")
        cv = GroupKFold(n_splits=int(cv)) if qid is not None else KFold(n_splits=int(cv))
    if isinstance(cv, (str, bytes, Mapping)) or not (hasattr(cv, "__iter__")
                                                     or hasattr(cv, "split")):
        raise InvalidParameterError(f"compare_estimators: cv={short_repr(cv)} is not accepted; "
                                    "give a number of folds >= 2, a splitter (such as "
                                    "GroupKFold()) or a list of (train, test) index arrays.")
    if hasattr(cv, "split"):
        try:
            with warnings.catch_warnings():
                # Splitters that do not read groups say so; whether queries stay
                # whole is checked below.
                warnings.filterwarnings("ignore", message="The groups parameter is ignored")
                splits = list(cv.split(X, y, groups=qid))
        except ValueError as exc:
            raise ValueError(f"compare_estimators: cv={cv!r} could not split the data: "
                             f"{exc}") from None
    else:
        splits = [(np.asarray(tr), np.asarray(te)) for tr, te in cv]
    if not splits:
        raise ValueError("compare_estimators: cv gave no split.")
    tested = np.zeros(n, dtype=np.int64)
    for _, test in splits:
        np.add.at(tested, test, 1)
    if (tested > 1).any():
        i = int(np.flatnonzero(tested > 1)[0])
        what = f"query {qid[i].item()!r}" if qid is not None else f"row {i}"
        raise ValueError(
            f"compare_estimators: {what} is in the test fold of {int(tested[i])} splits; "
            "each query must be tested once, so that it has one out-of-fold value per "
            "estimator (use KFold/GroupKFold, not repeated or shuffled splits)."
        )
    if qid is not None:
        for fold, (_, test) in enumerate(splits):
            inside = np.isin(qid, qid[test])
            if int(inside.sum()) != len(test):
                q = qid[inside & (np.bincount(test, minlength=n) == 0)][0].item()
                raise ValueError(
                    f"compare_estimators: the test fold of split {fold} holds part of query "
                    f"{q!r} only; every query's rows must be in one fold. Split by query: "
                    "cv=GroupKFold(...) (an int cv does that when qid is given)."
                )
    return splits, int((tested == 0).sum())


def _fold_params(fit_params, train, n):
    out = {}
    for key, value in (fit_params or {}).items():
        if hasattr(value, "__len__") and not isinstance(value, (str, bytes, Mapping)) \
                and _n_samples(value) == n:
            out[key] = _take(value, train)
        else:
            out[key] = value
    return out


def _takes_qid(estimator):
    try:
        return "qid" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        return False


@validate
def compare_estimators(estimators, X, y, *, qid=None, cv=5, scoring, fit_params=None,
                       response_method=RESPONSE_METHODS,
                       no_relevant="warn", ignore_ties=False, test="t-test",
                       correction="holm", baseline=None, alpha=0.05, confidence_level=0.95,
                       n_resamples=10_000, random_state=None):
    r"""Cross-validate several estimators on the same splits and compare them per query.

    Each estimator is fitted on every training fold; its out-of-fold
    scores give one value per query (per row without ``qid``) of each
    metric in ``scoring``; the values of the estimators are paired by
    query and compared with :func:`compare`:

    .. math::

        m_e(q) = \mathrm{metric}\big(y_q, \hat f_e^{(-k(q))}(X_q)\big)

    where :math:`\hat f_e^{(-k)}` is estimator :math:`e` fitted without fold
    :math:`k` and :math:`k(q)` is the fold that holds query :math:`q`.

    Parameters
    ----------
    estimators : mapping of str -> estimator, or list of estimators
        The candidates (unfitted; each is cloned for every fold). A list is
        named by class names.
    X : array-like of shape (n_samples, n_features)
        Features.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Relevance (with ``qid``: one grade per query-document row) or the
        targets of a multi-output / classification ranking, as the scorers of
        :func:`get_scorer` read them.
    qid : array-like of shape (n_samples,), default=None
        Query id of each row, for learning-to-rank (long) data. The folds
        then keep each query whole, and ``qid[train]`` is passed to the
        ``fit`` of estimators whose ``fit`` takes ``qid``
        (:class:`QueryGroupRanker`, ``xgboost.XGBRanker``).
    cv : int, splitter or iterable, default=5
        Number of folds (``GroupKFold`` over ``qid`` with ``qid``, ``KFold``
        without), a splitter (its ``split`` gets ``groups=qid``), or a list
        of ``(train, test)`` index arrays. Every query must be in at most one
        test fold.
    scoring : str or list of str or (str, dict) pairs
        Metric names as for :func:`evaluate` (``"ndcg@10"``,
        ``("map@10", {"threshold": 2})``...).
    fit_params : dict, default=None
        Extra arguments of every estimator's ``fit``; arrays with one entry
        per sample are split with ``X``.
    response_method : str or list of str, default=("decision_function", "predict_proba", "predict")
        Estimator methods tried in order for the scores.
    no_relevant : "warn", "skip" or float, default="warn"
        Policy for queries without a relevant item; ``"skip"`` leaves them
        out of the comparison.
    ignore_ties : bool, default=False
        Take tied scores in sort order instead of their expected value.
    test : {"t-test", "wilcoxon", "randomization", "bootstrap", "sign"}, default="t-test"
        As in :func:`compare`.
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        As in :func:`compare`.
    baseline : str, default=None
        As in :func:`compare`: the name of one estimator.
    alpha : float, default=0.05
        As in :func:`compare`.
    confidence_level : float, default=0.95
        As in :func:`compare`.
    n_resamples : int, default=10_000
        As in :func:`compare`.
    random_state : int, default=None
        As in :func:`compare` (the estimators keep their own).

    Returns
    -------
    report : ComparisonReport
        The comparison; ``report.per_query`` holds the out-of-fold values.

    See Also
    --------
    compare : Compare systems already scored.

    Notes
    -----
    The per-query values are those of ``cross_validate`` with this
    package's scorers on the same splits (a fold's mean of them is
    ``cross_validate``'s test score for that fold). Every estimator sees the
    same splits, and pairing by query removes the variation between queries
    from each comparison. What the test does **not** account for is the
    variation due to the training data: the queries of one fold are scored
    by the same fitted model, so their values are not independent, and a
    different draw of training data could order the estimators differently.
    The p-values answer "is this estimator better on these queries, given
    these fits", not "is this learning algorithm better on data like this"
    [1]_ [2]_; treat a small p-value near ``alpha`` with that in mind, and
    prefer many queries and several seeds of the splits. Queries in no test
    fold are left out (noted in the report).

    References
    ----------
    .. [1] Dietterich, T. G. (1998). Approximate statistical tests for
           comparing supervised classification learning algorithms. Neural
           Computation, 10(7), 1895-1923.
    .. [2] Nadeau, C. and Bengio, Y. (2003). Inference for the generalization
           error. Machine Learning, 52(3), 239-281.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.linear_model import Ridge
    >>> from sk_rankmetrics import compare_estimators
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(40), 10)
    >>> X = rng.normal(size=(400, 3))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=400) > 0.5).astype(int)
    >>> report = compare_estimators({"ridge": Ridge(), "dummy": DummyRegressor()}, X, y,
    ...                             qid=qid, cv=4, scoring="ndcg@5", no_relevant="skip",
    ...                             random_state=0)
    >>> report.n_queries["ndcg@5"]  # one query has no relevant document: skipped
    39
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    #  system  ndcg@5
    a  ridge   0.9244^b
    b  dummy   0.4171
    <BLANKLINE>
    ^x: significantly better than system x (paired t-test, one comparison per
    metric, p < 0.05; 39 queries)
    <BLANKLINE>
    metric  comparison     difference  95% CI              effect   W/T/L  p (raw)  p (holm)
    ndcg@5  ridge - dummy     +0.5073  [+0.4655, +0.5456]   +3.88  39/0/0  <0.0001   <0.0001
    <BLANKLINE>
    Notes:
    - ndcg@5: 1 query with NaN in some system was left out.
    """
    from sklearn.base import clone

    from ._adapters import estimator_responses
    from ._ranking import evaluate

    items = _estimators(estimators)
    labels = [split_request(item, must="scoring must be metric names")[0]
              for item in as_metric_list(scoring, "scoring")]
    n = _n_samples(X)
    if _n_samples(y) != n:
        raise ValueError(f"y has {_n_samples(y)} samples but X has {n}; they must match.")
    if qid is not None:
        qid = as_ids(qid, "qid")
        if qid.shape[0] != n:
            raise ValueError(f"qid has {qid.shape[0]} entries but X has {n} samples; qid "
                             "needs one query id per row of X.")
    if not hasattr(y, "iloc"):
        y = np.asarray(y)
    splits, untested = _splits(cv, X, y, qid, n)
    collected = {name: ([], {m: [] for m in labels}) for name, _ in items}
    for train, test_idx in splits:
        q_test = None if qid is None else qid[test_idx]
        for name, est in items:
            params = _fold_params(fit_params, train, n)
            if qid is not None and "qid" not in params and _takes_qid(est):
                params["qid"] = qid[train]
            fitted = clone(est).fit(_take(X, train), _take(y, train), **params)
            y_true, y_score = estimator_responses(fitted, _take(X, test_idx),
                                                  _take(y, test_idx), qid=q_test,
                                                  response_method=response_method)
            values = evaluate(y_true, y_score, scoring, qid=q_test, per_row=True,
                              no_relevant=no_relevant, ignore_ties=ignore_ties)
            ids, cols = collected[name]
            ids.append(unique(q_test) if qid is not None else np.asarray(test_idx))
            for m in labels:
                cols[m].append(np.asarray(values[m], dtype=np.float64))
    results = {name: _OutOfFold(np.concatenate(ids), {m: np.concatenate(v)
                                                      for m, v in cols.items()})
               for name, (ids, cols) in collected.items()}
    report = compare(results, test=test, correction=correction, baseline=baseline,
                     alpha=alpha, confidence_level=confidence_level,
                     n_resamples=n_resamples, random_state=random_state)
    if untested:
        what = "rows" if qid is None else "rows (of queries)"
        report.notes.append(f"{untested} {what} in no test fold of cv were not scored.")
    return report


class _OutOfFold:
    """Out-of-fold per-query values of one estimator, read by :func:`compare`."""

    def __init__(self, query_ids, per_query):
        self.query_ids = query_ids
        self.per_query = per_query
