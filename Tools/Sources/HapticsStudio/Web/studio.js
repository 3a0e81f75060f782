// haptic studio: the page. The server is the contract in docs/studio.md; this file draws the
// pattern, edits its AHAP JSON locally (so drags redraw at once), and asks the server to analyse
// each edit (lint, effective curves), to save, to play through the engine and to render WAV.
"use strict";

const $ = (id) => document.getElementById(id);
const LEFT = 44; // pixels for the lane labels
const LANES = { intensity: [10, 130], sharpness: [142, 226], waveform: [238, 292], curves: [304, 346], axis: [350, 380] };
const MULTIPLICATIVE = new Set(["HapticIntensityControl", "AudioVolumeControl"]);
const DEFAULTS = { HapticIntensity: 1, HapticSharpness: 0.5, AudioVolume: 0.75 };

const state = {
  files: [], path: null, view: null, ahap: null, base: null, dirty: false,
  undo: [], redo: [], selection: null, hover: null,
  viewport: { start: 0, spp: 0.01 }, range: null,
  compare: null, diff: null, which: "a",
  playhead: null, audio: null, drag: null,
  analysis: { inflight: false, pending: false, seq: 0, since: null },
};
const metrics = { ready: null, edits: [], draws: 0, analyses: 0 };
window.studio = { state, metrics };

// ---------------------------------------------------------------- server

// The credential (docs/studio.md, "Security"): the printed address carries the token in its
// fragment (#token=T[&open=PATH]), which the browser never sends to a server. It is kept in this
// origin's sessionStorage (its own per port, so two studios never share one) and sent as a header;
// no cookie, which a browser would send to every other server on 127.0.0.1.
const launch = (() => {
  const hash = location.hash.slice(1);
  if (!hash.startsWith("token=")) return { open: decodeURIComponent(hash) };
  const [params, extra] = hash.split(/#(.*)/s);
  const query = new URLSearchParams(params);
  if (query.get("token")) sessionStorage.setItem("haptic-studio-token", query.get("token"));
  const open = query.get("open") || (extra ? decodeURIComponent(extra) : "");
  history.replaceState(null, "", location.pathname + (open ? "#" + encodeURIComponent(open) : ""));
  return { open };
})();
const token = sessionStorage.getItem("haptic-studio-token") || "";

async function api(method, url, body, raw) {
  const init = { method, credentials: "omit", headers: { "X-Studio-Token": token } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(url, init);
  if (raw && response.ok) return response.arrayBuffer();
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = { error: text }; }
  if (!response.ok) {
    const error = new Error((json && json.error) || `${response.status}`);
    error.status = response.status;
    error.body = json;
    throw error;
  }
  return json;
}

function status(text) { $("status").textContent = text; }

function banner(text, a, b, isError) {
  const el = $("banner");
  if (!text) { el.hidden = true; return; }
  $("banner-text").textContent = text;
  for (const [button, action] of [[$("banner-a"), a], [$("banner-b"), b]]) {
    button.hidden = !action;
    if (action) { button.textContent = action[0]; button.onclick = () => { banner(null); action[1](); }; }
  }
  el.classList.toggle("error", !!isError);
  el.hidden = false;
}

// ---------------------------------------------------------------- files

async function loadFiles() {
  const list = await api("GET", "/api/files");
  state.files = list.files;
  renderFileList();
  const compare = $("compare");
  while (compare.options.length > 2) compare.remove(2);
  for (const file of list.files) compare.add(new Option(file.path, "file:" + file.path));
  return list;
}

function renderFileList() {
  const filter = $("filter").value.toLowerCase();
  const ul = $("file-list");
  ul.replaceChildren();
  for (const file of state.files) {
    if (filter && !file.path.toLowerCase().includes(filter)) continue;
    const li = document.createElement("li");
    // The folder gives way first (an ellipsis), so the file's own name always shows.
    const cut = file.path.lastIndexOf("/") + 1;
    const folder = document.createElement("span");
    folder.className = "folder";
    folder.textContent = file.path.slice(0, cut);
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = file.path.slice(cut);
    li.append(folder, name);
    li.title = `${file.path} (${file.format}, ${file.bytes} bytes)`;
    li.dataset.path = file.path;
    if (file.path === state.path) li.classList.add("current");
    li.onclick = () => openFile(file.path);
    ul.append(li);
  }
}

async function openFile(path, keepViewport) {
  if (state.dirty && path !== state.path && !window.confirm(`Discard unsaved changes to ${state.path}?`)) return;
  const view = await api("GET", "/api/pattern?path=" + encodeURIComponent(path));
  const samePath = path === state.path;
  state.path = path;
  state.base = view.version;
  state.ahap = view.ahap;
  state.undo = []; state.redo = [];
  state.selection = null;
  setDirty(false);
  applyView(view);
  if (!samePath || !keepViewport) fit();
  history.replaceState(null, "", "#" + encodeURIComponent(path));
  $("file-name").textContent = path;
  renderFileList();
  if (state.compare) await loadCompare($("compare").value);
  draw();
  if (metrics.ready === null) {
    metrics.ready = performance.now();
    document.body.dataset.ready = "1";
  }
  status(summary());
}

function applyView(view) {
  state.view = view;
  renderFindings();
  renderMetadata();
  updateButtons();
}

function setDirty(dirty) {
  state.dirty = dirty;
  $("dirty").hidden = !dirty;
  updateButtons();
}

function updateButtons() {
  $("undo").disabled = state.undo.length === 0;
  $("redo").disabled = state.redo.length === 0;
  $("save").disabled = !state.dirty || !state.ahap || state.view?.format === "vij";
  $("delete").disabled = !state.selection;
}

// ---------------------------------------------------------------- the model, from the AHAP JSON

function parameterValue(list, id) {
  let value = DEFAULTS[id] ?? 0;
  for (const p of list || []) if (p.ParameterID === id) value = p.ParameterValue;
  return value;
}

function model(ahap) {
  const events = [], curves = [], parameters = [];
  ((ahap && ahap.Pattern) || []).forEach((element, index) => {
    if (element.Event) {
      const e = element.Event;
      const haptic = e.EventType === "HapticTransient" || e.EventType === "HapticContinuous";
      const continuous = e.EventType === "HapticContinuous" || e.EventType === "AudioContinuous";
      events.push({
        index, type: e.EventType, time: +e.Time || 0, continuous,
        duration: continuous ? +e.EventDuration || 0 : 0, haptic,
        intensity: parameterValue(e.EventParameters, haptic ? "HapticIntensity" : "AudioVolume"),
        sharpness: parameterValue(e.EventParameters, "HapticSharpness"),
      });
    } else if (element.ParameterCurve) {
      const c = element.ParameterCurve;
      const t0 = +c.Time || 0;
      curves.push({
        index, id: c.ParameterID, time: t0,
        points: (c.ParameterCurveControlPoints || []).map((p, i) => ({ i, time: t0 + (+p.Time || 0), value: +p.ParameterValue || 0 })),
      });
    } else if (element.Parameter) {
      const p = element.Parameter;
      parameters.push({ index, id: p.ParameterID, time: +p.Time || 0, value: +p.ParameterValue || 0 });
    }
  });
  return { events, curves, parameters };
}

function duration() {
  const m = model(state.ahap);
  let end = 0;
  for (const e of m.events) end = Math.max(end, e.time + e.duration);
  for (const c of m.curves) for (const p of c.points) end = Math.max(end, p.time);
  for (const p of m.parameters) end = Math.max(end, p.time);
  return Math.max(end, state.view?.duration || 0);
}

// ---------------------------------------------------------------- editing

const clone = (value) => JSON.parse(JSON.stringify(value));
const round = (value, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;
const clamp = (value, lo, hi) => Math.min(hi, Math.max(lo, value));

function remember() {
  state.undo.push(JSON.stringify(state.ahap));
  if (state.undo.length > 500) state.undo.shift();
  state.redo = [];
}

function edit(change, rememberIt = true) {
  if (!state.ahap) return;
  if (rememberIt) remember();
  const next = clone(state.ahap);
  change(next);
  state.ahap = next;
  setDirty(true);
  draw();
  analyze();
}

function setEventParameter(event, id, value) {
  event.EventParameters = event.EventParameters || [];
  const existing = event.EventParameters.find((p) => p.ParameterID === id);
  if (existing) existing.ParameterValue = value;
  else event.EventParameters.push({ ParameterID: id, ParameterValue: value });
}

// Undo and redo: the current pattern goes on one stack, the other stack's top comes back.
function travel(from, to) {
  if (!from.length) return;
  to.push(JSON.stringify(state.ahap));
  state.ahap = JSON.parse(from.pop());
  state.selection = null;
  setDirty(true);
  draw();
  analyze();
}

function undo() { travel(state.undo, state.redo); }
function redo() { travel(state.redo, state.undo); }

function addEvent(type, time) {
  edit((ahap) => {
    ahap.Pattern = ahap.Pattern || [];
    const event = { Time: round(Math.max(0, time)), EventType: type, EventParameters: [
      { ParameterID: "HapticIntensity", ParameterValue: 0.8 }, { ParameterID: "HapticSharpness", ParameterValue: 0.5 }] };
    if (type === "HapticContinuous") event.EventDuration = 0.2;
    ahap.Pattern.push({ Event: event });
    state.selection = { kind: "event", index: ahap.Pattern.length - 1 };
  });
}

function deleteSelection() {
  const sel = state.selection;
  if (!sel) return;
  edit((ahap) => {
    if (sel.kind === "event") ahap.Pattern.splice(sel.index, 1);
    else if (sel.kind === "point") {
      const points = ahap.Pattern[sel.index].ParameterCurve.ParameterCurveControlPoints;
      points.splice(sel.point, 1);
      if (points.length === 0) ahap.Pattern.splice(sel.index, 1);
    }
  });
  state.selection = null;
  renderInspector();
  updateButtons();
}

// Each edit is analysed by the server; while one request is out, later edits wait and only the
// newest is sent, so a drag never queues a backlog.
function analyze() {
  const a = state.analysis;
  if (a.since === null) a.since = performance.now();
  if (a.inflight) { a.pending = true; return; }
  runAnalysis();
}

async function runAnalysis() {
  const a = state.analysis;
  a.inflight = true;
  const started = a.since;
  a.since = null;
  const sent = state.ahap;
  const path = state.path;
  try {
    const view = await api("POST", "/api/analyze", { path, ahap: sent });
    if (path === state.path) {
      applyView(view);
      if (state.compare) await refreshDiff();
      draw();
      metrics.analyses += 1;
      metrics.edits.push(performance.now() - started);
      document.body.dataset.analyses = String(metrics.analyses);
      status(summary());
    }
  } catch (error) {
    status("analysis failed: " + error.message);
  } finally {
    a.inflight = false;
    if (a.pending) { a.pending = false; a.since = a.since ?? started; runAnalysis(); }
  }
}

async function save(overwrite) {
  if (!state.ahap || !state.path) return;
  try {
    const result = await api("PUT", "/api/pattern?path=" + encodeURIComponent(state.path), { ahap: state.ahap, baseVersion: state.base });
    state.base = result.version;
    setDirty(false);
    const losses = result.losses && result.losses.length ? ` (as .haptic: ${result.losses.join("; ")})` : "";
    status(`saved ${state.path}${losses}`);
    document.body.dataset.saved = result.version;
  } catch (error) {
    if (error.status === 409) {
      const theirs = error.body.version;
      banner(`${state.path} changed on disk since you opened it (another tab or an editor saved it). Your edit is not saved.`,
        ["Overwrite with mine", () => { state.base = theirs; save(true); }],
        ["Load theirs (drop mine)", () => openFile(state.path)], true);
      document.body.dataset.conflict = "1";
    } else {
      banner("Save failed: " + error.message, null, null, true);
    }
  }
}

// ---------------------------------------------------------------- panels

function renderFindings() {
  const ul = $("findings");
  ul.replaceChildren();
  const findings = state.view?.diagnostics || [];
  $("finding-count").textContent = findings.length ? `(${findings.length})` : "— none";
  for (const f of findings) {
    const li = document.createElement("li");
    li.className = f.severity;
    const sev = document.createElement("span");
    sev.className = "severity";
    sev.textContent = f.severity;
    const code = document.createElement("span");
    code.className = "code";
    code.textContent = `[${f.code}] `;
    const place = document.createElement("span");
    place.className = "place";
    place.textContent = f.jsonPath + (f.line ? ` (line ${f.line}, column ${f.column})` : "") + (f.time !== undefined ? ` at ${f.time.toFixed(3)} s` : "");
    li.append(sev, code, document.createTextNode(f.message), place);
    li.dataset.code = f.code;
    li.onclick = () => {
      if (f.element !== undefined && state.ahap?.Pattern?.[f.element]) {
        const el = state.ahap.Pattern[f.element];
        state.selection = el.ParameterCurve ? { kind: "point", index: f.element, point: 0 } : { kind: "event", index: f.element };
        if (f.time !== undefined) centerOn(f.time);
        renderInspector();
        draw();
        $("timeline").classList.remove("flash");
        void $("timeline").offsetWidth;
        $("timeline").classList.add("flash");
      }
    };
    ul.append(li);
  }
}

function renderMetadata() {
  const dl = $("metadata");
  dl.replaceChildren();
  const meta = state.view?.metadata || {};
  for (const [key, value] of Object.entries(meta)) {
    const dt = document.createElement("dt");
    dt.textContent = key;
    const dd = document.createElement("dd");
    dd.textContent = typeof value === "string" ? value : JSON.stringify(value);
    dl.append(dt, dd);
  }
  const m = model(state.ahap);
  const transients = m.events.filter((e) => e.type === "HapticTransient").length;
  $("stats").textContent = `${m.events.length} events (${transients} transient, ${m.events.length - transients} other), `
    + `${m.curves.length} curves, ${m.parameters.length} parameters; ${(state.view?.duration || 0).toFixed(3)} s; `
    + `format ${state.view?.format || "?"}`;
}

function renderInspector() {
  const sel = state.selection;
  $("inspector-empty").hidden = !!sel;
  $("inspector-fields").hidden = !sel;
  updateButtons();
  if (!sel || !state.ahap) return;
  const element = state.ahap.Pattern[sel.index];
  if (!element) { state.selection = null; return renderInspector(); }
  const show = (id, visible) => { $(id).hidden = !visible; };
  if (sel.kind === "event") {
    const e = element.Event;
    const haptic = e.EventType.startsWith("Haptic");
    $("inspector-kind").textContent = `${e.EventType} #${sel.index}`;
    $("f-time").value = e.Time;
    show("f-duration-label", e.EventType.endsWith("Continuous"));
    $("f-duration").value = e.EventDuration ?? 0;
    show("f-intensity-label", true);
    $("f-intensity").value = parameterValue(e.EventParameters, haptic ? "HapticIntensity" : "AudioVolume");
    show("f-sharpness-label", haptic);
    $("f-sharpness").value = parameterValue(e.EventParameters, "HapticSharpness");
    show("f-value-label", false);
  } else {
    const c = element.ParameterCurve;
    const p = c.ParameterCurveControlPoints[sel.point];
    $("inspector-kind").textContent = `${c.ParameterID} point ${sel.point + 1} of ${c.ParameterCurveControlPoints.length}`;
    $("f-time").value = round((+c.Time || 0) + p.Time, 6);
    show("f-duration-label", false);
    show("f-intensity-label", false);
    show("f-sharpness-label", false);
    show("f-value-label", true);
    $("f-value").value = p.ParameterValue;
  }
}

function inspectorChanged(field) {
  const sel = state.selection;
  if (!sel) return;
  const value = parseFloat($(field).value);
  if (!Number.isFinite(value)) return;
  edit((ahap) => {
    const element = ahap.Pattern[sel.index];
    if (sel.kind === "event") {
      const e = element.Event;
      const haptic = e.EventType.startsWith("Haptic");
      if (field === "f-time") e.Time = round(Math.max(0, value));
      if (field === "f-duration") e.EventDuration = round(Math.max(0, value));
      if (field === "f-intensity") setEventParameter(e, haptic ? "HapticIntensity" : "AudioVolume", round(clamp(value, 0, 1)));
      if (field === "f-sharpness") setEventParameter(e, "HapticSharpness", round(clamp(value, 0, 1)));
    } else {
      const c = element.ParameterCurve;
      const p = c.ParameterCurveControlPoints[sel.point];
      if (field === "f-time") p.Time = round(Math.max(0, value - (+c.Time || 0)));
      if (field === "f-value") p.ParameterValue = round(clamp(value, MULTIPLICATIVE.has(c.ParameterID) ? 0 : -1, 1));
    }
  });
}

// ---------------------------------------------------------------- compare

async function loadCompare(choice) {
  state.compare = null;
  state.diff = null;
  $("diff-panel").hidden = true;
  $("play-which-label").hidden = true;
  if (!choice || !state.path) { state.which = "a"; draw(); return; }
  try {
    const view = choice === "git"
      ? await api("GET", "/api/git?path=" + encodeURIComponent(state.path))
      : await api("GET", "/api/pattern?path=" + encodeURIComponent(choice.slice(5)));
    state.compare = { label: choice === "git" ? "last commit" : choice.slice(5), view };
    $("play-which-label").hidden = false;
    await refreshDiff();
  } catch (error) {
    banner(`Cannot compare: ${error.message}`, null, null, true);
    $("compare").value = "";
  }
  draw();
}

async function refreshDiff() {
  if (!state.compare || !state.compare.view.ahap || !state.ahap) return;
  // B is the compared pattern, A this one: the diff reads "from B to A".
  state.diff = await api("POST", "/api/diff", { a: state.compare.view.ahap, b: state.ahap });
  const ul = $("diff");
  ul.replaceChildren();
  $("diff-summary").textContent = state.diff.identical ? `— identical to ${state.compare.label}`
    : `— ${state.diff.changes.length} against ${state.compare.label}`;
  for (const change of state.diff.changes) {
    const li = document.createElement("li");
    li.textContent = change.line;
    li.dataset.kind = change.kind;
    li.onclick = () => { centerOn(change.time); draw(); };
    ul.append(li);
  }
  $("diff-panel").hidden = false;
}

// ---------------------------------------------------------------- playback

function playSource() {
  return state.which === "b" && state.compare ? state.compare.view.ahap : state.ahap;
}

function playOptions() {
  const options = { voice: $("voice").value, rate: parseFloat($("rate").value), from: 0, loop: false };
  if (state.range) {
    options.from = round(state.range[0], 6);
    options.to = round(state.range[1], 6);
    options.loop = $("loop").checked;
  } else if ($("loop").checked) {
    options.loop = true;
  }
  return options;
}

async function playEngine(fromTime) {
  stopBrowser();
  const options = playOptions();
  if (fromTime !== undefined) options.from = fromTime;
  try {
    const result = await api("POST", "/api/play", { path: state.path, ahap: playSource(), ...options });
    const source = playSource() === state.ahap ? state.view : state.compare.view;
    state.playhead = { mode: "engine", id: result.id, time: options.from, at: performance.now(), rate: options.rate,
      from: options.from, to: options.to, end: options.to ?? source?.duration ?? Infinity, loop: options.loop,
      playing: true, messages: 0 };
    status(`playing through the engine${options.loop ? " (looping)" : ""}`);
    animate();
  } catch (error) {
    banner(`${error.message}. Use ▶ Browser to hear it here.`, ["Play in the browser", () => playBrowser()], null, true);
  }
}

async function playBrowser(fromTime) {
  await api("POST", "/api/stop", {}).catch(() => {});
  stopBrowser();
  const options = playOptions();
  if (fromTime !== undefined) options.from = fromTime;
  const bytes = await api("POST", "/api/render", { path: state.path, ahap: playSource(), voice: options.voice, rate: options.rate }, true);
  const context = state.audioContext || (state.audioContext = new AudioContext());
  const buffer = await context.decodeAudioData(bytes);
  const source = context.createBufferSource();
  source.buffer = buffer;
  source.connect(context.destination);
  const startAudio = options.from / options.rate;
  const end = options.to !== undefined ? options.to / options.rate : buffer.duration;
  if (options.loop) {
    source.loop = true;
    source.loopStart = startAudio;
    source.loopEnd = end;
  }
  const at = context.currentTime + 0.02;
  if (options.loop) source.start(at, startAudio); else source.start(at, startAudio, Math.max(0, end - startAudio));
  source.onended = () => { if (state.audio === source) { state.audio = null; if (state.playhead) state.playhead.playing = false; draw(); } };
  state.audio = source;
  state.playhead = { mode: "browser", at, context, rate: options.rate, from: options.from, to: options.to ?? buffer.duration * options.rate,
    loop: options.loop, playing: true };
  status("playing in the browser");
  animate();
}

function stopBrowser() {
  if (state.audio) { try { state.audio.stop(); } catch (e) { /* already stopped */ } state.audio = null; }
}

async function stopAll() {
  stopBrowser();
  if (state.playhead) state.playhead.playing = false;
  await api("POST", "/api/stop", {}).catch(() => {});
  draw();
}

function playheadTime() {
  const p = state.playhead;
  if (!p) return null;
  if (p.mode === "browser") {
    let t = p.from + Math.max(0, p.context.currentTime - p.at) * p.rate;
    if (p.loop && t >= p.to) t = p.from + ((t - p.to) % Math.max(1e-6, p.to - p.from));
    return Math.min(t, p.to);
  }
  if (!p.playing) return p.time;
  // Between the engine's messages (about every 16 ms) the head follows the engine's clock.
  let t = p.startEngine === undefined ? p.from
    : p.from + (performance.now() / 1000 - p.offset - p.startEngine) * p.rate;
  if (p.loop && p.to !== undefined && t >= p.to) t = p.from + ((t - p.to) % Math.max(1e-6, p.to - p.from));
  return Math.max(p.from, p.loop ? t : Math.min(t, p.end));
}

function animate() {
  if (state.animating) return;
  state.animating = true;
  const step = () => {
    draw();
    if (state.playhead && state.playhead.playing) requestAnimationFrame(step);
    else { state.animating = false; draw(); }
  };
  requestAnimationFrame(step);
}

function connectSocket() {
  const socket = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  socket.onopen = () => { document.body.dataset.socket = "open"; status(state.path ? summary() : "connected"); };
  socket.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "playhead") {
      const p = state.playhead;
      if (p && p.mode === "engine" && p.id === data.id) {
        // The engine clock, mapped to this page's: the smallest (arrival - engineTime) seen is the
        // offset with the least delay in it, so a message held up in a busy page does not pull
        // the head back.
        const offset = performance.now() / 1000 - data.engineTime;
        p.offset = p.offset === undefined ? offset : Math.min(p.offset, offset);
        p.startEngine = data.engineTime - (data.time - p.from) / p.rate;
        p.time = data.time;
        p.at = performance.now();
        p.playing = data.playing;
        p.messages += 1;
        p.engineTime = data.engineTime;
        if (!data.playing) { status("played to the end"); draw(); }
      }
    } else if (data.type === "changed" && data.path === state.path) {
      if (data.version === state.base) return; // our own save
      if (!state.dirty) {
        openFile(state.path, true).then(() => status(`reloaded: ${state.path} changed on disk`));
      } else {
        banner(`${state.path} changed on disk, and you have unsaved edits.`,
          ["Load theirs (drop mine)", () => openFile(state.path, true)], ["Keep mine", () => {}]);
      }
      document.body.dataset.changed = data.version;
    }
  };
  socket.onclose = () => { document.body.dataset.socket = "closed"; status("disconnected from the studio; retrying…"); setTimeout(connectSocket, 1000); };
}

// ---------------------------------------------------------------- drawing

const canvas = $("timeline");
const ctx2d = canvas.getContext("2d");

function width() { return canvas.clientWidth - LEFT - 8; }
function x(t) { return LEFT + (t - state.viewport.start) / state.viewport.spp; }
function timeAt(px) { return state.viewport.start + (px - LEFT) * state.viewport.spp; }
function laneY(lane, value, lo = 0, hi = 1) { const [top, bottom] = LANES[lane]; return bottom - (value - lo) / (hi - lo) * (bottom - top); }
function laneValue(lane, y, lo = 0, hi = 1) { const [top, bottom] = LANES[lane]; return lo + (bottom - y) / (bottom - top) * (hi - lo); }
function laneAt(y) { for (const [name, [top, bottom]] of Object.entries(LANES)) if (y >= top - 6 && y <= bottom + 6) return name; return null; }
function curveRange(id) { return MULTIPLICATIVE.has(id) ? [0, 1] : [-1, 1]; }

function fit() {
  const d = Math.max(duration(), 0.05);
  state.viewport.start = -d * 0.02;
  state.viewport.spp = (d * 1.06) / Math.max(100, width());
}

function zoom(factor, around) {
  const t = around ?? timeAt(LEFT + width() / 2);
  const px = x(t);
  state.viewport.spp = clamp(state.viewport.spp * factor, 1e-5, 10);
  state.viewport.start = t - (px - LEFT) * state.viewport.spp;
  draw();
}

function centerOn(t) { state.viewport.start = t - (width() / 2) * state.viewport.spp; }

function niceStep(seconds) {
  const raw = seconds / 8;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function draw() {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const g = ctx2d;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  const css = getComputedStyle(document.documentElement);
  const color = (name) => css.getPropertyValue(name).trim();
  const t0 = timeAt(LEFT), t1 = timeAt(w);

  // Lanes and the time axis.
  g.font = "11px system-ui, sans-serif";
  g.fillStyle = color("--muted");
  g.strokeStyle = "#262a33";
  g.lineWidth = 1;
  for (const [name, [top, bottom]] of Object.entries(LANES)) {
    if (name === "axis") continue;
    g.strokeRect(LEFT + 0.5, top + 0.5, w - LEFT - 8, bottom - top);
    g.fillText(name, 4, top + 12);
  }
  const step = niceStep(t1 - t0);
  g.textAlign = "center";
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const px = Math.round(x(t)) + 0.5;
    g.beginPath(); g.moveTo(px, LANES.intensity[0]); g.lineTo(px, LANES.curves[1]); g.stroke();
    g.fillText(`${round(t, 4)} s`, px, LANES.axis[0] + 14);
  }
  g.textAlign = "left";

  // The selected range.
  if (state.range) {
    g.fillStyle = "rgba(255,255,255,0.07)";
    g.fillRect(x(state.range[0]), LANES.intensity[0], x(state.range[1]) - x(state.range[0]), LANES.curves[1] - LANES.intensity[0]);
  }

  // Differences against the compared pattern.
  if (state.diff) {
    for (const change of state.diff.changes) {
      g.fillStyle = change.kind === "added" ? "rgba(90,200,120,0.16)" : change.kind === "removed" ? "rgba(255,80,80,0.16)" : "rgba(255,200,80,0.14)";
      const a = x(change.start), b = Math.max(x(change.end), a + 3);
      g.fillRect(a, LANES.intensity[0], b - a, LANES.sharpness[1] - LANES.intensity[0]);
    }
  }

  // Effective intensity (filled) and sharpness, after curves and dynamic parameters.
  const eff = state.view?.effective;
  if (eff && eff.times.length) {
    drawSeries(eff.times, eff.intensity, "intensity", color("--intensity"), true, t0, t1);
    drawSeries(eff.times, eff.sharpness, "sharpness", color("--sharpness"), true, t0, t1);
  }
  const other = state.compare?.view?.effective;
  if (other && other.times.length) {
    g.setLineDash([5, 4]);
    drawSeries(other.times, other.intensity, "intensity", "#cfe6ff", false, t0, t1);
    drawSeries(other.times, other.sharpness, "sharpness", "#ffe0b8", false, t0, t1);
    g.setLineDash([]);
  }

  // The rendered waveform (each edit is rendered again by the server), min and max per column.
  const wave = state.view?.waveform;
  if (wave && wave.min.length) {
    const [top, bottom] = LANES.waveform;
    const mid = (top + bottom) / 2, half = (bottom - top) / 2;
    const perColumn = wave.seconds / wave.min.length;
    g.strokeStyle = "#7fd1a0";
    g.lineWidth = 1;
    g.beginPath();
    const first = Math.max(0, Math.floor(t0 / perColumn)), last = Math.min(wave.min.length - 1, Math.ceil(t1 / perColumn));
    for (let i = first; i <= last; i += 1) {
      const px = Math.round(x(i * perColumn)) + 0.5;
      g.moveTo(px, mid - clamp(wave.max[i], -1, 1) * half);
      g.lineTo(px, mid - clamp(wave.min[i], -1, 1) * half + 0.5);
    }
    g.stroke();
    if (wave.truncated) { g.fillStyle = color("--muted"); g.fillText(`waveform: first ${wave.seconds} s`, LEFT + 6, top + 12); }
  }

  // Events from the local AHAP (so an edit shows before the server has answered).
  const m = model(state.ahap);
  let drawn = 0;
  for (const e of m.events) {
    const end = e.time + e.duration;
    if (end < t0 || e.time > t1) continue;
    drawn += 1;
    const selected = state.selection?.kind === "event" && state.selection.index === e.index;
    const stroke = selected ? color("--select") : e.haptic ? "#8fc4ff" : "#9fe0b0";
    g.strokeStyle = stroke;
    g.fillStyle = stroke;
    g.lineWidth = selected ? 2 : 1;
    if (e.continuous) {
      const a = x(e.time), b = Math.max(x(end), a + 2);
      const yi = laneY("intensity", e.intensity), ys = laneY("sharpness", e.sharpness);
      g.strokeRect(a, yi, b - a, LANES.intensity[1] - yi);
      g.beginPath(); g.moveTo(a, ys); g.lineTo(b, ys); g.stroke();
      g.fillRect(b - 2, yi, 3, LANES.intensity[1] - yi > 8 ? 8 : LANES.intensity[1] - yi);
    } else {
      const px = x(e.time);
      const yi = laneY("intensity", e.intensity), ys = laneY("sharpness", e.sharpness);
      g.beginPath(); g.moveTo(px, LANES.intensity[1]); g.lineTo(px, yi); g.stroke();
      g.beginPath(); g.arc(px, yi, selected ? 5 : 3.5, 0, 2 * Math.PI); g.fill();
      g.beginPath(); g.arc(px, ys, selected ? 4 : 2.5, 0, 2 * Math.PI); g.fill();
    }
  }

  // Parameter curves and dynamic parameters.
  for (const c of m.curves) {
    const [lo, hi] = curveRange(c.id);
    g.strokeStyle = color("--curve");
    g.fillStyle = color("--curve");
    g.lineWidth = 1;
    g.beginPath();
    c.points.forEach((p, i) => { const px = x(p.time), py = laneY("curves", p.value, lo, hi); if (i) g.lineTo(px, py); else g.moveTo(px, py); });
    g.stroke();
    for (const p of c.points) {
      const selected = state.selection?.kind === "point" && state.selection.index === c.index && state.selection.point === p.i;
      g.fillStyle = selected ? color("--select") : color("--curve");
      g.fillRect(x(p.time) - (selected ? 4 : 3), laneY("curves", p.value, lo, hi) - (selected ? 4 : 3), selected ? 8 : 6, selected ? 8 : 6);
    }
    if (c.points.length) { g.fillStyle = color("--muted"); g.fillText(c.id.replace("Control", ""), x(c.points[0].time) + 4, LANES.curves[0] + 10); }
  }
  for (const p of m.parameters) {
    g.strokeStyle = color("--curve");
    g.setLineDash([2, 3]);
    g.beginPath(); g.moveTo(x(p.time), LANES.curves[0]); g.lineTo(x(p.time), LANES.curves[1]); g.stroke();
    g.setLineDash([]);
  }

  // Findings, as marks on the top edge at their element's time.
  for (const f of state.view?.diagnostics || []) {
    if (f.time === undefined) continue;
    g.fillStyle = f.severity === "error" ? color("--error") : f.severity === "warning" ? color("--warning") : color("--note");
    const px = x(f.time);
    g.beginPath(); g.moveTo(px - 5, 0); g.lineTo(px + 5, 0); g.lineTo(px, 8); g.fill();
  }

  // The playhead.
  const head = playheadTime();
  if (head !== null && state.playhead) {
    g.strokeStyle = color("--playhead");
    g.lineWidth = 2;
    const px = x(head);
    g.beginPath(); g.moveTo(px, 0); g.lineTo(px, LANES.curves[1]); g.stroke();
    canvas.dataset.playhead = head.toFixed(4);
  }

  metrics.draws += 1;
  canvas.dataset.draws = String(metrics.draws);
  canvas.dataset.eventsDrawn = String(drawn);
  updateReadout();
}

function drawSeries(times, values, lane, stroke, fill, t0, t1) {
  const g = ctx2d;
  let i = lowerBound(times, t0) - 1;
  if (i < 0) i = 0;
  g.strokeStyle = stroke;
  g.lineWidth = 1.5;
  g.beginPath();
  const first = i;
  for (; i < times.length; i += 1) {
    const px = x(times[i]), py = laneY(lane, values[i]);
    if (i === first) g.moveTo(px, py); else g.lineTo(px, py);
    if (times[i] > t1) break;
  }
  g.stroke();
  if (fill) {
    const last = Math.min(i, times.length - 1);
    g.lineTo(x(times[last]), LANES[lane][1]);
    g.lineTo(x(times[first]), LANES[lane][1]);
    g.closePath();
    g.globalAlpha = 0.18;
    g.fillStyle = stroke;
    g.fill();
    g.globalAlpha = 1;
  }
}

function lowerBound(array, value) {
  let lo = 0, hi = array.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (array[mid] < value) lo = mid + 1; else hi = mid; }
  return lo;
}

function effectiveAt(t) {
  const eff = state.view?.effective;
  if (!eff || !eff.times.length) return null;
  const i = clamp(lowerBound(eff.times, t), 0, eff.times.length - 1);
  const j = Math.max(0, i - 1);
  const a = eff.times[j], b = eff.times[i];
  const f = b > a ? clamp((t - a) / (b - a), 0, 1) : 0;
  return { intensity: eff.intensity[j] + (eff.intensity[i] - eff.intensity[j]) * f, sharpness: eff.sharpness[j] + (eff.sharpness[i] - eff.sharpness[j]) * f };
}

function updateReadout() {
  const out = $("readout");
  if (!state.hover) { out.textContent = ""; return; }
  const t = state.hover.time;
  const e = effectiveAt(t);
  const parts = [`${t.toFixed(4)} s`];
  if (e) parts.push(`intensity ${e.intensity.toFixed(3)}`, `sharpness ${e.sharpness.toFixed(3)}`);
  if (state.hover.hit) parts.push(describe(state.hover.hit));
  out.textContent = parts.join(" · ");
}

function describe(hit) {
  const element = state.ahap?.Pattern?.[hit.index];
  if (!element) return "";
  if (hit.kind === "event") return `${element.Event.EventType} #${hit.index}`;
  return `${element.ParameterCurve.ParameterID} point ${hit.point + 1}`;
}

function summary() {
  const m = model(state.ahap);
  const v = state.view;
  const errors = (v?.diagnostics || []).filter((d) => d.severity === "error").length;
  return `${state.path}: ${m.events.length} events, ${(v?.duration || 0).toFixed(3)} s, `
    + `${(v?.diagnostics || []).length} findings${errors ? ` (${errors} errors)` : ""}; analysed in ${v?.analyzeMilliseconds ?? "?"} ms`;
}

// ---------------------------------------------------------------- pointer and keys

function hitTest(px, py) {
  const m = model(state.ahap);
  const lane = laneAt(py);
  if (lane === "curves") {
    for (const c of m.curves) {
      const [lo, hi] = curveRange(c.id);
      for (const p of c.points) {
        if (Math.abs(x(p.time) - px) <= 6 && Math.abs(laneY("curves", p.value, lo, hi) - py) <= 6) return { kind: "point", index: c.index, point: p.i };
      }
    }
    return null;
  }
  if (lane !== "intensity" && lane !== "sharpness") return null;
  let best = null, bestDistance = 7;
  for (const e of m.events) {
    if (e.continuous) {
      const a = x(e.time), b = Math.max(x(e.time + e.duration), a + 2);
      if (Math.abs(px - b) <= 5) return { kind: "event", index: e.index, edge: "end", lane };
      if (px >= a - 3 && px <= b && (best === null || bestDistance > 0)) { best = { kind: "event", index: e.index, lane }; bestDistance = 0; }
    } else {
      const d = Math.abs(x(e.time) - px);
      if (d < bestDistance) { best = { kind: "event", index: e.index, lane }; bestDistance = d; }
    }
  }
  return best;
}

function pointer(event) {
  const rect = canvas.getBoundingClientRect();
  return { px: event.clientX - rect.left, py: event.clientY - rect.top };
}

canvas.addEventListener("mousedown", (event) => {
  canvas.focus();
  const { px, py } = pointer(event);
  const t = timeAt(px);
  if (event.shiftKey) { state.drag = { kind: "range", anchor: t }; state.range = [t, t]; draw(); return; }
  const hit = state.ahap ? hitTest(px, py) : null;
  if (hit) {
    state.selection = hit.kind === "event" ? { kind: "event", index: hit.index } : { kind: "point", index: hit.index, point: hit.point };
    const element = state.ahap.Pattern[hit.index];
    state.drag = { kind: hit.kind, hit, startPx: px, startPy: py, origin: clone(element), remembered: false, moved: false };
    renderInspector();
    draw();
  } else {
    state.selection = null;
    renderInspector();
    state.drag = { kind: "pan", startPx: px, start: state.viewport.start, moved: false };
    draw();
  }
});

window.addEventListener("mousemove", (event) => {
  const { px, py } = pointer(event);
  const inside = px >= LEFT && py >= 0 && px <= canvas.clientWidth && py <= canvas.clientHeight;
  state.hover = inside ? { time: timeAt(px), hit: state.ahap ? hitTest(px, py) : null } : null;
  const drag = state.drag;
  if (!drag) { updateReadout(); return; }
  if (drag.kind === "range") { const t = timeAt(px); state.range = [Math.max(0, Math.min(drag.anchor, t)), Math.max(0, drag.anchor, t)]; draw(); return; }
  if (drag.kind === "pan") { state.viewport.start = drag.start - (px - drag.startPx) * state.viewport.spp; drag.moved = true; draw(); return; }
  if (Math.abs(px - drag.startPx) < 2 && Math.abs(py - drag.startPy) < 2 && !drag.moved) return;
  drag.moved = true;
  const dt = (px - drag.startPx) * state.viewport.spp;
  const snap = event.altKey ? (v) => v : (v) => Math.round(v * 1000) / 1000;
  edit((ahap) => {
    const element = ahap.Pattern[drag.hit.index];
    if (drag.kind === "event") {
      const e = element.Event, o = drag.origin.Event;
      const haptic = e.EventType.startsWith("Haptic");
      if (drag.hit.edge === "end") { e.EventDuration = Math.max(0.001, snap((o.EventDuration || 0) + dt)); return; }
      e.Time = Math.max(0, snap(o.Time + dt));
      if (drag.hit.lane === "intensity") {
        setEventParameter(e, haptic ? "HapticIntensity" : "AudioVolume", round(clamp(laneValue("intensity", py), 0, 1), 3));
      } else if (drag.hit.lane === "sharpness" && haptic) {
        setEventParameter(e, "HapticSharpness", round(clamp(laneValue("sharpness", py), 0, 1), 3));
      }
    } else {
      const c = element.ParameterCurve, o = drag.origin.ParameterCurve;
      const p = c.ParameterCurveControlPoints[drag.hit.point];
      const [lo, hi] = curveRange(c.ParameterID);
      p.Time = Math.max(0, snap(o.ParameterCurveControlPoints[drag.hit.point].Time + dt));
      p.ParameterValue = round(clamp(laneValue("curves", py, lo, hi), lo, hi), 3);
    }
  }, !drag.remembered);
  drag.remembered = true;
  renderInspector();
});

window.addEventListener("mouseup", () => {
  const drag = state.drag;
  state.drag = null;
  if (drag && drag.kind === "range" && state.range && state.range[1] - state.range[0] < 0.002) { state.range = null; draw(); }
});

canvas.addEventListener("wheel", (event) => {
  event.preventDefault();
  const { px } = pointer(event);
  if (event.shiftKey) { state.viewport.start += event.deltaY * state.viewport.spp; draw(); return; }
  zoom(event.deltaY > 0 ? 1.25 : 0.8, timeAt(px));
}, { passive: false });

canvas.addEventListener("dblclick", (event) => {
  const { px, py } = pointer(event);
  const lane = laneAt(py);
  if (lane === "intensity" && !hitTest(px, py)) addEvent(event.altKey ? "HapticContinuous" : "HapticTransient", timeAt(px));
  if (lane === "curves" && !hitTest(px, py)) addCurvePoint(timeAt(px), py);
});

// A double-click in the curves lane adds a control point to the curve whose span is there (or
// the nearest one), else starts a HapticIntensityControl curve at that time.
function addCurvePoint(time, py) {
  const t = Math.max(0, round(time));
  const curves = model(state.ahap).curves;
  let target = curves.find((c) => c.points.length && c.points[0].time <= t && c.points[c.points.length - 1].time >= t);
  if (!target && curves.length) {
    target = curves.reduce((best, c) => {
      const d = Math.min(...c.points.map((p) => Math.abs(p.time - t)));
      return !best || d < best.d ? { c, d } : best;
    }, null).c;
  }
  edit((ahap) => {
    if (target) {
      const curve = ahap.Pattern[target.index].ParameterCurve;
      const [lo, hi] = curveRange(curve.ParameterID);
      const points = curve.ParameterCurveControlPoints;
      const relative = round(Math.max(0, t - (+curve.Time || 0)));
      const at = points.findIndex((p) => p.Time > relative);
      const point = { Time: relative, ParameterValue: round(clamp(laneValue("curves", py, lo, hi), lo, hi), 3) };
      if (at < 0) points.push(point); else points.splice(at, 0, point);
      state.selection = { kind: "point", index: target.index, point: at < 0 ? points.length - 1 : at };
    } else {
      const value = round(clamp(laneValue("curves", py, 0, 1), 0, 1), 3);
      ahap.Pattern = ahap.Pattern || [];
      ahap.Pattern.push({ ParameterCurve: { ParameterID: "HapticIntensityControl", Time: t,
        ParameterCurveControlPoints: [{ Time: 0, ParameterValue: value }, { Time: 0.1, ParameterValue: value }] } });
      state.selection = { kind: "point", index: ahap.Pattern.length - 1, point: 0 };
    }
  });
  renderInspector();
}

window.addEventListener("keydown", (event) => {
  const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement;
  const ctrl = event.ctrlKey || event.metaKey;
  if (ctrl && event.key.toLowerCase() === "s") { event.preventDefault(); save(); return; }
  if (typing) return;
  if (ctrl && event.key.toLowerCase() === "z") { event.preventDefault(); if (event.shiftKey) redo(); else undo(); return; }
  if (ctrl && event.key.toLowerCase() === "y") { event.preventDefault(); redo(); return; }
  if (ctrl) return;
  const sel = state.selection;
  const hoverTime = state.hover ? state.hover.time : timeAt(LEFT + width() / 2);
  switch (event.key) {
    case " ": event.preventDefault(); if (state.playhead?.playing) stopAll(); else playEngine(); break;
    case "b": case "B": playBrowser(); break;
    case "Escape": stopAll(); state.range = null; draw(); break;
    case "Delete": case "Backspace": event.preventDefault(); deleteSelection(); break;
    case "t": case "T": addEvent("HapticTransient", hoverTime); break;
    case "c": case "C": addEvent("HapticContinuous", hoverTime); break;
    case "+": case "=": zoom(0.8); break;
    case "-": case "_": zoom(1.25); break;
    case "f": case "F": fit(); draw(); break;
    case "a": case "A":
      if (state.compare) { state.which = state.which === "a" ? "b" : "a"; $("play-which").value = state.which; if (state.playhead?.playing) playEngine(playheadTime()); }
      break;
    case "ArrowLeft": case "ArrowRight": case "ArrowUp": case "ArrowDown":
      if (!sel || sel.kind !== "event") break;
      event.preventDefault();
      nudge(event.key, event.shiftKey);
      break;
  }
});

function nudge(key, shift) {
  const sel = state.selection;
  edit((ahap) => {
    const e = ahap.Pattern[sel.index].Event;
    const haptic = e.EventType.startsWith("Haptic");
    if (key === "ArrowLeft" || key === "ArrowRight") {
      e.Time = round(Math.max(0, e.Time + (key === "ArrowRight" ? 1 : -1) * (shift ? 0.01 : 0.001)));
    } else {
      const id = shift ? "HapticSharpness" : haptic ? "HapticIntensity" : "AudioVolume";
      setEventParameter(e, id, round(clamp(parameterValue(e.EventParameters, id) + (key === "ArrowUp" ? 0.05 : -0.05), 0, 1), 3));
    }
  });
  renderInspector();
}

// ---------------------------------------------------------------- start

function wire() {
  $("play-engine").onclick = () => playEngine();
  $("play-browser").onclick = () => playBrowser();
  $("stop").onclick = () => stopAll();
  $("undo").onclick = undo;
  $("redo").onclick = redo;
  $("save").onclick = () => save();
  $("delete").onclick = deleteSelection;
  $("add-transient").onclick = () => addEvent("HapticTransient", state.range ? state.range[0] : timeAt(LEFT + width() / 2));
  $("add-continuous").onclick = () => addEvent("HapticContinuous", state.range ? state.range[0] : timeAt(LEFT + width() / 2));
  $("zoom-in").onclick = () => zoom(0.8);
  $("zoom-out").onclick = () => zoom(1.25);
  $("zoom-fit").onclick = () => { fit(); draw(); };
  $("filter").oninput = renderFileList;
  $("compare").onchange = () => loadCompare($("compare").value);
  $("play-which").onchange = () => { state.which = $("play-which").value; };
  for (const id of ["f-time", "f-duration", "f-intensity", "f-sharpness", "f-value"]) $(id).onchange = () => inspectorChanged(id);
  window.addEventListener("resize", draw);
  window.addEventListener("beforeunload", (event) => { if (state.dirty) { event.preventDefault(); event.returnValue = ""; } });
}

async function start() {
  wire();
  connectSocket();
  try {
    const list = await loadFiles();
    const wanted = launch.open;
    const first = list.files.find((f) => f.path === wanted) || list.files[0];
    if (first) await openFile(first.path);
    else { status("no .ahap or .haptic files under " + list.roots.join(", ")); document.body.dataset.ready = "1"; }
  } catch (error) {
    banner("The studio refused: " + error.message, null, null, true);
    status(error.message);
  }
  draw();
}

// For tests and the benchmark: where things are drawn, and where the head is.
Object.assign(window.studio, { x, laneY, timeAt, playheadTime, LANES, LEFT });

start();
