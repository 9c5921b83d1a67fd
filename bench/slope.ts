/**
 * Bytes per unit (per device, per connection) from memory read at several points: a least-squares
 * line through every point, and whether it may be judged at all. A process's resident memory moves
 * with the allocator (pages kept or given back, heap sizing) by as much as a few hundred devices
 * cost; two readings' difference could come out negative (the generator line once printed −764
 * bytes per device, and PASS). A slope gives no verdict (INFO, with the reason) when it is not
 * positive, when the readings do not grow with the points (a later one below an earlier one), or
 * when the scatter about the line is a large share of what the line explains (R² below MIN_R2):
 * then the allocator, not the units, decided the figure.
 */

/** The least share of the readings' variance the line must explain for its slope to be judged. */
export const MIN_R2 = 0.9;

export interface SlopeFit {
  /** Bytes per unit: the least-squares slope through every point. */
  slope: number;
  /** Share of the readings' variance the line explains (1: every point on it). */
  r2: number;
  /** Why the slope gives no verdict; undefined when it may be judged. */
  noVerdict?: string;
}

/** Fits y = a + slope·x through the points (at least two, x not all equal). */
export function fitSlope(points: ReadonlyArray<{ x: number; y: number }>): SlopeFit {
  const n = points.length;
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / n;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const { x, y } of points) {
    sxx += (x - meanX) ** 2;
    sxy += (x - meanX) * (y - meanY);
    syy += (y - meanY) ** 2;
  }
  const slope = sxx > 0 ? sxy / sxx : Number.NaN;
  const residual = points.reduce(
    (sum, { x, y }) => sum + (y - (meanY + slope * (x - meanX))) ** 2,
    0,
  );
  const r2 = syy > 0 ? 1 - residual / syy : 0;
  const kib = (bytes: number) =>
    Math.abs(bytes) >= 10 * 1048576
      ? `${(bytes / 1048576).toFixed(1)} MiB`
      : `${(bytes / 1024).toFixed(2)} KiB`;
  let noVerdict: string | undefined;
  const sorted = [...points].sort((a, b) => a.x - b.x);
  const fallsAt = sorted.findIndex((point, i) => i > 0 && point.y < sorted[i - 1].y);
  if (n < 3) noVerdict = `only ${n} points: a line through two readings cannot show its noise`;
  else if (!(slope > 0))
    noVerdict = `the fitted slope is ${Number.isNaN(slope) ? 'undefined' : 'not positive'}: memory did not grow with the load, the allocator decided the readings`;
  else if (fallsAt > 0)
    noVerdict = `the readings do not grow with the points (${kib(sorted[fallsAt - 1].y)} at ${sorted[fallsAt - 1].x}, ${kib(sorted[fallsAt].y)} at ${sorted[fallsAt].x}): the allocator moved them more than the load did`;
  else if (r2 < MIN_R2)
    noVerdict = `the line explains ${(r2 * 100).toFixed(0)} % of the readings' spread (under ${MIN_R2 * 100} %): noise dominates the slope`;
  return { slope, r2, noVerdict };
}

/**
 * The verdict word of a fitted slope against a goal (at most `goal` bytes per unit): INFO when it
 * gives none.
 */
export function slopeVerdict(fit: SlopeFit, goal: number): 'PASS' | 'FAIL' | 'INFO' {
  if (fit.noVerdict) return 'INFO';
  return fit.slope <= goal ? 'PASS' : 'FAIL';
}
