"""MetricAtKDisplay: values from the engine, scikit-learn display conventions."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sk_rankmetrics import (
    MetricAtKDisplay,
    dcg_score,
    evaluate,
    mean_average_precision_score,
    ndcg_score,
)

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: Slow (matplotlib figures): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 4, size=(30, 12))
    y_true[:, 0] = 1  # every row has a relevant item
    y_score = rng.integers(0, 5, size=(30, 12)).astype(float)  # many ties
    return y_true, y_score


def test_values_match_the_metric_functions(data):
    y_true, y_score = data
    ks = [1, 3, 5, 12, 20]
    d = MetricAtKDisplay.from_predictions(y_true, y_score, metric=["ndcg", "dcg", "map"],
                                          ks=ks)
    for j, k in enumerate(ks):
        assert d.values["ndcg"][j] == pytest.approx(ndcg_score(y_true, y_score, k=k),
                                                     abs=1e-12)
        assert d.values["dcg"][j] == pytest.approx(dcg_score(y_true, y_score, k=k),
                                                    abs=1e-12)
        assert d.values["map"][j] == pytest.approx(
            mean_average_precision_score(y_true, y_score, k=k), abs=1e-12)
    np.testing.assert_array_equal(d.ks, ks)


def test_options_pairs_and_presets(data):
    y_true, y_score = data
    d = MetricAtKDisplay.from_predictions(
        y_true, y_score, ks=[2, 4],
        metric=["ndcg_exp", ("ndcg", {"gain": "exponential", "discount": "jarvelin"})])
    assert set(d.values) == {"ndcg_exp", "ndcg (gain='exponential', discount='jarvelin')"}
    want = evaluate(y_true, y_score, ["ndcg_exp@2", "ndcg_exp@4"])
    np.testing.assert_allclose(d.values["ndcg_exp"], [want["ndcg_exp@2"],
                                                       want["ndcg_exp@4"]], atol=1e-12)
    jk = ndcg_score(y_true, y_score, k=4, gain="exponential", discount="jarvelin")
    assert d.values["ndcg (gain='exponential', discount='jarvelin')"][1] == pytest.approx(jk)


def test_long_format_and_weights():
    y = np.array([2, 0, 1, 0, 1, 1, 0])
    s = np.array([0.1, 0.9, 0.5, 0.3, 0.2, 0.8, 0.7])
    qid = np.array([1, 1, 1, 2, 2, 2, 2])
    w = np.array([1.0, 3.0])
    d = MetricAtKDisplay.from_predictions(y, s, qid=qid, sample_weight=w, ks=[1, 2, 3])
    for j, k in enumerate([1, 2, 3]):
        assert d.values["ndcg"][j] == pytest.approx(
            ndcg_score(y, s, qid=qid, sample_weight=w, k=k))


def test_one_ranking_pass(monkeypatch, data):
    from sk_rankmetrics._ranking import block as _ordering

    calls = []
    real = _ordering.rank_chunk

    def counting(*args, **kwargs):
        calls.append(args[2])  # the depth L the chunk is ranked to
        return real(*args, **kwargs)

    monkeypatch.setattr(_ordering, "rank_chunk", counting)
    y_true, y_score = data
    MetricAtKDisplay.from_predictions(y_true, y_score, metric=["ndcg", "recall"],
                                      ks=range(1, 9))
    assert calls == [8]  # one chunk, ranked once down to max(ks)


def test_plot_attributes_and_labels(data):
    y_true, y_score = data
    d = MetricAtKDisplay.from_predictions(y_true, y_score, metric=["dcg", "ndcg"],
                                          ks=range(1, 6), name="model")
    assert d.ax_.figure is d.figure_
    assert set(d.lines_) == {"dcg", "ndcg"}
    assert d.line_ is d.lines_["ndcg"]
    np.testing.assert_allclose(d.lines_["dcg"].get_ydata(), d.values["dcg"])
    np.testing.assert_array_equal(d.lines_["dcg"].get_xdata(), [1, 2, 3, 4, 5])
    assert [t.get_text() for t in d.ax_.get_legend().get_texts()] == ["model: DCG@k",
                                                                       "model: nDCG@k"]
    assert d.ax_.get_xlabel() == "cut-off k"
    assert d.ax_.get_ylabel() == "DCG@k, nDCG@k"
    assert d.ax_.get_title() == "DCG@k and nDCG@k by cut-off"


def test_constructor_stores_its_arguments_unchanged():
    ks, values = range(1, 4), {"ndcg": [1.0, 0.8, 0.9]}
    d = MetricAtKDisplay(ks=ks, values=values, name="A")
    assert d.ks is ks and d.values is values and d.name == "A"
    assert not [a for a in vars(d) if a.endswith("_")]  # plot sets those
    d.plot()
    assert {"ax_", "figure_", "lines_", "line_"} <= set(vars(d))
    assert d.values is values and d.values == {"ndcg": [1.0, 0.8, 0.9]}


def test_integer_ticks_and_markers():
    d = MetricAtKDisplay(ks=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                         values={"ndcg": np.linspace(0.2, 0.9, 10)}).plot()
    d.figure_.canvas.draw()
    ticks = [t for t in d.ax_.get_xticks() if 1 <= t <= 10]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert d.line_.get_marker() == "o"
    many = MetricAtKDisplay(ks=range(1, 51), values={"map": np.linspace(0, 1, 50)}).plot()
    assert many.line_.get_markevery() == 3  # about 15 markers on a long curve


def test_metric_names_on_the_axes():
    for label, want in [("ndcg", "nDCG@k"), ("map", "MAP@k"), ("precision", "precision@k"),
                        ("hit_rate", "hit rate@k"), ("mrr", "MRR@k"),
                        ("ndcg_exp", "nDCG@k (exponential gain)"),
                        ("ndcg (gain='exponential')", "nDCG@k (gain='exponential')"),
                        ("my own curve", "my own curve")]:
        d = MetricAtKDisplay(ks=[1, 2], values={label: [0.5, 0.6]}).plot()
        assert d.ax_.get_ylabel() == want
        assert d.line_.get_label() == want  # no name: the legend names the metric
        plt.close(d.figure_)


def test_every_metric_with_a_cut_off_has_a_display_name():
    """Axes name metrics by their spec's label: a word, not an identifier."""
    from sk_rankmetrics._metrics.registry import METRICS, PRESETS

    labels = {name: spec.label for name, spec in METRICS.items() if spec.takes_k}
    labels |= {name: p.label for name, p in PRESETS.items() if METRICS[p.base].takes_k}
    for name, label in labels.items():
        assert "_" not in label, name


def test_one_colour_per_system_one_line_style_per_metric(data):
    y_true, y_score = data
    rng = np.random.default_rng(3)
    first = MetricAtKDisplay.from_predictions(y_true, y_score, metric=["ndcg", "map"],
                                              ks=range(1, 11), name="A")
    displays = [first] + [
        MetricAtKDisplay.from_predictions(y_true, rng.normal(size=y_score.shape),
                                          metric=["ndcg", "map"], ks=range(1, 11),
                                          name=name, ax=first.ax_)
        for name in ("B", "C")
    ]
    colours = [{d.lines_[m].get_color() for m in ("ndcg", "map")} for d in displays]
    assert all(len(c) == 1 for c in colours)  # one colour per system
    assert len(set.union(*colours)) == 3  # three different colours
    for metric in ("ndcg", "map"):  # one line style per metric, on every system
        assert len({d.lines_[metric].get_linestyle() for d in displays}) == 1
    assert (first.lines_["ndcg"].get_linestyle() != first.lines_["map"].get_linestyle())
    assert len(first.ax_.get_legend().get_texts()) == 6


def _legend_overlaps_a_line(ax):
    from sk_rankmetrics._plot.style import _covers_a_curve

    ax.figure.canvas.draw()
    return _covers_a_curve(ax.get_legend(), ax, pad=0.0)


@pytest.mark.parametrize("seed", range(6))
def test_the_legend_covers_no_curve(seed):
    rng = np.random.default_rng(seed)
    ks = np.arange(1, 31)
    ax = None
    for system in range(3):  # curves that fill the axes from corner to corner
        level = rng.uniform(0.0, 1.0)
        values = {"ndcg": np.clip(level + 0.3 * np.sin(ks / (2 + system)), 0, 1),
                  "map": np.clip(1 - level + 0.2 * np.cos(ks / 3), 0, 1)}
        d = MetricAtKDisplay(ks=ks, values=values, name=f"system {system}").plot(ax=ax)
        ax = d.ax_
        assert not _legend_overlaps_a_line(ax)


def test_own_title_and_label_are_kept(data):
    y_true, y_score = data
    _, ax = plt.subplots()
    ax.set_title("Mine")
    ax.set_ylabel("my label")
    d = MetricAtKDisplay.from_predictions(y_true, y_score, ks=[1, 2, 3], ax=ax)
    assert d.ax_.get_title() == "Mine" and d.ax_.get_ylabel() == "my label"


def test_plot_name_override():
    d = MetricAtKDisplay(ks=[1, 2], values={"map": [0.5, 0.25]}, name="run1")
    d.plot(name="run2", color="red")
    assert d.line_.get_label() == "run2"
    assert d.line_.get_color() == "red"


def test_from_estimator_uses_the_scores():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 3, size=40)
    qid = np.repeat(np.arange(8), 5)
    model = LinearRegression().fit(X, y)
    d = MetricAtKDisplay.from_estimator(model, X, y, qid=qid, ks=[1, 3, 5],
                                        no_relevant="skip")
    want = [ndcg_score(y, model.predict(X), qid=qid, k=k, no_relevant="skip")
            for k in (1, 3, 5)]
    np.testing.assert_allclose(d.values["ndcg"], want, atol=1e-12)
    assert d.line_.get_label() == "LinearRegression"


def test_from_estimator_binary_predict_proba():
    from sklearn.linear_model import LogisticRegression

    X = np.array([[0.0], [1.0], [2.0], [3.0], [0.5], [2.5]])
    y = np.array([0, 0, 1, 1, 0, 1])
    qid = np.array([1, 1, 1, 1, 2, 2])
    clf = LogisticRegression().fit(X, y)
    d = MetricAtKDisplay.from_estimator(clf, X, y, qid=qid, ks=[1, 2],
                                        response_method="predict_proba", metric="precision")
    np.testing.assert_allclose(d.values["precision"], [1.0, 0.75])
    with pytest.raises(ValueError, match="response_method"):
        MetricAtKDisplay.from_estimator(clf, X, y, qid=qid, response_method="score")
    from sklearn.base import BaseEstimator

    class NoScores(BaseEstimator):
        pass

    with pytest.raises(ValueError, match="none of the response methods"):
        MetricAtKDisplay.from_estimator(NoScores(), X, y, qid=qid, response_method="predict")


def test_from_estimator_classifier_ranks_its_classes():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4))
    y = rng.integers(0, 4, size=60)
    clf = LogisticRegression().fit(X, y)
    d = MetricAtKDisplay.from_estimator(clf, X, y, metric="hit_rate", ks=[1, 2, 4])
    proba = clf.predict_proba(X)
    want = [(np.argsort(-proba, axis=1)[:, :k] == y[:, None]).any(axis=1).mean()
            for k in (1, 2, 4)]
    np.testing.assert_allclose(d.values["hit_rate"], want)
    assert d.values["hit_rate"][-1] == 1.0  # every class is in the top 4 of 4


def test_one_warning_for_rows_without_relevant_items():
    y_true = np.array([[0, 0, 0], [1, 0, 2]])
    y_score = np.array([[3, 2, 1], [3, 2, 1]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = MetricAtKDisplay.from_predictions(y_true, y_score, ks=[1, 2, 3])
    undefined = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert len(undefined) == 1
    assert "1 of 2 rows" in str(undefined[0].message)
    np.testing.assert_allclose(d.values["ndcg"], [ndcg_score(y_true, y_score, k=k,
                                                              no_relevant=0.0)
                                                   for k in (1, 2, 3)])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"metric": "ndcg@10"}, ValueError, "has a cut-off"),
        ({"metric": "r_precision"}, ValueError, "takes no cut-off"),
        ({"metric": "nope"}, ValueError, "unknown metric"),
        ({"metric": []}, ValueError, "metric is empty"),
        ({"metric": 3}, TypeError, "metric must be"),
        ({"metric": ["ndcg", "ndcg"]}, ValueError, "twice"),
        ({"ks": []}, ValueError, "ks is empty"),
        ({"ks": [0, 1]}, ValueError, "every k in ks"),
        ({"ks": [1.5]}, TypeError, "every k in ks"),
        ({"ks": None}, TypeError, "ks must be an iterable"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        MetricAtKDisplay.from_predictions([[1, 0]], [[1, 2]], **kwargs)


def test_plot_checks_what_the_constructor_stored():
    with pytest.raises(ValueError, match="one value per cut-off"):
        MetricAtKDisplay(ks=[1, 2, 3], values={"ndcg": [1.0, 0.5]}).plot()
    with pytest.raises(ValueError, match="values is empty"):
        MetricAtKDisplay(ks=[1], values={}).plot()
    with pytest.raises(TypeError, match="values must be a dict"):
        MetricAtKDisplay(ks=[1], values=3).plot()
    with pytest.raises(ValueError, match="every k in ks"):
        MetricAtKDisplay(ks=[0, 1], values={"ndcg": [1.0, 0.5]}).plot()


@pytest.mark.slow
def test_import_does_not_import_matplotlib():
    code = (
        "import sys, sk_rankmetrics; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'; "
        "sk_rankmetrics.MetricAtKDisplay(ks=[1], values={'ndcg': [1.0]}); "
        "assert 'matplotlib' not in sys.modules; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_from_predictions_takes_exclude():
    """The curves with ``exclude=`` are the metric functions' numbers with it."""
    rng = np.random.default_rng(4)
    y = np.where(rng.random((30, 15)) < 0.3, 1, 0)
    s = rng.random((30, 15))
    excluded = (rng.random(y.shape) < 0.3) & (y == 0)
    d = MetricAtKDisplay.from_predictions(y, s, metric="ndcg", ks=[1, 5, 10],
                                          exclude=excluded, no_relevant=0.0)
    want = [ndcg_score(y, s, k=k, exclude=excluded, no_relevant=0.0) for k in (1, 5, 10)]
    np.testing.assert_allclose(d.values["ndcg"], want, rtol=1e-12)
    assert not np.allclose(want, [ndcg_score(y, s, k=k, no_relevant=0.0) for k in (1, 5, 10)])
