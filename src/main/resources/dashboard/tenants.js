// The tenants with their limits (GET /admin/tenants) and spend (GET /admin/status), and the operator's actions on
// them: create, rotate, delete. A token the gateway answers is shown once, in the page, until dismissed.

import { $, el, act, read, usd, notice } from "./api.js";
import { ask } from "./dialog.js";

const REFRESH_MS = 5000;
let timer = null;
let spend = new Map();
let listed = null;

function limits(t) {
  const parts = [];
  ["rpm", "burst", "tpm", "rpd", "maxInFlight"].forEach((k) => { if (t[k] > 0) parts.push(k + " " + t[k]); });
  if (t.models && t.models.length) parts.push("models " + t.models.join(", "));
  if (t.channels && t.channels.length) parts.push("channels " + t.channels.join(", "));
  return parts.length ? parts.join(" · ") : "no limits";
}

function spendBar(spent, budget, label) {
  if (!(budget > 0)) return el("div", { class: "sub" }, label + " " + usd(spent));
  const ratio = Math.min(1, spent / budget);
  return el("div", { class: "bar" + (ratio >= 0.9 ? " hot" : ""), title: label + " budget" },
    el("span", { style: "width:" + (ratio * 100).toFixed(1) + "%" }),
    el("em", {}, label + " " + usd(spent) + " / " + usd(budget)));
}

function render() {
  if (!listed) return;
  if (listed.length === 0) {
    $("tenants").replaceChildren(el("span", { class: "sub" }, "no tenants: the gateway takes requests without a token"));
    return;
  }
  const rows = listed.map((t) => {
    const s = spend.get(t.name) || {};
    const budget = t.budget || {};
    return el("tr", { id: "tenant-" + t.name, "data-tenant": t.name },
      el("td", {}, el("strong", {}, t.name), el("div", { class: "sub" }, t.origin + (t.expired ? ", expired" : "")
        + (t.expiresAt ? ", expires " + t.expiresAt : ""))),
      el("td", {}, limits(t)),
      el("td", {}, spendBar(s.spentTodayUsd || 0, budget.daily, "today"), spendBar(s.spentThisMonthUsd || 0, budget.monthly, "month")),
      el("td", {}, s.usage ? (s.usage.own.requests + s.usage.borrowed.requests) + " requests" : "–"),
      el("td", { class: "actions" },
        el("button", { type: "button", id: "tenant-rotate-" + t.name, "data-tenant-action": "rotate", "data-tenant": t.name }, "Rotate"),
        el("button", { type: "button", id: "tenant-delete-" + t.name, "data-tenant-action": "delete", "data-tenant": t.name, class: "danger" }, "Delete")));
  });
  $("tenants").replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, ["tenant", "limits", "spend", "usage", ""].map((h) => el("th", {}, h)))),
    el("tbody", {}, rows)));
}

/** The spend of each tenant, as /admin/status reports it every second. */
export function showSpend(tenants) {
  const next = new Map((Array.isArray(tenants) ? tenants : []).map((t) => [t.name, t]));
  const changed = JSON.stringify([...next]) !== JSON.stringify([...spend]);
  spend = next;
  if (changed) render();
}

export async function refreshTenants() {
  clearTimeout(timer);
  try {
    const next = (await read("/admin/tenants")).tenants || [];
    // drawn again only when something changed: a button is not replaced under the operator's pointer
    if (JSON.stringify(next) !== JSON.stringify(listed)) {
      listed = next;
      render();
    }
  } catch (e) {
    listed = null;
    $("tenants").replaceChildren(el("span", { class: "error" }, "tenants unavailable (" + e.message + ")"));
  }
  timer = setTimeout(refreshTenants, REFRESH_MS);
}

export function stopTenants() {
  clearTimeout(timer);
  listed = null;
  hideToken();
}

function showToken(name, tokenValue) {
  $("new-token-text").textContent = tokenValue;
  $("new-token-for").textContent = name;
  $("new-token").classList.remove("hidden");
}

function hideToken() {
  $("new-token-text").textContent = "";
  $("new-token").classList.add("hidden");
}

function number(text) {
  return text === "" ? undefined : Number(text);
}

async function create() {
  const values = await ask("Create a tenant", "Its token is shown once, here, right after. Empty fields: no limit.", [
    { name: "name", label: "name", required: true, placeholder: "team-c" },
    { name: "rpm", label: "requests per minute", type: "number" },
    { name: "tpm", label: "tokens per minute", type: "number" },
    { name: "daily", label: "daily budget (USD)", type: "number" },
    { name: "monthly", label: "monthly budget (USD)", type: "number" },
    { name: "models", label: "models (comma-separated patterns)", placeholder: "gpt-*, glm-4-flash" },
    { name: "expiresAt", label: "expires at (UTC)", placeholder: "2027-01-31T00:00:00Z" }
  ], "Create");
  if (!values) return;
  const body = { name: values.name, rpm: number(values.rpm), tpm: number(values.tpm), expiresAt: values.expiresAt || undefined };
  if (values.daily || values.monthly) body.budget = { daily: number(values.daily), monthly: number(values.monthly) };
  if (values.models) body.models = values.models.split(",").map((m) => m.trim()).filter((m) => m);
  try {
    const answer = await act("POST", "/admin/tenants", body);
    showToken(answer.name, answer.token);
    notice("Tenant " + answer.name + " created");
  } catch (e) {
    notice("Tenant not created: " + e.message, true);
  }
  refreshTenants();
}

async function rotate(name) {
  const values = await ask("Rotate the token of " + name + "?",
    "A new token is shown once. The old one is refused from the next request on, or taken for the grace below.",
    [{ name: "grace", label: "grace for the old token (seconds)", type: "number", value: "0" }], "Rotate");
  if (!values) return;
  try {
    const answer = await act("POST", "/admin/tenants/" + encodeURIComponent(name) + "/rotate", { graceSeconds: number(values.grace) || 0 });
    showToken(name, answer.token);
    notice("Token of " + name + " rotated");
  } catch (e) {
    notice("Token of " + name + " not rotated: " + e.message, true);
  }
  refreshTenants();
}

async function remove(name) {
  if (!await ask("Delete tenant " + name + "?", "Its token is refused from its next request on.", [], "Delete")) return;
  try {
    await act("DELETE", "/admin/tenants/" + encodeURIComponent(name));
    notice("Tenant " + name + " deleted");
  } catch (e) {
    notice("Tenant " + name + " not deleted: " + e.message, true);
  }
  refreshTenants();
}

export function wireTenants() {
  $("tenant-create").addEventListener("click", create);
  $("new-token-done").addEventListener("click", hideToken);
  $("tenants").addEventListener("click", (click) => {
    const button = click.target.closest("button[data-tenant-action]");
    if (!button) return;
    const name = button.dataset.tenant;
    if (button.dataset.tenantAction === "rotate") rotate(name);
    if (button.dataset.tenantAction === "delete") remove(name);
  });
}
