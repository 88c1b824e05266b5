"""Rank-biased overlap with ties computed from its definitions, depth after depth.

Slow and plain: Python loops over the depths and the items of two rankings
(lists of tie groups, best first), for checking the vectorised
``sk_rankmetrics._stats.rbo_kernel`` against. Nothing here is shared with
the package.

At each depth ``d`` every item contributes ``c(i, d)``, how much of it lies
within the prefix of depth ``d`` (Corsi and Urbano, SIGIR 2024): with ties
counted as equal ranks (``"w"``) 1 from its group's first position ``t``
on; with ties as uncertain orders (``"a"``, ``"b"``) ``(d - t + 1) / (b - t
+ 1)`` between its group's first and last positions ``t`` and ``b``, and 1
after. The overlap is ``X_d = sum_i c_x(i, d) c_y(i, d)`` and the agreement
``A_d`` divides it by ``d`` (``"a"``), by the mean of the prefixes' sizes
``sum_i c(i, d)`` (``"w"``) or by the root of the product of ``sum_i c(i,
d)^2`` (``"b"``).

The scores differ in what lies past the end of the lists, and here each is
built as the lists themselves, extended depth after depth:

- MIN: each list goes on with items of its own, found in no other list;
- MAX: the shorter list goes on with the longer one's unmatched items in the
  longer one's order, the longer one with the shorter one's unmatched items
  in their order, then both with the same new items;
- EXT: up to the longer list's end the shorter one is taken to hold ``d``
  items whose overlap adds ``(d - s) A_s`` times the mean contribution of the
  longer list's unmatched items in the prefix; past it ``A_d`` stays
  ``(X_l + (l - s) A_s) / l``.

The sum ``(1 - p) sum_d p^(d-1) A_d`` runs until ``p^d`` is below 1e-17.
"""

from __future__ import annotations

import math


def _positions(groups):
    """{item: (top, bottom)}, 1-based, and the list's length."""
    out, pos = {}, 1
    for g in groups:
        for item in g:
            out[item] = (pos, pos + len(g) - 1)
        pos += len(g)
    return out, pos - 1


def _c(span, d, ties):
    t, b = span
    if d < t:
        return 0.0
    if ties == "w" or d >= b:
        return 1.0
    return (d - t + 1) / (b - t + 1)


def _agreement(sx, sy, d, ties):
    """A_d of two lists given as {item: (top, bottom)} at depth d."""
    cx = {i: _c(span, d, ties) for i, span in sx.items()}
    cy = {i: _c(span, d, ties) for i, span in sy.items()}
    X = sum(cx[i] * cy[i] for i in cx if i in cy)
    if ties == "a":
        return X / d
    if ties == "w":
        return 2 * X / (sum(cx.values()) + sum(cy.values()))
    return X / math.sqrt(sum(v * v for v in cx.values()) * sum(v * v for v in cy.values()))


def _extended(groups, more, depth):
    """{item: (top, bottom)} of a list followed by the untied items ``more``,
    up to ``depth`` items."""
    spans, n = _positions(groups)
    for item in more[: max(0, depth - n)]:
        n += 1
        spans[item] = (n, n)
    return spans


def rbo_reference(x, y, p, ties="a"):
    """``{"ext", "min", "max", "res"}`` of two rankings (lists of tie groups)."""
    px, nx = _positions(x)
    py, ny = _positions(y)
    # The longer list is L (x when the lengths are equal), the shorter S.
    (S, s, ps), (L, n_l, pl) = ((y, ny, py), (x, nx, px)) if nx >= ny else ((x, nx, px),
                                                                            (y, ny, py))
    depth = n_l + math.ceil(math.log(1e-17) / math.log(p)) + 1
    shared = [i for i in ps if i in pl]
    X_l = len(shared)
    s_only = [i for g in S for i in g if i not in pl]
    l_only = [i for g in L for i in g if i not in ps]
    fresh_s = [("fresh S", k) for k in range(depth)]
    fresh_l = [("fresh L", k) for k in range(depth)]
    common = [("common", k) for k in range(depth)]
    lists = {
        "min": (_extended(S, fresh_s, depth), _extended(L, fresh_l, depth)),
        "max": (_extended(S, l_only + common, depth), _extended(L, s_only + common, depth)),
    }
    out = {}
    for score, (es, el) in lists.items():
        total = 0.0
        # Items placed past depth l count nowhere before it.
        head_s = {i: v for i, v in es.items() if v[0] <= n_l}
        head_l = {i: v for i, v in el.items() if v[0] <= n_l}
        for d in range(1, n_l + 1):
            total += (1 - p) * p ** (d - 1) * _agreement(head_s, head_l, d, ties)
        # Past n_l every item is untied: the overlap grows one item at a time.
        seen_s = {i for i, v in es.items() if v[0] <= n_l}
        seen_l = {i for i, v in el.items() if v[0] <= n_l}
        by_pos_s = {v[0]: i for i, v in es.items()}
        by_pos_l = {v[0]: i for i, v in el.items()}
        X = len(seen_s & seen_l)
        for d in range(n_l + 1, depth + 1):
            a, b = by_pos_s[d], by_pos_l[d]
            X += (a in seen_l) + (b in seen_s) + (a == b)
            seen_s.add(a)
            seen_l.add(b)
            total += (1 - p) * p ** (d - 1) * X / d
        out[score] = total
    # EXT: the agreement of the seen part, carried on.
    total, A_s = 0.0, None
    for d in range(1, n_l + 1):
        if d <= s:
            A = _agreement(ps, pl, d, ties)
            if d == s:
                A_s = A
        else:
            cl = {i: _c(span, d, ties) for i, span in pl.items()}
            X_seen = sum(cl[i] for i in shared)
            unmatched = [cl[i] for i in l_only if cl[i] > 0]
            X = X_seen + (d - s) * A_s * sum(unmatched) / len(unmatched)
            if ties == "a":
                A = X / d
            elif ties == "w":
                A = 2 * X / (d + sum(cl.values()))
            else:
                A = X / math.sqrt(d * sum(v * v for v in cl.values()))
        total += (1 - p) * p ** (d - 1) * A
    A_tail = (X_l + (n_l - s) * A_s) / n_l
    total += A_tail * p**n_l  # (1 - p) sum_{d > n_l} p^(d-1)
    out["ext"] = total
    out["res"] = out["max"] - out["min"]
    return out


def parse(text):
    """Corsi and Urbano's text form of a ranking, ``"a (b c) d"``, as tie groups."""
    groups, open_group = [], None
    for token in text.split():
        if token.startswith("("):
            open_group = [token[1:]]
            if token.endswith(")"):
                open_group[-1] = open_group[-1][:-1]
                groups.append(open_group)
                open_group = None
        elif open_group is not None:
            closes = token.endswith(")")
            open_group.append(token[:-1] if closes else token)
            if closes:
                groups.append(open_group)
                open_group = None
        else:
            groups.append([token])
    return groups
