"""sft_cmd trains real SmolLM2 on CPU: checkpoints, resumes, is deterministic, saves a model.
The rest of train is checked in nbs/52_sft.ipynb."""
import json
from pathlib import Path
import pytest
from games import game as run_game, write_run
from twentyq.training.sft import sft_cmd, last_checkpoint
from twentyq.runs import read_jsonl

def weights(folder):
    from safetensors.torch import load_file
    return load_file(str(Path(folder)/"model.safetensors"))

@pytest.fixture(scope="module")
def teachers(tmp_path_factory):
    "One-question wins, to keep the rows short; owl is a false win."
    d = tmp_path_factory.mktemp("teachers")
    write_run(d/"a", [run_game(s, ["Finished"]) for s in ("cat", "dog", "cow")])
    write_run(d/"b", [run_game("eel", ["Finished"]), run_game("owl", ["Finished"], name_secret=False)])
    return f"{d/'a'},{d/'b'}"

def test_sft_cmd_trains_checkpoints_resumes_and_saves_a_model(tmp_path, teachers, capsys):
    import torch
    from twentyq.engines.models import load_model
    kw = dict(max_steps=1, save_steps=1, batch_size=1, lr=1e-4, seed=0, device="cpu", val_k=1, val_limit=1, max_questions=1,
              questioner_max_tokens=8)   # one held-out game of one question, before the first step and after the last
    sft_cmd(teachers, out=str(tmp_path/"a"), **kw)
    said = capsys.readouterr().out
    assert "verified_wins: 4" in said and "false_wins: 1" in said and "step 1" in said and "resuming" not in said
    assert [p.name for p in (tmp_path/"a").glob("checkpoint-*")] == ["checkpoint-1"]
    base, trained = load_model("smollm2-135m", device="cpu")[0].state_dict(), weights(tmp_path/"a")
    assert any(not torch.equal(base[k], v) for k, v in trained.items())                 # the weights changed
    # the same seed gives the same weights, bit for bit (no checkpoint needed for that)
    sft_cmd(teachers, out=str(tmp_path/"b"), **dict(kw, save_steps=100))
    again = weights(tmp_path/"b")
    assert trained.keys() == again.keys() and all(torch.equal(trained[k], again[k]) for k in trained)
    # a rerun with more steps resumes from the last checkpoint: checkpoint-1 is read, not rewritten,
    # and the step count goes on, checkpointing every step
    stamp = (tmp_path/"a"/"checkpoint-1"/"trainer_state.json").stat().st_mtime_ns
    capsys.readouterr()
    sft_cmd(teachers, out=str(tmp_path/"a"), **dict(kw, max_steps=2))
    said = capsys.readouterr().out
    assert f"resuming from {tmp_path/'a'/'checkpoint-1'}" in said and "step 2" in said
    assert [p.name for p in sorted((tmp_path/"a").glob("checkpoint-*"))] == ["checkpoint-1", "checkpoint-2"]
    assert last_checkpoint(tmp_path/"a").name == "checkpoint-2"
    assert json.loads((tmp_path/"a"/"checkpoint-2"/"trainer_state.json").read_text())["global_step"] == 2
    # the validation resumed too: each step validated once, none lost, none played twice
    assert [r["step"] for r in read_jsonl(tmp_path/"a"/"validation.jsonl")] == [0, 1, 2]
    assert [g["val_step"] for g in read_jsonl(tmp_path/"a"/"validation-games.jsonl")] == [0, 1, 2]
    assert (tmp_path/"a"/"checkpoint-1"/"trainer_state.json").stat().st_mtime_ns == stamp
    # the output folder is a model name: its weights, the tokenizer and the chat template the student was trained with
    model, tok = load_model(str(tmp_path/"a"), device="cpu")
    assert tok.chat_template and tok.chat_template == load_model("smollm2-135m", device="cpu")[1].chat_template
    saved = weights(tmp_path/"a")
    assert all(torch.equal(model.state_dict()[k], v) for k, v in saved.items())

def test_sft_cmd_lora_saves_the_adapter_merged(tmp_path, teachers):
    import torch
    from twentyq.engines.models import load_model
    sft_cmd(teachers, out=str(tmp_path/"lora"), lora=True, max_steps=1, save_steps=100, batch_size=1, lr=1e-3,
            device="cpu", val_k=0)
    assert not (tmp_path/"lora"/"adapter_config.json").exists()           # a plain model, not an adapter
    model, _ = load_model(str(tmp_path/"lora"), device="cpu")
    base = load_model("smollm2-135m", device="cpu")[0].state_dict()
    changed = [k for k, v in model.state_dict().items() if not torch.equal(base[k], v)]
    assert changed and all(k.endswith("proj.weight") for k in changed)     # only the linear layers the adapter trained
