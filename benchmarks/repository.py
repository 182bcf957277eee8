"""The repository first on ``sys.path``, for a benchmark run as ``python benchmarks/NAME.py``.

Python puts the script's folder first on the path, and there ``engine.py`` (the engine
benchmark) would be imported instead of the ``engine`` package. Importing this module takes
the folder off and puts the repository in front (this checkout's code, whichever venv runs
it). A benchmark imports it before anything of the project: ``from repository import ROOT``.
"""

from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(ROOT))
