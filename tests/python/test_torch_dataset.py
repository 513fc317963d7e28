"""loci.torch.ShardDataset on a dataset the real `loci` makes: every item is the sample h5py reads by hand, across
shards; checksums are checked as loci's reader checks them; a DataLoader with two workers feeds a small PyTorch
model that learns the LST's training puzzles in a few dozen steps.
Usage: test_torch_dataset.py LOCI_BIN WORKDIR (run by ctest; skipped, with its reason, without python3-torch)."""
import json
import os
import shutil
import subprocess
import sys

try:
    import torch
except ImportError as e:
    print(f"SKIP: PyTorch is not importable here ({e}); install python3-torch")
    sys.exit(0)

import h5py
import numpy as np

loci_bin, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import loci  # noqa: E402
from loci.torch import ShardDataset  # noqa: E402

source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs")
data = os.path.join(work, "data")
subprocess.run([loci_bin, "generate", "-q", os.path.join(source, "lst.yaml"), f"out={data}", "splits.train=256",
                "splits.test=32", "samples_per_shard=100"], check=True)

train = ShardDataset(data, "train")
assert len(train) == 256, len(train)
files = sorted(s["file"] for s in json.load(open(os.path.join(data, "index.json")))["shards"] if s["split"] == "train")
assert len(files) == 3, files  # 100 + 100 + 56: items cross shard boundaries
by_hand = np.concatenate([h5py.File(os.path.join(data, f))["tokens"][()] for f in files])
labels = np.concatenate([h5py.File(os.path.join(data, f))["label"][()] for f in files])
for i in (0, 99, 100, 199, 200, 255, -1):
    item = train[i]
    assert np.array_equal(item["tokens"].numpy(), by_hand[i]), i
    assert item["label"].item() == labels[i], i
assert train.positions.shape == (16, 2)
assert np.array_equal(train.positions.numpy(), h5py.File(os.path.join(data, files[0]))["positions"][()])
try:
    train[256]
    raise AssertionError("an index past the split was accepted")
except IndexError:
    pass
try:
    ShardDataset(data, "nope")
    raise AssertionError("an unknown split was accepted")
except KeyError as e:
    assert "train" in str(e)

# A shard changed after it was written is refused, as loci refuses it.
changed = os.path.join(work, "changed")
shutil.copytree(data, changed)
with h5py.File(os.path.join(changed, files[1]), "a") as f:
    f["tokens"][0, 0, 0] = 1 - f["tokens"][0, 0, 0]
try:
    ShardDataset(changed, "train")
    raise AssertionError("a changed shard was accepted")
except loci.UnsafeFileError as e:
    assert files[1] in str(e) and "index.json" in str(e), e

# Training through a DataLoader with two worker processes: the loss on the training puzzles falls.
torch.manual_seed(0)
loader = torch.utils.data.DataLoader(train, batch_size=32, shuffle=True, num_workers=2)
channels, classes = train[0]["tokens"].shape[-1], int(labels.max()) + 1
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(16 * channels, 64), torch.nn.ReLU(),
                            torch.nn.Linear(64, classes))
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
losses, seen = [], set()
for epoch in range(12):
    for batch in loader:
        loss = torch.nn.functional.cross_entropy(model(batch["tokens"].float()), batch["label"].long())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        seen.update(batch["index"].tolist())
assert seen == set(range(256)), len(seen)
first, last = np.mean(losses[:8]), np.mean(losses[-8:])
assert last < 0.8 * first, (first, last)
print(f"torch dataset: 256 samples over 3 shards, 2 workers; training loss {first:.3f} -> {last:.3f}")
