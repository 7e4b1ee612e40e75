#!/usr/bin/env bash
# Summarize the last N commits (default 20): count per author and per conventional type.
set -euo pipefail
n="${1:-20}"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git repository" >&2; exit 1; }
echo "Last $n commits:"
git log -n "$n" --pretty=format:'%h %an: %s'
echo
echo
echo "By author:"
git log -n "$n" --pretty=format:'%an' | sort | uniq -c | sort -rn
echo
echo "By type:"
git log -n "$n" --pretty=format:'%s' | sed -nE 's/^([a-z]+)(\([^)]*\))?!?:.*/\1/p' | sort | uniq -c | sort -rn
