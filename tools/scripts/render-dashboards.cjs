#!/usr/bin/env node
// Draws each Grafana dashboard of deploy/grafana/dashboards with live data,
// where Grafana itself cannot run (it is not packaged in Debian): every panel's
// own queries are sent to a Prometheus (query_range) or the accounting
// database, and the answers drawn as line charts or tables in the dashboard's
// grid, to SVG, then to PNG with headless Chromium when one is installed.
// Not Grafana's look; the same queries and the data they return.
//
//   node tools/scripts/render-dashboards.cjs --prometheus URL [--database-url URL] [--minutes 15] [--out docs/dashboards]
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const UNIT = 50; // px per grid column (24 columns)
const ROW = 30; // px per grid row
const COLORS = ['#3274d9', '#e02f44', '#56a64b', '#ff9830', '#a352cc', '#37872d', '#fade2a', '#8ab8ff'];

function parse(argv) {
  const o = { prometheus: undefined, databaseUrl: undefined, minutes: 15, out: path.join(root, 'docs', 'dashboards') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--prometheus') o.prometheus = argv[++i];
    else if (a === '--database-url') o.databaseUrl = argv[++i];
    else if (a === '--minutes') o.minutes = Number(argv[++i]);
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else throw new Error(`unknown argument "${a}"`);
  }
  if (!o.prometheus) throw new Error('--prometheus URL is required');
  return o;
}

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function legendOf(fmt, metric) {
  if (!fmt || fmt === '__auto')
    return (
      Object.entries(metric)
        .filter(([k]) => k !== '__name__')
        .map(([k, v]) => `${k}=${v}`)
        .join(', ') || 'value'
    );
  return fmt.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k) => metric[k] ?? '');
}

function fmtNum(v, unit) {
  if (!Number.isFinite(v)) return '–';
  if (unit === 's') return v >= 1 ? `${v.toFixed(2)} s` : `${(v * 1000).toFixed(v < 0.01 ? 2 : 0)} ms`;
  if (unit === 'percentunit') return `${(v * 100).toFixed(0)} %`;
  const a = Math.abs(v);
  return a >= 1000 ? `${(v / 1000).toFixed(1)}k` : a >= 10 || v === 0 ? v.toFixed(0) : v.toFixed(2);
}

async function promSeries(o, target, start, end, step) {
  const expr = target.expr.replace(/\$__rate_interval/g, '30s');
  const url = `${o.prometheus}/api/v1/query_range?query=${encodeURIComponent(expr)}&start=${start}&end=${end}&step=${step}`;
  const r = await (await fetch(url)).json();
  if (r.status !== 'success') return { error: r.error };
  return {
    series: r.data.result.map((s) => ({
      name: legendOf(target.legendFormat, s.metric),
      points: s.values.map(([t, v]) => [t, Number(v)]).filter(([, v]) => Number.isFinite(v)),
    })),
  };
}

async function sqlRows(client, sql, start, end) {
  const text = sql.replace(/\$__unixEpochFrom\(\)/g, String(Math.floor(start))).replace(/\$__unixEpochTo\(\)/g, String(Math.ceil(end)));
  return (await client.query(text)).rows;
}

function chart(x, y, w, h, series, unit, start, end) {
  const pts = series.flatMap((s) => s.points);
  const parts = [];
  if (!pts.length) {
    parts.push(`<text x="${x + w / 2}" y="${y + h / 2}" text-anchor="middle" class="muted">no data in this window</text>`);
    return parts.join('');
  }
  let lo = Math.min(0, ...pts.map(([, v]) => v));
  let hi = Math.max(...pts.map(([, v]) => v));
  if (hi === lo) hi = lo + 1;
  const px = (t) => x + 48 + ((t - start) / (end - start)) * (w - 56);
  const py = (v) => y + h - 4 - ((v - lo) / (hi - lo)) * (h - 8);
  parts.push(`<line x1="${x + 48}" y1="${y + h - 4}" x2="${x + w - 8}" y2="${y + h - 4}" class="axis"/>`);
  parts.push(`<text x="${x + 44}" y="${py(hi) + 4}" text-anchor="end" class="tick">${esc(fmtNum(hi, unit))}</text>`);
  parts.push(`<text x="${x + 44}" y="${py(lo)}" text-anchor="end" class="tick">${esc(fmtNum(lo, unit))}</text>`);
  series.slice(0, COLORS.length).forEach((s, i) => {
    if (!s.points.length) return;
    const d = s.points.map(([t, v], j) => `${j ? 'L' : 'M'}${px(t).toFixed(1)},${py(v).toFixed(1)}`).join('');
    parts.push(`<path d="${d}" stroke="${COLORS[i]}" fill="none" stroke-width="1.5"/>`);
  });
  return parts.join('');
}

function legend(x, y, w, series, unit) {
  return (
    series
      .slice(0, 4)
      .map((s, i) => {
        const last = s.points.at(-1)?.[1];
        return `<rect x="${x + 8}" y="${y + i * 13 - 8}" width="8" height="8" fill="${COLORS[i]}"/><text x="${x + 20}" y="${y + i * 13}" class="legend">${esc(`${s.name}`.slice(0, Math.floor(w / 7) - 12))} · ${esc(fmtNum(last, unit))}</text>`;
      })
      .join('') + (series.length > 4 ? `<text x="${x + 8}" y="${y + 4 * 13}" class="muted">+${series.length - 4} more</text>` : '')
  );
}

function table(x, y, w, h, rows) {
  if (!rows.length) return `<text x="${x + w / 2}" y="${y + h / 2}" text-anchor="middle" class="muted">no rows</text>`;
  const cols = Object.keys(rows[0]);
  const cw = (w - 16) / cols.length;
  const cell = (v) => (typeof v === 'number' || /^-?\d+(\.\d+)?$/.test(String(v)) ? fmtNum(Number(v)) : String(v ?? '–'));
  const out = cols.map((c, i) => `<text x="${x + 8 + i * cw}" y="${y + 14}" class="th">${esc(c)}</text>`);
  rows
    .slice(0, Math.floor((h - 24) / 15))
    .forEach((r, j) =>
      cols.forEach((c, i) =>
        out.push(`<text x="${x + 8 + i * cw}" y="${y + 30 + j * 15}" class="td">${esc(cell(r[c]).slice(0, Math.floor(cw / 6.5)))}</text>`),
      ),
    );
  return out.join('');
}

async function render(o, file, client, start, end) {
  const d = JSON.parse(fs.readFileSync(file, 'utf8'));
  const step = Math.max(5, Math.round((end - start) / 120));
  const height = Math.max(...d.panels.map((p) => (p.gridPos.y + p.gridPos.h) * ROW)) + 60;
  const width = 24 * UNIT;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`);
  out.push(
    '<style>text{font-family:DejaVu Sans,Arial,sans-serif;fill:#d8d9da}.title{font-size:13px;font-weight:bold}.tick,.legend,.td{font-size:11px}.th{font-size:11px;font-weight:bold}.muted{font-size:11px;fill:#8e8e8e}.axis{stroke:#464c54}.h{font-size:18px;font-weight:bold}</style>',
  );
  out.push(`<rect width="100%" height="100%" fill="#111217"/>`);
  const window = `${new Date(start * 1000).toISOString().slice(0, 16)}–${new Date(end * 1000).toISOString().slice(11, 16)} UTC`;
  out.push(
    `<text x="12" y="30" class="h">${esc(d.title)}</text><text x="${width - 12}" y="30" text-anchor="end" class="muted">${esc(window)} · live data from tools/scripts/topology.cjs · drawn by tools/scripts/render-dashboards.cjs</text>`,
  );
  for (const p of d.panels) {
    const x = p.gridPos.x * UNIT;
    const y = p.gridPos.y * ROW + 48;
    const w = p.gridPos.w * UNIT;
    const h = p.gridPos.h * ROW;
    if (p.type === 'row') {
      out.push(`<text x="${x + 8}" y="${y + 20}" class="title">${esc(p.title)}</text>`);
      continue;
    }
    out.push(`<rect x="${x + 4}" y="${y + 4}" width="${w - 8}" height="${h - 8}" rx="3" fill="#181b1f" stroke="#2c3235"/>`);
    out.push(`<text x="${x + 12}" y="${y + 22}" class="title">${esc(p.title.slice(0, Math.floor(w / 7.5)))}</text>`);
    const unit = p.fieldConfig?.defaults?.unit;
    const sql = p.targets.find((t) => t.rawSql);
    if (sql) {
      if (!client) {
        out.push(`<text x="${x + w / 2}" y="${y + h / 2}" text-anchor="middle" class="muted">no --database-url</text>`);
        continue;
      }
      const rows = await sqlRows(client, sql.rawSql, start, end);
      if (sql.format === 'time_series') {
        const by = new Map();
        for (const r of rows) by.set(r.metric, [...(by.get(r.metric) ?? []), [Number(r.time), Number(r.value)]]);
        const series = [...by].map(([name, points]) => ({ name, points }));
        out.push(chart(x + 8, y + 30, w - 16, h - 100, series, unit, start, end), legend(x + 4, y + h - 56, w, series, unit));
      } else out.push(table(x + 8, y + 28, w - 16, h - 36, rows));
      continue;
    }
    const series = [];
    for (const t of p.targets) {
      const r = await promSeries(o, t, start, end, step);
      if (r.error) throw new Error(`${d.title} / ${p.title}: ${r.error}`);
      series.push(...r.series);
    }
    out.push(chart(x + 8, y + 30, w - 16, h - 100, series, unit, start, end), legend(x + 4, y + h - 56, w, series, unit));
  }
  out.push('</svg>');
  return { svg: out.join('\n'), width, height, uid: d.uid };
}

async function main() {
  const o = parse(process.argv.slice(2));
  fs.mkdirSync(o.out, { recursive: true });
  let client;
  if (o.databaseUrl) {
    const { Client } = require('pg');
    client = new Client({ connectionString: o.databaseUrl });
    await client.connect();
  }
  const end = Date.now() / 1000;
  const start = end - o.minutes * 60;
  const dir = path.join(root, 'deploy', 'grafana', 'dashboards');
  const chromium = ['chromium', 'chromium-browser'].find((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);
  for (const f of fs
    .readdirSync(dir)
    .filter((x) => x.endsWith('.json'))
    .sort()) {
    const r = await render(o, path.join(dir, f), client, start, end);
    const svg = path.join(o.out, `${r.uid}.svg`);
    fs.writeFileSync(svg, r.svg);
    if (chromium) {
      const png = path.join(o.out, `${r.uid}.png`);
      const c = spawnSync(
        chromium,
        ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--window-size=${r.width},${r.height}`, `--screenshot=${png}`, `file://${svg}`],
        { encoding: 'utf8' },
      );
      if (c.status !== 0) throw new Error(`chromium: ${c.stderr}`);
      fs.rmSync(svg);
      console.log(path.relative(process.cwd(), png));
    } else console.log(path.relative(process.cwd(), svg));
  }
  await client?.end();
}

main().catch((e) => {
  process.stderr.write(`render-dashboards: ${e.message}\n`);
  process.exit(1);
});
