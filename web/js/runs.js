// The runs list: newest first, counts, label, device, a nightly-history strip
// per run (that run and the earlier ones of its label and device), filters
// and paging.
import { get } from "./api.js";
import { h, page, badge, counts, when, params, fail, listKeys } from "./ui.js";

const PAGE = 25;

function strip(run) {
  return h("span", { class: "strip", "aria-label": "history of this label and device, oldest first" },
    run.history.map((past) => h("a", {
      href: `/run.html?id=${past.id}`,
      class: `${past.outcome || "unknown"}${past.id === run.id ? " current" : ""}`,
      title: `run ${past.id}: ${past.outcome || "unfinished"}, ${when(past.started_at)}`,
      "aria-label": `run ${past.id} ${past.outcome || "unfinished"}`,
    })));
}

function row(run) {
  return h("tr", { "data-run": run.id },
    h("td", {}, h("a", { href: `/run.html?id=${run.id}` }, `#${run.id}`)),
    h("td", {}, when(run.started_at)),
    // "all shards" is one pipeline's runs (never every run of a label on a day)
    h("td", {}, run.label || "—", run.shard || run.pipeline ? h("div", { class: "muted" },
      run.shard ? `shard ${run.shard}` : "", run.pipeline ? [run.shard ? " · " : "",
        h("a", { href: `/run.html?pipeline=${encodeURIComponent(run.pipeline)}` }, `all shards of pipeline ${run.pipeline}`)] : null) : null),
    h("td", {}, run.device || "—", h("div", { class: "muted" }, run.device_key || "")),
    h("td", {}, counts(run.counts)),
    h("td", {}, strip(run)),
    h("td", {}, run.outcome ? badge(run.outcome) : h("span", { class: "muted" }, "running")));
}

function filters(q) {
  const field = (name, label, input) => h("label", {}, label, input);
  const status = h("select", { name: "status" },
    ["", "failed", "passed", "fail", "crash", "timeout", "error", "new", "flaky"].map((s) =>
      h("option", { value: s, selected: q.get("status") === s }, s || "any")));
  return h("form", { class: "filters", method: "get", action: "/" },
    field("label", "Label", h("input", { name: "label", value: q.get("label") || "", placeholder: "nightly" })),
    field("device", "Device or key", h("input", { name: "device", value: q.get("device") || "" })),
    field("status", "Outcome or result status", status),
    h("button", { type: "submit" }, "Filter"),
    h("a", { href: "/" }, "clear"));
}

function pager(q, data) {
  const go = (offset) => {
    const next = new URLSearchParams(q);
    next.set("offset", offset);
    return `/?${next}`;
  };
  const first = data.offset + 1, last = data.offset + data.runs.length;
  return h("nav", { class: "pager", "aria-label": "pages" },
    data.offset > 0 ? h("a", { href: go(Math.max(0, data.offset - PAGE)) }, "← newer") : null,
    h("span", { class: "muted" }, data.total ? `${first}–${last} of ${data.total}` : "no runs"),
    last < data.total ? h("a", { href: go(last) }, "older →") : null);
}

async function main() {
  const q = params();
  const main = page("Runs", h("h1", {}, "Runs"), filters(q));
  try {
    const data = await get("/api/runs", { label: q.get("label"), device: q.get("device"),
      status: q.get("status"), limit: PAGE, offset: q.get("offset") || 0 });
    const rows = data.runs.map(row);
    main.append(h("table", { class: "list", id: "runs" },
      h("thead", {}, h("tr", {}, ["Run", "Started", "Label", "Device", "Results", "History", "Outcome"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows)),
      pager(q, data),
      h("p", { class: "keys" }, h("kbd", {}, "j"), " / ", h("kbd", {}, "k"), " move, ",
        h("kbd", {}, "Enter"), " opens; every link and button is reachable with ", h("kbd", {}, "Tab"), "."));
    listKeys(rows);
  } catch (error) {
    fail(main, error);
  }
}

main();
