#!/usr/bin/env python3
"""Joins the GPU and CPU CSVs of benchmarks/cpu_vs_gpu (one run each on one
machine) into the speedup table: per operation and degree the largest size
of each backend, DoFs/s and the share of its ceiling (src and dst once at
the copy bandwidth), and GPU / CPU.
   join_cpu_vs_gpu.py gpu.csv cpu.csv [joined.csv]"""
import csv
import sys


def largest(path):
    rows = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["operation"], int(row["degree"]))
            if key not in rows or int(row["dofs"]) > int(rows[key]["dofs"]):
                rows[key] = row
    return rows


gpu, cpu = largest(sys.argv[1]), largest(sys.argv[2])
header = ["operation", "degree", "gpu_dofs", "gpu_dofs_per_s",
          "gpu_of_ceiling", "cpu_ranks", "cpu_dofs", "cpu_dofs_per_s",
          "cpu_of_ceiling", "speedup"]
print("| operation | k | GPU DoFs | GPU DoFs/s | of ceiling | CPU DoFs/s "
      "(ranks) | of ceiling | GPU/CPU |")
print("|---|---|---|---|---|---|---|---|")
joined = []
for key in sorted(gpu, key=lambda k: (k[0], k[1])):
    if key not in cpu:
        continue
    g, c = gpu[key], cpu[key]
    rg, rc = float(g["dofs_per_s"]), float(c["dofs_per_s"])
    # The ceiling: src and dst once (16 B/DoF) at the copy bandwidth.
    fg = rg / (float(g["copy_bytes_per_s"]) / 16.)
    fc = rc / (float(c["copy_bytes_per_s"]) / 16.)
    joined.append([key[0], key[1], g["dofs"], rg, fg, c["ranks"], c["dofs"],
                   rc, fc, rg / rc])
    print(f"| {key[0]} | {key[1]} | {float(g['dofs']):.2e} | {rg:.2e} | "
          f"{100 * fg:.0f} % | {rc:.2e} ({c['ranks']}) | {100 * fc:.0f} % | "
          f"{rg / rc:.1f} |")
if len(sys.argv) > 3:
    with open(sys.argv[3], "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(joined)
