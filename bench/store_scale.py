#!/usr/bin/python3
"""bench/store_scale.py — times the dashboard over a farm-sized store (issue 18 §3).

  store_scale.py URL DB TOKEN REQUESTS [SERVER_PID]

Against `retrace serve --cache 0` (every answer asks SQLite) at URL over the
store DB (made by build/bench/store_fill), asks REQUESTS times each of: the
runs list (pages and filters), a run page, a result page (failures and
passes) and a trace's history, each for an id or name picked at random from
the store (seeded: the same picks every time), one request at a time on one
kept-alive connection; then uploads a run of 20,000 results 3 times (new run
ids). Prints a markdown table (p50, p99, max in ms; goals p99 < 20 ms, an
upload < 2 s; with SERVER_PID, the server's own CPU time per request, from
/proc, which other jobs on a loaded machine do not inflate) and the store's size per million results by table, and writes
"NAME<TAB>GOAL<TAB>WHAT<TAB>ratios" lines to $BENCH_RATIOS when set (each
ratio p99/goal, lower is better; bench/summary.py's table).
Exit 1 when a request fails.
"""
import base64
import http.client
import json
import os
import random
import sqlite3
import sys
import time
import urllib.parse
import uuid

GOAL_MS = 20.0
UPLOAD_GOAL_S = 2.0
UPLOAD_RESULTS = 20000
# A 1x1 PNG (valid CRCs: the server decodes uploaded images).
TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="


def cpu_seconds(pid):
    if not pid:
        return 0.0
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))
    return values[k]


class Client:
    def __init__(self, url, token):
        u = urllib.parse.urlparse(url)
        self.host, self.port, self.token = u.hostname, u.port, token
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)

    def request(self, method, path, body=None):
        headers = {}
        if body is not None:
            headers = {"Authorization": "Bearer " + self.token, "Content-Type": "application/json"}
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers)
            r = self.conn.getresponse()
            data = r.read()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
            raise
        ms = (time.perf_counter() - t0) * 1000
        if r.status >= 300:
            raise RuntimeError(f"{method} {path}: {r.status} {data[:200]!r}")
        return ms, data


def picks(db, requests, rng):
    """What to ask for, read from the store itself."""
    q = lambda sql, *a: [row[0] for row in db.execute(sql, a)]
    top = q("SELECT max(id) FROM runs")[0]
    runs = [rng.randint(1, top) for _ in range(requests)]
    top_result = q("SELECT max(id) FROM results")[0]
    results = [rng.randint(1, top_result) for _ in range(requests // 2)]
    failing = q("SELECT id FROM results WHERE actual_image IS NOT NULL ORDER BY id DESC LIMIT 5000")
    results += [rng.choice(failing) for _ in range(requests - len(results))] if failing else []
    traces = q("SELECT name FROM traces")
    devices = q("SELECT DISTINCT device_key FROM runs WHERE device_key IS NOT NULL LIMIT 50")
    total_runs = q("SELECT count(*) FROM runs")[0]
    lists = []
    for i in range(requests):
        kind = i % 4
        if kind == 0:
            lists.append("/api/runs")
        elif kind == 1:
            lists.append(f"/api/runs?limit=50&offset={rng.randint(0, max(0, total_runs - 50))}")
        elif kind == 2:
            lists.append("/api/runs?label=nightly&device=" + urllib.parse.quote(rng.choice(devices)))
        else:
            lists.append("/api/runs?status=crash")
    history = []
    for i in range(requests):
        t = urllib.parse.quote(rng.choice(traces))
        history.append(f"/api/history?trace={t}" if i % 2 else
                       f"/api/history?trace={t}&device={urllib.parse.quote(rng.choice(devices))}")
    return {
        "GET /api/runs (pages, filters)": lists,
        "GET /api/runs/ID (a run page)": [f"/api/runs/{r}" for r in runs],
        "GET /api/results/ID (a result page)": [f"/api/results/{r}" for r in results],
        "GET /api/history?trace= (a trace's history)": history,
    }


def upload_body(n, rng, device):
    results = []
    for i in range(n):
        trace, frame = f"upload-{i // 5:04d}", i % 5 + 1
        if rng.random() < 0.01:
            results.append({"trace": trace, "frame": frame, "status": "fail", "ssim": 0.9,
                            "ssim_worst_tile": 0.5, "threshold": 0.995, "tile_threshold": 0.98,
                            "diff_pixels": 100, "max_diff": 90, "replay_ms": 31.5,
                            "message": "below the SSIM thresholds", "actual_png": TINY_PNG,
                            "diff_png": TINY_PNG})
        else:
            results.append({"trace": trace, "frame": frame, "status": "pass",
                            "ssim": 0.9996, "ssim_worst_tile": 0.995, "threshold": 0.995,
                            "tile_threshold": 0.98, "diff_pixels": 3, "max_diff": 2,
                            "replay_ms": 28.25})
    run = {"id": str(uuid.UUID(int=rng.getrandbits(128))), "label": "nightly", "host": "bench",
           "device": "bench device", "device_key": device,
           "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "outcome": "failed"}
    return json.dumps({"format": "retrace-run", "version": 1, "run": run, "results": results})


def sizes(db):
    count = db.execute("SELECT count(*) FROM results").fetchone()[0]
    rows = db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    return count, rows


def ratio_line(name, what, values, goal):
    path = os.environ.get("BENCH_RATIOS")
    if path:
        with open(path, "a") as f:
            f.write(f"{name}\t1\t{what}\t{' '.join(f'{v / goal:.3f}' for v in values)}\n")


def main():
    url, db_path, token, requests = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    pid = sys.argv[5] if len(sys.argv) > 5 else None
    rng = random.Random(18)
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    asked = picks(db, requests, rng)
    client = Client(url, token)
    print("| request (uncached: --cache 0) | n | p50 ms | p99 ms | max ms | server CPU ms/request | p99 goal |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    failed = False
    for name, paths in asked.items():
        client.request("GET", paths[0])  # one first, so a cold start is not in the numbers
        times = []
        cpu0 = cpu_seconds(pid)
        for p in paths:
            try:
                times.append(client.request("GET", p)[0])
            except RuntimeError as e:
                print(f"store_scale: {e}", file=sys.stderr)
                failed = True
        if not times:
            continue
        p99 = percentile(times, 99)
        cpu = (cpu_seconds(pid) - cpu0) * 1000 / len(times)
        print(f"| {name} | {len(times)} | {percentile(times, 50):.1f} | {p99:.1f} | {max(times):.1f} |"
              f" {cpu:.2f} | {'met' if p99 < GOAL_MS else 'NOT met'} (< {GOAL_MS:.0f}) |")
        ratio_line("store " + name.split(" (")[1].rstrip(")"), "p99 / 20 ms, 10M-result store", [p99], GOAL_MS)
    uploads = []
    cpu0 = cpu_seconds(pid)
    for i in range(3):
        body = upload_body(UPLOAD_RESULTS, rng, f"bench:{i}")
        try:
            ms, _ = client.request("POST", "/api/runs", body=body.encode())
            uploads.append(ms / 1000)
        except RuntimeError as e:
            print(f"store_scale: {e}", file=sys.stderr)
            failed = True
    if uploads:
        print(f"uploads, each in ms: {' '.join(f'{u * 1000:.0f}' for u in uploads)}", file=sys.stderr)
        cpu = (cpu_seconds(pid) - cpu0) * 1000 / len(uploads)
        print(f"| POST /api/runs, {UPLOAD_RESULTS:,} results ({len(body) / 1e6:.1f} MB) | {len(uploads)} |"
              f" {sorted(uploads)[len(uploads) // 2] * 1000:.0f} | {max(uploads) * 1000:.0f} |"
              f" {max(uploads) * 1000:.0f} | {cpu:.0f} | {'met' if max(uploads) < UPLOAD_GOAL_S else 'NOT met'} (< 2 s) |")
        ratio_line("store upload 20k results", "seconds / 2 s, 10M-result store", uploads, UPLOAD_GOAL_S)
    count, rows = sizes(db)
    total = sum(r[1] for r in rows)
    print()
    print(f"Store: {count:,} results, {total / 2**20:,.0f} MiB in pages:"
          f" {total / 2**20 / (count / 1e6):,.1f} MiB per million results")
    print()
    print("| table or index | MiB | MiB per million results |")
    print("| --- | ---: | ---: |")
    for name, size in rows[:14]:
        print(f"| {name} | {size / 2**20:,.1f} | {size / 2**20 / (count / 1e6):,.1f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
