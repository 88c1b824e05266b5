"""compare_qrels, QrelsComparison and OrderingDisplay: two qrels through the
orderings of the systems they score, checked against SciPy and compare() by hand."""

from __future__ import annotations

from importlib.resources import files

import matplotlib
import numpy as np
import pytest
import scipy.stats

import sk_rankmetrics as skr
from sk_rankmetrics import (
    InvalidParameterError,
    OrderingDisplay,
    QrelsComparison,
    TrecQrels,
    TrecRun,
    compare,
    compare_qrels,
    evaluate_run,
    read_trec_qrels,
    read_trec_run,
    tau_ap,
)

matplotlib.use("Agg")

DATA = files("sk_rankmetrics") / "data"


# -- the bundled judge qrels -----------------------------------------------------------


def judge_lines(seed=2024):
    """The simulated judge of sk_rankmetrics/data/judge.txt.

    It judges the pool: every document the human qrels judge and the top 10 of
    both shipped runs. A document the humans judged gets a level drawn from a
    row of a lenient confusion matrix (rows: the human level; columns: the
    judge's level 0, 1, 2); a document they did not judge, from the first row.
    """
    human = read_trec_qrels(str(DATA / "qrels.txt"))
    level = {(q, d): int(r) for q, d, r in zip(human.qid.tolist(), human.docno.tolist(),
                                                human.relevance.tolist())}
    pool = set(level)
    for name in ("bm25.txt", "rerank.txt"):
        run = read_trec_run(str(DATA / name))
        for q in sorted(set(run.qid.tolist())):
            sel = run.qid == q
            top = np.argsort(-run.score[sel], kind="stable")[:10]
            pool |= {(q, d) for d in run.docno[sel][top].tolist()}
    rows = {0: [0.8, 0.17, 0.03], 1: [0.12, 0.6, 0.28], 2: [0.02, 0.25, 0.73],
            None: [0.8, 0.17, 0.03]}
    rng = np.random.default_rng(seed)
    return [f"{q} 0 {d} {rng.choice(3, p=rows[level.get((q, d))])}" for q, d in sorted(pool)]


def test_the_bundled_judge_qrels_are_the_seeded_simulation():
    assert (DATA / "judge.txt").read_text().splitlines() == judge_lines()


# -- a small world of systems ------------------------------------------------------------


def _world(seed=0, n_queries=15, n_docs=12, n_systems=5, judge_noise=0.3, spread=0.3):
    """Qrels of humans and of a judge who relabels a share of the documents at
    random, and systems that score relevance plus noise (more noise, worse)."""
    rng = np.random.default_rng(seed)
    q = np.repeat([f"q{i:02d}" for i in range(n_queries)], n_docs)
    d = np.tile([f"d{j:02d}" for j in range(n_docs)], n_queries)
    rel = rng.choice([0, 0, 0, 1, 2], size=q.size)
    flip = rng.random(q.size) < judge_noise
    judged = np.where(flip, rng.choice([0, 1, 2], size=q.size), rel)
    human, judge = TrecQrels(q, d, rel.astype(float)), TrecQrels(q, d, judged.astype(float))
    runs = {f"s{k}": TrecRun(q, d, rel + rng.normal(scale=0.6 + spread * k, size=q.size))
            for k in range(n_systems)}
    return human, judge, runs


def _by_hand(human, judge, runs, metric):
    va = np.column_stack([evaluate_run(human, r, [metric]).per_query[metric]
                          for r in runs.values()])
    vb = np.column_stack([evaluate_run(judge, r, [metric]).per_query[metric]
                          for r in runs.values()])
    return va, vb


@pytest.mark.parametrize("metric", ["ndcg@10", "P@5", "map"])
def test_tau_is_scipys_of_the_orderings_computed_by_hand(metric):
    human, judge, runs = _world()
    cmp = compare_qrels(human, judge, runs, metric=metric, n_resamples=500, random_state=0)
    va, vb = _by_hand(human, judge, runs, metric)
    ma, mb = va.mean(axis=0), vb.mean(axis=0)
    assert cmp.kendall_tau == pytest.approx(scipy.stats.kendalltau(ma, mb)[0],
                                            abs=1e-14)
    names = list(runs)
    a, b = dict(zip(names, ma)), dict(zip(names, mb))
    if len(set(ma.tolist())) == len(ma):
        assert cmp.tau_ap == pytest.approx(tau_ap(b, a), abs=1e-14)  # judge against humans
    else:  # the humans' ordering ties two systems: tau_AP has no strict reference
        assert np.isnan(cmp.tau_ap)
        assert any("tau_AP is undefined: qrels_a ties two systems" in n for n in cmp.notes)
    assert cmp.means["qrels_a"] == pytest.approx(a) and cmp.means["qrels_b"] == pytest.approx(b)
    per_query = [scipy.stats.kendalltau(x, y)[0] for x, y in zip(va, vb)]
    np.testing.assert_allclose(cmp.per_query_tau, per_query, atol=1e-14)
    assert cmp.to_frame(rows="queries")["tau_b"].to_numpy() == pytest.approx(
        cmp.per_query_tau, nan_ok=True)


def test_swaps_and_their_tests_are_compares():
    human, judge, runs = _world(seed=2, judge_noise=0.6, spread=0.05)
    cmp = compare_qrels(human, judge, runs, metric="P@5", test="wilcoxon", n_resamples=500,
                        random_state=1)
    va, vb = _by_hand(human, judge, runs, "P@5")
    names = list(runs)
    ma, mb = dict(zip(names, va.mean(0))), dict(zip(names, vb.mean(0)))
    rep_a = compare({s: va[:, i] for i, s in enumerate(names)}, test="wilcoxon",
                    n_resamples=500, random_state=1)
    rep_b = compare({s: vb[:, i] for i, s in enumerate(names)}, test="wilcoxon",
                    n_resamples=500, random_state=1)
    expected = []

    def sign(x):  # equal means summed in another order differ by round-off: a tie
        return 0 if abs(x) < 1e-12 else np.sign(x)

    for s, t in rep_a.pairs:
        first, second = (s, t) if ma[s] >= ma[t] - 1e-12 else (t, s)
        if sign(ma[first] - ma[second]) * sign(mb[first] - mb[second]) < 0:
            expected.append(((first, second), rep_a.pvalues["score"][(s, t)],
                             rep_b.pvalues["score"][(s, t)]))
    assert len(expected) >= 1, "the world should swap some pairs"
    got = [(row["pair"], row["p_a"], row["p_b"]) for row in cmp.swaps]
    assert got == expected
    for row in cmp.swaps:
        s, t = row["pair"]
        assert row["difference_a"] > 0 > row["difference_b"]
        assert row["difference_a"] == pytest.approx(ma[s] - ma[t])
        assert row["significant_a"] == (row["p_a"] < 0.05)
    pairs = cmp.to_frame(rows="pairs")
    assert pairs["swapped"].sum() == len(cmp.swaps) and len(pairs) == 10


@pytest.mark.skipif(tuple(int(p) for p in scipy.__version__.split(".")[:2]) < (1, 10),
                    reason="SciPy before 1.10 gives another BCa interval here; the "
                           "package's is that of SciPy 1.10 and later")
def test_the_intervals_are_scipys_bca_bootstrap_over_queries():
    human, judge, runs = _world(seed=5, n_queries=12)
    cmp = compare_qrels(human, judge, runs, metric="ndcg@10", n_resamples=1000,
                        random_state=7)
    va, vb = _by_hand(human, judge, runs, "ndcg@10")

    def tau(idx):
        return scipy.stats.kendalltau(va[idx].mean(0), vb[idx].mean(0))[0]

    ci = scipy.stats.bootstrap((np.arange(12),), tau, vectorized=False, n_resamples=1000,
                               method="BCa",
                               random_state=np.random.default_rng(7)).confidence_interval
    assert cmp.kendall_tau_interval == pytest.approx((ci.low, ci.high), abs=1e-12)
    low, high = cmp.tau_ap_interval
    assert low <= cmp.tau_ap <= high


def test_symmetric_tau_ap():
    human, judge, runs = _world(seed=2)
    cmp = compare_qrels(human, judge, runs, symmetric=True, n_resamples=200, random_state=0)
    a, b = cmp.means["qrels_a"], cmp.means["qrels_b"]
    assert cmp.tau_ap == pytest.approx(tau_ap(b, a, symmetric=True), abs=1e-14)
    assert "tau_AP,b" in str(cmp)


def test_on_the_bundled_example():
    runs = [str(DATA / "bm25.txt"), str(DATA / "rerank.txt")]  # named by their tags
    cmp = compare_qrels(str(DATA / "qrels.txt"), str(DATA / "judge.txt"), runs,
                        names=("human", "judge"), random_state=0)
    assert cmp.systems == ["bm25", "rerank"] and cmp.n_queries == 10
    assert cmp.ranks == {"human": {"bm25": 2.0, "rerank": 1.0},
                         "judge": {"bm25": 2.0, "rerank": 1.0}}
    assert cmp.kendall_tau == pytest.approx(1.0) and cmp.swaps == []


# -- queries, runs and errors ------------------------------------------------------------


def test_queries_one_qrels_does_not_judge():
    human, judge, runs = _world(seed=1, n_queries=6)
    keep = judge.qid != "q05"
    partial = TrecQrels(judge.qid[keep], judge.docno[keep], judge.relevance[keep])
    with pytest.warns(UserWarning):  # evaluate_run: q05 of the runs has no judge qrels
        with pytest.raises(ValueError, match=r"lacks 1 \('q05'\).*on_missing='drop'"):
            compare_qrels(human, partial, runs, n_resamples=200)
    with pytest.warns(UserWarning):
        cmp = compare_qrels(human, partial, runs, on_missing="drop", n_resamples=200,
                            random_state=0)
    assert cmp.n_queries == 5
    assert any("1 of 6 queries" in n for n in cmp.notes)


def test_queries_skipped_by_no_relevant():
    human, judge, runs = _world(seed=4, n_queries=8)
    empty = judge.qid == "q00"
    judge0 = TrecQrels(judge.qid, judge.docno, np.where(empty, 0.0, judge.relevance))
    cmp = compare_qrels(human, judge0, runs, no_relevant="skip", n_resamples=200,
                        random_state=0)
    assert "q00" not in cmp.query_ids.tolist()
    assert any("1 query with no value" in n for n in cmp.notes)


def test_runs_as_a_list_are_named_by_tag_then_file(tmp_path):
    human, judge, runs = _world(seed=1, n_queries=4, n_systems=2)
    paths = []
    for i, run in enumerate(runs.values()):
        p = tmp_path / f"run{i}.txt"
        skr.write_trec_run(p, run, tag="same")
        paths.append(str(p))
    cmp = compare_qrels(human, judge, paths, n_resamples=200, random_state=0)
    assert cmp.systems == ["run0.txt", "run1.txt"]
    with pytest.raises(InvalidParameterError, match="two runs share the tag 'same'"):
        compare_qrels(human, judge, [read_trec_run(p) for p in paths])


@pytest.mark.parametrize(("kw", "message"), [
    ({"runs": {"only": None}}, r"run must be a TrecRun, a path"),
    ({"runs": "one.txt"}, r"runs must be a list of runs or a mapping"),
    ({"names": ("x", "x")}, r"names gives 'x' twice"),
    ({"names": ("x",)}, r"compare_qrels: names=\('x',\) is not accepted"),
    ({"symmetric": "no"}, r"compare_qrels: symmetric='no' is not accepted"),
    ({"test": "anova"}, r"compare_qrels: test='anova' is not accepted"),
])
def test_bad_arguments_are_named(kw, message):
    human, judge, runs = _world(seed=1, n_queries=3, n_systems=2)
    args = {"runs": runs, **kw}
    with pytest.raises((ValueError, TypeError), match=message):
        compare_qrels(human, judge, args.pop("runs"), **args)


def test_qrels_as_mappings():
    human, judge, runs = _world(seed=1, n_queries=4, n_systems=3)

    def mapping(q):
        out = {}
        for qid, doc, level in zip(q.qid.tolist(), q.docno.tolist(), q.relevance.tolist()):
            out.setdefault(qid, {})[doc] = level
        return out

    by_arrays = compare_qrels(human, judge, runs, n_resamples=200, random_state=0)
    by_maps = compare_qrels(mapping(human), mapping(judge), runs, n_resamples=200,
                            random_state=0)
    assert by_maps.means == by_arrays.means
    assert by_maps.kendall_tau == by_arrays.kendall_tau
    with pytest.raises(InvalidParameterError, match=r"qrels_b must be qrels"):
        compare_qrels(human, [1, 2], runs)


def test_one_system_is_refused():
    human, judge, runs = _world(seed=1, n_queries=3, n_systems=1)
    with pytest.raises(ValueError, match=r"1 system; ordering systems needs at least two"):
        compare_qrels(human, judge, runs)


# -- the report ------------------------------------------------------------------------------


def _hostile():
    human, judge, runs = _world(seed=2, judge_noise=0.6, n_systems=3, spread=0.05)
    renamed = dict(zip(["a|b_1", "50% & #2", "x\ny"], runs.values()))
    return compare_qrels(human, judge, renamed, metric="P@5", names=("hu_man", "LLM $"),
                         n_resamples=200, random_state=0)


def test_text_report():
    cmp = _hostile()
    text = str(cmp)
    assert text.startswith("P@5 of 3 systems under hu_man and LLM $ (15 queries)")
    assert "Kendall's tau_b" in text and "tau_AP (hu_man the reference)" in text
    assert "x\\ny" in text and "x\ny" not in text  # a newline in a name is escaped
    assert repr(cmp).startswith("QrelsComparison(3 systems, 15 queries, kendall_tau=")


def test_markdown_escapes_the_names():
    md = _hostile().to_markdown()
    assert "a\\|b\\_1" in md and "hu\\_man" in md and "50% \\& #2" in md
    for line in md.splitlines():
        if line.startswith("| a"):
            assert line.count(" | ") == 4  # the escaped pipe does not split a cell


def test_latex_escapes_the_names():
    tex = _hostile().to_latex()
    assert "a\\textbar{}b\\_1" in tex and "50\\% \\& \\#2" in tex and "LLM \\$" in tex
    assert "x\\textbackslash{}ny" in tex
    assert tex.count("\\begin{table}") == tex.count("\\end{table}") >= 1


def test_frames():
    cmp = _hostile()
    systems = cmp.to_frame()
    assert list(systems.columns) == ["hu_man", "rank_hu_man", "LLM $", "rank_LLM $"]
    assert systems.index.tolist() == cmp.systems
    with pytest.raises(InvalidParameterError, match=r"to_frame: rows='swaps' is not accepted"):
        cmp.to_frame(rows="swaps")


# -- the display ------------------------------------------------------------------------------


def test_the_display_draws_both_orderings(tmp_path):
    import matplotlib.pyplot as plt

    human, judge, runs = _world(seed=2, judge_noise=0.6, spread=0.05)
    cmp = compare_qrels(human, judge, runs, metric="P@5", n_resamples=200, random_state=0)
    assert cmp.swaps
    display = OrderingDisplay.from_comparison(cmp)
    assert set(display.lines_) == set(runs)
    for s, line in display.lines_.items():
        ya, yb = line.get_ydata()
        assert ya == 1 + sorted(cmp.systems, key=lambda x: -cmp.means["qrels_a"][x]).index(s)
        assert yb == 1 + sorted(cmp.systems, key=lambda x: -cmp.means["qrels_b"][x]).index(s)
    swapped = {s for row in cmp.swaps for s in row["pair"]}
    colors = {s: matplotlib.colors.to_hex(line.get_color()) for s, line in
              display.lines_.items()}
    assert len({colors[s] for s in swapped}) >= 1
    assert all(colors[s] == matplotlib.colors.to_hex("0.55") for s in runs if s not in swapped)
    assert "tau_b" in display.ax_.get_title()
    display.figure_.savefig(tmp_path / "orderings.png")
    plt.close(display.figure_)


def test_the_display_refuses_unmatched_systems():
    with pytest.raises(ValueError, match=r"scores_b has no score for 'y'"):
        OrderingDisplay(scores_a={"x": 1.0, "y": 2.0}, scores_b={"x": 1.0}).plot()
    with pytest.raises(InvalidParameterError, match=r"comparison must be what compare_qrels"):
        OrderingDisplay.from_comparison({"x": 1.0})


def test_exported():
    for name in ("compare_qrels", "QrelsComparison", "OrderingDisplay"):
        assert name in skr.__all__
    assert isinstance(_hostile(), QrelsComparison)
