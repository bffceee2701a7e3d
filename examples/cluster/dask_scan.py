"""Scan a corpus in shards on a Dask cluster, then merge them: `bracewalk scan --shard I/N` is
the map, one process per task, and `bracewalk scan --merge` the reduce.

    python3 dask_scan.py --shards 16 --out shards/ --root /corpus /corpus
    python3 dask_scan.py --scheduler tcp://head:8786 --shards 64 --out /shared/shards \\
        --options "--field edits" --merge-options "--json" /corpus

Every worker needs the bracewalk binary (`--bracewalk PATH`, or on PATH) and the corpus at the
path given (or anywhere, with `--root`: ids are named from the root). Shards are written to
`--out`, which the machine that merges must see. Without `--scheduler`, a LocalCluster of
`--workers` processes runs the tasks, one thread each.
"""

import argparse
import os
import shlex
import subprocess
import sys
import uuid


def scan_part(bracewalk, part, scan_args, out_dir):
    """`bracewalk scan --shard PART … --json --list` into OUT_DIR, written aside and renamed
    when whole. Exit status 0 or 1 (some inputs had diagnostics) is a shard; 2 (nothing could
    be read, an error) or a signal is a failure, which the engine retries. --die-with-parent:
    a worker killed takes its scan with it, so no late shard is written."""
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
    p.add_argument("paths", nargs="+", help="what to scan, as every worker sees it")
    p.add_argument("--shards", type=int, required=True, help="how many parts to cut the corpus into")
    p.add_argument("--out", required=True, help="where the shards are written")
    p.add_argument("--root", help="the corpus root ids are named from (default: the paths' common directory)")
    p.add_argument("--options", default="", help="options for the scan and the merge (--compare, --field, --reader, …)")
    p.add_argument("--merge-options", default="", help="how the merge prints (--json, --markdown, --list)")
    p.add_argument("--bracewalk", default="bracewalk", help="the binary, as every worker finds it")
    p.add_argument("--scheduler", help="a running scheduler's address; default: a LocalCluster")
    p.add_argument("--workers", type=int, default=os.cpu_count(), help="the LocalCluster's workers")
    p.add_argument("--retries", type=int, default=3, help="how often a failed task is run again")
    a = p.parse_args()

    from dask.distributed import Client, LocalCluster

    os.makedirs(a.out, exist_ok=True)
    options = shlex.split(a.options)
    scan_args = [*options, *(["--root", a.root] if a.root else []), *a.paths]
    parts = [f"{i}/{a.shards}" for i in range(1, a.shards + 1)]
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        client = Client(LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True))
    with client:
        futures = client.map(scan_part, [a.bracewalk] * len(parts), parts, [scan_args] * len(parts),
                             [a.out] * len(parts), retries=a.retries, pure=False)
        shards = client.gather(futures)
    merge = [a.bracewalk, "scan", "--merge", *shards, *options, *shlex.split(a.merge_options)]
    return subprocess.run(merge).returncode


if __name__ == "__main__":
    sys.exit(main())
