// Bar charts drawn as SVG by the page itself (no third-party script). Only attributes and
// classes are set, never a style attribute, so the console's CSP (style-src 'self') holds.
// Each chart is hidden from assistive technology: the table beside it carries the same numbers.
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value != null) element.setAttribute(name, String(value));
  }
  element.append(...children.filter((child) => child != null));
  return element;
}

const BAR_HEIGHT = 18;
const ROW_GAP = 12;
const LABEL_LINE = 20;

/** A horizontal bar chart `width` px wide: one group per row (`label`, `data`: the group's
 *  data-* attributes), one bar per series in it (`values`: [{series, value}]), the value
 *  written after each bar by `format`. Below 480 px the label goes above its bars, so it stays
 *  readable at the page's text size on a phone. */
export function barChart({ rows, format = String, testid, width = 640 }) {
  const stacked = width < 480;
  const labelWidth = stacked ? 0 : Math.round(width * 0.32);
  const valueWidth = 80;
  const max = Math.max(1, ...rows.flatMap((row) => row.values.map((entry) => entry.value)));
  const scale = (width - labelWidth - valueWidth) / max;
  let y = 4;
  const groups = rows.map((row) => {
    const labelY = y + 13;
    if (stacked) y += LABEL_LINE;
    const top = y;
    const bars = row.values.map((entry, index) => {
      const barY = top + index * (BAR_HEIGHT + 2);
      const barWidth = Math.max(entry.value > 0 ? 2 : 0, Math.round(entry.value * scale));
      return [
        svg("rect", {
          class: `bar bar-${entry.series}`, x: labelWidth, y: barY, width: barWidth, height: BAR_HEIGHT, rx: 2,
          "data-series": entry.series, "data-count": entry.value,
        }),
        svg("text", { class: "bar-value", x: labelWidth + barWidth + 6, y: barY + BAR_HEIGHT - 4 }, document.createTextNode(format(entry))),
      ];
    }).flat();
    const height = row.values.length * (BAR_HEIGHT + 2) - 2;
    y += height + ROW_GAP;
    const attributes = { class: "bar-row" };
    for (const [name, value] of Object.entries(row.data || {})) attributes[`data-${name}`] = value;
    const label = stacked
      ? svg("text", { class: "bar-label", x: 0, y: labelY + 2 }, document.createTextNode(row.label))
      : svg("text", { class: "bar-label", x: labelWidth - 8, y: top + height / 2 + 4, "text-anchor": "end" }, document.createTextNode(row.label));
    return svg("g", attributes, label, ...bars);
  });
  const height = Math.max(y, 24);
  return svg("svg", {
    class: "chart", viewBox: `0 0 ${width} ${height}`, width, height, "aria-hidden": "true", focusable: "false",
    "data-testid": testid,
  }, ...groups);
}
