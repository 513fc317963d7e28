"""Values in a shard that the dataset's own declarations rule out are refused by name: a label, target cell or
condition out of range, non-finite positions, positions that differ between shards. Sizes past the machine (a
model too big to train) are a named user error too, and a batch larger than the split is simply the whole split.
Every refusal is one `loci: error:` line and exit 1. Usage: test_bad_shard_values.py LOCI_BIN WORKDIR."""
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys

import h5py
import numpy as np

loci_bin, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
configs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs")
clean = os.path.join(work, "clean")
subprocess.run([loci_bin, "generate", "-q", os.path.join(configs, "lst.yaml"), f"out={clean}", "splits.train=64",
                "splits.test=16", "samples_per_shard=32"], check=True)
SHARD = "train-00001-of-00002.h5"
SMALL = ["train.epochs=1", "train.batch_size=16", "model.d_model=8", "model.blocks=1", "train.threads=1"]


def changed(name, change, shards=(SHARD,)):
    """A copy of the dataset whose `shards` `change(h5py.File)` altered, index checksums rewritten to match."""
    folder = os.path.join(work, name)
    shutil.copytree(clean, folder)
    index_path = os.path.join(folder, "index.json")
    index = json.load(open(index_path))
    for s in index["shards"]:
        if s["file"] in shards:
            path = os.path.join(folder, s["file"])
            with h5py.File(path, "r+") as f:
                change(f)
            s["bytes"] = os.path.getsize(path)
            s["sha256"] = hashlib.sha256(open(path, "rb").read()).hexdigest()
    json.dump(index, open(index_path, "w"))
    return folder


def train(data, *extra, name=None):
    out = os.path.join(work, "run-" + (name or os.path.basename(data)))
    return subprocess.run([loci_bin, "train", "-q", os.path.join(configs, "lst_train.yaml"), f"data={data}",
                           f"out={out}", *SMALL, *extra], capture_output=True, text=True), out


def refused(r, *words):
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert len(lines) == 1 and lines[0].startswith("loci: error:"), r.stderr
    assert all(w in lines[0] for w in words), (words, lines[0])


def set_value(array, value):
    def change(f):
        v = f[array][()]
        v[3] = value
        f[array][...] = v
    return change


refused(train(changed("label", set_value("label", 200)))[0], "sample 35", "label 200", "outside 0..3")
refused(train(changed("target", set_value("target_cell", 250)), "model.pooling=target")[0], "target token 250",
        "outside 0..15")
refused(train(changed("condition", set_value("condition", 200)))[0], "condition 200", "outside 0..2")


def nan_position(f):
    p = f["positions"][()]
    p[2, 0] = np.nan
    f["positions"][...] = p


def moved_position(f):
    p = f["positions"][()]
    p[2, 0] += 1
    f["positions"][...] = p


every_shard = [e["file"] for e in json.load(open(os.path.join(clean, "index.json")))["shards"]]
refused(train(changed("nan_positions", nan_position, every_shard))[0], "/positions holds nan at token 2", "finite")
refused(train(changed("moved_positions", moved_position))[0], SHARD, "dataset array 'positions' differs")

# Sizes: a model past this machine's memory is refused by its keys before anything is built; a batch larger
# than the split trains on the whole split at once.
refused(train(clean, "model.d_model=1000000000", name="huge")[0], "model.d_model 1000000000", "GiB")
# Under an 8 GiB address-space limit a million blocks were a SIGSEGV inside the failed allocation's backtrace.
def cap_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))


r = subprocess.run([loci_bin, "train", "-q", os.path.join(configs, "lst_train.yaml"), f"data={clean}",
                    f"out={work}/run-blocks", "train.epochs=1", "model.blocks=1000000"], capture_output=True, text=True,
                   preexec_fn=cap_address_space)
refused(r, "model.blocks 1000000", "GiB")
r, out = train(clean, "train.batch_size=1000000000", name="one_batch")
assert r.returncode == 0, r.stderr
assert json.load(open(os.path.join(out, "summary.json")))["steps"] == 1

# A resumed setting spelled otherwise (1e-3 for 0.001) is the same run.
r, out = train(clean, "train.lr=0.001", "train.epochs=2", "train.eval_every=1", name="lr")
assert r.returncode == 0, r.stderr
r = subprocess.run([loci_bin, "train", "-q", os.path.join(configs, "lst_train.yaml"), f"data={clean}", f"out={out}",
                    *SMALL, "train.lr=1e-3", "train.epochs=3", "train.eval_every=1", "--resume"],
                   capture_output=True, text=True)
assert r.returncode == 0, r.stderr
assert json.load(open(os.path.join(out, "summary.json")))["epochs"] == 3
# Class weights near the largest double give the shares their ratios say (their sum used to overflow to inf).
weights = os.path.join(work, "weights")
subprocess.run([loci_bin, "generate", "-q", os.path.join(configs, "lst.yaml"), f"out={weights}", "splits.train=300",
                "splits.test=3", "lst.class_weights=[9e307, 9e307, 9e307]"], check=True)
conditions = np.concatenate([h5py.File(os.path.join(weights, e["file"]))["condition"][()]
                             for e in json.load(open(os.path.join(weights, "index.json")))["shards"]
                             if e["split"] == "train"])
assert np.bincount(conditions, minlength=3).tolist() == [100, 100, 100], np.bincount(conditions)
print("test_bad_shard_values: every value out of its declared range refused by name")
