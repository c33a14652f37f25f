// A failing result's diagnosis (docs/FORMATS.md 7.4): the first draw whose
// output diverges from the reference replay, shown on the result page beside
// the frame (the draw's target before and after on both sides, their diff,
// its command, pipeline and shaders), and the line the run page puts on a
// result's card.
import { get, ApiError } from "./api.js";
import { h, num } from "./ui.js";

// The result's diagnosis, or null when it has none (204) or the server knows none (404: an older server).
export async function diagnosisOf(resultId) {
  try {
    return await get(`/api/results/${encodeURIComponent(resultId)}/diagnosis`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

// The diagnoses of a run's results, by result id (an empty map when the server has none).
export async function diagnosesOfRun(runId) {
  try {
    const answer = await get(`/api/runs/${encodeURIComponent(runId)}/diagnoses`, { limit: 5000 });
    return new Map(answer.diagnoses.map((d) => [d.result, d]));
  } catch {
    return new Map(); /* an older server: the cards simply carry no line */
  }
}

// One line: what the diagnosis found.
export function diagnosisLine(d) {
  if (d.outcome === "diverged") return `diverges at draw ${d.draw} of ${d.draws}${d.command ? ` (${d.command})` : ""}`;
  if (d.outcome === "none") return `no draw of ${d.draws ?? "?"} diverges`;
  if (d.outcome === "no-draws") return "not diagnosed: the frame has no draws of its own";
  return "diagnosis failed";
}

function drawFigure(caption, src, id) {
  return h("figure", { id }, h("figcaption", {}, caption),
    src ? h("img", { src, alt: caption }) : h("div", { class: "none" }, "no image (no earlier draw wrote this target)"));
}

function shaderList(shaders) {
  if (!shaders || !shaders.length) return h("p", { class: "muted" }, "no shaders (not a pipeline draw)");
  return h("ul", { class: "shaders", id: "diagnosis-shaders" }, shaders.map((s) => h("li", {},
    h("code", {}, (s.stage || "").replace("VK_SHADER_STAGE_", "").replace("_BIT", "").toLowerCase()), " ",
    h("code", { class: "muted" }, s.xxh128 || ""),
    s.disassembly ? h("details", {}, h("summary", {}, "SPIR-V disassembly"), h("pre", {}, s.disassembly)) : null)));
}

function facts(d) {
  const rows = [
    ["Draw", `${d.draw} of ${d.draws}`],
    ["Command", d.command || "—"],
    ["Call number", d.call ?? "—"],
    ["Pipeline", d.pipeline || "none"],
    ["Target", d.target || "—"],
    ["SSIM of the draw's target", num(d.ssim)],
    ["Colour ΔE", num(d.delta_e, 2)],
    ["Reference", d.reference],
    ["Replays", d.replays ?? "—"],
    ["Diagnosed", d.diagnosed_at || "—"],
  ];
  return h("table", { class: "metrics", id: "diagnosis-facts" }, rows.map(([k, v]) =>
    h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, String(v)))));
}

// The result page's section, or null when the result has no diagnosis.
export function diagnosisSection(d) {
  if (!d) return null;
  const heading = h("h2", { id: "diagnosis-heading" }, d.outcome === "diverged"
    ? `Where it goes wrong: draw ${d.draw} of ${d.draws}` : "Diagnosis");
  if (d.outcome !== "diverged")
    return h("section", { id: "diagnosis", class: "panel" }, heading,
      h("p", {}, `${diagnosisLine(d)} against ${d.reference}.`), d.message ? h("p", { class: "muted" }, d.message) : null);
  const im = d.images || {};
  return h("section", { id: "diagnosis", class: "panel" }, heading,
    h("p", {}, `The first draw whose output differs from the reference replay (${d.reference}): `,
      h("code", {}, d.command || "?"), ` at call ${d.call ?? "?"}, pipeline `, h("code", {}, d.pipeline || "none"), "."),
    h("div", { class: "draws" },
      drawFigure("This replay, before the draw", im.before_test, "draw-before-test"),
      drawFigure("This replay, after the draw", im.after_test, "draw-after-test"),
      drawFigure("Reference, before the draw", im.before_reference, "draw-before-reference"),
      drawFigure("Reference, after the draw", im.after_reference, "draw-after-reference"),
      drawFigure("Diff after the draw", im.diff, "draw-diff")),
    h("div", { class: "row split" }, facts(d), h("div", {}, h("h3", {}, "Shaders"), shaderList(d.shaders))));
}
