"""loci's data in PyTorch: a dataset folder's split as a torch Dataset.

    from loci.torch import ShardDataset
    train = ShardDataset("data/lst", "train")            # each shard's checksum checked against index.json first
    loader = torch.utils.data.DataLoader(train, batch_size=64, shuffle=True, num_workers=2)
    for batch in loader:
        batch["tokens"], batch["label"]                  # each per-sample array by its name, as a tensor
    train.positions                                      # [token, axis]: the tokens' true positions

Samples are read from their shard when asked for (HDF5, one open file per shard and process), never the whole split
at once, so a DataLoader's workers each read what they are given.

A trained model, written by `loci export RUN`, in plain PyTorch:

    from loci.torch import load_model
    model = load_model("runs/lst/learned/model.pt")      # checked against loci's own outputs on a reference batch
    logits = model(batch["tokens"].float(), batch.get("target_cell"))

Needs PyTorch (Debian: python3-torch).
"""

import bisect
import json
import math
import os

import numpy as np
import torch

from . import _arrays, _dims, _index, _open_h5, _shard_path

__all__ = ["ShardDataset", "LociModel", "load_model", "reference_difference"]


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


# ----- A trained loci model in plain PyTorch: `loci export RUN` writes it, load_model rebuilds it. Every tensor keeps
# its LibTorch name (encoder.blocks.0.attention.in_proj.weight, ...), so forward hooks, nnsight or TransformerLens
# style patching address the same pieces the C++ model has.

class _PE(torch.nn.Module):
    """The positional encoding of a loci model, with the hooks the blocks call: add (at a block's input),
    attention_bias (on the attention logits), rotate (queries and keys). Its tensors are loaded under loci's names
    (pe_<p>, table_<p>, offset_index, bias, cos, sin, norm_<p>); fixed tables come from the export too."""

    def __init__(self, cfg, state):
        super().__init__()
        pe = cfg["pe"]
        self.type, self.variant = pe["type"], pe["variant"]
        self.dropout = pe["sinusoidal_dropout"] if pe["type"].startswith("sinusoidal") else 0.0
        self.dropout_at_eval = pe["dropout_at_eval"]
        self.placements = cfg["blocks"] if pe["placement"] == "per_block" else 1
        mine = {k[len("encoder.pe."):]: v for k, v in state.items() if k.startswith("encoder.pe.")}
        for name, tensor in mine.items():
            if name.startswith("pe_") or name.startswith("table_"):
                self.register_parameter(name, torch.nn.Parameter(tensor.clone()))
            else:
                self.register_buffer(name, tensor.clone())
        self.tables = sorted(n for n in mine if n.startswith("pe_"))
        self.causal = self.type == "relative" and self.variant == "music_causal"

    def matrix(self, p):
        """The [T, d] matrix placement p adds, or None."""
        if not self.tables:
            return None
        v = getattr(self, self.tables[0] if len(self.tables) == 1 else f"pe_{p}")
        if self.type == "learned_fixed_norm":
            v = v * (getattr(self, f"norm_{p}") / v.norm().clamp_min(1e-30))
        return v

    def add(self, x, p, prefix):
        m = self.matrix(p)
        if m is None:
            return x
        x = torch.cat([x[:, :prefix], x[:, prefix:] + m], dim=1) if prefix else x + m
        if self.dropout > 0 and (self.training or self.dropout_at_eval):
            x = torch.nn.functional.dropout(x, self.dropout, training=True)
        return x

    def attention_bias(self, q, p, scale):
        if self.type == "alibi":
            return self._buffers["bias"].unsqueeze(0)
        if self.type != "relative":
            return None
        table, index = getattr(self, f"table_{p}"), self.offset_index
        T = index.shape[0]
        if self.variant != "music_causal":
            return table[:, index.reshape(-1)].reshape(1, table.shape[0], T, T)
        logits = q @ table.transpose(1, 2)  # [B, H, T, L]
        return logits.gather(3, index.expand(q.shape[0], q.shape[1], T, T)) * scale

    def rotate(self, q, k):
        if not hasattr(self, "cos"):
            return q, k

        def turn(x):
            pairs = x.reshape(*x.shape[:-1], x.shape[-1] // 2, 2)
            a, b = pairs[..., 0], pairs[..., 1]
            return torch.stack([a * self.cos - b * self.sin, a * self.sin + b * self.cos], -1).reshape(x.shape)
        return turn(q), turn(k)


class _Attention(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.in_proj = torch.nn.Linear(d, 3 * d)
        self.out_proj = torch.nn.Linear(d, d)

    def forward(self, x, pe, placement, active, prefix):
        B, N, d = x.shape
        H = self.heads
        dh = d // H
        scale = 1.0 / math.sqrt(dh)
        q, k, v = (t.reshape(B, N, H, dh).transpose(1, 2) for t in self.in_proj(x).chunk(3, dim=-1))
        bias = None
        if active:
            qd, kd = pe.rotate(q[:, :, prefix:], k[:, :, prefix:])
            q = torch.cat([q[:, :, :prefix], qd], 2) if prefix else qd
            k = torch.cat([k[:, :, :prefix], kd], 2) if prefix else kd
            bias = pe.attention_bias(q[:, :, prefix:], placement, scale)
        scores = (q @ k.transpose(-2, -1)) * scale
        if bias is not None:
            scores = scores + (torch.nn.functional.pad(bias, (prefix, 0, prefix, 0)) if prefix else bias)
        if active and pe.causal:
            scores = scores.masked_fill(torch.ones(N, N, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
        weights = scores.softmax(-1)
        return self.out_proj((weights @ v).transpose(1, 2).reshape(B, N, d))


class _Block(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["d_model"]
        self.post = cfg["norm"] == "post"
        self.gelu = cfg["activation"] == "gelu"
        self.after_both = cfg["activation_after_both"]
        self.attention = _Attention(d, cfg["heads"])
        self.norm1 = torch.nn.LayerNorm(d, eps=cfg["layer_norm_eps"])
        self.norm2 = torch.nn.LayerNorm(d, eps=cfg["layer_norm_eps"])
        hidden = cfg["mlp_hidden"]
        self.fc1 = torch.nn.Linear(d, hidden)
        self.fc2 = torch.nn.Linear(hidden, d)

    def act(self, x):
        return torch.nn.functional.gelu(x) if self.gelu else torch.relu(x)

    def mlp(self, x):
        h = self.fc2(self.act(self.fc1(x)))
        return self.act(h) if self.after_both else h

    def forward(self, x, pe, placement, active, prefix):
        h = pe.add(x, placement, prefix) if active else x
        if self.post:
            y = self.norm1(self.attention(h, pe, placement, active, prefix) + h)
            return self.norm2(self.mlp(y) + y)
        y = h + self.attention(self.norm1(h), pe, placement, active, prefix)
        return y + self.mlp(self.norm2(y))


class _Encoder(torch.nn.Module):
    def __init__(self, cfg, state):
        super().__init__()
        self.embedding = torch.nn.Linear(cfg["in_channels"], cfg["d_model"])
        self.pe = _PE(cfg, state)
        self.blocks = torch.nn.ModuleList(_Block(cfg) for _ in range(cfg["blocks"]))
        self.final_norm = torch.nn.LayerNorm(cfg["d_model"], eps=cfg["layer_norm_eps"]) if cfg["final_norm"] else None
        self.placement = cfg["pe"]["placement"]

    def forward(self, h, prefix=0):
        for b, block in enumerate(self.blocks):
            active = self.placement != "input_only" or b == 0
            h = block(h, self.pe, b if self.placement == "per_block" else 0, active, prefix)
        return self.final_norm(h) if self.final_norm is not None else h


class _Head(torch.nn.Module):
    def __init__(self, cfg, state):
        super().__init__()
        d = cfg["d_model"]
        self.task, self.pooling = cfg["task"], cfg["pooling"]
        if self.task == "classification":
            if "head.cls_token" in state:
                self.cls_token = torch.nn.Parameter(torch.zeros(d))
            self.readout = torch.nn.Linear(d, cfg["classes"])
        else:
            self.mask_embedding = torch.nn.Parameter(torch.zeros(d))
            self.output = torch.nn.Linear(d, state["head.output.weight"].shape[0])


class LociModel(torch.nn.Module):
    """A loci model in plain PyTorch, its tensors under loci's names. forward(x, target_index=None, mask=None)
    returns what loci's model does: logits [B, classes] (classification; pooling every: the target's row, and
    `last_dense` keeps every token's [B, T, classes]) or predictions [B, T, channels] (masked regression, with the
    tokens where `mask` [B, T] is true replaced by the mask embedding; every token is predicted, where loci's own
    forward fills only the masked ones)."""

    def __init__(self, cfg, state):
        super().__init__()
        cfg = dict(cfg)
        cfg["mlp_hidden"] = state["encoder.blocks.0.fc1.weight"].shape[0]
        self.config = cfg
        self.encoder = _Encoder(cfg, state)
        self.head = _Head(cfg, state)
        missing = [k for k in state if k not in dict(self.named_parameters()) and k not in dict(self.named_buffers())]
        if missing:
            raise ValueError(f"the export holds tensors this module has no place for: {', '.join(missing[:5])}")
        with torch.no_grad():
            for name, tensor in list(self.named_parameters()) + list(self.named_buffers()):
                if name not in state:
                    raise ValueError(f"the export lacks '{name}'")
                if tuple(state[name].shape) != tuple(tensor.shape):
                    raise ValueError(f"'{name}': export {tuple(state[name].shape)}, module {tuple(tensor.shape)}")
                tensor.copy_(state[name])
        self.last_dense = None

    def forward(self, x, target_index=None, mask=None):
        h = self.encoder.embedding(x)
        if self.head.task == "masked_regression":
            if mask is not None:
                h = torch.where(mask.bool().unsqueeze(-1), self.head.mask_embedding.view(1, 1, -1), h)
            return self.head.output(self.encoder(h))
        prefix = 0
        if hasattr(self.head, "cls_token"):
            h = torch.cat([self.head.cls_token.view(1, 1, -1).expand(h.shape[0], 1, -1), h], 1)
            prefix = 1
        hidden = self.encoder(h, prefix)
        pooling, B = self.head.pooling, hidden.shape[0]
        if pooling == "every":
            dense = self.head.readout(hidden)
            self.last_dense = dense
            at = target_index.long().reshape(B) if target_index is not None else \
                torch.full((B,), dense.shape[1] - 1, dtype=torch.long)
            return dense.gather(1, at.view(B, 1, 1).expand(B, 1, dense.shape[2])).squeeze(1)
        if pooling == "last":
            pooled = hidden[:, -1]
        elif pooling == "cls":
            pooled = hidden[:, 0]
        elif pooling == "mean":
            pooled = hidden.mean(1)
        else:  # target
            idx = target_index.long().view(-1, 1, 1).expand(B, 1, hidden.shape[2])
            pooled = hidden.gather(1, idx).squeeze(1)
        return self.head.readout(pooled)


def load_model(path, check=True, tolerance=1e-4):
    """The model `loci export` wrote at `path`, in eval mode, as a LociModel. With `check` (the default) it first
    runs the export's reference batch and raises ValueError when its outputs differ from loci's by more than
    `tolerance` (the largest absolute difference): the module then is not the model loci trained."""
    blob = torch.load(path)
    if not isinstance(blob, dict) or blob.get("loci_export") != 1:
        raise ValueError(f"{path}: not a model written by `loci export`")
    cfg = json.loads(blob["config"])
    model = LociModel(cfg, blob["state"])
    model.eval()
    model.positions = blob["positions"]
    model.reference = blob["reference"]
    if check:
        difference = reference_difference(model)
        if difference > tolerance:
            raise ValueError(f"{path}: the PyTorch module differs from loci's outputs by {difference:.3g} on the "
                             f"reference batch (more than {tolerance:g})")
    return model


def reference_difference(model):
    """The largest absolute difference between the module's outputs and loci's on the export's reference batch."""
    r = model.reference
    with torch.no_grad():
        out = model(r["x"], r.get("target_index"), r.get("mask"))
    if "mask" in r:
        # loci computes the last block for the masked tokens only and leaves the others' predictions at 0; the
        # module predicts every token, and the masked ones are what the two share.
        masked = r["mask"].bool()
        return float((out[masked] - r["output"][masked]).abs().max())
    return float((out - r["output"]).abs().max())
