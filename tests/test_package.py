"""The package as pip installs it: `python -m build` makes the sdist, and the wheel from it, out of a clean clone of this
tree; each goes into a fresh virtual environment (no site packages); there twentyq imports, names its distribution
(twentyq-beliefs: PyPI's `twentyq` is another project) and finds its data.

Both builds and both installs use no network. The build backend is this environment's setuptools (`--no-isolation`; the
sdist's install borrows it through PYTHONPATH, for the build step only). The fresh environments get twentyq alone
(`--no-deps`): its dependencies (torch …) would take minutes to install. `import twentyq` needs none of them; the light
modules' imports (numpy, pandas, fastcore) are borrowed from this environment, its site-packages put last on `sys.path`,
so twentyq itself always comes from the fresh environment. The wheel's declared dependencies are checked against
pyproject.toml instead."""
import email, os, re, subprocess, sys, sysconfig, tarfile, tomllib, venv, zipfile
from pathlib import Path
import pytest
from packaging.requirements import Requirement
from conftest import ROOT, clean_clone

DIST = "twentyq-beliefs"   # the distribution's name; the import name is twentyq
HERE_SITE = sysconfig.get_paths()["purelib"]   # this environment's site-packages: the deps and build backend borrowed
LIGHT = ["twentyq.core", "twentyq.wordlists", "twentyq.games.twenty_questions.knowledge", "twentyq.metrics", "twentyq.games"]   # no torch

def source_files(clone:Path) -> list[str]:
    "The clone's files that the package must hold, relative to it: every twentyq/**.py and twentyq_env/*.py, and data/*."
    files = subprocess.run(["git", "ls-files"], cwd=clone, check=True, capture_output=True, text=True).stdout.split()
    return [f for f in files if re.fullmatch(r"twentyq(_env)?/.+\.py|data/[^/]+", f)]

def in_wheel(f:str) -> str:
    "Where source file `f` lies in the wheel: the data/ folder as the package's twentyq/data/."
    return "twentyq/" + f if f.startswith("data/") else f

def build(src:Path, out:Path, *args) -> list[Path]:
    "`python -m build` of `src` into `out` with this environment's setuptools (no network): the files it made."
    r = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "-o", str(out), *args, str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return sorted(out.iterdir())

@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    """The sdist and the wheel built from it (what `pip install` of the sdist installs), the wheel built straight from
    the tree, and the clone's files the package must hold."""
    tmp = tmp_path_factory.mktemp("package")
    clone = clean_clone(tmp/"clone")
    made = build(clone, tmp/"dist")   # no --sdist/--wheel: the sdist, then the wheel from the unpacked sdist
    sdist, wheel = (next(p for p in made if p.name.endswith(ext)) for ext in (".tar.gz", ".whl"))
    direct, = build(clone, tmp/"direct", "--wheel")
    return dict(sdist=sdist, wheel=wheel, direct=direct, files=source_files(clone),
                version=re.search(r'__version__ = "(.+)"', (clone/"twentyq"/"__init__.py").read_text())[1])

def wheel_names(whl:Path) -> set[str]: return set(zipfile.ZipFile(whl).namelist())

def wheel_meta(whl:Path, name:str) -> str:
    "The text of file `name` of the wheel's .dist-info folder."
    z = zipfile.ZipFile(whl)
    return z.read(next(n for n in z.namelist() if n.endswith(f".dist-info/{name}"))).decode()

def test_wheel_holds_code_data_and_metadata(dists):
    "Every module and data file, the distribution's name and version, pyproject.toml's dependencies, the entry points."
    whl = dists["wheel"]
    assert whl.name == f"twentyq_beliefs-{dists['version']}-py3-none-any.whl"
    assert [f for f in dists["files"] if in_wheel(f) not in wheel_names(whl)] == []
    assert any(f.startswith("data/nouns") for f in dists["files"]) and any(f.endswith("cli.py") for f in dists["files"])
    meta = email.message_from_string(wheel_meta(whl, "METADATA"))
    assert (meta["Name"], meta["Version"]) == (DIST, dists["version"])
    declared = tomllib.loads((ROOT/"pyproject.toml").read_text())["project"]["dependencies"]
    requires = [Requirement(r) for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    assert sorted(map(str, requires)) == sorted(str(Requirement(d)) for d in declared)
    eps = wheel_meta(whl, "entry_points.txt")
    for line in ["twentyq = twentyq.cli:main", "twentyq = twentyq.inspect_task", "twentyq = twentyq._modidx:d"]:
        assert line in eps, line

def test_sdist_holds_the_source(dists):
    "The sdist holds the project's files (its wheel is the wheel of the tree, file for file) and README.md."
    sd = dists["sdist"]
    assert sd.name == f"twentyq_beliefs-{dists['version']}.tar.gz"
    top = f"twentyq_beliefs-{dists['version']}/"
    names = {n.removeprefix(top) for n in tarfile.open(sd).getnames()}
    assert [f for f in [*dists["files"], "pyproject.toml", "README.md"] if f not in names] == []
    record = lambda whl: {n for n in wheel_names(whl) if not n.endswith("RECORD")}
    assert record(dists["wheel"]) == record(dists["direct"])

def fresh_env(path:Path, target:Path) -> Path:
    """A new virtual environment at `path` (no site packages, no pip) with `target` (a wheel or an sdist) installed
    alone by this environment's pip, offline: its python."""
    venv.EnvBuilder(with_pip=False).create(path)
    python = path/"bin"/"python"
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                        "--no-build-isolation", str(target)],   # an sdist: built by this environment's setuptools
                       env=os.environ | {"PYTHONPATH": HERE_SITE}, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return python

def run_in(python:Path, code:str) -> str:
    "`code` run by `python` isolated (-I: no PYTHONPATH, no user site, no current folder): its standard output."
    r = subprocess.run([str(python), "-I", "-c", code], capture_output=True, text=True, cwd=python.parent)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout

@pytest.fixture(scope="module")
def installed(dists, tmp_path_factory):
    "A fresh environment's python per kind (wheel, sdist), that kind installed there."
    return {kind: fresh_env(tmp_path_factory.mktemp(kind)/"env", dists[kind]) for kind in ["wheel", "sdist"]}

@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installs_into_a_fresh_env(installed, dists, kind):
    """In the fresh environment `import twentyq` needs no dependency, the distribution is twentyq-beliefs, the `twentyq`
    command is there, the data ships inside the package, and the light modules import from it."""
    python = installed[kind]
    env, site = python.parent.parent, run_in(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    out = run_in(python, f"""
import importlib.metadata as m, importlib.resources as r, twentyq
d = m.distribution({DIST!r})
extras = sorted(d.metadata.get_all('Provides-Extra'))
print(twentyq.__file__, twentyq.__version__, d.metadata['Name'], d.version, *extras)
print((r.files('twentyq')/'data'/'nouns_test.txt').read_text().split()[0])""").split("\n")
    assert out[0].split() == [f"{site}/twentyq/__init__.py", dists["version"], DIST, dists["version"],
                              "dev", "inspect", "report", "train", "verifiers"]
    assert out[1] == (ROOT/"data"/"nouns_test.txt").read_text().split()[0]
    assert (env/"bin"/"twentyq").is_file()
    out = run_in(python, f"""
import sys; sys.path.append({HERE_SITE!r})   # the light modules' dependencies, after the fresh environment's own
import importlib
print(*[importlib.import_module(m).__file__ for m in {LIGHT!r}], 'torch' in sys.modules)""").split()
    assert [p.startswith(site + "/twentyq/") for p in out[:-1]] == [True]*len(LIGHT) and out[-1] == "False"

def test_installed_package_reads_its_data(installed):
    "The installed package reads its own word lists and WordNet knowledge."
    out = run_in(installed["wheel"], f"""
import sys; sys.path.append({HERE_SITE!r})
from twentyq.wordlists import load_secrets
from twentyq.games.twenty_questions.knowledge import load_knowledge
print(len(load_secrets('nouns_test')), len(load_knowledge()['synsets']) > 0)""").split()
    assert int(out[0]) > 0 and out[1] == "True"
