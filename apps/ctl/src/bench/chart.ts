/**
 * The chart `ctl bench` writes beside its result (docs/capacity.md): two
 * panels sharing the concurrency axis — p99 TTFT and TPOT against their SLO
 * lines on top, throughput below — and a marker at MaxConcurrencyAtSLO.
 * Plain SVG written by hand: no renderer, opens in any browser.
 */
import type { Slo, StepResult } from './stats';

export interface ChartInput {
  title: string;
  steps: readonly StepResult[];
  slo: Slo;
  maxConcurrencyAtSlo: number;
}

const W = 760;
const PANEL_H = 170;
const M = { left: 70, right: 24, top: 52, gap: 40, bottom: 44 };
const COLORS = { ttft: '#d9480f', tpot: '#1864ab', tput: '#2b8a3e', slo: '#868e96', max: '#5f3dc4' };

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** Round numbers for an axis from 0 to at least `max`: [top, step]. */
export function niceScale(max: number, ticks = 5): [number, number] {
  if (!(max > 0)) return [1, 0.2];
  const raw = max / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw)!;
  return [Math.ceil(max / step) * step, step];
}

const fmt = (x: number) => (Math.abs(x) >= 1000 ? `${+(x / 1000).toFixed(1)}k` : `${+x.toFixed(2)}`);

/** The SVG document. */
export function benchChartSvg(c: ChartInput): string {
  const steps = [...c.steps].sort((a, b) => a.concurrency - b.concurrency);
  const plotW = W - M.left - M.right;
  const H = M.top + PANEL_H * 3 + M.gap * 2 + M.bottom;
  const [xTop, xStep] = niceScale(Math.max(1, ...steps.map((s) => s.concurrency)), 8);
  const x = (v: number) => M.left + (v / xTop) * plotW;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(c.title)}</text>`);
  out.push(
    `<text x="${W / 2}" y="38" text-anchor="middle" fill="#495057">MaxConcurrencyAtSLO = ${c.maxConcurrencyAtSlo} (SLO: TTFT p99 ≤ ${c.slo.ttftP99Ms} ms, TPOT p99 ≤ ${c.slo.tpotP99Ms} ms)</text>`,
  );

  const panel = (top: number, leftSeries: Array<{ name: string; color: string; values: number[]; limit?: number }>, leftLabel: string) => {
    const bottom = top + PANEL_H;
    const leftMax = Math.max(1e-9, ...leftSeries.flatMap((s) => [...s.values, ...(s.limit !== undefined ? [s.limit * 1.15] : [])]));
    const [lTop, lStep] = niceScale(leftMax);
    const yl = (v: number) => bottom - (Math.min(v, lTop) / lTop) * PANEL_H;
    out.push(`<rect x="${M.left}" y="${top}" width="${plotW}" height="${PANEL_H}" fill="#f8f9fa" stroke="#ced4da"/>`);
    for (let v = 0; v <= lTop + 1e-9; v += lStep) {
      out.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${yl(v).toFixed(1)}" y2="${yl(v).toFixed(1)}" stroke="#e9ecef"/>`);
      out.push(`<text x="${M.left - 6}" y="${(yl(v) + 4).toFixed(1)}" text-anchor="end" fill="#495057">${fmt(v)}</text>`);
    }
    for (let v = 0; v <= xTop + 1e-9; v += xStep)
      out.push(`<text x="${x(v).toFixed(1)}" y="${bottom + 16}" text-anchor="middle" fill="#495057">${fmt(v)}</text>`);
    out.push(`<text transform="translate(18 ${top + PANEL_H / 2}) rotate(-90)" text-anchor="middle" fill="#212529">${esc(leftLabel)}</text>`);
    const line = (values: number[], color: string, y: (v: number) => number) => {
      const pts = steps.map((s, i) => `${x(s.concurrency).toFixed(1)},${y(values[i]).toFixed(1)}`);
      out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`);
      steps.forEach((s, i) =>
        out.push(
          `<circle cx="${x(s.concurrency).toFixed(1)}" cy="${y(values[i]).toFixed(1)}" r="3.5" fill="${s.meetsSlo ? color : '#ffffff'}" stroke="${color}" stroke-width="1.5"/>`,
        ),
      );
    };
    let legendX = M.left + 8;
    const legend = (name: string, color: string, dash = '') => {
      out.push(
        `<line x1="${legendX}" x2="${legendX + 18}" y1="${top + 14}" y2="${top + 14}" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
      );
      out.push(`<text x="${legendX + 22}" y="${top + 18}" fill="#212529">${esc(name)}</text>`);
      legendX += 30 + name.length * 6.5;
    };
    for (const s of leftSeries) {
      if (s.limit !== undefined) {
        out.push(
          `<line x1="${M.left}" x2="${M.left + plotW}" y1="${yl(s.limit).toFixed(1)}" y2="${yl(s.limit).toFixed(1)}" stroke="${s.color}" stroke-width="1" stroke-dasharray="6 4" opacity="0.8"/>`,
        );
        legend(`${s.name} SLO`, s.color, '6 4');
      }
      line(s.values, s.color, yl);
      legend(s.name, s.color);
    }
    if (c.maxConcurrencyAtSlo > 0) {
      const mx = x(c.maxConcurrencyAtSlo).toFixed(1);
      out.push(`<line x1="${mx}" x2="${mx}" y1="${top}" y2="${bottom}" stroke="${COLORS.max}" stroke-width="1.5" stroke-dasharray="2 3"/>`);
    }
  };

  const panels: Array<{ name: string; color: string; values: number[]; limit?: number; label: string }> = [
    { name: 'TTFT p99', color: COLORS.ttft, values: steps.map((s) => s.ttftMs.p99), limit: c.slo.ttftP99Ms, label: 'TTFT p99 (ms)' },
    { name: 'TPOT p99', color: COLORS.tpot, values: steps.map((s) => s.tpotMs.p99), limit: c.slo.tpotP99Ms, label: 'TPOT p99 (ms)' },
    { name: 'throughput', color: COLORS.tput, values: steps.map((s) => s.tokensPerSec), label: 'output tokens/s' },
  ];
  panels.forEach((p, i) => panel(M.top + i * (PANEL_H + M.gap), [p], p.label));
  const top2 = M.top + 2 * (PANEL_H + M.gap);
  if (c.maxConcurrencyAtSlo > 0)
    out.push(
      `<text x="${x(c.maxConcurrencyAtSlo).toFixed(1)}" y="${top2 - 8}" text-anchor="middle" fill="${COLORS.max}">max at SLO: ${c.maxConcurrencyAtSlo}</text>`,
    );
  out.push(
    `<text x="${M.left + plotW / 2}" y="${H - 10}" text-anchor="middle" fill="#212529">concurrency (requests in flight) — hollow points broke the SLO</text>`,
  );
  out.push('</svg>');
  return out.join('\n') + '\n';
}
