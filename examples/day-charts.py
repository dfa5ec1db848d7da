#!/usr/bin/env python3
"""The charts of a day's run (examples/bench-day.sh): PNGs drawn from its timeline.csv.

Usage: python3 examples/day-charts.py RESULTS_FOLDER
Writes into RESULTS_FOLDER: throughput.png, p99.png, rss.png, database.png, relay-lag.png
and cpu.png, each over the measured run's minutes, the node's restart marked. Needs matplotlib
(pip install matplotlib).
"""

import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(folder):
    """The timeline's columns as lists of floats, and the summary (empty if absent)."""
    with open(folder / "timeline.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    columns = {name: [float(row[name]) for row in rows] for name in rows[0]} if rows else {}
    summary_file = folder / "summary.json"
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    return columns, summary


def chart(folder, name, title, unit, minutes, lines, summary, goal=None):
    """One PNG: each (label, values) of lines over minutes, the goal and the restart marked."""
    figure, axes = plt.subplots(figsize=(9, 3.6), dpi=110)
    for label, values in lines:
        axes.plot(minutes, values, label=label, linewidth=1.2)
    if goal is not None:
        axes.axhline(goal[1], color="red", linestyle="--", linewidth=0.9, label=goal[0])
    restart = summary.get("restart", {}).get("at_s")
    if restart is not None:
        axes.axvline(restart / 60, color="grey", linestyle=":", linewidth=1, label="rocket restarted")
    axes.set_title(title)
    axes.set_xlabel("minutes")
    axes.set_ylabel(unit)
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(folder / f"{name}.png")
    plt.close(figure)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = Path(sys.argv[1])
    c, summary = read(folder)
    if not c:
        sys.exit(f"{folder}/timeline.csv has no rows")
    minutes = [t / 60 for t in c["t"]]
    chart(folder, "throughput", "Throughput (requests answered per second, both nodes)", "req/s",
          minutes, [("all", c["rps"]), ("reads", c["read_rps"]), ("writes", c["write_rps"])], summary)
    chart(folder, "p99", "Latency p99 per 10 s", "ms", minutes,
          [("reads p99", c["read_p99_ms"]), ("writes p99", c["write_p99_ms"]),
           ("reads p50", c["read_p50_ms"]), ("writes p50", c["write_p50_ms"])],
          summary, goal=("write goal 100 ms", 100))
    # Runs before the anonymous RSS was sampled have no such columns.
    anon = [(f"{node}'s heap (RssAnon)", c[f"{node}_anon_mib"])
            for node in ("warp", "rocket") if f"{node}_anon_mib" in c]
    chart(folder, "rss", "Resident memory per node", "MiB", minutes,
          [("warp", c["warp_rss_mib"]), ("rocket", c["rocket_rss_mib"])] + anon +
          [("warp's boards", c["warp_boards_mib"]), ("rocket's boards", c["rocket_boards_mib"])],
          summary)
    chart(folder, "database", "PostgreSQL database size (pg_database_size)", "MiB", minutes,
          [("database", c["database_mib"])], summary)
    chart(folder, "relay-lag", "Relay lag: oldest event not yet sequenced / delivered, and delivery p99",
          "seconds", minutes,
          [("not sequenced", c["unsequenced_age_s"]), ("webhook cursor", c["webhook_cursor_lag_s"]),
           ("NATS cursor", c["nats_cursor_lag_s"]), ("webhook delivery p99", c["webhook_delivery_p99_s"]),
           ("NATS delivery p99", c["nats_delivery_p99_s"])],
          summary, goal=("goal 1 s", 1))
    chart(folder, "cpu", "CPU (% of one core; machine: % of all cores)", "%", minutes,
          [("machine busy", c["machine_busy"]), ("nodes + PostgreSQL (% of machine)", c["serving_busy"]),
           ("warp", c["warp_cpu"]), ("rocket", c["rocket_cpu"]),
           ("PostgreSQL", c["postgres_cpu"]), ("generator", c["generator_cpu"])], summary)
    print(f"charts written to {folder}")


if __name__ == "__main__":
    main()
