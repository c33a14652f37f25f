// A trace's history over runs (ordered by their start), one line per
// configuration and device key: SSIM (worst tile dashed) and, beside it, the
// colour gate's ΔE with its threshold; a failure's dot names the gates that
// failed. Drawn by hand in SVG: every point is a link to its result; a table
// below gives the same numbers to a screen reader or a copy-paste.
import { get } from "./api.js";
import { h, page, badge, num, when, params, fail } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
// device lines; red is kept for failures and the threshold
const COLOURS = ["#1d5fa8", "#0f8a8a", "#c26a00", "#6e2a8c", "#5b6675", "#7a5c1e"];
const W = 900, H = 320, L = 56, R = 16, T = 16, B = 36;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

const seriesOf = (p) => `${p.configuration || "default"} · ${p.device_key || "no device key"}`;

// The gates a point failed: ssim, tile, colour (compare/README.md).
export function failedGates(p) {
  const failed = [];
  if (p.ssim !== null && p.threshold !== null && p.ssim < p.threshold) failed.push("ssim");
  if (p.ssim_worst_tile !== null && p.tile_threshold !== null && p.ssim_worst_tile < p.tile_threshold) failed.push("tile");
  if (p.delta_e !== null && p.colour_threshold !== null && p.delta_e > p.colour_threshold) failed.push("colour");
  return failed;
}

// ΔE per run and series, with the colour threshold.
function deltaChart(points, series, runs) {
  const HD = 200;
  const values = points.map((p) => p.delta_e).filter((v) => v !== null && v !== undefined);
  const threshold = [...points].reverse().find((p) => p.colour_threshold !== null)?.colour_threshold ?? null;
  const high = Math.max(1, threshold ?? 0, ...values) * 1.1;
  const x = (run) => L + (runs.length < 2 ? (W - L - R) / 2 : (runs.indexOf(run) * (W - L - R)) / (runs.length - 1));
  const y = (v) => T + (1 - v / high) * (HD - T - B);
  const svg = s("svg", { class: "chart", id: "delta-chart", viewBox: `0 0 ${W} ${HD}`, role: "img",
    "aria-label": "colour ΔE per run and series, with its threshold" });
  for (let i = 0; i <= 2; i++)
    svg.append(s("text", { x: L - 6, y: y((high * i) / 2) + 4, "text-anchor": "end" }, ((high * i) / 2).toFixed(1)));
  if (threshold !== null)
    svg.append(s("line", { class: "threshold", x1: L, x2: W - R, y1: y(threshold), y2: y(threshold), "stroke-dasharray": "4 3" }),
      s("text", { x: W - R, y: y(threshold) - 4, "text-anchor": "end" }, `ΔE threshold ${threshold}`));
  series.forEach((name, i) => {
    const mine = points.filter((p) => seriesOf(p) === name && p.delta_e !== null && p.delta_e !== undefined);
    const d = mine.map((p, j) => `${j ? "L" : "M"}${x(p.run_id).toFixed(1)},${y(p.delta_e).toFixed(1)}`).join("");
    if (d) svg.append(s("path", { d, fill: "none", stroke: COLOURS[i % COLOURS.length], "stroke-width": 2 }));
    for (const p of mine) {
      const bad = threshold !== null && p.delta_e > (p.colour_threshold ?? threshold);
      svg.append(s("circle", { cx: x(p.run_id), cy: y(p.delta_e), r: bad ? 5 : 3, fill: bad ? "#b3261e" : COLOURS[i % COLOURS.length] },
        s("title", {}, `run #${p.run_id} ${name}: ΔE ${num(p.delta_e, 2)}`)));
    }
  });
  return svg;
}

function chart(points, devices, runs) {
  const values = points.flatMap((p) => [p.ssim, p.ssim_worst_tile]).filter((v) => v !== null);
  const lowest = Math.min(1, ...values, ...points.flatMap((p) => [p.threshold ?? 1, p.tile_threshold ?? 1]));
  const low = Math.max(0, lowest - Math.max(0.005, (1 - lowest) * 0.15));
  const x = (run) => L + (runs.length < 2 ? (W - L - R) / 2 : (runs.indexOf(run) * (W - L - R)) / (runs.length - 1));
  const y = (v) => T + ((1 - v) / (1 - low || 1)) * (H - T - B);
  const svg = s("svg", { class: "chart", id: "chart", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": "SSIM per run and device; worst tile dashed" });
  const grid = s("g", { class: "grid" });
  for (let i = 0; i <= 4; i++) {
    const v = low + ((1 - low) * i) / 4;
    grid.append(s("line", { x1: L, x2: W - R, y1: y(v), y2: y(v) }),
      s("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(4)));
  }
  svg.append(grid, s("text", { x: L, y: H - 8 }, `run #${runs[0] ?? ""}`),
    s("text", { x: W - R, y: H - 8, "text-anchor": "end" }, `run #${runs[runs.length - 1] ?? ""}`));
  const last = [...points].reverse();
  // The thresholds' names sit at the left end of their lines, where the
  // oldest points are (the newest, at the right, carry the failure labels),
  // the second one under its line when the two lines are close.
  let above = null;
  for (const [key, name, dash] of [["threshold", "SSIM threshold", "4 3"], ["tile_threshold", "worst-tile threshold", "1 3"]]) {
    const value = last.find((p) => p[key] !== null)?.[key];
    if (!value) continue;
    const close = above !== null && Math.abs(y(value) - above) < 16;
    svg.append(s("line", { class: "threshold", x1: L, x2: W - R, y1: y(value), y2: y(value), "stroke-dasharray": dash }),
      s("text", { x: L + 6, y: close ? y(value) + 13 : y(value) - 4 }, `${name} ${value}`));
    above = y(value);
  }
  devices.forEach((device, i) => {
    const mine = points.filter((p) => seriesOf(p) === device && p.ssim !== null);
    const colour = COLOURS[i % COLOURS.length];
    for (const [key, dash] of [["ssim", ""], ["ssim_worst_tile", "5 4"]]) {
      const d = mine.filter((p) => p[key] !== null).map((p, j) => `${j ? "L" : "M"}${x(p.run_id).toFixed(1)},${y(p[key]).toFixed(1)}`).join("");
      if (d) svg.append(s("path", { d, fill: "none", stroke: colour, "stroke-width": 2, "stroke-dasharray": dash }));
    }
    for (const p of mine) {
      const failed = p.status !== "pass" && p.status !== "flaky";
      const gates = failedGates(p);
      svg.append(s("a", { href: `/result.html?id=${p.result_id}`, "aria-label": `run ${p.run_id} ${device}: SSIM ${num(p.ssim)}, ${p.status}${gates.length ? `, failed ${gates.join(" and ")}` : ""}` },
        s("circle", { cx: x(p.run_id), cy: y(p.ssim), r: failed ? 5 : 3.5, fill: failed ? "#b3261e" : colour, stroke: "#fff" },
          s("title", {}, `run #${p.run_id} ${when(p.started_at)}\n${device}\nSSIM ${num(p.ssim)} · worst tile ${num(p.ssim_worst_tile)} · ΔE ${num(p.delta_e, 2)} · ${p.status}`))));
      // a failure's gates, right of its dot, or left of it near the right edge
      const right = x(p.run_id) > W - R - 140;
      if (failed && gates.length)
        svg.append(s("text", { class: "gate", x: x(p.run_id) + (right ? -7 : 7), y: y(p.ssim) - 6,
          "text-anchor": right ? "end" : "start" }, gates.join("+")));
    }
  });
  return svg;
}

function legend(devices) {
  return h("div", { class: "legend" }, devices.map((d, i) => {
    const item = h("span", {}, d || "no device key");
    item.style.setProperty("--c", COLOURS[i % COLOURS.length]);
    return item;
  }), h("span", { class: "muted" }, "one line per configuration · device key; solid: SSIM · dashed: worst tile · red: thresholds · big red dots: failures, labelled with the gates that failed (ssim, tile, colour)"));
}

function table(points) {
  return h("table", { class: "list", id: "points" },
    h("thead", {}, h("tr", {}, ["Run", "Started", "Device", "Frame", "Status", "SSIM", "Worst tile", "ΔE", "Failed gates", "Configuration"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, [...points].reverse().map((p) => h("tr", {},
      h("td", {}, h("a", { href: `/result.html?id=${p.result_id}` }, `#${p.run_id}`)), h("td", {}, when(p.started_at)),
      h("td", {}, p.device_key || "—"), h("td", {}, p.frame), h("td", {}, badge(p.status)),
      h("td", {}, num(p.ssim)), h("td", {}, num(p.ssim_worst_tile)), h("td", {}, num(p.delta_e, 2)),
      h("td", {}, failedGates(p).join(", ") || "—"), h("td", {}, p.configuration || "default")))));
}

async function main() {
  const q = params();
  const trace = q.get("trace") || "";
  const main = page("Runs", h("p", { class: "crumbs" }, h("a", { href: "/" }, "Runs"), ` › trace ${trace}`));
  try {
    const data = await get("/api/history", { trace, device: q.get("device") });
    const frames = [...new Set(data.points.map((p) => p.frame))].sort((a, b) => a - b);
    const frame = q.has("frame") ? Number(q.get("frame")) : frames.find((f) => f > 0) ?? frames[0];
    const points = data.points.filter((p) => p.frame === frame);
    const devices = [...new Set(points.map(seriesOf))].sort();
    const runs = [...new Set(points.map((p) => p.run_id))]; /* the API's order: by start time */
    document.title = `${trace} history · retrace`;
    const pick = h("form", { class: "filters", method: "get", action: "/trace.html" },
      h("input", { type: "hidden", name: "trace", value: trace }),
      h("label", {}, "Frame", h("select", { name: "frame", onchange: (e) => e.target.form.submit() },
        frames.map((f) => h("option", { value: f, selected: f === frame }, f ? `frame ${f}` : "trace-level")))),
      h("noscript", {}, h("button", { type: "submit" }, "Show")));
    main.append(h("h1", {}, `${trace} `, h("span", { class: "muted" }, `SSIM history, frame ${frame}`)), pick,
      legend(devices), chart(points, devices, runs),
      h("h2", {}, "Colour ΔE"), deltaChart(points, devices, runs),
      h("h2", {}, `Results (${points.length}), newest first`), table(points));
  } catch (error) {
    fail(main, error);
  }
}

main();
