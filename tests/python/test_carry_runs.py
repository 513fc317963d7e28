"""A run longer than a session goes on on the next machine from its carried archive (bench/bundles/carry_runs.py): a
run paused at epoch 2, saved, restored into another folder against another copy of its dataset and resumed there ends
with the same metrics and the same PE bytes as the run trained straight through; a finished run comes back as
finished; a folder that exists is never overwritten; an archive holding a path outside the run is refused.
Usage: test_carry_runs.py LOCI_BIN WORKDIR (run by ctest; exits non-zero on the first failure)."""
import csv
import io
import os
import shutil
import tarfile

import h5py
import numpy as np

from harness import ROOT, arguments, loci_command, script_command

loci_bin, work = arguments()
loci = loci_command(loci_bin)
python = script_command(os.path.join(ROOT, "bench", "bundles", "carry_runs.py"))


def config(data, out):
    path = os.path.join(work, "t.yaml")
    with open(path, "w") as f:
        f.write(f"trainer: torch_trainer\ndata: {data}\nout: {out}\nmodel: {{d_model: 8, blocks: 1}}\n"
                "train: {epochs: 4, eval_every: 1, batch_size: 32, threads: 1, progress: false, lr: 0.01}\n")
    return path


def metrics(run, clock=False):
    """metrics.csv, without its wall-clock column unless asked for."""
    with open(os.path.join(run, "metrics.csv")) as f:
        return [{k: v for k, v in row.items() if clock or k != "seconds"} for row in csv.DictReader(f)]


def pe_table(run):
    with h5py.File(os.path.join(run, "pe.h5"), "r") as f:
        return {k: f[k][:] for k in f if k.startswith("placement_")}


data = os.path.join(work, "data")
loci("generate", "-q", os.path.join(ROOT, "configs", "lst.yaml"), f"out={data}", "splits.train=64", "splits.test=16")
straight = os.path.join(work, "straight", "run")
loci("train", "-q", config(data, straight))

# The first machine: one run paused at epoch 2, one finished.
runs = os.path.join(work, "first", "runs")
paused, finished = os.path.join(runs, "paused"), os.path.join(runs, "finished")
loci("train", "-q", config(data, paused), "--until-epoch", "2")
loci("train", "-q", config(data, finished))
assert not os.path.exists(os.path.join(paused, "summary.json"))
carry = os.path.join(work, "carry")
out = python("save", runs, carry)
assert "paused (in progress)" in out.stdout and "finished (finished)" in out.stdout, out.stdout
assert sorted(os.listdir(carry)) == ["finished.tar.gz", "paused.tar.gz"], os.listdir(carry)
with tarfile.open(os.path.join(carry, "paused.tar.gz")) as tar:
    names = tar.getnames()
assert "checkpoints/last.pt" in names and not any(n.endswith(".loci-lock") for n in names), names
# Saved again without a change, the archives keep their bytes (nothing new to commit).
before = {n: open(os.path.join(carry, n), "rb").read() for n in os.listdir(carry)}
out = python("save", runs, carry)
assert out.stdout.count("unchanged") == 2, out.stdout
assert before == {n: open(os.path.join(carry, n), "rb").read() for n in os.listdir(carry)}

# The next machine: its own copy of the dataset, another runs folder.
data2 = os.path.join(work, "data2")
shutil.copytree(data, data2)
runs2 = os.path.join(work, "second", "runs")
python("restore", carry, runs2, "--data", data2)
resumed = os.path.join(runs2, "paused")
with open(os.path.join(resumed, "config.yaml")) as f:
    text = f.read()
assert f'out: "{os.path.abspath(resumed)}"' in text and f'data: "{data2}"' in text, text
loci("train", "-q", os.path.join(resumed, "config.yaml"), "--resume")
assert metrics(resumed) == metrics(straight), "the carried run's metrics differ from the run trained straight through"
# Its first two epochs were carried, not trained again: their rows keep the first machine's clock.
first_two = metrics(paused, clock=True)
assert len(first_two) == 6 and metrics(resumed, clock=True)[:6] == first_two, "the carried epochs were trained again"
a, b = pe_table(resumed), pe_table(straight)
assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a), "the carried run's PE differs"
assert os.path.exists(os.path.join(runs2, "finished", "summary.json"))

# A folder that exists is this machine's own: kept, never overwritten.
marker = os.path.join(resumed, "summary.json")
kept = open(marker).read()
out = python("restore", carry, runs2, "--data", data2)
assert out.stdout.count("kept as it is") == 2 and open(marker).read() == kept, out.stdout

# An archive reaching outside its run is refused, and nothing is unpacked.
evil = os.path.join(work, "evil")
os.makedirs(evil)
with tarfile.open(os.path.join(evil, "x.tar.gz"), "w:gz") as tar:
    info = tarfile.TarInfo("../outside.txt")
    info.size = 2
    tar.addfile(info, io.BytesIO(b"hi"))
out = python("restore", evil, os.path.join(work, "third"), "--data", data2, ok=False)
assert out.returncode == 1 and "not a plain file inside the run" in out.stderr, out.stderr
assert not os.path.exists(os.path.join(work, "outside.txt")) and not os.path.exists(os.path.join(work, "third", "x"))
# A truncated archive (a lost machine mid-save, a cut download) is refused in one line, and leaves no half run.
cut = os.path.join(work, "cut")
os.makedirs(cut)
with open(os.path.join(carry, "paused.tar.gz"), "rb") as f:
    whole = f.read()
with open(os.path.join(cut, "paused.tar.gz"), "wb") as f:
    f.write(whole[: len(whole) // 2])
fourth = os.path.join(work, "fourth")
out = python("restore", cut, fourth, "--data", data2, ok=False)
assert out.returncode == 1 and "not a readable archive" in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr
assert not os.path.exists(os.path.join(fourth, "paused")) and not os.path.exists(os.path.join(fourth, "paused.restoring"))
print("carry_runs: ok")
