// Masthead's support console: signs in with the admin token, finds a reader, shows their access
// and evidence, and restores purchases and gives, corrects or revokes grants.
//
// Every value from the service is inserted as text (textContent, setAttribute), never as markup.
// The admin token lives in sessionStorage and travels only in the Authorization header.
"use strict";

const TOKEN_KEY = "masthead-admin-token";
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** What the page is showing: the reader, the instant and environment asked for, and the last answers. */
const state = {
  userId: null,
  at: null,
  environment: "production",
  load: 0,
  blobURLs: [],
  publications: [],
  grants: [],
};

// MARK: Small helpers

/** The first element matching a selector, within `root` (the document by default). */
function $(selector, root) {
  return (root || document).querySelector(selector);
}

/** A new element with attributes and children (strings become text nodes). */
function element(tag, attributes, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children || []) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Removes every child of a node. */
function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** A template such as "/v1/users/{userId}/grants" with each variable replaced by its encoded value. */
function apiPath(template, values) {
  return template.replace(/\{([A-Za-z]+)\}/g, (_, name) => encodeURIComponent(values[name]));
}

/** An RFC 3339 instant as "1 Mar 2020" (with the time when it is not midnight, and always when `withTime`). */
function formatInstant(text, withTime) {
  if (text === null || text === undefined || text === "") return "—";
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return String(text);
  const day = `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
  const time = [date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  return withTime || time !== "00:00:00" ? `${day}, ${time} UTC` : day;
}

/** An RFC 3339 instant's UTC day alone, as "1 Mar 2020". */
function formatDay(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? String(text) : `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

/** An RFC 3339 instant as the value of a datetime-local input (UTC, to the second). */
function toPickerValue(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString().slice(0, 19);
}

/** A datetime-local input's value, read as UTC, as RFC 3339; null when empty. */
function fromPickerValue(value) {
  if (!value) return null;
  const full = value.length === 16 ? `${value}:00` : value;
  return `${full}Z`;
}

/** An RFC 3339 instant as a table shows it, in UTC to the second: "2020-03-20 12:00:00". */
function tableInstant(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? String(text) : date.toISOString().slice(0, 19).replace("T", " ");
}

/** A value as table text: dates, booleans, lists and absences in words. */
function cellText(value, kind) {
  if (value === null || value === undefined || value === "") return "—";
  if (kind === "instant") return tableInstant(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "—";
  return String(value);
}

// MARK: Talking to the service

/** An answer the service refused, with its error code and message. */
class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  /** The error as a support agent reads it. */
  get text() {
    return this.code ? `${this.message} (${this.code}, HTTP ${this.status})` : `${this.message} (HTTP ${this.status})`;
  }
}

/** Calls the service with the admin token; answers the response, or throws an APIError. */
async function request(method, template, values, options) {
  const settings = options || {};
  const query = settings.query ? new URLSearchParams(Object.entries(settings.query).filter(([, v]) => v !== null && v !== undefined && v !== "")) : null;
  const url = apiPath(template, values || {}) + (query && query.toString() ? `?${query}` : "");
  const headers = { Authorization: `Bearer ${settings.token || sessionStorage.getItem(TOKEN_KEY) || ""}` };
  if (settings.body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: settings.body === undefined ? undefined : JSON.stringify(settings.body),
      cache: "no-store",
      credentials: "omit",
      referrerPolicy: "no-referrer",
    });
  } catch (error) {
    throw new APIError(0, null, `the service could not be reached: ${error.message}`);
  }
  if (!response.ok) throw await refusal(response);
  return response;
}

/** The APIError a refused response carries in the service's error shape, or its status alone. */
async function refusal(response) {
  try {
    const body = await response.json();
    if (body && body.error && typeof body.error.message === "string") return new APIError(response.status, body.error.code, body.error.message);
  } catch (error) {
    // Not the service's error shape: the status says it.
  }
  return new APIError(response.status, null, response.statusText || "the request was refused");
}

/** Calls the service and answers the JSON body. */
async function requestJSON(method, template, values, options) {
  const response = await request(method, template, values, options);
  return response.json();
}

// MARK: Messages

/** Shows a failure's text in the error area (several failures of one load are listed). */
function showError(error) {
  const area = $('[data-role="error"]');
  const text = error instanceof APIError ? error.text : String(error && error.message ? error.message : error);
  area.append(element("p", {}, [text]));
  area.hidden = false;
}

/** Shows that an action succeeded. */
function showNotice(text) {
  const area = $('[data-role="notice"]');
  area.textContent = text;
  area.hidden = false;
}

/** Hides the error and notice areas, before a new action. */
function clearMessages() {
  for (const role of ["error", "notice"]) {
    const area = $(`[data-role="${role}"]`);
    clear(area);
    area.hidden = true;
  }
}

/** Asks the agent to confirm an action in the page's dialog; resolves to true when confirmed. */
function confirmAction(message) {
  const dialog = $('[data-role="confirm"]');
  $('[data-role="confirm-message"]', dialog).textContent = message;
  return new Promise((resolve) => {
    const finish = (answer) => {
      $('[data-action="confirm"]', dialog).onclick = null;
      $('[data-action="cancel"]', dialog).onclick = null;
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    $('[data-action="confirm"]', dialog).onclick = () => finish(true);
    $('[data-action="cancel"]', dialog).onclick = () => finish(false);
    dialog.onclose = () => finish(false);
    dialog.showModal();
  });
}

// MARK: Signing in

/** Marks the page signed in or out. */
function setSignedIn(signedIn) {
  document.body.setAttribute("data-signed-in", signedIn ? "true" : "false");
}

/** Checks the token on an admin route; keeps it only when the service takes it as the admin token. */
async function signIn(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const message = $('[data-role="sign-in-error"]');
  message.hidden = true;
  const token = form.elements.token.value.trim();
  try {
    await request("GET", "/v1/notifications/rejected", {}, { token, query: { limit: "1" } });
  } catch (error) {
    message.textContent =
      error.status === 401 ? "That token was refused: check it and try again."
      : error.status === 403 ? "That is the API token: the console needs the admin token (MASTHEAD_ADMIN_TOKEN)."
      : `Could not sign in: ${error.text || error.message}`;
    message.hidden = false;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  form.reset();
  setSignedIn(true);
  showView("readers");
  $('#find input[name="q"]').focus();
}

/** Forgets the token and everything shown. */
function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  clearMessages();
  closeReader();
  clear($('[data-role="matches"]'));
  setSignedIn(false);
  $('#sign-in input[name="token"]').focus();
}

/** Shows the Readers or the Operations view. */
function showView(name) {
  for (const view of document.querySelectorAll("[data-view]")) view.hidden = view.getAttribute("data-view") !== name;
  $('[data-action="show-readers"]').setAttribute("aria-pressed", String(name === "readers"));
  $('[data-action="show-operations"]').setAttribute("aria-pressed", String(name === "operations"));
  if (name === "operations") loadOperations();
}

// MARK: Finding a reader

/** Whether a text may be a user id the service takes: 1 to 256 UTF-8 bytes, no control character. */
function plausibleUserId(text) {
  const bytes = new TextEncoder().encode(text).length;
  return bytes >= 1 && bytes <= 256 && !/[\u0000-\u001f\u007f-\u009f]/.test(text);
}

/** Shows the reader in `environment` from now on, as the as-of form's choice does. */
function setEnvironment(environment) {
  state.environment = environment;
  $('#as-of select[name="environment"]').value = environment;
}

/**
 * Looks the text up, trimmed; one reader opens (in sandbox when only sandbox data matched),
 * several are listed, none is said, with a button to open a plausible user id as a new reader.
 */
async function find(event) {
  event.preventDefault();
  clearMessages();
  const matchesArea = $('[data-role="matches"]');
  clear(matchesArea);
  const q = event.currentTarget.elements.q.value.trim();
  if (q === "") {
    matchesArea.append(element("p", { class: "empty" }, ["Type what the customer gave: a user id, an app account token, a transaction id or a grant id."]));
    return;
  }
  let answer;
  try {
    answer = await requestJSON("GET", "/v1/lookup", {}, { query: { q } });
  } catch (error) {
    showError(error);
    return;
  }
  const byUser = new Map();
  for (const match of answer.matches || []) {
    if (!byUser.has(match.userId)) byUser.set(match.userId, []);
    byUser.get(match.userId).push(match);
  }
  if (byUser.size === 0) {
    matchesArea.append(element("p", { class: "empty" }, ["No reader found for ", element("q", {}, [q]), "."]));
    if (plausibleUserId(q)) {
      const anyway = element("button", { type: "button", "data-action": "open-anyway", "data-user-id": q }, [`Open ${q} anyway`]);
      anyway.addEventListener("click", () => openReader(q));
      matchesArea.append(element("p", { class: "hint" }, ["If it is a new reader's user id, open it to give them a grant. ", anyway]));
    }
    return;
  }
  if (byUser.size === 1) {
    const [userId, matches] = byUser.entries().next().value;
    // A reader found only by a transaction of one environment opens in that environment.
    const environments = new Set(matches.map((match) => match.environment));
    if (environments.size === 1 && (environments.has("sandbox") || environments.has("production"))) setEnvironment(matches[0].environment);
    openReader(userId);
    return;
  }
  matchesArea.append(element("p", { class: "hint" }, [`${byUser.size} readers match:`]));
  const list = element("ul", { class: "match-list" });
  for (const [userId, matches] of byUser) {
    const how = matches.map((m) => (m.environment ? `${m.matchedBy} (${m.environment})` : m.matchedBy)).join(", ");
    const button = element("button", { type: "button", "data-user-id": userId }, [element("strong", {}, [userId]), element("span", {}, [`matched by ${how}`])]);
    button.addEventListener("click", () => openReader(userId));
    list.append(element("li", {}, [button]));
  }
  matchesArea.append(list);
}

// MARK: The reader view

/** Opens a reader as of now. */
function openReader(userId) {
  clear($('[data-role="matches"]'));
  state.userId = userId;
  state.at = null;
  $('#as-of input[name="at"]').value = "";
  loadReader();
}

/** Closes the reader view and frees its pictures. */
function closeReader() {
  state.userId = null;
  state.load += 1;
  releaseBlobURLs();
  $('[data-role="reader"]').hidden = true;
}

/** Frees the timeline pictures' blob: URLs. */
function releaseBlobURLs() {
  for (const url of state.blobURLs) URL.revokeObjectURL(url);
  state.blobURLs = [];
}

/** Loads everything about the reader as of `state.at`; `data-at` is set once it is all shown. */
async function loadReader() {
  const load = ++state.load;
  const reader = $('[data-role="reader"]');
  const userId = state.userId;
  reader.removeAttribute("data-at");
  reader.setAttribute("data-user-id", userId);
  $('[data-role="reader-id"]').textContent = userId;
  reader.hidden = false;
  resetExplanation();
  const query = { at: state.at, environment: state.environment };
  const [entitlements, evidence] = await Promise.allSettled([
    requestJSON("GET", "/v1/users/{userId}/entitlements", { userId }, { query }),
    requestJSON("GET", "/v1/users/{userId}/evidence", { userId }),
  ]);
  if (load !== state.load) return;
  const notSeen = entitlements.status === "rejected" && isUnknownUser(entitlements.reason);
  if (evidence.status === "fulfilled") showEvidence(evidence.value);
  else if (notSeen && isUnknownUser(evidence.reason)) {
    showEvidence({ subscriptions: [], transactions: [], renewals: [], notifications: [], grants: [], appAccountTokens: [] });
  } else {
    showEvidence({});
    showError(evidence.reason);
  }
  if (notSeen) {
    await showNotSeen(userId);
    return;
  }
  if (entitlements.status === "rejected") {
    clear($('[data-role="publications"]'));
    showError(entitlements.reason);
    return;
  }
  const answer = entitlements.value;
  $('#as-of input[name="at"]').value = toPickerValue(answer.at);
  $('[data-role="as-of-shown"]').textContent = `As of ${formatInstant(answer.at, true)}${state.at ? "" : " (now)"}, in ${answer.environment}`;
  state.publications = answer.publications || [];
  fillPublicationChoices();
  await showPublications(answer, load);
  if (load !== state.load) return;
  reader.setAttribute("data-at", answer.at);
}

/** Whether a refusal is the service's 404 for a user it has never seen. */
function isUnknownUser(error) {
  return error instanceof APIError && error.status === 404 && error.code === "unknown_user";
}

/**
 * Shows that the service has never seen the reader, with the catalog's publications (from
 * `GET /v1/publications`) offered in the grant form.
 */
async function showNotSeen(userId) {
  const area = $('[data-role="publications"]');
  releaseBlobURLs();
  clear(area);
  $('[data-role="as-of-shown"]').textContent = "Not seen yet";
  try {
    state.publications = (await requestJSON("GET", "/v1/publications")).publications || [];
  } catch (error) {
    showError(error);
  }
  fillPublicationChoices();
  const known = state.publications.length
    ? ["The catalog's publications: ", state.publications.map((publication) => publication.title || publication.publication).join(", "), "."]
    : ["The catalog's publications could not be read, so no grant can be given here."];
  area.append(element("section", { class: "card", "data-role": "not-seen" }, [
    element("h2", {}, ["Not seen yet"]),
    element("p", {}, [`The service has no receipt, transaction, app account token or grant for ${userId}. Give a grant to let them read.`]),
    element("p", { class: "hint" }, known),
  ]));
}

/** Every publication's section: status, timeline and issues. */
async function showPublications(answer, load) {
  const area = $('[data-role="publications"]');
  releaseBlobURLs();
  clear(area);
  const sections = (answer.publications || []).map((publication) => {
    const section = publicationSection(publication);
    area.append(section);
    return Promise.allSettled([showIssues(section, publication, answer.at, load), showTimeline(section, publication.publication, answer.at, load)]);
  });
  await Promise.all(sections);
}

/** A publication's section, its issues and picture still to come. */
function publicationSection(publication) {
  const status = publication.status || {};
  const stateName = status.state || "none";
  const details = statusDetails(status);
  return element("section", { class: "card publication", "data-publication": publication.publication }, [
    element("header", { class: "publication-head" }, [
      element("h2", {}, [publication.title || publication.publication]),
      element("span", { class: `status status-${stateName}` }, [element("span", { class: "status-label" }, ["Status "]), element("span", { "data-field": "status" }, [stateName]),
        element("span", { class: "status-words" }, [STATUS_WORDS.get(stateName) || ""])]),
    ]),
    details.length ? element("p", { class: "hint" }, [details.join(" · ")]) : null,
    element("figure", { class: "timeline" }, [
      element("img", { "data-role": "timeline", alt: `Timeline of ${publication.title || publication.publication}` }),
    ]),
    element("h3", {}, ["Issues"]),
    element("p", { class: "hint" }, ["Pick an issue to see why."]),
    element("ul", { class: "issues", "data-role": "issues" }),
  ]);
}

/** A subscription state in words; `[data-field="status"]` keeps the state itself. */
const STATUS_WORDS = new Map([
  ["active", "active"],
  ["gracePeriod", "in a billing grace period"],
  ["billingRetry", "in billing retry"],
  ["expired", "expired"],
  ["none", "no subscription"],
]);

/** Apple's revocation types in words; a type Apple adds later shows as sent. */
const REVOCATION_WORDS = new Map([
  ["REFUND_FULL", "full refund"],
  ["REFUND_PRORATED", "prorated refund"],
  ["FAMILY_REVOKE", "Family Sharing ended"],
]);

/** The status's details in words: product, auto-renew, a covering grant. */
function statusDetails(status) {
  const details = [];
  if (status.productId) details.push(`product ${status.productId}`);
  if (status.autoRenew === true) details.push(status.autoRenewProductId && status.autoRenewProductId !== status.productId ? `renews as ${status.autoRenewProductId}` : "auto-renew on");
  if (status.autoRenew === false) details.push("auto-renew off");
  if (status.grantId) details.push(`covered by grant ${status.grantId}${status.grantSource ? ` (${status.grantSource})` : ""}`);
  return details;
}

/** Fills a publication's issue list, with the catalog's titles; `at` is the instant the list is as of. */
async function showIssues(section, publication, at, load) {
  let titles = new Map();
  try {
    const catalog = await requestJSON("GET", "/v1/publications/{publicationId}/issues", { publicationId: publication.publication });
    titles = new Map((catalog.issues || []).map((issue) => [issue.id, issue.title]));
  } catch (error) {
    if (load === state.load) showError(error);
  }
  if (load !== state.load) return;
  const list = $('[data-role="issues"]', section);
  for (const issue of publication.issues || []) {
    const title = titles.get(issue.id) || issue.id;
    const readable = issue.readable === true;
    const button = element("button", { type: "button", class: "issue", "data-issue": issue.id, "data-readable": String(readable) }, [
      element("span", { class: "issue-title" }, [title]),
      element("span", { class: "issue-date" }, [formatInstant(issue.published)]),
      element("span", { class: "issue-verdict" }, [readable ? "Readable" : "Not readable"]),
      element("span", { class: "issue-reason" }, [reasonWords(readable ? (issue.reasons || [])[0] : issue.reason)]),
    ]);
    button.addEventListener("click", () => explain(publication.publication, issue.id, title, button, at));
    list.append(element("li", {}, [button]));
  }
}

/** A reason an issue is readable, or a denial, in words. */
function reasonWords(reason) {
  if (!reason) return "";
  switch (reason.kind) {
    case "publishedDuringPeriod": return `published while subscribed (from ${formatDay(reason.periodStart)})`;
    case "unlockedAtPeriodStart": return `unlocked when the subscription began on ${formatDay(reason.periodStart)}`;
    case "streaming": return "streaming access while the subscription is active";
    case "singlePurchase": return `bought on its own (transaction ${reason.transactionId})`;
    case "granted": return `given by the publisher (grant ${reason.grantId}, ${reason.source})`;
    case "free": return "a free issue";
    case "notYetPublished": return "not published yet";
    case "notSubscribed": return "no subscription, purchase or grant covers it";
    case "grantRevoked": return `the grant ${reason.grantId} (${reason.source}) was revoked on ${formatDay(reason.revokedAt)}`;
    case "refunded": return `the purchase was refunded (transaction ${reason.transactionId})`;
    case "endedByRevocation": return `access was revoked on ${formatDay(reason.revokedAt)} (${REVOCATION_WORDS.get(reason.revocationType) || reason.revocationType})`;
    case "publishedBeforeSubscription": return `published before the subscription began on ${formatDay(reason.firstPeriodStart)}`;
    case "publishedDuringLapse":
      return reason.lapseEnd ? `published during a lapse, from ${formatDay(reason.lapseStart)} to ${formatDay(reason.lapseEnd)}` : `published after the subscription lapsed on ${formatDay(reason.lapseStart)}`;
    case "streamingInactive": return reason.since ? `streaming stopped on ${formatDay(reason.since)}` : "streaming is not active";
    case "outsideStreamingWindow": return `older than the latest ${reason.window} issues streaming gives`;
    default: return String(reason.kind || "");
  }
}

/** Fetches the publication's timeline with the token and shows it through a blob: URL. */
async function showTimeline(section, publicationId, at, load) {
  const image = $('img[data-role="timeline"]', section);
  try {
    const response = await request("GET", "/v1/users/{userId}/timeline.svg", { userId: state.userId }, {
      query: { at, environment: state.environment, publication: publicationId },
    });
    const blob = await response.blob();
    if (load !== state.load) return;
    const url = URL.createObjectURL(blob);
    state.blobURLs.push(url);
    image.src = url;
  } catch (error) {
    if (load !== state.load) return;
    image.replaceWith(element("p", { class: "hint" }, ["The timeline could not be drawn."]));
    showError(error);
  }
}

/** Empties the explanation, for a new reader or instant. */
function resetExplanation() {
  const explanation = $('[data-role="explanation"]');
  explanation.removeAttribute("data-issue");
  explanation.textContent = "";
  $('[data-role="explanation-title"]').textContent = "Pick an issue to see why it is readable or not.";
  for (const issue of document.querySelectorAll(".issue[aria-pressed]")) issue.removeAttribute("aria-pressed");
}

/** Asks why an issue is readable or not as of `at`, the instant its list shows, and shows the paragraph. */
async function explain(publicationId, issueId, title, button, at) {
  clearMessages();
  const load = state.load;
  resetExplanation();
  button.setAttribute("aria-pressed", "true");
  const explanation = $('[data-role="explanation"]');
  $('[data-role="explanation-title"]').textContent = `${title}: loading…`;
  try {
    const answer = await requestJSON("GET", "/v1/users/{userId}/issues/{publicationId}/{issueId}/explanation", { userId: state.userId, publicationId, issueId }, {
      query: { at, environment: state.environment },
    });
    if (load !== state.load) return;
    $('[data-role="explanation-title"]').textContent = `${answer.title || title}: ${answer.readable ? "readable" : "not readable"}`;
    explanation.textContent = answer.explanation;
    explanation.setAttribute("data-issue", issueId);
  } catch (error) {
    $('[data-role="explanation-title"]').textContent = `${title}: no explanation`;
    showError(error);
  }
}

/** Reloads the reader as of the picker's instant. */
function changeAsOf(event) {
  event.preventDefault();
  clearMessages();
  const form = event.currentTarget;
  state.at = fromPickerValue(form.elements.at.value);
  state.environment = form.elements.environment.value;
  loadReader();
}

/** Reloads the reader as of now. */
function asOfNow() {
  clearMessages();
  state.at = null;
  $('#as-of input[name="at"]').value = "";
  loadReader();
}

// MARK: Evidence

/** Each evidence table's columns: the JSON key, its heading, and how it is shown. */
const EVIDENCE_COLUMNS = {
  subscriptions: [["environment", "Environment"], ["originalTransactionId", "Original transaction"], ["linkedAt", "Linked", "instant"]],
  transactions: [
    ["environment", "Environment"], ["transactionId", "Transaction"], ["originalTransactionId", "Original"], ["productId", "Product"],
    ["purchased", "Purchased", "instant"], ["expires", "Expires", "instant"], ["revoked", "Refunded or revoked", "instant"],
    ["revocationType", "Revocation type", "revocation"], ["revocationPercentage", "Refunded share", "milliunits"],
    ["upgraded", "Upgraded"], ["trial", "Trial"], ["introOffer", "Intro offer"], ["offer", "Offer"], ["signedAt", "Signed", "signed"],
  ],
  renewals: [
    ["environment", "Environment"], ["originalTransactionId", "Original transaction"], ["evidenceAt", "As known on", "instant"],
    ["productId", "Product"], ["autoRenewProductId", "Renews as"], ["autoRenewOn", "Auto-renew"], ["billingRetry", "Billing retry"],
    ["gracePeriodExpires", "Grace until", "instant"], ["expirationIntent", "Expiration intent"],
  ],
  notifications: [
    ["receivedAt", "Received", "instant"], ["type", "Type"], ["subtype", "Subtype"], ["environment", "Environment"],
    ["signed", "Signed (version 2)"], ["notificationUUID", "Notification id"], ["originalTransactionIds", "Original transactions"],
  ],
  grants: [
    ["grantId", "Grant"], ["source", "Source"], ["gives", "Gives", "grant"], ["start", "Start", "instant"], ["end", "End", "instant"],
    ["revokedAt", "Revoked", "instant"],
  ],
  "app-account-tokens": [["appAccountToken", "App account token"], ["linked", "Linked", "instant"]],
};

/** Fills every evidence table from the evidence answer. */
function showEvidence(evidence) {
  const rows = {
    subscriptions: evidence.subscriptions, transactions: evidence.transactions, renewals: evidence.renewals,
    notifications: evidence.notifications, grants: evidence.grants, "app-account-tokens": evidence.appAccountTokens,
  };
  state.grants = evidence.grants || [];
  for (const [name, columns] of Object.entries(EVIDENCE_COLUMNS)) {
    fillTable($(`[data-evidence="${name}"]`), columns, rows[name], name === "grants" ? grantActions : null);
  }
}

/** Fills a table's head and rows; `actions` adds a first cell of buttons per row, in sight however wide the table. */
function fillTable(table, columns, rows, actions) {
  const head = $("thead", table);
  const body = $("tbody", table);
  clear(head);
  clear(body);
  const headings = columns.map(([, label]) => element("th", { scope: "col" }, [label]));
  if (actions) headings.unshift(element("th", { scope: "col" }, [element("span", { class: "visually-hidden" }, ["Actions"])]));
  head.append(element("tr", {}, headings));
  if (!rows || rows.length === 0) {
    body.append(element("tr", {}, [element("td", { class: "empty", colspan: String(headings.length) }, [rows ? "None" : "Not available"])]));
    return;
  }
  for (const row of rows) {
    const cells = columns.map(([key, , kind]) => element("td", (kind === "instant" || kind === "revocation") && row[key] ? { title: row[key] } : {}, [columnText(row, key, kind)]));
    if (actions) cells.unshift(element("td", { class: "actions" }, actions(row)));
    body.append(element("tr", {}, cells));
  }
}

/** A cell's text, with the few columns that combine fields. */
function columnText(row, key, kind) {
  if (kind === "signed") return row[key] ? `signed ${tableInstant(row[key])}` : "from a receipt";
  if (kind === "grant") return grantGives(row);
  if (kind === "revocation") return row[key] ? REVOCATION_WORDS.get(row[key]) || String(row[key]) : "—";
  // Apple's revocationPercentage is in thousandths of a percent: 50000 is 50%.
  if (kind === "milliunits") return typeof row[key] === "number" ? `${row[key] / 1000}%` : "—";
  return cellText(row[key], kind);
}

/** What a grant gives, in words. */
function grantGives(grant) {
  if (grant.issues) return `${grant.publication}: issues ${grant.issues.join(", ")}`;
  const window = grant.window ? `, latest ${grant.window}` : "";
  return `${(grant.publications || []).join(", ")} (${grant.access}${window})`;
}

/** The edit and revoke buttons of a grant's row. */
function grantActions(grant) {
  const edit = element("button", { type: "button", class: "small", "data-action": "edit-grant", "data-grant-id": grant.grantId }, ["Edit"]);
  edit.addEventListener("click", () => editGrant(grant));
  const revoke = element("button", { type: "button", class: "small danger", "data-action": "revoke-grant", "data-grant-id": grant.grantId }, ["Revoke…"]);
  revoke.disabled = Boolean(grant.revokedAt);
  revoke.addEventListener("click", () => revokeGrant(grant.grantId));
  return [edit, " ", revoke];
}

// MARK: Actions

/** The grant form's publication choices: the catalog's publications. */
function fillPublicationChoices() {
  const select = $('#grant select[name="publication"]');
  const chosen = select.value;
  clear(select);
  for (const publication of state.publications) {
    select.append(element("option", { value: publication.publication }, [publication.title || publication.publication]));
  }
  if (chosen) select.value = chosen;
}

/** Shows only the grant form's fields of the chosen scope. */
function showGrantScope() {
  const scope = $('#grant select[name="scope"]').value;
  for (const field of document.querySelectorAll("#grant [data-scope]")) field.hidden = field.getAttribute("data-scope") !== scope;
}

/** Fills the grant form with a grant, to correct it. */
function editGrant(grant) {
  const form = $("#grant");
  form.reset();
  const fields = form.elements;
  fields.grantId.value = grant.grantId;
  fields.source.value = grant.source || "";
  fields.scope.value = grant.issues ? "issues" : "span";
  const publications = grant.issues ? [grant.publication] : grant.publications || [];
  fields.publication.value = publications[0] || "";
  form.dataset.otherPublications = JSON.stringify(publications.slice(1));
  const others = $('[data-role="other-publications"]');
  others.textContent = publications.length > 1 ? `Also gives ${publications.slice(1).join(", ")}; kept when saved.` : "";
  others.hidden = publications.length <= 1;
  if (grant.access) fields.access.value = grant.access;
  fields.window.value = grant.window === null || grant.window === undefined ? "" : String(grant.window);
  fields.issues.value = (grant.issues || []).join(", ");
  fields.start.value = grant.start || "";
  fields.end.value = grant.end || "";
  fields.revokedAt.value = grant.revokedAt || "";
  showGrantScope();
  fields.grantId.focus();
}

/** Forgets the publications a corrected grant gives besides the chosen one. */
function resetGrantForm() {
  const form = $("#grant");
  delete form.dataset.otherPublications;
  $('[data-role="other-publications"]').hidden = true;
  setTimeout(showGrantScope, 0);
}

/** The PUT body the grant form describes. */
function grantBody(fields, otherPublications) {
  const body = { source: fields.source.value.trim(), start: fields.start.value.trim() };
  if (fields.scope.value === "issues") {
    body.publication = fields.publication.value;
    body.issues = fields.issues.value.split(",").map((id) => id.trim()).filter((id) => id !== "");
  } else {
    body.publications = [fields.publication.value].concat(otherPublications.filter((id) => id !== fields.publication.value));
    body.access = fields.access.value;
    // Sent as given (the service names a bad one); null, no window, only when the field is empty.
    const window = fields.window.value.trim();
    body.window = window === "" ? null : Number(window);
    if (fields.end.value.trim()) body.end = fields.end.value.trim();
  }
  if (fields.revokedAt.value.trim()) body.revokedAt = fields.revokedAt.value.trim();
  return body;
}

/** Stores the grant the form describes, once confirmed. */
async function saveGrant(event) {
  event.preventDefault();
  clearMessages();
  const form = event.currentTarget;
  const grantId = form.elements.grantId.value.trim();
  const body = grantBody(form.elements, JSON.parse(form.dataset.otherPublications || "[]"));
  const exists = state.grants.some((grant) => grant.grantId === grantId);
  const what = body.issues ? `issues ${body.issues.join(", ")} of ${body.publication}` : `${body.publications.join(", ")} (${body.access}${body.window !== null ? `, latest ${body.window}` : ""}) from ${body.start}${body.end ? ` to ${body.end}` : ""}`;
  const userId = state.userId;
  if (!(await confirmAction(`${exists ? "Correct" : "Give"} grant ${grantId} for reader ${userId}: ${what}?`))) return;
  try {
    await requestJSON("PUT", "/v1/users/{userId}/grants/{grantId}", { userId, grantId }, { body });
  } catch (error) {
    showError(error);
    return;
  }
  form.reset();
  showNotice(`Grant ${grantId} ${exists ? "corrected" : "given"}.`);
  loadReader();
}

/** Revokes a grant from now on, once confirmed. */
async function revokeGrant(grantId) {
  clearMessages();
  const userId = state.userId;
  if (!(await confirmAction(`Revoke grant ${grantId} of reader ${userId} from now on? The record stays.`))) return;
  try {
    await requestJSON("DELETE", "/v1/users/{userId}/grants/{grantId}", { userId, grantId });
  } catch (error) {
    showError(error);
    return;
  }
  showNotice(`Grant ${grantId} revoked.`);
  loadReader();
}

/** Restores the reader's purchases from a transaction id, once confirmed. */
async function restore(event) {
  event.preventDefault();
  clearMessages();
  const form = event.currentTarget;
  const transactionId = form.elements.transactionId.value.trim();
  const userId = state.userId;
  if (!(await confirmAction(`Ask Apple for the purchases of transaction ${transactionId} and link them to reader ${userId}?`))) return;
  try {
    await requestJSON("POST", "/v1/users/{userId}/restore", { userId }, { body: { transactionId } });
  } catch (error) {
    showError(error);
    return;
  }
  form.reset();
  showNotice(`Purchases of transaction ${transactionId} restored.`);
  loadReader();
}

// MARK: Operations

/** Loads health, the main metrics and the rejected notifications. */
async function loadOperations() {
  clearMessages();
  await Promise.all([showHealth(), showMetrics(), showRejected()]);
}

/** Shows whether the service can write its database. */
async function showHealth() {
  const area = $('[data-role="health"]');
  clear(area);
  let answer;
  try {
    // 503 answers the health's own shape, not an error: read either.
    const response = await fetch("/health", { cache: "no-store", credentials: "omit" });
    answer = await response.json();
  } catch (error) {
    area.append(element("p", { class: "status status-expired" }, ["unreachable"]));
    showError(new APIError(0, null, `the health could not be read: ${error.message}`));
    return;
  }
  const ok = answer.status === "ok";
  area.append(element("p", { class: `status ${ok ? "status-active" : "status-expired"}` }, [ok ? "ok: the database takes writes" : `degraded: ${answer.database || ""}`]));
}

/** The Prometheus text's samples as [name, labels, value]. */
function parseMetrics(text) {
  const samples = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (match) samples.push([match[1], match[2] || "", Number(match[3])]);
  }
  return samples;
}

/** The sum of a metric's samples whose labels pass `keep`. */
function total(samples, name, keep) {
  return samples.filter(([metric, labels]) => metric === name && (!keep || keep(labels))).reduce((sum, [, , value]) => sum + value, 0);
}

/** Shows a few main figures from /metrics. */
async function showMetrics() {
  const area = $('[data-role="metrics"]');
  clear(area);
  let samples;
  try {
    samples = parseMetrics(await (await request("GET", "/metrics")).text());
  } catch (error) {
    showError(error);
    return;
  }
  const figures = [
    ["Requests answered", total(samples, "masthead_requests_total")],
    ["Server errors (5xx)", total(samples, "masthead_requests_total", (labels) => /status="5/.test(labels))],
    ["Refused as unauthorized (401)", total(samples, "masthead_requests_total", (labels) => /status="401"/.test(labels))],
    ["App Store notifications stored", total(samples, "masthead_notifications_total")],
    ["Failed database writes", total(samples, "masthead_store_errors_total")],
    ["Readers cached", total(samples, "masthead_cached_users")],
  ];
  for (const [label, value] of figures) {
    area.append(element("div", { class: "figure" }, [element("dt", {}, [label]), element("dd", {}, [value.toLocaleString("en")])]));
  }
}

/** Lists the rejected notifications, newest first, with their reasons. */
async function showRejected() {
  const table = $('[data-role="rejected"]');
  let answer;
  try {
    answer = await requestJSON("GET", "/v1/notifications/rejected", {}, { query: { limit: "100" } });
  } catch (error) {
    fillTable(table, REJECTED_COLUMNS, null, null);
    showError(error);
    return;
  }
  fillTable(table, REJECTED_COLUMNS, answer.rejectedNotifications || [], null);
}

/** The rejected notifications table's columns. */
const REJECTED_COLUMNS = [["received", "Received", "instant"], ["reason", "Reason"], ["kind", "Kind"], ["bodyBytes", "Bytes"], ["id", "Id"]];

// MARK: Start

/** Wires the page's forms and buttons, and restores a signed-in tab. */
function start() {
  $("#sign-in").addEventListener("submit", signIn);
  $('#sign-in button[type="submit"]').disabled = false;
  $('[data-action="sign-out"]').addEventListener("click", signOut);
  $('[data-action="show-readers"]').addEventListener("click", () => showView("readers"));
  $('[data-action="show-operations"]').addEventListener("click", () => showView("operations"));
  $('[data-action="refresh-operations"]').addEventListener("click", loadOperations);
  $("#find").addEventListener("submit", find);
  $("#as-of").addEventListener("submit", changeAsOf);
  $('[data-action="now"]').addEventListener("click", asOfNow);
  $("#grant").addEventListener("submit", saveGrant);
  $("#grant").addEventListener("reset", resetGrantForm);
  $('#grant select[name="scope"]').addEventListener("change", showGrantScope);
  $("#restore").addEventListener("submit", restore);
  showGrantScope();
  setSignedIn(Boolean(sessionStorage.getItem(TOKEN_KEY)));
  showView("readers");
}

document.addEventListener("DOMContentLoaded", start);
