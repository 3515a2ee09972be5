"Training data: rejection sampling keeps each secret's shortest verified wins; labels cover exactly the questioner's tokens."
import json
import pytest
from twentyq.models import embedded_models
from twentyq.protocols import template_kw
from twentyq.runs import toy_game
from twentyq.metrics import verified_win
from twentyq.train import sft_data, questioner_spans, tokenize_chat, sft_rows, load_tokenizer
from twentyq.wordnet import play_wordnet

EOT = {"smollm2-135m": "<|im_end|>", "gemma3-270m": "<end_of_turn>"}

game = toy_game   # the record's one hand builder (`runs`): two questions, won at the second

@pytest.fixture(scope="module")
def toks(): return {name: load_tokenizer(name) for name in embedded_models}

@pytest.fixture(scope="module")
def teacher(): return play_wordnet(["year", "law"])

def labelled(tok, row): return tok.decode([i for i in row["labels"] if i != -100])
def replies(record): return [m["content"].strip() for m in record["messages"] if m["role"] == "assistant"]

def test_verified_win():
    assert verified_win(game())
    assert not verified_win(game(questions=("Is it an animal?", "Is it alive?")))   # judge said Finished, secret not named
    assert not verified_win(game(answers=("Yes", "No")))

def test_sft_data_keeps_two_shortest_verified_wins():
    a = [game(), game(questions=("A?", "B?", "Is it a cat?"), answers=("Yes", "No", "Finished"), iteration=1),
         game("dog", ("Is it a dog?",), ("Finished",)), game("cow", answers=("Yes", "No"))]
    b = [game(questions=("Is it a cat?",), answers=("Finished",), iteration=2), game("dog", ("Is it a pet?",), ("Finished",), iteration=1)]
    kept, report = sft_data([a, b])
    assert [r["game_id"] for r in kept] == ["cat#2", "cat#0", "dog#0"]
    assert report == dict(games_seen=6, games_considered=6, verified_wins=4, false_wins=1, secrets_won=2, games_kept=3, turns_kept=4)
    kept, report = sft_data([a, b], secrets=["cat", "cow"], per_secret=1)
    assert [r["game_id"] for r in kept] == ["cat#2"] and report["secrets_not_won"] == ["cow"]

def test_sft_data_reads_run_folders(tmp_path, teacher):
    (tmp_path/"games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in teacher))
    kept, report = sft_data([tmp_path, str(tmp_path)])   # the same games twice: ties by game_id, then by run order
    assert [r["game_id"] for r in kept] == ["law#0", "law#0", "year#0", "year#0"]
    assert report["verified_wins"] == 4 and report["turns_kept"] == 2 * sum(len(r["turns"]) for r in teacher)
    (tmp_path/"hard.txt").write_text("law\nzebra\n")   # secrets from a word-list file
    kept, report = sft_data(tmp_path, secrets=tmp_path/"hard.txt")
    assert [r["game_id"] for r in kept] == ["law#0"] and report["secrets_not_won"] == ["zebra"]

@pytest.mark.parametrize("name", list(embedded_models))
def test_labels_are_exactly_the_questioner_turns(name, toks, teacher):
    tok, eot = toks[name], EOT[name]
    for r, row in zip(teacher, sft_rows(teacher, tok)):
        last = max(i for i, m in enumerate(r["messages"]) if m["role"] == "assistant")
        text = tok.apply_chat_template(r["messages"][:last+1], tokenize=False, add_generation_prompt=False, **template_kw)
        assert tok.decode(row["input_ids"]) == text.rstrip()   # the render, up to the last questioner turn
        assert labelled(tok, row) == "".join(q + eot for q in replies(r))
        assert sum(i == tok.convert_tokens_to_ids(eot) for i in row["labels"]) == len(replies(r))
        # the unlabelled tokens are the system prompt, the user prompts, the answers and the role headers
        rest = tok.decode([i for i, l in zip(row["input_ids"], row["labels"]) if l == -100])
        for m in r["messages"][:last]:
            if m["role"] != "assistant": assert m["content"].strip() in rest
        assert not any(q in rest for q in replies(r))

@pytest.mark.parametrize("name", list(embedded_models))
def test_per_turn_rows(name, toks, teacher):
    tok, eot = toks[name], EOT[name]
    rows = sft_rows(teacher, tok, per_turn=True)
    assert len(rows) == sum(len(replies(r)) for r in teacher)
    assert [labelled(tok, row) for row in rows] == [q + eot for r in teacher for q in replies(r)]
    for row in rows[:5]:
        r = teacher[0]
        k = [i for i, m in enumerate(r["messages"]) if m["role"] == "assistant"][row["turn"] - 1]
        prompt = tok.apply_chat_template(r["messages"][:k], tokenize=False, add_generation_prompt=True, **template_kw)
        first = next(i for i, l in enumerate(row["labels"]) if l != -100)
        assert row["input_ids"][:first] == tok(prompt, add_special_tokens=False).input_ids   # what the rollout showed the questioner
        assert all(l != -100 for l in row["labels"][first:])                                 # the row ends with that turn

def test_only_must_be_an_assistant_message(toks):
    with pytest.raises(ValueError, match="not the questioner"): tokenize_chat(toks["smollm2-135m"], game()["messages"], only=3)

def test_template_that_rewrites_history_is_refused(toks):
    tok = load_tokenizer("smollm2-135m")
    old = tok.chat_template
    try:
        tok.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] if loop.last or m['role'] != 'assistant' else '...' }}\n"
                             "{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}")
        with pytest.raises(ValueError, match="prefix-stable"): questioner_spans(tok, game()["messages"])
        tok.chat_template = None
        with pytest.raises(ValueError, match="no chat template"): questioner_spans(tok, game()["messages"])
    finally: tok.chat_template = old

# --- training: sft_cmd on SmolLM2, a few steps on hand-built wins -------------------------------------------------------
from pathlib import Path
from games import game as run_game, write_run
from twentyq.train import sft_cmd, last_checkpoint

def weights(folder):
    from safetensors.torch import load_file
    return load_file(str(Path(folder)/"model.safetensors"))

@pytest.fixture(scope="module")
def teachers(tmp_path_factory):
    d = tmp_path_factory.mktemp("teachers")
    write_run(d/"a", [run_game(s, ["No", "Yes", "Finished"]) for s in ("cat", "dog", "cow")])
    write_run(d/"b", [run_game("eel", ["No", "Finished"]), run_game("owl", ["No", "Finished"], name_secret=False)])   # owl: a false win
    return f"{d/'a'},{d/'b'}"

def test_sft_cmd_refuses_runs_without_verified_wins(tmp_path):
    write_run(tmp_path/"r", [run_game("owl", ["No", "Finished"], name_secret=False), run_game("cat", ["No", "No"])])
    with pytest.raises(ValueError, match="no verified wins"): sft_cmd(str(tmp_path/"r"), out=str(tmp_path/"out"))
    assert not (tmp_path/"out").exists()

def test_sft_cmd_trains_checkpoints_resumes_and_saves_a_model(tmp_path, teachers, capsys):
    import torch
    from twentyq.models import load_model
    kw = dict(max_steps=2, save_steps=1, batch_size=2, lr=1e-4, seed=0, device="cpu")
    sft_cmd(teachers, out=str(tmp_path/"a"), **kw)
    said = capsys.readouterr().out
    assert "verified_wins: 4" in said and "false_wins: 1" in said and "step 2" in said and "resuming" not in said
    assert [p.name for p in sorted((tmp_path/"a").glob("checkpoint-*"))] == ["checkpoint-1", "checkpoint-2"]
    base, trained = load_model("smollm2-135m", device="cpu")[0].state_dict(), weights(tmp_path/"a")
    assert any(not torch.equal(base[k], v) for k, v in trained.items())                 # the weights changed
    # the same seed gives the same weights, bit for bit
    sft_cmd(teachers, out=str(tmp_path/"b"), **kw)
    again = weights(tmp_path/"b")
    assert trained.keys() == again.keys() and all(torch.equal(trained[k], again[k]) for k in trained)
    # a rerun with more steps resumes from the last checkpoint: checkpoint-2 is read, not rewritten, and the step count goes on
    stamp = (tmp_path/"a"/"checkpoint-2"/"trainer_state.json").stat().st_mtime_ns
    capsys.readouterr()
    sft_cmd(teachers, out=str(tmp_path/"a"), **dict(kw, max_steps=3))
    said = capsys.readouterr().out
    assert f"resuming from {tmp_path/'a'/'checkpoint-2'}" in said and "step 3" in said
    assert last_checkpoint(tmp_path/"a").name == "checkpoint-3"
    assert json.loads((tmp_path/"a"/"checkpoint-3"/"trainer_state.json").read_text())["global_step"] == 3
    assert (tmp_path/"a"/"checkpoint-2"/"trainer_state.json").stat().st_mtime_ns == stamp
    # the output folder is a model name: its weights, the tokenizer and the chat template the student was trained with
    model, tok = load_model(str(tmp_path/"a"), device="cpu")
    assert tok.chat_template and tok.chat_template == load_model("smollm2-135m", device="cpu")[1].chat_template
    saved = weights(tmp_path/"a")
    assert all(torch.equal(model.state_dict()[k], v) for k, v in saved.items())

def test_sft_cmd_lora_saves_the_adapter_merged(tmp_path, teachers):
    import torch
    from twentyq.models import load_model
    sft_cmd(teachers, out=str(tmp_path/"lora"), lora=True, max_steps=1, save_steps=1, batch_size=2, lr=1e-3, device="cpu")
    assert not (tmp_path/"lora"/"adapter_config.json").exists()           # a plain model, not an adapter
    model, _ = load_model(str(tmp_path/"lora"), device="cpu")
    base = load_model("smollm2-135m", device="cpu")[0].state_dict()
    changed = [k for k, v in model.state_dict().items() if not torch.equal(base[k], v)]
    assert changed and all(k.endswith("proj.weight") for k in changed)     # only the linear layers the adapter trained
