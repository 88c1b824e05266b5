"""Types on the public surface: what ``py.typed`` promises.

Every public function, and every method a public class defines (constructors,
class methods, properties, ``__call__``...), annotates each of its parameters
and its return value; mypy (``.ci/run``) checks that the annotations hold. The
``Literal`` types of the string options list exactly what the parameter table
accepts.
"""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest

import sk_rankmetrics
from sk_rankmetrics._utils import types
from sk_rankmetrics._utils.constraints import Options
from sk_rankmetrics._utils.params import PARAMS


def _callables(obj):
    """(qualified name, function) for a public function or each method of a class."""
    if not inspect.isclass(obj):
        yield obj.__name__, obj
        return
    for attr, member in vars(obj).items():
        if attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__")):
            continue  # private methods are not part of the surface
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        elif isinstance(member, property):
            member = member.fget
        if inspect.isfunction(member):
            yield f"{obj.__name__}.{attr}", member


PUBLIC = [
    item
    for name in sk_rankmetrics.__all__
    if not name.startswith("__")
    for item in _callables(getattr(sk_rankmetrics, name))
]


def missing_annotations(func):
    """The parameters of ``func`` without an annotation, and ``"return"`` if it has none."""
    sig = inspect.signature(func)
    missing = [
        p.name
        for i, p in enumerate(sig.parameters.values())
        if p.annotation is inspect.Parameter.empty and not (i == 0 and p.name in ("self", "cls"))
    ]
    if sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


@pytest.mark.parametrize(("qualname", "func"), PUBLIC, ids=[q for q, _ in PUBLIC])
def test_public_callable_is_annotated(qualname, func):
    missing = missing_annotations(func)
    assert not missing, f"{qualname}: no annotation for {missing}"


def test_every_kind_of_member_is_checked():
    names = {q for q, _ in PUBLIC}
    for expected in (
        "ndcg_score",
        "evaluate",
        "RankingScorer.__init__",
        "RankingScorer.__call__",
        "MetricAtKDisplay.from_predictions",
        "MetricAtKDisplay.plot",
        "EvaluationResult.metrics",
        "EvaluationResult.to_frame",
        "ComparisonReport.alpha",
        "TrecRun.__init__",
        "QueryGroupRanker.fit",
    ):
        assert expected in names, expected
    assert len(PUBLIC) > 60


def test_the_check_sees_a_missing_annotation():
    def partly(a: int, b, *, c: str = "x", **kw: int) -> None:
        pass

    def no_return(self, a: int):
        pass

    def complete(cls, a: int, *args: int, **kw: str) -> int:
        return a

    assert missing_annotations(partly) == ["b"]
    assert missing_annotations(no_return) == ["return"]
    assert missing_annotations(complete) == []


def test_the_validated_signature_keeps_the_annotations():
    """@validate and @fill_doc wrap the function; its signature shows the types."""
    sig = inspect.signature(sk_rankmetrics.ndcg_score)
    assert sig.parameters["gain"].annotation == "Gain"
    assert sig.return_annotation == "Score"


#: Each Literal type and the parameter(s) of the table whose options it lists.
LITERALS = {
    "Gain": ["gain"],
    "Discount": ["discount"],
    "NoRelevant": ["no_relevant"],
    "Denominator": ["denominator"],
    "Mean": ["mean"],
    "MetricFamily": ["metric_names.family"],
    "Setting": ["setting"],
    "FileFormat": ["format", "qrels_format", "run_format"],
    "ResponseMethodName": ["response_method"],
    "Test": ["test"],
    "Correction": ["correction"],
    "OnMissing": ["on_missing"],
    "Duplicates": ["duplicates"],
    "ExcludeRelevant": ["exclude_relevant"],
    "ReportRows": ["rows"],
    "Library": ["library"],
    "RboTies": ["ties"],
    "KendallVariant": ["variant"],
    "KappaWeights": ["weights"],
    "AlphaLevel": ["level"],
    "Aggregate": ["aggregate"],
    "Layout": ["layout"],
    "RankIntervals": ["intervals"],
    "Design": ["design"],
}


def _literal_values(tp):
    if typing.get_origin(tp) is typing.Literal:
        return set(typing.get_args(tp))
    return set().union(*(_literal_values(a) for a in typing.get_args(tp)))


@pytest.mark.parametrize(("alias", "params"), LITERALS.items())
def test_literal_options_are_the_tables(alias, params):
    literal = _literal_values(getattr(types, alias))
    for name in params:
        options = {v for c in PARAMS[name].constraints if isinstance(c, Options) for v in c.values}
        assert literal == options, f"{alias} lists {literal}, the table's {name} {options}"


def test_every_string_option_of_a_signature_has_a_literal():
    covered = {p for ps in LITERALS.values() for p in ps}
    in_signatures = {name for _, f in PUBLIC for name in inspect.signature(f).parameters}
    with_options = {
        name
        for name in in_signatures & set(PARAMS)
        if any(isinstance(c, Options) for c in PARAMS[name].constraints)
    }
    assert with_options <= covered, sorted(with_options - covered)
    assert "gain" in with_options


def test_the_package_ships_py_typed():
    assert (Path(sk_rankmetrics.__file__).parent / "py.typed").exists()
