"""vLLM on a CPU, started as vLLM starts by default (an API server, an engine-core process and a worker process, each importing
torch and vLLM anew) against all in one process (VLLM_ENABLE_V1_MULTIPROCESSING=0, --distributed-executor-backend uni): seconds
until the server answers, and the wall time of a batch of greedy chats sent at once (the same replies in both, said in the table).

Run: .venv/bin/python benchmarks/bench_vllm_start.py [--repeats 3] [--chats 32] [--tokens 64]   (needs .venv-vllm: make vllm)
The arms alternate (default, one process, default, ...), one server at a time; run it on an otherwise idle machine."""
import argparse, os, time
import pandas as pd
from twentyq.engines.vllm_server import VLLMServer
from twentyq.engines.openai_compat import OpenAIBackend
from twentyq.engines.hf import Sampling

arms = {"vLLM's default: 3 processes": ("1", "mp"), "one process": ("0", "uni")}

def run_arm(name, chats, tokens):
    "Seconds to start, seconds for the chats, and the replies, on a fresh server of arm `name`."
    multi, executor = arms[name]
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = multi   # the server's environment is this process's
    t = time.time(); srv = VLLMServer("smollm2-135m", extra=["--distributed-executor-backend", executor], lora_rank=8).start()
    start = time.time() - t
    try:
        be = OpenAIBackend("smollm2-135m", srv.base_url)
        t = time.time(); replies = be.generate(chats, Sampling(temperature=0.0, max_new_tokens=tokens)); secs = time.time() - t
    finally: srv.stop()
    return start, secs, replies

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=3); p.add_argument("--chats", type=int, default=32); p.add_argument("--tokens", type=int, default=64)
    a = p.parse_args()
    chats = [[{"role": "user", "content": f"Tell me about the number {i}."}] for i in range(a.chats)]
    rows, first = [], None
    for r in range(a.repeats):
        for name in arms:
            start, secs, replies = run_arm(name, chats, a.tokens)
            first = first or replies
            rows.append(dict(arm=name, repeat=r, start_s=round(start, 1), chats_s=round(secs, 1), same_replies=replies == first))
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    print(df.groupby("arm", sort=False).agg(start_s=("start_s", "median"), chats_s=("chats_s", "median"),
                                            same_replies=("same_replies", "all"), n=("repeat", "count")).to_string())
