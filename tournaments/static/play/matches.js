// The player's list of live and pending matches, from GET /api/players/me/matches/, kept fresh
// so "your turn" appears without a reload.
"use strict";

(function () {
  const { el, errorText, clock } = window.Play;
  const root = document.getElementById("matches");
  const tableUrl = (id) => root.dataset.tableUrl.replace(/0\/$/, `${id}/`);
  const REFRESH_MS = 3000;

  // participants, to_act and my_seat all name the seats of the match's current game.
  function atSeat(match, seat) {
    return (match.participants || []).find((p) => p.seat === seat) || null; // none: an engine seat
  }

  function seatName(match, seat) {
    const found = atSeat(match, seat);
    return found ? found.name : "the engine";
  }

  function row(match) {
    const competition = match.competition || {};
    const opponents = (match.participants || []).filter((p) => !p.you).map((p) => p.name);
    let turn;
    if (match.status === "pending") turn = el("span", { class: "tag" }, "not started");
    else if (match.my_turn) {
      // The time left for this decision, as the table's clock reads it ("2 days 23 hours" by correspondence).
      const left = match.my_deadline ? ` · ${clock(Date.parse(match.my_deadline) - Date.now())} left` : "";
      turn = [el("strong", { class: "tag acting" }, "your turn"), left ? el("span", { class: "quiet time-left" }, left) : null];
    }
    else if ((match.to_act || []).length) turn = `waiting for ${match.to_act.map((s) => seatName(match, s)).join(" and ")}`;
    else turn = "";
    return el("li", { class: `match${match.my_turn ? " my-turn" : ""}`, dataset: { match: match.id, myTurn: match.my_turn ? "yes" : "no" } },
      el("a", { href: match.play_url || tableUrl(match.id) }, `${competition.name || "Match"} · ${competition.game || ""} · match ${match.id}`),
      el("span", { class: "quiet" }, ` round ${match.round} · ${match.status}`, opponents.length ? ` · against ${opponents.join(", ")}` : ""),
      " ", turn);
  }

  async function refresh() {
    let response;
    try {
      response = await fetch(root.dataset.matchesUrl, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" });
    } catch (error) {
      return; // Offline for a moment: the next refresh tries again.
    }
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      root.replaceChildren(el("p", { class: "error", role: "alert" }, errorText(body, `Your matches could not be loaded (error ${response.status}).`)));
      return;
    }
    const matches = Array.isArray(body) ? body : (body && body.results) || [];
    root.replaceChildren(matches.length
      ? el("ul", { class: "matches" }, matches.map(row))
      : el("p", { class: "quiet" }, "You have no live or pending matches."));
    document.title = (matches.some((m) => m.my_turn) ? "● Your turn · " : "") + "My matches · Card club";
  }

  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
})();
