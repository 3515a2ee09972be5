"""The report stage's notebooks on a kernel each against one kernel for all (`report._execute`, which a report worker
calls for each notebook it executes): every figure notebook on the small real runs of tests/fixtures/report_small,
one after the other in this process, first each on a new kernel (shut down after it), then all on one kernel,
cleared before each (`report._fresh`). A table of seconds per notebook and in all.

Run: .venv/bin/python benchmarks/bench_report.py   (about 2 minutes on a 2-core machine; nothing else running)"""
import tempfile, time
from pathlib import Path
from twentyq.report import paper_notebooks
from twentyq.notebook_runs import _execute, _shutdown, notebooks_dir

def seconds(names:list[str], out:Path, new_kernel:bool) -> dict:
    "{name: wall seconds} executing each of `names` into `out`; `new_kernel`: a kernel of its own for each."
    times = {}
    for name in names:
        t = time.time()
        err, _ = _execute(str(notebooks_dir()/f"{name}.ipynb"), str(out/f"{name}.ipynb"), {}, str(out))
        if err: raise RuntimeError(f"{name}: {err}")
        if new_kernel: _shutdown()
        times[name] = time.time() - t
    if not new_kernel: _shutdown()
    return times

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        (Path(d)/"each").mkdir(); (Path(d)/"one").mkdir()
        each, one = seconds(paper_notebooks, Path(d)/"each", True), seconds(paper_notebooks, Path(d)/"one", False)
    print(f"{'notebook':<28}{'a kernel each (s)':>19}{'one kernel (s)':>16}")
    for n in paper_notebooks: print(f"{n:<28}{each[n]:>19.1f}{one[n]:>16.1f}")
    total = sum(each.values()), sum(one.values())
    print(f"{'all ' + str(len(paper_notebooks)):<28}{total[0]:>19.1f}{total[1]:>16.1f}   ({total[0] / total[1]:.2f}x)")
