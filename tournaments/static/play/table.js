// One live table: keeps the seat's view current (server-sent events, polling with If-None-Match
// when the stream fails), shows it, and sends the seat's moves.
"use strict";

(function () {
  const { el, actionLabel, cookie, uuid, clock, errorText, games } = window.Play;
  const root = document.getElementById("table");
  const urls = { table: root.dataset.tableUrl, moves: root.dataset.movesUrl, events: root.dataset.eventsUrl };
  const $ = (id) => document.getElementById(id);

  const POLL_MS = 400; // Well under the half second a move may take to reach the other seats.
  const STREAM_RETRY_MS = 5000;
  // How long a move is kept and sent again while the club answers 503 (its database restarting).
  const UNAVAILABLE_PATIENCE_MS = 90000;

  let table = null; // The latest table the server sent.
  let receivedAt = 0; // performance.now() when it came: the clocks count down from there.
  let etag = "";
  let stream = null;
  let pollTimer = null;
  let sending = false; // One move in flight at a time: the buttons are off until it is answered.

  // --- keeping the view current -------------------------------------------------------------

  function accept(next) {
    // A stream message and a move's answer can cross; never go back to an older step.
    if (table && next.match === table.match && next.version < table.version) return;
    const changed = !table || next.version !== table.version;
    table = next;
    receivedAt = performance.now();
    render();
    // When this page first showed this version (wall-clock ms): how long moves take to reach each page.
    if (changed) root.dataset.shownAt = String(performance.timeOrigin + performance.now());
  }

  async function fetchTable() {
    const headers = { Accept: "application/json" };
    if (etag) headers["If-None-Match"] = etag;
    let response;
    try {
      response = await fetch(urls.table, { headers, credentials: "same-origin", cache: "no-store" });
    } catch (error) {
      setTransport("offline, retrying");
      return;
    }
    if (response.status === 304) return;
    if (response.ok) {
      etag = response.headers.get("ETag") || "";
      accept(await response.json());
      return;
    }
    const body = await response.json().catch(() => null);
    if (response.status === 403 || response.status === 401) {
      stopAll();
      showStatus(errorText(body, "You may not watch this table."));
      $("status").append(" ", el("a", { href: `/accounts/login/?next=${encodeURIComponent(location.pathname)}` }, "Sign in"));
    } else if (response.status === 404) {
      stopAll();
      showStatus("There is no such table.");
    }
  }

  function startPolling() {
    if (pollTimer) return;
    setTransport("polling");
    pollTimer = setInterval(fetchTable, POLL_MS);
  }

  function stopPolling() {
    clearInterval(pollTimer);
    pollTimer = null;
  }

  function connect() {
    if (!window.EventSource) {
      startPolling();
      return;
    }
    stream = new EventSource(urls.events, { withCredentials: true });
    stream.addEventListener("open", () => {
      stopPolling();
      setTransport("live");
    });
    stream.addEventListener("table", (event) => accept(JSON.parse(event.data)));
    stream.addEventListener("error", () => {
      // The browser would retry on its own, but a proxy that buffers or a server without the
      // stream would leave the page frozen meanwhile: poll until the stream comes back.
      stream.close();
      stream = null;
      if (table && table.status === "done") return;
      startPolling();
      setTimeout(() => { if (!stream && !(table && table.status === "done")) connect(); }, STREAM_RETRY_MS);
    });
  }

  function stopAll() {
    stopPolling();
    if (stream) stream.close();
    stream = null;
  }

  function setTransport(text) {
    $("transport").textContent = text;
  }

  // --- moves --------------------------------------------------------------------------------

  async function move(action) {
    if (sending || !table) return;
    sending = true;
    hideRefusal();
    setButtons(false);
    const payload = { action, version: table.version, client_move_id: uuid() };
    root.dataset.movedAt = String(performance.timeOrigin + performance.now());
    try {
      // A network failure leaves us not knowing whether the move was taken: send it once more
      // with the same client_move_id, which the server applies at most once. A 503 (the club's
      // database briefly away) keeps the move and sends it again when the server says to.
      let response;
      let failures = 0;
      let waited = 0;
      for (;;) {
        try {
          response = await post(payload);
        } catch (error) {
          if (++failures > 1) throw error;
          continue;
        }
        if (response.status !== 503 || waited >= UNAVAILABLE_PATIENCE_MS) break;
        const seconds = Math.min(Math.max(Number(response.headers.get("Retry-After")) || 5, 1), 10);
        showRefusal(`The club is briefly unavailable. Your move is kept and will be sent again in ${seconds} seconds.`);
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        waited += seconds * 1000;
      }
      hideRefusal();
      const body = await response.json().catch(() => null);
      if (response.ok) {
        accept(body);
        return;
      }
      if (response.status === 400) showRefusal(`Move refused: ${errorText(body && (body.action || body), "the rules do not allow it")}`);
      else if (response.status === 409) showRefusal(`Move not taken: ${errorText(body, "the table changed before it arrived")}`);
      else if (response.status === 403) showRefusal(`Move refused: ${errorText(body, "you are not seated at this table")}`);
      else showRefusal(`Move not taken (error ${response.status}): ${errorText(body, "please try again")}`);
      await fetchTable();
    } catch (error) {
      showRefusal("Move not sent: the server cannot be reached. Please try again.");
    } finally {
      sending = false;
      render();
    }
  }

  function post(payload) {
    return fetch(urls.moves, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": cookie("csrftoken") },
      body: JSON.stringify(payload),
    });
  }

  function setButtons(enabled) {
    for (const button of $("actions").querySelectorAll("button")) button.disabled = !enabled;
  }

  function showRefusal(text) {
    const box = $("refusal");
    box.textContent = text;
    box.hidden = false;
  }

  function hideRefusal() {
    $("refusal").hidden = true;
  }

  // --- drawing ------------------------------------------------------------------------------

  function context() {
    const seats = table.seats || [];
    const you = table.seat === undefined ? null : table.seat;
    return {
      you,
      seatNumbers: seats.map((s) => s.seat),
      name(seat) {
        const found = seats.find((s) => s.seat === seat);
        const name = found ? found.name : `seat ${seat + 1}`;
        return seat === you ? `${name} (you)` : name;
      },
    };
  }

  // A game with no renderer of its own (engine/games/web/play/games.js): its observation's fields as
  // they are, which is all the seat may see; the moves are the legal actions' buttons below.
  // Card codes are drawn as cards, lists of plain values as "a, b, c", lists of anything else as a
  // numbered list, objects as nested terms; nothing here knows which game it is.
  function plainObservation(obs) {
    const { isCard, card, cards } = window.Play;
    const none = () => el("span", { class: "quiet" }, "none");
    const plain = (value) => value === null || typeof value !== "object";
    const terms = (object, cls) => el("dl", { class: cls },
      Object.entries(object).map(([key, value]) => [el("dt", {}, key.replaceAll("_", " ")), el("dd", {}, shown(value))]));
    function shown(value) {
      if (value === null || value === undefined) return none();
      if (typeof value === "boolean") return value ? "yes" : "no";
      if (isCard(value)) return card(value);
      if (Array.isArray(value)) {
        if (!value.length) return none();
        if (value.every(isCard)) return cards(value);
        if (value.every(plain)) return value.map((item, i) => [i ? ", " : "", shown(item)]);
        return el("ol", { class: "plain-list" }, value.map((item) => el("li", {}, shown(item))));
      }
      if (typeof value === "object") return Object.keys(value).length ? terms(value, "facts nested") : none();
      return String(value);
    }
    return terms(obs, "facts observation");
  }

  function render() {
    if (!table) return;
    const ctx = context();
    root.dataset.status = table.status;
    root.dataset.version = table.version;
    $("version").textContent = table.version;
    renderStatus(ctx);
    renderSeats(ctx);
    const board = games[table.game];
    let content;
    if (!table.observation) content = el("p", { class: "quiet" }, "No cards are dealt yet.");
    else if (!board) content = plainObservation(table.observation);
    else content = board(table, table.observation, ctx);
    $("board").replaceChildren(content);
    renderActions();
    renderGames();
    $("commitments").replaceChildren(...(table.commitments || []).map((hex, i) =>
      el("li", {}, `Game ${i + 1}: `, el("code", { class: "commitment" }, hex))));
    if (table.status === "done") {
      stopAll();
      setTransport("match over");
    }
  }

  function showStatus(text) {
    // A live region: writing the same words again would make screen readers repeat them on every update.
    if ($("status").textContent !== text) $("status").textContent = text;
  }

  function renderStatus(ctx) {
    const mine = (table.legal_actions || []).length > 0;
    let text;
    if (table.status === "pending") text = "The match has not started yet.";
    else if (table.status === "done") text = "The match is over.";
    else if (mine) text = "Your turn.";
    else if ((table.awaiting || []).length) text = `Waiting for ${table.awaiting.map(ctx.name).join(" and ")}.`;
    else text = "Waiting for the table.";
    if (ctx.you === null && table.status === "live") text = `You are watching. ${text}`;
    showStatus(text);
    root.classList.toggle("my-turn", mine);
    document.title = (mine ? "● Your turn · " : "") + document.title.replace(/^● Your turn · /, "");
  }

  function renderSeats(ctx) {
    const toAct = new Set(table.to_act || []);
    const awaiting = new Set(table.awaiting || []);
    $("seats").replaceChildren(...(table.seats || []).map((seat) => {
      let turn = "";
      if (table.status === "live" && toAct.has(seat.seat)) {
        // RULES.md: a simultaneous choice stays hidden until the step is applied, so only "has chosen".
        turn = awaiting.has(seat.seat) && !seat.acted ? "to act" : "has chosen";
      }
      const kind = { person: "person", bot: "bot", engine: "played by the engine" }[seat.kind] || seat.kind;
      return el("li", { class: `seat${seat.seat === ctx.you ? " you" : ""}${turn ? " turn" : ""}`, dataset: { seat: seat.seat, turn: turn || "no" } },
        el("span", { class: "seat-name" }, ctx.name(seat.seat)),
        el("span", { class: "quiet" }, ` seat ${seat.seat + 1} · ${kind}`),
        (table.scores || [])[seat.seat] !== undefined ? el("span", { class: "score" }, ` · score ${table.scores[seat.seat]}`) : null,
        turn ? el("span", { class: `tag ${turn === "to act" ? "acting" : "chosen"}` }, turn) : null,
        seat.clock ? el("span", { class: "clock", dataset: { seat: seat.seat } }) : null);
    }));
    tickClocks();
  }

  // Each seat's clock as the server gave it, run down locally for the seats still deciding.
  function tickClocks() {
    if (!table) return;
    const elapsed = performance.now() - receivedAt;
    const awaiting = new Set(table.status === "live" ? table.awaiting || [] : []);
    for (const node of document.querySelectorAll("#seats .clock")) {
      const seat = Number(node.dataset.seat);
      const found = (table.seats || []).find((s) => s.seat === seat);
      if (!found || !found.clock) continue;
      const running = awaiting.has(seat) && !found.acted;
      const spent = running ? elapsed : 0;
      const move = found.clock.move_ms - spent;
      const game = found.clock.game_ms - spent;
      node.textContent = ` · move ${clock(move)} · game ${clock(game)}`;
      node.classList.toggle("running", running);
      node.classList.toggle("low", running && Math.min(move, game) < 30000);
    }
  }

  function renderActions() {
    const actions = table.status === "live" ? table.legal_actions || [] : [];
    const section = $("actions-section");
    section.hidden = actions.length === 0;
    $("actions").replaceChildren(...actions.map((action) =>
      el("button", { type: "button", class: "action", dataset: { action }, disabled: sending, onclick: () => move(action) },
        actionLabel(action))));
    // The moves sit in a bar fixed at the bottom while it is your turn (site/table.css): the page is padded by
    // its height so that the bar never hides the end of the page.
    root.style.setProperty("--actions-height", section.hidden ? "0px" : `${section.offsetHeight + 16}px`);
  }

  // Games are numbered from 0 by the API (as are the commitments); people count from 1.
  function renderGames() {
    const games = table.games || 1;
    const number = (table.game_number || 0) + 1;
    const played = (table.finished_games || []).length;
    // A best-of-N stops once decided, so "of N" is an upper bound there.
    const of = table.best_of ? `of at most ${games} (best of ${games})` : `of ${games}`;
    $("game-number").textContent = table.status !== "done" ? `Game ${number} ${of}.`
      : table.best_of && played < games ? `Decided after ${played} game${played === 1 ? "" : "s"}.`
      : games === 1 ? "The game is played." : `All ${games} games played.`;
    // A game's replay opens once the whole match is over (site/replays/): until then no record is shown.
    $("finished").replaceChildren(...(table.finished_games || []).map((game) =>
      el("li", { dataset: { game: game.number } }, describeResult(game),
        table.status === "done" ? [" · ", el("a", { class: "replay", href: `/play/matches/${table.match}/games/${game.number + 1}/` }, "Replay")] : null)));
  }

  // A finished game's result: its seats are that game's (seats rotate every game), named by the server.
  function describeResult(game) {
    const result = game.result || {};
    const names = game.names || [];
    const engineSeats = game.engine_seats || [];
    const person = (seat) => !engineSeats.includes(seat);
    const people = names.length - engineSeats.length;
    const name = (seat) => names[seat];
    const winners = result.winners || (result.winner === null || result.winner === undefined ? [] : [result.winner]);
    const parts = [`Game ${game.number + 1}: `];
    if (result.forfeit) parts.push(`${name(result.forfeit.seat)} forfeited (${result.forfeit.cause}); `);
    const won = winners.filter(person);
    if (!won.length || won.length === people) parts.push("a draw");
    else if (won.length > 1) parts.push(`shared by ${won.map(name).join(" and ")}`);
    else parts.push(`won by ${name(won[0])}`);
    if (result.scores) {
      // Listed by participant, in the same order for every game, though their seats moved.
      const bySeat = result.scores.map((score, seat) => ({ seat, score }));
      // People's seats rotate every game (seat = (participant + game) mod people); the engine's come last.
      const order = (entry) => (person(entry.seat) ? (entry.seat + game.number) % people : entry.seat);
      bySeat.sort((a, b) => order(a) - order(b));
      parts.push(` · scores ${bySeat.map(({ seat, score }) => `${name(seat)} ${score}`).join(", ")}`);
    }
    if (result.rounds !== undefined) parts.push(` · ${result.rounds} rounds`);
    return parts.join("");
  }

  setInterval(tickClocks, 250);
  fetchTable().then(connect);
  // Back from a sleeping tab or a lost connection: catch up at once rather than on the next event.
  document.addEventListener("visibilitychange", () => { if (!document.hidden) fetchTable(); });
})();
