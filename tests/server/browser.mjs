// tests/server/browser.mjs — the dashboard in a real browser: Debian's
// chromium, headless, driven by playwright-core (no browser download). It
// builds a test store (make_store), starts `retrace serve` on a free port,
// then: opens the runs list, opens the failing run and its failing result,
// toggles flicker and the slider, zooms to the worst tile (its caption gives
// the recorded values; the diff has a legend), approves the result (asked to
// confirm, refused without a token, then done as the token's name, for this
// device), undoes it and approves again, reads the golden's history, sets an
// expectation, checks triage (new failure) and that the run's counts
// changed, and joins the shards of one pipeline with identical failing images
// grouped. Every page's screenshot is saved under BUILD/tests/server/screenshots/.
// Exit 77 (skipped) when chromium or playwright-core is missing.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

const source = process.env.RT_SOURCE_ROOT;
const build = process.env.RT_BUILD_ROOT;
const chromium = process.env.RT_CHROMIUM || "/usr/bin/chromium";
if (!source || !build) {
  console.error("run through meson test (RT_SOURCE_ROOT, RT_BUILD_ROOT)");
  process.exit(2);
}
let playwright;
try {
  playwright = await import(join(source, "node_modules/playwright-core/index.mjs"));
} catch {
  console.log("1..0 # SKIP playwright-core is not installed (./run deps runs npm ci)");
  process.exit(77);
}
if (!existsSync(chromium)) {
  console.log(`1..0 # SKIP ${chromium} is missing (./run deps installs chromium)`);
  process.exit(77);
}

const work = mkdtempSync(join(tmpdir(), "rt-browser-"));
const shots = join(build, "tests/server/screenshots");
mkdirSync(shots, { recursive: true });
const db = join(work, "store.db");
const tokenFile = join(work, "token");
const TOKEN = "browser-test-token";
writeFileSync(tokenFile, `${TOKEN}\n`);
execFileSync(join(build, "tests/server/make_store"), [db, "12"]);

function startServer() {
  const child = spawn(join(build, "cli/retrace"), ["serve", "--db", db, "--listen", "127.0.0.1:0",
    "--token-file", tokenFile, "--web", join(source, "web")], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const url = out.match(/http:\/\/[^ ]+\//);
      if (url) resolve({ child, url: url[0] });
    });
    child.on("exit", (code) => reject(new Error(`retrace serve exited ${code}: ${out}`)));
  });
}

let n = 0;
function ok(name) {
  console.log(`ok ${++n} - ${name}`);
}

const { child, url } = await startServer();
const profile = mkdtempSync(join(tmpdir(), "rt-chromium-"));
const browser = await playwright.chromium.launchPersistentContext(profile, {
  executablePath: chromium,
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const errors = [];
let status = 0;
try {
  const pageObj = browser.pages()[0] || (await browser.newPage());
  const page = pageObj;
  page.on("pageerror", (e) => errors.push(String(e)));
  // the one refusal this test asks for (approve without the token) is not an error
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
  });
  page.on("response", (r) => {
    if (r.status() >= 400 && !(r.status() === 401 && r.url().endsWith("/approve")))
      errors.push(`${r.status()} ${r.url()}`);
  });
  const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

  // 1. the runs list
  await page.goto(url);
  await page.waitForSelector("#runs tbody tr");
  const rows = await page.locator("#runs tbody tr").count();
  assert.equal(rows, 12);
  const newest = page.locator("#runs tbody tr").first();
  assert.match(await newest.innerText(), /1 fail/);
  assert.equal(await newest.locator(".strip a").count(), 6);
  await shot("runs");
  ok("runs list: newest first, counts, history strip");

  // keyboard: j selects the first run, Enter on its link opens it
  await page.keyboard.press("j");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "#12");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#results .card");
  assert.match(page.url(), /run\.html\?id=12$/);
  const first = page.locator("#results .card").first();
  assert.equal(await first.getAttribute("data-status"), "fail");
  assert.match(await page.locator("#configuration").innerText(), /slow-pipelines/);
  assert.match(await page.locator("#counts").innerText(), /1 fail/);
  await page.waitForFunction(() => [...document.querySelectorAll("#results img")].every((i) => i.complete && i.naturalWidth));
  await shot("run");
  ok("run page: failures first, thumbnails, configuration, opened with the keyboard");

  // filters: only the crash
  for (const box of await page.locator("#filters input[type=checkbox]").all())
    if ((await box.getAttribute("value")) !== "crash") await box.uncheck();
  assert.equal(await page.locator("#results .card:not([hidden])").count(), 1);
  for (const box of await page.locator("#filters input[type=checkbox]").all()) await box.check();
  ok("run page: status filter");

  // a run larger than one page: the rest comes on demand, failures first
  const total = await page.evaluate(async () => (await (await fetch("/api/runs/12")).json()).results_total);
  assert.ok(total > 2, `run 12 has ${total} results`);
  await page.goto(`${url}run.html?id=12&limit=2`);
  await page.waitForSelector("#results .card");
  assert.equal(await page.locator("#results .card").count(), 2);
  assert.equal(await page.locator("#results-heading").innerText(), `Results (2 of ${total}), new failures first`);
  assert.equal(await page.locator("#results .card").first().getAttribute("data-status"), "fail");
  while (await page.locator("#more").isVisible()) {
    const before = await page.locator("#results .card").count();
    await page.click("#more");
    await page.waitForFunction((n) => document.querySelectorAll("#results .card").length > n, before);
  }
  assert.equal(await page.locator("#results .card").count(), total);
  assert.equal(await page.locator("#results-heading").innerText(), `Results (${total}), new failures first`);
  await page.goto(`${url}run.html?id=12`);
  await page.waitForSelector("#results .card");
  ok("run page: a run larger than a page shows how many are left and loads them on demand");

  // 2. the failing result
  await first.click();
  await page.waitForSelector("#viewer");
  assert.match(await page.locator("h1").innerText(), /vkcube · frame 10/);
  assert.match(await page.locator("#metrics").innerText(), /Worst tile SSIM/);
  // the colour gate's number and threshold, as the API has them, and highlighted when it failed
  const colour = await page.evaluate(async () => {
    const r = await (await fetch(`/api/results/${new URLSearchParams(location.search).get("id")}`)).json();
    const row = [...document.querySelectorAll("#metrics tr")].find((tr) => tr.textContent.startsWith("Colour ΔE"));
    return { delta_e: r.delta_e, threshold: r.colour_threshold, text: row && row.textContent,
      bad: row && row.querySelector("td").classList.contains("bad") };
  });
  assert.equal(typeof colour.delta_e, "number");
  assert.ok(colour.text.includes(colour.delta_e.toFixed(2)) && colour.text.includes("threshold 3.00"), colour.text);
  assert.equal(colour.bad, colour.delta_e > colour.threshold);
  ok("result: the colour gate's delta E next to SSIM and worst tile");
  await page.waitForFunction(() => [...document.querySelectorAll("img")].every((i) => i.complete && i.naturalWidth));
  await shot("result");
  await page.click("#flicker");
  assert.equal(await page.getAttribute("#flicker", "aria-pressed"), "true");
  await page.waitForFunction(() => document.querySelector("#viewer-label").textContent === "golden");
  await page.waitForFunction(() => document.querySelector("#viewer-label").textContent === "actual");
  await page.keyboard.press("f");
  assert.equal(await page.getAttribute("#flicker", "aria-pressed"), "false");
  ok("result: flicker alternates golden and actual, F toggles it");
  await page.keyboard.press("s");
  assert.equal(await page.getAttribute("#slider", "aria-pressed"), "true");
  await page.locator("#slider-range").fill("30");
  assert.match(await page.locator("#viewer-label").innerText(), /30%/);
  await page.evaluate(() => document.activeElement.blur()); // the arrows, away from the range
  await page.keyboard.press("ArrowRight");
  assert.match(await page.locator("#viewer-label").innerText(), /35%/);
  await shot("result-slider");
  ok("result: slider overlay, moved with the mouse and the arrows");
  await page.keyboard.press("z");
  await page.waitForFunction(() => document.querySelector("#zoom").getAttribute("aria-pressed") === "true");
  // the box is the tile the comparison recorded (the SSIM one here: that gate failed), with its values
  const tiles = await page.evaluate(async () => (await (await fetch(`/api/results/${new URLSearchParams(location.search).get("id")}`)).json()).worst_tiles);
  assert.match(await page.locator("#zoom-note").innerText(),
    new RegExp(`^recorded SSIM tile at ${tiles.ssim[0]},${tiles.ssim[1]} \\(${tiles.ssim[2]}×${tiles.ssim[3]}\\) · recorded: `));
  assert.match(await page.locator("#zoom-note").innerText(), /worst tile SSIM \d\.\d+ \(threshold/);
  assert.match(await page.locator("#diff-legend").innerText(), /cyan box: the worst SSIM tile/);
  assert.match(await page.locator("figure").first().innerText(), /compared · [0-9a-f]{12}… · approved by make_store/);
  await page.waitForTimeout(300); // the zoom's CSS transition, for the screenshot only
  await shot("result-zoom");
  ok("result: zoom to the worst tile");

  // 3. approve: it asks first (Cancel does nothing); without the token refused, then done with it
  const key = await page.evaluate(async () => (await (await fetch(`/api/results/${new URLSearchParams(location.search).get("id")}`)).json()).run.device_key);
  assert.ok(await page.isChecked("#review-scope-device"), "the scope defaults to this device");
  await page.click("#approve");
  await page.waitForSelector("#review-status [role=alertdialog]");
  assert.match(await page.locator("#review-status").innerText(), new RegExp(`on ${key.replace(/[.()/]/g, "\\$&")}\\?`));
  await shot("result-confirm");
  await page.click("#cancel");
  assert.equal(await page.locator("#review-status").innerText(), "");
  await page.click("#approve");
  await page.click("#confirm");
  await page.waitForSelector("#review-status .notice.err");
  await page.fill("#token", TOKEN);
  await page.click("#token-form button");
  await page.click("#approve");
  await page.click("#confirm");
  await page.waitForSelector("#review-status .notice.ok");
  assert.match(await page.locator("#review-status").innerText(), new RegExp(`Approved by token: golden #\\d+ now accepts this image on ${key.replace(/[.()/]/g, "\\$&")}`));
  await page.waitForFunction(() => document.querySelectorAll("#goldens figure").length === 2);
  await shot("result-approved");
  ok("result: approve asks first, is refused without the token, done with it for this device by the token's name");
  // undo takes it back (the badge goes), and the history says both, by whom
  await page.click("#undo");
  await page.waitForSelector("#undone");
  await page.waitForFunction(() => document.querySelector("#review-badge").textContent === "");
  await page.click("#approve");
  await page.click("#confirm");
  await page.waitForSelector("#review-status .notice.ok");
  const history = await page.evaluate(async () => {
    const answer = await (await fetch(`/api/results/${new URLSearchParams(location.search).get("id")}`)).json();
    const approved = answer.goldens.find((g) => g.approved_by === "token" && !g.reverted_at);
    return (await (await fetch(`/api/goldens/${approved.id}/history`)).json()).events.map((e) => `${e.action}:${e.by}`);
  });
  assert.deepEqual(history, ["approved:token", "undo:token", "approved:token"]);
  await shot("result-undone-and-again");
  ok("result: undo takes the approval back; the golden's history has approved, undo, approved, by the token's name");
  // an expectation from the result page, with the same rules
  await page.selectOption("#expect-kind", "flaky");
  await page.fill("#expect-note", "bug 1234");
  await page.click("#expect-set");
  await page.click("#confirm");
  await page.waitForSelector("#expect-status .notice.ok");
  assert.match(await page.locator("#expectations").innerText(), /flaky on .* \(bug 1234\), set by token/);
  await page.click("#expect-status #undo");
  await page.waitForSelector("#expect-status #undone");
  // the list is read again after the undo is shown: wait for it (a loaded machine was slower once)
  await page.waitForFunction(() => !document.querySelector("#expectations").innerText.includes("bug 1234"),
                             null, { timeout: 10000 }).catch(() => {});
  assert.doesNotMatch(await page.locator("#expectations").innerText(), /bug 1234/);
  ok("result: an expectation set (confirmed, by the token's name) and undone");

  // 4. the run's counts changed; triage says the failure is new
  await page.click(".crumbs a[href^='/run.html']");
  await page.waitForSelector("#counts");
  const counts = await page.locator("#counts").innerText();
  assert.match(counts, /0 fail/);
  assert.match(counts, /1 approved/);
  const states = await page.evaluate(async () => (await (await fetch(`/api/runs/${new URLSearchParams(location.search).get("id")}`)).json())
    .results.filter((r) => r.triage && r.triage.state !== "fixed").map((r) => r.triage.state));
  assert.ok(states.length > 0, "failures carry their triage");
  const firstTriage = await page.locator("#results .card").first().locator(".triage").innerText();
  assert.match(firstTriage, states.includes("new") ? /new failure/ : /still failing since run #\d+/);
  await shot("run-after-approve");
  await page.goto(url);
  await page.waitForSelector("#runs tbody tr");
  assert.match(await page.locator("#runs tbody tr").first().innerText(), /1 approved/);
  ok("the run's counts changed: fail 1 -> 0, approved 0 -> 1; triage lists new failures first");

  // 5. the trace's history chart
  await page.goto(`${url}trace.html?trace=vkcube&frame=1`);
  await page.waitForSelector("#chart circle");
  // one line per configuration x device key: 2 x 2 series x (SSIM, worst tile)
  assert.equal(await page.locator("#chart path").count(), 8);
  assert.equal(await page.locator("#points tbody tr").count(), 12);
  assert.ok(await page.locator("#delta-chart").count() === 1, "ΔE is plotted beside SSIM");
  await shot("trace");
  ok("trace page: SSIM history per device");
  // its labels stay inside the plot and apart (review R8: the newest failure's
  // gates were cut off at the right edge, the two threshold labels overlapped):
  // vkcube frame 10 fails in the newest run, below both thresholds
  await page.goto(`${url}trace.html?trace=vkcube&frame=10`);
  await page.waitForSelector("#chart circle");
  const labels = await page.evaluate(() => {
    const svg = document.querySelector("#chart");
    const width = Number(svg.getAttribute("viewBox").split(" ")[2]);
    return { width, boxes: [...svg.querySelectorAll("text")].map((t) => {
      const b = t.getBBox();
      return { text: t.textContent, cls: t.getAttribute("class"), x: b.x, y: b.y, w: b.width, h: b.height };
    }) };
  });
  assert.ok(labels.boxes.some((b) => b.cls === "gate"), "no failure is labelled with its gates");
  for (const b of labels.boxes)
    assert.ok(b.x >= 0 && b.x + b.w <= labels.width, `label "${b.text}" leaves the plot: ${b.x.toFixed(0)}..${(b.x + b.w).toFixed(0)} of ${labels.width}`);
  const apart = (a, b) => a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
  const named = labels.boxes.filter((b) => /threshold/.test(b.text));
  for (const a of named)
    for (const b of labels.boxes)
      if (a !== b && !/^run #/.test(b.text)) assert.ok(apart(a, b), `labels "${a.text}" and "${b.text}" overlap`);
  await shot("trace-failing");
  ok("trace page: every label inside the plot, the thresholds' apart from the others");
  // 6. two shards of one pipeline, uploaded as the runner does, joined; the same failing image on both is one group
  const same = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";
  for (const [i, status] of [[1, "pass"], [2, "fail"]]) {
    const upload = { format: "retrace-run", version: 1,
      run: { id: `00000000-0000-4000-8000-0000000000a${i}`, label: "sharded", shard: `${i}/2`, host: `farm-0${i}`,
        device: "llvmpipe", device_key: `10005:0000/22.3.${i}`, started_at: "2026-11-30T02:00:00Z", pipeline: "p-4242",
        finished_at: "2026-11-30T02:10:00Z", outcome: status === "pass" ? "passed" : "failed",
        configurations: [{ name: "default", workarounds: [], delays: [] }] },
      results: [{ trace: `shard${i}`, frame: 1, status, ssim: status === "pass" ? 1 : 0.9, threshold: 0.99 },
        { trace: "common", frame: 1, status: "fail", ssim: 0.5, threshold: 0.99, actual_hash: same, configuration: `c${i}` }] };
    const answer = await fetch(`${url}api/runs`, { method: "POST", body: JSON.stringify(upload),
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" } });
    assert.equal(answer.status, 201);
  }
  await page.goto(url);
  await page.waitForSelector("#runs tbody tr");
  await page.locator("#runs tbody tr").first().getByText("all shards of pipeline p-4242").click();
  await page.waitForSelector("#shards tbody tr");
  assert.equal(await page.locator("#shards tbody tr").count(), 2);
  assert.match(await page.locator("#counts").innerText(), /3 fail/);
  assert.equal(await page.locator("#groups tr.group").count(), 1);
  assert.match(await page.locator("#groups tr.group").innerText(), /2 results\s+c1, c2\s+10005:0000\/22\.3\.1, 10005:0000\/22\.3\.2/);
  assert.equal(await page.locator("#results .card").first().getAttribute("data-status"), "fail");
  await shot("joined");
  ok("the shards of one pipeline joined on one page; the same failing image on two devices is one row");
  // 7. a failing result carries its diagnosis (docs/FORMATS.md 7.4): uploaded as the runner does, the run page
  // says where it diverges and the result page shows the draw on both sides, its pipeline and shaders
  const pngs = readdirSync(join(source, "traces/golden")).filter((f) => f.endsWith(".png")).slice(0, 2)
    .map((f) => readFileSync(join(source, "traces/golden", f)).toString("base64"));
  const diagnosed = { format: "retrace-run", version: 1,
    run: { id: "00000000-0000-4000-8000-0000000000d1", label: "diagnosed", host: "farm-09", device: "llvmpipe",
      device_key: "10005:0000/22.3.6", started_at: "2026-11-30T03:00:00Z", finished_at: "2026-11-30T03:10:00Z",
      outcome: "failed", configurations: [{ name: "broken", workarounds: [], delays: [], skip_draws: "2:17", diagnose: "lavapipe" }] },
    results: [{ trace: "gears", configuration: "broken", frame: 2, status: "fail", ssim: 0.97, threshold: 0.99,
      actual_png: pngs[0], diff_png: pngs[1],
      diagnosis: { reference: "device:llvmpipe", outcome: "diverged", draws: 64, replays: 5, message: "", draw: 17,
        call: 9021, command: "vkCmdDrawIndexed", pipeline: "0x31", target: "color0", ssim: 0.871, delta_e: 14.2,
        shaders: [{ stage: "VK_SHADER_STAGE_FRAGMENT_BIT", xxh128: "0123456789abcdef0123456789abcdef",
          disassembly: "; SPIR-V\n OpCapability Shader" }],
        images: { before_test: pngs[0], after_test: pngs[1], before_reference: pngs[0], after_reference: pngs[0], diff: pngs[1] } } },
      { trace: "gears", configuration: "broken", frame: 3, status: "pass", ssim: 1, threshold: 0.99 }] };
  const sent = await fetch(`${url}api/runs`, { method: "POST", body: JSON.stringify(diagnosed),
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" } });
  assert.equal(sent.status, 201);
  const runId = (await sent.json()).run;
  await page.goto(`${url}run.html?id=${runId}`);
  await page.waitForSelector("#results .card");
  assert.equal(await page.locator("#results .card .diagnosis").count(), 1);
  assert.equal(await page.locator("#results .card").first().locator(".diagnosis").innerText(),
    "diverges at draw 17 of 64 (vkCmdDrawIndexed)");
  assert.match(await page.locator("#configuration").innerText(), /skip-draws 2:17; failures diagnosed against lavapipe/);
  assert.doesNotMatch(await page.locator("main").innerText(), /\bnull\b/);
  await shot("run-diagnosed");
  await page.locator("#results .card").first().click();
  await page.waitForSelector("#diagnosis");
  assert.equal(await page.locator("#diagnosis-heading").innerText(), "Where it goes wrong: draw 17 of 64");
  assert.match(await page.locator("#diagnosis").innerText(), /vkCmdDrawIndexed at call 9021, pipeline 0x31/);
  assert.equal(await page.locator("#diagnosis .draws img").count(), 5);
  await page.waitForFunction(() => [...document.querySelectorAll("#diagnosis img")].every((i) => i.complete && i.naturalWidth));
  assert.match(await page.locator("#diagnosis-facts").innerText(), /SSIM of the draw's target\s+0\.8710/);
  assert.match(await page.locator("#diagnosis-shaders").innerText(), /fragment\s+0123456789abcdef/);
  await page.locator("#diagnosis-shaders summary").click();
  assert.match(await page.locator("#diagnosis-shaders pre").innerText(), /OpCapability Shader/);
  await shot("result-diagnosed");
  // a result without a diagnosis has no section (and costs no failed request)
  await page.goto(`${url}run.html?id=${runId}`);
  await page.waitForSelector("#results .card");
  await page.locator("#results .card[data-status=pass]").click();
  await page.waitForSelector("#metrics");
  assert.equal(await page.locator("#diagnosis").count(), 0);
  assert.doesNotMatch(await page.locator("main").innerText(), /\bnull\b/); // no section, not the word null
  ok("diagnosis: the run page says where a frame diverges, the result page shows the draw's images both sides, pipeline and shaders");
  assert.deepEqual(errors, []);
  ok("no script errors");
} catch (error) {
  console.log(`not ok ${++n} - ${error.message.split("\n")[0]}`);
  if (errors.length) console.error("page errors:", errors);
  console.error(error);
  status = 1;
} finally {
  await browser.close();
  child.kill("SIGTERM");
  await new Promise((resolve) => child.on("exit", resolve));
  rmSync(work, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(status);
