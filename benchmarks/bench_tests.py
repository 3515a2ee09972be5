"""The test suite's time, an older revision against this checkout, one after the other on this machine: the tests of `make test`
(check_notebooks, pytest, nbdev-test; set-up excluded), each run with its own code on this checkout's environments (.venv,
.venv-vllm), pytest's durations per test and nbdev-test's per notebook; a table of the totals and the slowest items of each.

Run: .venv/bin/python benchmarks/bench_tests.py --base REV   (about an hour at REV bbd4fba on a 2-core machine; nothing else running)
     .venv/bin/python benchmarks/bench_tests.py --base REV --out DIR   (the logs kept in DIR/old and DIR/new)
     .venv/bin/python benchmarks/bench_tests.py --logs OLD NEW   (the table only, from two earlier runs' log folders)"""
import argparse, os, re, subprocess, sys, tempfile, time
from pathlib import Path

root = Path(__file__).resolve().parent.parent
bin_ = Path(sys.executable).parent

def run_suite(checkout:Path, logs:Path) -> dict:
    "Run the tests of `make test` from `checkout` (its own twentyq), each part's output to logs/; seconds per part."
    logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    if checkout.resolve() != root: env["PYTHONPATH"] = str(checkout)   # its twentyq before this checkout's (editable) one
    parts = {"check": ([bin_/"python", ".ci/check_notebooks.py"], checkout),
             "pytest": ([bin_/"python", "-m", "pytest", "tests", "-q", "-rs", "-p", "no:cacheprovider", "--durations=0"], checkout),
             "nbdev": ([bin_/"nbdev-test", "--n-workers", "1", "--timing", "--skip-folder-re", "^paper$"], checkout/"nbs")}
    secs = {}
    for name, (cmd, cwd) in parts.items():
        t0 = time.time()
        with open(logs/f"{name}.log", "w") as f: rc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT).returncode
        secs[name] = time.time() - t0
        print(f"{checkout}: {name} exit {rc} in {secs[name]:.0f} s", file=sys.stderr)
    (logs/"seconds.txt").write_text("".join(f"{k} {v:.1f}\n" for k, v in secs.items()))
    return secs

def durations(logs:Path) -> dict:
    "{item: seconds}: pytest's tests (setup, call and teardown added up) and nbdev-test's notebooks."
    out = {}
    for m in re.finditer(r"^([\d.]+)s (?:setup|call|teardown)\s+(\S+)", (logs/"pytest.log").read_text(), re.M):
        out[m[2]] = out.get(m[2], 0) + float(m[1])
    for m in re.finditer(r"^(\S+\.ipynb): (\d+) secs", (logs/"nbdev.log").read_text(), re.M): out["nbs/" + m[1]] = float(m[2])
    return out

def counts(logs:Path) -> str:
    "pytest's closing line."
    lines = [l for l in (logs/"pytest.log").read_text().splitlines() if re.search(r"\d+ passed", l)]
    return lines[-1].strip("= ") if lines else "?"

def table(old:Path, new:Path, n:int=15):
    "Print the totals side by side, then the `n` slowest items of each run."
    so, sn = ({l.split()[0]: float(l.split()[1]) for l in (d/"seconds.txt").read_text().splitlines()} for d in (old, new))
    print(f"{'part':<24}{'old (s)':>10}{'new (s)':>10}{'new/old':>9}")
    for k in ["check", "pytest", "nbdev"]: print(f"{k:<24}{so[k]:>10.0f}{sn[k]:>10.0f}{sn[k]/so[k]:>9.2f}")
    t_old, t_new = so["pytest"] + so["nbdev"], sn["pytest"] + sn["nbdev"]
    print(f"{'pytest + nbdev-test':<24}{t_old:>10.0f}{t_new:>10.0f}{t_new/t_old:>9.2f}")
    print(f"\npytest: old {counts(old)}; new {counts(new)}")
    for name, d in [("old", old), ("new", new)]:
        items = sorted(durations(d).items(), key=lambda kv: -kv[1])
        print(f"\n{n} slowest tests and notebooks, {name}:")
        for item, s in items[:n]: print(f"{s:>8.1f} s  {item}")

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="the older revision to compare with (a commit of this repository)")
    ap.add_argument("--out", type=Path, help="keep the two runs' logs in this folder (old/, new/) rather than a temporary one")
    ap.add_argument("--logs", nargs=2, type=Path, metavar=("OLD", "NEW"), help="print the table of two earlier runs' log folders")
    a = ap.parse_args()
    if a.logs: table(*a.logs); sys.exit()
    if not a.base: ap.error("give --base REV or --logs OLD NEW")
    with tempfile.TemporaryDirectory() as d:
        base, logs = Path(d)/"base", a.out or Path(d)/"logs"
        subprocess.run(["git", "clone", "-q", str(root), str(base)], check=True)
        subprocess.run(["git", "checkout", "-q", a.base], cwd=base, check=True)
        (base/".venv-vllm").symlink_to(root/".venv-vllm")   # the vllm engine's environment, found beside the checkout
        run_suite(base, logs/"old"); run_suite(root, logs/"new")
        table(logs/"old", logs/"new")
