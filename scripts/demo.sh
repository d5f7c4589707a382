#!/usr/bin/env bash
# The main job: shows the profiles and what the disk model predicts for each.
# (Conditioning a scratch directory and measuring it joins here as dmc and rawio land.)
set -euo pipefail
cd "$(dirname "$0")/.."
build/dmc list
