// The admin API as the page calls it, and the few DOM helpers every part of the page shares.
// The admin token lives in this tab's sessionStorage and travels only in the Authorization header, never in a URL.

export const TOKEN_KEY = "keypoolAdminToken";

export const $ = (id) => document.getElementById(id);
export const token = () => sessionStorage.getItem(TOKEN_KEY);

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([k, v]) => {
    if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  });
  children.flat().forEach((c) => node.append(c instanceof Node ? c : document.createTextNode(c === null || c === undefined ? "" : String(c))));
  return node;
}

export function usd(value) {
  return "$" + (value || 0).toFixed(value >= 1 ? 2 : 6);
}

/** A GET (or any call) with the token; 401 and 404 throw (a refused or disabled admin API), other answers return. */
export async function call(path, options) {
  const opts = Object.assign({}, options || {});
  opts.headers = Object.assign({ "Authorization": "Bearer " + token() }, opts.headers || {});
  const response = await fetch(path, opts);
  if (response.status === 401 || response.status === 404) {
    const body = await response.json().catch(() => ({}));
    const error = new Error((body.error && body.error.message) || ("HTTP " + response.status));
    error.status = response.status;
    throw error;
  }
  return response;
}

/** GET as JSON; any answer but 2xx throws with the API's own message. */
export async function read(path) {
  return act("GET", path);
}

/** An operator's action: a JSON body out, the JSON answer back; any answer but 2xx throws with the API's message. */
export async function act(method, path, body) {
  const options = { method: method };
  if (body !== undefined) {
    options.headers = { "Content-Type": "application/json" };
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, Object.assign(options, {
    headers: Object.assign({ "Authorization": "Bearer " + token() }, options.headers || {})
  }));
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error((answer.error && answer.error.message) || ("HTTP " + response.status));
    error.status = response.status;
    throw error;
  }
  return answer;
}

/** One line in the header saying what the last action did (or why it failed). */
export function notice(text, failed) {
  const line = $("notice");
  line.textContent = text;
  line.classList.toggle("error", !!failed);
}
