"""The notebooks' own checks (each function's, under the cell that defines it), run by nbdev's runner as `nbdev-test` runs them
(`#| slow` cells skipped, nbs/paper left to test_report's papermill runs), one test per notebook, so that pytest's workers
share the notebooks with the tests here."""
import io, sys
from pathlib import Path
import pytest
from nbdev.config import get_config
from nbdev.doclinks import nbglob
import nbdev.test   # its `test_nb`, imported by module: pytest would collect the name as a test

NBS = Path(__file__).resolve().parent.parent/"nbs"
cfg = get_config(NBS)
notebooks = sorted(p.relative_to(NBS).as_posix() for p in nbglob(NBS, as_path=True, skip_folder_re="^paper$"))

def run_notebook(path:Path) -> str|None:
    "nbdev's run of the notebook at `path`: None when every cell passes, else the error (nbdev writes it to sys.__stderr__)."
    err, real = io.StringIO(), sys.__stderr__
    sys.__stderr__ = err
    try: ok, _ = nbdev.test.test_nb(path, skip_flags=cfg.tst_flags.split(), basepath=cfg.config_path,
                                   cell_timing_min=cfg.get("cell_timing_min"))   # printed: pytest -rP shows them
    finally: sys.__stderr__ = real
    return None if ok else err.getvalue()

@pytest.mark.parametrize("name", notebooks)
def test_notebook(name):
    error = run_notebook(NBS/name)
    assert error is None, error
