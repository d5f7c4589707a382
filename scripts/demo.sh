#!/usr/bin/env bash
# The main job: the profiles, and what the disk model predicts each one delivers.
# (Conditioning a scratch directory and measuring it joins here as the conditioner lands.)
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== dmc list"
build/dmc list
echo
echo "== dmc predict: what each profile delivers (1 MiB transfers in MiB/s, 4 KiB in IOPS)"
build/dmc predict
