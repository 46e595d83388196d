#!/usr/bin/env bash
# The Python venv make verify-agents runs Hermes Agent from: hermes-agent 0.19.0 and its
# dependencies, pinned with their hashes in scripts/verify-agents/hermes-requirements.txt and
# installed with pip install --require-hashes into the cache, outside the repository, one
# folder per requirements file. A venv's scripts name its folder, so it is made in place and
# taken as finished only once its .complete mark is there. Prints the venv's folder. About
# 300 MB. Needs a CPython of 3.11 to 3.13 (python3, or POND_HERMES_PYTHON).
source "$(dirname "$0")/lib.sh"
cd "$POND_ROOT"
req=scripts/verify-agents/hermes-requirements.txt
venv="$POND_CACHE/hermes-venv/$(sha256_of "$req" | cut -c1-16)"
pinned_venv "$venv" "$req" "${POND_HERMES_PYTHON:-python3}" "Hermes Agent for make verify-agents (set POND_HERMES_PYTHON for another Python)" 11 13
echo "$venv"
