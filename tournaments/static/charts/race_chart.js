// The race charts of the admin match page: per game, each side's points against round, with the
// target drawn across (tournaments/admin/pages.py, race_charts). Chart.js draws them.
"use strict";

(function () {
  const data = document.getElementById("race-chart-data");
  if (!data || !window.Chart) return;
  const charts = JSON.parse(data.textContent);
  const colours = ["#0b6e4f", "#b3261e", "#1c54b2", "#7a3c96"];
  document.querySelectorAll("canvas.race-chart-canvas").forEach((canvas) => {
    const chart = charts.find((c) => String(c.game) === canvas.dataset.game);
    if (!chart) return;
    const last = Math.max(...chart.lines.map((line) => line.points[line.points.length - 1][0]));
    const sides = chart.lines.map((line, i) => ({
      label: line.name,
      data: line.points.map(([round, total]) => ({ x: round, y: total })),
      borderColor: colours[i % colours.length],
      backgroundColor: colours[i % colours.length],
      pointRadius: 2,
    }));
    const target = {
      label: `Target ${chart.target}`,
      data: [{ x: 0, y: chart.target }, { x: last, y: chart.target }],
      borderColor: "#888",
      borderDash: [6, 4],
      pointRadius: 0,
    };
    new window.Chart(canvas, {
      type: "line",
      data: { datasets: [...sides, target] },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: { type: "linear", title: { display: true, text: `Game ${chart.game}: round` }, ticks: { precision: 0 } },
          y: { beginAtZero: true, title: { display: true, text: "Points" } },
        },
        plugins: { legend: { position: "right" } },
      },
    });
    canvas.dataset.drawn = "true";
  });
})();
