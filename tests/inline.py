"""The report's notebooks (nbs/paper) run in this process with execnb's shell, as nbdev-test runs notebooks: the parameters cell
set as papermill sets it (its defaults, then the given values), no kernel started. For the tests that run every notebook on many
hand-built inputs; the report's own path (papermill, a kernel per notebook, two at a time) runs in the tiny main job."""
import matplotlib
matplotlib.use("Agg")   # no display; the notebooks save their figures to files
import matplotlib.pyplot as plt
from fastcore.nbio import read_nb
from execnb.shell import CaptureShell
from twentyq.notebook_runs import notebooks_dir

def run_inline(name:str, **params):
    "Execute notebook `name` of nbs/paper with `params` in place of its defaults; the executed notebook (raises the first error)."
    nb = read_nb(notebooks_dir()/f"{name}.ipynb")
    idx = next(i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", []))
    code = nb.cells[idx].source + "\n" + "\n".join(f"{k} = {v!r}" for k, v in params.items())
    try: CaptureShell().run_all(nb, exc_stop=True, inject_code=code, inject_idx=idx)
    finally: plt.close("all")
    return nb

def shown_markdown(nb) -> str:
    "The markdown a notebook displayed, all cells together."
    return "".join("".join(o.get("data", {}).get("text/markdown", "")) for c in nb.cells for o in c.get("outputs", []))
