"The model-free WordNet questioner: the dictionary parser on a shipped sample, the sense overrides, truthful knowledge answers, real penultimate questions, the ideal observer, and the targets of issue 15."
import json, math, re, shutil
from pathlib import Path
import pytest
from twentyq import knowledge as K, wordnet as W
from twentyq.core import data_path
from twentyq.players import get_backend
from twentyq.sampling import Backend
from twentyq.protocols import paper_judge_chat, evals_gamemaster, lmrl_oracle, parse_judge
from twentyq.edits import flip_answer, flip_penultimate

SAMPLE = Path(__file__).parent/"fixtures"/"wordnet_sample"

# ---- the parser, on the cut-down dictionary in tests/fixtures/wordnet_sample

def test_sample_parses_and_is_self_consistent():
    idx, syns = K.read_index(SAMPLE/"index.noun"), K.read_synsets(SAMPLE/"data.noun")
    assert {"car", "church", "dog", "jean", "wizard"} <= set(idx)
    assert all(o in syns for offs in idx.values() for o in offs)                 # every indexed synset is a line
    assert all(p in syns for s in syns.values() for p in s["parents"])           # every parent too
    raw = (SAMPLE/"data.noun").read_bytes()
    for o in syns: assert raw[o:o + 8] == f"{o:08d}".encode()                    # offsets are byte positions
    assert raw.startswith(b"  1 This software and database")                    # the licence header is kept
    car = syns[idx["car"][0]]
    assert car["lex"] == "noun.artifact" and car["lemmas"][:3] == ["car", "auto", "automobile"]
    assert K.synset_name(car["parents"][0], syns, idx) == "motor_vehicle.n.01"
    assert K.synset_name(idx["church"][1], syns, idx) == "church.n.02"

def test_offsets_are_checked(tmp_path):
    lines = (SAMPLE/"data.noun").read_bytes().splitlines(keepends=True)
    i = next(k for k, l in enumerate(lines) if not l.startswith(b"  "))
    lines[i] = lines[i].replace(b" | ", b" |  ")                               # one byte more shifts every later offset
    (tmp_path/"data.noun").write_bytes(b"".join(lines))
    with pytest.raises(ValueError, match="names offset"): K.read_synsets(tmp_path/"data.noun")

def test_parse_synset_parents():
    inst = "11069830 18 n 02 Einstein 0 Albert_Einstein 0 002 @i 10447403 n 0000 @i 10794014 n 0000 | physicist"
    assert K.parse_synset(inst) == dict(offset=11069830, lex="noun.person", lemmas=["Einstein", "Albert_Einstein"], parents=[10447403, 10794014])
    both = "04576211 06 n 01 wheeled_vehicle 0 003 @ 04524313 n 0000 @ 03094503 n 0000 ~ 02766534 n 0000 | a vehicle"
    assert K.parse_synset(both)["parents"] == [4524313, 3094503]                 # first listed first: a vehicle before a container

def test_lemma_lookup():
    idx = K.read_index(SAMPLE/"index.noun")
    assert K.wordnet_lemma("  Car ", idx) == "car" and K.wordnet_lemma("jeans", idx) == "jean"
    assert K.wordnet_lemma("Harry Potter", idx) is None
    assert K.read_exceptions(SAMPLE/"noun.exc") == {}                           # optional file

def test_build_knowledge_on_sample(tmp_path):
    f = K.build_knowledge(SAMPLE, tmp_path/"kn.json", words=["car", "Church", "jeans", "dog", "Harry Potter", "operating"])
    kn = json.loads(f.read_text())
    assert kn["words"] == {"car": "car.n.01", "church": "church.n.02", "jeans": "jean.n.01", "dog": "dog.n.01",
                           "harry potter": "~harry_potter", "operating": None}
    assert kn["synsets"]["church.n.02"][1] == "noun.artifact"                   # the building, not the Christians
    assert kn["synsets"]["~harry_potter"] == ["harry potter", "noun.person", "sorcerer.n.01"]
    chain = K.word_chain("car", kn)
    assert chain[-1] == "entity.n.01" and kn["synsets"]["entity.n.01"][2] is None
    assert "container.n.01" not in chain                                        # first-listed parents only
    assert kn["overridden"] == ["church", "harry potter"]
    with pytest.raises(FileNotFoundError, match="not a WordNet"): K.build_knowledge(tmp_path, tmp_path/"x.json")

def test_cut_dictionary_roundtrip(tmp_path):
    K.cut_dictionary(SAMPLE, tmp_path, ["dog"])
    idx, syns = K.read_index(tmp_path/"index.noun"), K.read_synsets(tmp_path/"data.noun")
    assert K.synset_name(idx["dog"][0], syns, idx) == "dog.n.01" and len(syns) < len(K.read_synsets(SAMPLE/"data.noun"))

# ---- the shipped knowledge and the sense overrides

@pytest.fixture(scope="module")
def kn(): return K.load_knowledge()

def test_shipped_knowledge(kn):
    f = data_path(K.KNOWLEDGE_FILE)
    assert f.stat().st_size < 2_000_000 and data_path("LICENSE-wordnet.txt").exists()
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in data_path("LICENSE-wordnet.txt").read_text()
    for w in K.knowledge_words(): assert w in kn["words"]
    for s, (name, lex, parent) in kn["synsets"].items():
        assert lex in K.LEXNAMES.values() and (parent is None or parent in kn["synsets"])

@pytest.mark.parametrize("word,lex,kind", [
    ("church", "noun.artifact", "building"), ("table", "noun.artifact", "furniture"), ("plate", "noun.artifact", "tableware"),
    ("president", "noun.person", "head of state"), ("sector", "noun.cognition", None), ("college", "noun.group", "educational institution"),
    ("form", "noun.communication", "document"), ("bank", "noun.group", "financial institution"), ("heart", "noun.body", "organ"),
    ("ring", "noun.artifact", "jewelry"), ("star wars", "noun.communication", "movie"), ("the beatles", "noun.group", "rock group"),
    ("pants", "noun.artifact", "garment"), ("kite", "noun.artifact", "plaything"), ("tiger", "noun.animal", "big cat")])
def test_sense_overrides(kn, word, lex, kind):
    chain = K.word_chain(word, kn)
    assert kn["synsets"][chain[0]][1] == lex
    if kind: assert kind in [kn["synsets"][s][0] for s in chain[1:]]
    assert word in kn["overridden"]

def test_overridden_words_are_list_words(kn):
    words = set(K.knowledge_words())
    assert set(K.SENSE_OVERRIDES) <= words                                       # no stale entries
    assert kn["overridden"] == sorted(K.SENSE_OVERRIDES)

# ---- games in knowledge mode

@pytest.fixture(scope="module")
def games(): return W.play_wordnet("nouns_test")

def _expected(q, secret, kn):
    "The answer the data gives, computed here from the raw knowledge, apart from the module's own reading."
    yn = lambda b: "Yes" if b else "No"
    if q.startswith("Is the secret word "): return "Finished" if q == f"Is the secret word {secret}?" else "No"
    w = re.sub("[^a-z]", "", secret.lower())
    if m := re.fullmatch(r"Does the word have more than (\d+) letters\?", q): return yn(len(w) > int(m[1]))
    if m := re.fullmatch(r"Does the word (start|end) with (?:the letter '(.)'|a letter from '(.)' to '(.)')\?", q):
        c, lo, hi = w[0 if m[1] == "start" else -1], m[2] or m[3], m[2] or m[4]
        return yn(lo <= c <= hi)
    if m := re.fullmatch(r"Is the (second|third) letter of the word (?:'(.)'|from '(.)' to '(.)')\?", q):
        k, lo, hi = {"second": 1, "third": 2}[m[1]], m[2] or m[3], m[2] or m[4]
        return yn(len(w) > k and lo <= w[k] <= hi)
    chain, s = [], kn["words"][secret.lower()]
    while s: chain.append(s); s = kn["synsets"][s][2]
    names = {kn["synsets"][s][0].lower() for s in chain[1:]}
    cats = {q: c for c, (q, _) in K.CATEGORY_QUESTIONS.items()}
    kinds = {q: n for n, (q, _) in K.KIND_PHRASES.items()}
    if q in cats: return yn(kn["synsets"][chain[0]][1] == cats[q])
    if q in kinds: return yn(kinds[q] in names)
    if m := re.fullmatch(r"Is it a kind of (.+)\?", q): return yn(m[1].lower() in names)
    raise AssertionError(f"a question the questioner should not ask: {q!r}")

def test_knowledge_answers_agree_with_the_data(games, kn):
    for g in games:
        for t in g["turns"]: assert t["answer"] == _expected(t["question"], g["secret"], kn), (g["secret"], t["question"])
        assert W.knowledge_contradictions(g) == []

def test_targets(games):
    won = [g for g in games if g["won"] and g["n_questions"] <= 20]
    assert len(games) == 263 and len(won) >= 0.95 * 263
    assert sum(g["n_questions"] for g in won) / len(won) <= 14

def test_penultimate_turn_is_a_real_question(games):
    pool = W.get_pool(W._candidate_words(None), K.load_knowledge())
    for g in games:
        assert g["won"] and g["turns"][-1]["question"] == f"Is the secret word {g['secret']}?"
        assert g["n_candidates"][-2] == 1                                        # named only when one was left
        path = W.candidate_path(pool, [(t["question"], t["answer"]) for t in g["turns"]])
        for m, t in zip(path, g["turns"][:-1]):                                  # no earlier turn names a candidate still left
            assert not t["question"].startswith("Is the secret word")
            assert not m >> pool["pos"].get(K.named_word(t["question"]), len(pool["keys"])) & 1, (g["secret"], t["question"])
    assert flip_penultimate(games[0])["turns"][-2]["answer"] != games[0]["turns"][-2]["answer"]   # Fig. 4's edit applies

def test_questions_never_name_a_candidate_left(games):
    pool = W.get_pool(W._candidate_words(None), K.load_knowledge())
    for g in games:
        path = W.candidate_path(pool, [(t["question"], t["answer"]) for t in g["turns"]])
        for m, t in zip(path, g["turns"][:-1]):
            assert not pool["name_mask"].get(t["question"], 0) & m, (g["secret"], t["question"])

def test_candidates_left(games):
    for g in games:
        n = g["n_candidates"]
        assert n[0] == 2630 and n[-1] == 1 and len(n) == len(g["turns"]) + 1
        assert all(a > b for a, b in zip(n[:-1], n[1:-1])) and n[-2] == 1        # every question removes candidates; then the guess
        assert W.candidates_left(g) == n

def test_stateless_and_deterministic(games):
    q = W.WordNetQuestioner()
    g = games[5]
    for i, t in enumerate(g["turns"]):                                          # a resumed chat gets the same question
        n = g["turns"][i - 1]["n_messages"] if i else g["n_start"]
        assert q.generate([g["messages"][:n]]) == [t["question"]]
    assert W.play_wordnet(["year", "law"]) == W.play_wordnet(["year", "law"])
    assert [t["question"] for t in W.play_wordnet(["law"])[0]["turns"]] == [                # golden: the greedy game, question by question
        "Is it something abstract?", "Is it something that happens or is done, or something in the mind?",
        "Is it an attribute of something, such as a quality or a state?", "Is it a form of communication?", "Is it a kind of social group?",
        "Is it something people own, buy or pay?", "Is it a measure or an amount of something?", "Does the word end with a letter from 'e' to 'n'?",
        "Is it a kind of relation?", "Is it a kind of collection?", "Does the word end with a letter from 's' to 'w'?",
        "Does the word start with a letter from 'a' to 'f'?", "Does the word end with a letter from 'a' to 't'?", "Is the secret word law?"]

# ---- the ideal observer

def test_ideal_beliefs(games):
    b = W.ideal_beliefs(games, run="r")
    assert list(b.columns) == ["run", "game_id", "scorer", "secret", "turn", "logprob"]
    assert set(b.scorer) == {"wordnet"} and set(b.run) == {"r"} and len(b) == sum(len(g["turns"]) + 1 for g in games)
    for g in games[:20]:
        lp = b[b.game_id == g["game_id"]].sort_values("turn")
        assert lp.turn.tolist() == list(range(len(g["turns"]) + 1))
        assert lp.logprob.tolist() == pytest.approx([-math.log(n) for n in g["n_candidates"]])
    assert b.logprob.notna().all() and (b.logprob <= 0).all()

def test_ideal_beliefs_when_a_judge_errs(games):
    bad = flip_answer(games[0], 2)
    assert W.knowledge_contradictions(bad) == [2]
    lp = W.ideal_beliefs([bad]).logprob.tolist()
    assert not math.isnan(lp[1]) and math.isnan(lp[2])                          # the secret ruled out: NaN, never -inf
    assert not any(x == -math.inf for x in lp)
    other = W.ideal_beliefs([dict(games[0], secret="zebra-not-a-candidate")]).logprob
    assert other.isna().all()

# ---- protocols, judge formats, backends

def test_other_protocols_and_lists():
    ev = W.play_wordnet("evals207", candidates="evals207", protocol="evals")
    lm = W.play_wordnet("lmrl158", candidates="lmrl158", protocol="lmrl")
    sl = W.play_wordnet("evals207", candidates="evals207", protocol="evals-shortlist")
    for gs in (ev, lm, sl): assert sum(g["won"] for g in gs) >= 0.95 * len(gs)
    assert all(g["turns"][-1]["kind"] == "guess" for g in ev if g["won"])
    assert all(g["turns"][-1]["question"].startswith("Is the object ") for g in lm if g["won"])
    assert all(W.candidates_left(g, "evals207")[0] == 20 for g in sl)           # the shortlist is the candidate set

def test_knowledge_judge_formats():
    j = W.KnowledgeJudge()
    r = j.generate([paper_judge_chat("car", "Is it a kind of vehicle?"), paper_judge_chat("car", "Is the secret word car?"),
                    paper_judge_chat("car", "Does it have wheels?")])
    assert [parse_judge(x)[0] for x in r] == ["Yes", "Finished", "No"] and r[0].startswith("<think>")
    ev = lambda q: [{"role": "system", "content": evals_gamemaster.format(word="car")}, {"role": "user", "content": q}]
    assert j.generate([ev("Is it an animal?"), ev("Does it have wheels?")]) == ["no", "skip"]
    lm = [{"role": "user", "content": lmrl_oracle.replace("{{word}}", "Car").replace("{{question}}", "Is it something people make?")}]
    assert j.generate([lm]) == ["Yes."]
    with pytest.raises(ValueError, match="not a judge chat"): j.generate([[{"role": "user", "content": "hi"}]])

def test_get_backend_names():
    q, j = get_backend("wordnet", device="cpu", dtype="float32", batch_size=8, prefix_cache_tokens=0), get_backend("wordnet-judge", device="cpu")
    assert isinstance(q, Backend) and isinstance(j, Backend)
    assert (q.name, len(q.candidates), j.name) == ("wordnet", 2630, "wordnet-judge")
    assert get_backend("wordnet:lmrl158").candidates[0] == "Basketball"

def test_masks_agree_with_truth(kn):
    pool = W.get_pool(W._candidate_words("evals207"), kn)
    for i, w in enumerate(pool["keys"]):
        for q in pool["questions"]: assert K.knowledge_truth(q, w, kn) == bool(pool["masks"][q] >> i & 1), (q, w)
