// The dashboard: sign-in, the live view of /admin/status (polled every second) and /admin/events (followed as a
// stream), the operator's buttons on keys and breakers, and the usage charts and tenants of usage.js and tenants.js.

import { $, el, call, act, usd, notice, token, TOKEN_KEY } from "./api.js";
import { ask } from "./dialog.js";
import { refreshUsage, stopUsage, wireUsage } from "./usage.js";
import { refreshTenants, showSpend, stopTenants, wireTenants } from "./tenants.js";

const POLL_MS = 1000;
const MAX_EVENTS = 300;
let pollTimer = null;
let streamAbort = null;
let lastEventId = 0;
let lastStatus = null;

function pill(text, id) {
  return el("span", { class: "pill " + text, id: id, "data-state": text }, text);
}

function button(label, attrs) {
  return el("button", Object.assign({ type: "button" }, attrs), label);
}

function quotaBars(quota) {
  if (!quota || quota.length === 0) return el("span", { class: "sub" }, "no limits");
  return quota.map((w) => {
    const ratio = w.limit > 0 ? Math.min(1, w.used / w.limit) : 0;
    return el("div", { class: "bar" + (ratio >= 0.9 ? " hot" : ""), title: w.window + (w.resetsAt ? ", resets " + w.resetsAt : "") },
      el("span", { style: "width:" + (ratio * 100).toFixed(1) + "%" }),
      el("em", {}, w.window + " " + w.used + "/" + w.limit));
  });
}

/** The key's part of the channel's calls since start, beside the part its weight asks for: how even the rotation is. */
function shareBar(key, calls, weights) {
  const share = calls > 0 ? key.callCount / calls : 0;
  const expected = weights > 0 ? key.weight / weights : 0;
  return el("div", { class: "bar share", title: "share of the channel's calls since start; its weight asks for " + (expected * 100).toFixed(0) + "%" },
    el("span", { style: "width:" + (share * 100).toFixed(1) + "%" }),
    el("i", { style: "left:" + (expected * 100).toFixed(1) + "%" }),
    el("em", {}, (share * 100).toFixed(0) + "% · weight " + (expected * 100).toFixed(0) + "%"));
}

function keyActions(channel, k) {
  const at = { "data-channel": channel.name, "data-key": k.fingerprint };
  const id = (action) => "act-" + action + "-" + channel.name + "-" + k.fingerprint;
  return el("td", { class: "actions" },
    k.state === "DISABLED" || k.draining
      ? button("Enable", Object.assign({ id: id("enable"), "data-action": "enable" }, at))
      : button("Disable", Object.assign({ id: id("disable"), "data-action": "disable", class: "danger" }, at)),
    k.draining ? "" : button("Drain", Object.assign({ id: id("drain"), "data-action": "drain" }, at)),
    // the API patches the weight of a key of keypool.yaml only and removes only a key added at runtime
    k.origin === "file" ? button("Weight", Object.assign({ id: id("weight"), "data-action": "weight", "data-weight": k.weight }, at)) : "",
    k.origin === "api" ? button("Remove", Object.assign({ id: id("remove"), "data-action": "remove", class: "danger" }, at)) : "");
}

function channelCard(channel) {
  const b = channel.breaker || {};
  const at = { "data-channel": channel.name };
  const card = el("section", { class: "card channel", id: "channel-" + channel.name, "data-channel": channel.name },
    el("h2", {}, channel.name, pill(b.state, "breaker-" + channel.name),
      b.forcedOpen ? el("span", { class: "sub" }, "forced by operator") : "",
      el("span", { class: "sub" }, "chain: " + [channel.name].concat(channel.fallback || []).join(" → ")),
      el("span", { class: "sub" }, "cost " + usd(channel.costUsd)),
      el("span", { class: "actions" },
        b.state === "OPEN"
          ? button("Close breaker", Object.assign({ id: "act-close-" + channel.name, "data-action": "close" }, at))
          : button("Force open", Object.assign({ id: "act-open-" + channel.name, "data-action": "open", class: "danger" }, at)),
        b.state === "HALF_OPEN" ? "" : button("Half-open", Object.assign({ id: "act-half-open-" + channel.name, "data-action": "half-open" }, at)),
        button("Add key", Object.assign({ id: "act-add-key-" + channel.name, "data-action": "add-key" }, at)))));
  const figures = el("dl", { class: "figures" },
    el("dt", {}, "triggers"), el("dd", {}, (b.triggers || []).join(", ")),
    el("dt", {}, "tripped by"), el("dd", {}, b.trippedBy || "—"),
    el("dt", {}, "error rate"), el("dd", {}, (b.errorRatePercent || 0).toFixed(1) + "% of " + (b.callsInWindow || 0) + " calls"),
    el("dt", {}, "avg latency"), el("dd", {}, Math.round(b.averageLatencyMs || 0) + " ms"),
    el("dt", {}, "next attempt"), el("dd", {}, b.nextAttemptAt || "—"));
  const keys = channel.keys || [];
  const calls = keys.reduce((sum, k) => sum + (k.callCount || 0), 0);
  const weights = keys.filter((k) => k.state !== "DISABLED" && !k.draining).reduce((sum, k) => sum + (k.weight || 0), 0);
  const rows = keys.map((k) => el("tr", { id: "key-" + channel.name + "-" + k.fingerprint, "data-key": k.fingerprint },
    el("td", {}, el("code", {}, k.fingerprint), k.label ? el("div", { class: "sub" }, k.label) : ""),
    el("td", {}, pill(k.state, "key-state-" + channel.name + "-" + k.fingerprint), k.draining ? [" ", pill("DRAINING")] : ""),
    el("td", {}, pill(k.health)),
    el("td", {}, (Math.round((k.effectiveWeight || 0) * 100) / 100) + " / " + k.weight),
    el("td", {}, shareBar(k, calls, weights)),
    el("td", {}, k.inFlight),
    el("td", { title: "ok / failed / answered 429" }, k.successCount + " / " + k.failureCount + " / " + k.rateLimitCount),
    el("td", {}, quotaBars(k.quota)),
    el("td", {}, usd(k.costUsd)),
    keyActions(channel, k)));
  const table = el("table", {},
    el("thead", {}, el("tr", {}, ["key", "state", "health", "eff. weight", "share of calls", "in flight", "ok / failed / 429", "quota", "cost", ""]
      .map((h) => el("th", {}, h)))),
    el("tbody", {}, rows));
  card.append(el("div", { class: "body" }, figures, table));
  return card;
}

function render(status) {
  // drawn again only when something changed: a button is not replaced under the operator's pointer
  const text = JSON.stringify(status);
  if (text !== lastStatus) {
    lastStatus = text;
    $("channels").replaceChildren(...(status.channels || []).map(channelCard));
    showSpend(status.tenants);
    if (status.queue) {
      $("queue").textContent = "waiting for quota: " + status.queue.waiting + " / " + status.queue.maxSize;
    }
  }
  $("updated").textContent = "updated " + new Date().toLocaleTimeString();
  $("problem").textContent = "";
}

async function poll() {
  try {
    const response = await call("/admin/status");
    render(await response.json());
  } catch (e) {
    if (e.status === 401 || e.status === 404) {
      signOut("The admin token was refused: " + e.message);
      return;
    }
    $("problem").textContent = "status unavailable (" + e.message + "), retrying";
  }
  // one timer however many polls ran at once (an action's poll beside the regular one); none once signed out
  clearTimeout(pollTimer);
  if (token()) pollTimer = setTimeout(poll, POLL_MS);
}

/** Status again at once after an action, so the page shows its effect without waiting for the next poll. */
function pollNow() {
  clearTimeout(pollTimer);
  poll();
}

const KEY_ACTIONS = {
  enable: { title: "Enable key", message: "Back to ACTIVE with a clean failure streak; ends a drain." },
  disable: { title: "Disable key", message: "Out of rotation until enabled; no probe brings it back." },
  drain: { title: "Drain key", message: "No new requests; those in flight finish." }
};

async function keyAction(action, channel, key, weight) {
  const where = "key " + key + " in " + channel;
  const scope = "?channel=" + encodeURIComponent(channel);
  const path = "/admin/keys/" + encodeURIComponent(key);
  try {
    if (KEY_ACTIONS[action]) {
      const a = KEY_ACTIONS[action];
      if (!await ask(a.title + " " + key + "?", a.message + " (channel " + channel + ")", [], a.title.split(" ")[0])) return;
      await act("POST", path + "/" + action + scope);
      notice(a.title + " " + where + ": done");
    } else if (action === "weight") {
      const values = await ask("Weight of " + key + "?", "Live from the next request on (channel " + channel + ").",
        [{ name: "weight", label: "weight", type: "number", value: weight, required: true }], "Set weight");
      if (!values) return;
      await act("PATCH", path + scope, { weight: Number(values.weight) });
      notice("Weight of " + where + " set to " + values.weight);
    } else if (action === "remove") {
      if (!await ask("Remove key " + key + " from " + channel + "?",
        "No new requests at once, those in flight finish, then the key is gone (from the database too).", [], "Remove")) return;
      await act("DELETE", "/admin/channels/" + encodeURIComponent(channel) + "/keys/" + encodeURIComponent(key));
      notice("Key " + key + " removed from " + channel);
    }
  } catch (e) {
    notice(where + ": " + e.message, true);
  }
  pollNow();
}

async function channelAction(action, channel) {
  const path = "/admin/channels/" + encodeURIComponent(channel);
  try {
    if (action === "add-key") {
      const values = await ask("Add a key to " + channel, "Stored encrypted with KEYPOOL_MASTER_KEY; it warms up like a key a reload adds.",
        [{ name: "key", label: "provider API key", type: "password", required: true }, { name: "label", label: "label" }], "Add key");
      if (!values) return;
      const answer = await act("POST", path + "/keys", { key: values.key, label: values.label || undefined });
      notice("Key " + answer.fingerprint + " added to " + channel);
      return;
    }
    const state = { open: "OPEN", "half-open": "HALF_OPEN", close: "CLOSED" }[action];
    const values = await ask("Breaker of " + channel + " to " + state + "?",
      state === "OPEN" ? "Holds until an operator closes it, restarts included; requests go down the fallback chain."
        : state === "HALF_OPEN" ? "The next requests go through as probes." : "Closes with fresh windows.",
      [{ name: "reason", label: "reason", value: "operator, from the dashboard" }], "Set " + state);
    if (!values) return;
    await act("POST", path + "/breaker", { state: state, reason: values.reason || undefined });
    notice("Breaker of " + channel + " set to " + state);
  } catch (e) {
    notice(channel + ": " + e.message, true);
  } finally {
    pollNow();
  }
}

function addEvent(event) {
  lastEventId = Math.max(lastEventId, event.id || 0);
  const item = el("li", { "data-id": event.id },
    el("time", {}, event.at + " · " + (event.channel || event.tenant || "") + " · " + event.from + " → " + event.to),
    event.message);
  $("events").prepend(item);
  while ($("events").children.length > MAX_EVENTS) $("events").lastChild.remove();
}

/** The JSON list first, then the SSE stream after its last id (fetch, not EventSource: it sends the token as a header). */
async function follow(abort) {
  try {
    const first = await call("/admin/events?since=" + lastEventId, { signal: abort.signal });
    ((await first.json()).events || []).forEach(addEvent);
    const response = await call("/admin/events?stream=true&since=" + lastEventId, { signal: abort.signal });
    $("stream-state").textContent = "live";
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        if (data) addEvent(JSON.parse(data));
      }
    }
  } catch (e) {
    if (abort.signal.aborted) return;
  }
  if (!abort.signal.aborted) {
    $("stream-state").textContent = "reconnecting";
    setTimeout(() => { if (!abort.signal.aborted) follow(abort); }, 2000);
  }
}

function start() {
  $("login").classList.add("hidden");
  $("app").classList.remove("hidden");
  $("events").replaceChildren();
  lastEventId = 0;
  lastStatus = null;
  streamAbort = new AbortController();
  poll();
  follow(streamAbort);
  refreshUsage();
  refreshTenants();
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  clearTimeout(pollTimer);
  if (streamAbort) streamAbort.abort();
  stopUsage();
  stopTenants();
  $("app").classList.add("hidden");
  $("login").classList.remove("hidden");
  $("login-error").textContent = message || "";
  $("token").value = "";
}

$("login").addEventListener("submit", async (submit) => {
  submit.preventDefault();
  const candidate = $("token").value.trim();
  if (!candidate) return;
  sessionStorage.setItem(TOKEN_KEY, candidate);
  try {
    await call("/admin/status");
    $("login-error").textContent = "";
    start();
  } catch (e) {
    signOut(e.status === 401 ? "Wrong admin token." : "The admin API answered: " + e.message);
  }
});
$("sign-out").addEventListener("click", () => signOut(""));
$("channels").addEventListener("click", (click) => {
  const b = click.target.closest("button[data-action]");
  if (!b) return;
  if (b.dataset.key) keyAction(b.dataset.action, b.dataset.channel, b.dataset.key, b.dataset.weight);
  else channelAction(b.dataset.action, b.dataset.channel);
});
wireUsage();
wireTenants();

if (token()) start();
