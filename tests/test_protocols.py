"""Each protocol's prompts against the published text, and its game rules against its source's code, in games scripted by hand.

The sources, at the commits the protocols notebook names: openai/evals `evals/elsuite/twenty_questions/eval.py` and `utils.py`;
abdulhaim/LMRL-Gym `llm_rl_scripts/twenty_questions/env/env.py`, `oracle.py`, `data.py`; bethgelab/delta-belief-rl (the paper's
authors) `delta_belief_rl/workers/fsdp_workers.py` and `llm_agent/generation.py`. Each expected value is what that code does."""
from dataclasses import replace
import pytest
from twentyq import protocols as P

# The published texts, copied here a second time on purpose: a change to a prompt constant must be deliberate.
PAPER_QUESTIONER_SYSTEM = """You are the Questioner in a game of 20 Questions, and your goal is to determine the secret word.
The secret is randomly drawn from the 2500 most frequent nouns of the English language.
Ask clear, concise, and strategic yes/no questions that will help you narrow down the possibilities.
Consider previous answers to inform your subsequent questions, and keep track of the information you gather.
You have a maximum of 20 questions to guess the secret word correctly. Focus on deductive reasoning,
and avoid open-ended questions. Start with a broad question and refine your queries as you progress."""
PAPER_FIRST = """Ask a question to gain additional information about the secret or guess what the secret is
Instructions:
1. Ask a question that can be answered with "Yes" or "No" to help you deduce the secret word.
2. Your question must be a single, brief question. Do not provide any additional commentary or reasoning.
Ask your question:"""
PAPER_JUDGE_SYSTEM_CAT = """You are the Answerer in a game of 20 Questions.
The secret is randomly drawn from the 2500 most frequent nouns of the English language.
The secret word you have in mind is 'cat'.
Your role is to answer the questioner's questions with short and precise responses: 'Yes' or 'No'.
Do not provide extra hints or commentary beyond your answer.
Remain consistent and ensure that your responses accurately reflect the secret word.
Remember, your goal is to let the questioner deduce the word within 20 questions."""
PAPER_JUDGE_USER_Q = """Given the following question, is the correct response "Yes" or "No"?
If the question exactly matches the secret, the answer should be "Finished".
Question: 'Is it alive?'
Instructions:
1. Answer the question to the best of your abilities.
2. Provide your chain-of-thought reasoning step by step within XML <think>...</think> tags
3. Don't think longer than three brief sentences.
4. Then, provide your final answer within XML tags as <answer>[Yes/No/Finished]</answer>
5. Answer with "No" if the question is empty.
Give your answer in the format <think>...</think><answer>[Yes/No]</answer>:"""
EVALS_TASK = ("You are about to play the game '20 questions'. The other player has thought of a noun which you should try to guess. "
    "You can ask 20 yes/no questions, to which they will answer 'yes', 'no', or 'skip' (if they cannot answer your question). "
    "You should try to guess the word as soon as possible, using the least amount of questions. To guess a word, type [GUESS <word>] "
    "– for example to guess the word 'sibling', output [GUESS sibling]. Your score will be 0 if you do not guess correctly, and 20 "
    "minus the number of questions you asked if you guess correctly. Start by asking your first question.")
EVALS_GM_CAT = ("You are about to play the game '20 questions'. You'll be given a noun, which the other player will try to guess. "
    "They will ask 20 yes/no questions to try to guess the word. You will answer their questions with 'yes', 'no', or 'skip'. The word is: cat.")
LMRL_INTRO = ('You are playing a game of twenty questions. You can ask 20 yes-no questions to determine the identity of an object chosen '
    'by an oracle. Each turn, you can ask a question and receives a "Yes" or "No" as the answer.')
LMRL_REST = (" You are smart, so you will ask the question that will narrow down the possible objects as much as possible. "
    "Don't get stuck on one idea and try to branch out if you get stuck.")

def test_paper_prompts():
    g = P.new_game(P.get_protocol("paper"), "cat")
    assert g["messages"] == [{"role": "system", "content": PAPER_QUESTIONER_SYSTEM}, {"role": "user", "content": PAPER_FIRST}]
    assert P.paper_judge_chat("cat", "Is it alive?") == [{"role": "system", "content": PAPER_JUDGE_SYSTEM_CAT},
                                                         {"role": "user", "content": PAPER_JUDGE_USER_Q}]

def test_evals_prompts():
    assert P.evals_task() == EVALS_TASK
    short = P.evals_task(shortlist=["dog", "cat"])
    # utils.py L26-27 formats the Python list itself into the prompt
    assert short == EVALS_TASK.replace("should try to guess. ", "should try to guess. The noun is in this list: ['dog', 'cat'].\n")
    g = P.new_game(P.get_protocol("evals"), "cat")
    assert P.get_protocol("evals").on_reply(g, "Is it alive?") == [{"role": "system", "content": EVALS_GM_CAT}, {"role": "user", "content": "Is it alive?"}]

def test_lmrl_prompts():
    assert P.lmrl_guesser_prompt([]) == LMRL_INTRO + LMRL_REST + "\n\nGenerate the first yes-no question you will ask to determine the object."
    qa = [("Is the object alive?", "No"), ("Is it made of metal?", "Yes")]
    assert P.lmrl_guesser_prompt(qa) == (LMRL_INTRO + " You have already asked 2 questions." + LMRL_REST +
        "\n\nHere are the questions you've asked and their corresponding answers:\nIs the object alive? No.\nIs it made of metal? Yes.\n\n"
        "Based on what you know about the object so far, generate the next yes-no question you will ask to determine the object.")
    final = P.lmrl_guesser_prompt([("Is it big?", "No")] * 19)
    assert final.startswith(LMRL_INTRO + " You have already asked 19 questions, so this is your final guess." + LMRL_REST)
    assert final.endswith("generate your final guess of what the object is. Only guess one object.\n\nIs the object")
    oracle = P.lmrl_oracle.replace("{{word}}", "Cup").replace("{{question}}", "Is it alive?")
    assert oracle.endswith("Answer the question about the object truthfully.\nobject: Cup\nquestion: Is it alive?\nanswer (yes or no):")

def test_unparsed_reply_is_recorded_not_hidden():
    proto = P.get_protocol("paper")
    g = P.new_game(proto, "cat")
    proto.on_reply(g, "Is it alive?"); proto.on_judge(g, "I am not sure what you mean")
    t = g["turns"][-1]
    assert (t["answer"], t["parse_ok"], t["judge_raw"]) == (P.unparsed_answer, False, "I am not sure what you mean")
    assert g["messages"][-1] == {"role": "user", "content": P.unparsed_answer}

# --- the option -------------------------------------------------------------------------------------------------------------

def test_sources_rules_by_default_forgiving_readings_on_request():
    for name in P.protocols:
        assert P.get_protocol(name).lenient is False and P.get_protocol(name, lenient=False) is P.get_protocol(name)
    assert set(P.lenient_protocols) == set(P.protocols) - {"cia"}    # the successor's code corrects its judge itself
    for name in P.lenient_protocols: assert P.get_protocol(name, lenient=True).lenient is True
    with pytest.raises(ValueError, match="no forgiving reading"): P.get_protocol("cia", lenient=True)
    short = replace(P.get_protocol("lmrl", lenient=True), max_questions=3)   # what play() does
    assert (short.lenient, short.max_questions) == (True, 3)
    with pytest.raises(ValueError, match="chess"): P.get_protocol("chess", lenient=True)


def play(protocol, secret, script, variants=(), **kw):
    "Play `script`, a list of (questioner reply, judge reply or None), through the protocol object; return the game."
    g = P.new_game(protocol, secret, variants=variants, **kw)
    for reply, raw in script:
        assert not P.game_over(protocol, g), "the script goes on after the game ended"
        chat = protocol.on_reply(g, reply)
        assert (chat is None) == (raw is None), f"turn {len(g['turns'])}: judge asked {chat is not None}, script says {raw!r}"
        if chat is not None: protocol.on_judge(g, raw)
    return g


# --- the paper: the judge's answer (delta-belief-rl fsdp_workers.py L81, L84, L271-288; generation.py L615-633) --------------

@pytest.mark.parametrize("raw,expected", [
    ("<think>A cat is alive.</think><answer>Yes</answer>", ("Yes", True)),
    ("<answer>[Finished]</answer>", ("Finished", True)),                 # L84 removes the brackets
    ("<ANSWER>\n no \n</ANSWER>", ("No", True)),                         # L81: any case, across lines; stripped
    ("<answer>Yes.</answer>", ("No", False)),                            # L84 keeps '.', and 'yes.' is not in generation.py's list
    ("<answer>Yes, it is</answer>", ("No", False)),                      # first word 'yes,'
    ("<answer>No</answer> <answer>Finished</answer>", ("No", True)),     # joined: the first tag's word decides
    ("<think>ok</think>Finished", ("No", False)),                        # no tag: '' (L280), not a word of the list
    ("Yes", ("No", False)),
    ("<answer>Maybe</answer>", ("No", False)),
    ("<answer>repeated</answer>", ("No", False)),                        # their later judge's word; not in the paper's prompt
    ("<think>It is an animal, so yes", ("No", False)),                   # cut off mid-thought
    ("<think>The answer is <answer>Finished</answer>", ("No", False)),   # still thinking: never an answer
    (None, ("No", False)),
])
def test_paper_judge_by_the_authors_rule(raw, expected):
    assert P.parse_judge(raw) == expected


@pytest.mark.parametrize("raw,strict,lenient", [
    ("<think>The secret is named.</think> Finished", ("No", False), ("Finished", True)),           # text after </think>
    ("<answer>Finished.</answer>", ("No", False), ("Finished", True)),                             # punctuation kept by L84
    ("<answer>Yes</answer><answer>Finished</answer>", ("Yes", True), ("Finished", True)),          # first tag vs last tag
    ("Finished", ("No", False), ("Finished", True)),                                               # a bare word
])
def test_paper_judge_slips_win_only_when_lenient(raw, strict, lenient):
    for rules, (answer, ok) in [(False, strict), (True, lenient)]:
        g = play(P.get_protocol("paper", lenient=rules), "cat", [("Is it a cat?", raw)])
        assert g["won"] is (answer == "Finished") and g["turns"][0]["parse_ok"] is ok
        assert g["messages"][-1]["content"] == answer


def test_unclosed_thinking_never_answers_in_either_reading():
    for lenient in (False, True):
        g = play(P.get_protocol("paper", lenient=lenient), "cat", [("Is it a cat?", "<think>It is a cat, so finished")])
        t = g["turns"][0]
        assert (g["won"], t["answer"], t["parse_ok"]) == (False, P.unparsed_answer, False)
    assert P.parse_judge_lenient("<think>Cats are animals, so yes") == ("No", False)
    assert P.strip_thinking("<think>half a thought") == ("half a thought", "", False)
    assert P.strip_thinking("<think>done</think> Yes") == ("done", "Yes", True)


def test_replies_that_name_the_answers_give_none():
    "Real SmolLM2 oracle/gamemaster/judge replies that echo the prompt's options: no answer, recorded as unparsed."
    assert P.parse_oracle_lenient('The first yes-no question you\'d like to ask is: "Is it possible to play basketball?"') == ("No", False)
    assert P.parse_gamemaster("You will answer their questions with 'yes', 'no', or 'skip'.") == ("Skip", False)
    assert P.parse_judge_lenient('Given the question, is the correct response "Yes" or "No"?') == ("No", False)
    assert P.parse_oracle_lenient("Yes, no doubt: it is round.") == ("Yes", True)


# --- evals: guesses (eval.py L19, L147-151, L166-175) ------------------------------------------------------------------------

@pytest.mark.parametrize("reply,kind,guess", [
    ("[GUESS cat]", "guess", "cat"),
    ("[GUESS Cat]", "guess", "Cat"),                       # recorded as written; L151 compares lowercased
    ("[guess cat]", "violation", None),                    # L19: GUESS in capitals
    ("[guess cat]?", "question", None),
    ("[GUESS  cat]", "guess", " cat"),                     # exactly one space; the rest is captured
    ("[GUESS cat.]", "guess", "cat."),
    ("[GUESS 'cat']", "guess", "'cat'"),
    ("[GUESS ]", "guess", ""),                             # an empty guess is a guess
    ("Is it a cat? [GUESS dog]", "guess", "dog"),          # L147 before L174: the guess wins over the '?'
    ("[GUESS dog] or [GUESS cat]", "guess", "dog"),        # re.search: the first one
    ("[GUESS\ncat]", "violation", None),                   # '.' does not cross a line
])
def test_evals_reads_a_guess_as_evals_does(reply, kind, guess):
    assert P.evals_classify(reply) == (kind, guess)


def test_evals_wrong_guesses_scripted():
    E = P.get_protocol("evals")
    g = play(E, "cat", [("[GUESS cat.]", None), ("[GUESS ]", None), ("[guess cat]", None), ("Is it a cat? [GUESS Dog]", None),
                        ("[GUESS  cat]", None), ("[GUESS CAT]", None)])
    assert [t["kind"] for t in g["turns"]] == ["guess", "guess", "violation", "guess", "guess", "guess"]
    assert (g["won"], g["n_questions"], g["win_turn"]) == (True, 0, 1)
    told = [m["content"] for m in g["messages"] if m["role"] == "user"]
    assert told[:5] == ["Guess cat. is incorrect. Ask more questions, or make another guess!",    # L170: the guess as captured
                        "Guess  is incorrect. Ask more questions, or make another guess!",
                        P.evals_violation,
                        "Guess Dog is incorrect. Ask more questions, or make another guess!",
                        "Guess  cat is incorrect. Ask more questions, or make another guess!"]


def test_evals_lenient_reading_scripted():
    E = P.get_protocol("evals", lenient=True)
    assert play(E, "cat", [("I say [guess 'Cat'].", None)])["won"]
    g = play(E, "cat", [("[GUESS ]", None), ("[GUESS sofa]", None)], variants=[])
    assert [t["kind"] for t in g["turns"]] == ["violation", "guess"] and not g["won"]
    assert play(E, "couch", [("[GUESS sofa]", None)], variants=["sofa"])["won"]
    assert not play(P.get_protocol("evals"), "couch", [("[GUESS sofa]", None)], variants=["sofa"])["won"]   # L151: the word only


# --- evals: the gamemaster (eval.py L185-189, utils.py L57-69) ----------------------------------------------------------------

def test_evals_gamemaster_sees_the_conversation_and_is_shown_verbatim():
    E = P.get_protocol("evals")
    g = P.new_game(E, "cat")
    E.on_reply(g, "Hmm.")                                          # a violation
    E.on_judge(g, "Yes, it is.") if E.on_reply(g, "Is it alive?") else None
    E.on_reply(g, "[GUESS dog]")
    chat = E.on_reply(g, "Is it a pet?")
    assert [(m["role"], m["content"]) for m in chat[1:]] == [
        ("user", "Hmm."), ("user", P.evals_violation), ("user", "Is it alive?"), ("assistant", "Yes, it is."),
        ("user", "[GUESS dog]"), ("user", "Guess dog is incorrect. Ask more questions, or make another guess!"), ("user", "Is it a pet?")]
    E.on_judge(g, "I'd rather skip that.")
    assert g["messages"][-1]["content"] == "I'd rather skip that."          # L187: the reply as written
    assert (g["turns"][-1]["answer"], g["turns"][-1]["parse_ok"]) == ("Skip", True)


def test_evals_lenient_shows_the_parsed_answer():
    E = P.get_protocol("evals", lenient=True)
    g = play(E, "cat", [("Is it alive?", "Yes, it is."), ("Is it big?", "I'd rather skip that.")])
    assert [m["content"] for m in g["messages"] if m["role"] == "user"] == ["yes", "skip"]


def test_evals_limits():
    proto = P.get_protocol("evals")
    g = P.new_game(proto, "cat")
    for _ in range(40): proto.on_reply(g, "hmm")      # L135-138: 40 replies, no question asked
    assert g["n_questions"] == 0 and P.game_over(proto, g)
    g = play(proto, "cat", [("Is it big?", "no")] * 20)
    assert g["n_questions"] == 20 and P.game_over(proto, g) and not g["won"]


# --- LMRL-Gym: winning (data.py L107-114, env.py L28-29) ---------------------------------------------------------------------

def test_lmrl_wins_only_when_the_oracle_says_yes():
    L = P.get_protocol("lmrl")
    g = play(L, "Apple", [("Is it an apple?", "No."), ("Is it a fruit?", "Yes."), ("Is it a red apple?", "Yes, it is.")])
    assert [t["answer"] for t in g["turns"]] == ["No", "Yes", "Yes"]
    assert (g["won"], g["win_turn"], g["n_questions"]) == (True, 3, 3)
    g = play(L, "Apple", [("Is it a fruit?", "Yes.")] * 20)                 # Yes, but the object is never named
    assert not g["won"] and P.game_over(L, g)


def test_lmrl_final_turn_adds_nothing_to_the_guess():
    L = P.get_protocol("lmrl")
    script = [(f"Is it thing {i}?", "No.") for i in range(1, 20)]
    g = P.new_game(L, "Apple")
    for q, a in script: L.on_reply(g, q); L.on_judge(g, a)
    assert L.questioner_chat(g)[0]["content"].endswith("Is the object")
    chat = L.on_reply(g, "  Is it an apple?\n")                           # env.py L28: stripped, nothing prefixed
    assert chat[0]["content"].endswith("question: Is it an apple?\nanswer (yes or no):")
    L.on_judge(g, "Yes.")
    assert (g["turns"][-1]["question"], g["won"], g["win_turn"]) == ("Is it an apple?", True, 20)
    g2 = P.new_game(L, "Apple")
    for q, a in script: L.on_reply(g2, q); L.on_judge(g2, a)
    L.on_reply(g2, "an apple?"); L.on_judge(g2, "Yes")                     # the prompt's "Is the object" continued
    assert g2["won"]


# --- LMRL-Gym: the noun rule (data.py L351-391) ------------------------------------------------------------------------------

APPLE, PANTS, SOCCER = ("Apple", []), ("Pants", ["Pant", "Pair of pants"]), ("Soccer ball", [])

@pytest.mark.parametrize("question,obj,named", [
    ("Is it an apple?", APPLE, True),
    ("Is it a red apple?", APPLE, True),                    # an adjective is not a noun (L371)
    ("Is it a big, juicy apple?", APPLE, True),
    ("Is it a kind of apple?", APPLE, True),                # 'kind' is ignored (L362)
    ("Is it the color of an apple?", APPLE, True),          # a noun before 'of' is a counter word (L373-374)
    ("Is the object an apple?", APPLE, True),               # 'object' is ignored (L362)
    ("Does it look like an apple?", APPLE, True),           # 'look' is a verb here
    ("Are they apples?", APPLE, False),                     # 'apples' is a noun and not a word of 'Apple'
    ("Are they pants?", PANTS, True),                       # 'pants' is one of the names
    ("Is it a pair of pants?", PANTS, True),
    ("Is it a fruit like an apple?", APPLE, False),         # another noun (L375-376)
    ("Is it an apple or a pear?", APPLE, False),
    ("Is it an apple tree?", APPLE, False),                 # does not end with the name (L379-389)
    ("Is it a ball?", SOCCER, False),
    ("Is it a black and white soccer ball?", SOCCER, True),
    ("Is it an apple?!.", APPLE, True),                     # trailing non-letters cut (L353-354)
    ("?", APPLE, False),
])
def test_lmrl_noun_rule(question, obj, named):
    assert P.lmrl_is_done(question, *obj) is named


# --- LMRL-Gym: the oracle's answer (oracle.py L42, L70-76) -------------------------------------------------------------------

@pytest.mark.parametrize("raw,strict,lenient", [
    ("Yes.", ("Yes", True), ("Yes", True)),
    ("  NO, it is not.", ("No", True), ("No", True)),
    ("Nope", ("No", True), ("No", False)),                  # re.match('(yes|no)') reads 'no' from 'nope'
    ("Yesterday", ("Yes", True), ("No", False)),
    ("The answer is yes.", ("No", False), ("Yes", True)),    # not at the start: 'No.' (L75-76)
    ("answer: No. explanation: ...", ("No", False), ("No", True)),
    ("", ("No", False), ("No", False)),
])
def test_lmrl_oracle_answer(raw, strict, lenient):
    assert P.parse_oracle(raw) == strict and P.parse_oracle_lenient(raw) == lenient


def test_lmrl_oracle_answer_decides_the_win_scripted():
    for rules, won in [(False, False), (True, True)]:
        g = play(P.get_protocol("lmrl", lenient=rules), "Apple", [("Is it an apple?", "I think the answer is yes.")])
        assert g["won"] is won

# ---- cia: bethgelab/delta-belief-rl (ΔBelief-RL), at the commit the protocols notebook names ----
def cia_game(secret, script, max_questions=20):
    "A cia game played through the protocol objects: `script` is [(questioner reply, judge reply)], stopping when the game is over."
    C = replace(P.get_protocol("cia"), max_questions=max_questions)
    g = P.new_game(C, secret)
    for reply, raw in script:
        if P.game_over(C, g): break
        C.on_judge(g, raw) if C.on_reply(g, reply) else None
    return C, g

def said(word): return f"Brief reasoning.\n<answer>{word}</answer>"

@pytest.mark.parametrize("word", ["Yes", "No", "Invalid", "Repeated"])
def test_cia_each_answer_word_reaches_the_questioner_as_the_code_shows_it(word):
    "generation.py L616-633 keeps the judge's first word; L681-693 shows the questioner yes, no, INVALID_ANSWER or REPEATED_ANSWER (prompts.py L7-8)."
    _, g = cia_game("apple", [("Is it alive?", said(word))])
    t = g["turns"][0]
    assert (t["judge_answer"], t["answer"], t["parse_ok"], t["judge_raw"]) == (word, word, True, said(word))
    shown = {"Yes": "yes", "No": "no", "Invalid": P.cia_invalid_answer, "Repeated": P.cia_repeated_answer}[word]
    assert g["messages"][-1] == {"role": "user", "content": shown} and not g["won"]

def test_cia_finished_ends_the_game_won():
    "A (corrected) Finished ends the game, won (generation.py L633, L1703-1705); the questioner sees 'finished'."
    C, g = cia_game("apple", [("Is it a fruit?", said("Yes")), ("Is it an apple?", said("Finished")), ("Never asked?", said("No"))])
    assert (g["won"], g["win_turn"], g["n_questions"], g["turns"][-1]["answer"], g["messages"][-1]["content"]) == (True, 2, 2, "Finished", "finished")
    assert P.game_over(C, g)

def test_cia_naming_the_secret_is_finished_whatever_the_judge_said():
    "syntax.py `exact` (L281-285): the question names the secret, so Finished though the judge said No (correct_obs L315-338)."
    _, g = cia_game("apple", [("Is it 'APPLE'?", said("No"))])
    assert (g["won"], g["turns"][0]["judge_answer"], g["turns"][0]["answer"], g["turns"][0]["correction"]) == (True, "No", "Finished", ["named_secret"])

def test_cia_judges_false_finished_becomes_yes():
    "false_positive_behavior='yes' (eval script L35-36; correct_obs L315-338): a Finished for a question not naming the secret is Yes."
    _, g = cia_game("apple", [("Is it a pineapple?", said("Finished")), ("Is it apples?", said("Finished"))])
    assert [t["answer"] for t in g["turns"]] == ["Yes", "Yes"] and not g["won"]
    assert g["turns"][0]["correction"] == ["false_positive"] and g["messages"][-1]["content"] == "yes"

@pytest.mark.parametrize("reply, why", [
    ("I think it is alive", ["no_question"]),                                # `question`, syntax.py L231-238
    ("Is it a fruit? Is it red?", ["multiple_questions"]),                   # `multiple_questions`, L240-248
    ("Is it " + "very " * 100 + "big?", ["too_long_action"]),               # `length`, L215-229: over 500 characters
    ("?", ["too_short_action"]),                                             # `length`: under 2 characters
    ("Is it\nalive?", ["invalid_chars"]),                                    # `sentence`, L250-257 (compiled_constants.py L3)
    ("Is it an apple? Or a pear?", ["multiple_questions"]),                  # naming the secret does not save an invalid question
])
def test_cia_code_checks_make_a_question_invalid(reply, why):
    "Whatever the judge said (here Yes or Finished), a reply that fails a code check is Invalid, takes its turn, and gets INVALID_ANSWER."
    for judge in ("Yes", "Finished"):
        _, g = cia_game("apple", [(reply, said(judge))])
        t = g["turns"][0]
        assert (t["answer"], t["correction"], g["n_questions"], g["won"]) == ("Invalid", why, 1, False)
        assert g["messages"][-1]["content"] == P.cia_invalid_answer

def test_cia_unreadable_judge_reply_is_invalid():
    "generation.py L616-633: no <answer> tag, or a word outside yes/no/repeated/invalid/finished, reads invalid."
    _, g = cia_game("apple", [("Is it alive?", "Yes"), ("Is it big?", said("Yes.")), ("Is it red?", said("Maybe"))])
    assert [(t["judge_answer"], t["answer"], t["parse_ok"]) for t in g["turns"]] == [("Invalid", "Invalid", False)] * 3

def test_cia_invalid_and_repeated_turns_use_up_the_questions():
    "Every reply takes one of the turns (generation.py L1165): 20 invalid or repeated replies end the game, lost."
    C, g = cia_game("apple", [("no question", said("No")), ("Is it alive?", said("Repeated"))] * 15)
    assert (g["n_questions"], len(g["turns"]), g["won"], P.game_over(C, g)) == (20, 20, False, True)
    assert {t["answer"] for t in g["turns"]} == {"Invalid", "Repeated"}

def test_cia_judge_sees_every_earlier_question():
    "prompts.py L479-480: the earlier questions (invalid ones too, newlines removed) joined by '; ', no answers; generation.py L474-490."
    C = P.get_protocol("cia"); g = P.new_game(C, "apple")
    C.on_judge(g, said("No")) if C.on_reply(g, "no question") else None
    C.on_judge(g, said("Yes")) if C.on_reply(g, "Is it\nalive?") else None
    judge = C.on_reply(g, "Is it a fruit?")
    assert judge[0]["content"] == P.cia_judge_system
    assert "History of questions asked: 'no question; Is italive?'\nQuestion: 'Is it a fruit?'" in judge[1]["content"]
