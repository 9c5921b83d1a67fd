/**
 * MQTT topic filter matching (MQTT 3.1.1 §4.7: `+` one level, `#` the rest), for the reference
 * platform's subscriptions and certify's checks of a device's. Written by hand: it is ten lines
 * (mqtt-match does the same), and the reference only grants the handful of filters listed in
 * simulators/platform/mqtt/subscribe.ts.
 */
export function topicMatches(filter: string, topic: string): boolean {
  if (filter === topic) return true;
  const filterLevels = filter.split('/');
  const topicLevels = topic.split('/');
  for (let i = 0; i < filterLevels.length; i++) {
    const level = filterLevels[i];
    if (level === '#') return true;
    if (i >= topicLevels.length) return false;
    if (level !== '+' && level !== topicLevels[i]) return false;
  }
  return filterLevels.length === topicLevels.length;
}
