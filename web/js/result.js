// One result: golden, actual and diff side by side; a viewer that flickers
// between golden and actual or splits them with a slider, and zooms to the
// tile where they differ most; the metrics; Approve and Mark known-bad.
import { get, post, images, ApiError } from "./api.js";
import { h, page, badge, num, when, params, fail } from "./ui.js";
import { worstTile } from "./tiles.js";

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

function figure(caption, src, alt) {
  return h("figure", {}, h("figcaption", {}, caption),
    src ? h("img", { src, alt }) : h("div", { class: "none" }, `no ${caption.toLowerCase()} image`));
}

// The viewer: actual over golden. Returns its element.
function viewer(goldenSrc, actualSrc) {
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
    if (!tile) tile = worstTile(await loaded(bottom), await loaded(top));
    if (!tile) { note.textContent = "the images differ in size: no tile to zoom to"; return; }
    const W = bottom.naturalWidth, H = bottom.naturalHeight;
    const regionW = Math.min(W, tile.w * 3), regionH = Math.min(H, regionW * H / W);
    const rx = Math.max(0, Math.min(W - regionW, tile.x + tile.w / 2 - regionW / 2));
    const ry = Math.max(0, Math.min(H - regionH, tile.y + tile.h / 2 - regionH / 2));
    const d = bottom.clientWidth / W, s = W / regionW;
    stage.style.transform = `scale(${s}) translate(${-rx * d}px, ${-ry * d}px)`;
    Object.assign(box.style, { position: "absolute", border: "1px solid #ff0", left: `${100 * tile.x / W}%`,
      top: `${100 * tile.y / H}%`, width: `${100 * tile.w / W}%`, height: `${100 * tile.h / H}%` });
    box.hidden = false;
    zoom.setAttribute("aria-pressed", "true");
    note.textContent = `tile at ${tile.x},${tile.y} (${tile.w}×${tile.h}), tile SSIM ≈ ${num(tile.ssim, 3)}`;
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

function actions(r) {
  const key = r.run && r.run.device_key;
  const only = h("input", { type: "checkbox", id: "device-only" });
  const out = h("div", { id: "review-status", role: "status" });
  const review = async (what) => {
    out.replaceChildren();
    try {
      const body = only.checked && key ? { device_key: key } : {};
      const answer = await post(`/api/results/${r.id}/${what}`, body);
      out.append(h("p", { class: "notice ok" }, what === "approve"
        ? `Approved: golden #${answer.golden_id} now accepts this image${body.device_key ? ` on ${key}` : " on every device"}.`
        : `Marked known-bad: golden #${answer.golden_id} records this image as wrong.`,
        " ", h("a", { href: `/run.html?id=${r.run_id}` }, "back to the run")));
      document.getElementById("review-badge").replaceChildren(badge(what === "approve" ? "approved" : "known-bad"));
      const fresh = await get(`/api/results/${r.id}`);
      document.getElementById("goldens").replaceWith(goldens(fresh));
    } catch (error) {
      const text = error instanceof ApiError && (error.status === 401 || error.status === 403)
        ? `${error.message}: paste the write token in the header first.` : error.message;
      out.append(h("p", { class: "notice err", role: "alert" }, text));
    }
  };
  const approve = h("button", { type: "button", class: "primary", id: "approve", disabled: !r.has_actual,
    onclick: () => review("approve") }, "Approve as golden (A)");
  const bad = h("button", { type: "button", class: "danger", id: "known-bad", disabled: !r.has_actual,
    onclick: () => review("known-bad") }, "Mark known-bad (B)");
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "a") approve.click();
    else if (event.key === "b") bad.click();
  });
  return h("div", { class: "panel", id: "actions" },
    h("div", { class: "tools" }, approve, bad),
    key ? h("label", {}, only, ` only for this device (${key})`) : null,
    r.has_actual ? null : h("p", { class: "muted" }, "This result kept no image to approve."),
    out);
}

function goldens(r) {
  if (!r.goldens.length) return h("p", { class: "muted", id: "goldens" }, "No golden for this frame yet.");
  return h("div", { class: "row", id: "goldens" }, r.goldens.map((g) => h("figure", { class: "panel" },
    h("img", { src: images.golden(g.id), alt: `golden ${g.id}`, width: 160 }),
    h("figcaption", {}, `#${g.id} `, badge(g.status), h("br"), g.device_key || "any device", h("br"),
      h("span", { class: "muted" }, `${g.approved_by || "—"}, ${when(g.created_at)}`)))));
}

async function main() {
  const id = params().get("id");
  const main = page("Runs", h("p", { class: "crumbs" }, h("a", { href: "/" }, "Runs"), " › result"));
  try {
    const r = await get(`/api/results/${encodeURIComponent(id)}`);
    document.title = `${r.trace} frame ${r.frame} · retrace`;
    const goldenId = r.golden_id || (r.goldens.find((g) => g.status === "accepted") || {}).id;
    const goldenSrc = goldenId ? images.golden(goldenId) : null;
    const actualSrc = r.has_actual ? images.actual(r.id) : null;
    const traceLink = `/trace.html?trace=${encodeURIComponent(r.trace)}&frame=${r.frame}`;
    main.replaceChildren(
      h("p", { class: "crumbs" }, h("a", { href: "/" }, "Runs"), " › ",
        h("a", { href: `/run.html?id=${r.run_id}` }, `run #${r.run_id}`), ` › ${r.trace} frame ${r.frame}`),
      h("h1", {}, `${r.trace} · frame ${r.frame} `, badge(r.status), " ",
        h("span", { id: "review-badge" }, r.review ? badge(r.review === "accepted" ? "approved" : r.review) : null)),
      h("p", { class: "muted" }, `${r.run?.device || ""} · ${r.run?.device_key || ""} · ${when(r.run?.started_at)} · `,
        h("a", { href: traceLink }, "SSIM history of this trace")),
      h("div", { class: "triptych" },
        figure("Golden", goldenSrc, "golden image"), figure("Actual", actualSrc, "actual image"),
        figure("Diff", r.has_diff ? images.diff(r.id) : null, "difference heat map")),
      h("div", { class: "row split" },
        goldenSrc && actualSrc ? viewer(goldenSrc, actualSrc)
          : h("p", { class: "muted" }, "The viewer needs both a golden and an actual image."),
        h("aside", {},
          h("section", { class: "panel" }, h("h2", {}, "Metrics"), metrics(r)),
          h("section", {}, h("h2", {}, "Review"), actions(r)))),
      h("h2", {}, "Goldens of this frame"), goldens(r),
      h("p", {}, r.expectations.length ? `Expectations: ${r.expectations.map((e) =>
        `${e.kind} on ${e.device_key || "any device"}${e.note ? ` (${e.note})` : ""}`).join("; ")}` : "No expectation for this trace."),
      h("p", { class: "keys" }, h("kbd", {}, "F"), " flicker, ", h("kbd", {}, "S"), " slider (",
        h("kbd", {}, "←"), h("kbd", {}, "→"), " move it), ", h("kbd", {}, "Z"), " zoom to the worst tile (",
        h("kbd", {}, "Esc"), " back), ", h("kbd", {}, "A"), " approve, ", h("kbd", {}, "B"), " mark known-bad."));
  } catch (error) {
    fail(main, error);
  }
}

main();
