/**
 * The text Python's str() gives a JSON value, for the quirks mode of a gateway written in Python
 * (3.8.3 sends values and remote answers as str(value): "True", "{'a': 1}"). Written by hand: a few
 * lines, no library renders Python literals. Numbers are JavaScript's (a JSON 20.0 is read as 20
 * here, where Python keeps "20.0").
 */
export function pythonText(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string')
    return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, inner]) => `${pythonRepr(key)}: ${pythonRepr(inner)}`)
      .join(', ')}}`;
  return String(value);
}
