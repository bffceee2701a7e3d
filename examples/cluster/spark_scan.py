"""Scan a corpus in shards with Spark, then merge them: `bracewalk scan --shard I/N` is the
map, one process per task, and `bracewalk scan --merge` the reduce.

    spark-submit spark_scan.py --shards 16 --out shards/ --root /corpus /corpus
    python3 spark_scan.py --master local[2] --shards 8 --out shards/ /corpus

Every executor needs the bracewalk binary (`--bracewalk PATH`, or on PATH) and the corpus at the
path given (or anywhere, with `--root`: ids are named from the root). Shards are written to
`--out`, which the machine that merges must see. A task that fails is run again up to
`spark.task.maxFailures` times (4 on a cluster; `local[N,4]` for a local master).
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
    --die-with-parent: an executor's worker killed takes its scan with it, so no late shard is
    written."""
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
    p.add_argument("paths", nargs="+", help="what to scan, as every executor sees it")
    p.add_argument("--shards", type=int, required=True, help="how many parts to cut the corpus into")
    p.add_argument("--out", required=True, help="where the shards are written")
    p.add_argument("--root", help="the corpus root ids are named from (default: the paths' common directory)")
    p.add_argument("--options", default="", help="options for the scan and the merge (--compare, --field, --reader, …)")
    p.add_argument("--merge-options", default="", help="how the merge prints (--json, --markdown, --list)")
    p.add_argument("--bracewalk", default="bracewalk", help="the binary, as every executor finds it")
    p.add_argument("--master", help="`local[2,4]`: 2 cores, 4 tries a task; default: spark-submit's")
    a = p.parse_args()

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("bracewalk scan")
    if a.master:
        builder = builder.master(a.master)
    # One core a task: a scan uses the cores it is given.
    spark = builder.config("spark.task.cpus", "1").getOrCreate()
    os.makedirs(a.out, exist_ok=True)
    options = shlex.split(a.options)
    scan_args = [*options, *(["--root", a.root] if a.root else []), *a.paths]
    parts = [f"{i}/{a.shards}" for i in range(1, a.shards + 1)]
    bracewalk, out = a.bracewalk, a.out
    rdd = spark.sparkContext.parallelize(parts, len(parts))
    shards = rdd.map(lambda part: scan_part(bracewalk, part, scan_args, out)).collect()
    spark.stop()
    merge = [a.bracewalk, "scan", "--merge", *shards, *options, *shlex.split(a.merge_options)]
    return subprocess.run(merge).returncode


if __name__ == "__main__":
    sys.exit(main())
