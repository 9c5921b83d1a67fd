/**
 * Reading a datetime string of a tsField into unix milliseconds, with the dayfirst and yearfirst
 * rules of docs/reference/interfaces.md (as dateutil reads them): `10.11.24` is 11 Oct 2024 by
 * default, 10 Nov 2024 with dayfirst, 24 Nov 2010 with yearfirst. A four-digit first number is
 * always the year. Two-digit years are 2000–2099. ISO 8601 strings are read as ISO. A string
 * without a zone is read in UTC (docs/reference/interfaces.md does not say which zone; the real
 * gateway uses its process's local zone). Answers undefined when the text is not a date.
 */
interface DateOrder {
  dayfirst: boolean;
  yearfirst: boolean;
}

const NUMERIC_DATE =
  /^(\d{1,4})[./-](\d{1,2})[./-](\d{1,4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export function parseDatetime(text: string, order: DateOrder): number | undefined {
  const trimmed = text.trim();
  const match = NUMERIC_DATE.exec(trimmed);
  if (!match) {
    // ISO with month names or week dates is out of scope; a full ISO date-time with a zone is read
    // as such
    if (/^\d{4}-\d{2}-\d{2}T/.test(trimmed)) {
      const iso = Date.parse(/Z|[+-]\d{2}:?\d{2}$/i.test(trimmed) ? trimmed : `${trimmed}Z`);
      return Number.isNaN(iso) ? undefined : iso;
    }
    return undefined;
  }
  const [
    ,
    first,
    second,
    third,
    hour = '0',
    minute = '0',
    secondOfMinute = '0',
    fraction = '',
    zone,
  ] = match;
  let year: number;
  let month: number;
  let day: number;
  if (first!.length >= 3) {
    [year, month, day] = [Number(first), Number(second), Number(third)];
  } else if (order.yearfirst) {
    // yearfirst and dayfirst together: year, day, month (dateutil)
    [year, month, day] = order.dayfirst
      ? [Number(first), Number(third), Number(second)]
      : [Number(first), Number(second), Number(third)];
  } else if (order.dayfirst) {
    [day, month, year] = [Number(first), Number(second), Number(third)];
  } else {
    [month, day, year] = [Number(first), Number(second), Number(third)];
  }
  if (year < 100) year += 2000;
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(
    year,
    month - 1,
    day,
    Number(hour),
    Number(minute),
    Number(secondOfMinute),
    milliseconds,
  );
  const date = new Date(utc);
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month - 1) return undefined; // 31.02 and the like
  return utc - zoneOffsetMs(zone);
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  const hours = Number(digits.slice(1, 3));
  const minutes = Number(digits.slice(3, 5) || '0');
  return sign * (hours * 60 + minutes) * 60_000;
}
