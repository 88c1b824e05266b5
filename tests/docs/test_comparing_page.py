"""docs/comparing.md: every python block runs as given, top to bottom, and says
what the text says it does."""

from __future__ import annotations

import re

import matplotlib
import pytest
from conftest import ROOT

matplotlib.use("Agg")

PAGE = ROOT / "docs" / "comparing.md"


def _blocks():
    return re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"),
                      flags=re.S | re.M)


def test_every_python_block_runs_top_to_bottom(capsys, tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)  # the page writes TREC files for its command line
    blocks = _blocks()
    assert len(blocks) >= 6
    namespace = {"__name__": "comparing_page"}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"{PAGE.name}, python block {i + 1}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message names the block
            pytest.fail(f"python block {i + 1} of {PAGE.name} raised {exc!r}")
    plt.close("all")
    out = capsys.readouterr().out
    report = namespace["report"]
    # The text's claims about the worked example.
    assert report.systems == ["bm25", "rerank", "fusion"]
    assert report.n_queries == {"ndcg@10": 50, "map": 50, "P@5": 50}
    assert report.significant["ndcg@10"][("bm25", "rerank")]
    assert report.differences["ndcg@10"][("bm25", "rerank")] < 0
    assert "\\begin{table}" in out and "| # | system |" in out
    assert namespace["vs_bm25"].pairs == [("rerank", "bm25"), ("fusion", "bm25")]
    assert namespace["display"].names == ("rerank", "bm25")
    assert namespace["cv_report"].systems == ["ridge", "tree"]
    assert {p.name for p in tmp_path.iterdir()} == {"qrels.txt", "bm25.txt", "rerank.txt",
                                                     "fusion.txt"}
