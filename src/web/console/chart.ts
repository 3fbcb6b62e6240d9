import { html, type Html } from '../page.js';

// Bar charts per day as inline SVG drawn on the server: no script, no build step. Each chart is
// an image with a title and a description, and its figures follow as a table for screen readers
// and copying (docs/decisions/156-seller-console.md).

export interface Series {
  name: string;
  /** one value per day of the chart, in the chart's order */
  values: readonly number[];
  /** a fill with at least 3:1 contrast on white */
  color: string;
}

export interface BarChart {
  /** unique on the page: the ids of its title and description derive from it */
  id: string;
  title: string;
  /** what the chart shows in a sentence; the busiest day is added */
  description: string;
  days: readonly string[];
  /** stacked bottom up */
  series: readonly Series[];
  format: (value: number) => string;
}

const WIDTH = 720;
const HEIGHT = 180;
const LEFT = 4;
const TOP = 20;
const BOTTOM = 22;

export function barChart(c: BarChart): Html {
  const totals = c.days.map((_, i) => c.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = Math.max(0, ...totals);
  const busiest = totals.indexOf(top);
  const plot = HEIGHT - TOP - BOTTOM;
  const step = (WIDTH - 2 * LEFT) / Math.max(1, c.days.length);
  const scale = (v: number) => (top === 0 ? 0 : (v / top) * plot);
  const bars = c.days.map((day, i) => {
    let base = HEIGHT - BOTTOM;
    return c.series.map((s) => {
      const h = scale(s.values[i] ?? 0);
      base -= h;
      return h > 0
        ? html`<rect
            x="${(LEFT + i * step + step * 0.1).toFixed(1)}"
            y="${base.toFixed(1)}"
            width="${(step * 0.8).toFixed(1)}"
            height="${h.toFixed(1)}"
            fill="${s.color}"
            ><title>${day} ${s.name}: ${c.format(s.values[i]!)}</title></rect
          >`
        : '';
    });
  });
  const description = `${c.description} ${top > 0 ? `Busiest day: ${c.days[busiest]}, ${c.format(top)}.` : 'Nothing on any day.'}`;
  const label = (x: number, anchor: string, text: string) =>
    html`<text x="${x}" y="${HEIGHT - 6}" text-anchor="${anchor}" font-size="12" fill="#333">${text}</text>`;
  return html`<figure class="chart">
    <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${c.id}-title ${c.id}-desc" width="100%">
      <title id="${c.id}-title">${c.title}</title>
      <desc id="${c.id}-desc">${description}</desc>
      <line x1="${LEFT}" x2="${WIDTH - LEFT}" y1="${HEIGHT - BOTTOM}" y2="${HEIGHT - BOTTOM}" stroke="#555" />
      <line x1="${LEFT}" x2="${WIDTH - LEFT}" y1="${TOP}" y2="${TOP}" stroke="#bbb" stroke-dasharray="4 4" />
      <text x="${LEFT}" y="${TOP - 6}" font-size="12" fill="#333">${c.format(top)}</text>
      ${bars} ${c.days.length ? [label(LEFT, 'start', c.days[0]!), label(WIDTH - LEFT, 'end', c.days.at(-1)!)] : ''}
    </svg>
    <figcaption>
      ${c.title}${c.series.length > 1 ? html`: ${c.series.map((s, i) => html`${i ? ', ' : ''}<span class="key" style="background:${s.color}"></span> ${s.name}`)}` : ''}
    </figcaption>
    <details>
      <summary>${c.title} as a table</summary>
      <table>
        <thead>
          <tr>
            <th scope="col">Day</th>
            ${c.series.map((s) => html`<th scope="col">${s.name}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${c.days.map(
            (day, i) =>
              html`<tr>
                <th scope="row">${day}</th>
                ${c.series.map((s) => html`<td>${c.format(s.values[i] ?? 0)}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </details>
  </figure>`;
}
