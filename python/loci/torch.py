"""loci's data in PyTorch: a dataset folder's split as a torch Dataset.

    from loci.torch import ShardDataset
    train = ShardDataset("data/lst", "train")            # each shard's checksum checked against index.json first
    loader = torch.utils.data.DataLoader(train, batch_size=64, shuffle=True, num_workers=2)
    for batch in loader:
        batch["tokens"], batch["label"]                  # each per-sample array by its name, as a tensor
    train.positions                                      # [token, axis]: the tokens' true positions

Samples are read from their shard when asked for (HDF5, one open file per shard and process), never the whole split
at once, so a DataLoader's workers each read what they are given. Needs PyTorch (Debian: python3-torch).
"""

import bisect
import os

import numpy as np
import torch

from . import _arrays, _dims, _index, _open_h5, _shard_path

__all__ = ["ShardDataset"]


class ShardDataset(torch.utils.data.Dataset):
    """One split of a loci dataset folder. Item i is a dict: each array stored per sample (its first dimension
    `sample`: `tokens`, `label`, `target_cell`, ...) at sample i as a tensor, and `index`, i itself. The dataset's
    own arrays (`positions`, `distance`, ...) are attributes of the ShardDataset (`positions`, `dataset_arrays`),
    not repeated per item.

    `arrays`: only these per-sample arrays (default: all). `verify`: each shard's size and SHA-256 against
    index.json, as loci's reader checks them (False skips it). Files that read bytes from outside themselves raise
    loci.UnsafeFileError; a split the dataset lacks raises KeyError naming the splits it has."""

    def __init__(self, folder, split, arrays=None, verify=True):
        self.folder, self.split = folder, split
        index = _index(folder)
        shards = sorted((s for s in index["shards"] if s["split"] == split), key=lambda s: s["first_sample"])
        if not shards:
            known = sorted({s["split"] for s in index["shards"]})
            raise KeyError(f"{folder}: no split '{split}' (splits: {', '.join(known)})")
        self._paths = [_shard_path(folder, s, verify) for s in shards]
        self._starts, total = [], 0
        self.dataset_arrays = {}
        per_sample = None
        for k, path in enumerate(self._paths):
            with _open_h5(path) as f:
                names = [n for n, a in _arrays(f) if _dims(a)[:1] == ["sample"]]
                count = f[names[0]].shape[0] if names else 0
                if per_sample is None:
                    per_sample = names
                    for n, a in _arrays(f):
                        if _dims(a)[:1] != ["sample"] and a.dtype.kind in "biuf":
                            self.dataset_arrays[n] = torch.from_numpy(np.ascontiguousarray(a[()]))
            self._starts.append(total)
            total += count
        self._length = total
        wanted = per_sample if arrays is None else list(arrays)
        missing = [n for n in wanted if n not in per_sample]
        if missing:
            raise KeyError(f"{folder}: split '{split}' has no per-sample array {missing[0]} (it has: "
                           f"{', '.join(per_sample)})")
        self.arrays = wanted
        self.positions = self.dataset_arrays.get("positions")
        self._files, self._pid = {}, None

    def __len__(self):
        return self._length

    def _file(self, shard):
        # h5py handles do not survive a fork: each process (a DataLoader worker) opens its own.
        if self._pid != os.getpid():
            self._files, self._pid = {}, os.getpid()
        if shard not in self._files:
            self._files[shard] = _open_h5(self._paths[shard])
        return self._files[shard]

    def __getitem__(self, i):
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError(f"sample {i} of a split of {self._length}")
        shard = bisect.bisect_right(self._starts, i) - 1
        f = self._file(shard)
        row = i - self._starts[shard]
        item = {n: torch.from_numpy(np.array(f[n][row])) for n in self.arrays}  # 0-d stays 0-d
        item["index"] = i
        return item

    def __getstate__(self):
        # Open files stay behind when the dataset is sent to a worker process.
        state = dict(self.__dict__)
        state["_files"], state["_pid"] = {}, None
        return state
