// A trace's SSIM over runs, one line per device key (worst-tile SSIM dashed),
// drawn by hand in SVG: every point is a link to its result; a table below
// gives the same numbers to a screen reader or a copy-paste.
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

function chart(points, devices) {
  const runs = [...new Set(points.map((p) => p.run_id))].sort((a, b) => a - b);
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
  for (const [key, name, dash] of [["threshold", "SSIM threshold", "4 3"], ["tile_threshold", "worst-tile threshold", "1 3"]]) {
    const value = last.find((p) => p[key] !== null)?.[key];
    if (value) svg.append(s("line", { class: "threshold", x1: L, x2: W - R, y1: y(value), y2: y(value), "stroke-dasharray": dash }),
      s("text", { x: W - R, y: y(value) - 4, "text-anchor": "end" }, `${name} ${value}`));
  }
  devices.forEach((device, i) => {
    const mine = points.filter((p) => p.device_key === device && p.ssim !== null);
    const colour = COLOURS[i % COLOURS.length];
    for (const [key, dash] of [["ssim", ""], ["ssim_worst_tile", "5 4"]]) {
      const d = mine.filter((p) => p[key] !== null).map((p, j) => `${j ? "L" : "M"}${x(p.run_id).toFixed(1)},${y(p[key]).toFixed(1)}`).join("");
      if (d) svg.append(s("path", { d, fill: "none", stroke: colour, "stroke-width": 2, "stroke-dasharray": dash }));
    }
    for (const p of mine) {
      const failed = p.status !== "pass" && p.status !== "flaky";
      svg.append(s("a", { href: `/result.html?id=${p.result_id}`, "aria-label": `run ${p.run_id} ${device}: SSIM ${num(p.ssim)}, ${p.status}` },
        s("circle", { cx: x(p.run_id), cy: y(p.ssim), r: failed ? 5 : 3.5, fill: failed ? "#b3261e" : colour, stroke: "#fff" },
          s("title", {}, `run #${p.run_id} ${when(p.started_at)}\n${device}\nSSIM ${num(p.ssim)} · worst tile ${num(p.ssim_worst_tile)} · ${p.status}`))));
    }
  });
  return svg;
}

function legend(devices) {
  return h("div", { class: "legend" }, devices.map((d, i) => {
    const item = h("span", {}, d || "no device key");
    item.style.setProperty("--c", COLOURS[i % COLOURS.length]);
    return item;
  }), h("span", { class: "muted" }, "solid: SSIM · dashed: worst tile · red: thresholds · big red dots: failures"));
}

function table(points) {
  return h("table", { class: "list", id: "points" },
    h("thead", {}, h("tr", {}, ["Run", "Started", "Device", "Frame", "Status", "SSIM", "Worst tile", "Configuration"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, [...points].reverse().map((p) => h("tr", {},
      h("td", {}, h("a", { href: `/result.html?id=${p.result_id}` }, `#${p.run_id}`)), h("td", {}, when(p.started_at)),
      h("td", {}, p.device_key || "—"), h("td", {}, p.frame), h("td", {}, badge(p.status)),
      h("td", {}, num(p.ssim)), h("td", {}, num(p.ssim_worst_tile)), h("td", {}, p.configuration || "default")))));
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
    const devices = [...new Set(points.map((p) => p.device_key))].sort();
    document.title = `${trace} history · retrace`;
    const pick = h("form", { class: "filters", method: "get", action: "/trace.html" },
      h("input", { type: "hidden", name: "trace", value: trace }),
      h("label", {}, "Frame", h("select", { name: "frame", onchange: (e) => e.target.form.submit() },
        frames.map((f) => h("option", { value: f, selected: f === frame }, f ? `frame ${f}` : "trace-level")))),
      h("noscript", {}, h("button", { type: "submit" }, "Show")));
    main.append(h("h1", {}, `${trace} `, h("span", { class: "muted" }, `SSIM history, frame ${frame}`)), pick,
      legend(devices), chart(points, devices),
      h("h2", {}, `Results (${points.length}), newest first`), table(points));
  } catch (error) {
    fail(main, error);
  }
}

main();
