"""A long sweep goes on in a later session from its committed bundle: bench/bundles/restore_runs.py lays the bundle's
runs out as finished run folders, `loci train` keeps them (nothing is trained again, and a point the bundle lacks is
trained), and `loci analyze` gives the table it gave before, onsets included where the bundle kept the whole analysis.
A bundle written before bundles kept the config, metrics.jsonl and the analysis restores too: its final numbers are
the same, and its onsets are unmeasured (null), never the last epoch of the two evaluations it kept.
Usage: test_bundle_restore.py LOCI_BIN WORKDIR (run by ctest; exits non-zero on the first failure)."""
import csv
import json
import os
import shutil

import h5py

from harness import ROOT, arguments, loci_command, script_command

loci_bin, work = arguments()
root = ROOT
bundle_script = os.path.join(root, "bench", "bundles", "bundle_runs.py")
restore_script = os.path.join(root, "bench", "bundles", "restore_runs.py")
loci = loci_command(loci_bin)


def python(script, *args, check=True):
    return script_command(script)(*args, ok=check)


def rows(path):
    with open(path) as f:
        return {r["folder"].rsplit("/", 1)[-1]: r for r in csv.DictReader(f)}


data = os.path.join(work, "data")
loci("generate", "-q", os.path.join(root, "configs", "lst.yaml"), f"out={data}", "splits.train=64", "splits.test=16")
cfg = os.path.join(work, "t.yaml")
with open(cfg, "w") as f:
    f.write(f"trainer: torch_trainer\ndata: {data}\nout: {work}/x\nmodel: {{d_model: 8, blocks: 1}}\n"
            "train: {epochs: 4, eval_every: 1, batch_size: 32, threads: 1, progress: false, lr: 0.01, "
            "robustness_noise: [0, 0.5]}\n")
sweep = os.path.join(work, "sweep")
loci("train", "-q", cfg, "-m", "model.pe.init.std=0.2,2.0", f"out={sweep}")
loci("analyze", "-q", sweep)
before = rows(os.path.join(sweep, "runs.csv"))
assert len(before) == 2, before.keys()
bundle = os.path.join(work, "bundle.h5")
python(bundle_script, sweep, bundle)

# The dataset must be there first: the trainer checks the restored runs were made from it.
restored = os.path.join(work, "restored")
out = python(restore_script, bundle, restored, "--data", os.path.join(work, "nowhere"), check=False)
assert out.returncode == 1 and "nowhere: no such dataset folder" in out.stderr, out.stdout + out.stderr
assert not os.path.exists(restored)

# A file that is no bundle, and a bundle missing a run's record, are refused in one line, and nothing is written.
with open(os.path.join(work, "not_a_bundle.h5"), "w") as f:
    f.write("text")
out = python(restore_script, os.path.join(work, "not_a_bundle.h5"), restored, "--data", data, check=False)
assert out.returncode == 1 and "not a readable bundle" in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr
broken = os.path.join(work, "broken.h5")
shutil.copy(bundle, broken)
with h5py.File(broken, "a") as f:
    del f[sorted(f)[-1]].attrs["identity"]
out = python(restore_script, broken, restored, "--data", data, check=False)
assert out.returncode == 1 and "lacks identity" in out.stderr, out.stderr
assert not os.path.exists(restored)

python(restore_script, bundle, restored, "--data", data)
summaries = {name: open(os.path.join(restored, name, "summary.json")).read() for name in before}
# The same sweep, one sigma more: the two restored runs are kept as they are, the new one trains.
loci("train", "-q", cfg, "-m", "model.pe.init.std=0.2,2.0,1.0", f"out={restored}")
for name, text in summaries.items():
    assert open(os.path.join(restored, name, "summary.json")).read() == text, f"{name} was trained again"
    assert not os.path.exists(os.path.join(restored, name, "checkpoints", "last.pt")), name
assert os.path.exists(os.path.join(restored, "model.pe.init.std=1.0", "checkpoints", "last.pt")), os.listdir(restored)
loci("analyze", "-q", restored)
after = rows(os.path.join(restored, "runs.csv"))
assert set(after) == set(before) | {"model.pe.init.std=1.0"}, after.keys()
compared = [c for c in before[next(iter(before))] if c not in ("folder", "data")]
assert {"rsa_spearman", "human_accuracy", "qk_rsa_onset_epoch", "human_accuracy_noise0.5"} <= set(compared), compared
# The analysis kept is the one made from the whole history (5 evaluations), though pe.h5 now holds 2.
for name in before:
    with open(os.path.join(restored, name, "analysis.json")) as f:
        analysis = json.load(f)
    assert [e["epoch"] for e in analysis["evaluations"]] == [0, 1, 2, 3, 4], name
    assert "abridged_history" not in analysis["run"], analysis["run"]  # its onsets were measured on the whole
# ... so the summary's onset table counts the restored runs as before.
def onset_rows(folder):
    with open(os.path.join(folder, "onsets.csv")) as f:
        return sorted(line for line in f if "normal(1)" not in line)


assert onset_rows(restored) == onset_rows(sweep) and len(onset_rows(sweep)) > 1, onset_rows(restored)
onsets_seen = 0
for name, row in before.items():
    for c in compared:
        assert after[name][c] == row[c], (name, c, row[c], after[name][c])
    onsets_seen += row["qk_rsa_onset_epoch"] != "" or row["rsa_onset_epoch"] != ""

# A bundle from before session 31: no config, no metrics.jsonl, no whole analysis, no pe.h5 attributes.
old = os.path.join(work, "old.h5")
shutil.copy(bundle, old)
with h5py.File(old, "a") as f:
    for name in f:
        for attr in ("config_yaml", "metrics_jsonl", "pe_attributes", "evaluations", "provenance", "robustness_csv"):
            del f[name].attrs[attr]
        for ds in ("analysis_json", "step"):
            del f[name][ds]
old_root = os.path.join(work, "old")
# Its robustness test comes back from the table's runs.csv.
python(restore_script, old, old_root, "--data", data, "--runs-csv", os.path.join(sweep, "runs.csv"))
loci("train", "-q", cfg, "-m", "model.pe.init.std=0.2,2.0", f"out={old_root}")
for name in before:
    assert not os.path.exists(os.path.join(old_root, name, "checkpoints", "last.pt")), f"{name} was trained again"
    with h5py.File(os.path.join(old_root, name, "pe.h5")) as pe:
        assert "restored from the bundle" in pe.attrs["abridged_history"] and list(pe["epoch"][:]) == [0, 4]
loci("analyze", "-q", old_root)
again = rows(os.path.join(old_root, "runs.csv"))
for name, row in before.items():
    for c in ("human_accuracy", "test_accuracy", "train_accuracy", "rsa_spearman", "init_rsa_spearman",
              "rsa_p_value", "qk_rsa_spearman", "human_accuracy_noise0.5", "test_accuracy_noise0.0"):
        assert abs(float(again[name][c]) - float(row[c])) < 1e-6, (name, c, row[c], again[name][c])
    assert again[name]["rsa_onset_epoch"] == "" and again[name]["qk_rsa_onset_epoch"] == "", again[name]
print(f"bundle restore: 1 passed, 0 failed ({onsets_seen} runs with an onset kept through the restore)")
