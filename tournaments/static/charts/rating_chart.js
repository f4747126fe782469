// The rating chart of the competition pages (admin and public): one line per entrant, rating (μ)
// against round, or for a ladder (canvas data-x-axis="time") against the time its matches finished,
// from the data the page embeds (tournaments/competition_sheets.py, rating_chart). Chart.js draws it.
"use strict";

(function () {
  const data = document.getElementById("rating-chart-data");
  const canvas = document.getElementById("rating-chart");
  if (!data || !canvas || !window.Chart) return;
  const lines = JSON.parse(data.textContent);
  const overTime = canvas.dataset.xAxis === "time";
  // Distinct hues around the wheel, so neighbouring entrants are told apart.
  const colour = (i) => `hsl(${Math.round((i * 360) / Math.max(lines.length, 1))}, 65%, 42%)`;

  // Time is a linear axis of epoch seconds: Chart.js's time axis needs a date adapter, which is not
  // vendored. The steps are whole clock units, so the ticks fall on round times.
  const MINUTE = 60;
  const HOUR = 60 * MINUTE;
  const DAY = 24 * HOUR;
  const STEPS = [
    ...[1, 5, 10, 30],
    ...[MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE],
    ...[HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR],
    ...[DAY, 2 * DAY, 7 * DAY, 30 * DAY, 91 * DAY, 365 * DAY],
  ];
  // The most ticks the axis has room for: a clock time ("14:56:05") takes about 70 px, so a phone's chart
  // takes four and a desk's a dozen, rather than labels written over each other.
  const MOST_TICKS = Math.min(12, Math.max(3, Math.floor((canvas.parentElement || canvas).clientWidth / 70)));
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const two = (n) => String(n).padStart(2, "0");
  const dayOf = (d) => `${d.getDate()} ${MONTHS[d.getMonth()]}`;
  const clockOf = (d, seconds) =>
    `${two(d.getHours())}:${two(d.getMinutes())}` + (seconds ? `:${two(d.getSeconds())}` : "");

  // Folded rather than spread into Math.min: a long ladder has more points than a call takes arguments.
  const xs = lines.flatMap((line) => line.points.map(([x]) => x));
  const first = xs.reduce((a, b) => Math.min(a, b), xs.length ? xs[0] : 0);
  const last = xs.reduce((a, b) => Math.max(a, b), xs.length ? xs[0] : 0);
  // At least a minute wide: left to itself, Chart.js widens an empty range by 5% of its value,
  // and 5% of an epoch time is years.
  const pad = Math.max(0, MINUTE - (last - first)) / 2;
  const span = last - first + 2 * pad;
  const step = STEPS.find((s) => span / s <= MOST_TICKS) || STEPS[STEPS.length - 1];

  // A tick reads as a clock time, with the day where it changes (and on the first tick); a day step or
  // longer reads as the day alone.
  function timeTick(value, index, ticks) {
    const when = new Date(value * 1000);
    if (step >= 91 * DAY) return `${MONTHS[when.getMonth()]} ${when.getFullYear()}`;
    if (step >= DAY) return dayOf(when);
    const clock = clockOf(when, step < MINUTE);
    const before = index > 0 ? new Date(ticks[index - 1].value * 1000) : null;
    return before && dayOf(before) === dayOf(when) ? clock : [clock, dayOf(when)];
  }

  const timeTitle = (items) => {
    if (!items.length) return "";
    const when = new Date(items[0].parsed.x * 1000);
    return `${dayOf(when)} ${when.getFullYear()}, ${clockOf(when, true)}`;
  };

  const x = overTime
    ? {
        type: "linear",
        title: { display: true, text: "Time the match finished" },
        // On whole steps, so that the first and last ticks read as round times too.
        min: Math.floor((first - pad) / step) * step,
        max: Math.ceil((last + pad) / step) * step,
        ticks: { stepSize: step, callback: timeTick, maxRotation: 0 },
      }
    : { type: "linear", title: { display: true, text: "Round" }, ticks: { precision: 0 } };

  new window.Chart(canvas, {
    type: "line",
    data: {
      datasets: lines.map((line, i) => ({
        label: line.name,
        data: line.points.map(([at, mu]) => ({ x: at, y: mu })),
        borderColor: colour(i),
        backgroundColor: colour(i),
        pointRadius: 2,
        tension: 0,
      })),
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: true,
      scales: { x, y: { title: { display: true, text: "Rating" } } },
      plugins: {
        // On a phone the names go under the chart: beside it they are cut short and squeeze the lines.
        // (The box's width: the canvas has none of its own until Chart.js sizes it.)
        legend: { position: (canvas.parentElement || canvas).clientWidth < 600 ? "bottom" : "right" },
        tooltip: overTime ? { callbacks: { title: timeTitle } } : {},
      },
    },
  });
  canvas.dataset.drawn = "true";
})();
