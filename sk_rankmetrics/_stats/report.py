"""ComparisonReport and its formats: text, markdown, LaTeX, JSON, frame."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas

    from .._utils.types import Correction, ReportRows, Test

from .._utils.docstrings import shared_doc
from .._utils.errors import printable as _printable
from .._utils.params import validate
from . import render

_TEST_NAMES = {
    "t-test": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomisation (sign-flip) test",
    "bootstrap": "paired bootstrap test",
    "sign": "sign test",
    "tukey": "Tukey's HSD, topics as blocks",
    "tukey_oneway": "Tukey's HSD, one-way",
    "randomized_tukey": "randomised Tukey HSD",
}
#: The tests whose p-values and intervals take every pair of systems as one family.
_TUKEY = ("tukey", "tukey_oneway", "randomized_tukey")
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni",
                     "fdr_bh": "Benjamini-Hochberg"}


# -- formatting, one way everywhere ---------------------------------------------------


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
        BCa bootstrap confidence interval of each mean difference (under
        Tukey's tests, the simultaneous interval of every pair).
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
        flip, or the randomised Tukey HSD every permutation (None for the
        other tests).
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

    def __init__(self, *, systems: Iterable[str], metrics: Iterable[str],
                 pairs: Iterable[tuple[str, str]], query_ids: Mapping[str, NDArray[Any]],
                 per_query: Mapping[str, Mapping[str, NDArray[np.float64]]],
                 stats: Mapping[str, Mapping[str, Any]], settings: Mapping[str, Any],
                 notes: Iterable[str]) -> None:
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

    @property
    def test(self) -> Test:
        """The paired test."""
        return self.settings["test"]

    @property
    def correction(self) -> Correction | None:
        """The multiple-testing correction (None: none)."""
        return self.settings["correction"]

    @property
    def alpha(self) -> float:
        """The significance level."""
        return self.settings["alpha"]

    @property
    def confidence_level(self) -> float:
        """The level of the bootstrap intervals."""
        return self.settings["confidence_level"]

    @property
    def n_resamples(self) -> int:
        """Bootstrap resamples and random sign flips."""
        return self.settings["n_resamples"]

    @property
    def random_state(self) -> int | None:
        """The seed of the resamples (None: a fresh one)."""
        return self.settings["random_state"]

    @property
    def baseline(self) -> str | None:
        """The system compared with every other one (None: every pair)."""
        return self.settings["baseline"]

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
        if self.test in _TUKEY:
            corr = f"family-wise over the {len(self.systems)} systems"
        elif self.correction is None or n_pairs == 1:
            corr = "no correction" if self.correction is None else "one comparison per metric"
        else:
            corr = (f"{_CORRECTION_NAMES[self.correction]} correction over the {n_pairs} "
                    "comparisons of each metric")
        return test, corr

    def _interval_kind(self):
        """What the differences' intervals are: bootstrap, or Tukey's simultaneous ones."""
        return "simultaneous" if self.test in _TUKEY else "bootstrap"

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

    def _pair_cells(self, name, dash="-", pvalue=render.format_pvalue):
        """The cells of the comparisons table, one list per (metric, pair), with
        the names passed through ``name``."""
        rows = []
        for r in self._pair_rows():
            rows.append([
                name(r["metric"]), f"{name(r['system_a'])} {dash} {name(r['system_b'])}",
                render.signed(r["difference"]),
                f"[{render.signed(r['ci_low'])}, {render.signed(r['ci_high'])}]",
                render.signed(r["effect_size"], 2),
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

    def __repr__(self) -> str:
        n_m = len(self.metrics)
        return (f"ComparisonReport({len(self.systems)} systems, {n_m} "
                f"metric{'s' if n_m > 1 else ''}, "
                f"{self._queries_text()}, test={self.test!r}, "
                f"correction={self.correction!r})")

    def __str__(self) -> str:
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
            vals = [render.format_value(self.means[m][s]) for s in self.systems]
            marks = [f"^{beaten[m][s]}" if beaten[m][s] else "" for s in self.systems]
            wv, wm = max(map(len, vals)), max(map(len, marks))
            columns.append([f"{v:>{wv}}{k:<{wm}}" for v, k in zip(vals, marks)])
        rows = [[letters[s], _printable(s), *(col[i] for col in columns)]
                for i, s in enumerate(self.systems)]
        parts = [
            render.text_table(header, rows, set()),
            "",
            render.wrap(self._legend(), render.WIDTH),
            "",
            render.text_table(self._pair_header(), self._pair_cells(_printable),
                        {2, 4, 5, 6, 7}),
        ]
        parts += render.text_notes(self.notes)
        return "\n".join(parts)

    def to_markdown(self) -> str:
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
        lines = ["| # | system | " + " | ".join(map(render.escape_markdown, self.metrics)) + " |",
                 "|---|---|" + "---:|" * len(self.metrics)]
        for s in self.systems:
            cells = []
            for m in self.metrics:
                v = render.format_value(self.means[m][s])
                if s in best[m]:
                    v = f"**{v}**"
                if beaten[m][s]:
                    v += f"<sup>{beaten[m][s]}</sup>"
                cells.append(v)
            name = render.escape_markdown(s)
            lines.append(f"| {letters[s]} | {name} | " + " | ".join(cells) + " |")
        lines += ["", render.wrap(self._legend("<sup>x</sup>") + "; best mean of each metric in "
                            "bold.", render.WIDTH), ""]
        header = self._pair_header()
        lines += ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
        lines += ["| " + " | ".join(row) + " |"
                  for row in self._pair_cells(render.escape_markdown, pvalue=lambda p:
                                              render.format_pvalue(p).replace("<", "\\<"))]
        lines += render.markdown_notes(self.notes)
        return "\n".join(lines)

    def to_latex(self) -> str:
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
                + ", ".join(f"{n} queries ({render.latex(m)})" for m, n in self.n_queries.items()))
        if len(self.systems) > _MAX_LETTERS:
            marks = ("A superscript number: significantly better than that system "
                     "(1,3--5: systems 1, 3, 4 and 5)")
        else:
            marks = "A superscript letter: significantly better than that system"
        caption = (f"Mean of each metric {over}. Bold: the best system of each metric. "
                   f"{marks} ({test}, {corr}, $p < {self.alpha:g}$).")
        rows = []
        for s in self.systems:
            cells = []
            for m in self.metrics:
                v = render.format_value(self.means[m][s])
                if s in best[m]:
                    v = rf"\textbf{{{v}}}"
                if beaten[m][s]:
                    v += rf"\textsuperscript{{{beaten[m][s]}}}"
                cells.append(v)
            rows.append([letters[s], render.latex(s), *cells])
        lines = [*render.latex_table(
            caption, f"ll{'r' * len(self.metrics)}",
            r"\# & System & " + " & ".join(render.latex(m) for m in self.metrics) + r" \\",
            rows), ""]
        level = f"{self.confidence_level * 100:g}"
        caption = (f"Paired comparisons ({test}, {corr}): the difference of the means "
                   f"(first system minus second), its {level}\\% {self._interval_kind()} "
                   "confidence interval, the effect size (mean difference over the standard "
                   "deviation of the differences), the queries where the first system wins, ties "
                   "and loses, and the raw and corrected $p$-values.")
        if self.notes:
            caption += " Notes: " + " ".join(render.latex(n) for n in self.notes)
        p_corr = ("$p$" if self.correction is None
                  else f"$p$ ({_CORRECTION_NAMES[self.correction]})")
        header = ["Metric", "Comparison", "Difference", f"{level}\\% CI", "Effect", "W/T/L",
                  "$p$ (raw)", p_corr]
        rows = []
        for row in self._pair_cells(render.latex, dash="$-$",
                                    pvalue=lambda p: render.format_pvalue(p).replace("<", "$<$")):
            row[2:5] = [c.replace("-", "$-$") for c in row[2:5]]  # minus signs
            rows.append(row)
        lines += render.latex_table(caption, "llrrrrrr", header, rows)
        return "\n".join(lines)

    def to_json(self) -> str:
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
        return render.json_text({"settings": self.settings, "systems": self.systems,
                           "metrics": self.metrics, "n_queries": self.n_queries,
                           "means": self.means, "intervals": self.intervals,
                           "comparisons": self._pair_rows(), "exact": self.exact,
                           "notes": self.notes})

    @validate
    @shared_doc
    def to_frame(self, *, rows: ReportRows = "systems") -> pandas.DataFrame:
        """The statistics as a pandas DataFrame (pandas is imported here).

        Parameters
        ----------
        rows : {"systems", "pairs"}, default="systems"
            ``"systems"``: one row per system, columns ``(metric, "mean")``,
            ``(metric, "ci_low")``, ``(metric, "ci_high")``. ``"pairs"``: one
            row per metric and compared pair, with both means, the
            difference, its interval, the effect size, wins/ties/losses, the
            raw and corrected p-values, ``significant`` and ``n_queries``.

        %(returns_frame)s

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


