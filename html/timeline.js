/* herder-audit HTML report, part 3 of 4: one group's swim lanes (one lane
 * per worker, one bar per connector or task instance), markers, filters and
 * findings table, drawn from the embedded timeline (its layout is described
 * in src/report/html_timeline.rs) for the visible window only; the downtime
 * rows below the lanes are part 2's (`HA.Downtime`). */
(function (HA) {
  'use strict';
  const { svg, h, fmtTime, fmtSpan, plural, ticks, tickLabel, diagnostic, lowerBound, elide, filterMenu } = HA;

  const LABEL_W = 200;     // lane labels
  const RIGHT_PAD = 16;
  const AXIS_H = 46;       // time labels, then generation labels
  const FIND_BAND = 15;    // finding markers
  const MARK_BAND = 11;    // revocations, offsets, config records
  const BAR_LIMIT = 300;   // bars of one lane in view before it is aggregated
  const MAX_ROWS = 36;     // rows of bars in one lane before it is aggregated
  const PROFILE_H = 60;    // height of an aggregated lane's profile
  const MAX_CHIPS = 40;    // connector chips shown before "more"
  const GEN_PX = 6;        // generation lines closer than this are merged
  const MARK_PX = 6;       // marks of one kind closer than this are merged
  const TABLE_ROWS = 400;  // findings rows shown before "show all"

  // ---- one group: swim lanes, filters, findings table ----
  class GroupView {
    constructor(gi, section, data) {
      this.gi = gi;
      this.section = section;
      this.data = data;
      this.g = data.tl.groups[gi];
      this.axis = this.g.axis;
      this.hidden = { conn: new Set(), worker: new Set(), kind: new Set() };
      this.selected = null;
      this.genIndex = null;
      this.showAllRows = false;
      this.lanes = this.g.lanes.map((wi) => this.prepareLane(wi));
      // Lane labels without the directory all the group's workers share.
      let prefix = this.lanes.length > 1 ? this.lanes[0].label : '';
      for (const l of this.lanes) while (prefix && !l.label.startsWith(prefix)) prefix = prefix.slice(0, -1);
      prefix = prefix.slice(0, prefix.lastIndexOf('/') + 1);
      for (const l of this.lanes) l.short = l.label.slice(prefix.length) || l.label;
      this.findings = [];
      data.tl.findings.forEach((f, i) => {
        if (data.tl.lanes[f[0]] && data.tl.lanes[f[0]].group === gi) {
          const doc = data.report.findings[i];
          this.findings.push({
            i, doc, wi: f[0], x: f[1], evidence: f[2],
            conn: doc.resource ? doc.resource.connector : null,
          });
        }
      });
      this.findings.sort((a, b) => a.x - b.x || a.i - b.i);
      this.down = new HA.Downtime(this);
      const conns = new Map();
      for (const lane of this.lanes) {
        for (const inst of lane.inst) conns.set(inst.res.conn, (conns.get(inst.res.conn) || 0) + 1);
      }
      for (const f of this.findings) if (f.conn !== null && !conns.has(f.conn)) conns.set(f.conn, 0);
      for (const b of this.down.bands) if (!conns.has(b.row.conn)) conns.set(b.row.conn, 0);
      this.connectors = [...conns.keys()].sort();
      this.connCount = conns;
      this.colour = new Map(this.connectors.map((c, i) =>
        [c, 'hsl(' + ((i * 137.508 + 210) % 360).toFixed(1) + ', 62%, ' + (i % 3 === 1 ? 42 : 54) + '%)']));
      let from = this.g.from, to = this.g.to;
      if (from === null || to === null) { from = 0; to = 1; }
      const minSpan = this.axis === 'time' ? 2000 : 10;
      if (to - from < minSpan) { const mid = (from + to) / 2; from = mid - minSpan / 2; to = mid + minSpan / 2; }
      const margin = (to - from) * 0.01;
      this.full = [from - margin, to + margin];
      this.view = this.full.slice();
      this.build();
      this.render();
    }

    prepareLane(wi) {
      const L = this.data.tl.lanes[wi];
      const lane = { wi, label: L.worker, L, inst: [], gens: [], rows: 1, recorded: !!L.recorded };
      if (!L.recorded) return lane;
      const res = L.resources.map((r) => ({ id: r[0], conn: r[1], task: r[2] === 1 }));
      lane.res = res;
      lane.first = L.first ? L.first[2] : null;
      lane.last = L.last ? L.last[2] : null;
      lane.inst = L.instances.map((r) => ({
        res: res[r[0]], begin: r[1], s: r[2], how: r[3], e: r[4], why: r[5], failedReg: r[6] === 1,
        x0: r[2][2], x1: r[4] ? r[4][2] : (lane.last === null ? r[2][2] : Math.max(lane.last, r[2][2])),
      }));
      lane.gens = L.generations.map((r) => ({
        gen: r[0], p: r[1], x: r[1][2], protocol: r[2], offset: r[3], error: r[4], leader: L.leaders[r[5]],
        assigned: r[6], revoked: r[7].map((k) => res[k]),
      }));
      return lane;
    }

    /** The instances of a lane in view, packed into rows (greedy by start:
     * as many rows as instances run at once in the view), or aggregated
     * when there are too many to read; sets the lane's height. */
    layoutLane(l, v0, v1) {
      l.vis = l.inst.filter((it) => it.x1 >= v0 && it.x0 <= v1 && !this.hidden.conn.has(it.res.conn));
      l.aggregate = l.vis.length > BAR_LIMIT;
      let rows = 1;
      if (!l.aggregate) {
        const ends = [];
        for (const it of l.vis) {
          let row = ends.findIndex((e) => e < it.x0 || (e === it.x0 && it.x1 > it.x0));
          if (row < 0) { row = ends.length; ends.push(0); }
          ends[row] = it.x1;
          it.row = row;
        }
        rows = Math.max(1, ends.length);
        l.aggregate = rows > MAX_ROWS;
      }
      l.rowH = l.aggregate ? 0 : rows <= 6 ? 8 : Math.max(2, Math.floor(72 / rows));
      const barsH = l.aggregate ? PROFILE_H : rows * l.rowH;
      l.h = Math.max(46, FIND_BAND + MARK_BAND + barsH + 8);
    }

    src(p) {
      const inputs = this.data.report.inputs;
      const name = inputs[p[0]] ? inputs[p[0]].name : '?';
      return name + ':' + p[1];
    }
    at(p) {
      return (this.axis === 'time' ? fmtTime(p[2]) : 'line ' + p[2]) + ' (' + this.src(p) + ')';
    }

    // ---- static parts: toolbar, filters, connector chips, table ----
    build() {
      const s = this.section;
      this.toolbar = s.querySelector('[data-role=toolbar]');
      this.notices = s.querySelector('[data-role=notices]');
      this.box = s.querySelector('[data-role=timeline]');
      this.chips = s.querySelector('[data-role=connectors]');
      this.detail = s.querySelector('[data-role=detail]');
      this.table = s.querySelector('[data-role=findings]');
      this.box.textContent = '';
      this.tipBox = h('div', { class: 'tip', hidden: '' }, this.box);
      this.tips = [];
      const tb = this.toolbar;
      const button = (label, tip, fn) => {
        const b = h('button', { type: 'button', title: tip }, tb, label);
        b.addEventListener('click', fn);
        return b;
      };
      button('Whole log', 'show the whole time range', () => { this.genIndex = null; this.setView(this.full); });
      button('\u2212', 'zoom out', () => this.zoom(2));
      button('+', 'zoom in', () => this.zoom(0.5));
      button('\u25C0', 'pan left', () => this.pan(-0.5));
      button('\u25B6', 'pan right', () => this.pan(0.5));
      h('span', { class: 'sep' }, tb);
      this.prevGen = button('\u25C0 generation', 'the previous generation', () => this.stepGeneration(-1));
      this.nextGen = button('generation \u25B6', 'the next generation', () => this.stepGeneration(1));
      if (!this.g.generations.length) { this.prevGen.disabled = true; this.nextGen.disabled = true; }
      h('span', { class: 'sep' }, tb);
      const changed = () => this.changed();
      this.refreshers = [filterMenu(tb, 'Connectors', this.connectors.map((c) => ({
        key: c, label: c, count: this.connCount.get(c), colour: this.colour.get(c),
      })), this.hidden.conn, changed)];
      this.refreshers.push(filterMenu(tb, 'Workers', this.lanes.map((l) => ({ key: String(l.wi), label: l.short })), this.hidden.worker, changed));
      const kinds = new Map();
      for (const f of this.findings) kinds.set(f.doc.kind, (kinds.get(f.doc.kind) || 0) + 1);
      this.refreshers.push(filterMenu(tb, 'Findings', [...kinds.keys()].sort().map((k) => ({ key: k, label: k, count: kinds.get(k) })),
        this.hidden.kind, changed));
      this.viewText = h('span', { class: 'view' }, tb);
      h('span', { class: 'hint' }, tb, 'drag across the lanes to zoom \u00B7 Ctrl+wheel zoom \u00B7 Shift+wheel pan \u00B7 click a red marker or a change \u25C6');

      // Interaction on the timeline box (the SVG inside is redrawn).
      this.box.addEventListener('mousedown', (e) => this.brushStart(e));
      this.box.addEventListener('wheel', (e) => {
        if (!(e.ctrlKey || e.metaKey || e.shiftKey)) return;
        e.preventDefault();
        const frac = this.fracAt(e.clientX);
        if (e.shiftKey) this.pan((e.deltaY || e.deltaX) > 0 ? 0.2 : -0.2);
        else this.zoom(e.deltaY > 0 ? 1.4 : 1 / 1.4, frac);
      }, { passive: false });
      this.box.addEventListener('mousemove', (e) => this.hover(e));
      this.box.addEventListener('mouseleave', () => { this.tipBox.hidden = true; });
      this.box.addEventListener('click', (e) => {
        const m = e.target.closest ? e.target.closest('.finding-marker') : null;
        if (m && !this.dragged) {
          const c = this.clusters[Number(m.getAttribute('data-cluster'))];
          this.select(Number(m.getAttribute('data-finding')), false, c);
        }
      });
      this.drawTable();
      this.drawChips();
      this.down.build(s);
    }

    changed() {
      for (const r of this.refreshers) r();
      this.drawChips();
      this.drawTable();
      this.down.drawList();
      this.render();
    }

    drawChips() {
      const c = this.chips;
      c.textContent = '';
      if (!this.connectors.length) return;
      const limit = this.allChips ? Infinity : MAX_CHIPS;
      for (const name of this.connectors.slice(0, limit)) {
        const lab = h('label', { title: 'show or hide connector ' + name }, c);
        if (this.hidden.conn.has(name)) lab.classList.add('off');
        h('span', { class: 'swatch', style: 'background:' + this.colour.get(name) }, lab);
        h('span', {}, lab, name);
        lab.addEventListener('click', () => {
          if (this.hidden.conn.has(name)) this.hidden.conn.delete(name); else this.hidden.conn.add(name);
          this.changed();
        });
      }
      if (this.connectors.length > limit) {
        const more = h('button', { type: 'button', class: 'linkish' }, c, '+ ' + (this.connectors.length - limit) + ' more connectors');
        more.addEventListener('click', () => { this.allChips = true; this.drawChips(); });
      }
    }

    findingShown(f) {
      return !this.hidden.kind.has(f.doc.kind) && !this.hidden.worker.has(String(f.wi)) &&
        !(f.conn !== null && this.hidden.conn.has(f.conn));
    }

    drawTable() {
      const box = this.table;
      if (!this.findings.length) return;
      box.textContent = '';
      const shown = this.findings.filter((f) => this.findingShown(f));
      const wrap = h('div', { class: 'table-wrap' }, box);
      const t = h('table', { class: 'findings' }, wrap);
      const head = h('tr', {}, h('thead', {}, t));
      for (const c of ['#', 'severity', 'kind', 'worker', 'gen.', 'resource', 'trigger', 'reason', 'upstream']) h('th', {}, head, c);
      const body = h('tbody', {}, t);
      const rows = this.showAllRows ? shown : shown.slice(0, TABLE_ROWS);
      for (const f of rows) {
        const d = f.doc;
        const tr = h('tr', { 'data-finding': String(f.i) }, body);
        if (this.selected === f.i) tr.classList.add('selected');
        h('td', {}, tr, f.i + 1);
        h('span', { class: 'sev ' + d.severity }, h('td', {}, tr), d.severity);
        h('code', {}, h('td', {}, tr), d.kind);
        h('td', {}, tr, d.worker);
        h('td', {}, tr, d.generation === null ? '?' : d.generation);
        h('td', {}, tr, d.resource ? d.resource.type + ' ' + d.resource.id : (d.started.length + ' started'));
        const trig = h('td', { class: 'mono' }, tr);
        h('div', {}, trig, d.trigger.timestamp ? d.trigger.timestamp.replace('T', ' ') : '');
        h('div', { class: 'dim' }, trig, d.trigger.source + ':' + d.trigger.line);
        h('td', { class: 'reason' }, tr, d.reason);
        h('td', {}, tr, d.upstream || '');
        tr.addEventListener('click', () => this.select(f.i, true));
      }
      const hiddenCount = this.findings.length - shown.length;
      const more = h('div', { class: 'more dim' }, box);
      if (shown.length > rows.length) {
        more.textContent = rows.length + ' of ' + shown.length + ' shown. ';
        const b = h('button', { type: 'button' }, more, 'show all');
        b.addEventListener('click', () => { this.showAllRows = true; this.drawTable(); });
      } else if (hiddenCount) {
        more.textContent = plural(hiddenCount, 'finding') + ' hidden by the filters.';
      }
    }

    // ---- view changes ----
    setView(v) {
      const minSpan = this.axis === 'time' ? 5 : 2;
      let [a, b] = v;
      if (b - a < minSpan) { const m = (a + b) / 2; a = m - minSpan / 2; b = m + minSpan / 2; }
      const fullSpan = this.full[1] - this.full[0];
      if (b - a > fullSpan) { a = this.full[0]; b = this.full[1]; }
      if (a < this.full[0]) { b += this.full[0] - a; a = this.full[0]; }
      if (b > this.full[1]) { a -= b - this.full[1]; b = this.full[1]; }
      this.view = [a, b];
      this.scheduleRender();
    }
    zoom(factor, frac) {
      const [a, b] = this.view;
      const f = frac === undefined ? 0.5 : frac;
      const at = a + (b - a) * f;
      const span = (b - a) * factor;
      this.genIndex = null;
      this.setView([at - span * f, at + span * (1 - f)]);
    }
    pan(frac) {
      const [a, b] = this.view;
      const d = (b - a) * frac;
      this.genIndex = null;
      this.setView([a + d, b + d]);
    }
    stepGeneration(dir) {
      const gens = this.g.generations;
      if (!gens.length) return;
      let i;
      if (this.genIndex === null) {
        const mid = this.view[0] + (this.view[1] - this.view[0]) * 0.02;
        i = dir > 0 ? gens.findIndex((g) => g[1] >= mid) : gens.length - 1 - [...gens].reverse().findIndex((g) => g[1] < mid);
        if (dir > 0 && i < 0) i = gens.length - 1;
        if (dir < 0 && i >= gens.length) i = 0;
      } else {
        i = Math.min(gens.length - 1, Math.max(0, this.genIndex + dir));
      }
      this.genIndex = i;
      const start = gens[i][1];
      const end = i + 1 < gens.length ? gens[i + 1][1] : this.g.to;
      const span = Math.max(end - start, this.axis === 'time' ? 1000 : 4);
      this.setView([start - span * 0.08, start + span * 1.08]);
    }
    fracAt(clientX) {
      const r = this.box.getBoundingClientRect();
      const plotW = Math.max(1, r.width - LABEL_W - RIGHT_PAD);
      return Math.min(1, Math.max(0, (clientX - r.left - LABEL_W) / plotW));
    }
    brushStart(e) {
      if (e.button !== 0 || !this.svg) return;
      const r = this.box.getBoundingClientRect();
      const x0 = e.clientX - r.left;
      if (x0 < LABEL_W) return;
      this.dragged = false;
      this.brushing = true;
      this.tipBox.hidden = true;
      const rect = svg('rect', { class: 'brush', x: x0, y: AXIS_H, width: 0, height: Math.max(0, this.height - AXIS_H) }, this.svg);
      const move = (ev) => {
        const x = Math.min(r.width - RIGHT_PAD, Math.max(LABEL_W, ev.clientX - r.left));
        if (Math.abs(x - x0) > 4) this.dragged = true;
        rect.setAttribute('x', Math.min(x, x0));
        rect.setAttribute('width', Math.abs(x - x0));
      };
      const up = (ev) => {
        window.removeEventListener('mousemove', move);
        window.removeEventListener('mouseup', up);
        rect.remove();
        this.brushing = false;
        if (this.dragged) {
          const a = this.fracAt(Math.min(ev.clientX, x0 + r.left));
          const b = this.fracAt(Math.max(ev.clientX, x0 + r.left));
          const [v0, v1] = this.view;
          this.genIndex = null;
          this.setView([v0 + (v1 - v0) * a, v0 + (v1 - v0) * b]);
          setTimeout(() => { this.dragged = false; }, 0);
        }
      };
      window.addEventListener('mousemove', move);
      window.addEventListener('mouseup', up);
      e.preventDefault();
    }

    /** Registers a tooltip for an element; the text is made on hover. */
    tip(el, text) {
      el.setAttribute('data-tip', String(this.tips.push(text) - 1));
      return el;
    }

    hover(e) {
      if (!this.svg || this.brushing) return;
      let text = null;
      const k = e.target.getAttribute ? e.target.getAttribute('data-tip') : null;
      const r = this.svg.getBoundingClientRect();
      const x = e.clientX - r.left, y = e.clientY - r.top;
      if (k !== null) {
        text = this.tips[Number(k)]();
      } else {
        // Marks are drawn as one path per kind and lane: find the nearest.
        const lane = this.visLanes.find((l) => y >= l.y && y < l.y + l.h);
        if (lane && lane.hits && y >= lane.y + FIND_BAND - 3 && y <= lane.y + FIND_BAND + MARK_BAND + 3) {
          const i = lowerBound(lane.hits, x - 5, (m) => m.px);
          const near = [];
          for (let j = i; j < lane.hits.length && lane.hits[j].px <= x + 5; j++) near.push(lane.hits[j]);
          if (near.length) text = near.slice(0, 4).map((m) => m.text()).join('\n\n');
        }
      }
      const tb = this.tipBox;
      if (!text) { tb.hidden = true; return; }
      tb.textContent = text;
      tb.hidden = false;
      const bw = this.box.clientWidth;
      const left = Math.min(x + 14, bw - tb.offsetWidth - 6);
      tb.style.left = Math.max(4, left) + 'px';
      tb.style.top = (y + 16) + 'px';
    }

    /** Shows finding `i` (and the others drawn at the same spot, when
     * `together` lists them) as the text output writes it, and zooms to its
     * evidence when that is much narrower than the view. */
    select(i, fromTable, together, noScroll) {
      const f = this.findings.find((x) => x.i === i);
      if (!f) return;
      this.selected = i;
      const [a, b] = this.view;
      const xs = [f.x, ...f.evidence.map((e) => e[1])];
      const lo = Math.min(...xs), hi = Math.max(...xs);
      const span = Math.max(hi - lo, this.axis === 'time' ? 2000 : 8);
      if (span < (b - a) / 4 || lo < a || hi > b) {
        this.genIndex = null;
        this.setView([lo - span * 0.35, hi + span * 0.35]);
      } else {
        this.scheduleRender();
      }
      const all = (together || [i]).map((k) => this.findings.find((x) => x.i === k)).filter(Boolean);
      const d = this.detail;
      d.textContent = '';
      d.hidden = false;
      const head = h('div', { class: 'head' }, d);
      const total = this.data.report.findings.length;
      h('span', { class: 'title' }, head, all.length > 1
        ? all.length + ' findings at this spot'
        : 'finding ' + (i + 1) + ' of ' + total);
      h('span', { class: 'dim' }, head, f.doc.trigger.timestamp ? f.doc.trigger.timestamp.replace('T', ' ') : '');
      const close = h('button', { type: 'button' }, head, 'close');
      close.addEventListener('click', () => { this.selected = null; d.hidden = true; this.drawTable(); this.render(); });
      for (const g of all) diagnostic(g.doc, h('pre', { class: 'diag' }, d));
      for (const tr of this.table.querySelectorAll('tr.selected')) tr.classList.remove('selected');
      for (const g of all) {
        const row = this.table.querySelector('tr[data-finding="' + g.i + '"]');
        if (row) row.classList.add('selected');
      }
      try {
        history.replaceState(null, '', '#finding-' + (i + 1));
      } catch (e) {
        // Some browsers refuse history changes on file: pages; the link is a convenience.
      }
      if (noScroll) return;
      if (fromTable) this.box.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
      else d.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    }

    scheduleRender() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.render(); });
    }

    // ---- drawing ----
    render() {
      const t0 = performance.now();
      this.tips = [];
      const width = Math.max(720, this.box.clientWidth || 1200);
      const plotW = width - LABEL_W - RIGHT_PAD;
      const [v0, v1] = this.view;
      const k = plotW / (v1 - v0);
      const sx = (x) => LABEL_W + (x - v0) * k;
      const clampX = (x) => Math.max(LABEL_W - 2, Math.min(width - RIGHT_PAD + 2, sx(x)));
      const lanes = this.lanes.filter((l) => !this.hidden.worker.has(String(l.wi)));
      this.visLanes = lanes;
      let y = AXIS_H;
      for (const l of lanes) {
        this.layoutLane(l, v0, v1);
        l.y = y;
        y += l.h;
      }
      y = this.down.layout(y, v0, v1);
      const height = Math.max(y + 4, AXIS_H + 30);
      this.height = height;
      const s = svg('svg', { width, height, viewBox: '0 0 ' + width + ' ' + height, role: 'img',
        'aria-label': 'timeline of group ' + (this.g.name || '(unknown)') });
      const defs = svg('defs', {}, s);
      const hu = 'hu-' + this.gi, hp = 'hp-' + this.gi, clip = 'clip-' + this.gi;
      const pu = svg('pattern', { id: hu, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
      svg('rect', { width: 6, height: 6, fill: '#eceef2' }, pu);
      svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#a9b0bc', 'stroke-width': 2 }, pu);
      const pp = svg('pattern', { id: hp, width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
      svg('line', { x1: 0, y1: 0, x2: 0, y2: 8, stroke: '#d5d9e0', 'stroke-width': 1 }, pp);
      const pb = svg('pattern', { id: 'hb-' + this.gi, width: 4, height: 4, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
      svg('line', { x1: 0, y1: 0, x2: 0, y2: 4, stroke: '#ffffff', 'stroke-width': 1.6, 'stroke-opacity': 0.8 }, pb);
      svg('rect', { x: LABEL_W, y: 0, width: plotW, height }, svg('clipPath', { id: clip }, defs));
      const notices = [];

      // Lane backgrounds and labels.
      const bg = svg('g', {}, s);
      lanes.forEach((l, n) => {
        svg('rect', { class: 'lane-bg' + (n % 2 ? ' odd' : ''), x: 0, y: l.y, width, height: l.h }, bg);
        svg('line', { class: 'lane-sep', x1: 0, x2: width, y1: l.y + l.h, y2: l.y + l.h }, bg);
      });

      // Axis.
      const axis = svg('g', {}, s);
      const { step, ticks: tx } = ticks(this.axis, v0, v1, Math.max(2, Math.floor(plotW / 120)));
      let lastDate = null;
      for (const x of tx) {
        const px = sx(x);
        svg('line', { class: 'tick', x1: px, x2: px, y1: 22, y2: height }, axis);
        svg('text', { class: 'tick-label', x: px + 3, y: 30 }, axis).textContent = tickLabel(this.axis, x, step);
        if (this.axis === 'time' && step < 864e5) {
          const date = fmtTime(x).slice(0, 10);
          if (date !== lastDate) {
            svg('text', { class: 'tick-label date', x: px + 3, y: 14 }, axis).textContent = date;
            lastDate = date;
          }
        }
      }
      svg('line', { class: 'axis-line', x1: LABEL_W, x2: width - RIGHT_PAD, y1: AXIS_H - 0.5, y2: AXIS_H - 0.5 }, axis);
      svg('text', { class: 'lane-sub', x: 8, y: 30 }, axis).textContent = this.axis === 'time' ? 'log time' : 'position in each log (no time stamps)';

      const plot = svg('g', { 'clip-path': 'url(#' + clip + ')' }, s);
      // Generation boundaries: the first assignment line of each generation.
      const gl = svg('g', {}, plot);
      const gens = this.g.generations;
      let drawnGens = 0, inView = 0, lastPx = -1e9, lastLabel = -1e9, genPath = '';
      for (let gi = lowerBound(gens, v0, (g) => g[1]); gi < gens.length && gens[gi][1] <= v1; gi++) {
        inView++;
        const px = sx(gens[gi][1]);
        if (px - lastPx < GEN_PX) continue;
        lastPx = px;
        drawnGens++;
        genPath += 'M' + px.toFixed(1) + ' ' + (AXIS_H - 12) + 'V' + height;
        if (px - lastLabel > 36) {
          const gen = gens[gi];
          const t = svg('text', { class: 'gen-label', x: px + 2, y: AXIS_H - 4 }, gl);
          t.textContent = 'g' + gen[0];
          this.tip(t, () => 'generation ' + gen[0] + ': its first assignment line at ' + (this.axis === 'time' ? fmtTime(gen[1]) : 'line ' + gen[1]));
          lastLabel = px;
        }
      }
      if (genPath) svg('path', { class: 'gen-line', d: genPath }, gl);
      if (drawnGens < inView) {
        notices.push(['info', inView + ' generations in view: boundaries closer than ' + GEN_PX + ' px are drawn as one line (use \u201Cgeneration \u25B6\u201D or zoom in to see each).']);
      }

      const aggregated = [];
      for (const l of lanes) {
        const g = svg('g', { class: 'lane', 'data-worker': String(l.wi) }, plot);
        const top = l.y + 2, bottom = l.y + l.h - 3;
        const barsTop = l.y + FIND_BAND + MARK_BAND;
        const hatch = (x0, x1, y0, y1, fill, tip) => {
          const a = clampX(x0), b = clampX(x1);
          if (b - a < 0.5 && x1 > x0) return;
          const r = svg('rect', { x: a, y: y0, width: Math.max(2, b - a), height: y1 - y0, fill: 'url(#' + fill + ')' }, g);
          this.tip(r, () => tip);
        };
        if (!l.recorded || l.first === null) {
          hatch(v0, v1, top, bottom, hu, 'no timeline was recorded for this worker');
          continue;
        }
        // Unknown: no log before the first line, after the last, in gaps.
        if (l.first > v0) hatch(v0, l.first, top, bottom, hu, 'unknown: before the first lifecycle line of this worker\u2019s log (' + this.src(l.L.first) + ')');
        if (l.last < v1) hatch(l.last, v1, top, bottom, hu, 'unknown: after the last lifecycle line of this worker\u2019s log (' + this.src(l.L.last) + ')');
        for (const u of l.L.unknown) {
          if (u[1][2] >= v0 && u[0][2] <= v1) hatch(u[0][2], u[1][2], top, bottom, hu, 'unknown: ' + u[2] + ' (' + this.src(u[0]) + ' to ' + this.src(u[1]) + ')');
        }
        const cut = l.L.truncated;
        if (cut && cut[2] <= v1) {
          hatch(cut[2], l.last, top, bottom, hu, 'not drawn: the timeline of this worker keeps ' + this.data.tl.max_items + ' items and the limit was reached at ' + this.src(cut) + ' (the findings and tables are complete)');
        }
        // Before the worker's start (or an eager rebalance) only what the
        // log mentions is known to run.
        const known = l.L.known_from.length ? l.L.known_from[0][2] : l.last;
        if (known > l.first && known >= v0 && l.first <= v1) {
          hatch(l.first, known, barsTop - 2, bottom, hp, 'partly unknown: before ' + (l.L.known_from.length ? 'the worker\u2019s start or an eager rebalance (' + this.src(l.L.known_from[0]) + ')' : 'the end of the log') + ', work the log never mentions may have been running; only what it shows is drawn');
        }
        // Bars, or a profile of them when there are too many.
        const vis = l.vis;
        let sub = l.inst.length ? plural(l.inst.length, 'instance') : 'no instance';
        if (l.aggregate) {
          aggregated.push(l.short);
          g.classList.add('aggregated');
          sub = vis.length + ' bars in view: profile';
          this.profile(g, vis, v0, v1, plotW, sx, barsTop, bottom - 1);
        } else {
          const bars = svg('g', {}, g);
          for (const it of vis) this.bar(bars, l, it, sx, clampX, barsTop);
        }
        this.marks(g, l, v0, v1, sx, l.y + FIND_BAND);
        // Labels (unclipped, over the label column).
        const lab = svg('g', {}, s);
        const name = svg('text', { class: 'lane-label', x: 8, y: l.y + 17 }, lab);
        name.textContent = elide(l.short, 25);
        this.tip(name, () => 'worker ' + l.label);
        const d = this.data.report.workers[l.wi];
        const info = [];
        if (d && d.protocol) info.push(d.protocol);
        if (d && d.first_generation !== null) info.push('g' + d.first_generation + (d.last_generation !== d.first_generation ? '\u2013' + d.last_generation : ''));
        svg('text', { class: 'lane-sub', x: 8, y: l.y + 31 }, lab).textContent = info.join(' \u00B7 ');
        svg('text', { class: 'lane-sub', x: 8, y: l.y + 43 }, lab).textContent = sub;
        if (l.L.dropped) notices.push(['warn', 'Worker ' + l.short + ': the timeline keeps ' + this.data.tl.max_items + ' items (instances, generations, marks); the ' + l.L.dropped + ' after ' + this.src(l.L.truncated) + ' are not drawn and that part of its lane is hatched. The findings and tables are complete.']);
      }
      if (aggregated.length) {
        notices.push(['warn', plural(aggregated.length, 'lane') + ' (' + aggregated.slice(0, 4).join(', ') + (aggregated.length > 4 ? ', \u2026' : '') + ') hold more than ' + BAR_LIMIT + ' bars (or ' + MAX_ROWS + ' rows of bars) in view and are drawn aggregated: the grey profile shows how many instances ran at each moment. Zoom in or hide connectors to see each bar.']);
      }

      this.down.draw({ bg, plot, labels: s, sx, clampX, v0, v1, width, height, notices, gi: this.gi, labelW: LABEL_W, axisH: AXIS_H });

      // Selected finding: its trigger line and evidence.
      const sel = this.findings.find((f) => f.i === this.selected);
      const selLayer = svg('g', {}, plot);
      if (sel) {
        const px = sx(sel.x);
        svg('line', { class: 'trigger-line', x1: px, x2: px, y1: AXIS_H, y2: height }, selLayer);
        for (const [wi, x] of sel.evidence) {
          const l = lanes.find((ln) => ln.wi === wi);
          if (l) svg('circle', { class: 'evidence-ring', cx: sx(x), cy: l.y + FIND_BAND + MARK_BAND + 4, r: 5 }, selLayer);
        }
      }
      // One marker per finding, always in the DOM (hidden when filtered
      // out or outside the view); markers of a lane closer than a marker's
      // width form a cluster, counted by a badge and shown together.
      const fl = svg('g', { class: 'findings-layer' }, plot);
      this.clusters = [];
      const open = new Map();
      for (const f of this.findings) {
        const l = this.lanes.find((ln) => ln.wi === f.wi);
        const shown = this.findingShown(f) && f.x >= v0 && f.x <= v1 && !this.hidden.worker.has(String(f.wi));
        const px = sx(f.x);
        let c = open.get(f.wi);
        if (shown && !(c && px - c.px < 9)) {
          c = { px, cy: 0, members: [] };
          this.clusters.push(c.members);
          c.k = this.clusters.length - 1;
          open.set(f.wi, c);
        }
        const cls = ['finding-marker', f.doc.severity];
        if (!this.findingShown(f)) cls.push('filtered');
        if (f.x < v0 || f.x > v1) cls.push('outside');
        if (f.i === this.selected) cls.push('selected');
        const cy = (l && l.y !== undefined ? l.y : 0) + FIND_BAND / 2 + 1;
        const m = svg('circle', { class: cls.join(' '), 'data-finding': String(f.i), cx: px, cy, r: 5.5 }, fl);
        if (shown) {
          c.members.push(f.i);
          c.cy = cy;
          m.setAttribute('data-cluster', String(c.k));
        } else {
          m.setAttribute('data-cluster', String(this.clusters.push([f.i]) - 1));
        }
        this.tip(m, () => f.doc.severity + '[' + f.doc.kind + ']: ' + f.doc.reason + '\n' + f.doc.trigger.source + ':' + f.doc.trigger.line + ' (click for the evidence)');
      }
      for (let k = 0; k < this.clusters.length; k++) {
        const members = this.clusters[k];
        if (members.length < 2) continue;
        const first = fl.querySelector('[data-cluster="' + k + '"]');
        if (!first) continue;
        const t = svg('text', { class: 'marker-count', x: Number(first.getAttribute('cx')) + 8, y: Number(first.getAttribute('cy')) + 4 }, fl);
        t.textContent = '\u00D7' + members.length;
      }

      if (this.svg) this.box.replaceChild(s, this.svg); else this.box.insertBefore(s, this.tipBox);
      this.svg = s;
      this.down.refocus();
      this.notices.textContent = '';
      for (const [kind, text] of notices) h('p', { class: 'notice' + (kind === 'info' ? ' info' : '') }, this.notices, text);
      const span = v1 - v0;
      let vt = this.axis === 'time' ? fmtTime(v0) + ' \u2192 ' + fmtTime(v1) + ' (' + fmtSpan(span) + ')' : 'lines ' + Math.round(v0) + ' \u2192 ' + Math.round(v1);
      if (this.genIndex !== null) vt = 'generation ' + gens[this.genIndex][0] + ' (' + (this.genIndex + 1) + ' of ' + gens.length + ') \u00B7 ' + vt;
      this.viewText.textContent = vt;
      this.lastRenderMs = performance.now() - t0;
    }

    bar(parent, l, it, sx, clampX, barsTop) {
      const a = clampX(it.x0), b = clampX(it.x1);
      const y = barsTop + it.row * l.rowH;
      const hgt = Math.max(1.5, l.rowH - (l.rowH >= 5 ? 1.5 : 0.5));
      let cls = 'bar';
      if (it.begin !== 'started') cls += ' partial';
      if (it.failedReg || it.how === 'start-failed' || it.how === 'refused') cls += ' failed';
      const r = svg('rect', { class: cls, x: a, y, width: Math.max(1.5, b - a), height: hgt, fill: this.colour.get(it.res.conn) }, parent);
      this.tip(r, () => this.describe(it));
      if (hgt >= 4 && b - a > 6) {
        if (it.how === 'running' && it.x1 <= this.view[1]) {
          svg('path', { class: 'open-end', d: 'M' + (b - 5) + ' ' + y + ' L' + b + ' ' + (y + hgt / 2) + ' L' + (b - 5) + ' ' + (y + hgt) + ' Z' }, parent);
        } else if (it.how === 'worker-restart' || it.how === 'start-failed' || it.how === 'refused') {
          svg('line', { class: 'end-cap ' + (it.how === 'worker-restart' ? 'restart' : 'failed'), x1: b, x2: b, y1: y, y2: y + hgt }, parent);
        }
      }
    }

    describe(it) {
      const kind = it.res.task ? 'task ' : 'connector ';
      const lines = [kind + it.res.id + (it.res.task ? ' (connector ' + it.res.conn + ')' : '')];
      if (it.begin === 'started') lines.push('started ' + this.at(it.s));
      else if (it.begin === 'held') lines.push('held since the assignment line ' + this.at(it.s) + ': it ran from before; its start is not in the log');
      else lines.push('running at ' + this.at(it.s) + ' at the latest; its start is not in the log');
      if (it.failedReg) lines.push('its start failed; the task stays registered with the Worker (FAILED)');
      const end = it.e ? this.at(it.e) : '';
      switch (it.how) {
        case 'running': lines.push('still running at the end of the log'); break;
        case 'stopped': lines.push('stopped ' + end + ': ' + (it.why || 'not judged')); break;
        case 'start-failed': lines.push('the start failed ' + end); break;
        case 'refused': lines.push('refused by the Worker (an instance already existed) ' + end); break;
        case 'replaced': lines.push('started again while running ' + end + ' (double start)'); break;
        case 'not-running': lines.push('known not to run from ' + end); break;
        case 'worker-restart': lines.push('ended by the worker\u2019s restart ' + end); break;
        default: lines.push(it.how + ' ' + end);
      }
      return lines.join('\n');
    }

    /** Running-instance count over the view, in 2 px buckets. */
    profile(parent, vis, v0, v1, plotW, sx, y0, y1) {
      const n = Math.max(1, Math.ceil(plotW / 2));
      const diff = new Float64Array(n + 1);
      const scale = n / (v1 - v0);
      for (const it of vis) {
        const a = Math.max(0, Math.floor((Math.max(it.x0, v0) - v0) * scale));
        const b = Math.min(n, Math.max(a + 1, Math.ceil((Math.min(it.x1, v1) - v0) * scale)));
        diff[a] += 1;
        diff[b] -= 1;
      }
      let c = 0, max = 1;
      const counts = new Float64Array(n);
      for (let i = 0; i < n; i++) { c += diff[i]; counts[i] = c; if (c > max) max = c; }
      const hgt = y1 - y0;
      let d = 'M' + LABEL_W + ' ' + y1;
      for (let i = 0; i < n; i++) {
        const x = LABEL_W + (i * plotW) / n;
        const y = y1 - (counts[i] / max) * hgt;
        d += ' L' + x.toFixed(1) + ' ' + y.toFixed(1) + ' L' + (LABEL_W + ((i + 1) * plotW) / n).toFixed(1) + ' ' + y.toFixed(1);
      }
      d += ' L' + (LABEL_W + plotW) + ' ' + y1 + ' Z';
      this.tip(svg('path', { class: 'aggregate', d }, parent), () => vis.length + ' instances in view, at most ' + max + ' at once; zoom in to see each bar');
    }

    /** Assignment ticks, revocations, offset changes and config records:
     * one path per kind, marks closer than a few pixels merged into one;
     * `lane.hits` lists them for the tooltips. */
    marks(parent, l, v0, v1, sx, y) {
      const hits = [];
      const andMore = (n) => (n ? '\n(and ' + n + ' more here: zoom in)' : '');
      const draw = (cls, items, xOf, shape, text) => {
        let d = '', last = -1e9, first = null, more = 0;
        const flush = () => {
          if (first === null) return;
          const it = first, n = more;
          hits.push({ px: last, text: () => text(it) + andMore(n) });
        };
        for (const it of items) {
          const x = xOf(it);
          if (x < v0 || x > v1) continue;
          const px = sx(x);
          if (px - last < MARK_PX) { more++; continue; }
          flush();
          first = it; more = 0; last = px;
          d += shape(px);
        }
        flush();
        if (d) svg('path', { class: cls, d }, parent);
      };
      const f1 = (v) => v.toFixed(1);
      const gen = (gm) => 'generation ' + (gm.gen === null ? '?' : gm.gen);
      draw('assign-tick', l.gens, (gm) => gm.x,
        (px) => 'M' + f1(px) + ' ' + (y + MARK_BAND - 3) + 'V' + (y + MARK_BAND + 1),
        (gm) => gen(gm) + ': assignment at ' + this.at(gm.p) + '\n' + (gm.protocol || 'protocol ?') +
          ', config offset ' + gm.offset + (gm.error ? ', error ' + gm.error : '') + ', ' +
          plural(gm.assigned, 'resource') + ' assigned, leader ' + gm.leader);
      const hiddenConn = this.hidden.conn;
      const revs = l.gens.filter((gm) => gm.revoked.some((r) => !hiddenConn.has(r.conn)));
      draw('revocation', revs, (gm) => gm.x,
        (px) => 'M' + f1(px - 4) + ' ' + (y + 1) + 'L' + f1(px + 4) + ' ' + (y + 1) + 'L' + f1(px) + ' ' + (y + 8) + 'Z',
        (gm) => {
          const shown = gm.revoked.filter((r) => !hiddenConn.has(r.conn));
          return gen(gm) + ' revokes ' + shown.slice(0, 20).map((r) => r.id).join(', ') +
            (shown.length > 20 ? ', \u2026 (' + shown.length + ')' : '') + '\n' + this.at(gm.p);
        });
      const how = { assignment: 'the assignment carries', read: 'read the config topic to',
        behind: 'config snapshot behind the assignment, at', mismatch: 'config snapshot mismatched, at',
        'start-phase': 'started work using' };
      draw('offset', l.L.offsets, (o) => o[0][2],
        (px) => 'M' + f1(px) + ' ' + y + 'L' + f1(px + 4) + ' ' + (y + 4) + 'L' + f1(px) + ' ' + (y + 8) + 'L' + f1(px - 4) + ' ' + (y + 4) + 'Z',
        (o) => 'config offset: ' + (how[o[2]] || o[2]) + ' ' + o[1] + '\n' + this.at(o[0]));
      const cfgs = l.L.configs.filter((c) => !c[2].length || c[2].some((n) => !hiddenConn.has(n)));
      draw('config', cfgs, (c) => c[0][2],
        (px) => 'M' + f1(px + 3.4) + ' ' + (y + 4) + 'a2.6 2.6 0 1 0 5.2 0a2.6 2.6 0 1 0 -5.2 0',
        (c) => c[1].replace(/-/g, ' ') + (c[2].length ? ': ' + c[2].join(', ') : '') + '\n' + this.at(c[0]));
      hits.sort((a, b) => a.px - b.px);
      l.hits = hits;
    }
  }

  HA.GroupView = GroupView;
})(window.HerderAudit);
