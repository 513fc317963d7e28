"""A shard's checksum vouches only for bytes inside it: loci (C++ and Python) refuses shards whose arrays are stored
in, or linked to, other files, and index entries that name files outside the dataset folder.
Usage: test_outside_bytes.py LOCI_BIN WORKDIR (run by ctest; exits non-zero on the first failure)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

loci_bin, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import loci  # noqa: E402

configs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs")
clean = os.path.join(work, "clean")
subprocess.run([loci_bin, "generate", "-q", os.path.join(configs, "lst.yaml"), f"out={clean}", "splits.train=64",
                "splits.test=16", "samples_per_shard=32"], check=True)
SHARD = "train-00000-of-00002.h5"


def tampered(name, change):
    """A copy of the clean dataset whose first train shard `change(h5py.File, folder)` altered, with index.json
    rewritten so every size and SHA-256 matches again (as an attacker would)."""
    folder = os.path.join(work, name)
    shutil.copytree(clean, folder)
    path = os.path.join(folder, SHARD)
    with h5py.File(path, "r+") as f:
        change(f, folder)
    index_path = os.path.join(folder, "index.json")
    index = json.load(open(index_path))
    for s in index["shards"]:
        if s["file"] == SHARD:
            s["bytes"] = os.path.getsize(path)
            s["sha256"] = hashlib.sha256(open(path, "rb").read()).hexdigest()
    json.dump(index, open(index_path, "w"))
    return folder


def replace_positions(f, **storage):
    values = f["positions"][()]
    del f["positions"]
    d = f.create_dataset("positions", data=values, **storage)
    d.dims[0].attach_scale(f["token"])
    d.dims[1].attach_scale(f["axis"])


def external_storage(f, folder):
    outside = os.path.join(work, f"outside-{os.path.basename(folder)}.bin")
    replace_positions(f, external=[(outside, 0, f["positions"].nbytes)])


def external_link(f, folder):
    other = os.path.join(work, "other.h5")
    with h5py.File(other, "w") as o:
        o["x"] = np.zeros(3)
    f["extra"] = h5py.ExternalLink(other, "/x")


def virtual_dataset(f, folder):
    other = os.path.join(work, "virtual-source.h5")
    values = f["positions"][()]
    with h5py.File(other, "w") as o:
        o["p"] = values
    layout = h5py.VirtualLayout(shape=values.shape, dtype=values.dtype)
    layout[...] = h5py.VirtualSource(other, "p", shape=values.shape)
    del f["positions"]
    d = f.create_virtual_dataset("positions", layout)
    d.dims[0].attach_scale(f["token"])
    d.dims[1].attach_scale(f["axis"])


def loci_refuses(folder, *words):
    """`loci inspect --verify` and `loci train` on the folder end in one `loci: error:` line naming the shard."""
    checks = [[loci_bin, "inspect", "--verify", folder],
              [loci_bin, "train", "-q", os.path.join(configs, "lst_train.yaml"), f"data={folder}",
               f"out={folder}-run", "train.epochs=1", "train.batch_size=16", "model.d_model=8", "model.blocks=1"]]
    for cmd in checks:
        r = subprocess.run(cmd, capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 1, (cmd, r.returncode, r.stderr)
        assert len(lines) == 1 and lines[0].startswith("loci: error:"), r.stderr
        assert SHARD in lines[0] and all(w in lines[0] for w in words), (words, lines[0])


def python_refuses(folder, *words):
    try:
        loci.open_dataset(folder, "train")
    except loci.UnsafeFileError as e:
        assert all(w in str(e) for w in words), (words, str(e))
        return
    raise AssertionError(f"loci.open_dataset read {folder}")


for name, change, words in [("external_storage", external_storage, ("positions", "another file")),
                            ("external_link", external_link, ("extra", "external link")),
                            ("virtual_dataset", virtual_dataset, ("positions", "virtual dataset"))]:
    folder = tampered(name, change)
    loci_refuses(folder, *words)
    python_refuses(folder, *words)

# Index entries naming files outside the folder: both readers refuse them before opening anything.
for bad in ["../clean/" + SHARD, os.path.abspath(os.path.join(clean, SHARD))]:
    folder = os.path.join(work, "escape")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(clean, folder)
    index = json.load(open(os.path.join(folder, "index.json")))
    index["shards"][0]["file"] = bad
    json.dump(index, open(os.path.join(folder, "index.json"), "w"))
    try:
        loci.open_dataset(folder, index["shards"][0]["split"])
        raise AssertionError(f"loci.open_dataset followed '{bad}'")
    except loci.UnsafeFileError as e:
        assert "not a plain file name" in str(e), str(e)
    r = subprocess.run([loci_bin, "inspect", "--verify", folder], capture_output=True, text=True)
    assert r.returncode == 1 and "not a plain file name" in r.stderr, r.stderr

# The Python reader checks checksums by default; verify=False is the explicit way round.
folder = os.path.join(work, "changed")
shutil.copytree(clean, folder)
with h5py.File(os.path.join(folder, SHARD), "r+") as f:
    f.attrs["note"] = "changed after writing"
try:
    loci.open_dataset(folder, "train")
    raise AssertionError("a changed shard was read without a word")
except loci.UnsafeFileError as e:
    assert SHARD in str(e) and "verify=False" in str(e), str(e)
assert loci.open_dataset(folder, "train", verify=False).sizes["sample"] == 64
assert loci.open_dataset(clean, "train").sizes["sample"] == 64
print("test_outside_bytes: every outside byte refused")
