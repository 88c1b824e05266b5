"""LeaderboardReport and its formats: text, Markdown, LaTeX, JSON, frames."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._utils.docstrings import shared_doc
from .._utils.errors import printable as _printable
from .._utils.params import validate
from . import render
from .report import _CORRECTION_NAMES

if TYPE_CHECKING:
    import pandas

    from .._utils.types import LeaderboardRows

#: Collections at most this many are columns of the text, Markdown and LaTeX tables.
MAX_COLUMNS = 12

_AGGREGATES = {"mean": "mean of the per-collection means", "borda": "Borda count"}


class LeaderboardReport:
    r"""Systems ranked over several collections, with rank intervals.

    Built by :func:`leaderboard`. One row per system: its score :math:`T_j`
    (the mean of its per-collection means, or its Borda count), its rank
    :math:`1 + \#\{l : T_l > T_j\}`, the lowest and highest rank the data do
    not rule out, whether it may be the best, its per-collection means, and
    its differences from the baselines with their corrected p-values.

    Parameters
    ----------
    systems : list of str
        System names, in the order given.
    collections : list of str
        Collection names.
    scores : array-like of shape (n_systems,)
        Each system's score.
    means : dict of str -> array-like
        Per collection, each system's mean (over its seeds too).
    rank, rank_low, rank_high : array-like of shape (n_systems,)
        Each system's rank and the ends of its rank interval.
    n_queries : dict of str -> int
        Queries of each collection with a value in every system.
    query_ids : dict of str -> ndarray
        Those queries' ids (positions for inputs without ids).
    n_seeds : dict of str -> int
        Runs (seeds) of each system.
    baseline_tests : list of dict
        One per (system, baseline): ``system``, ``baseline``,
        ``difference``, ``p_raw``, ``p``, ``significant``, ``test``.
    settings : dict
        ``metric``, ``aggregate``, ``layout``, ``intervals``, ``baselines``,
        ``correction``, ``alpha``, ``n_resamples``, ``confidence_level``,
        ``random_state`` and ``on_missing``.
    notes : list of str
        What the leaderboard left out or treated as a special case.

    Attributes
    ----------
    order : list of str
        The systems from the best score to the worst (ties in the order
        given).
    score : dict of str -> float
        Each system's score.
    rank, rank_low, rank_high : dict of str -> int
        Each system's rank and rank interval.
    tied_with_best : dict of str -> bool
        Whether the system's rank interval reaches 1: no system is
        significantly better, so it may be the best.
    means : dict of str -> dict of str -> float
        Per collection and system, the mean.
    metric, aggregate, layout, intervals, baselines : str or list of str
        The settings (see :func:`leaderboard`).
    correction, alpha, n_resamples, confidence_level, random_state : object
        The settings of the tests and the resamples.

    See Also
    --------
    leaderboard : Builds the report.
    LeaderboardDisplay : Draws its ranks and intervals.

    Notes
    -----
    Text outputs list the systems from the best score down: the rank, the
    rank interval (``1-3``), the name, the score, whether the system is
    tied with the best, its mean on each collection (up to 12 collections;
    beyond, ``to_frame(rows="collections")`` holds them) and its difference
    from each baseline, marked ``*`` when significant after the correction.
    Every output escapes the names (control characters; Markdown's and
    LaTeX's special characters), so that no name can break a table. In
    :meth:`to_json` non-finite numbers are ``null``.

    Examples
    --------
    >>> from sk_rankmetrics import leaderboard
    >>> results = {"web": {"A": [0.2, 0.4, 0.3, 0.5], "B": [0.6, 0.7, 0.8, 0.9]},
    ...            "news": {"A": [0.1, 0.3, 0.2, 0.2], "B": [0.5, 0.4, 0.6, 0.5]}}
    >>> report = leaderboard(results, random_state=0)
    >>> report.order, report.rank["B"], report.tied_with_best["A"]
    (['B', 'A'], 1, False)
    """

    def __init__(self, *, systems: Iterable[str], collections: Iterable[str],
                 scores: NDArray[np.float64], means: Mapping[str, NDArray[np.float64]],
                 rank: NDArray[np.int64], rank_low: NDArray[np.int64],
                 rank_high: NDArray[np.int64], n_queries: Mapping[str, int],
                 query_ids: Mapping[str, NDArray[Any]], n_seeds: Mapping[str, int],
                 baseline_tests: Iterable[Mapping[str, Any]], settings: Mapping[str, Any],
                 notes: Iterable[str]) -> None:
        self.systems = list(systems)
        self.collections = list(collections)
        self.settings = dict(settings)
        self.notes = list(notes)
        self.n_queries = dict(n_queries)
        self.query_ids = dict(query_ids)
        self.n_seeds = dict(n_seeds)
        self.baseline_tests = [dict(r) for r in baseline_tests]
        self.score = {s: float(v) for s, v in zip(self.systems, scores)}
        self.rank = {s: int(v) for s, v in zip(self.systems, rank)}
        self.rank_low = {s: int(v) for s, v in zip(self.systems, rank_low)}
        self.rank_high = {s: int(v) for s, v in zip(self.systems, rank_high)}
        self.tied_with_best = {s: self.rank_low[s] == 1 for s in self.systems}
        self.means = {c: {s: float(v) for s, v in zip(self.systems, means[c])}
                      for c in self.collections}
        position = {s: i for i, s in enumerate(self.systems)}
        self.order = sorted(self.systems, key=lambda s: (self.rank[s], position[s]))
        # the settings, as attributes
        self.metric: str = self.settings["metric"]
        self.aggregate: str = self.settings["aggregate"]
        self.layout: str = self.settings["layout"]
        self.intervals: str = self.settings["intervals"]
        self.baselines: list[str] = list(self.settings["baselines"])
        self.correction: str | None = self.settings["correction"]
        self.alpha: float = self.settings["alpha"]
        self.n_resamples: int = self.settings["n_resamples"]
        self.confidence_level: float = self.settings["confidence_level"]
        self.random_state: int | None = self.settings["random_state"]

    # -- the rows ---------------------------------------------------------------------

    def _tests(self):
        """``{(system, baseline): test row}``."""
        return {(r["system"], r["baseline"]): r for r in self.baseline_tests}

    def _system_rows(self):
        rows = []
        for s in self.order:
            row = {"system": s, "rank": self.rank[s], "rank_low": self.rank_low[s],
                   "rank_high": self.rank_high[s], "tied_with_best": self.tied_with_best[s],
                   "score": self.score[s]}
            if self.aggregate == "borda":
                row["mean"] = float(np.mean([self.means[c][s] for c in self.collections]))
            row["n_seeds"] = self.n_seeds[s]
            rows.append(row)
        return rows

    def _show_collections(self):
        return len(self.collections) <= MAX_COLUMNS and len(self.collections) > 1

    def _baseline_cell(self, s, b, minus="-", star="*"):
        if s == b:
            return "baseline"
        r = self._tests()[(s, b)]
        mark = star if r["significant"] else ""
        return render.signed(r["difference"]).replace("-", minus) + mark

    def _cells(self, name, dash="-", minus="-", star="*"):
        """The table's rows: rank, interval, name, score, tied, collections, baselines."""
        rows = []
        for r in self._system_rows():
            s = r["system"]
            score = (f"{r['score']:g}" if self.aggregate == "borda"
                     else render.format_value(r["score"]))
            cells = [str(r["rank"]), f"{r['rank_low']}{dash}{r['rank_high']}", name(s), score,
                     "yes" if r["tied_with_best"] else ""]
            if self._show_collections():
                cells += [render.format_value(self.means[c][s]) for c in self.collections]
            cells += [self._baseline_cell(s, b, minus, star) for b in self.baselines]
            rows.append(cells)
        return rows

    def _header(self, name):
        score = "Borda" if self.aggregate == "borda" else "score"
        head = ["rank", f"{self.confidence_level * 100:g}% interval", "system", score,
                "tied with best"]
        if self._show_collections():
            head += [name(c) for c in self.collections]
        head += [f"vs {name(b)}" for b in self.baselines]
        return head

    def _legend(self, latex=False, markdown=False):
        level = f"{self.confidence_level * 100:g}%"
        kind = ("simultaneous (all hold together)" if self.intervals == "simultaneous"
                else "per-system")
        collections = (f"{len(self.collections)} collections" if len(self.collections) > 1
                       else "one collection")
        metric = (render.latex(self.metric) if latex
                  else render.escape_markdown(self.metric) if markdown
                  else _printable(self.metric))
        text = (f"Systems ranked by the {_AGGREGATES[self.aggregate]} of {metric} over "
                f"{collections}. Interval: the {level} {kind} rank interval from "
                f"{self.n_resamples} bootstrap resamples of the queries, stratified by "
                "collection; tied with best: the interval reaches rank 1 (no system is "
                "significantly better).")
        if self.baselines:
            tests = sorted({r["test"] for r in self.baseline_tests})
            corr = ("no correction" if self.correction is None else
                    f"{_CORRECTION_NAMES[self.correction]} correction over the "
                    f"{len(self.baseline_tests)} comparisons")
            star = r"$*$" if latex else "\\*" if markdown else "*"
            p = f"$p < {self.alpha:g}$" if latex else f"p < {self.alpha:g}"
            text += (f" vs X: difference from baseline X; {star} significant "
                     f"({', '.join(tests)}, {corr}, {p}).")
        if latex:
            text = text.replace(f"{level} ", f"{level[:-1]}\\% ")
        return text

    # -- outputs ----------------------------------------------------------------------

    def __repr__(self) -> str:
        return (f"LeaderboardReport({len(self.systems)} systems, "
                f"{len(self.collections)} collection{'s' if len(self.collections) > 1 else ''}"
                f", metric={self.metric!r}, aggregate={self.aggregate!r})")

    def __str__(self) -> str:
        """The table, its legend and the notes.

        Returns
        -------
        text : str
            One line per system, best first.
        """
        header = self._header(_printable)
        rows = self._cells(_printable)
        right = {0, 1, 3} | set(range(5, len(header)))
        parts = [render.text_table(header, rows, right), "",
                 render.wrap(self._legend(), render.WIDTH)]
        parts += render.text_notes(self.notes)
        return "\n".join(parts)

    def to_markdown(self) -> str:
        """The leaderboard as a Markdown (GitHub pipe) table.

        Returns
        -------
        text : str
            The table (the names of the systems tied with the best in bold),
            a line explaining it, and the notes. Names are escaped: no name
            can break the table or format its cell.

        Examples
        --------
        >>> from sk_rankmetrics import leaderboard
        >>> results = {"A": [0.2, 0.4, 0.3, 0.5], "B": [0.6, 0.7, 0.8, 0.9]}
        >>> report = leaderboard(results, layout="system", random_state=0)
        >>> print(report.to_markdown().splitlines()[2])
        | 1 | 1–1 | **B** | 0.7500 | yes |
        """
        name = render.escape_markdown
        header = self._header(name)
        lines = ["| " + " | ".join(header) + " |",
                 "|---:|---:|---|---:|---|" + "---:|" * (len(header) - 5)]
        for cells in self._cells(name, dash="–", star="\\*"):
            if cells[4]:
                cells[2] = f"**{cells[2]}**"
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", render.wrap(self._legend(markdown=True), 88)]
        lines += render.markdown_notes(self.notes)
        return "\n".join(lines)

    def to_latex(self) -> str:
        r"""The leaderboard as a LaTeX ``table`` for a paper.

        Returns
        -------
        text : str
            A ``table`` environment with a caption that explains the
            columns; the names of the systems tied with the best in
            ``\textbf``. Names are escaped (LaTeX's special characters,
            control characters). It needs no LaTeX package.

        Examples
        --------
        >>> from sk_rankmetrics import leaderboard
        >>> results = {"A_1": [0.2, 0.4, 0.3, 0.5], "B&C": [0.6, 0.7, 0.8, 0.9]}
        >>> report = leaderboard(results, layout="system", random_state=0)
        >>> print(report.to_latex())  # doctest: +ELLIPSIS
        \begin{table}
        \centering
        \caption{...}
        \begin{tabular}{rrlrl}
        \hline
        Rank & 95\% interval & System & Score & Tied with best \\
        \hline
        1 & 1--1 & \textbf{B\&C} & 0.7500 & yes \\
        2 & 2--2 & A\_1 & 0.3500 & \\
        \hline
        \end{tabular}
        \end{table}
        """
        header = self._header(render.latex)
        header[:5] = [h[0].upper() + h[1:] for h in header[:5]]
        header[1] = header[1].replace("%", r"\%")
        cols = "rrlrl" + "r" * (len(header) - 5)
        caption = self._legend(latex=True)
        if self.notes:
            caption += " Notes: " + " ".join(render.latex(n) for n in self.notes)
        rows = []
        for cells in self._cells(render.latex, dash="--", minus="$-$"):
            if cells[4]:
                cells[2] = rf"\textbf{{{cells[2]}}}"
            rows.append(cells)
        return "\n".join(render.latex_table(caption, cols, header, rows))

    def to_json(self) -> str:
        """Everything as a JSON document.

        Returns
        -------
        text : str
            An object with ``settings``, ``collections``, ``n_queries``,
            ``systems`` (one object per system, best first, with its
            per-collection means), ``baseline_tests`` and ``notes``;
            non-finite numbers are ``null``.

        Examples
        --------
        >>> import json
        >>> from sk_rankmetrics import leaderboard
        >>> results = {"A": [0.2, 0.4, 0.3, 0.5], "B": [0.6, 0.7, 0.8, 0.9]}
        >>> doc = json.loads(leaderboard(results, layout="system", random_state=0).to_json())
        >>> [(s["system"], s["rank"]) for s in doc["systems"]]
        [('B', 1), ('A', 2)]
        """
        systems = [{**r, "means": {c: self.means[c][r["system"]] for c in self.collections}}
                   for r in self._system_rows()]
        return render.json_text({"settings": self.settings, "collections": self.collections,
                           "n_queries": self.n_queries, "systems": systems,
                           "baseline_tests": self.baseline_tests, "notes": self.notes})

    @validate
    @shared_doc
    def to_frame(self, *, rows: LeaderboardRows = "systems") -> pandas.DataFrame:
        """The leaderboard as a pandas DataFrame (pandas is imported here).

        Parameters
        ----------
        rows : {"systems", "collections", "baselines"}, default="systems"
            ``"systems"``: one row per system, best first, with columns
            ``system``, ``rank``, ``rank_low``, ``rank_high``,
            ``tied_with_best``, ``score`` (and ``mean`` under the Borda
            count), ``n_seeds``. ``"collections"``: one row per system and
            collection, with ``mean`` and ``n_queries``. ``"baselines"``:
            one row per system and baseline, with ``difference``, ``p_raw``,
            ``p``, ``significant`` and ``test``.

        %(returns_frame)s

        Examples
        --------
        >>> from sk_rankmetrics import leaderboard
        >>> results = {"A": [0.2, 0.4, 0.3, 0.5], "B": [0.6, 0.7, 0.8, 0.9]}
        >>> report = leaderboard(results, layout="system", random_state=0)
        >>> report.to_frame()[["system", "rank", "score"]]
          system  rank  score
        0      B     1   0.75
        1      A     2   0.35
        """
        import pandas as pd

        if rows == "collections":
            return pd.DataFrame([{"system": s, "collection": c, "mean": self.means[c][s],
                                  "n_queries": self.n_queries[c]}
                                 for s in self.order for c in self.collections])
        if rows == "baselines":
            return pd.DataFrame(self.baseline_tests,
                                columns=["system", "baseline", "difference", "p_raw", "p",
                                         "significant", "test"])
        return pd.DataFrame(self._system_rows())

