// capplan web page: the TCO and Plan forms over the server's HTTP/JSON API (/v1/...).
// Plain JavaScript, no framework, no network beyond the server that served this page. The
// server judges every input: the forms are novalidate, and an INVALID_ARGUMENT message,
// which starts with the field's path ("fleets[0].gpu_count: must be in ..."), is shown next
// to the input whose data-field that path ends with.
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
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
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
function enumName(v, prefix) { return String(v || "").replace(prefix, "").toLowerCase().replace(/_/g, " "); }
function sourceText(src) {
  if (!src) return "";
  const parts = [pick(src, "citation"), pick(src, "as_of_date") ? "(" + pick(src, "as_of_date") + ")" : "",
                 pick(src, "note")];
  return parts.filter(Boolean).join(" ");
}

// ---- The API. ----
async function api(method, path, body) {
  const init = {method, headers: {"Accept": "application/json"}};
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

// ---- Errors next to the field the server names. ----
function clearErrors(form) {
  for (const s of form.querySelectorAll(".err")) s.textContent = "";
  for (const i of form.querySelectorAll("[aria-invalid]")) {
    i.removeAttribute("aria-invalid");
    i.removeAttribute("aria-describedby");
  }
}
function fieldFor(form, message) {
  const m = /^([A-Za-z_][\w.\[\]]*):/.exec(message);
  if (!m) return null;
  const path = m[1].replace(/\[\d+\]/g, "");
  let best = null;
  for (const input of form.querySelectorAll("[data-field]")) {
    const f = input.getAttribute("data-field");
    if ((path === f || path.endsWith("." + f)) && (!best || f.length > best.getAttribute("data-field").length)) {
      best = input;
    }
  }
  return best;
}
function showError(form, formErr, message) {
  const input = fieldFor(form, message);
  const span = input ? document.getElementById(input.id + "-err") : null;
  if (!span) {
    formErr.textContent = message;
    return;
  }
  span.textContent = message;
  input.setAttribute("aria-invalid", "true");
  input.setAttribute("aria-describedby", span.id);
  input.focus();
}
function valueOf(id) {
  const v = document.getElementById(id).value.trim();
  return v === "" ? undefined : Number(v);
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

function keyNumber(dl, label, value, id, title) {
  dl.append(el("dt", {text: label}), el("dd", {id, title, tabindex: title ? 0 : undefined, text: value}));
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
            dbe > 0 ? "month " + dbe : "never within " + horizon + " months", "tco-discounted-break-even");
  keyNumber(dl, "Own, per used GPU-hour", usd(num(resp, "own_usd_per_used_gpu_hour")) + "/GPU-hour", "tco-own-gpu-hour",
            "amortised: depreciation + power + ops + maintenance over the GPU-hours used");
  keyNumber(dl, "Rent, per used GPU-hour", usd(num(resp, "rent_usd_per_used_gpu_hour")) + "/GPU-hour", "tco-rent-gpu-hour",
            rentSource || "the flat monthly rent given, over the GPU-hours used");
  keyNumber(dl, "Total own over " + horizon + " months (cash)", usd(num(last, "own_cumulative_usd")), "tco-own-total",
            "NPV own " + usd(num(resp, "npv_own_usd")));
  keyNumber(dl, "Total rent over " + horizon + " months (cash)", usd(num(last, "rent_cumulative_usd")), "tco-rent-total",
            "NPV rent " + usd(num(resp, "npv_rent_usd")));
  keyNumber(dl, "Owning wins above", pick(resp, "break_even_usage_never") ? "never, at any use" :
            fixed(num(resp, "break_even_gpu_hours_per_month"), 0) + " GPU-hours/month (" +
            pct(num(resp, "break_even_utilization_fraction")) + " use)", "tco-break-even-use");
  keyNumber(dl, "Own per month (amortised)", usd(num(fleet, "own_usd_per_month")) + "/month", "tco-own-month",
            "power " + usd(num(fleet, "own_power_usd_per_month")) + "/month at " + fixed(num(fleet, "power_watts_at_steady_use"), 0) + " W");
  keyNumber(dl, "Rent per month", usd(num(fleet, "rent_usd_per_month")) + "/month", "tco-rent-month-out", rentSource || undefined);
  const parts = [el("h3", {text: "Own vs rent: " + num(fleet, "gpu_count") + " x " + pick(fleet, "gpu_name")}), dl,
                 drawTcoChart(series, be), rentOptions(resp, horizon), sourcesTable(resp)];
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

// ---- The chart: cumulative own vs rent, drawn as inline SVG. ----
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}
function niceStep(max, ticks) {
  const raw = max / ticks;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}
function shortUsd(v) {
  if (Math.abs(v) >= 1e6) return "$" + fixed(v / 1e6, 2) + "M";
  if (Math.abs(v) >= 1e3) return "$" + fixed(v / 1e3, 0) + "k";
  return "$" + fixed(v, 0);
}
function drawTcoChart(series, breakEven) {
  const W = 760, H = 330, L = 70, R = 20, T = 36, B = 50;
  const months = series.map((p) => num(p, "month"));
  const own = series.map((p) => num(p, "own_cumulative_usd"));
  const rent = series.map((p) => num(p, "rent_cumulative_usd"));
  const n = Math.max(1, months.length ? months[months.length - 1] : 1);
  const maxY = Math.max(1, ...own, ...rent);
  const step = niceStep(maxY, 5);
  const top = Math.ceil(maxY / step) * step;
  const x = (m) => L + (W - L - R) * (m / n);
  const y = (v) => T + (H - T - B) * (1 - v / top);
  const root = svg("svg", {viewBox: `0 0 ${W} ${H}`, id: "tco-chart", role: "img", class: "chart",
                          "aria-label": `Cumulative cost over ${n} months: own ends at ${usd(own[own.length - 1] || 0)}, ` +
                                        `rent at ${usd(rent[rent.length - 1] || 0)}` +
                                        (breakEven > 0 ? `; break-even in month ${breakEven}` : "; no break-even")});
  root.append(svg("title", {}, "Cumulative cost, own vs rent (USD)"));
  for (let v = 0; v <= top + 1e-9; v += step) {
    root.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
    root.append(svg("text", {x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "tick"}, shortUsd(v)));
  }
  const mStep = niceStep(n, 8) < 1 ? 1 : Math.round(niceStep(n, 8));
  for (let m = 0; m <= n; m += mStep) {
    root.append(svg("text", {x: x(m), y: H - B + 18, "text-anchor": "middle", class: "tick"}, String(m)));
  }
  root.append(svg("line", {x1: L, x2: W - R, y1: y(0), y2: y(0), class: "axis"}));
  root.append(svg("line", {x1: L, x2: L, y1: T, y2: y(0), class: "axis"}));
  root.append(svg("text", {x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", class: "label"}, "month"));
  root.append(svg("text", {x: 14, y: (T + H - B) / 2, "text-anchor": "middle", class: "label",
                           transform: `rotate(-90 14 ${(T + H - B) / 2})`}, "cumulative cost (USD)"));
  const path = (vals) => vals.map((v, i) => (i ? "L" : "M") + x(months[i]).toFixed(1) + " " + y(v).toFixed(1)).join(" ");
  root.append(svg("path", {d: path(own), class: "own", id: "tco-own-line"}));
  root.append(svg("path", {d: path(rent), class: "rent", id: "tco-rent-line"}));
  if (breakEven > 0) {
    const i = months.indexOf(breakEven);
    const bx = x(breakEven), by = y(i >= 0 ? own[i] : 0);
    root.append(svg("line", {x1: bx, x2: bx, y1: T, y2: y(0), class: "be"}));
    root.append(svg("circle", {cx: bx, cy: by, r: 5, class: "be-dot"}));
    const right = bx < (L + W - R) / 2;
    root.append(svg("text", {x: bx + (right ? 8 : -8), y: T + 14, "text-anchor": right ? "start" : "end",
                             class: "be-label", id: "tco-chart-break-even"}, `break-even: month ${breakEven}`));
  }
  // Hover targets: each month's figures in a tooltip.
  for (let i = 0; i < months.length; ++i) {
    const g = svg("g", {class: "hover"});
    g.append(svg("title", {}, `month ${months[i]}: own ${usd(own[i])}, rent ${usd(rent[i])} (cumulative)`));
    g.append(svg("rect", {x: x(months[i]) - (W - L - R) / n / 2, y: T, width: (W - L - R) / n, height: H - T - B}));
    root.append(g);
  }
  const legend = svg("g", {transform: `translate(${L} 12)`, class: "legend"});
  legend.append(svg("line", {x1: 0, x2: 24, y1: 0, y2: 0, class: "own"}));
  legend.append(svg("text", {x: 30, y: 4}, "own (capex in month 1, then running costs)"));
  legend.append(svg("line", {x1: 340, x2: 364, y1: 0, y2: 0, class: "rent"}));
  legend.append(svg("text", {x: 370, y: 4}, "rent"));
  root.append(legend);
  return el("figure", {}, root, el("figcaption", {text: "Cumulative cash cost per month, own vs rent."}));
}

async function submitTco(ev) {
  ev.preventDefault();
  const form = document.getElementById("tco-form");
  const formErr = document.getElementById("tco-form-err");
  clearErrors(form);
  const req = tcoRequest();
  const button = document.getElementById("tco-submit");
  button.disabled = true;
  document.getElementById("tco-result").replaceChildren(el("p", {class: "muted", text: "Computing the TCO..."}));
  const r = await api("POST", "/v1/tco", req);
  button.disabled = false;
  if (!r.ok) {
    document.getElementById(form.id.replace("-form", "-result")).replaceChildren();
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
    setIf(w, "ttft_slo_seconds", valueOf("plan-ttft"));
    const tpot = valueOf("plan-tpot");
    if (tpot !== undefined) w.tpot_slo_seconds = tpot / 1000;
    req.serving = w;
  } else {
    const w = {model_name: model, method: document.getElementById("plan-method").value};
    setIf(w, "tokens", valueOf("plan-tokens"));
    setIf(w, "sequence_tokens", valueOf("plan-seq"));
    setIf(w, "global_batch_tokens", valueOf("plan-batch"));
    req.training = w;
  }
  const deadline = valueOf("plan-deadline");
  if (deadline !== undefined) req.deadline_seconds = deadline * 3600;
  setIf(req, "budget_usd", valueOf("plan-budget"));
  const c = {};
  setIf(c, "max_gpus", valueOf("plan-maxgpus"));
  const providers = document.getElementById("plan-providers").value.split(",").map((s) => s.trim()).filter(Boolean);
  if (providers.length) c.providers = providers;
  req.constraints = c;
  return {kind, req};
}

function rangeText(r, scale, digits) {
  const p = num(r, "point") * scale, lo = num(r, "low") * scale, hi = num(r, "high") * scale;
  return fixed(p, digits) + (lo || hi ? " (" + fixed(lo, digits) + "-" + fixed(hi, digits) + ")" : "");
}
function layoutText(p, serving) {
  if (serving) return "tp=" + num(p, "tensor_parallel") + " batch=" + num(p, "serving_batch_sequences");
  return "tp=" + num(p, "tensor_parallel") + " pp=" + num(p, "pipeline_parallel") + " dp=" + num(p, "data_parallel") +
         " zero=" + num(p, "zero_stage");
}
function provenanceText(o) {
  const prov = pick(o, "provenance") || {};
  const lines = list(prov, "prices").map((p) => "price: " + [pick(p, "provider"), pick(p, "instance_type"), pick(p, "region"),
      enumName(pick(p, "kind"), "PRICE_KIND_"), usd(num(p, "price_usd_per_hour")) + "/h", "-", sourceText(pick(p, "source"))].join(" "));
  if (pick(prov, "efficiency_source")) {
    lines.push("efficiency " + pct(num(prov, "efficiency_fraction")) + ": " + pick(prov, "efficiency_source"));
  }
  lines.push("catalog version " + (pick(prov, "catalog_version") || "?"));
  return lines.join("\n");
}

function optionRow(o, serving) {
  const pool = pick(o, "owned_pool");
  const where = pool ? "owned pool " + pool :
      [pick(o, "provider"), pick(o, "instance_type"), "x" + num(o, "instance_count"), pick(o, "region")].join(" ");
  const mem = pick(o, "memory_per_gpu") || {};
  const prov = provenanceText(o);
  const cells = [
    el("td", {class: "num", text: num(o, "rank")}),
    el("th", {scope: "row", title: prov, text: where}),
    el("td", {text: num(o, "gpu_count") + " x " + pick(o, "gpu_name")}),
    el("td", {text: layoutText(pick(o, "parallelism"), serving) + (serving ? " x" + num(o, "replicas") + " replicas" : "")}),
    el("td", {class: "num", text: fixed(num(mem, "total_bytes") / GIB, 1) + " / " + fixed(num(mem, "capacity_bytes") / GIB, 1) + " GiB"}),
  ];
  if (serving) {
    cells.push(el("td", {class: "num", text: rangeText(pick(o, "requests_per_second"), 1, 1) + " req/s"}),
               el("td", {class: "num", text: fixed(num(pick(o, "ttft_seconds"), "point"), 3) + " s"}),
               el("td", {class: "num", text: fixed(num(pick(o, "tpot_seconds"), "point") * 1000, 1) + " ms"}),
               el("td", {class: "num", text: usd(num(o, "cost_usd_per_hour")) + "/h"}),
               el("td", {class: "num", text: usd(num(o, "usd_per_million_requests")) + "/1M req"}));
  } else {
    cells.push(el("td", {class: "num", text: rangeText(pick(o, "duration_seconds"), 1 / 86400, 2) + " days"}),
               el("td", {class: "num", text: pct(num(o, "mfu_fraction"))}),
               el("td", {class: "num", text: usd(num(o, "cost_usd_per_hour")) + "/h"}),
               el("td", {class: "num", text: usd(num(pick(o, "total_cost_usd"), "point")) + " (" +
                                           usd(num(pick(o, "total_cost_usd"), "low")) + "-" + usd(num(pick(o, "total_cost_usd"), "high")) + ")"}));
  }
  cells.push(el("td", {text: enumName(pick(o, "bottleneck"), "BOTTLENECK_")}),
             el("td", {}, el("details", {}, el("summary", {text: "why"}),
                             el("p", {class: "src", text: pick(o, "explanation") || ""}),
                             el("pre", {class: "src", text: prov}))));
  return el("tr", {class: "option", "data-rank": num(o, "rank")}, ...cells);
}

function renderPlan(resp, serving) {
  const out = document.getElementById("plan-result");
  const heads = ["#", "where", "GPUs", "layout", "memory used / per GPU"].concat(
      serving ? ["throughput", "TTFT", "TPOT", "cost", "cost per 1M requests"]
              : ["end-to-end time (low-high)", "MFU", "cost", "total cost (low-high)"], ["bound", "sources"]);
  const options = list(resp, "options");
  const tbody = el("tbody", {});
  for (const o of options) tbody.append(optionRow(o, serving));
  const table = el("table", {id: "plan-options"},
                   el("caption", {text: options.length + " ranked options (catalog version " + (pick(resp, "catalog_version") || "?") +
                                        (pick(resp, "from_memo") ? ", answered from the memo" : "") + ")"}),
                   el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", {scope: "col", text: h})))), tbody);
  const rejected = list(resp, "rejected");
  const ul = el("ul", {id: "plan-rejected"});
  for (const r of rejected) {
    ul.append(el("li", {}, el("strong", {text: pick(r, "candidate") + ": "}), pick(r, "reason") + " [" +
                 enumName(pick(r, "reason_code"), "REJECTION_REASON_") + ", distance " + fixed(num(r, "distance"), 2) + "]"));
  }
  out.replaceChildren(el("div", {class: "scroll"}, table),
                      el("h3", {text: "Not chosen (" + rejected.length + ")"}), ul);
}

async function submitPlan(ev) {
  ev.preventDefault();
  const form = document.getElementById("plan-form");
  const formErr = document.getElementById("plan-form-err");
  clearErrors(form);
  const {kind, req} = planRequest();
  const button = document.getElementById("plan-submit");
  button.disabled = true;
  document.getElementById("plan-result").replaceChildren(el("p", {class: "muted", text: "Planning..."}));
  const r = await api("POST", "/v1/plan", req);
  button.disabled = false;
  if (!r.ok) {
    document.getElementById(form.id.replace("-form", "-result")).replaceChildren();
    showError(form, formErr, r.message);
    return;
  }
  renderPlan(r.json, kind === "serving");
  document.getElementById("plan-result").scrollIntoView({block: "nearest"});
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
  document.getElementById("tco-form").addEventListener("submit", submitTco);
  document.getElementById("plan-form").addEventListener("submit", submitPlan);
  toggle();
  loadCatalog().then(() => document.body.setAttribute("data-ready", "true"));
});
