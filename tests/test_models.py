"The converted-model cache across processes: written by the first load in a fresh cache, then used by the next."
import json, os, subprocess, sys
from twentyq.engines.models import converted_path

def _load_in_subprocess(name, cache):
    "Load `name` in a fresh process with TWENTYQ_CACHE=cache; return what it reports."
    code = ("import json; from twentyq.engines.models import load_model; m, t = load_model(%r, device='cpu'); "
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
