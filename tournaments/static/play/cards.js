// Shared helpers of the web table: building DOM nodes, showing cards, talking to the API.
// Plain browser JavaScript, no build step; everything hangs off window.Play.
"use strict";

(function () {
  const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const SUIT_NAMES = {
    C: "clubs", D: "diamonds", H: "hearts", S: "spades",
    // Punk's fifth to tenth suits (RULES.md, "Card notation") have no symbols of their own.
    U: "suit U", V: "suit V", W: "suit W", X: "suit X", Y: "suit Y", Z: "suit Z",
  };
  const RANK_LABELS = { T: "10" };
  const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king", T: "10" };
  const CARD_CODE = /^([A2-9TJQK])([CDHSUVWXYZ])$/;

  // el("p", {class: "x", dataset: {card: "TH"}}, "text", otherNode): attributes, then children.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "dataset") Object.assign(node.dataset, value);
      else if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function isCard(code) {
    return typeof code === "string" && CARD_CODE.test(code);
  }

  function cardLabel(code) {
    const match = CARD_CODE.exec(code);
    if (!match) return code;
    const [, rank, suit] = match;
    return (RANK_LABELS[rank] || rank) + (SUIT_SYMBOLS[suit] || suit);
  }

  function cardName(code) {
    const match = CARD_CODE.exec(code);
    if (!match) return code;
    const [, rank, suit] = match;
    return `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[suit]}`;
  }

  // One card, readable ("10♥") with its code kept for scripts and tests (data-card="TH").
  function card(code) {
    const suit = code.slice(-1);
    return el("span", { class: `card suit-${suit}`, dataset: { card: code }, title: cardName(code) }, cardLabel(code));
  }

  // A face-down card: there, but nobody (not even this page) knows what it is.
  function hiddenCard(title) {
    return el("span", { class: "card hidden", title: title || "a face-down card", "aria-label": title || "face-down card" }, "?");
  }

  function cards(codes, emptyText) {
    const list = Array.from(codes || []);
    if (!list.length) return el("span", { class: "quiet" }, emptyText === undefined ? "none" : emptyText);
    return el("span", { class: "cards" }, list.map(card));
  }

  // An action string ("PLAY TH", "SPEND 3H", "7U", "DRAW") as button content: verbs as words, cards as cards.
  function actionLabel(action) {
    if (isCard(action)) return [card(action)];
    const parts = String(action).split(" ");
    return parts.map((part, i) => {
      const spacer = i ? " " : "";
      if (isCard(part)) return [spacer, card(part)];
      return spacer + part.charAt(0) + part.slice(1).toLowerCase();
    });
  }

  function cookie(name) {
    const found = document.cookie.split(";").map((c) => c.trim()).find((c) => c.startsWith(name + "="));
    return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
  }

  // crypto.randomUUID exists only in secure contexts; a club's server may well be plain http.
  function uuid() {
    if (window.crypto && crypto.randomUUID && window.isSecureContext) return crypto.randomUUID();
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  const counted = (n, unit) => `${n} ${unit}${n === 1 ? "" : "s"}`;

  // Milliseconds as m:ss (h:mm:ss from an hour), never negative; from a day on, days and hours in words
  // ("2 days 23 hours"): a correspondence clock counted in seconds would read 71:59:59.
  function clock(ms) {
    const total = Math.max(0, Math.ceil(ms / 1000));
    const days = Math.floor(total / 86400);
    if (days) {
      const hours = Math.floor((total % 86400) / 3600);
      return hours ? `${counted(days, "day")} ${counted(hours, "hour")}` : counted(days, "day");
    }
    const h = Math.floor(total / 3600);
    const m = Math.floor((total % 3600) / 60);
    const s = String(total % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
  }

  // A DRF error body as one readable line: {"detail": "..."} or {"field": ["...", ...]}.
  function errorText(body, fallback) {
    if (!body) return fallback;
    if (typeof body === "string") return body;
    if (body.detail) return String(body.detail);
    const parts = Object.values(body).flat().map(String);
    return parts.length ? parts.join(" ") : fallback;
  }

  window.Play = { el, append, isCard, card, cards, hiddenCard, cardLabel, cardName, actionLabel, cookie, uuid, clock, errorText };
})();
