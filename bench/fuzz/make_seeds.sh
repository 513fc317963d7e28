#!/usr/bin/env bash
# Seed corpora for the libFuzzer harnesses (tests/fuzz), made with the real loci: the shipped configs (some with
# overrides after a NUL byte), shards and index.json of tiny datasets of each generator, and small tables, label
# files and a NIfTI volume.   usage: make_seeds.sh LOCI_BIN OUT_DIR
set -euo pipefail
loci=$1 out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
mkdir -p "$out"/{config,shard,index,tables,layout,nifti,emit,run_folder,data}
# The structure-aware harnesses build their files from any bytes: a few seeds of each length start them.
for n in 16 64 256 1024; do
  for h in layout nifti emit run_folder; do head -c $n /dev/zero > "$out/$h/zeros-$n"; done
done

for f in "$src"/configs/*.yaml "$src"/configs/paper/*.yaml; do cp "$f" "$out/config/$(basename "$f")"; done
printf 'seed: 1\nsplits: {train: 10}\nweights: [1, 2.5]\ngroup: {inner: 4}\n\0count=7\nsizes.y=2\nmode=b,c\nrate=range(0,3)\n' > "$out/config/overrides.yaml"
printf 'a: &x [1, 2]\nb: *x\nc: {<<: {d: 1}}\n' > "$out/config/aliases.yaml"

"$loci" generate -q "$src/configs/lst.yaml" out="$out/data/lst" splits.train=8 splits.test=4 samples_per_shard=8 lst.imports={} compression=none
"$loci" generate -q "$src/configs/lst.yaml" out="$out/data/lst_gz" splits.train=8 splits.test=4 samples_per_shard=8 lst.imports={}
"$loci" generate -q "$src/configs/network.yaml" out="$out/data/net" splits.train=4 splits.test=2 splits.test_noise=2 \
  graph.nodes=8 windows.length=4 samples_per_shard=4
"$loci" generate -q "$src/configs/parcels.yaml" out="$out/data/par" splits.train=2 splits.test=1 subjects.train=1 \
  subjects.test=1 parcels.count=8 volume.voxel_mm=12 windows.length=4 activity.burn_in=2
for d in lst lst_gz net par; do
  cp "$(ls "$out/data/$d"/*.h5 | head -1)" "$out/shard/$d.h5"
  cp "$out/data/$d/index.json" "$out/index/$d.json"
done

printf '\0x,y,z\n1,2,3\n-4.5,6e2,7\n' > "$out/tables/matrix.csv"
printf '\0a\tb\n1\t2\n' > "$out/tables/matrix.tsv"
{ printf '\1'; cat "$src/plugins/lst_grid/data/human_puzzles.csv"; } > "$out/tables/puzzles.csv"
printf '\2# label name\n1 Precentral_L 2001\n2 Precentral_R 2002\n0\tUnclassified\n' > "$out/tables/labels.txt"
# A 4 x 3 x 2 NIfTI-1 label volume (int16) with labels 0..3, written field by field.
python3 - "$out/tables/atlas.nii" <<'PY'
import struct, sys
h = bytearray(348)
struct.pack_into("<i", h, 0, 348)
struct.pack_into("<8h", h, 40, 3, 4, 3, 2, 1, 1, 1, 1)       # dim
struct.pack_into("<hh", h, 70, 4, 16)                      # datatype int16, bitpix
struct.pack_into("<8f", h, 76, 1, 2, 2, 2, 1, 1, 1, 1)       # pixdim
struct.pack_into("<f", h, 108, 352)                        # vox_offset
struct.pack_into("<hh", h, 252, 0, 1)                      # qform 0, sform 1 (scanner)
struct.pack_into("<4f", h, 280, 2, 0, 0, -4)               # srow_x
struct.pack_into("<4f", h, 296, 0, 2, 0, -3)               # srow_y
struct.pack_into("<4f", h, 312, 0, 0, 2, -2)               # srow_z
h[344:348] = b"n+1\0"
voxels = struct.pack("<24h", *[(i % 4) for i in range(24)])
open(sys.argv[1], "wb").write(b"\3" + bytes(h) + b"\0\0\0\0" + voxels)
PY
# Every input a harness once failed on stays in its corpus (tests/fuzz/regressions/<harness>/).
# (lone_shard/ holds what crashes HDF5 itself: inputs of fuzz_shard with LOCI_FUZZ_LONE_SHARD=1, not seeds.)
for d in "$src"/tests/fuzz/regressions/*/; do
  [ "$(basename "$d")" = lone_shard ] || cp "$d"* "$out/$(basename "$d")/"
done
echo "seeds in $out: $(find "$out" -maxdepth 2 -type f | wc -l) files"
