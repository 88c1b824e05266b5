"""``column_array``: a pandas or polars column as a NumPy array, text held by
Arrow read from its buffers. Every column it reads must give what
``to_numpy()`` and the id checks gave before: the same ids in the same order,
as ``str``; columns its buffers cannot serve (missing entries, text outside
ASCII, NULs, no entry, only empty ids) take ``to_numpy()``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics._utils.arrays import as_ids
from sk_rankmetrics._utils.columns import arrow_text, column_array

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

#: Text ids: ASCII (of one to twelve characters), and some the buffers do
#: not serve (outside ASCII, a NUL inside or at the end).
ASCII_IDS = st.text(st.characters(min_codepoint=1, max_codepoint=127), min_size=1, max_size=12)
OTHER_IDS = st.sampled_from(["é", "doc-ü", "日本", "a\x00b", "z\x00", "\x00"])


def _pandas_text(values, kind):
    if kind == "str[pyarrow]":
        return pd.Series(values, dtype=pd.StringDtype("pyarrow"))
    if kind == "arrow string":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.string()))
    if kind == "arrow large_string":
        return pd.Series(values, dtype=pd.ArrowDtype(pa.large_string()))
    return pd.Series(values, dtype=object)


KINDS = ["str[pyarrow]", "arrow string", "arrow large_string", "object"]


@SETTINGS
@given(values=st.lists(st.one_of(ASCII_IDS, OTHER_IDS), max_size=40), kind=st.sampled_from(KINDS),
       start=st.integers(0, 5), chunks=st.booleans())
def test_text_columns_read_as_to_numpy_reads_them(values, kind, start, chunks):
    """The ids of a column (a slice of it, or two columns joined: an offset
    into Arrow's buffers, several chunks) come out equal to ``to_numpy()``'s,
    as ``str``; ``arrow_text`` serves exactly the ASCII columns without NUL."""
    col = _pandas_text(values, kind)
    if chunks:
        col = pd.concat([col, _pandas_text(values[:3], kind)], ignore_index=True)
    col = col.iloc[start:]
    got = column_array(col)
    want = np.asarray(col.to_numpy())
    assert got.shape == want.shape
    assert [str(v) for v in got.tolist()] == [str(v) for v in want.tolist()]
    text = arrow_text(col)
    ids = col.tolist()
    served = (kind != "object" and len(ids) > 0 and any(ids)
              and all(v.isascii() and "\x00" not in v for v in ids))
    assert (text is not None) == served
    if served:
        assert text.dtype.kind == "U" and text.tolist() == ids


@pytest.mark.parametrize("kind", KINDS[:3])
def test_arrow_text_leaves_what_it_cannot_serve_to_to_numpy(kind):
    """A missing entry, no entry, or only empty ids: None, and the id checks
    then say what they said before (the empty id named with its entry)."""
    assert arrow_text(_pandas_text(["a", None], kind)) is None
    assert arrow_text(_pandas_text([], kind)) is None
    assert arrow_text(_pandas_text(["", ""], kind)) is None
    assert arrow_text(pd.Series([1, 2])) is None and arrow_text(np.array(["a"])) is None
    with pytest.raises(ValueError, match="empty id at entry 1"):
        as_ids(_pandas_text(["a", "", "b"], kind), "ids")
    assert as_ids(_pandas_text(["a", "bb"], kind), "ids").tolist() == ["a", "bb"]


def test_polars_text_columns():
    pl = pytest.importorskip("polars")
    col = pl.Series(["u1", "user-0002", "x"])
    assert arrow_text(col).tolist() == ["u1", "user-0002", "x"]
    assert arrow_text(col[1:]).tolist() == ["user-0002", "x"]
    assert arrow_text(pl.Series(["é", "a"])) is None
    assert column_array(pl.Series(["é", "a"])).tolist() == ["é", "a"]
    assert arrow_text(pl.Series([1, 2])) is None
    assert column_array(pl.Series([1, 2])).tolist() == [1, 2]


def test_long_ids_keep_their_width():
    """The array is as wide as the longest id, every id whole."""
    values = ["a", "b" * 300, "cc"]
    got = arrow_text(_pandas_text(values, "str[pyarrow]"))
    assert got.dtype == np.dtype("<U300") and got.tolist() == values


def test_text_columns_without_pyarrow_take_to_numpy(monkeypatch):
    """Where pyarrow cannot be imported (polars holds Arrow's layout without
    it, but its ``to_arrow`` needs it), the column takes ``to_numpy()``."""
    pl = pytest.importorskip("polars")
    from sk_rankmetrics._utils import columns

    real = columns.importlib.import_module

    def without_pyarrow(name, *args):
        if name == "pyarrow":
            raise ModuleNotFoundError("No module named 'pyarrow'")
        return real(name, *args)

    monkeypatch.setattr(columns.importlib, "import_module", without_pyarrow)
    col = pl.Series(["u1", "u22"])
    assert arrow_text(col) is None
    assert [str(v) for v in column_array(col).tolist()] == ["u1", "u22"]
    assert arrow_text(_pandas_text(["a"], "str[pyarrow]")) is None
