"Loading the embedded models, the converted-model cache, and the errors of `load_model`."
import json, os, subprocess, sys
from pathlib import Path
import pytest, torch
from twentyq.models import load_model, converted_path, gguf_path, ModelLoadError, embedded_models
from twentyq.players import get_backend
from twentyq.sampling import Sampling

@pytest.mark.parametrize("name", list(embedded_models))
def test_embedded_model_loads_and_replies(name):
    be = get_backend(name, device="cpu")
    assert be.model.dtype == torch.float32 and be.model.twentyq_name == name
    reply, = be.generate([[{"role": "user", "content": "What is the capital of France?"}]], Sampling(max_new_tokens=16))
    assert isinstance(reply, str) and reply.strip()
    assert be.tok.chat_template, "every embedded model has a chat template"

def _load_in_subprocess(name, cache):
    "Load `name` in a fresh process with TWENTYQ_CACHE=cache; return what it reports."
    code = ("import json; from twentyq.models import load_model; m, t = load_model(%r, device='cpu'); "
            "print(json.dumps([m.twentyq_source, m.config._name_or_path]))" % name)
    env = {**os.environ, "TWENTYQ_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])

def test_converted_cache_is_written_then_used(tmp_path, monkeypatch):
    first = _load_in_subprocess("smollm2-135m", tmp_path)
    assert first[0] == "gguf"
    with monkeypatch.context() as m:
        m.setenv("TWENTYQ_CACHE", str(tmp_path))
        dest = converted_path("smollm2-135m")
    assert dest.parent.parent == tmp_path
    for f in ["config.json", "model.safetensors", "tokenizer.json", "twentyq.json"]: assert (dest/f).exists(), f
    assert not list(dest.parent.glob("*.tmp*")), "no temporary folder is left behind"
    second = _load_in_subprocess("smollm2-135m", tmp_path)
    assert second == ["cache", str(dest)]

def test_cached_model_equals_gguf_weights():
    "The cached float model gives the logits the GGUF model gives."
    from transformers import AutoModelForCausalLM
    p = gguf_path("smollm2-135m")
    ref = AutoModelForCausalLM.from_pretrained(str(p.parent), gguf_file=p.name, dtype=torch.float32)
    model, tok = load_model("smollm2-135m", device="cpu")
    ids = tok("The secret word is", return_tensors="pt").input_ids
    with torch.no_grad(): assert torch.allclose(ref(ids).logits, model(ids).logits, atol=1e-3)

def test_unknown_name_is_a_clear_error():
    with pytest.raises(ModelLoadError, match="no-such-model-xyz.*not an embedded model"): load_model("no-such-model-xyz")

def test_missing_local_file_is_a_clear_error(tmp_path):
    with pytest.raises(ModelLoadError, match="no such local folder"): load_model(str(tmp_path/"absent"/"model.gguf"))

def test_local_folder_loads(tmp_path):
    "A local folder (here: the converted cache of an embedded model) loads as a plain transformers model."
    model, _ = load_model(str(converted_path("smollm2-135m")), device="cpu")
    assert model.twentyq_source == "local"

def test_missing_embedded_package_is_a_clear_error(monkeypatch):
    from twentyq import models
    monkeypatch.setitem(models.embedded_models, "ghost", models.Embedded("no_such_pkg_xyz", "pip install no-such-pkg-xyz", gguf="x.gguf"))
    with pytest.raises(ModelLoadError, match="ghost.*no_such_pkg_xyz.*pip install no-such-pkg-xyz"): load_model("ghost")
