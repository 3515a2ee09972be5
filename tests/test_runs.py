"""Run folders under real failures: a writer killed with SIGKILL in the middle of a line, then resumed twice; two processes on one
folder; and the CLI's one-line errors for what a user can get wrong."""
import os, signal, subprocess, sys
import pytest
from twentyq.runs import read_run
from conftest import twentyq

WRITER = """
import sys
from pathlib import Path
from twentyq.runs import hold_run, open_run, append_jsonl, new_record
folder, n = sys.argv[1], int(sys.argv[2])
with hold_run(folder):
    done = {r["game_id"] for r in open_run(folder, {"test": "torn writes"})}
    for i in range(n):
        g = new_record(f"w{i:02d}", questioner="writer")
        if g["game_id"] in done: continue
        g["pad"] = "x" * (24 << 20)     # a 24 MB line: the kernel copies it page by page, so a kill can land inside it
        append_jsonl(Path(folder)/"games.jsonl", g)
"""
N = 5

def writer(folder):
    return subprocess.Popen([sys.executable, "-c", WRITER, str(folder), str(N)], stderr=subprocess.PIPE, text=True)

def ends_torn(f):
    "Whether `f` ends in a partial line (read at one instant)."
    with open(f, "rb") as h:
        size = h.seek(0, os.SEEK_END)
        if not size: return False
        h.seek(size - 1); return h.read(1) != b"\n"

def kill_mid_line(folder, tries=40):
    "Start the writer, SIGKILL it the moment games.jsonl ends in a partial line; retry (each retry is a resume) until a kill leaves one."
    f = folder/"games.jsonl"
    for _ in range(tries):
        p = writer(folder)
        while p.poll() is None:
            if f.exists() and ends_torn(f): p.send_signal(signal.SIGKILL); break
        p.wait()
        if f.exists() and ends_torn(f): return p.returncode
    pytest.fail(f"no kill landed mid-line in {tries} tries")

def test_killed_mid_line_then_two_resumes(tmp_path):
    folder = tmp_path/"run"
    assert kill_mid_line(folder) == -signal.SIGKILL
    assert ends_torn(folder/"games.jsonl")
    finished = [r["game_id"] for r in read_run(folder)]          # reading skips the torn tail
    errs = []
    for _ in range(2):                                           # two resumes in a row
        p = writer(folder); _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        errs.append(err)
    assert "cut a torn last line" in errs[0] and not errs[1]     # said by the first resume, which cut it
    games = read_run(folder)
    ids = [g["game_id"] for g in games]
    assert ids[:len(finished)] == finished                       # nothing finished before the kill was lost
    assert sorted(ids) == [f"w{i:02d}#0" for i in range(N)]      # every game once: none lost, none duplicated
    side = sorted(folder.glob("games.jsonl.torn-*"))
    assert len(side) == 1 and side[0].read_bytes().startswith(b'{"game_id": "w')   # the cut bytes, kept for inspection

def test_one_writer_per_folder(tmp_path):
    folder = tmp_path/"run"
    holder = subprocess.Popen([sys.executable, "-c", f"from twentyq.runs import hold_run\nimport time\nwith hold_run({str(folder)!r}):\n"
                               "    print('held', flush=True); time.sleep(120)"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    r = subprocess.run(twentyq("play", "--limit", "1", "--out", folder), capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"twentyq: error: run folder {folder} is being written by pid {holder.pid} (-c)")
    holder.send_signal(signal.SIGKILL); holder.wait()
    r = subprocess.run([sys.executable, "-c", f"from twentyq.runs import hold_run\nwith hold_run({str(folder)!r}): print('free')"],
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "free", r.stderr                  # the kernel freed the lock of the killed holder

def cli(*argv):
    return subprocess.run(twentyq(*argv), capture_output=True, text=True, timeout=300)

@pytest.mark.parametrize("argv, message", [
    (["play", "--secrets", "{tmp}/empty.txt", "--out", "{tmp}/r"], "no secrets in {tmp}/empty.txt"),
    (["play", "--secrets", "{tmp}/missing.txt", "--out", "{tmp}/r"], "no word list '{tmp}/missing.txt'"),
    (["play", "--questioner", "no-such-model", "--limit", "1", "--out", "{tmp}/r"], "Could not load model 'no-such-model'"),
    (["score", "--run", "{tmp}/bad"], "game 'x#0' ({tmp}/bad/games.jsonl record 1): missing field(s) ['secret']"),
    (["score", "--run", "{tmp}/missing"], "{tmp}/missing does not exist"),
    (["reproduce", "--out", "{tmp}/rep", "--scale", "huge"], "unknown scale 'huge'"),
])
def test_cli_errors_are_one_line(tmp_path, argv, message):
    (tmp_path/"empty.txt").write_text("\n")
    (tmp_path/"bad").mkdir(); (tmp_path/"bad"/"games.jsonl").write_text('{"game_id": "x#0", "turns": []}\n')
    r = cli(*[a.format(tmp=tmp_path) for a in argv])
    assert r.returncode == 2 and r.stderr.startswith("twentyq: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert message.format(tmp=tmp_path) in r.stderr
    assert "Traceback" not in r.stderr
    r = cli(*[a.format(tmp=tmp_path) for a in argv], "--debug")
    assert "Traceback" in r.stderr
