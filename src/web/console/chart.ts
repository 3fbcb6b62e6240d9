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
const HEIGHT = 160;
/** room above the highest bar for the dashed line of the top of the scale */
const TOP = 4;

export function barChart(c: BarChart): Html {
  const totals = c.days.map((_, i) => c.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = Math.max(0, ...totals);
  const busiest = totals.indexOf(top);
  const step = WIDTH / Math.max(1, c.days.length);
  const scale = (v: number) => (top === 0 ? 0 : (v / top) * (HEIGHT - TOP));
  const bars = c.days.map((day, i) => {
    let base = HEIGHT;
    return c.series.map((s) => {
      const h = scale(s.values[i] ?? 0);
      base -= h;
      return h > 0
        ? html`<rect
            x="${(i * step + step * 0.1).toFixed(1)}"
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
  // the scale and the dates are HTML beside the drawing, so that they stay readable on a phone
  return html`<figure class="chart">
    <p class="axis" aria-hidden="true"><span>${c.format(top)}</span></p>
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      preserveAspectRatio="none"
      role="img"
      aria-labelledby="${c.id}-title ${c.id}-desc"
    >
      <title id="${c.id}-title">${c.title}</title>
      <desc id="${c.id}-desc">${description}</desc>
      <line x1="0" x2="${WIDTH}" y1="${TOP}" y2="${TOP}" stroke="#767676" stroke-dasharray="4 4" />
      ${bars}
      <line x1="0" x2="${WIDTH}" y1="${HEIGHT}" y2="${HEIGHT}" stroke="#555" stroke-width="2" />
    </svg>
    <p class="axis" aria-hidden="true"><span>${c.days[0]}</span><span>${c.days.at(-1)}</span></p>
    ${
      c.series.length > 1
        ? html`<figcaption>
            ${c.series.map((s, i) => html`${i ? ', ' : ''}<span class="key" style="background:${s.color}"></span> ${s.name}`)}
          </figcaption>`
        : ''
    }
    <details>
      <summary>${c.title} as a table</summary>
      <table>
        <caption>
          ${c.title}
        </caption>
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
