// The replay viewer (site/replays/replay.html): steps through a finished game's public record, drawing each
// step with the live table's renderers (play/games.js). Step 0 is the view after the deal, step N the view
// after the record's N-th step (docs/records.md, "Public views"). Seat views come only as the server sends
// them: the viewer's own seats, and every seat once a live match has revealed its seed, offered after the end.
"use strict";

(function () {
  const { el, actionLabel, games } = window.Play;
  const root = document.getElementById("replay");
  const $ = (id) => document.getElementById(id);
  const record = JSON.parse($("replay-record").textContent);
  const data = JSON.parse($("replay-data").textContent);

  // A "views" object ({start, steps: [changes]}) as a whole view per step. A change names each key's new
  // value, or "key+" for items added at the end of a list (engine.verify.view_change).
  function expand(views) {
    let view = Object.assign({}, views.start);
    const all = [view];
    for (const change of views.steps) {
      view = Object.assign({}, view);
      for (const [key, value] of Object.entries(change)) {
        if (key.endsWith("+")) {
          const name = key.slice(0, -1);
          view[name] = [...(view[name] || []), ...value];
        } else view[key] = value;
      }
      all.push(view);
    }
    return all;
  }

  const publicViews = expand(record.views);
  const last = publicViews.length - 1;
  const seatViews = (from) => Object.fromEntries(Object.entries(from || {}).map(([seat, views]) => [seat, expand(views)]));
  const ownViews = seatViews(data.own_views);
  const everyViews = seatViews(data.every_views);
  const seats = data.seats;
  let step = 0;
  let reachedEnd = false;

  function context(you) {
    return {
      you,
      seatNumbers: seats.map((s) => s.seat),
      name(seat) {
        const found = seats.find((s) => s.seat === seat);
        const name = found ? found.name : `seat ${seat + 1}`;
        return seat === you ? `${name} (this seat)` : name;
      },
    };
  }

  function draw(obs, you) {
    const board = games[data.game];
    if (!board) return el("pre", { class: "observation" }, JSON.stringify(obs, null, 1));
    return board({ game: data.game, seats, status: "done" }, obs, context(you));
  }

  function describeMoves() {
    if (step === 0) return ["The deal: before anyone moves."];
    const actions = record.actions[step - 1] || [];
    const parts = [`Step ${step}: `];
    if (!actions.length) parts.push("no decision to make; the game played on.");
    else parts.push(actions.length === 1 ? "the move " : "the moves ", actions.map((a, i) => [i ? ", " : "", actionLabel(a)]), ".");
    if (step === last && record.forfeit) {
      const who = context(null).name(record.forfeit.seat);
      parts.push(` ${who} forfeited (${record.forfeit.cause}).`);
    }
    return parts;
  }

  function outcome() {
    const result = record.result || {};
    const ctx = context(null);
    const winners = result.winners || (result.winner === null || result.winner === undefined ? [] : [result.winner]);
    if (!winners.length) return "The game is over: a draw.";
    return `The game is over: won by ${winners.map(ctx.name).join(" and ")}.`;
  }

  function chosenSeat() {
    const value = $("seat-view").value;
    return value === "" ? null : Number(value);
  }

  function render() {
    const seat = chosenSeat();
    const obs = seat === null ? publicViews[step] : ownViews[seat][step];
    root.dataset.step = String(step);
    root.dataset.steps = String(last);
    root.dataset.view = seat === null ? "public" : `seat-${seat}`;
    $("board").replaceChildren(draw(obs, seat));
    $("moves").replaceChildren(...[describeMoves()].flat(Infinity).map((part) => (part instanceof Node ? part : document.createTextNode(part))));
    const words = `Step ${step} of ${last}.` + (step === last ? ` ${outcome()}` : "");
    if ($("step-words").textContent !== words) $("step-words").textContent = words;
    $("slider").value = String(step);
    $("slider-value").textContent = `${step} of ${last}`;
    $("first").disabled = $("previous").disabled = step === 0;
    $("next").disabled = $("last").disabled = step === last;
    renderEveryHand();
    const url = new URL(location.href);
    url.searchParams.set("step", String(step));
    history.replaceState(null, "", url);
  }

  // Every hand is offered only once the end has been reached (a hand the spectators had not yet seen would spoil
  // the game for whoever watches it for the first time); then each step draws every seat's view beside the public.
  function renderEveryHand() {
    const available = Object.keys(everyViews).length > 0;
    $("every-choice").hidden = !(available && reachedEnd);
    const shown = available && reachedEnd && $("every-hand").checked;
    $("hands").hidden = !shown;
    if (!shown) {
      $("hands-boards").replaceChildren();
      return;
    }
    $("hands-boards").replaceChildren(...seats.filter((s) => everyViews[s.seat]).map((s) =>
      el("section", { dataset: { seat: s.seat }, "aria-label": `${s.name}'s view` },
        el("h3", { id: `hand-${s.seat}` }, `${s.name}, seat ${s.seat + 1}`),
        // A wide trick table scrolls inside its own box, never the page (site/table.css).
        el("div", { class: "board", tabindex: 0, role: "region", "aria-labelledby": `hand-${s.seat}` }, draw(everyViews[s.seat][step], s.seat)))));
  }

  function go(next) {
    step = Math.max(0, Math.min(last, next));
    if (step === last) reachedEnd = true;
    render();
  }

  $("first").addEventListener("click", () => go(0));
  $("previous").addEventListener("click", () => go(step - 1));
  $("next").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => go(last));
  $("slider").max = String(last);
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  $("every-hand").addEventListener("change", renderEveryHand);
  $("seat-view").addEventListener("change", render);
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    // The slider and the list steps by themselves; a field keeps its own keys.
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last };
    if (!(event.key in moves)) return;
    event.preventDefault();
    go(moves[event.key]);
  });

  const mine = seats.filter((s) => ownViews[s.seat]);
  if (mine.length) {
    $("seat-view").append(...mine.map((s) => el("option", { value: s.seat }, `${s.name}'s, seat ${s.seat + 1}: its cards as it saw them`)));
    $("view-choice").hidden = false;
  }
  $("too-large").hidden = !data.too_large;
  const asked = Number.parseInt(new URLSearchParams(location.search).get("step") || "0", 10);
  go(Number.isFinite(asked) ? asked : 0);
})();
