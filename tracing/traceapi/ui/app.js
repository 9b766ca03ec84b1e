// The rlm trace viewer: plain JS, no dependencies, served from the binary.
// Every string from a model or a user is put in the page as text
// (textContent, attribute values), never parsed as HTML.
//
// Routes (each reloads to the same view):
//   #/                          the list of runs
//   #/runs/ID                   one run's recursion tree
//   #/runs/ID/node/NODE         ... with a node selected
//   #/runs/ID/call/SUBCALL      ... with a sub-call selected
//   #/runs/ID/aggregate         ... with the sub-calls aggregated
//   any run route + ?q=FILTER   ... with the find filter applied
//   #/compare/A/B               two runs side by side
"use strict";

const API = new URL("../v1/", location.href); // the UI lives at <base>/ui/
const DEPTH_COLORS = ["#2b6cb0", "#2f855a", "#b7791f", "#9f3a9f", "#c05621", "#319795", "#4a5568"];
const WAIT_COLOR = "#a0aec0";
const SUBCALL_ALPHA = 0.55;
const GROUP_MIN = 10; // a cell with more sub-calls than this is drawn as one collapsed row
const $ = (sel) => document.querySelector(sel);

const state = {
  traj: null, ix: null, route: null, expanded: new Set(), matches: null,
  live: null, reloadTimer: null, listTimer: null, cursor: "", filters: "",
};

function key() { return localStorage.getItem("rlm.key") || ""; }

async function api(path, opts = {}) {
  const headers = Object.assign({}, opts.headers || {});
  if (key()) headers["Authorization"] = "Bearer " + key();
  const resp = await fetch(new URL(path, API), Object.assign({}, opts, { headers }));
  if (!resp.ok) {
    let msg = resp.status + " " + resp.statusText;
    try { msg = (await resp.json()).error.message || msg; } catch (e) { /* not JSON */ }
    throw new Error(msg);
  }
  return resp;
}

function showMessage(text) {
  const m = $("#message");
  m.textContent = text || "";
  m.hidden = !text;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  return e;
}

function fmtMS(ms) {
  if (ms == null || isNaN(ms)) return "–";
  if (ms < 1000) return Math.round(ms) + " ms";
  if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
  return Math.floor(ms / 60000) + "m " + Math.round((ms % 60000) / 1000) + "s";
}

function fmtTok(n) {
  if (!n) return "0";
  return n >= 10000 ? (n / 1000).toFixed(0) + "k" : n >= 1000 ? (n / 1000).toFixed(1) + "k" : String(n);
}

function clip(s, n) { s = String(s == null ? "" : s); return s.length > n ? s.slice(0, n - 1) + "…" : s; }
function total(u) { return u ? (u.total_tokens || (u.prompt_tokens || 0) + (u.completion_tokens || 0)) : 0; }
function statusBadge(s) { return el("span", { class: "status " + s }, s); }

// elapsed shows a running duration that keeps counting: base is the
// server's figure when the page got it.
function elapsed(ms, running) {
  const s = el("span", {}, fmtMS(ms));
  if (running) { s.className = "elapsed"; s.dataset.base = ms; s.dataset.at = Date.now(); }
  return s;
}
setInterval(() => {
  for (const e of document.querySelectorAll(".elapsed")) e.textContent = fmtMS(+e.dataset.base + Date.now() - +e.dataset.at);
}, 1000);

// ---- eval runs: task, gold answer, score ----

function evalInfo(meta) {
  if (!meta || !meta["eval.task"]) return null;
  const score = meta["eval.score"] == null ? NaN : parseFloat(meta["eval.score"]);
  const verdict = isNaN(score) ? "" : score >= 1 ? "correct" : score <= 0 ? "wrong" : "partial";
  return { task: meta["eval.task"], mode: meta["eval.mode"] || "", tokens: meta["eval.tokens"] || "", gold: meta["eval.gold"] || "", score, verdict };
}

// runBadge is a run's status, or for a scored eval run that ended, its
// verdict: a wrong answer is red however cleanly the run ended.
function runBadge(status, meta) {
  const ev = evalInfo(meta);
  if (ev && ev.verdict && (status === "completed" || status === "incomplete")) {
    const b = el("span", { class: "status verdict " + ev.verdict, title: "run " + status + ", score " + ev.score }, ev.verdict);
    return b;
  }
  return statusBadge(status);
}

// ---- list of runs ----

async function showList(append) {
  show("list-view");
  $("#crumb").textContent = "";
  stopLive();
  const tbody = $("#runs tbody");
  const q = new URLSearchParams(state.filters);
  q.set("limit", "50");
  if (append && state.cursor) q.set("cursor", state.cursor);
  let page;
  try {
    page = await (await api("traces?" + q)).json();
  } catch (e) {
    showMessage("Could not list runs: " + e.message + (key() ? "" : " (set the API key above)"));
    return;
  }
  if (!append) { tbody.textContent = ""; pickChanged(); }
  showMessage(page.data.length || append ? "" : "No runs recorded yet.");
  for (const s of page.data) tbody.append(runRow(s));
  state.cursor = page.next_cursor || "";
  $("#more").hidden = !page.has_more;
  // Running runs: refresh the list while it is shown.
  clearTimeout(state.listTimer);
  if (page.data.some((s) => s.status === "running") && !append) {
    state.listTimer = setTimeout(() => { if (!$("#list-view").hidden) showList(false); }, 3000);
  }
}

function runRow(s) {
  const href = "#/runs/" + encodeURIComponent(s.id);
  const ev = evalInfo(s.metadata);
  let score = "";
  if (ev) score = `${ev.task}${ev.tokens ? " " + ev.tokens : ""} ${ev.mode}` + (isNaN(ev.score) ? "" : ` · ${ev.score}`);
  else if (s.reward) score = s.reward.score + (s.reward.label ? " (" + s.reward.label + ")" : "");
  return el("tr", { "data-id": s.id, class: ev && ev.verdict ? "verdict-" + ev.verdict : null, onclick: (e) => {
    if (e.target.closest("input, a")) return;
    location.hash = href;
  } },
  el("td", {}, el("input", { type: "checkbox", class: "pick", "data-id": s.id, "aria-label": "select " + s.id, onchange: pickChanged })),
  el("td", { class: "mono" }, el("a", { href }, s.id)),
  el("td", {}, new Date(s.started).toLocaleString()),
  el("td", { class: "preview question", title: s.question || "" }, s.question || ""),
  el("td", { class: "preview answer", title: s.answer || "" }, s.answer || ""),
  el("td", { class: "status-cell" }, runBadge(s.status, s.metadata), s.stop_reason && s.stop_reason !== "final" ? el("span", { class: "meta" }, " " + s.stop_reason) : null),
  el("td", { class: "duration" }, elapsed(s.duration_ms, s.status === "running")),
  el("td", { class: "tokens" }, fmtTok(total(s.usage))),
  el("td", {}, String(s.sub_calls)),
  el("td", { class: "preview" }, score));
}

function pickChanged() {
  const picked = [...document.querySelectorAll("#runs input.pick:checked")].map((c) => c.dataset.id);
  $("#compare").disabled = picked.length !== 2;
  $("#compare").dataset.ids = picked.join("/");
}

function show(id) {
  for (const s of ["list-view", "run-view", "compare-view"]) $("#" + s).hidden = s !== id;
}

// ---- one run: indexes ----

// index builds the lookups every view of a run needs.
function index(t) {
  const nodes = new Map(t.nodes.map((n) => [n.id, n]));
  const calls = new Map(); // sub-call id -> {sc, node, turn, cell}
  const cellCalls = new Map(); // "node/turn/cell" -> sub-calls in start order
  const sys = new Map(); // system prompt text -> {n, nodes}
  for (const n of t.nodes) {
    for (const m of n.transcript || []) {
      if (m.role !== "system") continue;
      if (!sys.has(m.content)) sys.set(m.content, { n: sys.size + 1, nodes: new Set() });
      sys.get(m.content).nodes.add(n.id);
    }
    for (const tu of n.turns) for (const c of tu.cells || []) {
      const subs = (c.sub_calls || []).slice().sort((a, b) => Date.parse(a.started) - Date.parse(b.started) || a.id.localeCompare(b.id));
      const k = cellKey(n.id, tu.n, c.n);
      cellCalls.set(k, subs);
      for (const sc of subs) calls.set(sc.id, { sc, node: n, turn: tu.n, cell: c.n, key: k });
    }
  }
  const t0 = Date.parse(t.started);
  // now is the run's end, or for a live run the server's "now".
  let now = t.ended ? Date.parse(t.ended) : t0 + (t.duration_ms || 0);
  if (t.status === "running") now = Math.max(now, t0 + (t.duration_ms || 0));
  for (const n of t.nodes) if (n.ended) now = Math.max(now, Date.parse(n.ended));
  return { nodes, calls, cellCalls, sys, t0, now };
}

function cellKey(node, turn, cell) { return `${node}/${turn}/${cell}`; }

// ---- time spent: model, cell, waiting on sub-calls ----

function union(ivs) {
  const s = ivs.filter((iv) => iv[1] > iv[0]).sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const iv of s) {
    if (out.length && iv[0] <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], iv[1]);
    else out.push([iv[0], iv[1]]);
  }
  return out;
}

function intersect(a, b) {
  const out = [];
  for (const x of a) for (const y of b) {
    const s = Math.max(x[0], y[0]), e = Math.min(x[1], y[1]);
    if (e > s) out.push([s, e]);
  }
  return union(out);
}

function subtract(a, b) {
  let out = a.map((iv) => iv.slice());
  for (const [cs, ce] of b) {
    const next = [];
    for (const [s, e] of out) {
      if (ce <= s || cs >= e) { next.push([s, e]); continue; }
      if (cs > s) next.push([s, cs]);
      if (ce < e) next.push([ce, e]);
    }
    out = next;
  }
  return out;
}

const span = (ivs) => ivs.reduce((a, iv) => a + iv[1] - iv[0], 0);

// breakdown splits a node's time into its model calls, its cells' own work
// and the time its cells waited on sub-calls, as intervals (ms since epoch).
function breakdown(n, now) {
  const end = (x) => (x.ended ? Date.parse(x.ended) : now);
  const model = [], cells = [], subs = [];
  for (const tu of n.turns) {
    for (const c of tu.calls || []) model.push([Date.parse(c.started), Date.parse(c.ended)]);
    for (const c of tu.cells || []) {
      cells.push([Date.parse(c.started), end(c)]);
      for (const sc of c.sub_calls || []) subs.push([Date.parse(sc.started), end(sc)]);
    }
  }
  const cellU = union(cells);
  const wait = intersect(union(subs), cellU);
  const own = subtract(cellU, wait);
  const m = union(model);
  return { model: m, cell: own, wait, modelMS: span(m), cellMS: span(own), waitMS: span(wait) };
}

// ---- find: a small filter language over nodes and sub-calls ----

// parseQuery reads terms: bare words match id, prompt, answer and error;
// field:text matches a substring of a field, field=text the whole field
// (trimmed); a leading "-" negates. Fields: id, kind (llm, rlm, node),
// status, model, prompt, answer, error. Quotes keep spaces: answer:"a b".
function parseQuery(q) {
  const terms = [];
  const re = /(-?)(?:(\w+)([:=]))?(?:"([^"]*)"|(\S+))/g;
  let m;
  while ((m = re.exec(q || ""))) {
    const value = (m[4] != null ? m[4] : m[5] || "").toLowerCase();
    terms.push({ neg: m[1] === "-", field: m[2] ? m[2].toLowerCase() : "", exact: m[3] === "=", value });
  }
  return terms;
}

function fieldsOf(item) {
  if (item.kind === "node") {
    const n = item.n;
    return { id: n.id, kind: "node", status: n.status, model: "", prompt: "", answer: n.answer || "", error: n.error || "" };
  }
  const sc = item.sc;
  return { id: sc.id, kind: sc.kind, status: sc.status, model: sc.model || "", prompt: sc.prompt || "", answer: sc.response || "", error: sc.error || "" };
}

function matches(terms, f) {
  return terms.every((t) => {
    const vals = t.field ? [f[t.field] == null ? "" : f[t.field]] : [f.id, f.prompt, f.answer, f.error];
    const hit = vals.some((v) => {
      v = String(v).toLowerCase();
      return t.exact ? v.trim() === t.value : v.includes(t.value);
    });
    return hit !== t.neg;
  });
}

// find returns the ids of the sub-calls and nodes that match q, or null
// when q is empty.
function find(q) {
  const terms = parseQuery(q);
  if (!terms.length) return null;
  const out = { calls: [], nodes: [], ids: new Set() };
  for (const [id, c] of state.ix.calls) if (matches(terms, fieldsOf({ kind: "call", sc: c.sc }))) { out.calls.push(id); out.ids.add(id); }
  for (const n of state.traj.nodes) if (matches(terms, fieldsOf({ kind: "node", n }))) { out.nodes.push(n.id); out.ids.add(n.id); }
  return out;
}

// ---- routes ----

function parseHash() {
  const h = location.hash || "#/";
  const [path, query] = h.slice(1).split("?");
  const q = new URLSearchParams(query || "").get("q") || "";
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "runs" && parts[1]) {
    const r = { view: "run", id: parts[1], sel: null, agg: false, q };
    if (parts[2] === "node" && parts[3]) r.sel = { kind: "node", id: parts[3] };
    else if (parts[2] === "call" && parts[3]) r.sel = { kind: "subcall", id: parts[3] };
    else if (parts[2] === "aggregate") r.agg = true;
    return r;
  }
  if (parts[0] === "compare" && parts[1] && parts[2]) return { view: "compare", a: parts[1], b: parts[2] };
  return { view: "list" };
}

// runHref is the URL of a view of the current run; q defaults to the
// filter in use.
function runHref(what, q) {
  const t = state.traj;
  let h = "#/runs/" + encodeURIComponent(t.id);
  if (what && what.kind === "node") h += "/node/" + encodeURIComponent(what.id);
  else if (what && what.kind === "subcall") h += "/call/" + encodeURIComponent(what.id);
  else if (what === "aggregate") h += "/aggregate";
  q = q == null ? (state.route && state.route.q) || "" : q;
  if (q) h += "?q=" + encodeURIComponent(q);
  return h;
}

const nodeLink = (id, text) => el("a", { class: "node-link", href: runHref({ kind: "node", id }) }, text || "node " + id);
const callLink = (id, text) => el("a", { class: "call-link", href: runHref({ kind: "subcall", id }) }, text || id);

async function route() {
  if (document.activeElement !== $("#key")) $("#key").value = key();
  const r = parseHash();
  if (r.view === "list") { state.route = r; return showList(false); }
  if (r.view === "compare") { state.route = r; stopLive(); return showCompare(r.a, r.b); }
  show("run-view");
  if (!state.traj || state.traj.id !== r.id || !state.route || state.route.view !== "run" || state.route.id !== r.id) {
    state.route = r;
    state.expanded = new Set();
    await loadRun(r.id);
  } else {
    state.route = r;
    applyRoute();
  }
}

// ---- one run ----

async function loadRun(id) {
  $("#crumb").textContent = "/ " + id;
  let t;
  try {
    t = await (await api("traces/" + encodeURIComponent(id))).json();
  } catch (e) {
    showMessage("Could not load run " + id + ": " + e.message);
    return;
  }
  if (!state.route || state.route.id !== id) return; // navigated away meanwhile
  showMessage("");
  state.traj = t;
  state.ix = index(t);
  renderRun();
  applyRoute();
  if (t.status === "running") startLive(id); else stopLive();
}

function renderRun() {
  const t = state.traj;
  const u = t.used || {};
  const running = t.status === "running";
  const items = [
    ["status", runBadge(t.status, t.metadata)], ["stop reason", t.stop_reason || "–"], ["model", t.model || "–"],
    ["nodes", String(t.nodes.length)], ["sub-calls", String(u.sub_calls || 0)], ["llm calls", String(u.llm_calls || 0)],
    ["tokens", fmtTok(total(u.usage)) + " (" + fmtTok((u.usage || {}).prompt_tokens) + " in)"],
    ["max depth", String(u.max_depth || 0)], ["duration", elapsed(t.duration_ms, running)],
    ["reward", t.reward ? String(t.reward.score) + (t.reward.label ? " " + t.reward.label : "") : "–"],
  ];
  // A run that called client tools waited for them: the wall time is not
  // all its own.
  if ((t.pauses || []).length) {
    const waited = t.pauses.reduce((ms, p) => ms + ((p.resumed ? Date.parse(p.resumed) : state.ix.now) - Date.parse(p.paused)), 0);
    items.push(["client tools", `${t.pauses.length} pause${t.pauses.length === 1 ? "" : "s"} · waited ${fmtMS(waited)}`]);
  }
  $("#summary").replaceChildren(...items.map(([k, v]) => el("div", { "data-field": k }, el("b", {}, k), v)));
  if (t.error) $("#summary").append(el("div", { "data-field": "error" }, el("b", {}, "error"), el("span", { class: "mono" }, t.error)));
  const qa = [];
  if (t.question) qa.push(el("div", {}, el("b", {}, "question"), el("span", { class: "qtext" }, clip(t.question, 400))));
  if (t.answer) qa.push(el("div", {}, el("b", {}, "answer"), el("span", { class: "qtext" }, clip(t.answer, 400))));
  $("#question").replaceChildren(...qa);
  renderEval(t);
  const fb = $("#feedback");
  fb.querySelector("button").disabled = running;
  $("#feedback-status").textContent = running ? "feedback opens when the run has finished" : "";
  const sys = [...state.ix.sys.entries()];
  $("#sysprompts").replaceChildren(...(sys.length ? [el("span", { class: "meta" }, "system prompts: "),
    ...sys.map(([text, s]) => el("span", { class: "meta", title: clip(text, 300) }, `#${s.n} (${text.length} chars, ${s.nodes.size} node${s.nodes.size === 1 ? "" : "s"}) `))] : []));
  renderLegend(t);
}

function renderEval(t) {
  const box = $("#eval");
  const ev = evalInfo(t.metadata);
  box.hidden = !ev;
  if (!ev) { box.replaceChildren(); return; }
  box.className = ev.verdict ? "verdict-" + ev.verdict : "";
  box.replaceChildren(
    el("div", {}, el("b", {}, "eval task"), `${ev.task}${ev.tokens ? " · " + ev.tokens + " tokens" : ""}${ev.mode ? " · " + ev.mode : ""}`),
    el("div", {}, el("b", {}, "score"), isNaN(ev.score) ? "not scored" : String(ev.score), " ", ev.verdict ? el("span", { class: "status verdict " + ev.verdict }, ev.verdict) : null),
    el("div", { class: "gold" }, el("b", {}, "gold answer"), pre(ev.gold)),
    el("div", { class: "gold" }, el("b", {}, "run's answer"), pre(t.answer || "")));
}

function renderLegend(t) {
  // One entry per depth drawn: nodes at their depth, llm_query calls one
  // below the node that made them.
  const depths = new Map();
  const add = (d, what) => {
    if (!depths.has(d)) depths.set(d, { nodes: 0, llm: 0 });
    depths.get(d)[what]++;
  };
  for (const n of t.nodes) add(n.depth, "nodes");
  for (const c of state.ix.calls.values()) if (!c.sc.child_id) add(c.node.depth + 1, "llm");
  const legend = [];
  for (const d of [...depths.keys()].sort((a, b) => a - b)) {
    const c = depths.get(d);
    const what = [c.nodes ? `${c.nodes} node${c.nodes === 1 ? "" : "s"}` : "", c.llm ? `${c.llm} llm_query` : ""].filter(Boolean).join(", ");
    legend.push(el("span", { class: "depth", "data-depth": d }, swatch(DEPTH_COLORS[d % DEPTH_COLORS.length]), `depth ${d}: ${what}`));
  }
  legend.push(el("span", {}, swatch("#4a5568"), "model call"), el("span", {}, swatch("#4a5568", 0.45), "cell"),
    el("span", {}, swatch(WAIT_COLOR), "waiting on sub-calls"),
    el("span", {}, "outlined red: failed or wrong · dashed: cancelled · faded: llm_query · top ticks: turns"));
  $("#legend").replaceChildren(...legend);
}

function swatch(color, alpha) {
  const i = el("i", {});
  i.style.background = color; // CSSOM: allowed by the CSP, unlike style=""
  if (alpha) i.style.opacity = alpha;
  return i;
}

// applyRoute shows what the URL names within the loaded run: the filter,
// the selection (opening any collapsed group that hides it) or the
// aggregate view.
function applyRoute() {
  const r = state.route;
  const s = $("#search");
  if (s.value !== r.q && document.activeElement !== s) s.value = r.q;
  state.matches = find(r.q);
  const count = $("#search-count");
  if (state.matches) {
    count.textContent = `${state.matches.calls.length} sub-call(s), ${state.matches.nodes.length} node(s) match`;
    count.href = runHref(null);
  } else count.textContent = "";
  $("#agg-link").href = runHref("aggregate");
  if (r.sel) expandFor(r.sel);
  drawTimeline();
  const picked = document.querySelector("#timeline rect.bar.selected");
  if (picked) {
    // Bring the selection into the timeline's view (not the page's).
    const box = $("#timeline");
    const y = +picked.getAttribute("y");
    if (y < box.scrollTop || y > box.scrollTop + box.clientHeight - 30) box.scrollTop = Math.max(0, y - box.clientHeight / 3);
  }
  if (r.agg) showAggregate();
  else if (r.sel) showDetails(r.sel);
  else if (state.matches) showMatches();
  else $("#details").replaceChildren(el("p", { class: "hint" }, "Click a bar to see what that node or sub-call did. Groups of many sub-calls open with a click."));
}

// expandFor opens every collapsed group between the root and sel.
function expandFor(sel) {
  const ix = state.ix;
  let call = sel.kind === "subcall" ? ix.calls.get(sel.id) : null;
  if (sel.kind === "node") { const n = ix.nodes.get(sel.id); call = n && n.sub_call_id ? ix.calls.get(n.sub_call_id) : null; }
  for (let guard = 0; call && guard < 1000; guard++) {
    if ((ix.cellCalls.get(call.key) || []).length > GROUP_MIN) state.expanded.add(call.key);
    call = call.node.sub_call_id ? ix.calls.get(call.node.sub_call_id) : null;
  }
}

// rows lays the tree out top to bottom: each node, then the sub-calls of
// its cells; an rlm_query is drawn as its child node's subtree, llm_query
// calls are packed into lanes so that calls running at the same time sit
// side by side. A cell with many sub-calls is one collapsed group row
// until opened.
function rows(t, ix, expanded) {
  const out = [];
  const seen = new Set();
  const hide = (n) => {
    if (seen.has(n.id)) return;
    seen.add(n.id);
    for (const tu of n.turns) for (const c of tu.cells || []) for (const sc of c.sub_calls || []) {
      const child = sc.child_id && ix.nodes.get(sc.child_id);
      if (child) hide(child);
    }
  };
  const visit = (n) => {
    if (seen.has(n.id)) return;
    seen.add(n.id);
    out.push({ kind: "node", node: n, depth: n.depth });
    for (const tu of n.turns) for (const c of tu.cells || []) {
      const k = cellKey(n.id, tu.n, c.n);
      const subs = ix.cellCalls.get(k) || [];
      if (subs.length > GROUP_MIN && !expanded.has(k)) {
        out.push({ kind: "group", key: k, calls: subs, depth: n.depth + 1, node: n, turn: tu.n, cell: c.n });
        for (const sc of subs) { const ch = sc.child_id && ix.nodes.get(sc.child_id); if (ch) hide(ch); }
        continue;
      }
      const lanes = []; // end time of the last call in each lane
      let laneRows = [];
      const flush = () => { out.push(...laneRows); laneRows = []; lanes.length = 0; };
      for (const sc of subs) {
        const child = sc.child_id && ix.nodes.get(sc.child_id);
        if (child) { flush(); visit(child); continue; }
        const s = Date.parse(sc.started), e = sc.ended ? Date.parse(sc.ended) : Infinity;
        let lane = lanes.findIndex((end) => end <= s);
        if (lane < 0) { lane = lanes.length; lanes.push(e); laneRows.push({ kind: "lane", calls: [], depth: n.depth + 1 }); }
        lanes[lane] = e;
        laneRows[lane].calls.push(sc);
      }
      flush();
    }
  };
  for (const n of t.nodes) if (!n.parent_id || !ix.nodes.has(n.parent_id)) visit(n);
  for (const n of t.nodes) visit(n); // anything unlinked
  return out;
}

// drawTimeline draws the current run into #timeline; opts.box and
// opts.span draw it elsewhere (compare view) on a given time scale.
function drawTimeline(opts = {}) {
  const t = opts.traj || state.traj;
  const box = opts.box || $("#timeline");
  const ix = opts.ix || state.ix;
  const rs = rows(t, ix, opts.box ? new Set() : state.expanded);
  const sel = opts.box ? null : state.route && state.route.sel;
  const hits = opts.box ? null : state.matches;
  const t0 = ix.t0;
  const spanMS = Math.max(opts.span || ix.now - t0, 1);
  const labelW = 130, width = Math.max(box.clientWidth - 2 || 700, 420), plotW = width - labelW - 12;
  const nodeH = 20, laneH = 11, groupH = 22, gap = 3, top = 20;
  let y = top;
  for (const r of rs) { r.y = y; r.h = r.kind === "node" ? nodeH : r.kind === "group" ? groupH : laneH; y += r.h + gap; }
  const height = y + 4;
  const x = (ms) => labelW + ((ms - t0) / spanMS) * plotW;
  const endOf = (o) => (o.ended ? Date.parse(o.ended) : ix.now);
  const svg = svgEl("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "recursion timeline" });
  box.replaceChildren(svg); // in the page first, so that labels can be measured
  for (let i = 0; i <= 4; i++) {
    const gx = labelW + (plotW * i) / 4;
    svg.append(svgEl("line", { x1: gx, x2: gx, y1: 14, y2: height, class: "grid" }));
    svg.append(svgEl("text", { x: gx, y: 11, class: "axis", "text-anchor": i === 0 ? "start" : i === 4 ? "end" : "middle" }, fmtMS((spanMS * i) / 4)));
  }
  const color = (d) => DEPTH_COLORS[d % DEPTH_COLORS.length];
  const link = opts.link || ((what) => runHref(what));
  const bar = (o, cls, id, yy, h, d, alpha, title) => {
    const x0 = x(Date.parse(o.started)), w = Math.max(x(endOf(o)) - x0, 2);
    const kind = cls === "node" ? "node" : "subcall";
    const r = svgEl("rect", { x: x0, y: yy, width: w, height: h, fill: color(d), "fill-opacity": alpha,
      class: `bar ${cls} ${o.status}`, "data-id": id });
    r.append(svgEl("title", {}, title));
    r.addEventListener("click", () => { location.hash = link({ kind, id }); });
    if (sel && sel.id === id && sel.kind === kind) r.classList.add("selected");
    if (hits && !hits.ids.has(id)) r.classList.add("dim");
    if (hits && hits.ids.has(id)) r.classList.add("hit");
    svg.append(r);
    return { x0, w };
  };
  for (const r of rs) {
    const lx = 4 + Math.min(r.depth, 6) * 8;
    if (r.kind === "node") {
      const n = r.node;
      svg.append(svgEl("text", { x: lx, y: r.y + r.h / 2 + 4, class: "label" }, "node " + n.id));
      const tok = total(n.usage), dur = n.duration_ms || endOf(n) - Date.parse(n.started);
      const b = breakdown(n, ix.now);
      const text = `${n.id} · ${fmtTok(tok)} tok · ${fmtMS(dur)}${n.stop_reason ? " · " + n.stop_reason : ""}`;
      const title = `${text}\nmodel ${fmtMS(b.modelMS)} · cell ${fmtMS(b.cellMS)} · waiting on sub-calls ${fmtMS(b.waitMS)}`;
      const { x0, w } = bar(n, "node", n.id, r.y, r.h, n.depth, 0.22, title);
      if (!n.parent_id) {
        const ev = evalInfo(t.metadata);
        if (ev && ev.verdict) svg.lastChild.classList.add(ev.verdict);
      }
      // The split: model calls dark, cells' own work light, waiting gray.
      for (const [ivs, cls, fill, alpha] of [[b.model, "seg-model", color(n.depth), 0.95], [b.cell, "seg-cell", color(n.depth), 0.5], [b.wait, "seg-wait", WAIT_COLOR, 0.9]]) {
        for (const [s, e] of ivs) {
          svg.append(svgEl("rect", { x: x(s), y: r.y + 5, width: Math.max(x(e) - x(s), 1), height: r.h - 5, fill, "fill-opacity": alpha, class: "seg " + cls, "data-node": n.id }));
        }
      }
      // Turn ticks sit in the bar's top band, above the label.
      for (const tu of n.turns) {
        const tx = x(Date.parse(tu.started));
        if (tx >= x0 && tx <= x0 + w) svg.append(svgEl("rect", { x: tx - 0.75, y: r.y, width: 1.5, height: 4, class: "tick" }));
      }
      if (w > 50) {
        // White on a halo of the bar's color: readable over every segment.
        const bt = svgEl("text", { x: x0 + 4, y: r.y + 5 + (r.h - 5) / 2 + 4, class: "barlabel", stroke: color(n.depth) }, text);
        svg.append(bt);
        clipText(bt, w - 6);
      }
    } else if (r.kind === "group") {
      const calls = r.calls;
      const nhit = hits ? calls.filter((sc) => hits.ids.has(sc.id) || (sc.child_id && hits.ids.has(sc.child_id))).length : 0;
      const kinds = new Set(calls.map((sc) => sc.kind));
      const label = `▸ ${[...kinds].join("/")} × ${calls.length}`;
      svg.append(svgEl("text", { x: lx, y: r.y + r.h / 2 + 4, class: "label" }, label));
      const s = Math.min(...calls.map((sc) => Date.parse(sc.started))), e = Math.max(...calls.map(endOf));
      const g = svgEl("rect", { x: x(s), y: r.y, width: Math.max(x(e) - x(s), 2), height: r.h, fill: color(r.depth), "fill-opacity": 0.12,
        class: "group", "data-key": r.key, "data-count": calls.length });
      g.append(svgEl("title", {}, `${calls.length} sub-calls of node ${r.node.id}, turn ${r.turn}, cell ${r.cell}: click to show them all`));
      // Opens in place; in a compare view, opens the run at the group's first call.
      g.addEventListener("click", () => {
        if (opts.box) location.hash = link({ kind: "subcall", id: calls[0].id });
        else { state.expanded.add(r.key); drawTimeline(); }
      });
      svg.append(g);
      // Each call is a thin line at its place in time: density at a glance.
      calls.forEach((sc, i) => {
        const yy = r.y + 2 + (i % 6) * 3;
        const cls = "mini " + sc.status + (hits && (hits.ids.has(sc.id) || (sc.child_id && hits.ids.has(sc.child_id))) ? " hit" : "");
        svg.append(svgEl("rect", { x: x(Date.parse(sc.started)), y: yy, width: Math.max(x(endOf(sc)) - x(Date.parse(sc.started)), 1), height: 2,
          fill: color(r.depth), class: cls }));
      });
      const info = `${calls.length} calls${hits ? ` · ${nhit} match` : ""} · click to open`;
      const left = x(s) + 220 < width;
      svg.append(svgEl("text", { x: left ? x(s) + 4 : x(e) - 4, "text-anchor": left ? "start" : "end", y: r.y + r.h / 2 + 4, class: "grouplabel" }, info));
    } else {
      svg.append(svgEl("text", { x: lx, y: r.y + r.h / 2 + 4, class: "label small" }, r.calls.length > 1 ? `llm × ${r.calls.length}` : "llm_query"));
      for (const sc of r.calls) {
        bar(sc, "subcall", sc.id, r.y, r.h, r.depth, SUBCALL_ALPHA,
          `${sc.kind}_query ${sc.id} · ${fmtTok(total(sc.usage))} tok · ${fmtMS(sc.duration_ms)}\n${clip(sc.prompt, 200)}\n→ ${clip(sc.response, 200)}`);
      }
    }
  }
}

function clipText(node, maxW) {
  // Shorten a bar label until it fits inside its bar.
  let s = node.textContent;
  while (s.length > 3 && node.getComputedTextLength && node.getComputedTextLength() > maxW) {
    s = s.slice(0, -2);
    node.textContent = s + "…";
  }
}

function pre(text, cls) { return el("pre", { class: cls || null }, text == null ? "" : String(text)); }

function messageView(m) {
  if (m.role === "system" && state.ix.sys.has(m.content)) return systemPromptView(m.content);
  return el("div", { class: "msg" }, el("span", { class: "role" }, m.role), pre(m.content));
}

// systemPromptView shows a system prompt once per run: collapsed, with its
// number, and its text rendered only when opened.
function systemPromptView(text) {
  const s = state.ix.sys.get(text);
  const d = el("details", { class: "sysprompt", "data-prompt": s.n },
    el("summary", {}, `System prompt #${s.n}`, el("span", { class: "meta" }, `${text.length} chars · the same in ${s.nodes.size} node${s.nodes.size === 1 ? "" : "s"}`)));
  d.addEventListener("toggle", () => { if (d.open && !d.querySelector("pre")) d.append(pre(text)); });
  return d;
}

function subCallView(sc, opts = {}) {
  const child = sc.child_id ? nodeLink(sc.child_id, "→ child node " + sc.child_id) : null;
  return el("div", { class: "subcall", "data-subcall": sc.id },
    el("div", {}, callLink(sc.id, `${sc.kind}_query ${sc.id}`), " ", child,
      el("span", { class: "meta" }, `${sc.status} · ${fmtTok(total(sc.usage))} tok · ${fmtMS(sc.duration_ms)}${sc.model ? " · " + sc.model : ""}${sc.fallback ? " · answered as llm_query at max depth" : ""}`)),
    opts.brief ? null : el("div", { class: "msg" }, el("span", { class: "role" }, "prompt"), pre(sc.prompt)),
    el("div", { class: "msg" }, el("span", { class: "role" }, "answer"), pre(opts.brief ? clip(sc.response, 300) : sc.response)),
    sc.error ? pre(sc.error, "error") : null);
}

// toolCallView shows a call of a client's tool: what the cell asked, what
// the client answered and how long it took, or that it is still waiting.
function toolCallView(tc) {
  const waited = tc.answered ? fmtMS(Date.parse(tc.answered) - Date.parse(tc.called)) : "";
  const meta = tc.note ? tc.note : tc.output != null ? `answered by the client in ${waited}` : "waiting for the client";
  return el("div", { class: "toolcall", "data-toolcall": tc.id },
    el("div", {}, el("b", {}, `${tc.name}`), ` ${tc.id}`, el("span", { class: "meta" }, meta)),
    el("div", { class: "msg" }, el("span", { class: "role" }, "arguments"), pre(tc.arguments)),
    tc.output != null ? el("div", { class: "msg" }, el("span", { class: "role" }, "output"), pre(tc.output)) : null);
}

function timeSplit(n) {
  const b = breakdown(n, state.ix.now);
  return el("p", { class: "split-times" }, `model ${fmtMS(b.modelMS)} · cell ${fmtMS(b.cellMS)} · waiting on sub-calls ${fmtMS(b.waitMS)}`);
}

function showDetails(sel) {
  const t = state.traj;
  const ix = state.ix;
  const box = $("#details");
  if (sel.kind === "subcall") {
    const f = ix.calls.get(sel.id);
    if (!f) { box.replaceChildren(el("p", { class: "hint" }, `No sub-call ${sel.id} in this run.`)); return; }
    box.replaceChildren(el("h2", {}, `Sub-call ${f.sc.id}`),
      el("p", { class: "parent" }, "made by ", nodeLink(f.node.id), `, turn ${f.turn}, cell ${f.cell}`),
      subCallView(f.sc));
    return;
  }
  const n = ix.nodes.get(sel.id);
  if (!n) { box.replaceChildren(el("p", { class: "hint" }, `No node ${sel.id} in this run.`)); return; }
  const parts = [
    el("h2", {}, `Node ${n.id}`, el("span", { class: "meta" }, `depth ${n.depth}`), " ", statusBadge(n.status)),
    el("p", {}, `${n.turns.length} turn(s) · ${fmtTok(total(n.usage))} tokens own, ${fmtTok(total(n.tree_usage))} with children · `,
      elapsed(n.duration_ms || ix.now - Date.parse(n.started), n.status === "running" && t.status === "running"),
      n.stop_reason ? ` · stopped: ${n.stop_reason}` : ""),
    timeSplit(n),
  ];
  // The prompt is stored once, on the sub-call that started the node
  // (version 1 records also kept a copy on the node).
  const from = n.sub_call_id && ix.calls.get(n.sub_call_id);
  if (from) parts.push(el("p", { class: "parent" }, "started by ", callLink(from.sc.id, "rlm_query " + from.sc.id), " in ", nodeLink(from.node.id), `, turn ${from.turn}, cell ${from.cell}`));
  else if (n.parent_id) parts.push(el("p", { class: "parent" }, "child of ", nodeLink(n.parent_id)));
  const prompt = n.prompt || (from && from.sc.prompt);
  if (prompt) parts.push(el("h3", {}, "Prompt from parent"), pre(prompt));
  if (n.answer) parts.push(el("h3", {}, "Answer"), pre(n.answer));
  if (n.error) parts.push(pre(n.error, "error"));
  let shown = 0; // transcript messages already shown in earlier turns
  for (const tu of n.turns) {
    const d = el("details", { class: "turn", "data-turn": tu.n });
    if (tu.n === n.turns[n.turns.length - 1].n || n.turns.length <= 3) d.open = true;
    const call = (tu.calls || [])[0];
    const meta = call ? `${call.model} · ${fmtTok(total(call.usage))} tok · ${fmtMS(call.latency_ms)}${call.finish_reason ? " · " + call.finish_reason : ""}` : "";
    d.append(el("summary", {}, `Turn ${tu.n}`, el("span", { class: "meta" }, meta)));
    for (const c of tu.calls || []) {
      const sent = (n.transcript || []).slice(0, c.prefix).concat(c.extra || []);
      const fresh = sent.slice(Math.min(shown, c.prefix));
      if (fresh.length) {
        d.append(el("h3", {}, shown ? `New messages (${sent.length} sent in all)` : `Messages sent (${sent.length})`));
        for (const m of fresh) d.append(messageView(m));
      }
      shown = Math.max(shown, c.prefix);
      d.append(el("h3", {}, "Response"), pre(c.response));
      if (c.error) d.append(pre(c.error, "error"));
    }
    for (const c of tu.cells || []) {
      const cell = el("div", { class: "cell", "data-cell": c.n },
        el("div", {}, el("b", {}, `Cell ${c.n}`), el("span", { class: "meta" },
          `${c.status} · ${fmtMS(c.duration_ms)} · ${c.output_bytes} bytes of output${c.truncated ? " (truncated)" : ""}${c.restarted ? " · worker restarted" : ""}`)),
        pre(c.code, "code"));
      if (c.output) cell.append(el("span", { class: "role" }, "output"), pre(c.output));
      if (c.error) cell.append(pre(c.error, "error"));
      if (c.final != null) cell.append(el("span", { class: "role" }, "FINAL"), pre(c.final));
      const subs = ix.cellCalls.get(cellKey(n.id, tu.n, c.n)) || [];
      // Many sub-calls: brief entries, the full text is one click away.
      for (const sc of subs) cell.append(subCallView(sc, { brief: subs.length > GROUP_MIN }));
      for (const tc of c.tool_calls || []) cell.append(toolCallView(tc));
      d.append(cell);
    }
    parts.push(d);
  }
  box.replaceChildren(...parts);
}

// showMatches lists what the filter found.
function showMatches() {
  const m = state.matches;
  const ix = state.ix;
  const list = el("ol", { class: "matches" });
  for (const id of m.nodes) {
    const n = ix.nodes.get(id);
    list.append(el("li", { "data-id": id }, nodeLink(id), el("span", { class: "meta" }, n.status), " ", el("span", { class: "preview-text" }, clip(n.answer, 160))));
  }
  for (const id of m.calls) {
    const sc = ix.calls.get(id).sc;
    list.append(el("li", { "data-id": id }, callLink(id, `${sc.kind}_query ${id}`), el("span", { class: "meta" }, sc.status), " ", el("span", { class: "preview-text" }, clip(sc.response, 160))));
  }
  $("#details").replaceChildren(el("h2", {}, "Found"),
    el("p", { class: "found-count" }, `${m.calls.length} sub-call(s) and ${m.nodes.length} node(s) match “${state.route.q}”`),
    el("p", {}, el("a", { href: runHref("aggregate") }, "aggregate these sub-calls")), list);
}

// ---- aggregate view: what a wide fan-out answered, and how fast ----

function showAggregate() {
  const ix = state.ix;
  let calls = [...ix.calls.values()].map((c) => c.sc);
  const q = state.route.q;
  if (state.matches) calls = calls.filter((sc) => state.matches.ids.has(sc.id) || (sc.child_id && state.matches.ids.has(sc.child_id)));
  const box = $("#details");
  const head = el("h2", {}, "Aggregate");
  if (!calls.length) { box.replaceChildren(head, el("p", { class: "hint" }, "No sub-calls" + (q ? " match the filter." : " in this run."))); return; }
  const groups = new Map();
  for (const sc of calls) {
    const a = sc.status === "running" ? "(still running)" : (sc.response || "").trim().replace(/\s+/g, " ") || (sc.error ? "(error) " + clip(sc.error, 80) : "(empty)");
    if (!groups.has(a)) groups.set(a, []);
    groups.get(a).push(sc);
  }
  const sorted = [...groups.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  const statuses = new Map();
  for (const sc of calls) statuses.set(sc.status, (statuses.get(sc.status) || 0) + 1);
  const tokens = calls.reduce((a, sc) => a + total(sc.usage), 0);
  const table = el("table", { class: "answers" }, el("thead", {}, el("tr", {}, el("th", {}, "answer"), el("th", {}, "count"), el("th", {}, "share"))));
  const tb = el("tbody", {});
  for (const [answer, scs] of sorted.slice(0, 50)) {
    const share = el("i", { class: "sharebar" });
    share.style.width = Math.max(2, Math.round((100 * scs.length) / calls.length)) + "px";
    const ids = el("details", { class: "ids" }, el("summary", {}, clip(answer, 120)), ...scs.slice(0, 200).map((sc) => el("span", {}, callLink(sc.id), " ")));
    tb.append(el("tr", { "data-answer": answer }, el("td", {}, ids), el("td", { class: "count" }, String(scs.length)), el("td", {}, share, ` ${Math.round((100 * scs.length) / calls.length)}%`)));
  }
  table.append(tb);
  const parts = [head,
    el("p", { class: "agg-summary" }, `${calls.length} sub-call(s)${q ? " matching “" + q + "”" : ""} · ${sorted.length} distinct answer(s) · ` +
      [...statuses.entries()].map(([s, n]) => `${n} ${s}`).join(", ") + ` · ${fmtTok(tokens)} tokens`),
    table];
  if (sorted.length > 50) parts.push(el("p", { class: "hint" }, `${sorted.length - 50} more distinct answers not shown`));
  parts.push(el("h3", {}, "Latency"), histogram(calls.filter((sc) => sc.status !== "running").map((sc) => sc.duration_ms || 0)));
  box.replaceChildren(...parts);
}

function histogram(values) {
  if (!values.length) return el("p", { class: "hint" }, "none finished yet");
  const sorted = values.slice().sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const lo = sorted[0], hi = sorted[sorted.length - 1];
  const nb = Math.min(12, Math.max(1, Math.ceil(Math.sqrt(values.length))));
  const w = (hi - lo) / nb || 1;
  const bins = new Array(nb).fill(0);
  for (const v of values) bins[Math.min(nb - 1, Math.floor((v - lo) / w))]++;
  const W = 320, H = 120, pad = 18, bw = (W - 2 * pad) / nb, top = Math.max(...bins);
  const svg = svgEl("svg", { width: W, height: H + 16, class: "histogram", role: "img", "aria-label": "latency histogram" });
  bins.forEach((c, i) => {
    const h = top ? ((H - 20) * c) / top : 0;
    const r = svgEl("rect", { x: pad + i * bw + 1, y: H - h, width: Math.max(bw - 2, 1), height: h, class: "hbar", "data-count": c });
    r.append(svgEl("title", {}, `${fmtMS(lo + i * w)}–${fmtMS(lo + (i + 1) * w)}: ${c}`));
    svg.append(r);
    if (c) svg.append(svgEl("text", { x: pad + i * bw + bw / 2, y: H - h - 3, class: "axis", "text-anchor": "middle" }, String(c)));
  });
  svg.append(svgEl("text", { x: pad, y: H + 12, class: "axis" }, fmtMS(lo)), svgEl("text", { x: W - pad, y: H + 12, class: "axis", "text-anchor": "end" }, fmtMS(hi)));
  return el("div", {}, svg, el("p", { class: "meta" }, `p50 ${fmtMS(q(0.5))} · p90 ${fmtMS(q(0.9))} · max ${fmtMS(hi)}`));
}

// ---- compare two runs ----

async function showCompare(a, b) {
  show("compare-view");
  $("#crumb").textContent = `/ compare ${a} ${b}`;
  const box = $("#compare-view");
  box.replaceChildren(el("p", { class: "hint" }, "Loading…"));
  let ta, tb;
  try {
    [ta, tb] = await Promise.all([a, b].map(async (id) => (await api("traces/" + encodeURIComponent(id))).json()));
  } catch (e) {
    showMessage("Could not load runs to compare: " + e.message);
    return;
  }
  showMessage("");
  const runs = [ta, tb];
  const ixs = runs.map(index);
  const rowsOf = (t) => {
    const u = t.used || {}, ev = evalInfo(t.metadata) || {};
    return [
      ["status", t.status], ["verdict", ev.verdict || ""], ["eval task", ev.task || ""], ["score", isNaN(ev.score) || ev.score == null ? "" : String(ev.score)],
      ["model", t.model || ""], ["stop reason", t.stop_reason || ""], ["duration", fmtMS(t.duration_ms)], ["tokens", fmtTok(total(u.usage))],
      ["llm calls", String(u.llm_calls || 0)], ["nodes", String(t.nodes.length)], ["sub-calls", String(u.sub_calls || 0)],
      ["max depth", String(u.max_depth || 0)], ["question", clip(t.question, 300)], ["answer", clip(t.answer, 300)], ["gold answer", clip(ev.gold, 300)],
    ];
  };
  const ra = rowsOf(ta), rb = rowsOf(tb);
  const table = el("table", { class: "compare" }, el("thead", {}, el("tr", {}, el("th", {}, ""),
    ...runs.map((t) => el("th", {}, el("a", { href: "#/runs/" + encodeURIComponent(t.id) }, t.id))))));
  const body = el("tbody", {});
  ra.forEach(([k, va], i) => {
    const vb = rb[i][1];
    if (!va && !vb) return;
    body.append(el("tr", { class: va === vb ? "same" : "differs", "data-field": k }, el("th", {}, k), el("td", {}, va), el("td", {}, vb)));
  });
  table.append(body);
  const spanMS = Math.max(...ixs.map((ix) => ix.now - ix.t0));
  const cols = runs.map((t, i) => el("div", { class: "compare-col" }, el("h3", {}, el("a", { href: "#/runs/" + encodeURIComponent(t.id) }, t.id)), el("div", { class: "timeline small-timeline" })));
  box.replaceChildren(el("h2", {}, "Compare runs"), table, el("p", { class: "meta" }, "Both timelines share one time scale."), el("div", { class: "compare-cols" }, ...cols));
  runs.forEach((t, i) => {
    const base = "#/runs/" + encodeURIComponent(t.id);
    drawTimeline({ traj: t, ix: ixs[i], box: cols[i].querySelector(".timeline"), span: spanMS,
      link: (w) => base + (w.kind === "node" ? "/node/" : "/call/") + encodeURIComponent(w.id) });
  });
}

// ---- feedback ----

$("#feedback").addEventListener("submit", async (e) => {
  e.preventDefault();
  const t = state.traj;
  const f = new FormData(e.target);
  const out = $("#feedback-status");
  const body = { score: parseFloat(f.get("score")) };
  if (f.get("label")) body.label = String(f.get("label"));
  try {
    const r = await (await api("traces/" + encodeURIComponent(t.id) + "/feedback", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).json();
    out.textContent = `saved: score ${r.reward.score}${r.reward.label ? " (" + r.reward.label + ")" : ""}`;
    t.reward = r.reward;
    const rw = document.querySelector('#summary [data-field="reward"]');
    if (rw) rw.replaceChildren(el("b", {}, "reward"), String(r.reward.score) + (r.reward.label ? " " + r.reward.label : ""));
  } catch (err) {
    out.textContent = "not saved: " + err.message;
  }
});

// ---- live updates ----

function stopLive() {
  if (state.live) { state.live.abort(); state.live = null; }
  clearTimeout(state.reloadTimer);
}

// startLive follows the run's server-sent events (read with fetch, so the
// API key can go in a header) and reloads the run, at most a few times a
// second, while it changes.
async function startLive(id) {
  if (state.live && state.live.id === id) return;
  stopLive();
  const ctrl = new AbortController();
  ctrl.id = id;
  state.live = ctrl;
  const reload = () => {
    clearTimeout(state.reloadTimer);
    state.reloadTimer = setTimeout(() => { if ((state.live === ctrl || !state.live) && state.route && state.route.id === id) loadRun(id); }, 300);
  };
  try {
    const resp = await api("traces/" + encodeURIComponent(id) + "/events", { signal: ctrl.signal });
    // The server subscribes before it answers, so from here on no change is
    // missed; reload once for whatever changed between the run's first load
    // and the subscription.
    reload();
    const reader = resp.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const ev = /^event: (.*)$/m.exec(block);
        if (!ev) continue;
        if (ev[1] === "end") { state.live = null; if (state.route && state.route.id === id) loadRun(id); return; }
        reload();
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") showMessage("Live updates stopped: " + e.message);
  }
  if (state.live === ctrl) { state.live = null; reload(); }
}

// ---- wiring ----

let searchTimer = null;
$("#search").addEventListener("input", (e) => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    const r = state.route;
    if (!r || r.view !== "run") return;
    r.q = e.target.value.trim();
    // Keep the selection or aggregate view; the URL follows without
    // adding a history entry per keystroke.
    history.replaceState(null, "", runHref(r.agg ? "aggregate" : r.sel, r.q));
    applyRoute();
  }, 200);
});
$("#key").value = key();
$("#key").addEventListener("change", (e) => { localStorage.setItem("rlm.key", e.target.value.trim()); state.traj = null; route(); });
$("#refresh").addEventListener("click", () => { state.traj = null; route(); });
$("#more").addEventListener("click", () => showList(true));
$("#compare").addEventListener("click", (e) => { location.hash = "#/compare/" + e.target.dataset.ids.split("/").map(encodeURIComponent).join("/"); });
$("#filters").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(e.target)) if (v) q.set(k, v);
  state.filters = q.toString();
  showList(false);
});
window.addEventListener("hashchange", route);
window.addEventListener("resize", () => { if (state.traj && !$("#run-view").hidden) drawTimeline(); });
route();
