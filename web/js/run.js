// One run: its configuration, counts, and every result, failures first, as
// thumbnails (the diff image where there is one), filtered by status,
// configuration and trace name.
import { get, images } from "./api.js";
import { h, page, badge, counts, num, when, params, fail, listKeys } from "./ui.js";
import { diagnosesOfRun, diagnosisLine } from "./diagnosis.js";

// The run's diagnoses by result id (docs/FORMATS.md 7.4): a card says where its frame goes wrong.
let diagnoses = new Map();

function configuration(run) {
  const rows = [
    ["Device", `${run.device || "—"} (${run.driver || "driver unknown"})`],
    ["Device key", run.device_key || "—"],
    ["Host", run.host || "—"],
    ["Started", when(run.started_at)],
    ["Finished", when(run.finished_at)],
    ["retrace", run.retrace_version || "—"],
  ];
  if (run.shard) rows.push(["Shard", run.shard]);
  if (run.pipeline) rows.push(["Pipeline", run.pipeline]);
  if (run.golden_set) rows.push(["Goldens compared with", run.golden_set]);
  if (run.workarounds) rows.push(["Workaround set", run.workarounds]);
  if (run.delays) rows.push(["Delays", run.delays]);
  for (const config of run.configurations || [])
    rows.push([`Configuration “${config.name}”`,
      `workarounds: ${(config.workarounds || []).join(", ") || "none"}; delays: ${(config.delays || []).join(", ") || "none"}` +
      (config.skip_draws ? `; skip-draws ${config.skip_draws}` : "") + (config.diagnose ? `; failures diagnosed against ${config.diagnose}` : "")]);
  return h("dl", { class: "config", id: "configuration" }, rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

function thumbnail(result) {
  const src = result.has_diff ? images.diff(result.id)
    : result.has_actual ? images.actual(result.id)
    : result.golden_id ? images.golden(result.golden_id) : null;
  const what = result.has_diff ? "diff" : result.has_actual ? "actual" : "golden";
  return h("div", { class: "thumb" }, src
    ? h("img", { src, loading: "lazy", alt: `${what} image of ${result.trace} frame ${result.frame}` })
    : h("span", {}, result.frame ? "no image" : "no frame: trace-level result"));
}

// New, still failing since run N (last passed in run M), or fixed: from the result's own history.
function triage(result) {
  const t = result.triage;
  if (!t) return null;
  if (t.state === "new") return h("div", { class: "triage new" }, badge("new-failure", "new failure"));
  if (t.state === "fixed") return h("div", { class: "triage fixed" }, badge("fixed", "fixed"));
  return h("div", { class: "triage still" }, "still failing since ",
    h("a", { href: `/run.html?id=${t.since_run}` }, `run #${t.since_run}`),
    t.last_pass_run ? [", last passed in ", h("a", { href: `/run.html?id=${t.last_pass_run}` }, `run #${t.last_pass_run}`)] : ", never passed");
}

// New failures first, then those still failing, then the rest (the API's order within each).
function triageOrder(results) {
  const rank = (r) => (r.triage && r.triage.state === "new" ? 0 : r.triage && r.triage.state === "still-failing" ? 1 : 2);
  return results.map((r, i) => [r, i]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([r]) => r);
}

// One row per actual image that fails in more than one place (configurations, devices).
function groups(data) {
  const many = (data.groups || []).filter((g) => g.count > 1);
  if (!many.length) return null;
  const byId = new Map(data.results.map((r) => [r.id, r]));
  return h("section", { id: "groups" }, h("h2", {}, "The same image fails in several places"),
    h("table", { class: "list" },
      h("thead", {}, h("tr", {}, ["Image", "Fails", "Configurations", "Devices", "Results"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, many.map((g) => h("tr", { class: "group" },
        h("td", {}, h("code", {}, g.actual_hash.slice(0, 12))), h("td", {}, `${g.count} results`),
        h("td", {}, g.configurations.join(", ")), h("td", {}, g.device_keys.map((k) => k || "—").join(", ")),
        h("td", {}, g.result_ids.map((id) => h("a", { href: `/result.html?id=${id}` },
          `${byId.get(id)?.trace || ""} #${id} `))))))));
}

function card(result, joined) {
  const status = result.review === "accepted" && result.status !== "pass" ? "approved" : result.status;
  return h("a", { class: "card", href: `/result.html?id=${result.id}`, "data-status": result.status,
    "data-configuration": result.configuration || "default", "data-trace": result.trace },
    thumbnail(result),
    h("div", { class: "body" },
      h("div", { class: "name" }, h("span", {}, `${result.trace} · ${result.frame ? `frame ${result.frame}` : "whole trace"}`), badge(status)),
      h("div", {}, `SSIM ${num(result.ssim)} · worst tile ${num(result.ssim_worst_tile)}`,
        result.delta_e === null || result.delta_e === undefined ? null
          : h("span", { class: result.delta_e > result.colour_threshold ? "bad" : null }, ` · ΔE ${num(result.delta_e, 2)}`)),
      h("div", { class: "muted" }, `${joined ? `run #${result.run_id} · ` : ""}${result.configuration || "default"}${result.attempts > 1 ? ` · ${result.attempts} attempts` : ""}`),
      triage(result),
      diagnoses.has(result.id) ? h("div", { class: "diagnosis" }, diagnosisLine(diagnoses.get(result.id))) : null,
      result.message ? h("div", { class: "msg", title: result.message }, result.message) : null));
}

function filterBar(run, cards) {
  const statuses = [...new Set(run.results.map((r) => r.status))];
  const configs = [...new Set(run.results.map((r) => r.configuration || "default"))];
  const boxes = statuses.map((s) => h("input", { type: "checkbox", value: s, checked: true }));
  const config = h("select", { "aria-label": "configuration" },
    h("option", { value: "" }, "every configuration"), configs.map((c) => h("option", { value: c }, c)));
  const text = h("input", { type: "search", placeholder: "trace name", "aria-label": "trace name" });
  const apply = () => {
    const on = new Set(boxes.filter((b) => b.checked).map((b) => b.value));
    for (const c of cards)
      c.hidden = !on.has(c.dataset.status) || (config.value && c.dataset.configuration !== config.value) ||
        !c.dataset.trace.includes(text.value.trim());
  };
  for (const el of [...boxes, config, text]) el.addEventListener("input", apply);
  return h("div", { class: "chips", id: "filters" }, h("span", { class: "muted" }, "Show:"),
    boxes.map((box, i) => h("label", {}, box, statuses[i])), config, text);
}

// The runs one nightly job left on many machines (shards), joined.
function shardTable(runs) {
  return h("table", { class: "list", id: "shards" },
    h("thead", {}, h("tr", {}, ["Run", "Shard", "Device", "Host", "Started", "Results", "Outcome"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, runs.map((run) => h("tr", {},
      h("td", {}, h("a", { href: `/run.html?id=${run.id}` }, `#${run.id}`)), h("td", {}, run.shard || "—"),
      h("td", {}, run.device || "—", h("div", { class: "muted" }, run.device_key || "")), h("td", {}, run.host || "—"),
      h("td", {}, when(run.started_at)), h("td", {}, counts(run.counts)),
      h("td", {}, run.outcome ? badge(run.outcome) : h("span", { class: "muted" }, "running"))))));
}

function resultsHeading(shown, total) {
  return `Results (${total > shown ? `${shown} of ${total}` : shown}), new failures first`;
}

// A run larger than one page: the next pages are fetched on demand, so a
// 20,000-result run costs one page until someone asks for more.
function moreButton(run, cards, limit) {
  const total = run.results_total || 0;
  const button = h("button", { id: "more", type: "button" });
  const label = () => {
    button.textContent = `Show ${Math.min(total - cards.length, run.results.length)} more of ${total - cards.length} not shown`;
    button.hidden = cards.length >= total;
  };
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const next = await get(`/api/runs/${encodeURIComponent(run.id)}`, { limit, offset: cards.length });
      const more = triageOrder(next.results).map((r) => card(r, false));
      document.getElementById("results").append(...more);
      cards.push(...more);
      document.getElementById("results-heading").textContent = resultsHeading(cards.length, total);
      if (!more.length) button.hidden = true;
      else label();
    } catch (error) {
      button.textContent = `could not load more: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
  label();
  return button;
}

async function joined(query) {
  const what = query.pipeline ? `pipeline ${query.pipeline}` : `${query.label} ${query.date}`;
  const main = page("Runs", h("p", { class: "crumbs" }, h("a", { href: "/" }, "Runs"), ` › ${what}`));
  try {
    const data = await get("/api/joined", query);
    document.title = `${what} · retrace`;
    const cards = triageOrder(data.results).map((r) => card(r, true));
    main.append(
      h("h1", {}, `${query.pipeline ? "Pipeline " + query.pipeline : query.label} `,
        h("span", { class: "muted" }, `${query.date || ""} · ${data.runs.length} runs joined`)),
      h("div", { id: "counts" }, counts(data.counts, { all: true })),
      h("h2", {}, "Runs (shards)"), shardTable(data.runs),
      groups(data) || "",
      h("h2", {}, `Results (${data.results.length}), new failures first`),
      filterBar(data, cards), h("div", { class: "grid", id: "results" }, cards));
    listKeys(cards);
  } catch (error) {
    fail(main, error);
  }
}

async function main() {
  const q = params();
  if (!q.get("id") && q.get("pipeline")) return joined({ pipeline: q.get("pipeline") });
  if (!q.get("id") && q.get("label") && q.get("date")) return joined({ label: q.get("label"), date: q.get("date") });
  const id = q.get("id");
  const main = page("Runs", h("p", { class: "crumbs" }, h("a", { href: "/" }, "Runs"), ` › run #${id}`));
  try {
    // The server answers a page of a run's results (failures first); ?limit= here sets its size.
    const limit = q.get("limit") || undefined;
    const [run, found] = await Promise.all([get(`/api/runs/${encodeURIComponent(id)}`, { limit }), diagnosesOfRun(id)]);
    diagnoses = found;
    document.title = `Run #${run.id} · retrace`;
    const cards = triageOrder(run.results).map((r) => card(r, false));
    main.append(
      h("h1", {}, `Run #${run.id} `, h("span", { class: "muted" }, `${run.label || "unlabelled"} · ${run.device || ""}`), " ",
        run.outcome ? badge(run.outcome) : h("span", { class: "muted" }, "running")),
      // "All shards" joins one pipeline's runs, never every run of a label on a day.
      ...(run.pipeline ? [h("p", {}, `${run.shard ? `Shard ${run.shard} of` : "Part of"} pipeline ${run.pipeline}: `,
        h("a", { id: "all-shards", href: `/run.html?pipeline=${encodeURIComponent(run.pipeline)}` }, "all shards of this pipeline, joined"))]
        : run.shard ? [h("p", { class: "muted" }, `Shard ${run.shard}; the run names no pipeline (retrace run --pipeline, or CI_PIPELINE_ID), so its shards cannot be joined.`)] : []),
      h("div", { id: "counts" }, counts(run.counts, { all: true })),
      h("h2", {}, "Configuration"), h("div", { class: "panel" }, configuration(run)),
      groups(run) || "", /* append writes null as text */
      h("h2", { id: "results-heading" }, resultsHeading(cards.length, run.results_total)),
      filterBar(run, cards),
      h("div", { class: "grid", id: "results" }, cards),
      moreButton(run, cards, limit),
      h("p", { class: "keys" }, h("kbd", {}, "j"), " / ", h("kbd", {}, "k"), " move through the results, ", h("kbd", {}, "Enter"), " opens one."));
    listKeys(cards);
  } catch (error) {
    fail(main, error);
  }
}

main();
