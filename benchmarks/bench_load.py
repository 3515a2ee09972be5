"""Model load times: the first load of each embedded model (GGUF conversion) and the cached load, each in a fresh process.

Run: .venv/bin/python benchmarks/bench_load.py   (prints a table; the cached load must be under 5 s)"""
import os, subprocess, sys, tempfile, time
from twentyq.engines.models import embedded_models

def load_seconds(name, cache):
    "Wall time of load_model(name) inside a fresh Python process (import time excluded)."
    code = ("import time; t=time.time(); from twentyq.engines.models import load_model; import transformers, torch; t=time.time(); "
            f"load_model({name!r}, device='cpu'); print(time.time()-t)")
    env = {**os.environ, "TWENTYQ_CACHE": cache, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])

if __name__ == "__main__":
    rows = []
    for name in embedded_models:
        with tempfile.TemporaryDirectory() as cache:
            first = load_seconds(name, cache)
            cached = load_seconds(name, cache)
        rows.append((name, first, cached))
    print(f"{'model':<16}{'first load (s)':>16}{'cached load (s)':>17}{'< 5 s':>7}")
    for name, first, cached in rows: print(f"{name:<16}{first:>16.1f}{cached:>17.2f}{'yes' if cached < 5 else 'NO':>7}")
