#!/usr/bin/env bash
# Makes the virtual environment with PyTorch that benchmarks/sweep.py uses
# for its torch eager and torch.compile columns (about 3 GB from PyPI, CUDA
# wheels included). For benchmarks only: the build and the tests never
# import torch. torch.compile's CPU backend also needs a C++ compiler (g++,
# which scripts/setup installs).
#
#   bash benchmarks/torch_env.sh [DIR]     (default build/torch-env)
set -euo pipefail
cd "$(dirname "$0")/.."
env_dir=${1:-build/torch-env}
if [ ! -x "$env_dir/bin/python" ]; then
  python3 -m venv "$env_dir"
fi
"$env_dir/bin/pip" install -q --upgrade pip
"$env_dir/bin/pip" install -q torch numpy
"$env_dir/bin/python" -c 'import torch; print("torch", torch.__version__, "in", "'"$env_dir"'")'
