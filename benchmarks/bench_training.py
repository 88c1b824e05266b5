"""Cost of one evaluation of ``make_eval_metric`` against the library's built-in nDCG@10.

Usage::

    python benchmarks/bench_training.py           # 1,000,000 rows in 10,000 queries
    python benchmarks/bench_training.py --quick   # 100,000 rows in 1,000 queries
    python benchmarks/bench_training.py --threads 1   # the libraries on one thread

A model of ``ROUNDS`` trees (few ties among its scores, as a model late in
training) is trained on a small training set with the large set as its
validation set; then one evaluation on the validation set is timed (best of
``--repeats``), both ways, in the same process:

- LightGBM: ``Booster.eval_valid()`` with ``metric="ndcg", eval_at=[10]``
  against ``Booster.eval_valid(feval=make_eval_metric(m, "lightgbm"))`` with
  ``metric="None"``: the scores are LightGBM's cached validation scores in
  both cases.
- XGBoost: ``Booster.eval_set`` with ``eval_metric="ndcg@10"`` against
  ``Booster.eval_set(..., feval=make_eval_metric(m, "xgboost"))`` with
  ``disable_default_eval_metric``.

The library's own nDCG and ours differ in their conventions (ties, and by
default the value of a query without a relevant item), so the values are not
compared here; ``tests/training/test_training.py`` checks ours against ``evaluate``.
The script prints one Markdown table; the target is a ratio of at most 2.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from sk_rankmetrics import make_eval_metric

METRICS = ["ndcg_exp@10", "map@10", "err@20"]
ROUNDS = 30


def _data(n_queries, per_query, seed):
    rng = np.random.default_rng(seed)
    n = n_queries * per_query
    X = rng.normal(size=(n, 8)).astype(np.float32)
    signal = X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=n)
    y = np.digitize(signal, [0.5, 1.5, 2.5, 3.5]).astype(np.float32)
    sizes = np.full(n_queries, per_query)
    return X, y, sizes


def _best(fn, repeats):
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _lightgbm(train, valid, repeats, threads):
    import lightgbm as lgb

    (X, y, sizes), (Xv, yv, sv) = train, valid
    rows = []

    def booster(metric):
        params = {"objective": "lambdarank", "metric": metric, "eval_at": [10],
                  "verbose": -1, "num_leaves": 15}
        if threads:
            params["num_threads"] = threads
        return lgb.train(params, lgb.Dataset(X, y, group=sizes), num_boost_round=ROUNDS,
                         valid_sets=[lgb.Dataset(Xv, yv, group=sv)],
                         keep_training_booster=True)

    builtin = booster("ndcg")
    ours = booster("None")
    base = _best(builtin.eval_valid, repeats)
    for name in METRICS:
        feval = make_eval_metric(name, "lightgbm", no_relevant=1.0)
        t = _best(lambda f=feval: ours.eval_valid(feval=f), repeats)
        rows.append(("LightGBM", name, base, t))
    return rows


def _xgboost(train, valid, repeats, threads):
    import xgboost as xgb

    (X, y, sizes), (Xv, yv, sv) = train, valid
    dtrain = xgb.DMatrix(X, y, group=sizes)
    dvalid = xgb.DMatrix(Xv, yv, group=sv)
    rows = []
    params = {"objective": "rank:ndcg", "max_depth": 4}
    if threads:
        params["nthread"] = threads
    builtin = xgb.train({**params, "eval_metric": "ndcg@10"}, dtrain, num_boost_round=ROUNDS,
                        evals=[(dvalid, "valid")], verbose_eval=False)
    ours = xgb.train({**params, "disable_default_eval_metric": 1}, dtrain,
                     num_boost_round=ROUNDS, evals=[(dvalid, "valid")], verbose_eval=False)
    base = _best(lambda: builtin.eval_set([(dvalid, "valid")]), repeats)
    for name in METRICS:
        feval = make_eval_metric(name, "xgboost", no_relevant=1.0)
        t = _best(lambda f=feval: ours.eval_set([(dvalid, "valid")], feval=f), repeats)
        rows.append(("XGBoost", name, base, t))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 rows in 1,000 queries")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0,
                        help="threads of the libraries (default: theirs, every core)")
    args = parser.parse_args(argv)
    n_queries = 1_000 if args.quick else 10_000
    per_query = 100
    train = _data(200, per_query, seed=0)
    valid = _data(n_queries, per_query, seed=1)
    rows = []
    for fn in (_lightgbm, _xgboost):
        try:
            rows += fn(train, valid, args.repeats, args.threads)
        except ImportError as exc:
            print(f"{fn.__name__[1:]}: not installed ({exc})", file=sys.stderr)
    print(f"One evaluation on {n_queries * per_query:,} rows in {n_queries:,} queries "
          f"(best of {args.repeats}; library threads: {args.threads or 'default'}).\n")
    print("| library | make_eval_metric | built-in ndcg@10 (ms) | ours (ms) | ratio |")
    print("|---|---|---:|---:|---:|")
    for library, name, base, t in rows:
        print(f"| {library} | {name} | {base * 1e3:.1f} | {t * 1e3:.1f} | {t / base:.2f} |")


if __name__ == "__main__":
    main()
