// The dashboard's only door to the server: JSON reads, token-carrying writes.
// The token lives in this browser's localStorage and is sent only as a
// bearer header to this same origin.

const TOKEN_KEY = "retrace-token";

export function token() {
  return localStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(value) {
  if (value) localStorage.setItem(TOKEN_KEY, value);
  else localStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function answer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = (body && body.error) || `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return body;
}

export async function get(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== "") query.set(key, value);
  const url = query.toString() ? `${path}?${query}` : path;
  return answer(await fetch(url, { headers: { Accept: "application/json" } }));
}

export async function post(path, body = {}) {
  const headers = { "Content-Type": "application/json" };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  return answer(await fetch(path, { method: "POST", headers, body: JSON.stringify(body) }));
}

export const images = {
  golden: (id) => `/api/images/golden/${id}`,
  actual: (id) => `/api/images/result/${id}/actual`,
  diff: (id) => `/api/images/result/${id}/diff`,
};
