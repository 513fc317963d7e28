"""loci.open_dataset / open_run / open_sweep against the files read by hand with h5py.
Usage: test_reader.py LOCI_BIN WORKDIR (run by ctest; exits non-zero on the first failure)."""
import json
import os
import shutil
import subprocess
import sys
import warnings

import h5py
import numpy as np

loci_bin, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)  # a fresh folder each run: the datasets and runs below are made anew
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import loci  # noqa: E402


def run(*args):
    subprocess.run([loci_bin, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs")
data = os.path.join(work, "data")
# A 3-shard train split (96 samples, 32 per shard) of the LST.
run("generate", "-q", os.path.join(source, "lst.yaml"), f"out={data}", "splits.train=96", "splits.test=16",
    "samples_per_shard=32")

ds = loci.open_dataset(data, "train")
files = sorted(s["file"] for s in json.load(open(os.path.join(data, "index.json")))["shards"] if s["split"] == "train")
assert len(files) == 3, files
by_hand = np.concatenate([h5py.File(os.path.join(data, f))["tokens"][()] for f in files])
assert ds["tokens"].dims == ("sample", "token", "channel"), ds["tokens"].dims
assert np.array_equal(ds["tokens"].values, by_hand)
assert list(ds["sample_id"].values) == list(range(96))
# What is one shard's (its index, its first sample) stays per shard; what all share is the dataset's.
per_shard = [dict(h5py.File(os.path.join(data, f)).attrs) for f in files]
differing = sorted(k for k in per_shard[0] if any(not np.array_equal(p.get(k), per_shard[0][k]) for p in per_shard))
assert differing, per_shard[0].keys()  # the shards do carry attributes of their own
for k in differing:
    assert k not in ds.attrs, k
    assert ds[k].dims == ("shard",) and [v.item() if hasattr(v, "item") else v for v in ds[k].values] == \
        [p[k].item() if hasattr(p[k], "item") else p[k] for p in per_shard], k
assert list(ds["shard_file"].values) == files
assert ds["position"].dims == ("token", "axis") and ds["position"].shape == (16, 2)
assert np.array_equal(ds["position"].values, h5py.File(os.path.join(data, files[0]))["positions"][()])
assert "sample" not in ds.data_vars and "token" not in ds.data_vars  # no dimension scales as variables
assert ds["label"].attrs["doc"].startswith("answer symbol")
assert ds.attrs["generator"] == "lst_grid"
try:
    loci.open_dataset(data, "nope")
    raise AssertionError("an unknown split was accepted")
except KeyError as e:
    assert "train" in str(e)

# Network data: time in its unit.
net = os.path.join(work, "net")
run("generate", "-q", os.path.join(source, "network.yaml"), f"out={net}", "splits.train=8", "splits.test=4",
    "splits.test_noise=4", "graph.nodes=16", "windows.length=5")
n = loci.open_dataset(net, "test")
assert n["activity"].dims == ("sample", "token", "time")
assert n["time"].attrs["units"] == "model time units" and np.allclose(np.diff(n["time"].values), n.attrs["record_dt"])

# Parcels of a real atlas: each token's region name as the coordinate `token_label` (mricron-data's AAL).
aal = "/usr/share/mricron/templates/aal.nii.gz"
if os.path.exists(aal) and os.path.exists("/usr/share/mricron/templates/aal.nii.txt"):
    par = os.path.join(work, "aal")
    run("generate", "-q", os.path.join(source, "parcels.yaml"), f"out={par}", "volume.mask=nifti", f"volume.nifti={aal}",
        "volume.resample_mm=6", "splits={train: 2, test: 1}", "subjects={train: 1, test: 1}", "activity.field.fwhm_mm=12")
    p = loci.open_dataset(par, "train")
    assert p["token_label"].dims == ("token",) and "token_label" not in p.data_vars
    assert [str(v) for v in p["token_label"].values[:2]] == ["Precentral_L", "Precentral_R"], p["token_label"].values[:2]
    assert p["token_label"].sizes["token"] == p["position"].sizes["token"]
else:
    print("test_reader: mricron-data not installed; the atlas labels were not read")

# A run and a sweep.
cfg = os.path.join(work, "t.yaml")
with open(cfg, "w") as f:
    f.write(f"trainer: torch_trainer\ndata: {data}\nout: {work}/x\nmodel: {{d_model: 8, blocks: 1}}\n"
            "train: {epochs: 2, eval_every: 1, batch_size: 32, threads: 1, progress: false}\n")
run("train", "-q", cfg, "-m", "model.pe.init.std=0.2,2.0", f"out={work}/sweep")
run("analyze", "-q", f"{work}/sweep")
r = loci.open_run(f"{work}/sweep/model.pe.init.std=0.2")
assert "pe" not in vars(r)  # opening a run reads no arrays: a sweep of many runs stays small
assert r.pe["position"].dims == ("token", "axis") and "position" in r.pe.coords  # named as in open_dataset
assert np.array_equal(r.pe["position"].values, ds["position"].values)
assert set(r.metrics.split) == {"train", "test", "human"}
pe = r.pe_tables()["placement_0"]
assert pe.dims == ("evaluation", "token", "dim") and list(pe["epoch"].values) == [0, 1, 2]
assert r.summary["status"] == "finished" and r.identity["keys"]["model.pe.init.std"] == 0.2
sweep = loci.open_sweep(f"{work}/sweep")
assert len(sweep) == 2 and "model.pe.init.std" in sweep.columns, sweep.columns
assert "model.d_model" not in sweep.columns  # the same in both runs: not a varying setting
assert sweep["human.accuracy"].between(0, 1).all() and "probe.rsa_spearman" in sweep.columns

# "Which settings vary" is computed twice, by open_sweep here and by `loci analyze` (runs.csv's setting columns); the
# two must name the same keys, the seed aside (the analysis groups over seeds; open_sweep keeps one row per run).
run("train", "-q", cfg, "-m", "train.lr=0.001,0.003", "seed=0,1", f"out={work}/sweep2")
run("analyze", "-q", f"{work}/sweep2")
settings = set(loci.open_run(f"{work}/sweep2/train.lr=0.001,seed=0").identity["keys"]) | {"train.epochs"}
varying_here = {c for c in loci.open_sweep(f"{work}/sweep2").columns if c in settings}
with open(f"{work}/sweep2/runs.csv") as f:
    header = f.readline().strip().split(",")
varying_there = {c for c in header[header.index("seed") + 1:] if c in settings}  # after folder, group, ..., seed
assert varying_here == {"train.lr", "seed"} and varying_there == varying_here - {"seed"}, (varying_here, varying_there)
# A run's files are read within the run folder: a metrics.csv linked to a file elsewhere, or to a device, is refused;
# a summary.json tampered with is named, with what the metrics it was made from say.
tampered = f"{work}/tampered"
shutil.copytree(f"{work}/sweep/model.pe.init.std=0.2", tampered)
with open(f"{tampered}/summary.json") as f:
    summary = json.load(f)
summary["final"]["human"]["accuracy"] = 0.999
with open(f"{tampered}/summary.json", "w") as f:
    json.dump(summary, f)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = loci.open_run(tampered)
assert t.disagreements and t.disagreements[0].startswith("human.accuracy: summary 0.999"), t.disagreements
assert any("disagrees with metrics.csv" in str(w.message) for w in caught)
assert not loci.open_run(f"{work}/sweep/model.pe.init.std=0.2").disagreements
with open(f"{work}/elsewhere.csv", "w") as f:
    f.write("epoch,split\n")
for target in (f"{work}/elsewhere.csv", "/dev/zero"):
    os.remove(f"{tampered}/metrics.csv")
    os.symlink(target, f"{tampered}/metrics.csv")
    try:
        loci.open_run(tampered)
        raise AssertionError(f"a metrics.csv linked to {target} was read")
    except loci.UnsafeFileError as e:
        assert "metrics.csv" in str(e), e
print("loci python reader: 1 passed, 0 failed")
