r"""How many topics an experiment needs: Sakai and Nagata's topic set size design.

Three designs, each from an estimate of the spread of per-topic values:

- ``"paired_t"``: the paired two-sided t-test of two systems reaches the
  power for a true difference ``delta``, computed from the noncentral t
  distribution (the number statsmodels' ``TTestPower`` solves for);
- ``"anova"``: the one-way ANOVA of ``n_systems`` systems reaches the
  power when two of them are ``delta`` apart and the others in the middle
  (the least favourable configuration), from the noncentral F
  distribution (statsmodels' ``FTestAnovaPower``);
- ``"ci"``: the expected width of the ``1 - alpha`` confidence interval of
  a paired mean difference is at most ``delta``.

The spread is given as ``sd``, as a pilot's per-query differences (paired t
and CI designs), or as a pilot's per-query values of several systems
(every design), whose pooled within-system variance :math:`\\hat\sigma^2`
is taken as Sakai (2016) does: :math:`\\hat\sigma^2` for the ANOVA design,
:math:`2\\hat\sigma^2` for the variance of a difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import special, stats

from .._utils.arrays import as_numeric_array
from .._utils.errors import InvalidParameterError
from .._utils.params import validate
from .._utils.types import ArrayLike, Design
from .significance import ROUND_OFF

#: The most topics a design may ask for; beyond, the answer is an error.
MAX_TOPICS = 10**9


# -- the spread ----------------------------------------------------------------------


def _pilot_variance(pilot):
    """The pooled within-system variance of a pilot: ``{system: values}`` or a
    (topics, systems) matrix, NaN rows left out."""
    if isinstance(pilot, Mapping):
        if len(pilot) < 1:
            raise ValueError("pilot holds no system; give {system: per-query values}.")
        cols = [as_numeric_array(v, f"pilot[{s!r}]").astype(np.float64)
                for s, v in pilot.items()]
        lengths = {c.shape for c in cols}
        if any(c.ndim != 1 for c in cols) or len(lengths) != 1:
            raise ValueError("pilot: every system needs one value per query, the same "
                             "queries in the same order; got shapes "
                             f"{', '.join(str(c.shape) for c in cols)}.")
        V = np.column_stack(cols)
    else:
        V = as_numeric_array(pilot, "pilot").astype(np.float64)
        if V.ndim != 2:
            raise ValueError(f"pilot must be a (queries, systems) matrix or a mapping "
                             f"{{system: per-query values}}, got shape {V.shape}.")
    if np.isinf(V).any():
        raise ValueError("pilot has an infinite value; per-query values must be finite.")
    V = V[~np.isnan(V).any(axis=1)]
    n, k = V.shape
    if n < 2:
        raise ValueError(f"pilot has {n} query with a value in every system; estimating a "
                         "variance needs at least 2.")
    var = float(((V - V.mean(axis=0)) ** 2).sum() / (k * (n - 1)))
    return 0.0 if var <= (ROUND_OFF * float(np.abs(V).max())) ** 2 else var


def _spread(design, sd, per_query_differences, pilot):
    """The standard deviation the design reads, and where it came from."""
    given = [name for name, v in (("sd", sd), ("per_query_differences", per_query_differences),
                                  ("pilot", pilot)) if v is not None]
    if len(given) != 1:
        raise InvalidParameterError(
            "give exactly one of sd, per_query_differences and pilot (the spread of the "
            f"per-topic values); got {', '.join(given) if given else 'none'}."
        )
    if per_query_differences is not None:
        if design == "anova":
            raise InvalidParameterError(
                "design='anova' reads the within-system standard deviation of one system's "
                "per-topic values, which per_query_differences do not give; give sd= or "
                "pilot= (a pilot's per-query values of each system)."
            )
        d = as_numeric_array(per_query_differences, "per_query_differences")
        d = d.astype(np.float64)
        if d.ndim != 1:
            raise ValueError(f"per_query_differences must be 1-D, got shape {d.shape}.")
        if not np.isfinite(d).all():
            raise ValueError("per_query_differences must be finite (no NaN or inf).")
        if d.size < 2:
            raise ValueError("per_query_differences needs at least 2 values to estimate a "
                             "standard deviation.")
        s = float(d.std(ddof=1))
        if s <= ROUND_OFF * float(np.abs(d).max()):  # round-off of equal values
            raise ValueError("per_query_differences are all equal: their standard deviation "
                             "is 0, so any difference is detected with 2 topics; give the "
                             "differences of a pilot with some spread.")
        return s
    if pilot is not None:
        var = _pilot_variance(pilot)
        if var == 0:
            raise ValueError("pilot: every system has the same value on every query; the "
                             "within-system variance is 0.")
        return math.sqrt(var if design == "anova" else 2 * var)
    return float(sd)


# -- the power of each design ------------------------------------------------------------


def paired_t_power(n, effect, alpha):
    """Power of the two-sided paired t-test with ``n`` topics for the effect size
    ``delta / sd`` (both tails of the noncentral t)."""
    df = n - 1
    crit = stats.t.isf(alpha / 2, df)
    nc = math.sqrt(n) * effect
    # SciPy before 1.14 flags a division by zero inside Boost's noncentral t
    # at df = 1 though the value it returns is right (a spurious warning).
    with np.errstate(divide="ignore"):
        power = float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))
    if not math.isfinite(power):
        raise ArithmeticError(f"the noncentral t gave a power of {power} for {n} topics")
    return min(max(power, 0.0), 1.0)  # two disjoint tails: over 1 by round-off only


def anova_power(n, effect, alpha, m):
    """Power of the one-way ANOVA of ``m`` systems with ``n`` topics each when two
    means are ``effect`` standard deviations apart: noncentrality
    ``n effect**2 / 2``."""
    df1, df2 = m - 1, m * (n - 1)
    crit = stats.f.isf(alpha, df1, df2)
    return float(stats.ncf.sf(crit, df1, df2, n * effect**2 / 2))


def ci_width(n, sd, alpha):
    """Expected width of the ``1 - alpha`` t interval of a mean of ``n`` values of
    standard deviation ``sd``: ``2 t sd c4(n) / sqrt(n)``."""
    c4 = math.exp(0.5 * math.log(2 / (n - 1)) + special.gammaln(n / 2)
                  - special.gammaln((n - 1) / 2))
    return 2 * float(stats.t.isf(alpha / 2, n - 1)) * sd * c4 / math.sqrt(n)


def _smallest(ok, start):
    """The smallest integer ``n >= 2`` with ``ok(n)``, for a monotone ``ok``."""
    too_many = ValueError(f"the design needs more than {MAX_TOPICS:,} topics; the difference "
                          "is too small for the spread.")
    lo, hi = 1, min(max(2, int(start)), MAX_TOPICS)
    while not ok(hi):
        if hi == MAX_TOPICS:
            raise too_many
        lo, hi = hi, min(hi * 2, MAX_TOPICS)
    while hi - lo > 1:  # ok(hi) holds, ok(lo) does not (lo = 1: no test)
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _checked(design, power, n_systems, alpha):
    if design == "ci" and power is not None:
        raise InvalidParameterError(
            "design='ci' caps the expected width of the interval, which has no power; "
            "leave power=None."
        )
    if design != "anova" and n_systems != 2:
        raise InvalidParameterError(
            f"n_systems={n_systems} is read by design='anova' only; design={design!r} "
            "compares two systems (leave n_systems=2)."
        )
    power = 0.8 if power is None else power
    if design != "ci" and power <= alpha:
        raise InvalidParameterError(
            f"power={power} must exceed alpha={alpha}: a test rejects a false null "
            "hypothesis at least as often as a true one."
        )
    return power


_COMMON = r"""
    sd : float, default=None
        The standard deviation of the per-topic values: of the per-topic
        differences of two systems for ``"paired_t"`` and ``"ci"``, of one
        system's per-topic values (the within-system spread) for
        ``"anova"``.
    per_query_differences : array-like of shape (n_queries,), default=None
        A pilot's per-query differences of two systems (``"paired_t"`` and
        ``"ci"``); their standard deviation (ddof 1) is ``sd``.
    pilot : mapping or array-like of shape (n_queries, n_systems), default=None
        A pilot's per-query values of several systems, on the same queries:
        ``{system: per-query values}`` or a matrix.
        Their pooled within-system variance :math:`\hat\sigma^2 = \sum_{i,j}
        (x_{ij} - \bar x_{\cdot j})^2 / (k(n-1))` (one-way ANOVA) is the
        spread: :math:`\hat\sigma` for ``"anova"``, and
        :math:`\sqrt{2}\,\hat\sigma` for a difference of two systems (the
        covariance of the systems taken as 0, which errs on the safe side
        when systems are positively correlated, as they are).
    alpha : float, default=0.05
        The significance level of the two-sided test, or one minus the
        confidence level of the interval (``"ci"``).
    power : float, default=None
        The power to reach (one minus the type II error rate): 0.8 when
        None. Not read by ``"ci"``, which refuses it.
    design : {"paired_t", "anova", "ci"}, default="paired_t"
        The paired t-test of two systems, the one-way ANOVA of
        ``n_systems``, or the width of a paired mean difference's interval.
    n_systems : int, default=2
        The number of systems of the ANOVA design (read by ``"anova"``
        only)."""


def _fill(func):
    func.__doc__ = func.__doc__.replace("    %(common)s", _COMMON.strip("\n"))
    return func


@validate
@_fill
def topics_needed(*, delta: float, sd: float | None = None,
                  per_query_differences: ArrayLike | None = None,
                  pilot: Mapping[str, ArrayLike] | ArrayLike | None = None,
                  alpha: float = 0.05, power: float | None = None,
                  design: Design = "paired_t", n_systems: int = 2) -> int:
    r"""The smallest number of topics whose test reaches the power for a true difference.

    For the paired t-test (``design="paired_t"``) the smallest :math:`n`
    with

    .. math::

        \mathrm{P}\left(|T'| \ge t_{1-\alpha/2,\,n-1}\right) \ge 1 - \beta,
        \qquad T' \sim t'\!\left(n - 1,\ \sqrt{n}\,\delta / \sigma_d\right),

    the noncentral t distribution; for the one-way ANOVA of :math:`m`
    systems (``"anova"``), the smallest :math:`n` topics per system with
    :math:`\mathrm{P}(F' \ge F_{1-\alpha}(m-1, m(n-1))) \ge 1 - \beta` where
    :math:`F'` has noncentrality :math:`\lambda = n\delta^2 / (2\sigma^2)`
    (two systems :math:`\delta` apart, the others midway: the least
    favourable configuration); for ``"ci"``, the smallest :math:`n` whose
    interval of a paired mean difference has expected width

    .. math::

        \mathrm{E}[W] = 2\, t_{1-\alpha/2,\,n-1}\, c_4(n)\, \sigma_d / \sqrt{n}
        \le \delta,

    with :math:`c_4(n) = \mathrm{E}[s] / \sigma`, the mean sample standard
    deviation of :math:`n` normal values over :math:`\sigma` (it is
    Γ(n/2) √(2/(n−1)) / Γ((n−1)/2)).

    Parameters
    ----------
    delta : float
        The smallest true difference of means to detect (``"paired_t"``,
        ``"anova"``: the largest difference among the systems), or the
        largest acceptable expected width of the interval (``"ci"``).
    %(common)s

    Returns
    -------
    n_topics : int
        The number of topics (at least 2).

    See Also
    --------
    detectable_difference : The inverse: what a given number of topics detects.
    compare : The tests the design plans for.

    Notes
    -----
    These are the designs of Sakai's topic set size design [1]_ [2]_, which
    follow Nagata [3]_, computed from the exact noncentral distributions
    (SciPy's ``nct`` and ``ncf``) instead of the normal approximations of
    Sakai's spreadsheets: ``"paired_t"`` is statsmodels'
    ``TTestPower().solve_power(effect_size=delta / sd, alpha=alpha,
    power=power)`` rounded up, ``"anova"`` is its ``FTestAnovaPower`` with
    effect size :math:`f = \delta / (\sigma \sqrt{2m})` and :math:`mn`
    observations, divided by :math:`m` and rounded up (tests check both);
    the approximations differ from them by at most one topic on the grids
    tested. The answer is searched for among the integers (each design's
    criterion is monotone in :math:`n`); more than :math:`10^9` topics is
    an error. Exactly one of ``sd``, ``per_query_differences`` and
    ``pilot`` gives the spread; a spread of 0 is an error.

    References
    ----------
    .. [1] Sakai, T. (2016). Topic set size design. Information Retrieval
           Journal, 19(3), 256-283.
    .. [2] Sakai, T. (2018). Laboratory Experiments in Information
           Retrieval: Sample Sizes, Effect Sizes, and Statistical Power.
           Springer, chapter 6.
    .. [3] Nagata, Y. (2003). How to Design the Sample Size (in Japanese).
           Asakura Shoten.

    Examples
    --------
    >>> from sk_rankmetrics import topics_needed
    >>> topics_needed(delta=0.05, sd=0.15)
    73
    >>> topics_needed(delta=0.05, sd=0.15, power=0.9)
    97
    >>> topics_needed(delta=0.1, sd=0.2, design="anova", n_systems=10)
    127
    >>> topics_needed(delta=0.1, sd=0.15, design="ci")
    37
    """
    power_ = _checked(design, power, n_systems, alpha)
    s = _spread(design, sd, per_query_differences, pilot)
    if design == "ci":
        return _smallest(lambda n: ci_width(n, s, alpha) <= delta,
                         4 * (stats.norm.isf(alpha / 2) * s / delta) ** 2)
    effect = delta / s
    z = stats.norm.isf(alpha / 2) + stats.norm.isf(1 - power_)
    if design == "anova":
        return _smallest(lambda n: anova_power(n, effect, alpha, n_systems) >= power_,
                         2 * (z / effect) ** 2 / n_systems)
    return _smallest(lambda n: paired_t_power(n, effect, alpha) >= power_, (z / effect) ** 2)


@validate
@_fill
def detectable_difference(*, n_topics: int, sd: float | None = None,
                          per_query_differences: ArrayLike | None = None,
                          pilot: Mapping[str, ArrayLike] | ArrayLike | None = None,
                          alpha: float = 0.05, power: float | None = None,
                          design: Design = "paired_t", n_systems: int = 2) -> float:
    r"""The smallest true difference that ``n_topics`` topics detect with the power.

    The inverse of :func:`topics_needed`: the :math:`\delta` at which the
    power of the design's test with ``n_topics`` topics is exactly
    :math:`1 - \beta` (``"paired_t"``, ``"anova"``),

    .. math::

        \mathrm{P}\left(|T'| \ge t_{1-\alpha/2,\,n-1}\right) = 1 - \beta,
        \qquad T' \sim t'\!\left(n - 1,\ \sqrt{n}\,\delta / \sigma_d\right),

    or the expected width :math:`2 t_{1-\alpha/2,\,n-1} c_4(n) \sigma_d /
    \sqrt n` of the interval (``"ci"``).

    Parameters
    ----------
    n_topics : int
        The number of topics (per system), at least 2.
    %(common)s

    Returns
    -------
    delta : float
        The minimum detectable difference (``"ci"``: the expected width).

    See Also
    --------
    topics_needed : The number of topics for a difference.

    Notes
    -----
    The effect size is solved for with Brent's method on the exact power
    (statsmodels' ``TTestPower().solve_power(nobs=n_topics, ...)`` for
    ``"paired_t"``, which a test checks); ``topics_needed(delta=...)`` at
    that difference gives back ``n_topics``.

    Examples
    --------
    >>> from sk_rankmetrics import detectable_difference
    >>> round(detectable_difference(n_topics=50, sd=0.15), 4)
    0.0606
    >>> round(detectable_difference(n_topics=50, sd=0.15, design="ci"), 4)
    0.0848
    """
    power_ = _checked(design, power, n_systems, alpha)
    s = _spread(design, sd, per_query_differences, pilot)
    n = n_topics
    if design == "ci":
        return ci_width(n, s, alpha)
    if design == "anova":
        def gap(e: float) -> float:
            return anova_power(n, e, alpha, n_systems) - power_
    else:
        def gap(e: float) -> float:
            return paired_t_power(n, e, alpha) - power_
    hi = 1.0
    while gap(hi) < 0:
        hi *= 2
    from scipy.optimize import brentq

    effect: Any = brentq(gap, 0.0, hi, xtol=1e-14, rtol=1e-13)
    return float(effect) * s
