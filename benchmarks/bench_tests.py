"""The test suite's time, an older revision against this checkout, one after the other on this machine: the tests of `make test`
(each checkout's own commands: check_notebooks, pytest and, at older heads, nbdev-test; set-up excluded), each run with its own
code on this checkout's environments (.venv, .venv-vllm), pytest's durations per test and nbdev-test's per notebook (where the
notebooks run in pytest, their slow cells are in pytest.log, `NAME.ipynb:CELL: S.SSSs`); a table of the totals and the slowest
items of each.

Run: .venv/bin/python benchmarks/bench_tests.py --base REV   (about an hour at REV bbd4fba on a 2-core machine; nothing else running)
     .venv/bin/python benchmarks/bench_tests.py --base REV --out DIR   (the logs kept in DIR/old and DIR/new)
     .venv/bin/python benchmarks/bench_tests.py --base REV --out DIR --side old   (one side only, the other later: --side new)
     .venv/bin/python benchmarks/bench_tests.py --logs OLD NEW   (the table only, from two earlier runs' log folders)"""
import argparse, os, re, subprocess, sys, tempfile, time
from pathlib import Path

root = Path(__file__).resolve().parent.parent
bin_ = Path(sys.executable).parent

def recipe(checkout:Path) -> list[str]:
    "The commands of `make test` in `checkout`'s Makefile, `$(BIN)` this environment's bin folder."
    lines = (checkout/"Makefile").read_text().split("\ntest:", 1)[1].splitlines()[1:]
    cmds = [l[1:] for l in lines[:next((i for i, l in enumerate(lines) if not l.startswith("\t")), len(lines))]]
    return [c.replace("../$(BIN)", str(bin_)).replace("$(BIN)", str(bin_)).replace("$$", "$") for c in cmds]

def part(cmd:str) -> tuple[str, str]:
    "A `make test` command's part (check, pytest, nbdev) and the command with the option that times its items."
    if "pytest" in cmd:   # every test's duration; -rP: each test's output, the notebooks' slow cells among it
        return "pytest", cmd.replace(" -p no:cacheprovider", " -p no:cacheprovider --durations=0", 1).replace(" -rs ", " -rsP ", 1)
    if "nbdev-test" in cmd: return "nbdev", cmd.replace("nbdev-test", "nbdev-test --timing", 1)
    return "check", cmd

def run_suite(checkout:Path, logs:Path) -> dict:
    """Run the tests of `make test` from `checkout` (its own twentyq, its own Makefile's commands), each part's output to
    logs/; seconds per part."""
    logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    if checkout.resolve() != root: env["PYTHONPATH"] = str(checkout)   # its twentyq before this checkout's (editable) one
    secs = {}
    for cmd in recipe(checkout):
        name, cmd = part(cmd)
        t0 = time.time()
        with open(logs/f"{name}.log", "w") as f:
            rc = subprocess.run(["bash", "-c", cmd], cwd=checkout, env=env, stdout=f, stderr=subprocess.STDOUT).returncode
        secs[name] = time.time() - t0
        print(f"{checkout}: {name} exit {rc} in {secs[name]:.0f} s", file=sys.stderr)
    (logs/"seconds.txt").write_text("".join(f"{k} {v:.1f}\n" for k, v in secs.items()))
    return secs

def durations(logs:Path) -> dict:
    "{item: seconds}: pytest's tests (setup, call and teardown added up) and nbdev-test's notebooks."
    out = {}
    for m in re.finditer(r"^([\d.]+)s (?:setup|call|teardown)\s+(\S+)", (logs/"pytest.log").read_text(), re.M):
        test = m[2].split("@")[0]   # without xdist's "@group" suffix (--dist loadgroup)
        out[test] = out.get(test, 0) + float(m[1])
    nbdev = logs/"nbdev.log"   # where the notebooks ran apart (older heads); else they are pytest's test_notebooks
    for m in re.finditer(r"^(\S+\.ipynb): (\d+) secs", nbdev.read_text() if nbdev.exists() else "", re.M): out["nbs/" + m[1]] = float(m[2])
    return out

def counts(logs:Path) -> str:
    "pytest's closing line."
    lines = [l for l in (logs/"pytest.log").read_text().splitlines() if re.search(r"\d+ passed", l)]
    return lines[-1].strip("= ") if lines else "?"

def table(old:Path, new:Path, n:int=15):
    "Print the totals side by side, then the `n` slowest items of each run."
    so, sn = ({l.split()[0]: float(l.split()[1]) for l in (d/"seconds.txt").read_text().splitlines()} for d in (old, new))
    print(f"{'part':<24}{'old (s)':>10}{'new (s)':>10}{'new/old':>9}")
    for k in ["check", "pytest", "nbdev"]:
        a, b = so.get(k, 0), sn.get(k, 0)   # (not `n`: the number of items to show)
        print(f"{k:<24}{a:>10.0f}{b:>10.0f}{b/a if a else float('nan'):>9.2f}")
    t_old, t_new = so["pytest"] + so.get("nbdev", 0), sn["pytest"] + sn.get("nbdev", 0)
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
    ap.add_argument("--side", choices=["old", "new", "both"], default="both", help="run one side only (with --out; then --logs for the table)")
    ap.add_argument("--logs", nargs=2, type=Path, metavar=("OLD", "NEW"), help="print the table of two earlier runs' log folders")
    a = ap.parse_args()
    if a.logs: table(*a.logs); sys.exit()
    if not a.base: ap.error("give --base REV or --logs OLD NEW")
    if a.side != "both" and not a.out: ap.error("--side old or new needs --out, where --logs finds the two runs")
    with tempfile.TemporaryDirectory() as d:
        base, logs = Path(d)/"base", a.out or Path(d)/"logs"
        subprocess.run(["git", "clone", "-q", str(root), str(base)], check=True)
        subprocess.run(["git", "checkout", "-q", a.base], cwd=base, check=True)
        (base/".venv-vllm").symlink_to(root/".venv-vllm")   # the vllm engine's environment, found beside the checkout
        if a.side != "new": run_suite(base, logs/"old")
        if a.side != "old": run_suite(root, logs/"new")
        if a.side == "both": table(logs/"old", logs/"new")
