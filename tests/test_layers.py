"""Dependencies point one way: tui -> exercises -> engine -> torch."""

import subprocess
import sys

import pytest


def modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nsys.stderr.write('\\n'.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in result.stderr.split()}


@pytest.mark.parametrize(
    "module", ["engine.masks", "engine.mlm", "engine.spans", "engine.textbook", "engine.samples"]
)
def test_engine_imports_neither_textual_nor_rich(module):
    loaded = modules_after(f"import {module}")
    assert "torch" in loaded
    assert (
        "textual" not in loaded and "rich" not in loaded and "tui" not in loaded and "exercises" not in loaded
    )


def test_help_does_not_import_torch():
    loaded = modules_after(
        "from tui.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert "tui" in loaded
    assert "torch" not in loaded and "engine" not in loaded


def test_exercises_do_not_import_textual():
    loaded = modules_after("import exercises")
    assert "textual" not in loaded
