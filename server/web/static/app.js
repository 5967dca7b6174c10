// capplan web page: the TCO and Plan forms over the server's HTTP/JSON API (/v1/...).
// Plain JavaScript, no framework, no network beyond the server that served this page; every
// chart is inline SVG drawn here. The server judges every input (the forms are novalidate):
// an INVALID_ARGUMENT message starts with the field's path ("fleets[0].gpu_count: must be in
// ...", or two paths joined by " + "), and is shown next to the inputs whose data-field those
// paths end with, in the input's own unit. The page itself only checks that a number is one.
"use strict";

// ---- JSON helpers: protobuf JSON may use lowerCamel or the proto's own field names. ----
function camel(s) { return s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()); }
function pick(o, name) {
  if (!o) return undefined;
  if (o[name] !== undefined) return o[name];
  return o[camel(name)];
}
function num(o, name) { const v = pick(o, name); return v === undefined ? 0 : Number(v); }
function list(o, name) { return pick(o, name) || []; }
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = v; else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of kids) if (k !== null && k !== undefined && k !== false) e.append(k);
  return e;
}

// ---- Formatting: every figure carries its unit. ----
function usd(v) {
  const a = Math.abs(v);
  const digits = a >= 1000 ? 0 : 2;
  const s = a.toLocaleString("en-US", {minimumFractionDigits: digits, maximumFractionDigits: digits});
  return (v < 0 ? "-$" : "$") + s;
}
function fixed(v, d) { return Number(v).toLocaleString("en-US", {maximumFractionDigits: d}); }
function pct(f) { return fixed(f * 100, 1) + "%"; }
const GIB = 1024 * 1024 * 1024;
function gib(bytes) { return fixed(bytes / GIB, 1) + " GiB"; }
function enumName(v, prefix) { return String(v || "").replace(prefix, "").toLowerCase().replace(/_/g, " "); }
function sourceText(src) {
  if (!src) return "";
  const parts = [pick(src, "citation"), pick(src, "as_of_date") ? "(" + pick(src, "as_of_date") + ")" : "",
                 pick(src, "note")];
  return parts.filter(Boolean).join(" ");
}
function tickNum(v) { return v !== 0 && Math.abs(v) < 0.01 ? String(Number(v.toPrecision(2))) : fixed(v, 3); }
function shortUsd(v) {
  const sign = v < 0 ? "-" : "";
  const a = Math.abs(v);
  if (a >= 1e6) return sign + "$" + fixed(a / 1e6, 2) + "M";
  if (a >= 1e3) return sign + "$" + fixed(a / 1e3, 1) + "k";
  return sign + "$" + fixed(a, 0);
}

// ---- The API. ----
async function api(method, path, body, headers) {
  const init = {method, headers: Object.assign({"Accept": "application/json"}, headers || {})};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    return {ok: false, message: "cannot reach the server: " + e.message};
  }
  let json = null;
  try { json = await resp.json(); } catch (e) { json = null; }
  if (resp.ok && json) return {ok: true, json};
  const err = json && json.error;
  const message = err && err.message ? err.message : "HTTP " + resp.status + " " + resp.statusText;
  return {ok: false, status: err && err.status, message};
}

// ---- Tooltips: any [data-tip] element shows its text on hover and on keyboard focus. ----
// One shared role=tooltip box, named by the target's aria-describedby while shown; Escape hides it.
const tip = {target: null, describedBy: null};
function hideTip() {
  const box = document.getElementById("tip");
  if (tip.target) {
    if (tip.describedBy === null) tip.target.removeAttribute("aria-describedby");
    else tip.target.setAttribute("aria-describedby", tip.describedBy);
  }
  tip.target = null;
  box.hidden = true;
}
function showTip(target) {
  if (tip.target === target) return;
  hideTip();
  const box = document.getElementById("tip");
  box.textContent = target.getAttribute("data-tip");
  box.hidden = false;
  tip.target = target;
  tip.describedBy = target.getAttribute("aria-describedby");
  target.setAttribute("aria-describedby", tip.describedBy ? tip.describedBy + " tip" : "tip");
  const r = target.getBoundingClientRect();
  const gap = 6;
  const left = Math.max(gap, Math.min(r.left, document.documentElement.clientWidth - box.offsetWidth - gap));
  const below = r.bottom + gap + box.offsetHeight <= window.innerHeight;
  box.style.left = (left + window.scrollX) + "px";
  box.style.top = (below ? r.bottom + gap : r.top - gap - box.offsetHeight) + window.scrollY + "px";
}
function initTooltips() {
  const targetOf = (e) => (e.target instanceof Element ? e.target.closest("[data-tip]") : null);
  document.addEventListener("mouseover", (e) => {
    const t = targetOf(e);
    if (t) showTip(t);
  });
  document.addEventListener("mouseout", (e) => {
    const t = targetOf(e);
    if (t && t === tip.target && !(e.relatedTarget instanceof Node && t.contains(e.relatedTarget)) &&
        document.activeElement !== t) {
      hideTip();
    }
  });
  document.addEventListener("focusin", (e) => {
    const t = targetOf(e);
    if (t) showTip(t); else hideTip();
  });
  document.addEventListener("focusout", (e) => { if (targetOf(e) === tip.target) hideTip(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") hideTip(); });
}

// ---- Errors next to their fields. ----
// Numeric inputs are text with an inputmode, so what was typed stays in the field: "abc" is
// reported here as not a number (a type=number input would empty itself, and the server would
// then refuse a 0 nobody typed).
function isShown(e) { return !e.closest("[hidden]"); }
function labelName(input) {
  const l = document.querySelector(`label[for="${input.id}"]`);
  return l ? l.textContent.replace(/\s*\(.*\)\s*$/, "") : input.id;
}
let errGroups = 0;
function unmark(input) {
  input.removeAttribute("aria-invalid");
  input.removeAttribute("aria-describedby");
  input.removeAttribute("data-err-group");
  const span = document.getElementById(input.id + "-err");
  if (span) span.textContent = "";
}
function clearErrors(form) {
  for (const s of form.querySelectorAll(".err")) s.textContent = "";
  for (const i of form.querySelectorAll("[aria-invalid]")) unmark(i);
}
// Editing a marked input clears its error, on every input the same error marked.
function clearOnEdit(ev) {
  const group = ev.target.getAttribute("data-err-group");
  if (!group) return;
  for (const i of document.querySelectorAll(`[data-err-group="${group}"]`)) unmark(i);
}
// The message sits next to the first input; the others point at it.
function markFields(inputs, text) {
  const group = String(++errGroups);
  const span = document.getElementById(inputs[0].id + "-err");
  span.textContent = text;
  inputs.forEach((input, i) => {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", span.id);
    input.setAttribute("data-err-group", group);
    const own = document.getElementById(input.id + "-err");
    if (i > 0 && own) own.textContent = "part of the error at " + labelName(inputs[0]);
  });
}
const FIELD_PATH = /^[A-Za-z_][\w.[\]]*$/;
// "a.b: detail" or "a.b + a.c: detail" -> {paths, detail}; null when the message names no field.
function splitMessage(message) {
  const i = message.indexOf(": ");
  if (i <= 0) return null;
  const paths = message.slice(0, i).split(/\s*\+\s*|\s*,\s*|\s+and\s+/);
  if (!paths.every((p) => FIELD_PATH.test(p))) return null;
  return {paths: paths.map((p) => p.replace(/\[\d+\]/g, "")), detail: message.slice(i + 2)};
}
function inputFor(form, path) {
  let best = null;
  for (const input of form.querySelectorAll("[data-field]")) {
    if (!isShown(input)) continue;
    const f = input.getAttribute("data-field");
    const hit = path === f || path.endsWith("." + f) || f.endsWith("." + path);
    if (hit && (!best || f.length > best.getAttribute("data-field").length)) best = input;
  }
  return best;
}
// The detail's numbers in the input's unit: a per-token target typed in ms is reported in ms
// ("got 500 ms"), not in the API's seconds.
function inInputUnit(input, detail) {
  const unit = input.getAttribute("data-unit");
  if (!unit) return null;
  const scale = Number(input.getAttribute("data-scale") || 1);
  return detail.replace(/(^|[\s[(,=<>])(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?=$|[\s\]),;])/gi,
                        (_, pre, n) => pre + fixed(Number(n) / scale, 4) + " " + unit);
}
function showError(form, formErr, message) {
  const parsed = splitMessage(message);
  const inputs = parsed ? [...new Set(parsed.paths.map((p) => inputFor(form, p)).filter(Boolean))] : [];
  if (!inputs.length) {
    formErr.textContent = message;
    return;
  }
  const converted = inputs.length === 1 ? inInputUnit(inputs[0], parsed.detail) : null;
  markFields(inputs, converted ? labelName(inputs[0]) + ": " + converted : message);
  inputs[0].focus();
}
// Blank required inputs and text that is not a number, before anything is sent.
function checkNumbers(form) {
  const bad = [];
  for (const input of form.querySelectorAll("input[inputmode]")) {
    if (!isShown(input)) continue;
    const v = input.value.trim();
    if (v === "" && input.required) {
      markFields([input], labelName(input) + ": required; enter a number");
    } else if (v !== "" && !Number.isFinite(Number(v))) {
      markFields([input], labelName(input) + ": \"" + v + "\" is not a number" +
                 (v.includes(",") ? " (no thousands separators)" : ""));
    } else {
      continue;
    }
    bad.push(input);
  }
  if (bad.length) bad[0].focus();
  return bad.length === 0;
}
function valueOf(id) {
  const v = document.getElementById(id).value.trim();
  return v === "" ? undefined : Number(v);
}
// The value in the API's unit: the input's value times its data-scale (ms -> s, hours -> s).
function scaledValueOf(id) {
  const v = valueOf(id);
  const scale = Number(document.getElementById(id).getAttribute("data-scale") || 1);
  return v === undefined ? undefined : v * scale;
}
function setIf(obj, key, v) { if (v !== undefined) obj[key] = v; }

// ---- Catalog lists for the selects. ----
async function loadCatalog() {
  const [gpus, models] = await Promise.all([api("GET", "/v1/gpus"), api("GET", "/v1/models")]);
  const gpuSel = document.getElementById("tco-gpu");
  if (gpus.ok) {
    for (const g of list(gpus.json, "gpus")) {
      const name = pick(g, "name");
      const mem = num(g, "memory_bytes") / GIB;
      const o = el("option", {value: name, title: sourceText(pick(g, "source")),
                              text: name + " (" + fixed(mem, 0) + " GiB)"});
      if (name === "A100-SXM4-80GB") o.selected = true;
      gpuSel.append(o);
      document.getElementById("import-gpu").append(el("option", {value: name, text: name}));
    }
    const v = pick(gpus.json, "catalog_version");
    if (v !== undefined) document.getElementById("catalog-version").textContent = "catalog version " + v;
  } else {
    document.getElementById("tco-form-err").textContent = "GPU list: " + gpus.message;
  }
  const modelSel = document.getElementById("plan-model");
  if (models.ok) {
    for (const m of list(models.json, "models")) {
      const name = pick(m, "name");
      const params = num(m, "parameter_count");
      const o = el("option", {value: name, title: sourceText(pick(m, "source")),
                              text: params ? name + " (" + fixed(params / 1e9, 1) + "B parameters)" : name});
      if (name === "Llama-2-7B") o.selected = true;
      modelSel.append(o);
      document.getElementById("import-model").append(el("option", {value: name, text: name}));
    }
  } else {
    document.getElementById("plan-form-err").textContent = "model list: " + models.message;
  }
  await loadInstances();
}

// Instances carrying the chosen GPU, for catalog rent. Follows pages (at most 20).
async function loadInstances() {
  const gpu = document.getElementById("tco-gpu").value;
  const sel = document.getElementById("tco-instance");
  sel.replaceChildren();
  let token = "";
  for (let page = 0; page < 20; ++page) {
    const q = "/v1/instances?gpu_name=" + encodeURIComponent(gpu) + (token ? "&page_token=" + encodeURIComponent(token) : "");
    const r = await api("GET", q);
    if (!r.ok) {
      document.getElementById("tco-instance-err").textContent = r.message;
      return;
    }
    for (const off of list(r.json, "offers")) {
      const inst = pick(off, "instance");
      if (pick(inst, "gpu_name") !== gpu) continue;
      const od = list(off, "current_prices").find((p) => pick(p, "kind") === "PRICE_KIND_ON_DEMAND");
      const label = [pick(inst, "provider"), pick(inst, "instance_type"), pick(inst, "region")].join(" ") +
                    " (" + num(inst, "gpu_count") + " GPUs" + (od ? ", " + usd(num(od, "price_usd_per_hour")) + "/h on demand" : "") + ")";
      const o = el("option", {value: JSON.stringify([pick(inst, "provider"), pick(inst, "instance_type"), pick(inst, "region")]),
                              title: od ? sourceText(pick(od, "source")) : "", text: label});
      sel.append(o);
    }
    token = pick(r.json, "next_page_token") || "";
    if (!token) break;
  }
  if (!sel.options.length) sel.append(el("option", {value: "", text: "no catalog instance carries this GPU"}));
}

// ---- TCO. ----
function tcoRequest() {
  const own = {};
  setIf(own, "capex_usd", valueOf("tco-capex"));
  setIf(own, "power_watts", valueOf("tco-power"));
  setIf(own, "electricity_usd_per_kwh", valueOf("tco-kwh"));
  setIf(own, "pue", valueOf("tco-pue"));
  setIf(own, "ops_usd_per_month", valueOf("tco-ops"));
  setIf(own, "depreciation_months", valueOf("tco-depr"));
  const rent = {};
  if (document.getElementById("tco-rent-flat").checked) {
    rent.price_usd_per_month = valueOf("tco-rent-month") || 0;
  } else {
    const v = document.getElementById("tco-instance").value;
    if (v) [rent.provider, rent.instance_type, rent.region] = JSON.parse(v);
    rent.price_kind = document.getElementById("tco-kind").value;
    setIf(rent, "discount_fraction", valueOf("tco-discount"));
  }
  const fleet = {role: "fleet", gpu_name: document.getElementById("tco-gpu").value,
                 gpu_count: valueOf("tco-count") || 0, own, rent};
  setIf(fleet, "usage_gpu_hours_per_month", valueOf("tco-usage"));
  const req = {fleets: [fleet], horizon_months: valueOf("tco-horizon") || 0};
  setIf(req, "discount_rate_fraction_per_year", valueOf("tco-rate"));
  return req;
}


// ---- Inline SVG helpers. ----
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  }
  if (text !== undefined) e.textContent = text;
  return e;
}
function niceStep(span, ticks) {
  const raw = span / ticks;
  if (!(raw > 0)) return 1;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}
// Tick values covering [lo, hi], and the rounded ends.
function niceAxis(lo, hi, ticks) {
  if (!(hi > lo)) {
    const pad = Math.abs(hi) > 0 ? Math.abs(hi) * 0.1 : 1;
    lo -= pad;
    hi += pad;
  }
  const step = niceStep(hi - lo, ticks);
  const a = Math.floor(lo / step) * step, b = Math.ceil(hi / step) * step;
  const values = [];
  for (let v = a; v <= b + step / 1e6; v += step) values.push(Math.abs(v) < step / 1e6 ? 0 : v);
  return {lo: a, hi: b, values};
}
// Values spanning more than MAX_LINEAR_RATIO get a log axis with 1-2-5 ticks, so a few-hour
// run and a two-week one are both readable.
const MAX_LINEAR_RATIO = 30;
function logAxis(lo, hi) {
  const a = Math.pow(10, Math.floor(Math.log10(lo))), b = Math.pow(10, Math.ceil(Math.log10(hi)));
  const values = [];
  for (let d = a; d < b * 1.0001; d *= 10) {
    for (const m of [1, 2, 5]) if (d * m >= lo / 1.0001 && d * m <= hi * 1.0001) values.push(d * m);
  }
  return {lo: Math.min(lo, values[0] || lo), hi: Math.max(hi, values[values.length - 1] || hi), values, log: true};
}
function axisFor(lo, hi, ticks) {
  return lo > 0 && hi / lo > MAX_LINEAR_RATIO ? logAxis(lo / 1.1, hi * 1.1) : niceAxis(lo, hi, ticks);
}
function toFraction(axis, v) {
  if (axis.log) return Math.log(v / axis.lo) / Math.log(axis.hi / axis.lo);
  return (v - axis.lo) / (axis.hi - axis.lo);
}
// A plot area: x(v), y(v) map values to pixels; grid, ticks, axis labels drawn into root.
function plotFrame(root, box, xAxis, yAxis, fmtX, fmtY, xLabel, yLabel) {
  const {W, H, L, R, T, B} = box;
  const x = (v) => L + (W - L - R) * toFraction(xAxis, v);
  const y = (v) => T + (H - T - B) * (1 - toFraction(yAxis, v));
  for (const v of yAxis.values) {
    root.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
    root.append(svg("text", {x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "tick"}, fmtY(v)));
  }
  for (const v of xAxis.values) {
    root.append(svg("text", {x: x(v), y: H - B + 18, "text-anchor": "middle", class: "tick"}, fmtX(v)));
  }
  root.append(svg("line", {x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis"}));
  root.append(svg("line", {x1: L, x2: L, y1: T, y2: H - B, class: "axis"}));
  root.append(svg("text", {x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", class: "label"}, xLabel));
  root.append(svg("text", {x: 14, y: (T + H - B) / 2, "text-anchor": "middle", class: "label",
                           transform: `rotate(-90 14 ${(T + H - B) / 2})`}, yLabel));
  return {x, y};
}
function figure(root, caption, id) {
  return el("figure", {id}, root, el("figcaption", {text: caption}));
}

// ---- TCO: the answer. ----
function keyNumber(dl, label, value, id, tipText) {
  dl.append(el("dt", {text: label}),
            el("dd", {id, "data-tip": tipText, tabindex: tipText ? 0 : undefined, text: value}));
}

function renderTco(resp, horizon) {
  const out = document.getElementById("tco-result");
  const series = list(resp, "series");
  const last = series.length ? series[series.length - 1] : {};
  const be = num(resp, "break_even_month");
  const beText = be > 0 && !pick(resp, "break_even_month_never") ? "month " + be : "never within " + horizon + " months";
  const fleet = list(resp, "fleets")[0] || {};
  const prices = list(pick(resp, "provenance"), "prices");
  const rentSource = prices.map((p) => [pick(p, "provider"), pick(p, "instance_type"), pick(p, "region"),
                                        usd(num(p, "price_usd_per_hour")) + "/h:", sourceText(pick(p, "source"))].join(" ")).join("\n");
  const dl = el("dl", {class: "keys"});
  keyNumber(dl, "Break-even (cash)", beText, "tco-break-even",
            "first month in which cumulative own cost <= cumulative rent cost");
  const dbe = num(resp, "discounted_break_even_month");
  keyNumber(dl, "Break-even (discounted at " + pct(num(resp, "discount_rate_fraction_per_year")) + "/year)",
            dbe > 0 ? "month " + dbe : "never within " + horizon + " months", "tco-discounted-break-even",
            "first month in which the present value of owning so far <= that of renting");
  keyNumber(dl, "Own, per used GPU-hour", usd(num(resp, "own_usd_per_used_gpu_hour")) + "/GPU-hour", "tco-own-gpu-hour",
            "amortised: depreciation + power + ops + maintenance over the GPU-hours used");
  keyNumber(dl, "Rent, per used GPU-hour", usd(num(resp, "rent_usd_per_used_gpu_hour")) + "/GPU-hour", "tco-rent-gpu-hour",
            rentSource || "the flat monthly rent given, over the GPU-hours used");
  keyNumber(dl, "Total own over " + horizon + " months (cash)", usd(num(last, "own_cumulative_usd")), "tco-own-total",
            "NPV own " + usd(num(resp, "npv_own_usd")));
  keyNumber(dl, "Total rent over " + horizon + " months (cash)", usd(num(last, "rent_cumulative_usd")), "tco-rent-total",
            "NPV rent " + usd(num(resp, "npv_rent_usd")));
  keyNumber(dl, "Owning wins above", !pick(resp, "break_even_usage_applies") ? "does not apply (flat rent)" :
            pick(resp, "break_even_usage_never") ? "never, at any use" :
            fixed(num(resp, "break_even_gpu_hours_per_month"), 0) + " GPU-hours/month (" +
            pct(num(resp, "break_even_utilization_fraction")) + " use)", "tco-break-even-use",
            pick(resp, "break_even_usage_applies") ? "the steady use at which NPV(own) = NPV(rent)"
                                                   : "a flat rent costs the same at any use, so no use level changes the answer");
  keyNumber(dl, "Own per month (amortised)", usd(num(fleet, "own_usd_per_month")) + "/month", "tco-own-month",
            "power " + usd(num(fleet, "own_power_usd_per_month")) + "/month at " + fixed(num(fleet, "power_watts_at_steady_use"), 0) + " W");
  keyNumber(dl, "Rent per month", usd(num(fleet, "rent_usd_per_month")) + "/month", "tco-rent-month-out", rentSource || undefined);
  const charts = el("div", {class: "charts"}, drawTcoChart(series, be), drawSavings(resp, series), drawTornado(resp));
  const warnings = list(resp, "warnings");
  const parts = [el("h3", {text: "Own vs rent: " + num(fleet, "gpu_count") + " x " + pick(fleet, "gpu_name")}), dl,
                 warnings.length ? el("ul", {id: "tco-warnings", class: "warnings"}, ...warnings.map((w) => el("li", {text: w}))) : null,
                 charts, rentOptions(resp, horizon), sourcesTable(resp)];
  out.replaceChildren(...parts.filter(Boolean));
}

// The ways to rent the same use (on demand, spot, reserved, a mix), cheapest first; only with
// catalog (or per-GPU-hour) rent prices.
function rentOptions(resp, horizon) {
  const options = list(resp, "rent_options");
  if (!options.length) return null;
  const tbody = el("tbody", {});
  for (const o of options) {
    tbody.append(el("tr", {}, el("td", {text: enumName(pick(o, "kind"), "")}),
                    el("td", {class: "num", text: usd(num(o, "total_usd"))}),
                    el("td", {class: "num", text: usd(num(o, "npv_usd"))}),
                    el("td", {class: "src", text: pick(o, "note") || ""})));
  }
  const head = el("tr", {}, ...["way to rent", "total over " + horizon + " months", "NPV", "note"].map(
      (h) => el("th", {scope: "col", text: h})));
  return el("details", {id: "tco-rent-options"}, el("summary", {text: "Ways to rent, cheapest first (" + options.length + ")"}),
            el("table", {}, el("thead", {}, head), tbody));
}

function sourcesTable(resp) {
  const rows = [];
  for (const p of list(pick(resp, "provenance"), "prices")) {
    rows.push(["rent price: " + [pick(p, "provider"), pick(p, "instance_type"), pick(p, "region"),
                                 enumName(pick(p, "kind"), "PRICE_KIND_")].join(" "),
               usd(num(p, "price_usd_per_hour")) + "/h", sourceText(pick(p, "source"))]);
  }
  for (const f of list(resp, "fleets")) {
    for (const c of list(f, "capex_lines")) rows.push(["capex: " + pick(c, "name"), usd(num(c, "usd")), pick(c, "source")]);
    for (const a of list(f, "assumptions")) rows.push(["default " + pick(a, "field"), fixed(num(a, "value"), 4), pick(a, "source")]);
  }
  const tbody = el("tbody", {});
  for (const r of rows) tbody.append(el("tr", {}, el("td", {text: r[0]}), el("td", {class: "num", text: r[1]}),
                                        el("td", {class: "src", text: r[2] || ""})));
  const d = el("details", {id: "tco-sources"}, el("summary", {text: "Sources: prices, capex lines and the defaults the server filled in (" + rows.length + ")"}),
               el("table", {}, el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "item"}),
                   el("th", {scope: "col", text: "value"}), el("th", {scope: "col", text: "source"}))), tbody));
  return d;
}

// Cumulative cash cost, own vs rent, per month.
function drawTcoChart(series, breakEven) {
  const box = {W: 760, H: 330, L: 70, R: 20, T: 36, B: 50};
  const months = series.map((p) => num(p, "month"));
  const own = series.map((p) => num(p, "own_cumulative_usd"));
  const rent = series.map((p) => num(p, "rent_cumulative_usd"));
  const n = Math.max(1, months.length ? months[months.length - 1] : 1);
  const root = svg("svg", {viewBox: `0 0 ${box.W} ${box.H}`, id: "tco-chart", role: "img", class: "chart",
                          "aria-label": `Cumulative cost over ${n} months: own ends at ${usd(own[own.length - 1] || 0)}, ` +
                                        `rent at ${usd(rent[rent.length - 1] || 0)}` +
                                        (breakEven > 0 ? `; break-even in month ${breakEven}` : "; no break-even")});
  const mStep = Math.max(1, Math.round(niceStep(n, 8)));
  const xAxis = {lo: 0, hi: n, values: []};
  for (let m = 0; m <= n; m += mStep) xAxis.values.push(m);
  const {x, y} = plotFrame(root, box, xAxis, niceAxis(0, Math.max(1, ...own, ...rent), 5), String, shortUsd,
                           "month", "cumulative cost (USD)");
  const path = (vals) => vals.map((v, i) => (i ? "L" : "M") + x(months[i]).toFixed(1) + " " + y(v).toFixed(1)).join(" ");
  root.append(svg("path", {d: path(own), class: "own", id: "tco-own-line"}));
  root.append(svg("path", {d: path(rent), class: "rent", id: "tco-rent-line"}));
  if (breakEven > 0) {
    const i = months.indexOf(breakEven);
    const bx = x(breakEven), by = y(i >= 0 ? own[i] : 0);
    root.append(svg("line", {x1: bx, x2: bx, y1: box.T, y2: y(0), class: "be"}));
    root.append(svg("circle", {cx: bx, cy: by, r: 5, class: "be-dot"}));
    const right = bx < (box.L + box.W - box.R) / 2;
    root.append(svg("text", {x: bx + (right ? 8 : -8), y: box.T + 14, "text-anchor": right ? "start" : "end",
                             class: "be-label", id: "tco-chart-break-even"}, `break-even: month ${breakEven}`));
  }
  // Hover targets: each month's figures (pointer only: the same figures are in the totals above).
  const band = (box.W - box.L - box.R) / n;
  for (let i = 0; i < months.length; ++i) {
    const g = svg("g", {class: "hover", "data-tip": `month ${months[i]}: own ${usd(own[i])}, rent ${usd(rent[i])} (cumulative)`});
    g.append(svg("rect", {x: x(months[i]) - band / 2, y: box.T, width: band, height: box.H - box.T - box.B}));
    root.append(g);
  }
  const legend = svg("g", {transform: `translate(${box.L} 12)`, class: "legend"});
  legend.append(svg("line", {x1: 0, x2: 24, y1: 0, y2: 0, class: "own"}));
  legend.append(svg("text", {x: 30, y: 4}, "own (capex in month 1, then running costs)"));
  legend.append(svg("line", {x1: 340, x2: 364, y1: 0, y2: 0, class: "rent"}));
  legend.append(svg("text", {x: 370, y: 4}, "rent"));
  root.append(legend);
  return figure(root, "Cumulative cash cost per month, own vs rent.");
}

// What owning has saved so far, month by month: cumulative present value of renting minus
// that of owning (at the cost of capital; equal to cash when it is 0). Above 0, owning is ahead.
function drawSavings(resp, series) {
  if (!series.length) return null;
  const box = {W: 760, H: 300, L: 80, R: 20, T: 36, B: 50};
  const months = series.map((p) => num(p, "month"));
  const saved = series.map((p) => num(p, "rent_discounted_cumulative_usd") - num(p, "own_discounted_cumulative_usd"));
  const n = Math.max(1, months[months.length - 1]);
  const lastSaved = saved[saved.length - 1];
  const payback = months.find((m, i) => saved[i] >= 0 && (i === 0 || saved[i - 1] < 0));
  const root = svg("svg", {viewBox: `0 0 ${box.W} ${box.H}`, id: "tco-savings", role: "img", class: "chart",
                          "aria-label": `Cumulative saving from owning (NPV, rent minus own) over ${n} months: ` +
                                        `${usd(lastSaved)} at month ${n}` + (payback ? `; turns positive in month ${payback}` : "")});
  const mStep = Math.max(1, Math.round(niceStep(n, 8)));
  const xAxis = {lo: 0, hi: n, values: []};
  for (let m = 0; m <= n; m += mStep) xAxis.values.push(m);
  const {x, y} = plotFrame(root, box, xAxis, niceAxis(Math.min(0, ...saved), Math.max(0, ...saved), 5), String, shortUsd,
                           "month", "saved by owning (NPV, USD)");
  root.append(svg("line", {x1: box.L, x2: box.W - box.R, y1: y(0), y2: y(0), class: "zero"}));
  root.append(svg("text", {x: box.W - box.R - 4, y: y(0) - 6, "text-anchor": "end", class: "tick"}, "0: own = rent"));
  const d = saved.map((v, i) => (i ? "L" : "M") + x(months[i]).toFixed(1) + " " + y(v).toFixed(1)).join(" ");
  root.append(svg("path", {d, class: "savings", id: "tco-savings-line", "data-last-usd": lastSaved.toFixed(2),
                           "data-points": saved.length}));
  if (payback) {
    const i = months.indexOf(payback);
    root.append(svg("circle", {cx: x(payback), cy: y(saved[i]), r: 5, class: "be-dot", id: "tco-savings-payback",
                               "data-month": payback}));
    const right = x(payback) < (box.L + box.W - box.R) / 2;
    root.append(svg("text", {x: x(payback) + (right ? 8 : -8), y: y(saved[i]) + 20, "text-anchor": right ? "start" : "end",
                             class: "be-label"}, `owning ahead from month ${payback}`));
  }
  root.append(svg("text", {x: x(n), y: box.T - 12, "text-anchor": "end", class: "label", id: "tco-savings-end"},
                  `month ${n}: ` + (lastSaved >= 0 ? `owning saves ${usd(lastSaved)}` : `owning costs ${usd(-lastSaved)} more`)));
  return figure(root, "Savings line: cumulative NPV of renting minus owning, per month (" +
                      pct(num(resp, "discount_rate_fraction_per_year")) + "/year cost of capital).");
}

// The sensitivity tornado: NPV(own) - NPV(rent) with each input at 80% and 120% of its value,
// largest swing first, around the answer's own difference. Left of 0, owning is cheaper.
function drawTornado(resp) {
  const entries = list(resp, "sensitivity");
  if (!entries.length) return null;
  const base = num(resp, "npv_own_usd") - num(resp, "npv_rent_usd");
  const row = 40;
  const box = {W: 760, H: 70 + row * entries.length, L: 170, R: 30, T: 40, B: 30};
  const values = [base, 0];
  for (const e of entries) values.push(num(e, "npv_difference_low_usd"), num(e, "npv_difference_high_usd"));
  const axis = niceAxis(Math.min(...values), Math.max(...values), 6);
  const x = (v) => box.L + (box.W - box.L - box.R) * (v - axis.lo) / (axis.hi - axis.lo);
  const root = svg("svg", {viewBox: `0 0 ${box.W} ${box.H}`, id: "tco-tornado", class: "chart tornado", role: "group",
                          "aria-label": `Sensitivity of NPV(own) - NPV(rent), ${entries.length} inputs at 80% and 120%, ` +
                                        `largest swing first; the answer's difference is ${usd(base)}`});
  const bottom = box.H - box.B;
  for (const v of axis.values) {
    root.append(svg("line", {x1: x(v), x2: x(v), y1: box.T - 6, y2: bottom, class: "grid"}));
    root.append(svg("text", {x: x(v), y: bottom + 18, "text-anchor": "middle", class: "tick"}, shortUsd(v)));
  }
  root.append(svg("line", {x1: x(0), x2: x(0), y1: box.T - 10, y2: bottom, class: "zero"}));
  root.append(svg("line", {x1: x(base), x2: x(base), y1: box.T - 10, y2: bottom, class: "base"}));
  root.append(svg("text", {x: x(base), y: box.T - 14, "text-anchor": "middle", class: "label"},
                  "as entered: " + shortUsd(base)));
  entries.forEach((e, i) => {
    const lo = num(e, "npv_difference_low_usd"), hi = num(e, "npv_difference_high_usd");
    const name = enumName(pick(e, "input"), "");
    const clamp = [pick(e, "low_clamped") ? "80% was outside the input's range: computed at its edge" : "",
                   pick(e, "high_clamped") ? "120% was outside the input's range: computed at its edge" : ""].filter(Boolean);
    const text = `${name}: ${usd(lo)} at 80%, ${usd(hi)} at 120% (swing ${usd(num(e, "swing_usd"))})` +
                 [...clamp, pick(e, "note") || ""].filter(Boolean).map((s) => "; " + s).join("");
    const top = box.T + i * row + 6;
    const g = svg("g", {class: "bar", tabindex: 0, role: "img", "aria-label": text, "data-tip": text,
                        "data-input": pick(e, "input"), "data-swing-usd": num(e, "swing_usd")});
    g.append(svg("text", {x: box.L - 8, y: top + row / 2, "text-anchor": "end", class: "label"}, name));
    if (lo === base && hi === base) {
      g.append(svg("text", {x: x(base) + 6, y: top + row / 2 - 2, class: "tick"}, "no effect at 80% or 120%" + (clamp.length ? "*" : "")));
    }
    for (const [v, cls, tag] of (lo === base && hi === base) ? [] : [[lo, "low", "80%"], [hi, "high", "120%"]]) {
      const a = Math.min(x(base), x(v)), w = Math.abs(x(v) - x(base));
      g.append(svg("rect", {x: a, y: top, width: Math.max(w, 1), height: row - 14, class: cls}));
      const right = v >= base;
      g.append(svg("text", {x: x(v) + (right ? 4 : -4), y: top + row / 2 - 2, "text-anchor": right ? "start" : "end",
                            class: "tick"}, tag + (clamp.length ? "*" : "")));
    }
    root.append(g);
  });
  return figure(root, "Tornado: NPV(own) - NPV(rent) with one input at 80% (light) and 120% (dark) of its value; " +
                      "left of $0 owning is cheaper. * an end was clamped to the input's valid range.", "tco-tornado-fig");
}

async function submitTco(ev) {
  ev.preventDefault();
  const form = document.getElementById("tco-form");
  const formErr = document.getElementById("tco-form-err");
  clearErrors(form);
  if (!checkNumbers(form)) return;
  const req = tcoRequest();
  const button = document.getElementById("tco-submit");
  button.disabled = true;
  document.getElementById("tco-result").replaceChildren(el("p", {class: "muted", text: "Computing the TCO..."}));
  const r = await api("POST", "/v1/tco", req);
  button.disabled = false;
  if (!r.ok) {
    document.getElementById("tco-result").replaceChildren();
    showError(form, formErr, r.message);
    return;
  }
  renderTco(r.json, req.horizon_months);
  document.getElementById("tco-result").scrollIntoView({block: "nearest"});
}

// ---- Plan. ----
function planRequest() {
  const kind = document.getElementById("plan-kind-training").checked ? "training" : "serving";
  const req = {objective: document.getElementById("plan-objective").value, view: "VIEW_FULL", max_rejected: 20};
  setIf(req, "top_k", valueOf("plan-topk"));
  const model = document.getElementById("plan-model").value;
  if (kind === "serving") {
    const w = {model_name: model};
    setIf(w, "prompt_tokens", valueOf("plan-prompt"));
    setIf(w, "output_tokens", valueOf("plan-output"));
    setIf(w, "requests_per_second", valueOf("plan-rps"));
    setIf(w, "ttft_slo_seconds", scaledValueOf("plan-ttft"));
    setIf(w, "tpot_slo_seconds", scaledValueOf("plan-tpot"));
    req.serving = w;
  } else {
    const w = {model_name: model, method: document.getElementById("plan-method").value};
    setIf(w, "tokens", valueOf("plan-tokens"));
    setIf(w, "sequence_tokens", valueOf("plan-seq"));
    setIf(w, "global_batch_tokens", valueOf("plan-batch"));
    req.training = w;
  }
  setIf(req, "deadline_seconds", scaledValueOf("plan-deadline"));
  setIf(req, "budget_usd", valueOf("plan-budget"));
  const c = {};
  setIf(c, "max_gpus", valueOf("plan-maxgpus"));
  const providers = document.getElementById("plan-providers").value.split(",").map((s) => s.trim()).filter(Boolean);
  if (providers.length) c.providers = providers;
  req.constraints = c;
  return {kind, req};
}

function layoutText(o, serving) {
  const p = pick(o, "parallelism");
  if (!serving) {
    return "tp=" + num(p, "tensor_parallel") + " pp=" + num(p, "pipeline_parallel") + " dp=" + num(p, "data_parallel") +
           " zero=" + num(p, "zero_stage");
  }
  if (pick(o, "deployment") === "SERVING_DEPLOYMENT_DISAGGREGATED") {
    return "disaggregated: " + num(o, "prefill_replicas") + " prefill x tp=" + num(o, "prefill_tensor_parallel") +
           ", decode tp=" + num(p, "tensor_parallel") + " batch=" + num(p, "serving_batch_sequences") + " x" + num(o, "replicas");
  }
  const pp = num(p, "pipeline_parallel") > 1 ? " pp=" + num(p, "pipeline_parallel") : "";
  return "tp=" + num(p, "tensor_parallel") + pp + " batch=" + num(p, "serving_batch_sequences") + " x" +
         num(o, "replicas") + " replicas";
}
function whereText(o) {
  const pool = pick(o, "owned_pool");
  return pool ? "owned pool " + pool :
      [pick(o, "provider"), pick(o, "instance_type"), "x" + num(o, "instance_count"), pick(o, "region")].join(" ");
}
function provenanceLines(o) {
  const prov = pick(o, "provenance") || {};
  const lines = list(prov, "prices").map((p) => "price: " + [pick(p, "provider"), pick(p, "instance_type"), pick(p, "region"),
      enumName(pick(p, "kind"), "PRICE_KIND_"), usd(num(p, "price_usd_per_hour")) + "/h", "-", sourceText(pick(p, "source"))].join(" "));
  if (pick(prov, "price_note")) lines.push(pick(prov, "price_note"));
  if (pick(prov, "efficiency_source")) {
    lines.push("efficiency " + pct(num(prov, "efficiency_fraction")) + ": " + pick(prov, "efficiency_source"));
  }
  lines.push("catalog version " + (pick(prov, "catalog_version") || "?"));
  return lines;
}
// Options that are the same GPUs in another packaging fold together: the same provider and
// region (or owned pool), GPU type and count, and price kind, whatever the instance type (8 x
// 1-GPU instances or 2 x 4-GPU ones) or the layout on them.
function offerKey(o) {
  return JSON.stringify([pick(o, "owned_pool") || "", pick(o, "provider") || "", pick(o, "region") || "",
                         pick(o, "gpu_name"), num(o, "gpu_count"), pick(pick(o, "provenance"), "price_kind") || ""]);
}

// The planner words a GPU limit as "more than the N allowed", N in whole instances (so 0 when
// one instance has more GPUs than the limit) or its default when no limit was given: say which.
const LIMIT_WORDS = /more than the (\d+) allowed/g;
function limitText(text, maxGpus) {
  return String(text || "").replace(LIMIT_WORDS, (m, n) => {
    if (!(maxGpus > 0)) return `more than the ${n} a plan considers when "Most GPUs" is blank (set it to allow more)`;
    if (Number(n) === 0) return `more than "Most GPUs" = ${maxGpus} allows: one instance alone has more GPUs`;
    if (Number(n) < maxGpus) return `more than the ${n} that "Most GPUs" = ${maxGpus} allows in whole instances`;
    return `more than the ${n} "Most GPUs" allows`;
  });
}

// ---- SLO risks: a latency target missed at the pessimistic end of the estimate. ----
const SLO_METRICS = {SLO_METRIC_TPOT: ["TPOT", 1000, "ms"], SLO_METRIC_TTFT_P99: ["p99 TTFT", 1, "s"],
                     SLO_METRIC_E2E_P99: ["p99 end to end", 1, "s"]};
function sloRisks(o, slo) {
  const risks = new Map();
  const add = (name, high, target, scale, unit, unbounded) => risks.set(name,
      name + " up to " + (unbounded ? "unbounded (the pessimistic capacity is saturated)" : (unit === "ms" ? (high * scale).toFixed(1) : fixed(high * scale, 3)) +
      " " + unit) + ", target " + fixed(target * scale, 3) + " " + unit);
  const tpotHigh = num(pick(o, "tpot_seconds"), "high"), ttftHigh = num(pick(o, "ttft_seconds"), "high");
  if (slo.tpot > 0 && tpotHigh > slo.tpot) add("TPOT", tpotHigh, slo.tpot, 1000, "ms", false);
  if (slo.ttft > 0 && ttftHigh > slo.ttft) add("TTFT", ttftHigh, slo.ttft, 1, "s", false);
  for (const w of list(o, "slo_warnings")) {
    const [name, scale, unit] = SLO_METRICS[pick(w, "metric")] || [enumName(pick(w, "metric"), "SLO_METRIC_"), 1, "s"];
    if (!risks.has(name)) add(name, num(w, "high_seconds"), num(w, "slo_seconds"), scale, unit, !!pick(w, "high_unbounded"));
  }
  return [...risks.values()];
}
function sloCell(risks, slo) {
  if (!risks.length) {
    return el("td", {class: "slo-ok", text: slo.tpot > 0 || slo.ttft > 0 ? "meets, even pessimistic" : "no target"});
  }
  return el("td", {class: "slo-risk"}, el("strong", {class: "flag", text: "\u26a0 SLO risk"}), el("br"), risks.join("; "));
}

// ---- Memory per GPU as a stacked bar against the GPU's capacity. ----
const MEMORY_PARTS = [["weights_bytes", "weights"], ["kv_cache_bytes", "KV cache"], ["activations_bytes", "activations"],
                      ["gradients_bytes", "gradients"], ["optimizer_bytes", "optimizer state"], ["overhead_bytes", "overhead"]];
function memoryParts(mem) {
  const parts = MEMORY_PARTS.map(([f, name], i) => ({name, bytes: num(mem, f), cls: "mem" + i})).filter((p) => p.bytes > 0);
  const sum = parts.reduce((s, p) => s + p.bytes, 0);
  const total = num(mem, "total_bytes");
  // A total above its named parts keeps the rest visible instead of dropping it.
  if (total > sum * (1 + 1e-9)) parts.push({name: "other", bytes: total - sum, cls: "mem-other"});
  return parts;
}
function memoryCell(o) {
  const mem = pick(o, "memory_per_gpu") || {};
  const cap = num(mem, "capacity_bytes"), total = num(mem, "total_bytes");
  const parts = memoryParts(mem);
  const text = "per GPU: " + parts.map((p) => p.name + " " + gib(p.bytes)).join(", ") + "; total " + gib(total) +
               " of " + gib(cap) + (cap > 0 ? " (" + pct(total / cap) + ")" : "");
  const W = 160, H = 12;
  const full = Math.max(cap, parts.reduce((s, p) => s + p.bytes, 0), 1);
  const bar = svg("svg", {viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "membar", "aria-hidden": "true",
                         "data-capacity-bytes": cap, "data-total-bytes": total, "data-width": W});
  bar.append(svg("rect", {x: 0, y: 0, width: W, height: H, class: "cap"}));
  let x = 0;
  for (const p of parts) {
    const w = W * p.bytes / full;
    bar.append(svg("rect", {x: x.toFixed(3), y: 0, width: w.toFixed(3), height: H, class: "seg " + p.cls,
                            "data-part": p.name, "data-bytes": p.bytes}));
    x += w;
  }
  return el("td", {class: "num mem"},
            el("span", {class: "memfig", tabindex: 0, role: "img", "aria-label": "memory " + text, "data-tip": text},
               fixed(total / GIB, 1) + " / " + fixed(cap / GIB, 1) + " GiB", bar));
}
function memoryLegend(options) {
  const seen = new Map();
  for (const o of options) for (const p of memoryParts(pick(o, "memory_per_gpu") || {})) seen.set(p.cls, p.name);
  const items = [...seen].map(([cls, name]) => {
    const swatch = svg("svg", {width: 12, height: 12, viewBox: "0 0 12 12", "aria-hidden": "true", class: "membar"});
    swatch.append(svg("rect", {x: 0, y: 0, width: 12, height: 12, class: "seg " + cls}));
    return el("span", {class: "item"}, swatch, " " + name);
  });
  return el("p", {id: "plan-memory-legend", class: "legend"}, "Memory per GPU, against its capacity (grey): ", ...items);
}

// ---- The frontier: cost against time (training) or latency (serving), chosen option marked. ----
const LATENCY_AXES = {
  tpot: {name: "TPOT", label: "time per output token, TPOT (ms)", field: "tpot_seconds", scale: 1000, unit: "ms", slo: "tpot"},
  ttft: {name: "TTFT", label: "time to first token, TTFT (s)", field: "ttft_seconds", scale: 1, unit: "s", slo: "ttft"},
  e2e: {name: "p99 end to end", label: "p99 end-to-end latency at the offered load (s)", field: "e2e_p99_seconds", scale: 1,
        unit: "s", plain: true},
};
function frontierPoints(options, serving, axis) {
  return options.map((o) => {
    if (!serving) {
      const d = pick(o, "duration_seconds"), c = pick(o, "total_cost_usd");
      return {o, x: num(d, "point") / 86400, xlo: num(d, "low") / 86400, xhi: num(d, "high") / 86400,
              y: num(c, "point"), ylo: num(c, "low"), yhi: num(c, "high")};
    }
    const a = LATENCY_AXES[axis];
    const r = pick(o, a.field);
    return a.plain ? {o, x: num(o, a.field) * a.scale, y: num(o, "usd_per_month")}
                   : {o, x: num(r, "point") * a.scale, xlo: num(r, "low") * a.scale, xhi: num(r, "high") * a.scale,
                      y: num(o, "usd_per_month")};
  });
}
// The returned options no other returned option beats on both cost and time, fastest first.
function paretoOf(points) {
  const sorted = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  const out = [];
  for (const p of sorted) if (!out.length || p.y < out[out.length - 1].y) out.push(p);
  return out;
}
function drawFrontier(resp, serving, axis, slo) {
  const a = serving ? LATENCY_AXES[axis] : null;
  const pts = frontierPoints(list(resp, "options"), serving, axis);
  // The API's frontier over every option considered: training (days, run cost) and serving
  // (p99 end to end, USD/month) share those axes with the options.
  const api = (!serving || axis === "e2e") ? list(resp, "frontier").map((f) => serving
      ? {x: num(f, "e2e_p99_seconds"), y: num(f, "usd_per_month"), f}
      : {x: num(f, "duration_seconds") / 86400, y: num(f, "total_cost_usd"), f}) : [];
  const sloX = a && a.slo && slo[a.slo] > 0 ? slo[a.slo] * a.scale : 0;
  const xs = [...pts.flatMap((p) => [p.x, p.xlo || p.x, p.xhi || p.x]), ...api.map((p) => p.x), ...(sloX ? [sloX] : [])];
  const ys = [...pts.flatMap((p) => [p.y, p.ylo || p.y, p.yhi || p.y]), ...api.map((p) => p.y)];
  const box = {W: 760, H: 380, L: 84, R: 24, T: 40, B: 52};
  const xAxis = axisFor(Math.min(...xs) * 0.95, Math.max(...xs) * 1.03, 7);
  const yAxis = axisFor(Math.min(...ys) * 0.95, Math.max(...ys) * 1.03, 6);
  const chosen = pts.find((p) => num(p.o, "rank") === 1);
  const xName = serving ? a.name : "end-to-end time";
  const fmtX = (v) => (serving ? fixed(v, 3) + " " + a.unit : fixed(v, 2) + " d");
  const fmtY = (v) => (serving ? usd(v) + "/month" : usd(v));
  const root = svg("svg", {viewBox: `0 0 ${box.W} ${box.H}`, id: "plan-frontier", class: "chart frontier", role: "group",
                          "aria-label": `${pts.length} options, cost against ${xName}` +
                                        (chosen ? `; chosen #1 ${whereText(chosen.o)} at ${fmtY(chosen.y)}, ${fmtX(chosen.x)}` : "")});
  const {x, y} = plotFrame(root, box, xAxis, yAxis, tickNum, shortUsd,
                           (serving ? a.label : "end-to-end time (days)") + (xAxis.log ? ", log scale" : ""), (serving ? "cost (USD/month)" : "cost of the run (USD)") + (yAxis.log ? ", log" : ""));
  if (sloX) {
    root.append(svg("line", {x1: x(sloX), x2: x(sloX), y1: box.T - 8, y2: box.H - box.B, class: "slo", id: "plan-frontier-slo"}));
    root.append(svg("text", {x: x(sloX) - 4, y: box.T - 12, "text-anchor": "end", class: "slo-label"},
                    `${a.name} target ${fixed(sloX, 3)} ${a.unit}`));
  }
  for (const p of api) {
    root.append(svg("circle", {cx: x(p.x), cy: y(p.y), r: 3, class: "api-point", "data-candidate": pick(p.f, "candidate"),
                               "data-tip": `considered: ${pick(p.f, "candidate")}: ${fmtY(p.y)}, ${fmtX(p.x)}`}));
  }
  if (api.length > 1) {
    const steps = paretoOf(api);
    root.append(svg("path", {class: "api-frontier", d: steps.map((p, i) => (i ? `H${x(p.x).toFixed(1)} V` : `M${x(p.x).toFixed(1)} `) +
                                                                     y(p.y).toFixed(1)).join(" ")}));
  }
  const front = paretoOf(pts);
  root.append(svg("path", {class: "pareto", id: "plan-frontier-line",
                           d: front.map((p, i) => (i ? `H${x(p.x).toFixed(1)} V` : `M${x(p.x).toFixed(1)} `) + y(p.y).toFixed(1)).join(" ")}));
  const labels = [];  // rank labels placed so far, so that near-equal options do not print over each other
  for (const p of [...pts].reverse()) root.append(frontierPoint(p, x, y, fmtX, fmtY, front.includes(p), labels));
  if (chosen) root.append(chosenLabel(chosen, pts, api, labels, x, y, box));
  // The legend, its entries laid out one after another at the 12 px font's width.
  const legend = svg("g", {transform: `translate(${box.L} 14)`, class: "legend"});
  let lx = 0;
  const entry = (mark, text) => {
    legend.append(mark(lx));
    legend.append(svg("text", {x: lx + 30, y: 4}, text));
    lx += 30 + text.length * LEGEND_CHAR_PX + 18;
  };
  entry((at) => svg("circle", {cx: at + 12, cy: 0, r: 5, class: "pt"}), "option #rank (whiskers: low-high)");
  entry((at) => svg("path", {d: `M${at} 0 H${at + 24}`, class: "pareto"}), "trade-off frontier");
  if (api.length) entry((at) => svg("circle", {cx: at + 12, cy: 0, r: 3, class: "api-point"}), "frontier of all considered");
  root.append(legend);
  return root;
}
// The chosen option's label: the first of four places around its point that stays inside the
// plot and clear of the other points and rank labels (text width estimated from its length).
const LABEL_CHAR_PX = 8.2;
const LEGEND_CHAR_PX = 6.4;
function chosenLabel(chosen, pts, api, labels, x, y, box) {
  const text = `chosen #1: ${whereText(chosen.o)}`;
  const w = text.length * LABEL_CHAR_PX, h = 16;
  const cx = x(chosen.x), cy = y(chosen.y);
  const others = [...pts.filter((p) => p !== chosen).map((p) => [x(p.x), y(p.y)]), ...api.map((p) => [x(p.x), y(p.y)]),
                  ...labels.map((l) => [l.x + 8, l.y - 4])];
  const places = [[cx + 14, cy - 14], [cx - 14 - w, cy - 14], [cx + 14, cy + 26], [cx - 14 - w, cy + 26]];
  const fits = ([lx, ly]) => lx >= box.L && lx + w <= box.W - box.R && ly - h >= box.T && ly <= box.H - box.B &&
                             !others.some(([ox, oy]) => ox > lx - 6 && ox < lx + w + 6 && oy > ly - h - 6 && oy < ly + 6);
  const [lx, ly] = places.find(fits) || places.find(([px]) => px >= box.L && px + w <= box.W - box.R) || places[0];
  return svg("text", {x: lx, y: ly, class: "chosen-label", id: "plan-frontier-chosen"}, text);
}
function frontierPoint(p, x, y, fmtX, fmtY, onFront, labels) {
  const rank = num(p.o, "rank");
  const text = `#${rank} ${whereText(p.o)}: ${fmtY(p.y)}` + (p.ylo ? ` (${fmtY(p.ylo)}-${fmtY(p.yhi)})` : "") +
               `, ${fmtX(p.x)}` + (p.xlo ? ` (${fmtX(p.xlo)}-${fmtX(p.xhi)})` : "") + (onFront ? "; on the frontier" : "");
  const g = svg("g", {class: "pt-group" + (rank === 1 ? " chosen" : ""), tabindex: 0, role: "button", "data-rank": rank,
                      "aria-label": text + "; show why", "data-tip": text, "data-x": p.x, "data-y": p.y});
  const cx = x(p.x), cy = y(p.y);
  if (p.xlo || p.xhi) g.append(svg("line", {x1: x(p.xlo), x2: x(p.xhi), y1: cy, y2: cy, class: "whisker"}));
  if (p.ylo || p.yhi) g.append(svg("line", {x1: cx, x2: cx, y1: y(p.ylo), y2: y(p.yhi), class: "whisker"}));
  if (rank === 1) g.append(svg("circle", {cx, cy, r: 10, class: "ring"}));
  g.append(svg("circle", {cx, cy, r: rank === 1 ? 6 : 4.5, class: "pt"}));
  const lx = cx + 7;
  let ly = cy + 15;
  while (labels.some((l) => Math.abs(l.x - lx) < 22 && Math.abs(l.y - ly) < 11)) ly += 12;
  labels.push({x: lx, y: ly});
  g.append(svg("text", {x: lx, y: ly, class: "rank"}, "#" + rank));
  return g;
}
function frontierFigure(resp, serving, slo) {
  const fig = el("figure", {id: "plan-frontier-fig"});
  const caption = el("figcaption", {});
  const draw = (axis) => {
    const old = fig.querySelector("svg.frontier");
    const chart = drawFrontier(resp, serving, axis, slo);
    if (old) old.replaceWith(chart); else fig.prepend(chart);
    caption.textContent = serving
        ? "Cost against " + LATENCY_AXES[axis].name + " of the options returned; the chosen (#1) option is ringed. " +
          "Select or focus a point to see why."
        : "Cost of the run against its end-to-end time; the chosen (#1) option is ringed. Select or focus a point to see why.";
  };
  if (serving) {
    const sel = el("select", {id: "plan-frontier-axis"},
                   ...Object.entries(LATENCY_AXES).map(([k, a]) => el("option", {value: k, text: a.label})));
    sel.value = slo.tpot > 0 || !(slo.ttft > 0) ? "tpot" : "ttft";
    sel.addEventListener("change", () => draw(sel.value));
    fig.append(el("div", {class: "field inline"}, el("label", {for: "plan-frontier-axis", text: "Latency axis"}), sel));
    draw(sel.value);
  } else {
    draw("");
  }
  fig.append(caption);
  return fig;
}

// ---- Actions on the option shown in the "why" panel. ----
// Each entry {id, label, controls(option, request), run(option, request)} becomes a button in
// the panel, after the inputs its controls() returns (each already labelled). A new form is its
// own <section> in index.html, wired in the DOMContentLoaded handler at the end of this file.
const optionActions = [];

// ---- Deploy: the option as files to run (PlannerService.Deploy, POST /v1/deploy). ----
// The server plans the same request again and renders the option at that rank; its answer's
// files are shown with a copy button and a download link each, and its notes under them.
const DEPLOY_TARGETS = [["DEPLOY_TARGET_KUBERNETES", "Kubernetes", true], ["DEPLOY_TARGET_SLURM", "Slurm", false],
                        ["DEPLOY_TARGET_COMMAND", "command only", true]];
const STATUS_WORDS = {
  FAILED_PRECONDITION: "This option cannot be deployed as planned",
  INVALID_ARGUMENT: "The server refused the request",
  UNAVAILABLE: "The server is unavailable",
  DEADLINE_EXCEEDED: "The server took too long",
};
const deployUrls = [];
function releaseDeployUrls() {
  for (const u of deployUrls.splice(0)) URL.revokeObjectURL(u);
}
function deployControls(o, req) {
  const serving = req.serving !== undefined;
  const sel = el("select", {id: "plan-deploy-target"},
                 ...DEPLOY_TARGETS.filter(([, , forServing]) => forServing || !serving)
                     .map(([v, text]) => el("option", {value: v, text})));
  if (!serving) sel.value = "DEPLOY_TARGET_SLURM";
  return [el("label", {for: "plan-deploy-target", text: "Deploy as"}), sel];
}
async function copyText(text, status) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = "copied";
  } catch (e) {
    status.textContent = "could not copy (" + e.message + "); select the text and copy it";
  }
}
function deployFile(f, i) {
  const name = pick(f, "name") || "file-" + (i + 1);
  const content = pick(f, "content") || "";
  const type = pick(f, "media_type") || "text/plain";
  const url = URL.createObjectURL(new Blob([content], {type}));
  deployUrls.push(url);
  const id = "plan-deploy-file-" + i;
  const status = el("span", {class: "muted", role: "status", id: id + "-status"});
  const copy = el("button", {type: "button", class: "small", "aria-describedby": id + "-name", text: "copy"});
  copy.addEventListener("click", () => copyText(content, status));
  return el("div", {class: "deploy-file", "data-name": name},
            el("h5", {id: id + "-name"}, el("code", {text: name}), el("span", {class: "muted", text: " " + type})),
            el("div", {class: "file-actions"}, copy,
               el("a", {href: url, download: name, "aria-describedby": id + "-name", text: "download"}), status),
            el("pre", {id, tabindex: 0, "aria-labelledby": id + "-name"}, el("code", {text: content})));
}
function deployResult(resp, o, rank) {
  releaseDeployUrls();
  const shown = pick(resp, "option");
  const moved = shown && (pick(shown, "gpu_name") !== pick(o, "gpu_name") || num(shown, "gpu_count") !== num(o, "gpu_count") ||
                          pick(shown, "instance_type") !== pick(o, "instance_type"));
  const notes = list(resp, "notes");
  return [
    el("p", {}, "Option #" + rank + " rendered (catalog version " + (pick(resp, "catalog_version") || "?") + "), " +
                list(resp, "files").length + " file(s)."),
    moved ? el("p", {class: "slo-risk", text: "The catalog changed since this plan: the files are for " +
                                              num(shown, "gpu_count") + " x " + pick(shown, "gpu_name") + ", option #" + rank + " now."})
          : null,
    ...list(resp, "files").map(deployFile),
    notes.length ? el("h5", {text: "Notes"}) : null,
    notes.length ? el("ul", {class: "deploy-notes"}, ...notes.map((n) => el("li", {text: n}))) : null,
  ];
}
async function deployOption(o, req) {
  const out = document.getElementById("plan-action-result");
  const button = document.getElementById("plan-action-deploy");
  const rank = num(o, "rank");
  const target = document.getElementById("plan-deploy-target").value;
  button.disabled = true;
  out.replaceChildren(el("p", {class: "muted", text: "Rendering option #" + rank + "..."}));
  const r = await api("POST", "/v1/deploy", {plan: req, optionRank: rank, target});
  button.disabled = false;
  if (!r.ok) {
    releaseDeployUrls();
    const words = STATUS_WORDS[r.status] || "Deploy failed";
    out.replaceChildren(el("p", {class: "err deploy-error", role: "alert", "data-status": r.status || ""},
                           words + " (option #" + rank + "): " + r.message));
    return;
  }
  out.replaceChildren(...deployResult(r.json, o, rank).filter(Boolean));
}
optionActions.push({id: "deploy", label: "Deploy", controls: deployControls, run: deployOption});

// ---- The "why" panel: one option's explanation, SLO risks and sources. ----
function explanationItems(text) {
  const lines = String(text || "").split(/\n+/).map((s) => s.trim()).filter(Boolean);
  return lines.length === 1 ? lines[0].split(/;\s+/) : lines;
}
function showWhy(plan, rank) {
  const o = list(plan.resp, "options").find((x) => num(x, "rank") === rank);
  if (!o) return;
  const panel = document.getElementById("plan-why");
  const risks = sloRisks(o, plan.slo);
  const parts = [
    el("h3", {id: "plan-why-title", text: `Why #${rank}: ${whereText(o)}`}),
    el("p", {class: "muted", text: num(o, "gpu_count") + " x " + pick(o, "gpu_name") + "; " + layoutText(o, plan.serving) +
                                   "; bound by " + enumName(pick(o, "bottleneck"), "BOTTLENECK_")}),
    risks.length ? el("p", {class: "slo-risk"}, el("strong", {class: "flag", text: "\u26a0 SLO risk: "}), risks.join("; ")) : null,
    el("ul", {class: "explanation"}, ...explanationItems(limitText(pick(o, "explanation"), plan.req.constraints.max_gpus))
                                        .map((s) => el("li", {text: s}))),
    el("h4", {text: "Sources"}),
    el("ul", {class: "src"}, ...provenanceLines(o).map((s) => el("li", {text: s}))),
  ];
  if (optionActions.length) {
    parts.push(el("div", {class: "actions option-actions"}, ...optionActions.flatMap((a) => {
      const b = el("button", {type: "button", id: "plan-action-" + a.id, text: a.label});
      b.addEventListener("click", () => a.run(o, plan.req));
      return (a.controls ? a.controls(o, plan.req) : []).concat([b]);
    })));
    parts.push(el("div", {id: "plan-action-result", class: "action-result", "aria-live": "polite"}));
  }
  releaseDeployUrls();
  panel.replaceChildren(...parts.filter(Boolean));
  panel.setAttribute("data-rank", rank);
  for (const b of document.querySelectorAll("#plan-options button.why")) {
    b.setAttribute("aria-pressed", b.getAttribute("data-rank") === String(rank) ? "true" : "false");
  }
}

// ---- The options table: equivalent packagings folded, SLO risks flagged. ----
// A figure with its unit, and its low-high range under it.
function figCell(r, scale, digits, unit) {
  const lo = num(r, "low") * scale, hi = num(r, "high") * scale;
  return el("td", {class: "num"}, fixed(num(r, "point") * scale, digits) + " " + unit,
            lo || hi ? el("span", {class: "range", text: fixed(lo, digits) + "-" + fixed(hi, digits)}) : null);
}
function optionRow(o, plan, fold) {
  const serving = plan.serving;
  const rank = num(o, "rank");
  const prov = provenanceLines(o).join("\n");
  const where = el("th", {scope: "row"}, el("span", {class: "where", tabindex: 0, "data-tip": prov}, whereText(o)),
                   el("span", {class: "gpus", text: num(o, "gpu_count") + " x " + pick(o, "gpu_name")}));
  if (fold.button) where.append(fold.button);
  if (fold.of) where.append(el("span", {class: "muted packaging-note", text: "the same GPUs as #" + fold.of + ", packaged otherwise"}));
  const cells = [el("td", {class: "num", text: rank}), where, el("td", {class: "layout", text: layoutText(o, serving)}), memoryCell(o)];
  const risks = serving ? sloRisks(o, plan.slo) : [];
  const cost = usd(num(o, "cost_usd_per_hour")) + "/h";
  if (serving) {
    cells.push(figCell(pick(o, "requests_per_second"), 1, 1, "req/s"), figCell(pick(o, "ttft_seconds"), 1, 3, "s"),
               figCell(pick(o, "tpot_seconds"), 1000, 1, "ms"), sloCell(risks, plan.slo),
               el("td", {class: "num"}, cost, el("span", {class: "range", text: usd(num(o, "usd_per_million_requests")) + "/1M req"})));
  } else {
    cells.push(figCell(pick(o, "duration_seconds"), 1 / 86400, 2, "days"), el("td", {class: "num", text: pct(num(o, "mfu_fraction"))}),
               el("td", {class: "num", text: cost}),
               el("td", {class: "num"}, usd(num(pick(o, "total_cost_usd"), "point")),
                  el("span", {class: "range", text: usd(num(pick(o, "total_cost_usd"), "low")) + "-" +
                                                    usd(num(pick(o, "total_cost_usd"), "high"))})));
  }
  const why = el("button", {type: "button", class: "why", "data-rank": rank, "aria-controls": "plan-why", "aria-pressed": "false",
                            "aria-label": "why option #" + rank, text: "why"});
  why.addEventListener("click", () => showWhy(plan, rank));
  cells.push(el("td", {}, why));
  return el("tr", {class: "option" + (fold.of ? " packaging" : "") + (risks.length ? " slo-risk-row" : ""), id: "plan-option-" + rank,
                   "data-rank": rank, "data-offer": offerKey(o), "data-slo-risk": risks.length ? "true" : "false",
                   hidden: fold.of ? true : undefined}, ...cells);
}
function optionsTable(plan) {
  const {resp, serving} = plan;
  const heads = ["#", "where, GPUs", "layout", "memory used / per GPU"].concat(
      serving ? ["throughput (low-high)", "TTFT (low-high)", "TPOT (low-high)", "SLO at the pessimistic end", "cost, per 1M requests"]
              : ["end-to-end time (low-high)", "MFU", "cost", "total cost (low-high)"], ["explanation"]);
  const options = list(resp, "options");
  const groups = new Map();
  for (const o of options) {
    const k = offerKey(o);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(o);
  }
  const tbody = el("tbody", {});
  for (const members of groups.values()) {
    const head = members[0], rest = members.slice(1);
    let button = null;
    if (rest.length) {
      const ids = rest.map((o) => "plan-option-" + num(o, "rank")).join(" ");
      button = el("button", {type: "button", class: "fold", "aria-expanded": "false", "aria-controls": ids,
                             "data-count": rest.length,
                             text: "+" + rest.length + (rest.length === 1 ? " packaging" : " packagings")});
      button.addEventListener("click", () => {
        const open = button.getAttribute("aria-expanded") !== "true";
        button.setAttribute("aria-expanded", String(open));
        for (const id of ids.split(" ")) document.getElementById(id).hidden = !open;
      });
    }
    tbody.append(optionRow(head, plan, {button}));
    for (const o of rest) tbody.append(optionRow(o, plan, {of: num(head, "rank")}));
  }
  const folded = options.length - groups.size;
  return el("table", {id: "plan-options"},
            el("caption", {text: options.length + " ranked options" + (folded ? ", " + folded + " folded as other packagings of the same offer" : "") +
                                 " (catalog version " + (pick(resp, "catalog_version") || "?") +
                                 (pick(resp, "from_memo") ? ", answered from the memo" : "") + ")"}),
            el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", {scope: "col", text: h})))), tbody);
}

// ---- Not chosen, grouped by reason (closest to working first), with counts. ----
const REASON_ORDER = ["RANKED_LOWER", "OVER_DEADLINE", "OVER_BUDGET", "TOO_MANY_GPUS", "MEMORY", "SLO", "NO_LAYOUT",
                      "INVALID", "NOT_CLUSTERED", "NO_OFFER"].map((r) => "REJECTION_REASON_" + r);
function rejectedSection(resp, maxGpus) {
  const rejected = list(resp, "rejected");
  const groups = new Map();
  for (const r of rejected) {
    const code = pick(r, "reason_code") || "REJECTION_REASON_UNSPECIFIED";
    if (!groups.has(code)) groups.set(code, []);
    groups.get(code).push(r);
  }
  const order = (c) => (REASON_ORDER.indexOf(c) < 0 ? REASON_ORDER.length : REASON_ORDER.indexOf(c));
  const codes = [...groups.keys()].sort((a, b) => order(a) - order(b));
  const summary = codes.map((c) => enumName(c, "REJECTION_REASON_") + " " + groups.get(c).length).join(", ");
  const box = el("div", {id: "plan-rejected"});
  for (const c of codes) {
    const rows = groups.get(c);
    const name = enumName(c, "REJECTION_REASON_");
    const ul = el("ul", {});
    for (const r of rows) {
      const distance = num(r, "distance");
      ul.append(el("li", {}, el("strong", {text: pick(r, "candidate") + ": "}), limitText(pick(r, "reason"), maxGpus) || name,
                   distance > 0 ? el("span", {class: "muted", text: " (distance " + fixed(distance, 2) + ")",
                                              "data-tip": "how far from working, within its reason: 1 or more, smaller is closer"}) : null));
    }
    box.append(el("details", {class: "reason-group", "data-reason": c, "data-count": rows.length,
                              open: rows.length <= 5 ? true : undefined},
                  el("summary", {}, el("span", {class: "reason", text: name}), el("span", {class: "count", text: " (" + rows.length + ")"})), ul));
  }
  return el("section", {id: "plan-not-chosen", "aria-labelledby": "plan-not-chosen-title"},
            el("h3", {id: "plan-not-chosen-title", text: "Not chosen (" + rejected.length + ")" + (summary ? ": " + summary : "")}), box);
}

function renderPlan(resp, serving, req) {
  const w = req.serving || {};
  const plan = {resp, serving, req, slo: {tpot: w.tpot_slo_seconds || 0, ttft: w.ttft_slo_seconds || 0}};
  const out = document.getElementById("plan-result");
  const rule = pick(resp, "selection_rule");
  const main = el("div", {class: "plan-main"}, frontierFigure(resp, serving, plan.slo), memoryLegend(list(resp, "options")),
                  el("div", {class: "scroll"}, optionsTable(plan)));
  const why = el("aside", {id: "plan-why", class: "why-panel", "aria-live": "polite", "aria-labelledby": "plan-why-title", tabindex: 0});
  out.replaceChildren(rule ? el("p", {id: "plan-rule", text: "Chosen by: " + rule}) : "",
                      el("div", {class: "plan-layout"}, main, why), rejectedSection(resp, req.constraints.max_gpus));
  for (const g of out.querySelectorAll("#plan-frontier-fig")) {
    const choose = (e) => {
      const t = e.target instanceof Element ? e.target.closest(".pt-group") : null;
      if (t) showWhy(plan, Number(t.getAttribute("data-rank")));
      return t;
    };
    g.addEventListener("click", choose);
    g.addEventListener("keydown", (e) => {
      if ((e.key === "Enter" || e.key === " ") && choose(e)) e.preventDefault();
    });
  }
  if (list(resp, "options").length) showWhy(plan, 1);
}

async function submitPlan(ev) {
  ev.preventDefault();
  const form = document.getElementById("plan-form");
  const formErr = document.getElementById("plan-form-err");
  clearErrors(form);
  if (!checkNumbers(form)) return;
  const {kind, req} = planRequest();
  const button = document.getElementById("plan-submit");
  button.disabled = true;
  document.getElementById("plan-result").replaceChildren(el("p", {class: "muted", text: "Planning..."}));
  const r = await api("POST", "/v1/plan", req);
  button.disabled = false;
  if (!r.ok) {
    document.getElementById("plan-result").replaceChildren();
    const message = limitText(r.message, req.constraints.max_gpus);
    if (!splitMessage(r.message) && message !== r.message) {
      // Nothing fits within the GPU limit: the message belongs next to that limit.
      const limit = document.getElementById("plan-maxgpus");
      markFields([limit], message);
      limit.focus();
    } else {
      showError(form, formErr, message);
    }
    return;
  }
  renderPlan(r.json, kind === "serving", req);
  document.getElementById("plan-result").scrollIntoView({block: "nearest"});
}

// ---- Import a measured run (AdminService.ImportBenchmark, POST /v1/admin/import-benchmark). ----
// The file is read here and sent as text; the server reads it, checks every field, and says
// which rows it wrote and which it already held.
const MAX_IMPORT_FILE_BYTES = 3 * 1024 * 1024;  // ImportBenchmarkRequest.content (admin.proto): at most 3 MiB
function readFileText(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
}
function importRequest(content) {
  const req = {format: document.getElementById("import-format").value, content,
               model_name: document.getElementById("import-model").value,
               serving_engine: document.getElementById("import-engine").value,
               source: {citation: document.getElementById("import-citation").value.trim(),
                        as_of_date: document.getElementById("import-date").value.trim()}};
  const gpu = document.getElementById("import-gpu").value;
  if (gpu) req.gpu_name = gpu;
  setIf(req, "gpu_count", valueOf("import-count"));
  return req;
}
function benchmarkRow(b) {
  const engine = pick(b, "serving_engine");
  return el("tr", {"data-id": pick(b, "id")}, el("td", {class: "num", text: pick(b, "id")}),
            el("td", {text: num(b, "gpu_count") + " x " + pick(b, "gpu_name")}), el("td", {text: pick(b, "model_name")}),
            el("td", {text: enumName(pick(b, "workload"), "WORKLOAD_KIND_") +
                            (engine ? " (" + enumName(engine, "SERVING_ENGINE_") + ")" : "")}),
            el("td", {class: "num", text: fixed(num(b, "measured_value"), 4) + " " + enumName(pick(b, "measured_unit"), "")}),
            el("td", {class: "src", text: sourceText(pick(b, "source"))}));
}
function renderImport(resp) {
  const written = num(resp, "rows_written"), unchanged = num(resp, "rows_unchanged");
  const rows = list(resp, "benchmarks");
  return [
    el("p", {id: "import-summary"},
       el("strong", {id: "import-written", "data-count": written, text: written + " row" + (written === 1 ? "" : "s") + " written"}),
       ", ", el("span", {id: "import-unchanged", "data-count": unchanged,
                         text: unchanged + " unchanged (already in the catalog)"}),
       " - catalog version " + (pick(resp, "catalog_version") || "?")),
    el("div", {class: "scroll"},
       el("table", {id: "import-rows"}, el("caption", {text: "The file's rows, with their catalog ids"}),
          el("thead", {}, el("tr", {}, ...["id", "GPUs", "model", "workload", "measured", "source"]
                                             .map((h) => el("th", {scope: "col", text: h})))),
          el("tbody", {}, ...rows.map(benchmarkRow)))),
  ];
}
async function submitImport(ev) {
  ev.preventDefault();
  const form = document.getElementById("import-form");
  const formErr = document.getElementById("import-form-err");
  const out = document.getElementById("import-result");
  clearErrors(form);
  if (!checkNumbers(form)) return;
  const fileInput = document.getElementById("import-file");
  const file = fileInput.files[0];
  if (!file || file.size > MAX_IMPORT_FILE_BYTES) {
    markFields([fileInput], labelName(fileInput) + ": " + (file ? "larger than 3 MiB (" + fixed(file.size / 1048576, 1) + " MiB)" : "choose a file"));
    fileInput.focus();
    return;
  }
  let content;
  try {
    content = await readFileText(file);
  } catch (e) {
    markFields([fileInput], labelName(fileInput) + ": cannot read the file (" + e.message + ")");
    return;
  }
  const token = document.getElementById("import-token").value.trim();
  const button = document.getElementById("import-submit");
  button.disabled = true;
  out.replaceChildren(el("p", {class: "muted", text: "Importing " + file.name + "..."}));
  const r = await api("POST", "/v1/admin/import-benchmark", importRequest(content),
                      token ? {"Authorization": "Bearer " + token} : {});
  button.disabled = false;
  if (!r.ok) {
    out.replaceChildren();
    // "content: ..." is about the file; "authorization: ..." about the token (data-field).
    showError(form, formErr, r.message);
    return;
  }
  out.replaceChildren(...renderImport(r.json));
}

// ---- Wiring. ----
function toggle() {
  const flat = document.getElementById("tco-rent-flat").checked;
  document.getElementById("tco-flat-box").hidden = !flat;
  document.getElementById("tco-catalog-box").hidden = flat;
  const training = document.getElementById("plan-kind-training").checked;
  document.getElementById("plan-training-box").hidden = !training;
  document.getElementById("plan-serving-box").hidden = training;
}
document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["tco-rent-flat", "tco-rent-catalog", "plan-kind-serving", "plan-kind-training"]) {
    document.getElementById(id).addEventListener("change", toggle);
  }
  document.getElementById("tco-gpu").addEventListener("change", loadInstances);
  for (const form of ["tco-form", "plan-form", "import-form"].map((id) => document.getElementById(id))) {
    form.addEventListener("input", clearOnEdit);
    form.addEventListener("change", clearOnEdit);
  }
  document.getElementById("tco-form").addEventListener("submit", submitTco);
  document.getElementById("plan-form").addEventListener("submit", submitPlan);
  document.getElementById("import-form").addEventListener("submit", submitImport);
  initTooltips();
  toggle();
  loadCatalog().then(startEmbed).then(() => document.body.setAttribute("data-ready", "true"));
});

// ---- Embedded views: one answer, read-only, by URL (a Grafana text panel or a portal iframe;
// the server's --http_frame_ancestors must allow the embedding site). ----
//   /?embed=plan&kind=serving&model=Llama-2-7B&rps=35&tpot=50   the Plan form's fields, each by
//       its input's short name (plan-tpot -> tpot), in the form's units; kind=training|serving
//   /?embed=tco&scenario=NAME   a stored TCO scenario (ListTcoScenarios), priced now
//   /?embed=tco&gpu=A100-SXM4-80GB&count=8&capex=250000&rent-month=15000   the TCO form's fields;
//       rent=catalog&instance=... for a catalog rent
// Other query parameters are ignored, like the API's GET routes do.
function applyQuery(params, section) {
  for (const [key, value] of params) {
    if (section === "plan" && key === "kind") {
      document.getElementById(value === "training" ? "plan-kind-training" : "plan-kind-serving").checked = true;
    } else if (section === "tco" && key === "rent") {
      document.getElementById(value === "catalog" ? "tco-rent-catalog" : "tco-rent-flat").checked = true;
    } else {
      const input = document.getElementById(`${section}-${key}`);
      if (input && (input.tagName === "SELECT" || (input.tagName === "INPUT" && input.type !== "radio"))) {
        input.value = value;
      }
    }
  }
  toggle();
}

// Errors land at the form's fields, which an embedded view hides: say them in the result.
function embedFailed(section, text) {
  const form = document.getElementById(`${section}-form`);
  const said = [...form.querySelectorAll(".err")].map((e) => e.textContent).filter(Boolean);
  const message = text || said.join("; ") || "no answer";
  document.getElementById(`${section}-result`).replaceChildren(
    el("p", {class: "err", role: "alert", id: "embed-error", text: `capplan: ${message}`}));
}

async function embedScenario(name) {
  const stored = await api("GET", "/v1/tco-scenarios");
  if (!stored.ok) return embedFailed("tco", stored.message);
  const scenario = list(stored.json, "scenarios").find((s) => s.name === name);
  if (!scenario) return embedFailed("tco", `no TCO scenario named "${name}"`);
  const r = await api("POST", "/v1/tco", scenario.request);
  if (!r.ok) return embedFailed("tco", r.message);
  document.getElementById("tco-title").textContent = `TCO scenario ${name}`;
  renderTco(r.json, num(scenario.request, "horizon_months"));
}

async function startEmbed() {
  const params = new URLSearchParams(window.location.search);
  const section = params.get("embed");
  if (section !== "plan" && section !== "tco") return;
  document.body.classList.add("embedded");
  document.body.dataset.embed = section;
  for (const other of document.querySelectorAll("main > section")) other.hidden = other.id !== section;
  const noop = {preventDefault() {}};
  if (section === "tco" && params.has("scenario")) {
    await embedScenario(params.get("scenario"));
    return;
  }
  applyQuery(params, section);
  if (section === "tco" && params.has("gpu")) await loadInstances();
  if (section === "tco" && params.has("instance")) applyQuery(new URLSearchParams({instance: params.get("instance")}), "tco");
  await (section === "plan" ? submitPlan(noop) : submitTco(noop));
  if (!document.getElementById(`${section}-result`).children.length) embedFailed(section, "");
}
