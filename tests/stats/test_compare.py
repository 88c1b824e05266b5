"""compare(), ComparisonReport and compare_estimators(): inputs, pairing, outputs.

The statistics are tested against SciPy and references in ``test_stats.py``;
here: what the user gives (every accepted form, hostile inputs), how queries
are paired, what the report holds and prints, and that compare_estimators
gives the per-query values of ``cross_validate`` on the same splits.
"""

from __future__ import annotations

import json
import re
import shutil
import string
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
import sklearn
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GroupKFold, KFold, cross_validate
from sklearn.tree import DecisionTreeRegressor

from sk_rankmetrics import (
    EvaluationResult,
    InvalidParameterError,
    compare,
    compare_estimators,
    evaluate,
    evaluate_ranked,
    get_scorer,
)
from sk_rankmetrics._stats.render import format_pvalue
from sk_rankmetrics._stats.report import _marker


def _result(ids, **metrics):
    values = {m: np.asarray(v, dtype=float) for m, v in metrics.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of all-NaN values
        means = {m: float(np.nanmean(v)) for m, v in values.items()}
    return EvaluationResult(np.asarray(ids), values, means)


@pytest.fixture
def three():
    rng = np.random.default_rng(3)
    ids = np.array([f"q{i:02d}" for i in range(30)])
    base = rng.uniform(0.2, 0.6, size=30)
    out = {}
    for name, shift in (("bm25", 0.0), ("rerank", 0.15), ("fused", 0.02)):
        out[name] = _result(ids, ndcg=np.clip(base + shift + 0.05 * rng.normal(size=30), 0, 1),
                            map=np.clip(base / 2 + shift / 2 + 0.05 * rng.normal(size=30), 0, 1))
    return out


# -- pairing and input forms -------------------------------------------------------------


def test_queries_are_paired_by_id_whatever_their_order(three):
    ref = compare(three, random_state=0)
    order = np.random.default_rng(0).permutation(30)
    shuffled = dict(three)
    r = three["fused"]
    shuffled["fused"] = _result(r.query_ids[order], **{m: v[order] for m, v in
                                                       r.per_query.items()})
    again = compare(shuffled, random_state=0)
    assert again.pvalues_raw == ref.pvalues_raw
    assert again.intervals == ref.intervals
    np.testing.assert_array_equal(again.query_ids["ndcg"], three["bm25"].query_ids)


def test_every_input_form_gives_the_same_numbers(three):
    ref = compare({s: r.per_query["ndcg"] for s, r in three.items()}, random_state=0)
    forms = [
        {s: {"score": r.per_query["ndcg"]} for s, r in three.items()},
        {s: r.per_query["ndcg"].tolist() for s, r in three.items()},
        {s: pd.Series(r.per_query["ndcg"], index=r.query_ids) for s, r in three.items()},
        {s: pd.DataFrame({"score": r.per_query["ndcg"]}, index=r.query_ids)
         for s, r in three.items()},
        {s: _result(r.query_ids, score=r.per_query["ndcg"]) for s, r in three.items()},
    ]
    for form in forms:
        report = compare(form, random_state=0)
        assert report.metrics == ["score"]
        assert report.pvalues_raw == ref.pvalues_raw
        assert report.intervals == ref.intervals


def test_evaluation_results_and_their_frames_are_one_input(three):
    a = compare(three, random_state=1)
    b = compare({s: r.to_frame() for s, r in three.items()}, random_state=1)
    assert a.pvalues == b.pvalues and a.means == b.means


def test_metrics_are_chosen_and_checked(three):
    assert compare(three, random_state=0).metrics == ["ndcg", "map"]
    assert compare(three, metrics="map", random_state=0).metrics == ["map"]
    with pytest.raises(ValueError, match=r"metrics: 'mrr' is not among the metrics of system "
                                         r"'bm25' \(ndcg, map\)"):
        compare(three, metrics=["mrr"])
    with pytest.raises(InvalidParameterError, match="names a metric twice"):
        compare(three, metrics=["map", "map"])
    odd = dict(three)
    odd["fused"] = _result(three["fused"].query_ids, ndcg=three["fused"].per_query["ndcg"])
    with pytest.raises(ValueError, match=r"different metrics .* not in both: map\)\. Name "
                                         r"the metrics to compare with metrics=\[\.\.\.\]"):
        compare(odd)
    assert compare(odd, metrics=["ndcg"], random_state=0).metrics == ["ndcg"]


def test_missing_queries_are_named_or_dropped(three):
    r = three["rerank"]
    keep = np.ones(30, dtype=bool)
    keep[[3, 17]] = False
    partial = dict(three)
    partial["rerank"] = _result(r.query_ids[keep], **{m: v[keep] for m, v in
                                                      r.per_query.items()})
    with pytest.raises(ValueError, match=r"do not have the same queries: 'rerank' lacks 2 "
                                         r"\('q03', 'q17'\)\. .*on the 28 queries they share "
                                         r"with on_missing='drop'"):
        compare(partial)
    report = compare(partial, on_missing="drop", random_state=0)
    assert report.n_queries == {"ndcg": 28, "map": 28}
    assert "q03" not in report.query_ids["ndcg"]
    assert any("2 of 30 queries" in n for n in report.notes)
    expected = st.ttest_rel(three["bm25"].per_query["map"][keep], r.per_query["map"][keep])
    assert report.pvalues_raw["map"][("bm25", "rerank")] == pytest.approx(expected.pvalue,
                                                                          rel=1e-9)


def test_systems_sharing_no_query_raise():
    a = _result(["q1", "q2"], m=[0.1, 0.2])
    b = _result(["q3", "q4"], m=[0.1, 0.2])
    for on_missing in ("raise", "drop"):
        with pytest.raises(ValueError, match="They share no query at all"):
            compare({"a": a, "b": b}, on_missing=on_missing)
    c = _result([1, 2], m=[0.1, 0.2])
    with pytest.raises(ValueError, match="integer query ids and others string ids"):
        compare({"a": a, "c": c})


def test_nan_queries_are_left_out_per_metric(three):
    nan = {s: _result(r.query_ids, ndcg=r.per_query["ndcg"].copy(), map=r.per_query["map"])
           for s, r in three.items()}
    for r in nan.values():
        r.per_query["ndcg"][[0, 5]] = np.nan  # the same queries in every system: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = compare(nan, random_state=0)
    assert report.n_queries == {"ndcg": 28, "map": 30}
    assert report.means["ndcg"]["bm25"] == pytest.approx(np.nanmean(nan["bm25"].per_query[
        "ndcg"]))
    assert any("ndcg: 2 queries with NaN" in n for n in report.notes)
    nan["fused"].per_query["ndcg"][7] = np.nan  # only in one system: warned
    with pytest.warns(UserWarning, match=r"for 'ndcg', 1 query NaN in some systems but not "
                                         r"in others"):
        report = compare(nan, random_state=0)
    assert report.n_queries["ndcg"] == 27
    every = {s: _result(r.query_ids, ndcg=np.full(30, np.nan)) for s, r in three.items()}
    with pytest.raises(ValueError, match="'ndcg' has no query with a value in every system"):
        compare(every)


@pytest.mark.parametrize(
    ("results", "error", "match"),
    [
        ([1, 2, 3], InvalidParameterError, r"results must be a mapping \{system name: scores\}"),
        ({"a": [0.1, 0.2]}, ValueError, r"holds 1 system\(s\); a comparison needs at least two"),
        ({"a": [0.1, 0.2], 3: [0.1, 0.2]}, InvalidParameterError,
         "keyed by system names \\(strings\\), got the key 3"),
        ({"a": [0.1, 0.2], "b": [0.1, 0.2, 0.3]}, ValueError,
         r"different numbers of queries \('a': 2, 'b': 3\) and no query ids"),
        ({"a": [0.1, np.inf], "b": [0.1, 0.2]}, ValueError,
         r"results\['a'\] is infinite at entry 1"),
        ({"a": [0.1, "x"], "b": [0.1, 0.2]}, ValueError, r"results\['a'\] must hold numbers"),
        ({"a": [[0.1, 0.2]], "b": [0.1, 0.2]}, ValueError,
         r"results\['a'\] must be 1-D \(one value per query\)"),
        ({"a": {"m": [0.1, 0.2], "n": [0.3]}, "b": {"m": [0.1, 0.2], "n": [0.3, 0.1]}},
         ValueError, "metric 'n' has 1 values, but the system has 2 queries"),
        ({"a": {1: [0.1]}, "b": [0.1]}, InvalidParameterError,
         r"must map metric names \(strings\)"),
        ({"a": pd.Series([0.1, 0.2], index=["q1", "q1"]), "b": pd.Series([0.1, 0.2])},
         ValueError, "query 'q1' appears 2 times; query ids must be unique"),
        ({"a": pd.Series([0.1, 0.2], index=["q1", "q2"]), "b": [0.1, 0.2]},
         InvalidParameterError, "mixes systems with query ids .* and without"),
    ],
)
def test_hostile_results_raise_clearly(results, error, match):
    with pytest.raises(error, match=match):
        compare(results)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"test": "anova"}, r"compare: test='anova' is not accepted \(the paired two-sided "
                            r"significance test\). Accepted: 't-test', 'wilcoxon'"),
        ({"correction": "sidak"}, "compare: correction='sidak' is not accepted"),
        ({"alpha": 0}, "compare: alpha=0 is not accepted"),
        ({"confidence_level": 1.0}, "compare: confidence_level=1.0 is not accepted"),
        ({"n_resamples": 10**12}, r"n_resamples=1000000000000 is not accepted .* more than "
                                  "10 million take too long"),
        ({"random_state": -1}, "compare: random_state=-1 is not accepted"),
        ({"baseline": "nobody"}, r"compare: baseline='nobody' is not one of the systems "
                                 r"\('a', 'b'\)"),
        ({"on_missing": "zero"}, "compare: on_missing='zero' is not accepted"),
        ({"metric": "score"}, r"compare\(\): got an unexpected keyword argument 'metric'"),
    ],
)
def test_bad_parameters_raise_naming_them(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        compare({"a": [0.1, 0.2, 0.3], "b": [0.2, 0.2, 0.5]}, **kwargs)


# -- pairs, baseline, markers ------------------------------------------------------------------


def test_all_pairs_and_baseline_pairs(three):
    report = compare(three, random_state=0)
    assert report.pairs == [("bm25", "rerank"), ("bm25", "fused"), ("rerank", "fused")]
    base = compare(three, baseline="bm25", random_state=0)
    assert base.pairs == [("rerank", "bm25"), ("fused", "bm25")]
    d = three["rerank"].per_query["map"] - three["bm25"].per_query["map"]
    assert base.differences["map"][("rerank", "bm25")] == pytest.approx(d.mean())
    # Fewer comparisons in the family: smaller Holm adjustments.
    assert base.pvalues["map"][("rerank", "bm25")] <= 2 * base.pvalues_raw["map"][
        ("rerank", "bm25")] + 1e-15


def test_markers_follow_significance_and_direction(three):
    report = compare(three, random_state=0)
    assert report.significant["ndcg"][("bm25", "rerank")]
    assert report.differences["ndcg"][("bm25", "rerank")] < 0
    text = str(report)
    rows = {line.split()[1]: line for line in text.splitlines()[1:4]}
    assert re.search(r"\^ac\b", rows["rerank"])  # rerank beats bm25 (a) and fused (c)
    assert "^" not in rows["bm25"]
    assert "^x: significantly better than system x (paired t-test, Holm correction over " \
           "the 3 comparisons of each metric, p < 0.05; 30 queries)" in " ".join(text.split())
    assert max(len(line) for line in text.splitlines() if not line.startswith(
        ("ndcg ", "map ", "metric "))) <= 88
    none = compare(three, correction=None, alpha=1e-300, random_state=0)
    assert "^" not in str(none).splitlines()[1] + str(none).splitlines()[2]


def test_str_lists_every_comparison_with_one_p_value_format(three):
    text = str(compare(three, random_state=0))
    lines = [line for line in text.splitlines() if line.startswith(("ndcg ", "map "))]
    assert len(lines) == 6
    for line in lines:
        p_raw, p = line.split()[-2:]
        for value in (p_raw, p):
            assert re.fullmatch(r"<0\.0001|[01]\.\d{4}", value), value
        assert re.search(r"\d+/\d+/\d+", line)


def test_to_markdown_renders_as_a_table(three):
    markdown_it = pytest.importorskip("markdown_it")
    report = compare(three, random_state=0)
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(
        report.to_markdown())
    assert html.count("<table>") == 2  # the systems, then every comparison
    means, pairs = html.split("</table>")[:2]
    header = re.findall(r"<th[^>]*>(.*?)</th>", means)
    assert header == ["#", "system", "ndcg", "map"]
    rows = re.findall(r"<tr>\s*(.*?)</tr>", means, flags=re.S)[1:]
    assert len(rows) == 3
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in rows]
    assert [c[1] for c in cells] == ["bm25", "rerank", "fused"]
    assert cells[1][2] == "<strong>{:.4f}</strong><sup>ac</sup>".format(
        report.means["ndcg"]["rerank"])
    assert "best mean of each metric in bold" in " ".join(html.split())
    # the comparisons table: the text report's, p-values included
    assert re.findall(r"<th[^>]*>(.*?)</th>", pairs) == [
        "metric", "comparison", "difference", "95% CI", "effect", "W/T/L", "p (raw)",
        "p (holm)"]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", r)
            for r in re.findall(r"<tr>\s*(.*?)</tr>", pairs, flags=re.S)[1:]]
    assert len(rows) == 6
    text_rows = [line.split() for line in str(report).splitlines()
                 if line.startswith(("ndcg ", "map "))]
    for row, text_row in zip(rows, text_rows):
        row = [c.replace("&lt;", "<") for c in row]
        assert row[0] == text_row[0] and row[1] == " ".join(text_row[1:4])
        assert row[2] == text_row[4] and row[5:] == text_row[-3:]
    p = report.pvalues["ndcg"][("bm25", "rerank")]
    assert rows[0][-1].replace("&lt;", "<") == format_pvalue(p)


def test_markdown_and_latex_escape_names(tmp_path):
    results = {"my|run": {"hit_rate@5": [0.1, 0.2, 0.3]},
               "b_2&%#$~^{}\\": {"hit_rate@5": [0.2, 0.3, 0.5]}}
    report = compare(results, random_state=0)
    assert r"| a | my\|run |" in report.to_markdown()
    latex = report.to_latex()
    assert r"b & b\_2\&\%\#\$\textasciitilde{}\textasciicircum{}\{\}\textbackslash{} & " \
        in " ".join(latex.split())
    assert r"hit\_rate@5" in latex
    _compile(latex, tmp_path)


#: The printable ASCII characters LaTeX's text mode prints as themselves
#: (``,`` alone; ``*`` not at the start of a row), and what every other one
#: must become.
_LATEX_SAFE = set(string.ascii_letters + string.digits + ".:;!?/()@=+*,")
_LATEX_ESCAPED = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}", "`": r"\textasciigrave{}", "'": r"\textquotesingle{}",
                  '"': r"{\ttfamily\char34}", "[": "{[}", "]": "{]}", "-": "-{}"}


def test_latex_escapes_every_character_it_would_not_print_as_written():
    """No TeX needed: every printable ASCII character passes as itself or
    becomes its escape; the ligatures (--, ,,, ``, !`) and a row starting with
    * (read by the previous row's \\ as \\*) are broken."""
    from sk_rankmetrics._stats.render import latex as _latex

    printable = set(string.printable) - set(string.whitespace)
    assert _LATEX_SAFE | set(_LATEX_ESCAPED) == printable
    for c in sorted(printable):
        assert _latex(f"a{c}") == "a" + _LATEX_ESCAPED.get(c, c), c
    assert _latex("--") == "-{}-{}" and _latex(",,") == ",{}," and _latex("*a") == "{}*a"
    assert _latex("!`?`") == r"!\textasciigrave{}?\textasciigrave{}"


def test_to_latex_escapes_a_backtick_in_every_cell_and_header(tmp_path):
    results = {"a`b": {"m`x": [0.1, 0.2, 0.3], "[p]": [0.3, 0.2, 0.2]},
               "--c''": {"m`x": [0.2, 0.3, 0.5], "[p]": [0.1, 0.1, 0.4]}}
    latex = compare(results, random_state=0).to_latex()
    assert "`" not in latex and "--c" not in latex and "''" not in latex
    assert "a\\textasciigrave{}b" in latex and "m\\textasciigrave{}x" in latex
    assert "-{}-{}c\\textquotesingle{}\\textquotesingle{}" in latex
    assert "\n{[}p{]} & " in latex  # a row of the comparisons starts with the metric
    _compile(latex, tmp_path)


@pytest.mark.parametrize("name", ["", " ", "\t\n"])
def test_a_blank_system_name_is_refused(name):
    """A name that shows as nothing would be a row without a name in every table."""
    what = "empty" if not name else "only whitespace"
    with pytest.raises(InvalidParameterError,
                       match=f"results has the system name {re.escape(repr(name))}, which is "
                             f"{what}; give each system a name that shows"):
        compare({name: [0.1, 0.2, 0.3], "b": [0.2, 0.3, 0.1]})


def test_a_name_with_a_newline_and_a_bar_breaks_no_table(tmp_path):
    markdown_it = pytest.importorskip("markdown_it")
    evil = "run\n| x | y |\n<b>*bold*</b>&amp;\\"
    results = {evil: {"mrr": [0.9, 0.8, 0.7, 0.9]}, "base": {"mrr": [0.1, 0.2, 0.1, 0.3]}}
    report = compare(results, random_state=0)
    shown = "run\\n| x | y |\\n<b>*bold*</b>&amp;\\"  # the newlines as \n
    text = str(report)
    assert text.splitlines()[1].split(None, 2)[1:] == [shown.split()[0],
                                                     text.splitlines()[1].split(None, 2)[2]]
    assert len(text.splitlines()[:3]) == 3 and "b  base" in text.splitlines()[2]
    assert f"{shown} - base" in text
    # Markdown: every row keeps its cells, and the name shows as written
    markdown = report.to_markdown()
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(
        markdown)
    assert html.count("<table>") == 2 and "<b>" not in html and "<em>" not in html
    tables = html.split("</table>")[:2]
    for table, width in zip(tables, (3, 8)):
        for row in re.findall(r"<tr>\s*(.*?)</tr>", table, flags=re.S):
            assert len(re.findall(r"<t[hd][^>]*>", row)) == width, row
    name_cell = re.findall(r"<td[^>]*>(.*?)</td>", tables[0])[1]
    assert name_cell == shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # LaTeX: both tables keep their shape; the specials are escaped
    latex = report.to_latex()
    _latex_structure(latex, n_rows=2, n_cols=3, n_pairs=1, width=None)  # a long name
    assert ("run\\textbackslash{}n\\textbar{} x \\textbar{} y \\textbar{}\\textbackslash{}n"
            "\\textless{}b\\textgreater{}*bold*") in latex
    _compile(latex, tmp_path)


def test_markers_of_30_systems_stay_readable(tmp_path):
    rng = np.random.default_rng(0)
    base = rng.uniform(size=40)
    # 30 systems, each 0.05 better than the one before: most pairs significant
    results = {f"s{i}": base + 0.05 * i + 0.01 * rng.normal(size=40) for i in range(30)}
    report = compare(results, correction=None, n_resamples=200, random_state=0)
    index = {s: i for i, s in enumerate(report.systems)}
    beaten = {s: set() for s in report.systems}
    for (a, b), sig in report.significant["score"].items():
        if sig:
            d = report.differences["score"][(a, b)]
            beaten[a if d > 0 else b].add(index[b if d > 0 else a] + 1)

    def expand(marker, dash="-"):
        out = set()
        for part in marker.split(","):
            lo, _, hi = part.partition(dash)
            out |= set(range(int(lo), int(hi or lo) + 1))
        return out

    assert len(beaten["s29"]) == 29  # the best beats every other
    assert _marker([0, 1, 2, 4, 6, 7, 8, 9, 28], 30) == "1-3,5,7-10,29"
    assert _marker([0, 1, 3, 4], 30, "--") == "1,2,4,5"  # ranges from three in a row
    assert _marker([0, 2, 3], 26) == "acd"
    lines = str(report).splitlines()
    assert [line.split()[0] for line in lines[1:31]] == [str(i) for i in range(1, 31)]
    for line, s in zip(lines[1:31], report.systems):
        mark = line.split()[-1].partition("^")[2]
        assert re.fullmatch(r"(\d+(-\d+)?(,\d+(-\d+)?)*)?", mark), mark
        assert (expand(mark) if mark else set()) == beaten[s], s
    assert lines[30].endswith("^1-29")
    assert "^1,3-5: significantly better than systems 1, 3, 4 and 5" in " ".join(
        str(report).split())
    markdown = report.to_markdown()
    marks = dict(re.findall(r"^\| \d+ \| (s\d+) \| [^|]*?(?:<sup>([\d,-]+)</sup>)? \|$",
                            markdown, flags=re.M))
    assert len(marks) == 30
    assert all((expand(m) if m else set()) == beaten[s] for s, m in marks.items())
    latex = report.to_latex()
    _latex_structure(latex, n_rows=30, n_cols=3, n_pairs=435)
    sups = dict(re.findall(r"^\d+ & (s\d+) & .*?(?:\\textsuperscript\{([\d,-]+)\})? \\\\$",
                           latex, flags=re.M))
    assert len(sups) == 30
    assert all((expand(m, "--") if m else set()) == beaten[s] for s, m in sups.items())
    assert "A superscript number" in latex
    # up to 26 systems: letters, as before
    few = compare({k: results[k] for k in list(results)[:26]}, correction=None,
                  n_resamples=200, random_state=0)
    assert str(few).splitlines()[26].startswith("z  s25") and "^abcdefghijklmnopqrstuvwxy" \
        in str(few).splitlines()[26]


def _latex_structure(text, n_rows, n_cols, n_pairs=None, width=88):
    """Both tables of to_latex(): the systems (n_rows x n_cols), then, when
    n_pairs is given, the comparisons (n_pairs rows of 8 columns); lines of at
    most ``width`` characters (None: not checked)."""
    means, pairs = text.split("\n\n")
    _latex_table(means, n_rows, n_cols, width)
    if n_pairs is not None:
        _latex_table(pairs, n_pairs, 8, width)
        assert "\\caption{Paired comparisons" in pairs


def _latex_table(text, n_rows, n_cols, width):
    assert text.startswith("\\begin{table}") and text.endswith("\\end{table}")
    for env in ("table", "tabular"):
        assert text.count(f"\\begin{{{env}}}") == text.count(f"\\end{{{env}}}") == 1
    spec = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", text).group(1)
    assert len(spec) == n_cols
    body = text[text.index("\\hline"):text.index("\\end{tabular}")]
    rows = [r for r in body.replace("\\hline", "").split("\\\\") if r.strip()]
    assert len(rows) == n_rows + 1
    for row in rows:
        assert row.replace("\\&", "").count("&") == n_cols - 1, row
    assert width is None or all(len(line) <= width for line in body.splitlines())
    assert text.count("{") == text.count("}")
    assert "\\caption{" in text


@pytest.mark.slow
def test_to_latex_structure_and_compilation(three, tmp_path):
    report = compare(three, random_state=0)
    text = report.to_latex()
    _latex_structure(text, n_rows=3, n_cols=4, n_pairs=6)
    assert "bm25 $-$ rerank & $-$" in text  # minus signs in math mode
    rerank = next(row for row in " ".join(text.split()).split("\\\\")
                  if row.strip().startswith("b & rerank"))
    mean = f"{report.means['ndcg']['rerank']:.4f}"
    assert f"\\textbf{{{mean}}}\\textsuperscript{{ac}}" in rerank
    assert "Holm correction over the 3 comparisons" in text
    _compile(text, tmp_path)


def _compile(table, tmp_path):
    """The table in a minimal document must compile (when a LaTeX is installed)."""
    if shutil.which("pdflatex") is None:
        pytest.skip("no pdflatex: structure checked only")
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\n\\begin{document}\n" + table
                   + "\n\\end{document}\n")
    out = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:]
    assert (tmp_path / "t.pdf").exists()


def test_to_json_holds_everything_and_no_nan(three):
    report = compare({"a": [0.1, 0.3, 0.5], "b": [0.0, 0.2, 0.4]}, random_state=0)
    doc = json.loads(report.to_json())
    (comparison,) = doc["comparisons"]
    assert comparison["effect_size"] is None  # +inf: every difference is 0.1
    assert comparison["wins"] == 3 and comparison["p"] == pytest.approx(0.25)
    assert doc["settings"]["test"] == "t-test" and doc["settings"]["correction"] == "holm"
    full = json.loads(compare(three, random_state=0).to_json())
    assert set(full) == {"settings", "systems", "metrics", "n_queries", "means", "intervals",
                         "comparisons", "exact", "notes"}
    assert len(full["comparisons"]) == 6
    assert full["intervals"]["ndcg"]["bm25"][0] < full["means"]["ndcg"]["bm25"]


def test_to_frame(three):
    report = compare(three, random_state=0)
    frame = report.to_frame()
    assert list(frame.index) == ["bm25", "rerank", "fused"]
    assert frame.loc["rerank", ("map", "mean")] == report.means["map"]["rerank"]
    assert frame.loc["rerank", ("map", "ci_low")] == report.intervals["map"]["rerank"][0]
    pairs = report.to_frame(rows="pairs")
    assert len(pairs) == 6
    row = pairs[(pairs.metric == "ndcg") & (pairs.system_a == "bm25")
                & (pairs.system_b == "fused")].iloc[0]
    assert row.p == report.pvalues["ndcg"][("bm25", "fused")]
    assert row.wins + row.ties + row.losses == 30


def test_repr(three):
    assert repr(compare(three, random_state=0)) == (
        "ComparisonReport(3 systems, 2 metrics, 30 queries, test='t-test', correction='holm')")


def test_compare_evaluate_ranked_results():
    truth = {f"u{i}": {f"i{i % 7}", f"i{(i * 3) % 11}"} for i in range(40)}
    rng = np.random.default_rng(5)
    items = [f"i{j}" for j in range(12)]
    good = {u: sorted(t) + [i for i in items if i not in t][:3] for u, t in truth.items()}
    rand = {u: list(rng.permutation(items)[:5]) for u in truth}
    res = {name: evaluate_ranked(rec, truth, ["ndcg@5", "recall@5"])
           for name, rec in (("good", good), ("random", rand))}
    report = compare(res, random_state=0)
    assert report.means["ndcg@5"]["good"] == 1.0
    assert report.significant["recall@5"][("good", "random")]
    assert report.win_tie_loss["ndcg@5"][("good", "random")][2] == 0


# -- compare_estimators -------------------------------------------------------------------------


@pytest.fixture
def ltr():
    rng = np.random.default_rng(0)
    sizes = rng.integers(5, 15, size=45)
    qid = np.repeat(np.arange(45) * 7 + 3, sizes)  # ids not 0..n-1
    X = rng.normal(size=(qid.size, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.6 * rng.normal(size=qid.size), [0.5, 1.5])
    first = np.unique(qid, return_index=True)[1]
    y[first] = np.maximum(y[first], 1)
    return X, y, qid


#: Fast, single-threaded and deterministic: refits give the same models.
ESTIMATORS = {"ridge": Ridge(alpha=1.0),
              "tree": DecisionTreeRegressor(max_depth=4, random_state=0)}


@pytest.mark.slow
def test_compare_estimators_values_are_cross_validates(ltr):
    X, y, qid = ltr
    cv = GroupKFold(n_splits=3)
    report = compare_estimators(ESTIMATORS, X, y, qid=qid, cv=cv,
                                scoring=["ndcg@5", "map@5"], random_state=0)
    assert report.n_queries == {"ndcg@5": 45, "map@5": 45}
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = get_scorer("ndcg@5").set_score_request(qid=True)
        for name, est in ESTIMATORS.items():
            res = cross_validate(est, X, y, cv=cv, scoring=scorer, return_estimator=True,
                                 return_indices=True, params={"qid": qid, "groups": qid})
            for fold, (model, test) in enumerate(zip(res["estimator"],
                                                     res["indices"]["test"])):
                per_query = evaluate(y[test], model.predict(X[test]), ["ndcg@5", "map@5"],
                                     qid=qid[test], per_row=True)
                queries = np.unique(qid[test])
                pos = np.searchsorted(report.query_ids["ndcg@5"], queries,
                                      sorter=np.argsort(report.query_ids["ndcg@5"]))
                order = np.argsort(report.query_ids["ndcg@5"])[pos]
                for m in ("ndcg@5", "map@5"):
                    np.testing.assert_allclose(report.per_query[m][name][order],
                                               per_query[m], rtol=1e-12)
                # The fold's mean of the per-query values is cross_validate's score.
                assert report.per_query["ndcg@5"][name][order].mean() == pytest.approx(
                    res["test_score"][fold], rel=1e-12)


def test_compare_estimators_int_cv_is_groupkfold_over_qid(ltr):
    X, y, qid = ltr
    a = compare_estimators(ESTIMATORS, X, y, qid=qid, cv=3, scoring="ndcg@5", random_state=0)
    b = compare_estimators(ESTIMATORS, X, y, qid=qid, cv=GroupKFold(3), scoring="ndcg@5",
                           random_state=0)
    assert a.per_query["ndcg@5"]["tree"].tolist() == b.per_query["ndcg@5"]["tree"].tolist()
    assert a.pvalues == b.pvalues
    splits = list(GroupKFold(3).split(X, y, groups=qid))
    c = compare_estimators(ESTIMATORS, X, y, qid=qid, cv=splits, scoring="ndcg@5",
                           random_state=0)
    assert c.pvalues == a.pvalues


@pytest.mark.slow
def test_compare_estimators_without_qid_ranks_classes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    y = np.argmax(X + 0.8 * rng.normal(size=(120, 3)), axis=1)
    report = compare_estimators([LogisticRegression(), LogisticRegression(C=1e-4)], X, y,
                                cv=KFold(4), scoring=["mrr"], random_state=0)
    assert report.systems == ["LogisticRegression (1)", "LogisticRegression (2)"]
    assert report.n_queries["mrr"] == 120
    np.testing.assert_array_equal(report.query_ids["mrr"], np.arange(120))
    res = cross_validate(LogisticRegression(), X, y, cv=KFold(4), scoring=get_scorer("mrr"),
                         return_indices=True)
    for fold, test in enumerate(res["indices"]["test"]):
        assert report.per_query["mrr"]["LogisticRegression (1)"][test].mean() == \
            pytest.approx(res["test_score"][fold], rel=1e-12)


def test_compare_estimators_passes_qid_to_rankers_and_fit_params(ltr):
    pytest.importorskip("lightgbm")
    from lightgbm import LGBMRanker

    from sk_rankmetrics import QueryGroupRanker

    X, y, qid = ltr
    report = compare_estimators(
        {"lgbm": QueryGroupRanker(LGBMRanker(n_estimators=10, min_child_samples=5,
                                             n_jobs=1, verbose=-1)),
         "ridge": Ridge()}, X, y, qid=qid, cv=3, scoring="ndcg@5", random_state=0)
    assert report.n_queries["ndcg@5"] == 45
    weighted = compare_estimators(ESTIMATORS, X, y, qid=qid, cv=3, scoring="ndcg@5",
                                  fit_params={"sample_weight": np.ones(len(y))},
                                  random_state=0)
    plain = compare_estimators(ESTIMATORS, X, y, qid=qid, cv=3, scoring="ndcg@5",
                               random_state=0)
    np.testing.assert_allclose(weighted.per_query["ndcg@5"]["ridge"],
                               plain.per_query["ndcg@5"]["ridge"])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"cv": KFold(3)}, ValueError,
         r"the test fold of split 0 holds part of query \d+ only; every query's rows must be "
         r"in one fold"),
        ({"cv": 1}, InvalidParameterError, "cv=1 is not accepted; give a number of folds >= 2"),
        ({"cv": "five"}, InvalidParameterError, "cv='five' is not accepted"),
        ({"cv": 500}, ValueError, "could not split the data"),
        ({"estimators": {"ridge": Ridge()}}, ValueError, "holds 1 estimator"),
        ({"estimators": {"ridge": Ridge(), "x": "not an estimator"}}, InvalidParameterError,
         r"estimators\['x'\] has no fit method"),
        ({"scoring": "ndgc@5"}, InvalidParameterError, "unknown metric 'ndgc'"),
        ({"test": "z-test"}, InvalidParameterError, "compare_estimators: test='z-test'"),
        ({"fit_params": [1]}, InvalidParameterError, "compare_estimators: fit_params=\\[1\\]"),
    ],
)
def test_compare_estimators_hostile_inputs(ltr, kwargs, error, match):
    X, y, qid = ltr
    args = {"estimators": ESTIMATORS, "cv": 3, "scoring": "ndcg@5", **kwargs}
    est = args.pop("estimators")
    with pytest.raises(error, match=match):
        compare_estimators(est, X, y, qid=qid, **args)


def test_compare_estimators_refuses_queries_tested_twice(ltr):
    X, y, qid = ltr
    splits = list(GroupKFold(3).split(X, y, groups=qid))
    with pytest.raises(ValueError, match=r"query \d+ is in the test fold of 2 splits; each "
                                         r"query must be tested once"):
        compare_estimators(ESTIMATORS, X, y, qid=qid, cv=splits + splits[:1],
                           scoring="ndcg@5")
    with pytest.raises(ValueError, match="qid has 3 entries but X has"):
        compare_estimators(ESTIMATORS, X, y, qid=[1, 2, 3], scoring="ndcg@5")


def test_compare_estimators_notes_untested_queries(ltr):
    X, y, qid = ltr
    splits = list(GroupKFold(3).split(X, y, groups=qid))[:2]
    report = compare_estimators(ESTIMATORS, X, y, qid=qid, cv=splits, scoring="ndcg@5",
                                random_state=0)
    assert report.n_queries["ndcg@5"] < 45
    assert any("in no test fold of cv were not scored" in n for n in report.notes)
