"""The worked examples of five published articles on nDCG, reproduced.

The articles' numbers are typed in below: the tests read no file.

Each example is built as ``y_true`` / ``y_score`` matrices whose scores
induce the article's order. Where an article's arithmetic is off, the test
asserts the correct value and a comment says what the article printed.

- 000 (Korean): CG / DCG / nDCG, rec_sys_1 / rec_sys_2 and the ideal gain
  vector, and a binary nDCG in Python.
- 001 (Korean): Set A / Set B for CG, DCG and nDCG.
- 002 (Portuguese): an exponential-gain DCG / IDCG / nDCG table, a 3 x 5
  NumPy example and an average-precision table.
- 003 (Korean): DCG of documents with relevance 3, 2, 3, 0, 1, 2.
- 004 (Chinese): CG5 and exponential DCG5 of ratings 5, 3, 2, 1, 2 and the
  nDCG@5 of three users under two systems, linear and exponential.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import reference as ref

import sk_rankmetrics as skr

TOL = dict(rel=1e-12, abs=1e-12)


def in_order(n_items, ranked):
    """Scores that rank the items ``ranked`` first, in that order; the others
    after them (tied with one another)."""
    s = np.zeros(n_items)
    s[list(ranked)] = np.arange(len(ranked), 0, -1)
    return s


def as_shown(relevance):
    """A one-row problem whose items are already in the article's order."""
    rel = np.asarray(relevance, dtype=float)
    return rel.reshape(1, -1), in_order(rel.size, range(rel.size)).reshape(1, -1)


def log2_discounts(n):
    return np.array([1.0 / math.log2(p + 1) for p in range(1, n + 1)])


# --- 003 (Korean): D1..D6 with relevance 3, 2, 3, 0, 1, 2 ----------------------


def test_003_cg_dcg_ndcg_of_six_documents():
    y, s = as_shown([3, 2, 3, 0, 1, 2])
    assert skr.cumulative_gain_score(y, s) == 11.0  # CG6 = 3+2+3+0+1+2
    # The article's terms: 3 + 1.262 + 1.5 + 0 + 0.387 + 0.712 = 6.861.
    terms = [3.0, 2 / math.log2(3), 1.5, 0.0, 1 / math.log2(6), 2 / math.log2(7)]
    np.testing.assert_allclose(
        [round(t, 3) for t in terms], [3, 1.262, 1.5, 0, 0.387, 0.712], atol=0
    )
    dcg = skr.dcg_score(y, s)
    assert dcg == pytest.approx(sum(terms), **TOL)
    assert round(dcg, 3) == 6.861
    # Per position: DCG@p - DCG@(p-1) is the article's p-th term.
    cum = [skr.dcg_score(y, s, k=p) for p in range(1, 7)]
    np.testing.assert_allclose(np.diff([0.0, *cum]), terms, rtol=1e-12, atol=1e-15)
    # IDCG6 of 3, 3, 2, 2, 1, 0 is 7.141 and nDCG6 = 6.861 / 7.141 = 0.961.
    idcg = skr.dcg_score(y, y)
    assert round(idcg, 3) == 7.141
    assert skr.ndcg_score(y, s) == pytest.approx(dcg / idcg, **TOL)
    assert round(skr.ndcg_score(y, s), 3) == 0.961


def test_003_swapping_d3_and_d4_is_penalised():
    y, s = as_shown([3, 2, 3, 0, 1, 2])
    swapped = in_order(6, [0, 1, 3, 2, 4, 5]).reshape(1, -1)
    assert skr.dcg_score(y, swapped) < skr.dcg_score(y, s)
    assert skr.ndcg_score(y, swapped) < skr.ndcg_score(y, s)


def test_003_both_gain_forms_agree_on_binary_relevance():
    """(2**rel - 1) = rel for rel in {0, 1}: forms (1) and (2) coincide."""
    y, s = as_shown([1, 0, 1, 1, 0, 1])
    assert skr.dcg_score(y, s, gain="exponential") == skr.dcg_score(y, s)
    assert skr.ndcg_score(y, s, gain="exponential") == skr.ndcg_score(y, s)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_003_log_base_of_the_standard_discount_cancels_in_ndcg(gain):
    """The article says the log base hardly matters for nDCG with form (1) but
    clearly does with form (2). With the standard discount 1 / log_b(p + 1) it
    cancels exactly for *both* gains (every discount is scaled by the same
    ln 2 / ln b). It matters with the Järvelin–Kekäläinen discount (1 before
    position b, then 1 / log_b(p)), where b sets how many positions go
    undiscounted."""
    y, s = as_shown([3, 2, 3, 0, 1, 2])
    base2 = skr.ndcg_score(y, s, gain=gain)
    for b in (3, 10, math.e):
        assert skr.ndcg_score(y, s, gain=gain, log_base=b) == pytest.approx(base2, **TOL)
        assert skr.dcg_score(y, s, gain=gain, log_base=b) != pytest.approx(
            skr.dcg_score(y, s, gain=gain)
        )
    j2 = skr.ndcg_score(y, s, gain=gain, discount="jarvelin", log_base=2)
    j3 = skr.ndcg_score(y, s, gain=gain, discount="jarvelin", log_base=3)
    assert j2 != pytest.approx(j3)


# --- 001 (Korean): Set A and Set B ---------------------------------------------


def test_001_cumulative_gain_cannot_tell_the_sets_apart():
    y_a, s_a = as_shown([0, 0, 1, 1, 1])
    y_b, s_b = as_shown([1, 1, 1, 0, 0])
    assert skr.cumulative_gain_score(y_a, s_a) == 3.0  # CG_A = 0+0+1+1+1
    assert skr.cumulative_gain_score(y_b, s_b) == 3.0  # CG_B = 1+1+1+0+0
    # DCG can: B puts the relevant items first.
    assert skr.dcg_score(y_b, s_b) > skr.dcg_score(y_a, s_a)


def test_001_graded_sets_dcg_and_ndcg():
    y_a, s_a = as_shown([2, 3, 3, 1, 2])
    y_b, s_b = as_shown([3, 3, 2, 2, 1])
    d = log2_discounts(5)
    dcg_a, dcg_b = skr.dcg_score(y_a, s_a), skr.dcg_score(y_b, s_b)
    assert dcg_a == pytest.approx(np.dot([2, 3, 3, 1, 2], d), **TOL)
    assert dcg_b == pytest.approx(np.dot([3, 3, 2, 2, 1], d), **TOL)
    # The article prints DCG_A ~ 6.64: its own terms 2 + 1.893 + 1.5 + 0.431
    # + 0.774 add up to 6.597, so 6.64 is an arithmetic slip.
    assert round(dcg_a, 3) == 6.597
    assert round(dcg_b, 2) == 7.14  # as printed
    # Set B is Set A's ideal order, so IDCG = DCG_B ...
    assert skr.dcg_score(y_a, y_a) == pytest.approx(dcg_b, **TOL)
    # ... and nDCG = 6.597 / 7.141 = 0.924, not the printed 0.93 (which is
    # 6.64 / 7.14, carrying the slip above).
    ndcg = skr.ndcg_score(y_a, s_a)
    assert ndcg == pytest.approx(dcg_a / dcg_b, **TOL)
    assert round(ndcg, 3) == 0.924
    assert ndcg == pytest.approx(0.9238448231907443, **TOL)


# --- 000 (Korean): rec_sys_1, rec_sys_2 and the ideal gain vector -------------------

#: Items A..I; A=3, B=3, C=2, D=2, E=1, F=1, G=0 and the rest 0.
ITEMS = "ABCDEFGHI"
REL_000 = np.array([[3, 3, 2, 2, 1, 1, 0, 0, 0]])


def _rank(names):
    return in_order(len(ITEMS), [ITEMS.index(c) for c in names]).reshape(1, -1)


def test_000_ideal_gain_vector():
    """The ideal vector {3, 3, 2, 2, 1, 1, 0, 0, ...} comes from the ground
    truth, not from the items a system recommended."""
    ideal = np.array([3, 3, 2, 2, 1, 1, 0, 0, 0], dtype=float)
    cg = [skr.cumulative_gain_score(REL_000, REL_000, k=p) for p in range(1, 10)]
    np.testing.assert_array_equal(cg, np.cumsum(ideal))
    # IDCG@5 cuts the ideal vector after 5 positions.
    assert skr.dcg_score(REL_000, REL_000, k=5) == pytest.approx(
        np.dot(ideal[:5], log2_discounts(5)), **TOL
    )


def test_000_rec_sys_1_and_2():
    s1, s2 = _rank("AECDF"), _rank("ABCGE")
    # The relevance of what each system recommended, in its order.
    for s, shown in ((s1, [3, 1, 2, 2, 1]), (s2, [3, 3, 2, 0, 1])):
        cg = [skr.cumulative_gain_score(REL_000, s, k=p) for p in range(1, 6)]
        np.testing.assert_array_equal(cg, np.cumsum(shown))
    idcg5 = np.dot([3, 3, 2, 2, 1], log2_discounts(5))
    n1 = skr.ndcg_score(REL_000, s1, k=5)
    assert n1 == pytest.approx(np.dot([3, 1, 2, 2, 1], log2_discounts(5)) / idcg5, **TOL)
    # Normalising by rec_sys_1's own items sorted (3, 2, 2, 1, 1) would be the
    # mistake the article warns about: it would give 0.967, not 0.823.
    own = np.dot([3, 1, 2, 2, 1], log2_discounts(5)) / np.dot([3, 2, 2, 1, 1], log2_discounts(5))
    assert n1 != pytest.approx(own, abs=1e-3)
    n2 = skr.ndcg_score(REL_000, s2, k=5)
    assert n2 == pytest.approx(np.dot([3, 3, 2, 0, 1], log2_discounts(5)) / idcg5, **TOL)
    assert n2 > n1
    # Both agree with the Chinese article's USER1 (the same example).
    assert n1 == pytest.approx(0.8232936061974518, **TOL)
    assert n2 == pytest.approx(0.8793791209851007, **TOL)


def test_000_playlist_ndcg_code():
    """The article's binary nDCG (natural log, IDCG over min(|gt|, 100)
    positions) is ``ndcg_score`` at k = the list length: the log base cancels."""
    rng = np.random.default_rng(0)
    n_songs, cap = 40, 10
    gt, rec = {}, {}
    for pl in range(25):
        gt[pl] = set(rng.choice(n_songs, size=rng.integers(1, 16), replace=False).tolist())
        rec[pl] = rng.choice(n_songs, size=cap, replace=False).tolist()
    article = sum(ref.article_playlist_ndcg(gt[i], rec[i], cap) for i in rec) / len(rec)
    y = np.zeros((len(rec), n_songs))
    s = np.zeros((len(rec), n_songs))
    for i in rec:
        y[i, list(gt[i])] = 1
        s[i] = in_order(n_songs, rec[i])
    assert skr.ndcg_score(y, s, k=cap) == pytest.approx(article, **TOL)


# --- 002 (Portuguese): exponential DCG, the 3 x 5 example, AP -------------------


def test_002_exponential_dcg_idcg_ndcg():
    y, s = as_shown([2, 3, 0, 1, 2])  # items A..E
    # "DCG Posição" column: 3, 4.41651, 0, 0.430677, 1.16056.
    cum = [skr.dcg_score(y, s, k=p, gain="exponential") for p in range(1, 6)]
    np.testing.assert_allclose(
        np.diff([0.0, *cum]), [3, 4.41651, 0, 0.430677, 1.16056], rtol=1e-5, atol=1e-12
    )
    dcg = skr.dcg_score(y, s, gain="exponential")
    assert round(dcg, 2) == 9.01
    assert dcg == pytest.approx(9.007743254777221, **TOL)
    # IDCG: B, A, E, D, C with terms 7, 1.89279, 1.5, 0.430677, 0 -> 10.82.
    idcg = skr.dcg_score(y, y, gain="exponential")
    ideal_order = in_order(5, [1, 0, 4, 3, 2]).reshape(1, -1)
    cum = [skr.dcg_score(y, ideal_order, k=p, gain="exponential") for p in range(1, 6)]
    np.testing.assert_allclose(
        np.diff([0.0, *cum]), [7, 1.89279, 1.5, 0.430677, 0], rtol=1e-5, atol=1e-12
    )
    assert round(idcg, 2) == 10.82
    ndcg = skr.ndcg_score(y, s, gain="exponential")
    assert ndcg == pytest.approx(dcg / idcg, **TOL)
    assert round(ndcg, 2) == 0.83
    # scikit-learn's (linear) nDCG differs, as the article says.
    assert skr.ndcg_score(y, s) != pytest.approx(ndcg, abs=1e-3)


def test_002_three_users_numpy_code():
    """The article's NumPy code prints ``ndcg.mean()`` (the output is not
    shown): running it gives 0.890142..., rows 0.8322, 0.8382 and 1."""
    y_pred_rel = np.array([[2, 3, 0, 1, 2], [1, 2, 1, 1, 0], [3, 3, 2, 1, 1]])
    positions = np.arange(1, y_pred_rel.shape[1] + 1)
    denominator = np.log2(positions + 1)
    dcg = np.sum((2**y_pred_rel - 1) / denominator, axis=1)
    ideal_rel = np.sort(y_pred_rel, axis=1)[:, ::-1]
    idcg = np.sum((2**ideal_rel - 1) / denominator, axis=1)
    article = (dcg / idcg).mean()
    assert article == pytest.approx(0.8901420415712558, **TOL)
    # The matrix holds the relevance of the item at each position: scores
    # 5, 4, 3, 2, 1 keep that order.
    s = np.tile(np.arange(5, 0, -1), (3, 1))
    assert skr.ndcg_score(y_pred_rel, s, gain="exponential") == pytest.approx(article, **TOL)
    np.testing.assert_allclose(
        skr.ndcg_score(y_pred_rel, s, gain="exponential", per_row=True),
        dcg / idcg, rtol=1e-12,
    )


def test_002_average_precision_table():
    y, s = as_shown([2, 3, 0, 1, 2])
    # "Average Precision" column: precision at each relevant position (1, 1,
    # -, 0.75, 0.8); position 3 holds an irrelevant item (precision 2/3 there).
    prec = [skr.precision_at_k_score(y, s, k=p) for p in range(1, 6)]
    np.testing.assert_allclose(prec, [1, 1, 2 / 3, 0.75, 0.8], rtol=1e-12)
    # Summed (3.55) and divided by the 4 relevant items: 0.8875.
    assert skr.mean_average_precision_score(y, s) == pytest.approx(3.55 / 4, **TOL)
    for denominator in ("min_k_relevant", "relevant"):
        assert skr.mean_average_precision_score(
            y, s, k=5, denominator=denominator
        ) == pytest.approx(0.8875, **TOL)
    # "At least four": relevant items the top 5 did not return raise the
    # denominator. trec_eval's R counts them all; min(k, R) stops at k = 5.
    for extra, relevant, min_k in ((1, 3.55 / 5, 3.55 / 5), (2, 3.55 / 6, 3.55 / 5)):
        y2 = np.concatenate([y, np.ones((1, extra))], axis=1)
        s2 = np.concatenate([s, np.full((1, extra), -1.0)], axis=1)
        assert skr.mean_average_precision_score(
            y2, s2, k=5, denominator="relevant"
        ) == pytest.approx(relevant, **TOL)
        assert skr.mean_average_precision_score(y2, s2, k=5) == pytest.approx(min_k, **TOL)


# --- 004 (Chinese): ratings 5, 3, 2, 1, 2 and three users ---------------------------


def test_004_cg5_and_exponential_dcg5():
    y, s = as_shown([5, 3, 2, 1, 2])  # M1..M5
    assert skr.cumulative_gain_score(y, s) == 13.0
    assert skr.cumulative_gain_score(y, s, k=5) == 13.0
    dcg = skr.dcg_score(y, s, gain="exponential")
    # Exact: 31 + 7/log2(3) + 3/2 + 1/log2(5) + 3/log2(6)
    #      = 31 + 4.41651 + 1.5 + 0.43068 + 1.16056 = 38.50774.
    # The article rounds each term to one decimal (4.4, 0.4, 1.2: off by
    # -0.017, -0.031 and +0.039) and adds the rounded terms to 38.5. The
    # errors nearly cancel: the exact total, 38.508, also rounds to 38.5.
    assert dcg == pytest.approx(31 + 7 / math.log2(3) + 1.5 + 1 / math.log2(5)
                                + 3 / math.log2(6), **TOL)
    assert dcg == pytest.approx(38.507743254777225, **TOL)
    assert round(dcg, 1) == 38.5
    assert 31 + 4.4 + 1.5 + 0.4 + 1.2 == pytest.approx(38.5)
    assert dcg - 38.5 == pytest.approx(0.0077, abs=1e-4)


SONGS = {c: i for i, c in enumerate("ABCDEFGHI")}
RELEVANCE_TRUE = {
    "USER1": [3, 3, 2, 2, 1, 1, 0, 0, 0],
    "USER2": [3, 2, 1, 1, 2, 0, 1, 1, 1],
    "USER3": [0, 1, 0, 1, 2, 3, 3, 1, 0],
}
S1 = {"USER1": "AECDF", "USER2": "GEABD", "USER3": "CGFBE"}
S2 = {"USER1": "ABCGE", "USER2": "BAGEF", "USER3": "EGFBI"}
#: (S1 linear, S2 linear, S1 exponential, S2 exponential), as printed.
PRINTED = {
    "USER1": (0.8232936061974518, 0.8793791209851007, 0.7406319169800546, 0.911476869939315),
    "USER2": (0.8241067540896558, 0.864255024163802, 0.7200216168193889, 0.821434096248145),
    "USER3": (0.6850898875992608, 0.867837452040598, 0.6922758990315323, 0.826208951093206),
}


def _user_matrices(system):
    """One row per user: relevance of songs A..I, scores in the system's order."""
    y = np.array([RELEVANCE_TRUE[u] for u in RELEVANCE_TRUE], dtype=float)
    s = np.array([in_order(9, [SONGS[c] for c in system[u]]) for u in RELEVANCE_TRUE])
    return y, s


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_004_users_ndcg_at_5(gain):
    """The article's ideal list is the user's whole relevance list, sorted and
    cut at p = 5; its rel_pred is looked up from the recommended song ids."""
    col = 0 if gain == "linear" else 2
    for j, system in enumerate((S1, S2)):
        y, s = _user_matrices(system)
        got = skr.ndcg_score(y, s, k=5, gain=gain, per_row=True)
        want = [PRINTED[u][col + j] for u in RELEVANCE_TRUE]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert skr.ndcg_score(y, s, k=5, gain=gain) == pytest.approx(np.mean(want), **TOL)
    # The same through the per-user call of the article's loop.
    y, s = _user_matrices(S2)
    assert skr.ndcg_score(y[2:3], s[2:3], k=5, gain=gain) == pytest.approx(
        PRINTED["USER3"][col + 1], **TOL
    )


def test_004_hit_rate_definition():
    """HR = users whose test item is in their top-N list / all users."""
    y = np.zeros((3, 9))
    y[0, SONGS["B"]] = 1  # USER1's test item: B (not in S1's top 5)
    y[1, SONGS["A"]] = 1  # USER2's: A (3rd in S1)
    y[2, SONGS["E"]] = 1  # USER3's: E (5th in S1)
    _, s = _user_matrices(S1)
    assert skr.hit_rate_score(y, s, k=5) == pytest.approx(2 / 3, **TOL)
    assert skr.hit_rate_score(y, s, k=3) == pytest.approx(1 / 3, **TOL)
