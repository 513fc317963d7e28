#!/usr/bin/env bash
# python/ is a package of its own: pip installs it into a venv that sees Debian's numpy, h5py, xarray and pandas
# (the command python/README.md gives), and the installed reader opens a dataset the real loci wrote.
set -euo pipefail
loci=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$source_dir/python" "$work/src"  # pip builds in the tree it is given: never in the source tree
/usr/bin/python3 -m venv --system-site-packages --without-pip "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-build-isolation --no-deps "$work/src"
cat > "$work/lst.yaml" <<YAML
include: $source_dir/configs/lst.yaml
out: $work/data
splits: {train: 16, test: 8}
YAML
"$loci" generate -q "$work/lst.yaml"
cd "$work"
env -u PYTHONPATH "$work/venv/bin/python" - "$work" <<'PY'
import os, sys
import loci
work = sys.argv[1]
assert loci.__file__.startswith(os.path.join(work, "venv")), loci.__file__
ds = loci.open_dataset(os.path.join(work, "data"), "train")
assert ds.sizes["sample"] == 16, dict(ds.sizes)
assert "position" in ds.coords, list(ds.coords)
print("pip-installed loci reads", dict(ds.sizes))
PY
