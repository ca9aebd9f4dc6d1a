// Requests, tokens and cost over the last hour, day or 30 days, per channel, model, key or tenant: GET /admin/usage
// (the request log summed per UTC hour or day), drawn with uPlot (vendored: uPlot.iife.min.js, MIT).
// Time is the gateway's: the range ends at the answer's "to", whatever this browser's clock says.

import { $, el, read, usd } from "./api.js";

const RANGES = {
  hour: { interval: "hour", seconds: 3600, label: "last hour" },
  day: { interval: "hour", seconds: 86400, label: "last 24 hours" },
  month: { interval: "day", seconds: 30 * 86400, label: "last 30 days" }
};
const METRICS = {
  requests: { label: "requests", of: (d) => d.requests, format: (v) => String(v) },
  tokens: { label: "tokens", of: (d) => d.promptTokens + d.completionTokens, format: (v) => String(v) },
  cost: { label: "cost (USD)", of: (d) => d.costUsd, format: usd }
};
const COLORS = ["#0969da", "#cf222e", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a3069", "#57606a", "#e16f24"];
const MAX_SERIES = 8;
const REFRESH_MS = 30000;

let plot = null;
let timer = null;
let last = null;

function selected(id) {
  return $(id).value;
}

/** The usage of the range and grouping chosen; the chart and the totals redrawn from it. */
export async function refreshUsage() {
  clearTimeout(timer);
  const range = RANGES[selected("usage-range")];
  const groupBy = selected("usage-group");
  try {
    // no from/to: the gateway's own defaults end at its now (a day of hours, 30 days of days)
    const answer = await read("/admin/usage?groupBy=" + groupBy + "&interval=" + range.interval);
    last = { answer: answer, range: range };
    draw();
    $("usage-problem").textContent = answer.truncated ? "more rows than one answer holds: totals are partial" : "";
  } catch (e) {
    $("usage-problem").textContent = "usage unavailable (" + e.message + ")";
  }
  timer = setTimeout(refreshUsage, REFRESH_MS);
}

export function stopUsage() {
  clearTimeout(timer);
  if (plot) plot.destroy();
  plot = null;
  last = null;
}

function draw() {
  if (!last) return;
  const { answer, range } = last;
  const metric = METRICS[selected("usage-metric")];
  const step = range.interval === "hour" ? 3600 : 86400;
  const to = Date.parse(answer.to) / 1000;
  const from = Math.max(Date.parse(answer.from) / 1000, to - range.seconds);
  const first = Math.floor(from / step) * step;
  const xs = [];
  for (let t = first; t < to; t += step) xs.push(t);
  const rows = answer.data.filter((d) => Date.parse(d.start) / 1000 >= first);

  const totals = new Map();
  rows.forEach((d) => {
    const name = d.group === null ? "(none)" : d.group;
    const t = totals.get(name) || { requests: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, errors: 0 };
    t.requests += d.requests; t.promptTokens += d.promptTokens; t.completionTokens += d.completionTokens;
    t.costUsd += d.costUsd; t.errors += d.errors;
    totals.set(name, t);
  });
  const groups = [...totals.keys()].sort((a, b) => metric.of(totals.get(b)) - metric.of(totals.get(a)));
  const shown = groups.slice(0, MAX_SERIES);
  const bucket = new Map(xs.map((x, i) => [x, i]));
  const series = shown.map(() => xs.map(() => 0));
  const other = xs.map(() => 0);
  rows.forEach((d) => {
    const i = bucket.get(Date.parse(d.start) / 1000);
    if (i === undefined) return;
    const s = shown.indexOf(d.group === null ? "(none)" : d.group);
    (s >= 0 ? series[s] : other)[i] += metric.of(d);
  });

  $("usage-caption").textContent = metric.label + " per " + selected("usage-group") + ", " + range.label
    + " to " + answer.to.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC");
  drawChart(xs, shown, series, groups.length > MAX_SERIES ? other : null, metric);
  drawTotals(groups, totals);
}

function drawChart(xs, names, series, other, metric) {
  if (plot) plot.destroy();
  plot = null;
  const target = $("usage-chart");
  target.replaceChildren();
  if (names.length === 0) {
    target.append(el("p", { class: "sub" }, "no requests in this range"));
    return;
  }
  const lines = names.map((name, i) => ({ label: name, stroke: COLORS[i % COLORS.length], width: 2,
    points: { show: true, size: 5 }, value: (u, v) => v === null ? "–" : metric.format(v) }));
  const data = [xs].concat(series);
  if (other) {
    lines.push({ label: "other", stroke: "#8c959f", width: 1, dash: [4, 4], points: { show: true, size: 4 } });
    data.push(other);
  }
  plot = new uPlot({
    width: Math.max(300, target.clientWidth),
    height: 220,
    // the buckets are UTC hours and days
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    scales: { y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [{}, { values: (u, ticks) => ticks.map((v) => metric === METRICS.cost ? usd(v) : String(Math.round(v * 100) / 100)), size: 70 }],
    series: [{ label: "time (UTC)" }].concat(lines)
  }, data, target);
}

function drawTotals(groups, totals) {
  const requests = groups.reduce((sum, g) => sum + totals.get(g).requests, 0);
  const rows = groups.map((g) => {
    const t = totals.get(g);
    const share = requests > 0 ? t.requests / requests : 0;
    return el("tr", { "data-group": g },
      el("td", {}, el("code", {}, g)),
      el("td", {}, t.requests),
      el("td", {}, el("div", { class: "bar", title: "share of the range's requests" },
        el("span", { style: "width:" + (share * 100).toFixed(1) + "%" }), el("em", {}, (share * 100).toFixed(1) + "%"))),
      el("td", {}, t.promptTokens + " / " + t.completionTokens),
      el("td", {}, usd(t.costUsd)),
      el("td", {}, t.errors));
  });
  $("usage-totals").replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, ["group", "requests", "share", "tokens in / out", "cost", "errors"].map((h) => el("th", {}, h)))),
    el("tbody", {}, rows)));
}

export function wireUsage() {
  ["usage-range", "usage-group"].forEach((id) => $(id).addEventListener("change", refreshUsage));
  $("usage-metric").addEventListener("change", draw);
  $("usage-refresh").addEventListener("click", refreshUsage);
  let resizing = null;
  window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(draw, 200); });
}
