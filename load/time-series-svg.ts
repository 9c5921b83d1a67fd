/**
 * A line chart of a load run's time series as inline SVG (no scripts, no CDN: the page opens
 * offline and as a CI artifact). Written by hand: three charts of a few hundred points do not need
 * a charting library, and the ones that render to SVG without a browser pull in a DOM. Every text
 * goes through escapeHtml.
 */
import { escapeHtml } from '../lib/html';

export interface ChartLine {
  label: string;
  color: string;
  /** [seconds from the start, value]; null = no value in that interval (a gap). */
  points: Array<[number, number | null]>;
}

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 56;
const RIGHT = 150;
const TOP = 28;
const BOTTOM = 30;

export const CHART_COLORS = ['#3559a8', '#c0392b', '#2e8b57', '#b8860b', '#6a3d9a', '#555555'];

export function lineChart(title: string, unit: string, lines: readonly ChartLine[]): string {
  const values = lines.flatMap((line) => line.points.map(([, value]) => value ?? 0));
  const times = lines.flatMap((line) => line.points.map(([time]) => time));
  const highest = Math.max(1e-9, ...values);
  const lastTime = Math.max(1e-9, ...times);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const x = (time: number) => LEFT + (time / lastTime) * plotWidth;
  const y = (value: number) => TOP + plotHeight - (value / highest) * plotHeight;
  const paths = lines
    .map((line) => {
      let path = '';
      let pen = 'M';
      for (const [time, value] of line.points) {
        if (value === null) {
          pen = 'M';
          continue;
        }
        path += `${pen}${x(time).toFixed(1)},${y(value).toFixed(1)} `;
        pen = 'L';
      }
      return path
        ? `<path d="${path.trim()}" fill="none" stroke="${escapeHtml(line.color)}" stroke-width="1.5"/>`
        : '';
    })
    .join('');
  const legend = lines
    .map(
      (line, i) =>
        `<rect x="${WIDTH - RIGHT + 12}" y="${TOP + i * 18}" width="10" height="10" fill="${escapeHtml(line.color)}"/>` +
        `<text x="${WIDTH - RIGHT + 28}" y="${TOP + i * 18 + 9}" font-size="11">${escapeHtml(shorten(line.label))}</text>`,
    )
    .join('');
  const axes =
    `<line x1="${LEFT}" y1="${TOP + plotHeight}" x2="${LEFT + plotWidth}" y2="${TOP + plotHeight}" stroke="#999"/>` +
    `<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${TOP + plotHeight}" stroke="#999"/>` +
    `<text x="${LEFT - 6}" y="${TOP + 4}" font-size="11" text-anchor="end">${escapeHtml(round(highest))}</text>` +
    `<text x="${LEFT - 6}" y="${TOP + plotHeight}" font-size="11" text-anchor="end">0</text>` +
    `<text x="${LEFT + plotWidth}" y="${HEIGHT - 8}" font-size="11" text-anchor="end">${escapeHtml(round(lastTime))} s</text>` +
    `<text x="${LEFT}" y="${HEIGHT - 8}" font-size="11">0 s</text>`;
  const heading = `<text x="${LEFT}" y="16" font-size="13" font-weight="bold">${escapeHtml(title)} (${escapeHtml(unit)})</text>`;
  return `<svg width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">${heading}${axes}${paths}${legend}</svg>`;
}

function shorten(label: string): string {
  return label.length > 22 ? `${label.slice(0, 21)}…` : label;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
