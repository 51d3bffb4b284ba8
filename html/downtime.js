/* herder-audit HTML report, part 2 of 4: downtime bands and blast radius.
 * Below a group's swim lanes, one row per connector or task that was
 * interrupted: a band per interruption, from its stop (or its worker's last
 * line) to its next start anywhere in the group, coloured by its cause; above
 * them a row of change markers. A click on a change (or Enter on it, or on its
 * line in the list of changes) highlights the interruptions it caused and
 * shows its blast radius. Everything shown is the document's `interruptions`
 * and `changes` (their places on the axis are the timeline's rows of the same
 * names): causes, lengths and costs are not computed here. */
(function (HA) {
  'use strict';
  const { svg, h, fmtSpan, plural, elide } = HA;

  const HEAD_H = 22;      // the block's title and its change markers
  const ROW_H = 13;       // one resource's row
  const MAX_ROWS = 48;    // rows drawn at full height (more: thinner, unlabelled)
  const LIST_ROWS = 200;  // changes listed before "show all"

  /** A cause kind (docs/json-schema.md) → the colour class of its band. */
  const CAUSE_CLASS = {
    'config-update': 'own', 'tasks-max': 'own', restart: 'own', 'pause-stop': 'own',
    'other-connector': 'other',
    'worker-joined': 'worker', 'worker-left': 'worker', 'worker-crashed': 'worker',
    'worker-frozen': 'worker', 'worker-cut-off': 'worker',
    'eager-rebalance': 'protocol', balance: 'protocol',
    'unnecessary-stop': 'unnecessary',
    failed: 'unknown', unknown: 'unknown',
  };

  const when = (l) => (l.timestamp ? l.timestamp.replace('T', ' ') : 'line ' + l.line);
  const place = (l) => l.source + ':' + l.line;
  const resName = (r) => r.type + ' ' + r.id;

  /** Connectors before their tasks, tasks by number, connectors by name. */
  function compareRows(a, b) {
    if (a.conn !== b.conn) return a.conn < b.conn ? -1 : 1;
    const ta = a.res.type === 'task' ? 1 : 0, tb = b.res.type === 'task' ? 1 : 0;
    if (ta !== tb) return ta - tb;
    return (a.res.task || 0) - (b.res.task || 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  }

  /** An interruption's length, as the text summary writes it. */
  function length(d) {
    if (d.still_down) return 'still down at the end of the logs';
    if (d.ms === null) return 'length unknown (no time stamps)';
    const s = fmtSpan(d.ms);
    switch (d.clock.kind) {
      case 'two-workers': return s + ' (two workers\u2019 clocks, aligned at generation ' + d.clock.generation +
        ': bounded; the logs\u2019 own times differ by ' + fmtSpan(Math.abs(d.clock.raw_ms)) + ')';
      case 'unanchored': return s + ' (two workers\u2019 clocks, not aligned: the logs\u2019 own times)';
      default: return s;
    }
  }

  /** An interruption's cause, as the text summary writes it. */
  function cause(d) {
    const c = d.cause;
    let s = c.kind;
    if (c.connector && d.by_others) s += ' ' + c.connector;
    if (c.worker) s += ' ' + c.worker;
    if (c.via) s += ', via ' + c.via;
    if (c.upstream) s += ' (' + c.upstream + ')';
    return s;
  }

  class Downtime {
    constructor(view) {
      this.v = view;
      const { report, tl } = view.data;
      const rows = new Map();
      this.bands = [];
      (tl.interruptions || []).forEach((r, i) => {
        if (r[0] !== view.gi || !r[1]) return;
        const doc = report.interruptions[i];
        const key = resName(doc.resource);
        let row = rows.get(key);
        if (!row) rows.set(key, (row = { key, res: doc.resource, conn: doc.resource.connector, bands: [] }));
        const x0 = r[1][1];
        const b = {
          i, doc, row, from: r[1], end: r[2], x0,
          // Still down: to the end of the group's logs.
          x1: Math.max(x0, r[2] ? r[2][1] : view.g.to === null ? x0 : view.g.to),
          cls: CAUSE_CLASS[doc.cause.kind] || 'unknown',
          bounded: !doc.still_down && doc.clock.kind !== 'one-worker',
        };
        row.bands.push(b);
        this.bands.push(b);
      });
      this.rows = [...rows.values()].sort(compareRows);
      this.changes = [];
      (tl.changes || []).forEach((r, i) => {
        if (r[0] === view.gi) this.changes.push({ i, doc: report.changes[i], wi: r[1], x: r[2], sentence: r[3] });
      });
      this.changes.sort((a, b) => a.x - b.x || a.i - b.i);
      this.selected = null;
      this.focused = null;
      this.showAll = false;
    }

    get empty() { return !this.rows.length && !this.changes.length; }

    /** Places the block at `y` for the view [v0, v1]; returns the y below it. */
    layout(y, v0, v1) {
      this.y = y;
      if (this.empty) { this.h = 0; return y; }
      // The rows of the connectors shown with an interruption in view.
      const hidden = this.v.hidden.conn;
      const rows = this.rows.filter((r) => !hidden.has(r.conn) && r.bands.some((b) => b.x1 >= v0 && b.x0 <= v1));
      this.thinned = rows.length > MAX_ROWS;
      this.visRows = rows;
      this.rowH = rows.length <= MAX_ROWS ? ROW_H : Math.max(3, Math.floor((MAX_ROWS * ROW_H) / rows.length));
      this.h = HEAD_H + rows.length * this.rowH + 8;
      return y + this.h;
    }

    /** Draws the block: its title and change markers, the rows and their
     * bands (`ctx`: the layers, scales and sizes of the lanes' drawing). */
    draw(ctx) {
      if (this.empty) return;
      const { bg, plot, labels, sx, clampX, v0, v1, width, height, notices, gi, labelW, axisH } = ctx;
      const v = this.v, y = this.y, hidden = v.hidden.conn;
      svg('rect', { class: 'down-bg', x: 0, y, width, height: this.h }, bg);
      svg('line', { class: 'down-sep', x1: 0, x2: width, y1: y + 0.5, y2: y + 0.5 }, bg);
      const title = svg('text', { class: 'lane-label', x: 8, y: y + 15 }, labels);
      title.textContent = 'downtime';
      const sub = svg('text', { class: 'lane-sub', x: 80, y: y + 15 }, labels);
      sub.textContent = plural(this.bands.length, 'interruption');
      v.tip(title, () => 'downtime of the group\u2019s connectors and tasks: ' + plural(this.bands.length, 'interruption') +
        ' of ' + plural(this.rows.length, 'connector or task', 'connectors or tasks') + ' (a row for each with an interruption in view, a band per interruption, coloured by cause); ' +
        plural(this.changes.length, 'change') + ' (\u25C6 above the rows)');
      const g = svg('g', { class: 'downtime' }, plot);
      const sel = this.selected;
      // The selected change: a line through the lanes and the block.
      const selChange = this.changes.find((c) => c.i === sel);
      if (selChange && selChange.x >= v0 && selChange.x <= v1) {
        const px = sx(selChange.x);
        svg('line', { class: 'change-line', x1: px, x2: px, y1: axisH, y2: height }, g);
      }
      // Rows and bands; bands narrower than a pixel next to the one before
      // in the row are drawn as one.
      const top = y + HEAD_H;
      this.visRows.forEach((row, n) => {
        const ry = top + n * this.rowH;
        if (n % 2) svg('rect', { class: 'down-row odd', x: labelW, y: ry, width: width - labelW, height: this.rowH }, g);
        if (this.rowH >= 9) {
          const t = svg('text', { class: 'down-label', x: 12, y: ry + this.rowH - 2.5 }, labels);
          t.textContent = elide(row.key, 29);
          v.tip(t, () => row.key + (row.res.type === 'task' ? ' (connector ' + row.conn + ')' : '') + ': ' + plural(row.bands.length, 'interruption'));
        }
        let lastEnd = -1e9, lastCls = null;
        for (const b of row.bands) {
          if (b.x1 < v0 || b.x0 > v1) continue;
          const a = clampX(b.x0), e = clampX(b.x1);
          const hit = sel !== null && b.doc.change === sel;
          if (e - a < 1 && a - lastEnd < 1 && b.cls === lastCls && !hit) continue;
          lastEnd = Math.max(e, a + 2);
          lastCls = b.cls;
          let cls = 'band c-' + b.cls;
          if (b.doc.still_down) cls += ' still';
          if (sel !== null) cls += hit ? ' hit' : ' dim';
          const hgt = Math.max(2, this.rowH - (this.rowH >= 6 ? 3 : 1));
          const r = svg('rect', { class: cls, x: a, y: ry + (this.rowH - hgt) / 2, width: Math.max(2, e - a), height: hgt, 'data-interruption': String(b.i) }, g);
          v.tip(r, () => this.describe(b));
          if (b.bounded && e - a >= 3) {
            v.tip(svg('rect', { class: 'bounded', x: a, y: ry + (this.rowH - hgt) / 2, width: e - a, height: hgt, fill: 'url(#hb-' + gi + ')' }, g), () => this.describe(b));
          }
          if (b.doc.still_down && hgt >= 4 && b.x1 <= v1) {
            svg('path', { class: 'still-end', d: 'M' + (e - 1) + ' ' + (ry + 1) + ' L' + (e + 5) + ' ' + (ry + this.rowH / 2) + ' L' + (e - 1) + ' ' + (ry + this.rowH - 1) + ' Z' }, g);
          }
        }
      });
      // Change markers: every change in view, each focusable.
      const cy = y + HEAD_H / 2 + 1;
      const marks = svg('g', { class: 'changes-layer' }, plot);
      for (const c of this.changes) {
        if (c.x < v0 || c.x > v1 || hidden.has(c.doc.connector)) continue;
        const px = sx(c.x);
        let cls = 'change-marker';
        if (c.doc.others.interruptions > 0) cls += ' hits';
        if (c.i === sel) cls += ' selected';
        const m = svg('path', {
          class: cls, d: 'M' + px.toFixed(1) + ' ' + (cy - 6) + 'l6 6l-6 6l-6 -6Z', 'data-change': String(c.i),
          tabindex: '0', role: 'button', 'aria-label': 'change: ' + c.sentence,
        }, marks);
        v.tip(m, () => c.sentence + '\n(click or press Enter for its blast radius)');
      }
      if (this.thinned) {
        notices.push(['info', this.visRows.length + ' connectors or tasks have an interruption in view: their downtime rows are drawn thinner, without labels (hover for them). Zoom in or hide connectors to see fewer.']);
      }
    }

    /** A band's tooltip: the interruption as the document has it. */
    describe(b) {
      const d = b.doc;
      const lines = [resName(d.resource) + (d.resource.type === 'task' ? ' (connector ' + d.resource.connector + ')' : '') + ': ' + length(d)];
      lines.push((d.from_stop ? 'stopped ' : 'last proof of running ') + when(d.from) + ' on ' + d.from.worker + ' (' + place(d.from) + ')');
      if (d.noticed) lines.push('the group noticed it gone ' + when(d.noticed) + ' (' + place(d.noticed) + '): it stopped at most ' + fmtSpan(d.noticed.session_timeout_ms) + ' (the session timeout) before');
      if (d.to) lines.push('started again ' + when(d.to) + ' on ' + d.to.worker + ' (' + place(d.to) + ')');
      if (d.running) lines.push('running again ' + when(d.running) + ' (' + place(d.running) + ')');
      lines.push('cause: ' + cause(d));
      if (d.change !== null) lines.push('change: ' + this.v.data.tl.changes[d.change][3]);
      return lines.join('\n');
    }

    // ---- a change's blast radius ----
    /** Selects change `i`: highlights what it interrupted, zooms to it and
     * fills the panel; `i === null` clears it. */
    select(i, fromList) {
      const v = this.v;
      if (i === null || !this.changes.some((c) => c.i === i)) {
        this.selected = null;
        this.panel.hidden = true;
        this.drawList();
        v.render();
        return;
      }
      const c = this.changes.find((x) => x.i === i);
      this.selected = i;
      const hit = this.bands.filter((b) => b.doc.change === i);
      const xs = [c.x, ...hit.map((b) => b.x0), ...hit.filter((b) => !b.doc.still_down).map((b) => b.x1)];
      const lo = Math.min(...xs), hi = Math.max(...xs);
      const span = Math.max(hi - lo, v.axis === 'time' ? 2000 : 8);
      const [a, z] = v.view;
      if (lo < a || hi > z || span < (z - a) / 6) {
        v.genIndex = null;
        v.setView([lo - span * 0.3, hi + span * 0.3]);
      } else {
        v.scheduleRender();
      }
      this.drawPanel(c, hit);
      this.drawList();
      try {
        history.replaceState(null, '', '#change-' + (i + 1));
      } catch (e) {
        // Some browsers refuse history changes on file: pages; the link is a convenience.
      }
      if (fromList) v.box.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    }

    drawPanel(c, hit) {
      const d = this.panel;
      d.textContent = '';
      d.hidden = false;
      const head = h('div', { class: 'head' }, d);
      h('span', { class: 'title' }, head, 'change ' + (c.i + 1) + ' of ' + this.v.data.report.changes.length + ': blast radius');
      const close = h('button', { type: 'button' }, head, 'close');
      close.addEventListener('click', () => this.select(null));
      h('p', { class: 'sentence' }, d, c.sentence);
      const line = h('p', { class: 'quoted dim' }, d);
      h('code', {}, line, place(c.doc.line) + ': ' + String(c.doc.line.text).trim());
      const lanes = new Map(this.v.lanes.map((l) => [l.label, l.short]));
      const short = (w) => lanes.get(w) || w;
      const others = hit.filter((b) => b.doc.by_others).sort((x, y) => compareRows(x.row, y.row) || x.x0 - y.x0);
      if (others.length) {
        h('p', { class: 'what' }, d, 'Other connectors\u2019 work it interrupted:');
        const t = h('table', { class: 'blast-table' }, h('div', { class: 'table-wrap' }, d));
        const hr = h('tr', {}, h('thead', {}, t));
        for (const col of ['resource', 'stopped', 'on', 'down for', 'cause']) h('th', {}, hr, col);
        const body = h('tbody', {}, t);
        for (const b of others) {
          const x = b.doc;
          const tr = h('tr', { 'data-interruption': String(b.i) }, body);
          h('code', {}, h('td', {}, tr), resName(x.resource));
          h('td', { class: 'mono' }, tr, when(x.from));
          const on = x.to && x.to.worker !== x.from.worker ? short(x.from.worker) + ' \u2192 ' + short(x.to.worker) : short(x.from.worker);
          h('td', { title: x.to ? x.from.worker + ' \u2192 ' + x.to.worker : x.from.worker }, tr, on);
          h('td', {}, tr, length(x));
          h('td', {}, tr, cause(x));
        }
      }
      const own = c.doc.own;
      if (own.interruptions) {
        let s = 'Its own connector ' + c.doc.connector + ': ' + plural(own.interruptions, 'interruption') + ' (' + plural(own.tasks, 'task') + '), ' + fmtSpan(own.ms) + ' of downtime';
        if (own.still_down) s += ', ' + own.still_down + ' still down';
        h('p', { class: 'what' }, d, s + '.');
      }
      if (!others.length && !own.interruptions) h('p', { class: 'what dim' }, d, 'It interrupted nothing that was running.');
    }

    /** The list of the group's changes, each a button. */
    drawList() {
      const box = this.list;
      box.textContent = '';
      if (!this.changes.length) {
        h('p', { class: 'dim' }, box, 'No change logged in this group.');
        return;
      }
      const hidden = this.v.hidden.conn;
      const shown = this.changes.filter((c) => !hidden.has(c.doc.connector));
      const rows = this.showAll ? shown : shown.slice(0, LIST_ROWS);
      const ol = h('ol', { class: 'change-list' }, box);
      for (const c of rows) {
        const li = h('li', { value: String(c.i + 1) }, ol);
        if (c.doc.others.interruptions) li.classList.add('hits');
        const b = h('button', { type: 'button', class: 'linkish', 'data-change': String(c.i), 'aria-pressed': String(c.i === this.selected) }, li, c.sentence);
        b.addEventListener('click', () => this.select(c.i, true));
      }
      const more = h('div', { class: 'more dim' }, box);
      if (shown.length > rows.length) {
        more.textContent = rows.length + ' of ' + shown.length + ' shown. ';
        const b = h('button', { type: 'button' }, more, 'show all');
        b.addEventListener('click', () => { this.showAll = true; this.drawList(); });
      } else if (shown.length < this.changes.length) {
        more.textContent = plural(this.changes.length - shown.length, 'change') + ' hidden by the connector filter.';
      }
    }

    /** Wires the panel, the list and the markers' mouse and keyboard use. */
    build(section) {
      this.panel = section.querySelector('[data-role=blast]');
      this.list = section.querySelector('[data-role=changes]');
      const box = this.v.box;
      box.addEventListener('click', (e) => {
        const m = e.target.closest ? e.target.closest('.change-marker') : null;
        if (m && !this.v.dragged) this.select(Number(m.getAttribute('data-change')));
      });
      box.addEventListener('keydown', (e) => {
        const m = e.target.closest ? e.target.closest('.change-marker') : null;
        if (m && (e.key === 'Enter' || e.key === ' ')) {
          e.preventDefault();
          this.select(Number(m.getAttribute('data-change')));
        }
      });
      // The SVG is redrawn on each view change: the focused marker gets
      // the focus back (see `refocus`).
      box.addEventListener('focusin', (e) => {
        const m = e.target.closest ? e.target.closest('.change-marker') : null;
        this.focused = m ? Number(m.getAttribute('data-change')) : null;
      });
      box.addEventListener('focusout', (e) => { if (e.relatedTarget) this.focused = null; });
      section.addEventListener('keydown', (e) => {
        if (e.key === 'Escape' && this.selected !== null) this.select(null);
      });
      this.drawList();
    }

    refocus() {
      if (this.focused === null) return;
      const m = this.v.box.querySelector('.change-marker[data-change="' + this.focused + '"]');
      if (m && document.activeElement !== m) m.focus({ preventScroll: true });
    }
  }

  HA.Downtime = Downtime;
})(window.HerderAudit);
