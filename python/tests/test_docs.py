"""docs/python.md's examples run: every ```python block, in order, in one namespace, with
the data directory (YZ_DATA) a fresh one."""

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_the_pages_examples_run(tmp_path, monkeypatch):
    monkeypatch.setenv("YZ_DATA", str(tmp_path))
    blocks = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)
    assert blocks, "docs/python.md has no python example"
    namespace = {}
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), namespace)
