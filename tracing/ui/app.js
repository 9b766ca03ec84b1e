// The rlm trace viewer: plain JS, no dependencies, served from the binary.
// Routes: #/ lists runs, #/runs/ID shows one run's recursion tree.
"use strict";

const API = new URL("../v1/", location.href); // the UI lives at <base>/ui/
const DEPTH_COLORS = ["#2b6cb0", "#2f855a", "#b7791f", "#9f3a9f", "#c05621", "#319795", "#4a5568"];
const SUBCALL_ALPHA = 0.55;
const $ = (sel) => document.querySelector(sel);

const state = { traj: null, selected: null, live: null, reloadTimer: null, cursor: "", filters: "" };

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
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

function svgEl(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
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

function statusBadge(s) { return el("span", { class: "status " + s }, s); }

function total(u) { return u ? (u.total_tokens || (u.prompt_tokens || 0) + (u.completion_tokens || 0)) : 0; }

// ---- list of runs ----

async function showList(append) {
  $("#list-view").hidden = false;
  $("#run-view").hidden = true;
  $("#crumb").textContent = "";
  stopLive();
  const tbody = $("#runs tbody");
  if (!append) { tbody.textContent = ""; state.cursor = ""; }
  const q = new URLSearchParams(state.filters);
  q.set("limit", "50");
  if (append && state.cursor) q.set("cursor", state.cursor);
  try {
    const page = await (await api("traces?" + q)).json();
    showMessage(page.data.length || append ? "" : "No runs recorded yet.");
    for (const s of page.data) {
      tbody.append(el("tr", { "data-id": s.id, onclick: () => { location.hash = "#/runs/" + encodeURIComponent(s.id); } },
        el("td", { class: "mono" }, s.id),
        el("td", {}, new Date(s.started).toLocaleString()),
        el("td", {}, s.model || ""),
        el("td", {}, statusBadge(s.status)),
        el("td", {}, s.stop_reason || ""),
        el("td", {}, String(s.nodes)),
        el("td", {}, String(s.sub_calls)),
        el("td", {}, fmtTok(total(s.usage))),
        el("td", {}, fmtMS(s.duration_ms)),
        el("td", {}, s.reward ? s.reward.score + (s.reward.label ? " (" + s.reward.label + ")" : "") : "")));
    }
    state.cursor = page.next_cursor || "";
    $("#more").hidden = !page.has_more;
  } catch (e) {
    showMessage("Could not list runs: " + e.message + (key() ? "" : " (set the API key above)"));
  }
}

// ---- one run ----

async function showRun(id) {
  $("#list-view").hidden = true;
  $("#run-view").hidden = false;
  $("#crumb").textContent = "/ " + id;
  if (!state.traj || state.traj.id !== id) {
    state.selected = null;
    $("#details").replaceChildren(el("p", { class: "hint" }, "Click a bar to see what that node or sub-call did."));
  }
  try {
    state.traj = await (await api("traces/" + encodeURIComponent(id))).json();
    showMessage("");
  } catch (e) {
    showMessage("Could not load run " + id + ": " + e.message);
    return;
  }
  render();
  if (state.traj.status === "running") startLive(id); else stopLive();
}

function render() {
  const t = state.traj;
  const u = t.used || {};
  const items = [
    ["status", statusBadge(t.status)], ["stop reason", t.stop_reason || "–"], ["model", t.model || "–"],
    ["nodes", String(t.nodes.length)], ["sub-calls", String(u.sub_calls || 0)], ["llm calls", String(u.llm_calls || 0)],
    ["tokens", fmtTok(total(u.usage)) + " (" + fmtTok((u.usage || {}).prompt_tokens) + " in)"],
    ["max depth", String(u.max_depth || 0)], ["duration", fmtMS(t.duration_ms)],
    ["reward", t.reward ? String(t.reward.score) : "–"],
  ];
  $("#summary").replaceChildren(...items.map(([k, v]) => el("div", {}, el("b", {}, k), v)));
  if (t.error) $("#summary").append(el("div", {}, el("b", {}, "error"), el("span", { class: "mono" }, t.error)));
  const legend = [];
  const maxDepth = Math.max(0, ...t.nodes.map((n) => n.depth)) + 1;
  for (let d = 0; d <= maxDepth; d++) {
    const swatch = el("i", {});
    swatch.style.background = DEPTH_COLORS[d % DEPTH_COLORS.length]; // CSSOM: allowed by the CSP, unlike style=""
    legend.push(el("span", {}, swatch, "depth " + d));
  }
  legend.push(el("span", {}, "outlined red: failed · dashed: cancelled · faded: llm_query · ticks: turns"));
  $("#legend").replaceChildren(...legend);
  drawTimeline(t);
  if (state.selected) showDetails(state.selected);
}

// rows lays the tree out top to bottom: each node, then the sub-calls of its
// cells in start order; an rlm_query is drawn as its child node's subtree,
// llm_query calls of a node are packed into lanes so that calls running at
// the same time sit side by side (one above the other).
function rows(t) {
  const byId = new Map(t.nodes.map((n) => [n.id, n]));
  const out = [];
  const visit = (n, seen) => {
    if (seen.has(n.id)) return;
    seen.add(n.id);
    out.push({ kind: "node", node: n, start: n.started, end: n.ended, depth: n.depth, status: n.status });
    const subs = [];
    for (const tu of n.turns) for (const c of tu.cells || []) for (const sc of c.sub_calls || []) subs.push(sc);
    subs.sort((a, b) => Date.parse(a.started) - Date.parse(b.started));
    const lanes = []; // end time of the last call in each lane
    let laneRows = [];
    const flush = () => { out.push(...laneRows.map((r) => r)); laneRows = []; lanes.length = 0; };
    for (const sc of subs) {
      const child = sc.child_id && byId.get(sc.child_id);
      if (child) { flush(); visit(child, seen); continue; }
      const s = Date.parse(sc.started), e = sc.ended ? Date.parse(sc.ended) : Infinity;
      let lane = lanes.findIndex((end) => end <= s);
      if (lane < 0) { lane = lanes.length; lanes.push(e); laneRows.push({ kind: "lane", calls: [], depth: n.depth + 1 }); }
      lanes[lane] = e;
      laneRows[lane].calls.push(sc);
    }
    flush();
  };
  const seen = new Set();
  for (const n of t.nodes) if (!n.parent_id || !byId.has(n.parent_id)) visit(n, seen);
  for (const n of t.nodes) visit(n, seen); // anything unlinked
  return out;
}

function drawTimeline(t) {
  const box = $("#timeline");
  const rs = rows(t);
  const t0 = Date.parse(t.started);
  const now = Date.now();
  let t1 = t.ended ? Date.parse(t.ended) : now;
  for (const n of t.nodes) if (n.ended) t1 = Math.max(t1, Date.parse(n.ended));
  const span = Math.max(t1 - t0, 1);
  const labelW = 150, width = Math.max(box.clientWidth || 900, 700), plotW = width - labelW - 16;
  const nodeH = 22, laneH = 14, gap = 4, top = 22;
  let y = top;
  for (const r of rs) { r.y = y; r.h = r.kind === "node" ? nodeH : laneH; y += r.h + gap; }
  const height = y + 6;
  const x = (ts) => labelW + ((Date.parse(ts) - t0) / span) * plotW;
  const svg = svgEl("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "recursion timeline" });
  for (let i = 0; i <= 5; i++) {
    const gx = labelW + (plotW * i) / 5;
    svg.append(svgEl("line", { x1: gx, x2: gx, y1: 16, y2: height, class: "grid" }));
    const tx = svgEl("text", { x: gx, y: 12, class: "axis", "text-anchor": i === 0 ? "start" : i === 5 ? "end" : "middle" });
    tx.textContent = fmtMS((span * i) / 5);
    svg.append(tx);
  }
  const color = (d) => DEPTH_COLORS[d % DEPTH_COLORS.length];
  const endOf = (o) => (o.ended ? o.ended : new Date(t1).toISOString());
  const bar = (o, cls, dataId, yy, h, d, status, alpha, label) => {
    const x0 = x(o.started), w = Math.max(x(endOf(o)) - x0, 2);
    const r = svgEl("rect", { x: x0, y: yy, width: w, height: h, fill: color(d), "fill-opacity": alpha,
      class: `bar ${cls} ${status}`, "data-id": dataId });
    const title = svgEl("title", {});
    title.textContent = label;
    r.append(title);
    r.addEventListener("click", () => select({ kind: cls === "node" ? "node" : "subcall", id: dataId }));
    if (state.selected && state.selected.id === dataId) r.classList.add("selected");
    svg.append(r);
    return { x0, w };
  };
  for (const r of rs) {
    const lbl = svgEl("text", { x: 6 + Math.min(r.depth, 6) * 10, y: r.y + r.h / 2 + 4, class: "label" });
    if (r.kind === "node") {
      const n = r.node;
      lbl.textContent = "node " + n.id;
      svg.append(lbl);
      const tok = total(n.usage), dur = n.duration_ms || (n.ended ? 0 : now - Date.parse(n.started));
      const text = `${n.id} · ${fmtTok(tok)} tok · ${fmtMS(dur)}${n.stop_reason ? " · " + n.stop_reason : ""}`;
      const { x0, w } = bar(n, "node", n.id, r.y, r.h, n.depth, n.status, 0.92, text);
      for (const tu of n.turns) {
        if (!tu.started) continue;
        const tx = x(tu.started);
        if (tx > x0 + 1 && tx < x0 + w - 1) svg.append(svgEl("line", { x1: tx, x2: tx, y1: r.y + 2, y2: r.y + r.h - 2, class: "tick" }));
      }
      if (w > 60) {
        const bt = svgEl("text", { x: x0 + 5, y: r.y + r.h / 2 + 4, class: "barlabel" });
        bt.textContent = text;
        svg.append(bt);
        clipText(bt, w - 8);
      }
    } else {
      lbl.textContent = r.calls.length > 1 ? `llm × ${r.calls.length}` : "llm_query";
      svg.append(lbl);
      for (const sc of r.calls) {
        bar(sc, "subcall", sc.id, r.y, r.h, r.depth, sc.status, SUBCALL_ALPHA,
          `${sc.kind}_query ${sc.id} · ${fmtTok(total(sc.usage))} tok · ${fmtMS(sc.duration_ms)}\n${(sc.prompt || "").slice(0, 200)}`);
      }
    }
  }
  box.replaceChildren(svg);
}

function clipText(node, maxW) {
  // Shorten a bar label until it fits inside its bar.
  let s = node.textContent;
  while (s.length > 3 && node.getComputedTextLength && node.getComputedTextLength() > maxW) {
    s = s.slice(0, -2);
    node.textContent = s + "…";
  }
}

function select(sel) {
  state.selected = sel;
  for (const r of document.querySelectorAll("#timeline rect.bar.selected")) r.classList.remove("selected");
  const r = document.querySelector(`#timeline rect.bar[data-id="${CSS.escape(sel.id)}"]`);
  if (r) r.classList.add("selected");
  showDetails(sel);
}

function findSubCall(t, id) {
  for (const n of t.nodes) for (const tu of n.turns) for (const c of tu.cells || []) for (const sc of c.sub_calls || []) {
    if (sc.id === id) return { sc, node: n };
  }
  return null;
}

function pre(text, cls) { return el("pre", { class: cls || "" }, text == null ? "" : String(text)); }

function messageView(m) {
  return el("div", { class: "msg" }, el("span", { class: "role" }, m.role), pre(m.content));
}

function subCallView(sc) {
  const child = sc.child_id ? el("a", { class: "node-link", onclick: () => select({ kind: "node", id: sc.child_id }) }, " → node " + sc.child_id) : null;
  return el("div", { class: "subcall", "data-subcall": sc.id },
    el("div", {}, el("b", {}, `${sc.kind}_query ${sc.id}`), child,
      el("span", { class: "meta" }, `${statusBadge(sc.status).textContent} · ${fmtTok(total(sc.usage))} tok · ${fmtMS(sc.duration_ms)}${sc.model ? " · " + sc.model : ""}`)),
    el("div", { class: "msg" }, el("span", { class: "role" }, "prompt"), pre(sc.prompt)),
    el("div", { class: "msg" }, el("span", { class: "role" }, "answer"), pre(sc.response)),
    sc.error ? pre(sc.error, "error") : null);
}

function showDetails(sel) {
  const t = state.traj;
  const box = $("#details");
  if (sel.kind === "subcall") {
    const f = findSubCall(t, sel.id);
    if (!f) return;
    box.replaceChildren(el("h2", {}, `Sub-call ${f.sc.id}`),
      el("p", {}, `made by node ${f.node.id}, turn ${f.sc.turn}, cell ${f.sc.cell}`), subCallView(f.sc));
    return;
  }
  const n = t.nodes.find((x) => x.id === sel.id);
  if (!n) return;
  const parts = [
    el("h2", {}, `Node ${n.id}`, el("span", { class: "meta" }, `depth ${n.depth}`), " ", statusBadge(n.status)),
    el("p", {}, `${n.turns.length} turn(s) · ${fmtTok(total(n.usage))} tokens own, ${fmtTok(total(n.tree_usage))} with children · ${fmtMS(n.duration_ms)}` +
      (n.stop_reason ? ` · stopped: ${n.stop_reason}` : "")),
  ];
  // The prompt is stored once, on the sub-call that started the node
  // (version 1 records also kept a copy on the node).
  const from = n.sub_call_id && findSubCall(t, n.sub_call_id);
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
      const sent = n.transcript.slice(0, c.prefix).concat(c.extra || []);
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
      const subs = (c.sub_calls || []).slice().sort((a, b) => Date.parse(a.started) - Date.parse(b.started) || a.id.localeCompare(b.id));
      for (const sc of subs) cell.append(subCallView(sc));
      d.append(cell);
    }
    parts.push(d);
  }
  box.replaceChildren(...parts);
}

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
    state.reloadTimer = setTimeout(() => { if (state.live === ctrl || !state.live) showRun(id); }, 300);
  };
  try {
    const resp = await api("traces/" + encodeURIComponent(id) + "/events", { signal: ctrl.signal });
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
        if (ev[1] === "end") { state.live = null; showRun(id); return; }
        reload();
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") showMessage("Live updates stopped: " + e.message);
  }
  if (state.live === ctrl) { state.live = null; reload(); }
}

// ---- wiring ----

function route() {
  if (document.activeElement !== $("#key")) $("#key").value = key();
  const m = /^#\/runs\/(.+)$/.exec(location.hash);
  if (m) showRun(decodeURIComponent(m[1])); else showList(false);
}

$("#key").value = key();
$("#key").addEventListener("change", (e) => { localStorage.setItem("rlm.key", e.target.value.trim()); route(); });
$("#refresh").addEventListener("click", route);
$("#more").addEventListener("click", () => showList(true));
$("#filters").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(e.target)) if (v) q.set(k, v);
  state.filters = q.toString();
  showList(false);
});
window.addEventListener("hashchange", route);
window.addEventListener("resize", () => { if (state.traj && !$("#run-view").hidden) drawTimeline(state.traj); });
route();
