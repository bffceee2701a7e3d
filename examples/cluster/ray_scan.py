"""Scan a corpus in shards on a Ray cluster, then merge them: `bracewalk scan --shard I/N` is
the map, one process per task, and `bracewalk scan --merge` the reduce.

    python3 ray_scan.py --shards 16 --out shards/ --root /corpus /corpus
    python3 ray_scan.py --address auto --shards 64 --out /shared/shards /corpus

Every node needs the bracewalk binary (`--bracewalk PATH`, or on PATH) and the corpus at the
path given (or anywhere, with `--root`: ids are named from the root). Shards are written to
`--out`, which the machine that merges must see. Ray retries a task whose worker died, and,
with `retry_exceptions`, one that raised: a scan that failed.
"""

import argparse
import os
import shlex
import subprocess
import sys
import uuid


def scan_part(bracewalk, part, scan_args, out_dir):
    """`bracewalk scan --shard PART … --json --list` into OUT_DIR, written aside and renamed
    when whole. Exit status 0 or 1 is a shard; 2 or a signal is a failure, retried.
    --die-with-parent: a worker killed takes its scan with it, so no late shard is written."""
    i, n = part.split("/")
    final = os.path.join(out_dir, f"shard-{int(i):05d}-of-{n}.json")
    aside = f"{final}.{uuid.uuid4().hex}.part"
    command = [bracewalk, "scan", "--shard", part, "--json", "--list", "--die-with-parent", *scan_args]
    with open(aside, "wb") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.PIPE)
    if done.returncode not in (0, 1):
        os.unlink(aside)
        raise RuntimeError(f"{shlex.join(command)} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    os.replace(aside, final)
    return final


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="+", help="what to scan, as every node sees it")
    p.add_argument("--shards", type=int, required=True, help="how many parts to cut the corpus into")
    p.add_argument("--out", required=True, help="where the shards are written")
    p.add_argument("--root", help="the corpus root ids are named from (default: the paths' common directory)")
    p.add_argument("--options", default="", help="options for the scan and the merge (--compare, --field, --reader, …)")
    p.add_argument("--merge-options", default="", help="how the merge prints (--json, --markdown, --list)")
    p.add_argument("--bracewalk", default="bracewalk", help="the binary, as every node finds it")
    p.add_argument("--address", help="a running cluster (`auto`); default: a local one")
    p.add_argument("--retries", type=int, default=3, help="how often a failed task is run again")
    a = p.parse_args()

    import ray

    # The workers' output kept off the standard output, which the merge prints to.
    ray.init(address=a.address, log_to_driver=False)
    os.makedirs(a.out, exist_ok=True)
    options = shlex.split(a.options)
    scan_args = [*options, *(["--root", a.root] if a.root else []), *a.paths]
    # One CPU a task: a scan uses the cores it is given, and the cluster's slots are the cores.
    task = ray.remote(num_cpus=1, max_retries=a.retries, retry_exceptions=True)(scan_part)
    parts = [f"{i}/{a.shards}" for i in range(1, a.shards + 1)]
    shards = ray.get([task.remote(a.bracewalk, part, scan_args, a.out) for part in parts])
    merge = [a.bracewalk, "scan", "--merge", *shards, *options, *shlex.split(a.merge_options)]
    return subprocess.run(merge).returncode


if __name__ == "__main__":
    sys.exit(main())
