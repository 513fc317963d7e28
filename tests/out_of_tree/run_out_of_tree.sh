#!/usr/bin/env bash
# Installs loci into a temporary prefix, builds tests/out_of_tree/project against it with find_package(loci),
# then checks that the installed `loci` lists the new plugin and can generate with it.
set -euo pipefail
build_dir=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
# The Python reader lands where that prefix's python3 looks (lib/python3.X/dist-packages).
PYTHONPATH=$(ls -d "$work"/prefix/lib/python3*/dist-packages) /usr/bin/python3 -c "import loci; loci.open_sweep" \
  || { echo "FAIL: the Python reader was not installed"; exit 1; }
cmake -S "$source_dir/tests/out_of_tree/project" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" >/dev/null

listing=$(LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" plugins)
echo "$listing"
grep -q "hello_generator" <<<"$listing" || { echo "FAIL: hello_generator not listed"; exit 1; }
grep -q "lst_grid" <<<"$listing" || { echo "FAIL: installed plugins not found from the install prefix"; exit 1; }

cat > "$work/hello.yaml" <<YAML
generator: hello_generator
out: $work/data
splits: {train: 20}
samples_per_shard: 8
YAML
LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" generate -q "$work/hello.yaml"
test -f "$work/data/index.json" || { echo "FAIL: no index.json"; exit 1; }
test -f "$work/data/train-00002-of-00003.h5" || { echo "FAIL: shards missing"; exit 1; }
# The extension's PE is a choice of the installed trainer and trains on the installed generator's data.
grep -q "extension.*coordinate_start_pe" <<<"$listing" || { echo "FAIL: the PE extension is not listed"; exit 1; }
schema=$(LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" config schema torch_trainer)
grep -q "model.pe.type .*coordinate_start" <<<"$schema" || { echo "FAIL: model.pe.type does not offer the extension's PE"; exit 1; }
grep -q "model.pe.coordinate_start.learn .*bool" <<<"$schema" || { echo "FAIL: the extension PE's own key is not in the schema"; exit 1; }
grep -q "model.pe.init.signs.positive .*float" <<<"$schema" || { echo "FAIL: the extension init's own key is not in the schema"; exit 1; }
"$work/prefix/bin/loci" generate -q "$source_dir/configs/lst.yaml" out="$work/lst" splits.train=64 splits.test=16
cat > "$work/train.yaml" <<YAML
trainer: torch_trainer
data: $work/lst
out: $work/run
model: {d_model: 16, blocks: 1, pe: {type: coordinate_start}}
train: {epochs: 1, batch_size: 32, threads: 1, progress: false}
YAML
LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" train -q "$work/train.yaml"
grep -q '"type": "coordinate_start"' "$work/run/summary.json" || { echo "FAIL: no run with the extension's PE"; exit 1; }
grep -q "from_coordinates" "$work/run/config.yaml" || { echo "FAIL: the PE's own default init was not used"; exit 1; }
LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" analyze -q "$work/run"
grep -q '"row_norm_spread"' "$work/run/analysis.json" || { echo "FAIL: the extension's probe did not run"; exit 1; }
grep -q 'row_norm_spread' "$work/run/summary.csv" || { echo "FAIL: the extension's probe is not a summary column"; exit 1; }
# The PE's own key: read with the checks of every key, recorded in the run's identity, refused for another PE.
grep -q '"model.pe.coordinate_start.learn": true' "$work/run/identity.json" \
  || { echo "FAIL: the PE's own key is not in the run's identity"; exit 1; }
LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" train -q "$work/train.yaml" out="$work/frozen" \
  model.pe.coordinate_start.learn=false
grep -q '"model.pe.coordinate_start.learn": false' "$work/frozen/identity.json" \
  || { echo "FAIL: the PE's own key set to false is not in the run's identity"; exit 1; }
said=$(LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" train -q "$work/train.yaml" out="$work/bad" \
  model.pe.coordinate_start.learn=3 2>&1) && { echo "FAIL: a non-bool value of the PE's key was taken"; exit 1; }
grep -q "model.pe.coordinate_start.learn" <<<"$said" || { echo "FAIL: the bad value's error does not name the key: $said"; exit 1; }
said=$(LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" train -q "$work/train.yaml" out="$work/bad" \
  model.pe.type=learned model.pe.coordinate_start.learn=false 2>&1) && { echo "FAIL: another PE's key was taken"; exit 1; }
grep -q "is a key of the coordinate_start PE" <<<"$said" || { echo "FAIL: another PE's key is not refused by name: $said"; exit 1; }
# The initialiser's own key likewise: recorded in identity and config.yaml, refused on a run of another initialiser.
LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" train -q "$work/train.yaml" out="$work/positive" \
  model.pe.init.name=signs model.pe.init.signs.positive=0.9
grep -q '"model.pe.init.signs.positive": 0.9' "$work/positive/identity.json" \
  || { echo "FAIL: the init's own key is not in the run's identity"; exit 1; }
grep -q 'positive: 0.9' "$work/positive/config.yaml" || { echo "FAIL: the init's own key is not in config.yaml"; exit 1; }
grep -q 'coordinate_start:' "$work/run/config.yaml" || { echo "FAIL: the PE's own key is not in config.yaml"; exit 1; }
said=$(LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" train -q "$work/train.yaml" out="$work/bad" \
  model.pe.init.signs.positive=0.9 2>&1) && { echo "FAIL: another initialiser's key was taken"; exit 1; }
grep -q "is a key of the signs initialiser, and this run's initialiser is from_coordinates" <<<"$said" \
  || { echo "FAIL: another initialiser's key is not refused by name: $said"; exit 1; }
# The extension's PE with its default init (from_coordinates, scale 0.2) and with the extension's own init (signs,
# scaled by gain): both are drawn from an init, so each run carries its sigma into runs.csv and the sigma figures.
LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" train -q "$work/train.yaml" out="$work/runs/signs" \
  model.pe.init.name=signs model.pe.init.gain=0.5
mkdir -p "$work/runs" && cp -r "$work/run" "$work/runs/coordinates"
LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" analyze -q "$work/runs" -o "$work/analysis"
grep -q ',coordinate_start,.*,from_coordinates(0.2),0.2,' "$work/analysis/runs.csv" \
  || { cat "$work/analysis/runs.csv"; echo "FAIL: the extension's PE lost its sigma in runs.csv"; exit 1; }
grep -q ',coordinate_start,.*,signs(0.5),0.5,' "$work/analysis/runs.csv" \
  || { cat "$work/analysis/runs.csv"; echo "FAIL: the extension's init is not grouped by its gain"; exit 1; }
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  LOCI_PLUGIN_PATH="$work/build" "$work/prefix/bin/loci" report "$work/analysis" >/dev/null
  # Every probe in analysis.json is drawn: the extension's in the panel for registered probes.
  grep -q -- "<!-- row norm spread -->" "$work/analysis/figures/registered_probes_vs_sigma.svg" \
    || { echo "FAIL: the extension's probe is not drawn in the report"; exit 1; }
  for tick in 0.2 0.5; do
    grep -q -- "<!-- $tick -->" "$work/analysis/figures/task_vs_sigma.svg" \
      || { echo "FAIL: sigma $tick is not on the task-against-sigma figure"; exit 1; }
  done
fi
# A generator-only project with LibTorch hidden from CMake, against the install and against the build tree (no
# install at all): both build, and the build tree's loci generates with it the same bytes as before.
for where in install build_tree; do
  if [ $where = install ]; then pkg="$work/prefix/lib/cmake/loci"; exe="$work/prefix/bin/loci"
  else pkg="$build_dir"; exe="$build_dir/bin/loci"; fi
  cmake -S "$source_dir/tests/out_of_tree/generator_only" -B "$work/gen_$where" -Dloci_DIR="$pkg" \
        -DCMAKE_DISABLE_FIND_PACKAGE_Torch=TRUE -DCMAKE_BUILD_TYPE=Release >/dev/null \
    || { echo "FAIL: a generator-only project does not configure without LibTorch ($where)"; exit 1; }
  cmake --build "$work/gen_$where" >/dev/null || { echo "FAIL: the generator-only project does not build ($where)"; exit 1; }
  LOCI_PLUGIN_PATH="$work/gen_$where" "$exe" generate -q "$work/hello.yaml" out="$work/data_$where"
  cmp "$work/data/train-00000-of-00003.h5" "$work/data_$where/train-00000-of-00003.h5" \
    || { echo "FAIL: the generator built against $where writes other bytes"; exit 1; }
done
echo "out-of-tree plugin built, listed and used; out-of-tree PE and init trained, probed and plotted by sigma;"
echo "a generator-only plugin built without LibTorch against the install and the build tree"
