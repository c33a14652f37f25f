// One result: golden, actual and diff side by side; a viewer that flickers
// between golden and actual or splits them with a slider, and zooms to the
// tile where they differ most; the metrics; Approve and Mark known-bad.
import { get, post, images, ApiError } from "./api.js";
import { h, page, badge, num, when, params, fail } from "./ui.js";
import { worstTile } from "./tiles.js";
import { diagnosisOf, diagnosisSection } from "./diagnosis.js";

const FLICKER_MS = 450;

function loaded(img) {
  return img.complete && img.naturalWidth ? Promise.resolve(img)
    : new Promise((resolve, reject) => { img.onload = () => resolve(img); img.onerror = reject; });
}

function metrics(r) {
  const below = (value, threshold) => value !== null && threshold !== null && value < threshold;
  const above = (value, threshold) => value !== null && threshold !== null && value > threshold;
  const rows = [
    ["Status", badge(r.status)],
    ["SSIM", num(r.ssim), `threshold ${num(r.threshold, 3)}`, below(r.ssim, r.threshold)],
    ["Worst tile SSIM", num(r.ssim_worst_tile), `threshold ${num(r.tile_threshold, 3)}`, below(r.ssim_worst_tile, r.tile_threshold)],
    // The colour gate: a red/blue swap keeps luma SSIM near 1, so this is the number that says why.
    ["Colour ΔE (CIEDE2000, worst tile)", num(r.delta_e, 2), r.colour_threshold === null ? "not measured" : `threshold ${num(r.colour_threshold, 2)}`, above(r.delta_e, r.colour_threshold)],
    ["PSNR", r.psnr === null ? "—" : `${num(r.psnr, 2)} dB`],
    ["Differing pixels", r.diff_pixels ?? "—"],
    ["Largest channel difference", r.max_diff ?? "—"],
    ["Replay time", r.replay_ms === null ? "—" : `${num(r.replay_ms, 1)} ms`],
    ["Attempts", r.attempts],
    ["Configuration", r.configuration || "default"],
    ["Golden compared", r.golden_id ? `#${r.golden_id}` : (r.golden_hash || "none")],
  ];
  if (r.message) rows.push(["Message", r.message]);
  if (r.report && r.report.validation)
    rows.push(["Validation", `${r.report.validation.errors} errors, ${r.report.validation.warnings} warnings`]);
  return h("table", { class: "metrics", id: "metrics" }, rows.map(([k, v, note, bad]) =>
    h("tr", {}, h("th", { scope: "row" }, k), h("td", { class: bad ? "bad" : null }, v, note ? h("span", { class: "muted" }, `  (${note})`) : null))));
}

// The worst tile as the comparison recorded it: the gate that failed (colour or SSIM), with its values.
function gates(r) {
  const failed = [];
  if (r.ssim !== null && r.threshold !== null && r.ssim < r.threshold) failed.push("ssim");
  if (r.ssim_worst_tile !== null && r.tile_threshold !== null && r.ssim_worst_tile < r.tile_threshold) failed.push("tile");
  if (r.delta_e !== null && r.colour_threshold !== null && r.delta_e > r.colour_threshold) failed.push("colour");
  return failed;
}

// The tile the comparison recorded: the colour one when colour failed and the SSIM tile did not, else the SSIM one.
function recordedBox(r) {
  const tiles = r.worst_tiles;
  if (!tiles) return null;
  const failed = gates(r);
  const colour = failed.includes("colour") && !failed.includes("tile") && tiles.colour;
  const b = colour ? tiles.colour : tiles.ssim;
  return b ? { x: b[0], y: b[1], w: b[2], h: b[3], recorded: true, colour: !!colour } : null;
}

function recordedTile(r) {
  const colour = `colour ΔE ${num(r.delta_e, 2)} (threshold ${num(r.colour_threshold, 2)})`;
  const ssim = `worst tile SSIM ${num(r.ssim_worst_tile, 4)} (threshold ${num(r.tile_threshold, 3)})`;
  const failed = gates(r);
  return failed.includes("colour") && !failed.includes("tile") ? `recorded: ${colour}, failed; ${ssim}`
    : `recorded: ${ssim}${failed.includes("tile") ? ", failed" : ""}; ${colour}`;
}

function figure(caption, src, alt, detail = null, legend = null) {
  return h("figure", {}, h("figcaption", {}, caption, detail ? h("span", { class: "muted", id: `${alt.split(" ")[0]}-detail` }, ` — ${detail}`) : null),
    src ? h("img", { src, alt }) : h("div", { class: "none" }, `no ${caption.toLowerCase()} image`), legend);
}

// What the diff image's marks mean (compare/diff_image.c).
function diffLegend() {
  const item = (cls, text) => h("span", { class: "key" }, h("span", { class: `swatch ${cls}` }), ` ${text}`);
  return h("figcaption", { class: "diff-legend", id: "diff-legend" },
    item("same", "gray: the same (the golden, dimmed)"), item("small", "yellow: a small difference"),
    item("large", "red: a large difference"), item("tile", "cyan box: the worst SSIM tile"),
    item("colour", "magenta box: a tile that failed the colour gate"));
}

// The viewer: actual over golden. Returns its element.
function viewer(goldenSrc, actualSrc, r) {
  const bottom = h("img", { src: goldenSrc, alt: "golden" });
  const top = h("img", { class: "top", src: actualSrc, alt: "actual" });
  const label = h("span", { class: "label", id: "viewer-label", "aria-live": "polite" }, "actual");
  const divider = h("div", { class: "divider", hidden: true });
  const box = h("div", { class: "tile-box", hidden: true });
  const stage = h("div", { class: "stage" }, bottom, top, box, divider);
  const view = h("div", { class: "viewer", id: "viewer" }, stage, label);
  const flicker = h("button", { type: "button", id: "flicker", "aria-pressed": "false" }, "Flicker (F)");
  const slider = h("button", { type: "button", id: "slider", "aria-pressed": "false" }, "Slider (S)");
  const range = h("input", { type: "range", id: "slider-range", min: 0, max: 100, value: 50, hidden: true,
    "aria-label": "slider position: actual on the left, golden on the right" });
  const zoom = h("button", { type: "button", id: "zoom", "aria-pressed": "false" }, "Zoom to worst tile (Z)");
  const note = h("span", { class: "muted", id: "zoom-note" });
  let timer = null, tile = null;

  const show = (which) => { top.hidden = which === "golden"; label.textContent = which; };
  const setClip = () => {
    const x = Number(range.value);
    top.style.clipPath = `inset(0 ${100 - x}% 0 0)`;
    divider.style.left = `${x}%`;
    label.textContent = `actual | golden at ${x}%`;
  };
  const stopFlicker = () => { clearInterval(timer); timer = null; flicker.setAttribute("aria-pressed", "false"); show("actual"); };
  const stopSlider = () => { slider.setAttribute("aria-pressed", "false"); range.hidden = true; divider.hidden = true; top.style.clipPath = ""; show("actual"); };
  flicker.addEventListener("click", () => {
    if (timer) return stopFlicker();
    stopSlider();
    flicker.setAttribute("aria-pressed", "true");
    let golden = false;
    timer = setInterval(() => show((golden = !golden) ? "golden" : "actual"), FLICKER_MS);
  });
  slider.addEventListener("click", () => {
    if (slider.getAttribute("aria-pressed") === "true") return stopSlider();
    stopFlicker();
    slider.setAttribute("aria-pressed", "true");
    range.hidden = false;
    divider.hidden = false;
    setClip();
  });
  range.addEventListener("input", setClip);
  zoom.addEventListener("click", async () => {
    if (zoom.getAttribute("aria-pressed") === "true") {
      zoom.setAttribute("aria-pressed", "false");
      stage.style.transform = "";
      return;
    }
    if (!tile) tile = recordedBox(r) || worstTile(await loaded(bottom), await loaded(top));
    if (!tile) { note.textContent = "the images differ in size: no tile to zoom to"; return; }
    const W = bottom.naturalWidth, H = bottom.naturalHeight;
    const regionW = Math.min(W, tile.w * 3), regionH = Math.min(H, regionW * H / W);
    const rx = Math.max(0, Math.min(W - regionW, tile.x + tile.w / 2 - regionW / 2));
    const ry = Math.max(0, Math.min(H - regionH, tile.y + tile.h / 2 - regionH / 2));
    const d = bottom.clientWidth / W, s = W / regionW;
    stage.style.transform = `scale(${s}) translate(${-rx * d}px, ${-ry * d}px)`;
    Object.assign(box.style, { position: "absolute", border: `1px solid ${tile.colour ? "#f0f" : tile.recorded ? "#0ff" : "#ff0"}`, left: `${100 * tile.x / W}%`,
      top: `${100 * tile.y / H}%`, width: `${100 * tile.w / W}%`, height: `${100 * tile.h / H}%` });
    box.hidden = false;
    zoom.setAttribute("aria-pressed", "true");
    note.textContent = `${tile.recorded ? `recorded ${tile.colour ? "colour" : "SSIM"} tile` : "tile (found here)"} at ${tile.x},${tile.y} (${tile.w}×${tile.h}) · ${recordedTile(r)}`;
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input[type=password], input[type=search], select") || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.toLowerCase();
    if (key === "f") flicker.click();
    else if (key === "s") slider.click();
    else if (key === "z") zoom.click();
    else if (key === "escape" && zoom.getAttribute("aria-pressed") === "true") zoom.click();
    else if ((key === "arrowleft" || key === "arrowright") && !range.hidden && event.target !== range) {
      range.value = Number(range.value) + (key === "arrowleft" ? -5 : 5);
      setClip();
    } else return;
    event.preventDefault();
  });
  return h("section", { class: "compare", "aria-label": "compare golden and actual" },
    h("div", { class: "tools" }, flicker, slider, range, zoom, note), view);
}

// A write that asks first: QUESTION with Confirm / Cancel in OUT; resolves true on Confirm.
function confirmIn(out, question) {
  return new Promise((resolve) => {
    const finish = (answer) => { box.remove(); resolve(answer); };
    const yes = h("button", { type: "button", class: "primary", id: "confirm", onclick: () => finish(true) }, "Confirm");
    const no = h("button", { type: "button", id: "cancel", onclick: () => finish(false) }, "Cancel");
    const box = h("div", { class: "notice confirm", role: "alertdialog", "aria-label": "confirm" },
      h("p", {}, question), h("div", { class: "tools" }, yes, no));
    out.replaceChildren(box);
    yes.focus();
  });
}

function writeError(error) {
  return error instanceof ApiError && (error.status === 401 || error.status === 403)
    ? `${error.message}: paste your write token in the header first.` : error.message;
}

// After a write: what it did, by whom, and an Undo of exactly that event.
function done(out, text, undoPath, reload) {
  const undo = undoPath ? h("button", { type: "button", id: "undo", onclick: async () => {
    try {
      await post(undoPath, {});
      out.replaceChildren(h("p", { class: "notice ok", id: "undone" }, "Undone."));
      await reload();
    } catch (error) {
      out.replaceChildren(h("p", { class: "notice err", role: "alert" }, writeError(error)));
    }
  } }, "Undo") : null;
  out.replaceChildren(h("p", { class: "notice ok" }, text, " ", undo));
}

// This device (the default) or any device: the scope of an approval or an expectation.
function scopeChoice(name, key) {
  const mine = h("input", { type: "radio", name, value: "device", id: `${name}-device`, checked: !!key, disabled: !key });
  const any = h("input", { type: "radio", name, value: "any", id: `${name}-any`, checked: !key });
  return { el: h("fieldset", { class: "scope" }, h("legend", {}, "For"),
    h("label", {}, mine, ` this device (${key || "unknown"})`), h("label", {}, any, " any device")),
  any: () => any.checked };
}

async function reloadParts(r) {
  const fresh = await get(`/api/results/${r.id}`);
  document.getElementById("review-badge").replaceChildren(fresh.review ? badge(fresh.review === "accepted" ? "approved" : fresh.review) : "");
  document.getElementById("goldens").replaceWith(goldens(fresh));
  document.getElementById("expectations").replaceWith(expectationList(fresh));
  const history = document.getElementById("golden-history");
  if (history && fresh.golden) history.replaceWith(await goldenHistory(fresh.golden.id));
}

function actions(r) {
  const key = r.run && r.run.device_key;
  const scope = scopeChoice("review-scope", key);
  const out = h("div", { id: "review-status", role: "status" });
  const review = async (what) => {
    const where = scope.any() ? "every device" : key;
    const verb = what === "approve" ? "Approve this image as the golden" : "Mark this image known-bad";
    if (!await confirmIn(out, `${verb} for ${r.trace} frame ${r.frame} on ${where}?`)) return out.replaceChildren();
    try {
      const answer = await post(`/api/results/${r.id}/${what}`, { scope: scope.any() ? "any" : "device" });
      await reloadParts(r);
      done(out, what === "approve"
        ? `Approved by ${answer.by}: golden #${answer.golden_id} now accepts this image on ${answer.device_key || "every device"}.`
        : `Marked known-bad by ${answer.by}: golden #${answer.golden_id} records this image as wrong.`,
        answer.event_id ? `/api/golden-events/${answer.event_id}/undo` : null, () => reloadParts(r));
    } catch (error) {
      out.replaceChildren(h("p", { class: "notice err", role: "alert" }, writeError(error)));
    }
  };
  const approve = h("button", { type: "button", class: "primary", id: "approve", disabled: !r.has_actual,
    onclick: () => review("approve") }, "Approve as golden (A)");
  const bad = h("button", { type: "button", class: "danger", id: "known-bad", disabled: !r.has_actual,
    onclick: () => review("known-bad") }, "Mark known-bad (B)");
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea, button") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "a") approve.click();
    else if (event.key === "b") bad.click();
  });
  return h("div", { class: "panel", id: "actions" },
    scope.el, h("div", { class: "tools" }, approve, bad),
    r.has_actual ? null : h("p", { class: "muted" }, "This result kept no image to approve."),
    out);
}

// Expectations of the trace, and a form that sets one (the same rules: a named token, confirmation, undo).
function expectationList(r) {
  return h("p", { id: "expectations" }, r.expectations.length ? `Expectations: ${r.expectations.map((e) =>
    `${e.kind} on ${e.device_key || "any device"}${e.note ? ` (${e.note})` : ""}${e.set_by ? `, set by ${e.set_by}` : ""}`).join("; ")}`
    : "No expectation for this trace.");
}

function expectationForm(r) {
  const key = r.run && r.run.device_key;
  const scope = scopeChoice("expect-scope", key);
  const kind = h("select", { id: "expect-kind", "aria-label": "expectation" },
    ["skip", "flaky", "crash", "hang", "none"].map((k) => h("option", { value: k }, k === "none" ? "none (remove)" : k)));
  const note = h("input", { type: "text", id: "expect-note", placeholder: "note (a bug link)", "aria-label": "note" });
  const out = h("div", { id: "expect-status", role: "status" });
  const set = h("button", { type: "button", id: "expect-set", onclick: async () => {
    const where = scope.any() ? "every device" : key;
    if (!await confirmIn(out, `Set "${kind.value}" for ${r.trace} on ${where}?`)) return out.replaceChildren();
    try {
      const body = { trace: r.trace, kind: kind.value, note: note.value };
      if (scope.any()) body.scope = "any"; else body.device_key = key;
      const answer = await post("/api/expectations", body);
      await reloadParts(r);
      done(out, `Expectation "${answer.kind}" set for ${answer.trace} on ${answer.device_key || "every device"}.`,
        answer.event_id ? `/api/expectation-events/${answer.event_id}/undo` : null, () => reloadParts(r));
    } catch (error) {
      out.replaceChildren(h("p", { class: "notice err", role: "alert" }, writeError(error)));
    }
  } }, "Set expectation");
  return h("div", { class: "panel", id: "expect-form" }, scope.el, h("div", { class: "tools" }, kind, note, set), out);
}

async function goldenHistory(id) {
  const history = await get(`/api/goldens/${id}/history`);
  const rows = history.events.map((e) => h("tr", {},
    h("td", {}, when(e.at)), h("td", {}, e.action), h("td", {}, e.reverted ? "reverted" : e.status),
    h("td", {}, e.by || "—"), h("td", {}, e.result_id ? h("a", { href: `/result.html?id=${e.result_id}` }, `result #${e.result_id}`) : "")));
  return h("table", { id: "golden-history", class: "history" },
    h("caption", {}, `History of golden #${id}`),
    h("tr", {}, ["when", "what", "status after", "by", "from"].map((t) => h("th", { scope: "col" }, t))), rows);
}

function goldens(r) {
  if (!r.goldens.length) return h("p", { class: "muted", id: "goldens" }, "No golden for this frame yet.");
  return h("div", { class: "row", id: "goldens" }, r.goldens.map((g) => h("figure", { class: "panel" },
    h("img", { src: images.golden(g.id), alt: `golden ${g.id}`, width: 160 }),
    h("figcaption", {}, `#${g.id} `, badge(g.reverted_at ? "reverted" : g.status), h("br"), g.device_key || "any device", h("br"),
      h("span", { class: "muted" }, `${g.approved_by || "—"}, ${when(g.approved_at || g.created_at)}`)))));
}

// The golden this result was compared with (never another): its hash, who approved it, when.
function comparedCaption(g) {
  if (!g) return "none was compared";
  return `#${g.id} compared · ${g.hash.slice(0, 12)}… · approved by ${g.approved_by || "unknown"}, ${when(g.approved_at)}${g.reverted_at ? " · reverted since" : ""}`;
}

async function main() {
  const id = params().get("id");
  const main = page("Runs", h("p", { class: "crumbs" }, h("a", { href: "/" }, "Runs"), " › result"));
  try {
    const [r, diagnosis] = await Promise.all([get(`/api/results/${encodeURIComponent(id)}`), diagnosisOf(id)]);
    const what = r.frame ? `frame ${r.frame}` : "whole trace"; /* frame 0: a trace-level result */
    document.title = `${r.trace} ${what} · retrace`;
    const goldenSrc = r.golden ? images.golden(r.golden.id) : null;
    const actualSrc = r.has_actual ? images.actual(r.id) : null;
    const traceLink = `/trace.html?trace=${encodeURIComponent(r.trace)}&frame=${r.frame}`;
    main.replaceChildren(
      h("p", { class: "crumbs" }, h("a", { href: "/" }, "Runs"), " › ",
        h("a", { href: `/run.html?id=${r.run_id}` }, `run #${r.run_id}`), ` › ${r.trace} ${what}`),
      h("h1", {}, `${r.trace} · ${what} `, badge(r.status), " ",
        h("span", { id: "review-badge" }, r.review ? badge(r.review === "accepted" ? "approved" : r.review) : null)),
      h("p", { class: "muted" }, `${r.run?.device || ""} · ${r.run?.device_key || ""} · ${when(r.run?.started_at)} · `,
        h("a", { href: traceLink }, "SSIM history of this trace")),
      h("div", { class: "triptych" },
        figure("Golden", goldenSrc, "golden image", comparedCaption(r.golden)), figure("Actual", actualSrc, "actual image"),
        figure("Diff", r.has_diff ? images.diff(r.id) : null, "difference heat map", null, r.has_diff ? diffLegend() : null)),
      diagnosisSection(diagnosis) || "", /* replaceChildren writes null as text */
      h("div", { class: "row split" },
        goldenSrc && actualSrc ? viewer(goldenSrc, actualSrc, r)
          : h("p", { class: "muted" }, "The viewer needs both a golden and an actual image."),
        h("aside", {},
          h("section", { class: "panel" }, h("h2", {}, "Metrics"), metrics(r)),
          h("section", {}, h("h2", {}, "Review"), actions(r)),
          h("section", {}, h("h2", {}, "Expectation"), expectationForm(r)))),
      r.golden ? await goldenHistory(r.golden.id) : "",
      h("h2", {}, "Goldens of this frame"), goldens(r),
      expectationList(r),
      h("p", { class: "keys" }, h("kbd", {}, "F"), " flicker, ", h("kbd", {}, "S"), " slider (",
        h("kbd", {}, "←"), h("kbd", {}, "→"), " move it), ", h("kbd", {}, "Z"), " zoom to the worst tile (",
        h("kbd", {}, "Esc"), " back), ", h("kbd", {}, "A"), " approve, ", h("kbd", {}, "B"), " mark known-bad."));
  } catch (error) {
    fail(main, error);
  }
}

main();
