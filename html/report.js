/* herder-audit HTML report, part 4 of 4: reads the embedded data (the
 * document `--format json` prints, #report-data, and the timeline,
 * #timeline-data), draws each group, and records on <html> that it is done
 * (data-rendered) with its timings. In the address, `#finding-N` opens
 * with finding N shown, `#change-N` with change N's blast radius, and
 * `#bench` times redraws. */
(function (HA) {
  'use strict';
  const root = document.documentElement;

  function main() {
    const t0 = performance.now();
    const report = JSON.parse(document.getElementById('report-data').textContent);
    const tl = JSON.parse(document.getElementById('timeline-data').textContent);
    const parsed = performance.now();
    const data = { report, tl };
    const views = [];
    for (const section of document.querySelectorAll('section.group[data-group]')) {
      views.push(new HA.GroupView(Number(section.getAttribute('data-group')), section, data));
    }
    const done = performance.now();
    root.setAttribute('data-findings', String(report.findings.length));
    root.setAttribute('data-lanes', String(document.querySelectorAll('g.lane').length));
    root.setAttribute('data-parse-ms', (parsed - t0).toFixed(1));
    root.setAttribute('data-render-ms', (done - parsed).toFixed(1));
    root.setAttribute('data-ready-ms', done.toFixed(1));
    let resizeTimer = null;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => views.forEach((v) => v.render()), 100);
    });
    window.addEventListener('load', () => root.setAttribute('data-load-ms', performance.now().toFixed(1)));
    if (location.hash === '#bench') bench(views);
    // `#finding-N` opens with finding N shown (as the findings table links).
    const m = /^#finding-(\d+)$/.exec(location.hash);
    if (m) {
      const i = Number(m[1]) - 1;
      const v = views.find((g) => g.findings.some((f) => f.i === i));
      if (v) { v.select(i, false, null, true); v.render(); }
    }
    // `#change-N` opens with change N's blast radius shown, as a click on
    // its marker does.
    const c = /^#change-(\d+)$/.exec(location.hash);
    if (c) {
      const i = Number(c[1]) - 1;
      const v = views.find((g) => g.down.changes.some((x) => x.i === i));
      if (v) {
        const marker = v.box.querySelector('.change-marker[data-change="' + i + '"]');
        if (marker) marker.dispatchEvent(new MouseEvent('click', { bubbles: true }));
        else v.down.select(i);
        v.render();
      }
    }
    root.setAttribute('data-rendered', '1');
  }

  /** `#bench`: zoom in and out and pan synchronously, timing each redraw
   * (benches/html.sh reads the figures). */
  function bench(views) {
    const times = [];
    for (const v of views) {
      for (let i = 0; i < 8; i++) { v.zoom(0.5); v.render(); times.push(v.lastRenderMs); }
      for (let i = 0; i < 8; i++) { v.pan(0.5); v.render(); times.push(v.lastRenderMs); }
      for (let i = 0; i < 8; i++) { v.zoom(2); v.render(); times.push(v.lastRenderMs); }
      for (let i = 0; i < 8 && v.g.generations.length; i++) { v.stepGeneration(1); v.render(); times.push(v.lastRenderMs); }
      v.genIndex = null;
      v.setView(v.full);
      v.render();
    }
    times.sort((a, b) => a - b);
    root.setAttribute('data-bench-redraws', String(times.length));
    root.setAttribute('data-bench-median-ms', times.length ? times[times.length >> 1].toFixed(1) : '0');
    root.setAttribute('data-bench-max-ms', times.length ? times[times.length - 1].toFixed(1) : '0');
  }

  try {
    main();
  } catch (e) {
    HA.recordError(e && e.stack ? e.stack : e);
    throw e;
  }
})(window.HerderAudit);
