// The rating chart of the admin competition page: one line per entrant, rating (μ) against round,
// from the data the page embeds (tournaments/admin/pages.py, rating_chart). Chart.js draws it.
"use strict";

(function () {
  const data = document.getElementById("rating-chart-data");
  const canvas = document.getElementById("rating-chart");
  if (!data || !canvas || !window.Chart) return;
  const lines = JSON.parse(data.textContent);
  // Distinct hues around the wheel, so neighbouring entrants are told apart.
  const colour = (i) => `hsl(${Math.round((i * 360) / Math.max(lines.length, 1))}, 65%, 42%)`;
  new window.Chart(canvas, {
    type: "line",
    data: {
      datasets: lines.map((line, i) => ({
        label: line.name,
        data: line.points.map(([round, mu]) => ({ x: round, y: mu })),
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
      scales: {
        x: { type: "linear", title: { display: true, text: "Round" }, ticks: { precision: 0 } },
        y: { title: { display: true, text: "Rating (μ)" } },
      },
      plugins: { legend: { position: "right" } },
    },
  });
  canvas.dataset.drawn = "true";
})();
