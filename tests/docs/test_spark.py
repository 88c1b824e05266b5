"""The Spark example of docs/scale.md runs as given (when pyspark and Java are here).

The example groups the pairs by a bucket of the query id with
``groupBy(...).applyInPandas``, scores each group's queries with this package
and averages in Spark; its own asserts compare the means with the in-memory
call to 1e-12. pyspark is in no extra of the package, so the test skips
cleanly without it or without a Java runtime.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

#: Slow (Spark): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

PAGE = ROOT / "docs" / "scale.md"


def spark_example():
    """The ``{code-block} python`` block of the page's Spark section."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## On Spark, per query", 1)[1]
    match = re.search(r"```\{code-block\} python\n(.*?)\n```", section, flags=re.DOTALL)
    assert match, "docs/scale.md has no Spark example"
    return match.group(1)


def test_the_page_has_the_spark_example():
    code = spark_example()
    assert "applyInPandas" in code and "groupBy" in code and "assert" in code


def test_the_spark_example_runs():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime for Spark")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    out = subprocess.run([sys.executable, "-c", spark_example()], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
