"Each protocol's prompts against the published text, and judge parsing on real and malformed replies."
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
    assert short == EVALS_TASK.replace("should try to guess. ", "should try to guess. The noun is in this list: dog, cat.\n")
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

def test_judge_parsing_malformed():
    assert P.parse_judge("<think>It is an animal.</think><answer>Yes</answer>") == ("Yes", True)
    assert P.parse_judge("<think>cut off mid-thought because max tok") == ("No", False)
    assert P.parse_judge("<answer>Maybe</answer>") == ("No", False)
    assert P.parse_judge("It is not clear: yes, or maybe no.") == ("No", False)
    assert P.parse_judge("<think>yes?</think>The answer is \"Finished\".") == ("Finished", True)
    assert P.parse_judge(None) == ("No", False)
    assert P.parse_judge("<ANSWER> finished </ANSWER>") == ("Finished", True)
    assert P.parse_gamemaster("I'd rather skip that one.") == ("Skip", True)
    assert P.parse_oracle("answer: No. explanation: ...") == ("No", True)

def test_replies_that_name_the_answers_give_none():
    "Real SmolLM2 oracle/gamemaster replies that echo the prompt's options: no answer, recorded as unparsed."
    assert P.parse_oracle('The first yes-no question you\'d like to ask is: "Is it possible to play basketball?"') == ("No", False)
    assert P.parse_gamemaster("You will answer their questions with 'yes', 'no', or 'skip'.") == ("Skip", False)
    assert P.parse_judge('Given the question, is the correct response "Yes" or "No"?') == ("No", False)
    assert P.parse_oracle("Yes, no doubt: it is round.") == ("Yes", True)

def test_unparsed_reply_is_recorded_not_hidden():
    proto = P.get_protocol("paper")
    g = P.new_game(proto, "cat")
    proto.on_reply(g, "Is it alive?"); proto.on_judge(g, "I am not sure what you mean")
    t = g["turns"][-1]
    assert (t["answer"], t["parse_ok"], t["judge_raw"]) == (P.unparsed_answer, False, "I am not sure what you mean")
    assert g["messages"][-1] == {"role": "user", "content": P.unparsed_answer}

def test_evals_reply_limit_and_questions_limit():
    proto = P.get_protocol("evals")
    g = P.new_game(proto, "cat")
    for _ in range(40): proto.on_reply(g, "hmm")      # 40 violations: no question asked, but out of replies
    assert g["n_questions"] == 0 and P.game_over(proto, g)
