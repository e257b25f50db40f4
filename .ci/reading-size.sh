#!/usr/bin/env bash
# Prints issue #38's size figures for package reading: lines of non-test Go,
# comparisons against string literals (== / != with a quoted operand, and the
# quoted values of case clauses), and the data file's rows. Not run by CI: it
# measures, it does not judge.
set -euo pipefail
cd "$(dirname "$0")/../reading"
files=$(ls *.go | grep -v '_test\.go$')
lines=$(cat $files | wc -l)
eq=$(grep -oE '(==|!=) *"[^"]*"|"[^"]*" *(==|!=)' $files | wc -l)
eq_nonempty=$(grep -oE '(==|!=) *"[^"]+"|"[^"]+" *(==|!=)' $files | wc -l)
cases=$(grep -E '^\s*case "' $files | grep -oE '"[^"]*"' | wc -l || true)
rows=$(grep -cvE '^\s*(#|$)' vocab.txt)
echo "non-test Go lines: $lines"
echo "literal comparisons (==, !=): $eq ($eq_nonempty against a non-empty string)"
echo "case-clause literals: $cases"
echo "vocab.txt rows: $rows"
