#!/usr/bin/env bash
# Runs one libFuzzer target for a while, in one process (the machine has 2 cores), on
# nightly with cargo-fuzz:
#   fuzz/run.sh TARGET [SECONDS]        (default 900)
# New inputs go to fuzz/corpus/TARGET (ignored by git); the committed seeds in
# fuzz/seeds/TARGET are read as a second corpus and never written. Findings land in
# fuzz/artifacts/TARGET; minimize one with
#   cargo +nightly fuzz tmin TARGET fuzz/artifacts/TARGET/crash-…
# and commit it as fuzz/seeds/TARGET/regression-NAME (tests/readers/fuzz.rs replays every seed).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh TARGET [SECONDS]}
seconds=${2:-900}
# The recorded walk (explain, the inspector) is quadratic on brace-laden text, and `readers`
# records eleven walks per input: past 4 KB an input spends its time there, not on new paths.
case $target in
    loader) max_len=16384 ;;
    json_parse) max_len=8192 ;;
    *) max_len=4096 ;;
esac
mkdir -p "fuzz/corpus/$target"
# The loader writes its files under TMPDIR for every input: keep that in memory.
export TMPDIR=${TMPDIR:-/dev/shm}
# No sanitizer: the crate has no unsafe code (it is forbidden), panics, stack overflows,
# hangs (-timeout) and memory (-rss_limit_mb) are caught without one, and AddressSanitizer
# made the targets 3x slower (30 against 95 inputs a second for `readers`). The time limit
# is wall-clock, and a niced fuzzer on a busy machine gets little of it: an input that takes
# 0.5 s alone took 11 s here under load, so the limit is 30 s, and a timeout is confirmed by
# timing the unit alone (`time fuzz/target/*/release/TARGET UNIT`) before it counts.
exec nice -n 10 cargo +nightly fuzz run --sanitizer none "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len="$max_len" \
    -print_final_stats=1
