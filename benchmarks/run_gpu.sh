#!/usr/bin/env bash
# smrnb on a CUDA machine, in one go: the doctor's report of that machine, every CUDA-marked test and the GPU
# benchmarks. Run from the repository root: `bash benchmarks/run_gpu.sh`; files land in ${OUT:-gpu-out}/.
# Needs python3 with torch (CUDA build) and smrnb's dependencies importable (pip install -e ".[test]").
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
(nvidia-smi; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv) > "$OUT/nvidia-smi.txt" 2>&1
python3 -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0), torch.cuda.get_arch_list())" \
  > "$OUT/torch.txt" 2>&1
/usr/bin/time -f "smr-doctor wall %e s" python3 -m smrnb.doctor.cli --json > "$OUT/doctor.json" 2> "$OUT/doctor.err"
echo "smr-doctor --json exit $?" >> "$OUT/doctor.err"
python3 -m smrnb.doctor.cli > "$OUT/doctor.txt" 2>&1
timeout 300 python3 -m pytest -q -m cuda -p no:cacheprovider --timeout 240 tests/geometry > "$OUT/cuda_tests.txt" 2>&1
echo "cuda tests exit $?" >> "$OUT/cuda_tests.txt"
timeout 150 python3 benchmarks/bench_marching_cubes.py --device cuda > "$OUT/bench_marching_cubes.txt" 2>&1
timeout 90 python3 benchmarks/bench_voxelize.py --device cuda > "$OUT/bench_voxelize.txt" 2>&1
timeout 200 python3 benchmarks/bench_tsdf_gpu.py --data "${SMRNB_REDWOOD:-../shared/data/redwood-livingroom1-clean-micro}" \
  > "$OUT/bench_tsdf_gpu.txt" 2>&1
timeout 150 python3 benchmarks/bench_demo.py --device cuda --runs 5 > "$OUT/bench_demo.txt" 2>&1
tail -3 "$OUT/cuda_tests.txt"; cat "$OUT/doctor.err"
