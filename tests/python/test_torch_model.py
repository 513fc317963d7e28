"""`loci export` and loci.torch.load_model: a trained loci model rebuilt in plain PyTorch gives loci's own outputs on
the export's reference batch, for every PE type, placement, pooling, norm and both tasks; forward hooks see loci's
blocks by loci's names; bad requests get one-line errors.
Usage: test_torch_model.py LOCI_BIN WORKDIR (run by ctest; skipped, with its reason, without python3-torch)."""
import os
import shutil
import sys

try:
    import torch
except ImportError as e:
    print(f"SKIP: PyTorch is not importable here ({e}); install python3-torch")
    sys.exit(0)

from harness import arguments, loci_command  # noqa: E402

loci_bin, work = arguments()
loci = loci_command(loci_bin)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from loci.torch import load_model, reference_difference  # noqa: E402

configs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs")


lst = os.path.join(work, "lst")
loci("generate", "-q", os.path.join(configs, "lst.yaml"), f"out={lst}", "splits.train=64", "splits.test=16")
net = os.path.join(work, "net")
loci("generate", "-q", os.path.join(configs, "network.yaml"), f"out={net}", "splits.train=16", "splits.test=8",
     "splits.test_noise=8", "graph.nodes=12", "windows.length=4", "windows.stride=4")

base = ["model.d_model=16", "model.heads=2", "model.blocks=2", "train.epochs=1", "train.batch_size=32",
        "train.threads=1", "train.progress=false"]
cases = {
    "learned": [],
    "learned_fixed_norm": ["model.pe.type=learned_fixed_norm"],
    "random_fixed shared": ["model.pe.type=random_fixed", "model.pe.placement=shared"],
    "sinusoidal_2d": ["model.pe.type=sinusoidal_2d"],
    "sinusoidal_1d input_only": ["model.pe.type=sinusoidal_1d", "model.pe.placement=input_only"],
    "sinusoidal_nd pre-norm final norm": ["model.pe.type=sinusoidal_nd", "model.norm=pre", "model.final_norm=true"],
    "relative bias": ["model.pe.type=relative"],
    "relative bias coordinates": ["model.pe.type=relative", "model.pe.offsets=coordinates"],
    "relative music_causal": ["model.pe.type=relative", "model.pe.variant=music_causal"],
    "rope": ["model.pe.type=rope"],
    "rope_axial": ["model.pe.type=rope_axial"],
    "alibi coordinates": ["model.pe.type=alibi", "model.pe.offsets=coordinates"],
    "none": ["model.pe.type=none"],
    "target pooling": ["model.pooling=target"],
    "cls pooling relu": ["model.pooling=cls", "model.activation=relu"],
    "dense objective": ["task.objective=dense"],
}
checked = 0
for name, overrides in cases.items():
    run = os.path.join(work, "runs", name.replace(" ", "_"))
    loci("train", "-q", os.path.join(configs, "lst_train.yaml"), f"data={lst}", f"out={run}", *base, *overrides)
    loci("export", run)
    model = load_model(os.path.join(run, "model.pt"))  # raises when the module is not loci's model
    difference = reference_difference(model)
    assert difference < 1e-4, (name, difference)
    assert model.reference["output"].shape[0] == 8, name
    checked += 1

# Masked regression on a network: predictions of the masked tokens.
run = os.path.join(work, "runs", "network")
loci("train", "-q", os.path.join(configs, "network_train.yaml"), f"data={net}", f"out={run}", *base)
loci("export", run, "-o", os.path.join(work, "network.pt"))
model = load_model(os.path.join(work, "network.pt"))
assert model.config["task"] == "masked_regression"
assert "mask" in model.reference and model.reference["output"].dim() == 3
checked += 1

# Forward hooks see loci's blocks under loci's names: the first block's attention output, [B, T, d].
model = load_model(os.path.join(work, "runs", "learned", "model.pt"))
seen = []
handle = model.get_submodule("encoder.blocks.0.attention").register_forward_hook(lambda m, i, o: seen.append(o.shape))
model(model.reference["x"])
handle.remove()
assert seen == [torch.Size([8, 16, 16])], seen
assert "encoder.pe.pe_0" in dict(model.named_parameters())

# A changed weight is caught by the reference check.
blob = torch.load(os.path.join(work, "runs", "learned", "model.pt"))
blob["state"]["encoder.blocks.1.fc2.bias"] += 1.0
torch.save(blob, os.path.join(work, "tampered.pt"))
try:
    load_model(os.path.join(work, "tampered.pt"))
    raise AssertionError("a changed model passed its reference check")
except ValueError as e:
    assert "differs from loci's outputs" in str(e), e

# Bad requests: one line, exit 1, nothing overwritten.
learned = os.path.join(work, "runs", "learned")
r = loci("export", learned, ok=False)
assert r.returncode == 1 and "exists already" in r.stderr and "--force" in r.stderr, r.stderr
assert loci("export", learned, "--force").returncode == 0
shutil.move(os.path.join(learned, "checkpoints", "last.pt"), os.path.join(work, "last.pt"))
r = loci("export", learned, "-o", os.path.join(work, "x.pt"), ok=False)
assert r.returncode == 1 and "no checkpoint" in r.stderr, r.stderr
shutil.move(os.path.join(work, "last.pt"), os.path.join(learned, "checkpoints", "last.pt"))
os.remove(os.path.join(learned, "summary.json"))
r = loci("export", learned, "-o", os.path.join(work, "x.pt"), ok=False)
assert r.returncode == 1 and "not a finished run" in r.stderr, r.stderr
r = loci("export", os.path.join(work, "nowhere"), ok=False)
assert r.returncode == 1 and "not a loci run folder" in r.stderr, r.stderr
print(f"torch model: {checked} exports rebuilt in PyTorch within 1e-4 of loci's outputs; hooks, tampering and bad "
      "requests checked")
