/* herder-audit HTML report, part 1 of 4: error capture, DOM helpers,
 * formatting, the filter drop-downs and the text-output form of a finding.
 * The parts share the `window.HerderAudit` namespace. Text from the logs
 * is only ever set as textContent, never parsed as markup. */
(function () {
  'use strict';
  const HA = (window.HerderAudit = {});

  const root = document.documentElement;
  const errors = [];
  function recordError(what) {
    errors.push(String(what));
    root.setAttribute('data-js-errors', String(errors.length));
    root.setAttribute('data-js-error-text', errors.slice(0, 3).join(' | '));
  }
  window.addEventListener('error', (e) => recordError(e.message || e.error || 'error'));
  window.addEventListener('unhandledrejection', (e) => recordError('unhandled rejection: ' + e.reason));
  const consoleError = console.error;
  console.error = function (...args) {
    recordError(args.join(' '));
    consoleError.apply(console, args);
  };

  HA.recordError = recordError;

  const SVGNS = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs, parent) {
    const el = document.createElementNS(SVGNS, tag);
    for (const k in attrs) el.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(el);
    return el;
  }
  function h(tag, attrs, parent, text) {
    const el = document.createElement(tag);
    for (const k in attrs || {}) el.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) el.textContent = String(text);
    if (parent) parent.appendChild(el);
    return el;
  }

  // ---- formatting ----
  const pad = (n, w) => String(n).padStart(w, '0');
  /** log4j's own form, as the text output writes time stamps. */
  function fmtTime(ms) {
    const d = new Date(ms);
    return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1, 2) + '-' + pad(d.getUTCDate(), 2) + ' ' +
      pad(d.getUTCHours(), 2) + ':' + pad(d.getUTCMinutes(), 2) + ':' + pad(d.getUTCSeconds(), 2) + ',' +
      pad(d.getUTCMilliseconds(), 3);
  }
  function fmtSpan(ms) {
    if (ms < 1000) return Math.round(ms) + ' ms';
    const s = ms / 1000;
    if (s < 120) return s.toFixed(s < 10 ? 1 : 0) + ' s';
    const m = s / 60;
    if (m < 120) return Math.round(m) + ' min';
    const hrs = m / 60;
    if (hrs < 48) return Math.floor(hrs) + ' h ' + Math.round(m % 60) + ' min';
    return (hrs / 24).toFixed(1) + ' days';
  }
  const plural = (n, one, many) => n + ' ' + (n === 1 ? one : (many || one + 's'));

  // ---- axis ticks ----
  const TIME_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5,
    6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5, 1728e5, 6048e5, 2592e6, 31536e6];
  function niceStep(span, n) {
    const raw = span / Math.max(1, n);
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (p * m >= raw) return p * m;
    return p * 10;
  }
  function ticks(axis, v0, v1, maxTicks) {
    const span = v1 - v0;
    let step;
    if (axis === 'time') {
      step = TIME_STEPS.find((s) => span / s <= maxTicks) || niceStep(span, maxTicks);
    } else {
      step = Math.max(1, niceStep(span, maxTicks));
    }
    const out = [];
    for (let x = Math.ceil(v0 / step) * step; x <= v1 && out.length < 200; x += step) out.push(x);
    return { step, ticks: out };
  }
  function tickLabel(axis, x, step) {
    if (axis !== 'time') return 'line ' + Math.round(x);
    const t = fmtTime(x);
    if (step >= 864e5) return t.slice(0, 10);
    if (step >= 6e4) return t.slice(11, 16);
    if (step >= 1e3) return t.slice(11, 19);
    return t.slice(11, 23).replace(',', '.');
  }

  // ---- a finding as the text output shows it ----
  function diagnostic(f, pre) {
    const span = (cls, text) => h('span', cls ? { class: cls } : {}, pre, text);
    const nl = () => pre.appendChild(document.createTextNode('\n'));
    const trig = f.trigger;
    const width = Math.max(String(trig.line).length, ...f.evidence.map((e) => String(e.line).length));
    const padding = ' '.repeat(width);
    span('sev-' + f.severity, f.severity + '[' + f.kind + ']');
    span('msg', ': ' + f.reason);
    nl();
    span('gutter', padding + '-->');
    span('', ' ' + trig.source + ':' + trig.line);
    nl();
    let who = 'worker ' + f.worker;
    if (f.group !== null) who += ', group ' + f.group;
    if (f.generation !== null) who += ', generation ' + f.generation;
    span('gutter', padding + ' =');
    span('', ' ' + who);
    nl();
    span('gutter', padding + ' |');
    nl();
    let current = trig.source + '\u0000';
    for (const e of f.evidence) {
      const here = e.source + '\u0000' + (e.worker || '');
      if (here !== current) {
        span('gutter', padding + '-->');
        span('', ' ' + e.source + (e.worker ? ' (worker ' + e.worker + ')' : ''));
        nl();
        current = here;
      }
      const isTrigger = e.source === trig.source && e.line === trig.line && !e.worker;
      span('gutter', String(e.line).padStart(width) + ' |');
      span('quoted', ' ' + String(e.text).trim());
      nl();
      span('gutter', padding + ' |');
      span(isTrigger ? 'trigger-label' : 'label', '   ' + (isTrigger ? '^' : '-') + ' ' + e.role);
      nl();
    }
    if (f.started && f.started.length) {
      span('gutter', padding + ' =');
      span('', ' started in that phase: ' + f.started.map((r) => r.type + ' ' + r.id).join(', '));
      nl();
    }
    if (f.upstream) {
      span('gutter', padding + ' =');
      span('', ' known upstream regression: ' + f.upstream);
      nl();
    }
  }

  /** First index whose key is >= x in a list sorted by key. */
  function lowerBound(list, x, key) {
    let lo = 0, hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(list[mid]) < x) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /** `s` in at most `n` characters: its start and its end, the middle
   * elided (workers' labels differ at either end: `w1/connect.log`). */
  function elide(s, n) {
    if (s.length <= n) return s;
    const head = Math.floor((n - 1) / 3);
    return s.slice(0, head) + '\u2026' + s.slice(s.length - (n - 1 - head));
  }

  /** A drop-down of checkboxes that hides the unchecked `items` (their keys
   * go into `hidden`); calls `changed` after each change and returns the
   * function that brings its boxes and title up to date. */
  function filterMenu(parent, name, items, hidden, changed) {
    const d = h('details', { class: 'filter' }, parent);
    const sum = h('summary', {}, d);
    const menu = h('div', { class: 'menu' }, d);
    const boxes = [];
    const refresh = () => {
      sum.textContent = name + ' (' + (items.length - hidden.size) + '/' + items.length + ')';
      for (const [k, cb] of boxes) cb.checked = !hidden.has(k);
    };
    if (!items.length) {
      h('div', { class: 'dim' }, menu, 'none');
    } else {
      const actions = h('div', { class: 'actions' }, menu);
      const all = h('button', { type: 'button' }, actions, 'all');
      const none = h('button', { type: 'button' }, actions, 'none');
      all.addEventListener('click', () => { hidden.clear(); changed(); });
      none.addEventListener('click', () => { for (const it of items) hidden.add(it.key); changed(); });
      let search = null;
      if (items.length > 12) search = h('input', { type: 'search', placeholder: 'filter ' + name.toLowerCase() }, menu);
      const labels = [];
      for (const it of items) {
        const lab = h('label', {}, menu);
        const cb = h('input', { type: 'checkbox' }, lab);
        cb.checked = true;
        if (it.colour) h('span', { class: 'swatch', style: 'background:' + it.colour }, lab);
        h('span', {}, lab, it.label);
        if (it.count !== undefined) h('span', { class: 'count' }, lab, it.count);
        cb.addEventListener('change', () => {
          if (cb.checked) hidden.delete(it.key); else hidden.add(it.key);
          changed();
        });
        boxes.push([it.key, cb]);
        labels.push([it.label.toLowerCase(), lab]);
      }
      if (search) {
        search.addEventListener('input', () => {
          const q = search.value.toLowerCase();
          for (const [t, lab] of labels) lab.style.display = t.includes(q) ? '' : 'none';
        });
      }
    }
    refresh();
    return refresh;
  }

  Object.assign(HA, { svg, h, fmtTime, fmtSpan, plural, ticks, tickLabel, diagnostic, lowerBound, elide, filterMenu });
})();
