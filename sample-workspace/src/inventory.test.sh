#!/usr/bin/env bash
# A tiny "test suite" the chat can run with run_bash.
set -euo pipefail
grep -q "export function totalValue" src/inventory.ts && echo "ok - totalValue exists"
grep -q "export function lowStock" src/inventory.ts && echo "ok - lowStock exists"
