"""CI runs the fast tests on the oldest releases that ``pyproject.toml``
accepts (``.ci/floor.txt``, on requires-python's Python): each runtime
dependency's pin there (and pandas', by the test extra's bound) must be a
release its lower bound accepts, in the series that bound names, so that
raising a bound moves the pin too. (NumPy 1.23 once failed 213 fast tests
that NumPy 2 passed: a string comparison, a scalar's type, ragged lists
read as objects.)"""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
FLOOR = ROOT / ".ci" / "floor.txt"


def _release(version):
    return tuple(int(p) for p in re.match(r"\d+(?:\.\d+)*", version).group().split("."))


def _lower_bounds(text, block="dependencies"):
    deps = re.search(rf"^{block} = \[(.*?)^\]", text, re.S | re.M).group(1)
    return dict(re.findall(r'"([A-Za-z0-9_.-]+)>=([0-9.]+)"', deps))


#: Optional packages pinned too, by the test extra's bound: pandas (data frames
#: in, and out of every report's to_frame).
OPTIONAL = ("pandas",)


def _pins(text):
    return dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", text, re.M))


def _mismatches(bounds, pins):
    bad = [f"{name}: no pin in .ci/floor.txt" for name in bounds if name not in pins]
    bad += [f"{name}: pinned in .ci/floor.txt but no runtime dependency" for name in pins
            if name not in bounds]
    for name, low in bounds.items():
        if name in pins:
            lo, pin = _release(low), _release(pins[name])
            if pin < lo or pin[:2] != lo[:2]:
                bad.append(f"{name}: pin {pins[name]} is not in the series of >={low}")
    return bad


def test_the_floor_pins_follow_the_lower_bounds():
    text = PYPROJECT.read_text()
    bounds = _lower_bounds(text)
    assert set(bounds) == {"numpy", "scipy", "scikit-learn"}
    test_extra = _lower_bounds(text, "test")
    bounds.update({name: test_extra[name] for name in OPTIONAL})
    assert _mismatches(bounds, _pins(FLOOR.read_text())) == []


def test_the_check_finds_a_bound_raised_without_its_pin():
    bounds = {"numpy": "1.26", "scipy": "1.9"}
    found = _mismatches(bounds, {"numpy": "1.23.5", "scipy": "1.9.3", "pandas": "2.0.0"})
    assert found == ["pandas: pinned in .ci/floor.txt but no runtime dependency",
                     "numpy: pin 1.23.5 is not in the series of >=1.26"]
    assert _mismatches({"scikit-learn": "1.4.1"}, {"scikit-learn": "1.4.0"}) == [
        "scikit-learn: pin 1.4.0 is not in the series of >=1.4.1"]
    assert _mismatches({"scipy": "1.9"}, {}) == ["scipy: no pin in .ci/floor.txt"]


def test_ci_runs_the_floor_on_requires_pythons_version():
    run = (ROOT / ".ci" / "run").read_text()
    assert "-c .ci/floor.txt" in run
    assert re.search(r'requires-python = ">=3\.\d+"', PYPROJECT.read_text())
    assert "requires-python" in run
