#!/usr/bin/env bash
# device call 3 (final check of merged main): README's main command from a fresh copy offline, timed demo
# runs, CUDA tests, TSDF bench with frames on the GPU and pinned
set -u
export PYTHONUNBUFFERED=1
G=$PWD/.gpu
O=${OUT:-/tmp/out}
S=$O/setup.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
  python3 -c "import torch,sys;print('torch', torch.__version__, torch.version.cuda, sys.executable, sys.version.split()[0])"; } > $S 2>&1
rm -rf /tmp/r /tmp/shared && cp -r $G/repo /tmp/r && mkdir -p /tmp/shared/data && cp -r $G/data/* /tmp/shared/data/
cd /tmp/r
TIMEFORMAT=%R
echo "== set-up + first demo (README: python3 -m smrnb demo, offline, SMRNB_WHEELS)" >> $S
{ time timeout 150 env SMRNB_WHEELS=$G/whl python3 -m smrnb demo --device cuda ; } >> $S 2>&1
ls -la out* >> $S 2>&1
.venv/bin/python -m pip install -q --no-index --find-links $G/twhl --find-links $G/whl pytest pytest-timeout >> $S 2>&1
D=$O/demo.txt
for i in 1 2 3 4 5; do
  t0=$(date +%s.%N)
  timeout 40 python3 -m smrnb demo --device cuda --output out_$i > /tmp/demo.log 2>&1
  t1=$(date +%s.%N)
  python3 -c "print('RUN $i %.3f' % ($t1 - $t0))" >> $D
  grep -E "warm-up|steps total|export |demo finished" /tmp/demo.log >> $D
done
cat /tmp/demo.log >> $D
python3 -c "import os;print('GLB bytes', os.path.getsize('out_5/mesh.glb'))" >> $D
T=$O/tsdf.txt
DATA=/tmp/shared/data/redwood-livingroom1-clean-micro
timeout 45 .venv/bin/python benchmarks/bench_tsdf_gpu.py --data $DATA --voxels 0.01,0.005 --reps 3 --frames-on device > $T 2>&1
timeout 45 .venv/bin/python benchmarks/bench_tsdf_gpu.py --data $DATA --voxels 0.01,0.005 --reps 3 --frames-on pinned >> $T 2>&1
timeout 110 .venv/bin/python -m pytest -q -m cuda -p no:cacheprovider --timeout 60 tests/geometry > $O/tests.txt 2>&1
echo "tests exit $?" >> $O/tests.txt
tail -3 $S; tail -4 $O/tests.txt; grep -E "RUN|steps total|GLB" $D; grep -E "^\| " $T
