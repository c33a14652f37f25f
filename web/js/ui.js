// Small helpers shared by every page: building elements, the header with the
// token form, status badges, numbers, and list navigation with j/k.
import { token, setToken } from "./api.js";

// h("a", {href: "x", class: "y"}, "text", child...): an element; strings become text.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function header(current) {
  const input = h("input", { type: "password", id: "token", autocomplete: "off",
    placeholder: token() ? "token saved" : "paste the write token", "aria-label": "write token" });
  const status = h("span", { id: "token-status" }, token() ? "writes: token set" : "read-only");
  const form = h("form", { id: "token-form", onsubmit: (event) => {
    event.preventDefault();
    setToken(input.value.trim());
    input.value = "";
    input.placeholder = token() ? "token saved" : "paste the write token";
    status.textContent = token() ? "writes: token set" : "read-only";
  } }, status, input, h("button", { type: "submit" }, "Save"));
  const link = (href, text) => h("a", { href, "aria-current": current === text ? "page" : null }, text);
  return h("header", { class: "top" },
    h("a", { class: "brand", href: "/" }, "retrace"),
    h("nav", {}, link("/", "Runs")),
    form);
}

export function page(current, ...content) {
  const main = h("main", { id: "main" }, ...content);
  document.body.replaceChildren(header(current), main);
  return main;
}

export function badge(status, text) {
  return h("span", { class: `badge ${status}` }, text ?? status);
}

const COUNT_ORDER = ["fail", "crash", "timeout", "error", "new", "flaky", "approved", "pass"];

// The counts of a run as chips: non-zero ones in colour, failures first.
export function counts(counts, { all = false } = {}) {
  const chips = COUNT_ORDER.filter((key) => all || counts[key] || ["pass", "fail"].includes(key))
    .map((key) => {
      const n = counts[key] || 0;
      const chip = badge(n ? key : `${key} zero`, `${n} ${key}`);
      chip.dataset.count = key;
      return chip;
    });
  return h("span", { class: "counts" }, chips);
}

export function num(value, digits = 4) {
  return value === null || value === undefined ? "—" : Number(value).toFixed(digits);
}

export function when(iso) {
  if (!iso) return "—";
  return iso.replace("T", " ").replace(/:\d\dZ$/, "Z").replace("Z", " UTC");
}

export function params() {
  return new URLSearchParams(location.search);
}

export function fail(main, error) {
  main.append(h("p", { class: "notice err", role: "alert" }, String(error.message || error)));
}

// j/k (and arrows) move a selection through ITEMS (elements with a link);
// the focused link opens with Enter, as any link does.
// Hidden items (filtered out) are skipped.
export function listKeys(items) {
  let index = -1;
  const step = (delta) => {
    const visible = items.filter((item) => !item.hidden);
    if (!visible.length) return;
    const at = visible.indexOf(items[index]);
    const next = visible[Math.max(0, Math.min(visible.length - 1, at < 0 ? 0 : at + delta))];
    items.forEach((item) => item.classList.remove("selected"));
    index = items.indexOf(next);
    next.classList.add("selected");
    next.scrollIntoView({ block: "nearest" });
    const link = next.matches("a") ? next : next.querySelector("a");
    if (link) link.focus({ preventScroll: true });
  };
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "j" || event.key === "ArrowDown") step(1);
    else if (event.key === "k" || event.key === "ArrowUp") step(-1);
    else return;
    event.preventDefault();
  });
}
