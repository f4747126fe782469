// The middle of the web table, one renderer per game, kept beside the games' rules (served as
// play/games.js). Each draws only from the seat's observation (engine/games/*.py, observation()): it
// never has, so never shows, a card the seat may not see. A game without a renderer here is drawn
// by table.js from its observation's fields.
"use strict";

(function () {
  const { el, card, cards, hiddenCard } = window.Play;

  function facts(pairs) {
    return el("dl", { class: "facts" }, pairs.filter(Boolean).map(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]));
  }

  function seatTable(caption, ctx, columns) {
    return el("table", { class: "grid" },
      el("caption", {}, caption),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Seat"), columns.map(([title]) => el("th", { scope: "col" }, title)))),
      el("tbody", {}, ctx.seatNumbers.map((seat) =>
        el("tr", { dataset: { seat }, class: seat === ctx.you ? "you" : null },
          el("th", { scope: "row" }, ctx.name(seat)),
          columns.map(([, value]) => el("td", {}, value(seat)))))));
  }

  function ownHand(ctx, content) {
    if (ctx.you === null) return null;
    return el("section", { class: "hand", "aria-label": "Your hand", dataset: { zone: "hand", seat: ctx.you } },
      el("h3", {}, "Your hand"), content);
  }

  // War (RULES.md, "War"): no decisions, the deal decides; the game plays itself out at once.
  function war(table, obs, ctx) {
    return el("div", {},
      el("p", {}, "War has no decisions: the deal decides the game, which the server plays out as soon as it starts."),
      facts([["Rounds", obs.rounds], ["Wars", obs.wars]]),
      seatTable("Cards held", ctx, [["Cards", (s) => (obs.cards || [])[s]]]));
  }

  // 1923 (RULES.md, "1923"): a known right card, an unknown left card, DRAW or LOCK every tick.
  function nineteen23(table, obs, ctx) {
    const sizes = obs.hand_sizes || [];
    const locked = obs.locked || [];
    const known = Array.from(obs.hand || []);
    const hiddenOwn = ctx.you === null ? 0 : Math.max(0, (sizes[ctx.you] || 0) - known.length);
    const last = obs.last_game;
    return el("div", {},
      facts([
        ["Set", obs.mode === "set" ? `${obs.set} (a single set)` : `${obs.set} (to ${obs.target_points} points)`],
        obs.over ? ["Hand", "the set is over"] : ["Hand", `${obs.set_game} of this set (${obs.game} in all)`],
        ["Dealer", ctx.name(obs.dealer)],
        ["Deck", `${obs.deck} card${obs.deck === 1 ? "" : "s"}${obs.can_draw ? "" : ": nothing left to draw"}`],
        ["Dead cards", obs.dead],
      ]),
      seatTable("This set", ctx, [
        ["Hand", (s) => (s === ctx.you ? `${sizes[s] || 0} cards` :
          el("span", { class: "cards" }, Array.from({ length: sizes[s] || 0 }, () => hiddenCard("a hidden card")), ` ${sizes[s] || 0}`))],
        ["Drawing", (s) => (locked[s] ? el("span", { class: "tag" }, "locked") : "drawing")],
        ["Cards won", (s) => (obs.won || [])[s]],
        ["Aces won", (s) => (obs.aces_won || [])[s]],
        ["Points", (s) => (obs.points || [])[s]],
        ["Match cards", (s) => (obs.match_cards || [])[s]],
      ]),
      ownHand(ctx, el("p", {},
        known.length || hiddenOwn ? [
          el("span", { class: "cards" }, known.map(card),
            Array.from({ length: hiddenOwn }, () => hiddenCard("your left card: unknown until you draw or the showdown"))),
          hiddenOwn ? el("span", { class: "quiet" }, " the face-down card is your unknown left card") : null,
        ] : el("span", { class: "quiet" }, "no cards until the next deal"))),
      last ? lastGame1923(last, ctx) : null,
      el("p", {}, el("span", { class: "label" }, "Revealed this set: "), cards(obs.revealed, "nothing yet")));
  }

  function lastGame1923(last, ctx) {
    const winner = last.winner === null || last.winner === undefined ? "nobody: the cards are dead" : ctx.name(last.winner);
    return el("section", { class: "last-game", "aria-label": "The last game" },
      el("h3", {}, `Last hand (set ${last.set}, hand ${last.game}): ${winner} took ${last.cards} cards`),
      el("ul", {}, (last.hands || []).map((hand, seat) =>
        el("li", { dataset: { seat } }, `${ctx.name(seat)}: `, cards(hand), ` = ${(last.values || [])[seat]}`,
          (last.tiebreak_draws || [])[seat] && last.tiebreak_draws[seat].length ? [" · tie-break draws ", cards(last.tiebreak_draws[seat])] : null))),
      last.decided_by ? el("p", { class: "quiet" }, `Decided by: ${String(last.decided_by).replace(/_/g, " ")}`) : null);
  }

  // Banter (RULES.md, "Banter"): upgrades (SPEND/STOP, then BIN), then tricks; Hearts are trumps.
  function banter(table, obs, ctx) {
    const tricks = Array.from(obs.tricks || []);
    return el("div", {},
      facts([
        ["Round", obs.round],
        ["Phase", { upgrade: "upgrades", bin: "binning a card", trick: "tricks", over: "game over" }[obs.phase] || obs.phase],
        ["Round's lead", ctx.name(obs.leader)],
        obs.phase === "trick" ? ["Trick lead", ctx.name(obs.trick_leader)] : null,
      ]),
      seatTable("Race to 40", ctx, [
        ["Score", (s) => (obs.scores || [])[s]],
        ["Tricks this round", (s) => (obs.round_points || [])[s]],
        ["Hand", (s) => (obs.hand_sizes || [])[s]],
        ["Draw pile", (s) => (obs.draw_sizes || [])[s]],
        ["Deck", (s) => (obs.deck_sizes || [])[s]],
        ["Discards", (s) => (obs.discard_sizes || [])[s]],
        ["Hearts spent", (s) => cards((obs.spent || [])[s], "–")],
        ["Binned", (s) => cards((obs.bins || [])[s], "–")],
      ]),
      obs.phase === "trick" ? el("p", { class: "current-trick" },
        obs.led ? [`${ctx.name(obs.trick_leader)} led `, card(obs.led), `; ${ctx.name(1 - obs.trick_leader)} to follow.`]
          : `${ctx.name(obs.trick_leader)} to lead.`) : null,
      ownHand(ctx, el("div", {},
        cards(obs.hand, "empty"),
        obs.bought ? el("p", {}, "You took ", card(obs.bought), " from your deck: now bin a card (it may be that one).") : null)),
      obs.phase === "over" ? null : banterTricks("Tricks this round", tricks, ctx),
      obs.last_tricks && obs.last_tricks.length ?
        // Once the game is over the last round is the one to look at: shown open.
        el("details", { open: obs.phase === "over" },
          el("summary", {}, obs.phase === "over" ? "The last round's tricks" : "The previous round's tricks"),
          banterTricks(obs.phase === "over" ? "Last round" : "Previous round", obs.last_tricks, ctx),
          el("p", {}, "Hearts spent: ", ctx.seatNumbers.map((s) => [`${ctx.name(s)} `, cards((obs.last_spent || [])[s], "–"), " "]))) : null);
  }

  function banterTricks(caption, tricks, ctx) {
    if (!tricks.length) return el("p", { class: "quiet" }, `${caption}: none yet.`);
    return el("table", { class: "grid tricks" },
      el("caption", {}, caption),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "#"), ctx.seatNumbers.map((s) => el("th", { scope: "col" }, ctx.name(s))), el("th", { scope: "col" }, "Won by"))),
      el("tbody", {}, tricks.map(([leader, first, second, winner], i) =>
        el("tr", {}, el("td", {}, i + 1),
          [first, second].map((code, seat) => el("td", { class: seat === leader ? "led" : null }, card(code), seat === leader ? " (led)" : null)),
          el("td", {}, winner === null || winner === undefined ? "drawn: both score" : ctx.name(winner))))));
  }

  // Punk (RULES.md, "Punk"): every seat plays a card at once; the lowest rank played exactly once wins.
  function punk(table, obs, ctx) {
    const tricks = Array.from(obs.tricks || []);
    const winners = Array.from(obs.trick_winners || []);
    const dummy = obs.dummy === null || obs.dummy === undefined || obs.dummy === false ? null : obs.dummy;
    return el("div", {},
      facts([
        ["Target", `${obs.target} points`],
        ["Tricks played", obs.tricks_played],
        ["Cache", cards(obs.cache, "empty")],
        dummy !== null ? ["Dummy", `seat ${dummy + 1}, played by the engine: a random card from its hidden hand each trick. It scores, but only people can win.`] : null,
      ]),
      seatTable("Scores", ctx, [
        ["Score", (s) => (obs.scores || [])[s]],
        ["Cards in hand", (s) => (obs.hand_sizes || [])[s]],
      ]),
      ownHand(ctx, cards(obs.hand, "empty")),
      tricks.length ? el("table", { class: "grid tricks" },
        el("caption", {}, "Tricks"),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "#"), ctx.seatNumbers.map((s) => el("th", { scope: "col" }, ctx.name(s))), el("th", { scope: "col" }, "Won by"))),
        el("tbody", {}, tricks.map((played, i) =>
          el("tr", {}, el("td", {}, i + 1),
            played.map((code, seat) => el("td", { class: winners[i] === seat ? "won" : null }, card(code))),
            el("td", {}, winners[i] === null || winners[i] === undefined ? "nobody: to the cache" : ctx.name(winners[i]))))))
        : el("p", { class: "quiet" }, "No trick played yet."));
  }

  window.Play.games = { war, 1923: nineteen23, banter, punk };
})();
