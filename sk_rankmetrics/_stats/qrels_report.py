"""QrelsComparison: what compare_qrels found, as text, Markdown, LaTeX and frames."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

from .._utils.docstrings import fill_doc, shared_doc
from .._utils.errors import counted, printable
from .._utils.params import validate
from . import render
from .report import _CORRECTION_NAMES, _TEST_NAMES, ComparisonReport
from .significance import snap

if TYPE_CHECKING:
    import pandas

    from .._utils.types import QrelsRows


class QrelsComparison:
    r"""Two qrels compared through the orderings of the systems they score.

    Built by :func:`compare_qrels`. The systems' means under each qrels
    order them; Kendall's :math:`\tau_b` and :math:`\tau_{AP}` measure how
    far the two orderings agree,

    .. math::

        \tau_b = \frac{C - D}{\sqrt{(n_0 - n_a)(n_0 - n_b)}},

    and the swaps are the pairs of systems the two qrels order the opposite
    way.

    Parameters
    ----------
    names : (str, str)
        The two qrels' names (the first is the reference).
    systems : list of str
        The systems, in the order given.
    query_ids : ndarray of shape (n_queries,)
        The queries compared.
    per_query : dict of str -> ndarray of shape (n_queries, n_systems)
        Each qrels' per-query values of every system.
    kendall_tau, tau_ap : float
        The coefficients between the orderings of the means.
    intervals : dict of str -> (float, float)
        Their BCa bootstrap intervals (keys ``"kendall_tau"``, ``"tau_ap"``).
    per_query_tau : ndarray of shape (n_queries,)
        Kendall's :math:`\tau_b` of the systems' values on each query.
    comparisons : (ComparisonReport, ComparisonReport)
        The paired tests of every pair of systems under each qrels.
    settings : dict
        The arguments of :func:`compare_qrels`.
    notes : list of str
        What was left out or undefined.

    Attributes
    ----------
    metric : str
        The metric the systems are ordered by.
    n_queries : int
        Queries compared.
    means : dict of str -> dict of str -> float
        Per qrels, each system's mean.
    ranks : dict of str -> dict of str -> float
        Per qrels, each system's rank (1 the best; tied systems share the
        best rank of their tie; means that differ by round-off only, less
        than :math:`2^{-40}` of the largest, tie).
    swaps : list of dict
        One dict per swapped pair: ``pair`` ``(s, t)``, the differences of
        the means ``s - t`` under each qrels (``difference_a``,
        ``difference_b``), their corrected p-values (``p_a``, ``p_b``) and
        whether each is significant (``significant_a``, ``significant_b``).
    kendall_tau_interval, tau_ap_interval : (float, float)
        The intervals of the two coefficients.

    See Also
    --------
    compare_qrels : Builds it.
    OrderingDisplay : Draws the two orderings.

    Notes
    -----
    Every output escapes the names (Markdown's and LaTeX's special
    characters, control characters), so that no name breaks a table. The
    systems are listed in the order of the reference qrels.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import TrecQrels, TrecRun, compare_qrels
    >>> q = np.repeat(["q1", "q2"], 2)
    >>> d = np.tile(["a", "b"], 2)
    >>> human = TrecQrels(q, d, np.array([1, 0, 1, 0]))
    >>> judge = TrecQrels(q, d, np.array([1, 1, 0, 1]))
    >>> runs = {"A": TrecRun(q, d, np.array([2.0, 1.0, 2.0, 1.0])),
    ...         "B": TrecRun(q, d, np.array([1.0, 2.0, 1.0, 2.0]))}
    >>> cmp = compare_qrels(human, judge, runs, metric="P@1", random_state=0)
    >>> cmp.means
    {'qrels_a': {'A': 1.0, 'B': 0.0}, 'qrels_b': {'A': 0.5, 'B': 1.0}}
    >>> cmp.kendall_tau, cmp.swaps[0]["pair"]
    (-1.0, ('A', 'B'))
    >>> cmp.to_frame()
            qrels_a  rank_qrels_a  qrels_b  rank_qrels_b
    system
    A           1.0           1.0      0.5           2.0
    B           0.0           2.0      1.0           1.0
    """

    def __init__(self, *, names: tuple[str, str], systems: Sequence[str],
                 query_ids: NDArray[Any], per_query: Mapping[str, NDArray[np.float64]],
                 kendall_tau: float, tau_ap: float,
                 intervals: Mapping[str, tuple[float, float]],
                 per_query_tau: NDArray[np.float64],
                 comparisons: tuple[ComparisonReport, ComparisonReport],
                 settings: Mapping[str, Any], notes: Sequence[str]) -> None:
        self.names = (names[0], names[1])
        self.systems = list(systems)
        self.query_ids = query_ids
        self.per_query = dict(per_query)
        self.kendall_tau = float(kendall_tau)
        self.tau_ap = float(tau_ap)
        self.intervals = dict(intervals)
        self.kendall_tau_interval = self.intervals["kendall_tau"]
        self.tau_ap_interval = self.intervals["tau_ap"]
        self.per_query_tau = per_query_tau
        self.comparisons = comparisons
        self.settings = dict(settings)
        self.notes = list(notes)
        self.metric = self.settings["metric"]
        self.n_queries = int(query_ids.shape[0])
        self.means, self.ranks, self._order_by = {}, {}, {}
        for name in self.names:
            m = self.per_query[name].mean(axis=0)
            self.means[name] = {s: float(v) for s, v in zip(self.systems, m)}
            ordered = snap(m)  # round-off is not an order
            self._order_by[name] = dict(zip(self.systems, ordered.tolist()))
            r = rankdata(-ordered, method="min")
            self.ranks[name] = {s: float(v) for s, v in zip(self.systems, r)}
        self.swaps = [row for row in self._pair_rows() if row["swapped"]]
        for row in self.swaps:
            del row["swapped"]

    # -- derived --------------------------------------------------------------------

    def _pair_rows(self):
        """Every pair of systems, the better under the reference qrels first (the
        order given between equals): the differences and tests under each qrels."""
        a, b = self.names
        rep_a, rep_b = self.comparisons
        rows = []
        oa, ob = self._order_by[a], self._order_by[b]
        for pair in rep_a.pairs:
            s, t = pair
            if oa[s] < oa[t]:
                s, t = t, s
            da = self.means[a][s] - self.means[a][t]
            db = self.means[b][s] - self.means[b][t]
            swapped = (oa[s] - oa[t]) * (ob[s] - ob[t]) < 0
            rows.append({
                "pair": (s, t), "difference_a": da, "difference_b": db,
                "p_a": rep_a.pvalues[self.metric][pair],
                "p_b": rep_b.pvalues[self.metric][pair],
                "significant_a": rep_a.significant[self.metric][pair],
                "significant_b": rep_b.significant[self.metric][pair],
                "swapped": bool(swapped),
            })
        return rows

    def _order(self):
        """The systems by the reference qrels' mean, best first (stable)."""
        order_by = self._order_by[self.names[0]]
        return sorted(self.systems, key=lambda s: -order_by[s])

    def _family(self):
        rep = self.comparisons[0]
        test = _TEST_NAMES[rep.test]
        n_pairs = len(rep.pairs)
        if rep.correction is None or n_pairs == 1:
            return test + (", no correction" if rep.correction is None else "")
        return f"{test}, {_CORRECTION_NAMES[rep.correction]} correction over {n_pairs} pairs"

    def _level(self):
        return f"{self.settings['confidence_level'] * 100:g}%"

    def _coefficient_lines(self):
        ref = self.names[0]
        tau_name = "tau_AP,b" if self.settings["symmetric"] else f"tau_AP ({ref} the reference)"
        out = []
        for label, value, (lo, hi) in (("Kendall's tau_b", self.kendall_tau,
                                        self.kendall_tau_interval),
                                       (tau_name, self.tau_ap, self.tau_ap_interval)):
            interval = f"[{render.format_value(lo)}, {render.format_value(hi)}]"
            out.append((label, render.format_value(value), interval))
        defined = self.per_query_tau[~np.isnan(self.per_query_tau)]
        mean = render.format_value(float(defined.mean())) if defined.size else "nan"
        out.append(("per-query tau_b, mean", mean,
                    f"{defined.size} of {self.n_queries} queries defined"))
        return out

    def _system_cells(self, name):
        a, b = self.names
        return [[name(s), render.format_value(self.means[a][s]), f"{self.ranks[a][s]:g}",
                 render.format_value(self.means[b][s]), f"{self.ranks[b][s]:g}"]
                for s in self._order()]

    def _swap_cells(self, name, dash="-", pvalue=render.format_pvalue, star="*"):
        out = []
        for row in self.swaps:
            s, t = row["pair"]
            out.append([f"{name(s)} {dash} {name(t)}", render.signed(row["difference_a"]),
                        pvalue(row["p_a"]) + (star if row["significant_a"] else ""),
                        render.signed(row["difference_b"]),
                        pvalue(row["p_b"]) + (star if row["significant_b"] else "")])
        return out

    def _title(self):
        a, b = self.names
        return (f"{self.metric} of {len(self.systems)} systems under {a} and {b} "
                f"({counted(self.n_queries, 'query')})")

    def _swap_summary(self, p="p"):
        n_pairs = len(self.comparisons[0].pairs)
        return (f"Swapped pairs: {len(self.swaps)} of {n_pairs} ({self._family()}; "
                f"significant at {p} < {self.settings['alpha']:g})")

    # -- outputs --------------------------------------------------------------------

    def __repr__(self) -> str:
        return (f"QrelsComparison({len(self.systems)} systems, "
                f"{counted(self.n_queries, 'query')}, "
                f"kendall_tau={self.kendall_tau:.4f}, tau_ap={self.tau_ap:.4f}, "
                f"{len(self.swaps)} swaps)")

    def __str__(self) -> str:
        """The systems under both qrels, the coefficients, the swaps and the notes.

        Returns
        -------
        text : str
            The report.
        """
        a, b = self.names
        head = ["system", printable(a), "rank", printable(b), "rank"]
        coef = [[label, v, f"{self._level()} CI {ci}" if ci.startswith("[") else ci]
                for label, v, ci in self._coefficient_lines()]
        parts = [self._title(), "",
                 render.text_table(head, self._system_cells(printable), {1, 2, 3, 4}), "",
                 render.text_table(["coefficient", "value", ""], coef, {1}), "",
                 render.wrap(self._swap_summary(), render.WIDTH)]
        if self.swaps:
            parts += ["", render.text_table(["pair", f"{printable(a)} diff", "p",
                                       f"{printable(b)} diff", "p"],
                                      self._swap_cells(printable), {1, 2, 3, 4}),
                      "* significant"]
        parts += render.text_notes(self.notes)
        return "\n".join(parts)

    def to_markdown(self) -> str:
        r"""The report as Markdown: the systems, the coefficients and the swaps.

        Returns
        -------
        text : str
            GitHub pipe tables; names escaped so that none can break a table.

        Examples
        --------
        >>> import numpy as np
        >>> from sk_rankmetrics import TrecQrels, TrecRun, compare_qrels
        >>> q, d = np.array(["q1", "q1"]), np.array(["a", "b"])
        >>> runs = {"A|1": TrecRun(q, d, np.array([2.0, 1.0])),
        ...         "B": TrecRun(q, d, np.array([1.0, 2.0]))}
        >>> cmp = compare_qrels(TrecQrels(q, d, np.array([1, 0])),
        ...                     TrecQrels(q, d, np.array([0, 1])), runs, metric="P@1")
        >>> for line in cmp.to_markdown().splitlines()[2:6]:
        ...     print(line)
        | system | qrels\_a | rank | qrels\_b | rank |
        |---|---:|---:|---:|---:|
        | A\|1 | 1.0000 | 1 | 0.0000 | 2 |
        | B | 0.0000 | 2 | 1.0000 | 1 |
        """
        a, b = self.names
        md = render.escape_markdown
        lines = [f"**{md(self._title())}**", "",
                 f"| system | {md(a)} | rank | {md(b)} | rank |", "|---|---:|---:|---:|---:|"]
        lines += ["| " + " | ".join(r) + " |" for r in self._system_cells(md)]
        lines += ["", f"| coefficient | value | {self._level()} CI |", "|---|---:|---:|"]
        lines += [f"| {md(label)} | {v} | {ci} |" for label, v, ci in self._coefficient_lines()]
        lines += ["", md(self._swap_summary()) + "."]
        if self.swaps:
            lines += ["", f"| pair | {md(a)} difference | p | {md(b)} difference | p |",
                      "|---|---:|---:|---:|---:|"]
            lines += ["| " + " | ".join(r) + " |" for r in self._swap_cells(
                md, pvalue=lambda p: render.format_pvalue(p).replace("<", "\\<"), star="\\*")]
            lines += ["", "\\* significant."]
        lines += render.markdown_notes(self.notes)
        return "\n".join(lines)

    def to_latex(self) -> str:
        r"""The report as LaTeX ``table`` environments for a paper.

        Returns
        -------
        text : str
            The systems' means and ranks under both qrels, with the
            coefficients and their intervals in the caption; then the swapped
            pairs, if any. Names are escaped; no LaTeX package is needed.

        Examples
        --------
        >>> import numpy as np
        >>> from sk_rankmetrics import TrecQrels, TrecRun, compare_qrels
        >>> q, d = np.array(["q1", "q1"]), np.array(["a", "b"])
        >>> runs = {"A_1": TrecRun(q, d, np.array([2.0, 1.0])),
        ...         "B": TrecRun(q, d, np.array([1.0, 2.0]))}
        >>> cmp = compare_qrels(TrecQrels(q, d, np.array([1, 0])),
        ...                     TrecQrels(q, d, np.array([0, 1])), runs, metric="P@1")
        >>> print([line for line in cmp.to_latex().splitlines() if line.startswith("A")][0])
        A\_1 & 1.0000 & 1 & 0.0000 & 2 \\
        """
        a, b = self.names
        level = self._level().replace("%", "\\%")
        parts = []
        for label, v, ci in self._coefficient_lines():
            v = v.replace("-", "$-$")
            if ci.startswith("["):  # numbers only: the signs become minus signs
                ci = f"{level} CI {ci.replace('-', '$-$')}"
            else:
                ci = render.latex(ci)
            parts.append(f"{render.latex(label)} {v} ({ci})")
        caption = render.latex(self._title()) + ". " + "; ".join(parts) + "."
        lines = render.latex_table(caption, "lrrrr",
                             ["System", render.latex(a), "Rank", render.latex(b), "Rank"],
                             self._system_cells(render.latex))
        if self.swaps:
            caption = (render.latex(self._swap_summary(p="@p@"))
                       .replace("@p@ \\textless{}", "$p <$") + r". $^*$: significant.")
            rows = []
            for row in self._swap_cells(render.latex, dash="$-$",
                                        pvalue=lambda p: render.format_pvalue(p)
                                        .replace("<", "$<$"),
                                        star="$^*$"):
                row[1], row[3] = row[1].replace("-", "$-$"), row[3].replace("-", "$-$")
                rows.append(row)
            lines += ["", *render.latex_table(caption, "lrrrr",
                                        ["Pair", f"{render.latex(a)} difference", "$p$",
                                         f"{render.latex(b)} difference", "$p$"], rows)]
        return "\n".join(lines)

    @validate
    @shared_doc
    @fill_doc()
    def to_frame(self, *, rows: QrelsRows = "systems") -> pandas.DataFrame:
        """The comparison as a pandas DataFrame (pandas is imported here).

        Parameters
        ----------
        %(parameters)s

        %(returns_frame)s

        Examples
        --------
        >>> import numpy as np
        >>> from sk_rankmetrics import TrecQrels, TrecRun, compare_qrels
        >>> q, d = np.array(["q1", "q1"]), np.array(["a", "b"])
        >>> runs = {"A": TrecRun(q, d, np.array([2.0, 1.0])),
        ...         "B": TrecRun(q, d, np.array([1.0, 2.0]))}
        >>> cmp = compare_qrels(TrecQrels(q, d, np.array([1, 0])),
        ...                     TrecQrels(q, d, np.array([0, 1])), runs, metric="P@1")
        >>> cmp.to_frame(rows="pairs")[["system_a", "system_b", "swapped"]]
          system_a system_b  swapped
        0        A        B     True
        """
        import pandas as pd

        a, b = self.names
        if rows == "pairs":
            out = []
            for row in self._pair_rows():
                s, t = row.pop("pair")
                out.append({"system_a": s, "system_b": t, **row})
            return pd.DataFrame(out)
        if rows == "queries":
            return pd.DataFrame({"tau_b": self.per_query_tau},
                                index=pd.Index(self.query_ids, name="query"))
        data = {a: [self.means[a][s] for s in self.systems],
                f"rank_{a}": [self.ranks[a][s] for s in self.systems],
                b: [self.means[b][s] for s in self.systems],
                f"rank_{b}": [self.ranks[b][s] for s in self.systems]}
        return pd.DataFrame(data, index=pd.Index(self.systems, name="system"))


def assessor_table(results, labels, fmt="table", title=""):
    """The assessor agreement coefficients as one table: each label with its
    value and interval, in plain text, Markdown or LaTeX (names escaped), and
    the notes of the first result below it (the pairs left out)."""
    level = f"{results[0].settings['confidence_level'] * 100:g}%"
    rows = [(label, render.format_value(r.value),
             f"[{render.format_value(r.interval[0])}, {render.format_value(r.interval[1])}]")
            for label, r in zip(labels, results)]
    notes = list(dict.fromkeys(n for r in results for n in r.notes))
    if fmt == "markdown":
        lines = [f"**{render.escape_markdown(title)}**", "",
                 f"| coefficient | value | {level} CI |", "|---|---:|---:|"]
        lines += [f"| {render.escape_markdown(a)} | {v} | {ci} |" for a, v, ci in rows]
        lines += render.markdown_notes(notes)
        return "\n".join(lines)
    if fmt == "latex":
        caption = render.latex(title) + (
            " Notes: " + " ".join(map(render.latex, notes)) if notes else "")
        return "\n".join(render.latex_table(
            caption, "lrr",
            ["Coefficient", "Value", f"{level.replace('%', chr(92) + '%')} CI"],
            [[render.latex(a), v.replace("-", "$-$"), ci.replace("-", "$-$")]
             for a, v, ci in rows]))
    text = [render.wrap(printable(title), render.WIDTH), "",
            render.text_table(["coefficient", "value", f"{level} CI"], rows, {1, 2})]
    text += render.text_notes(notes)
    return "\n".join(text)
