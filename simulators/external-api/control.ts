/**
 * Steps' handle on an external-API simulator, over its /__iotc/ control endpoints (never by
 * import).
 */
import { request } from 'undici';
import { CONTROL_PREFIX, type RecordedRequest, type Script } from './index';

export type { RecordedRequest } from './index';

export class ExternalApiControl {
  constructor(readonly url: string) {}

  async script(script: Script): Promise<void> {
    const response = await request(`${this.url}${CONTROL_PREFIX}/scripts`, {
      method: 'POST',
      body: JSON.stringify(script),
      headers: { 'content-type': 'application/json' },
    });
    const text = await response.body.text();
    if (response.statusCode !== 204)
      throw new Error(
        `the external-API simulator refused the script: ${response.statusCode} ${text}`,
      );
  }

  async requests(pathPrefix: string): Promise<RecordedRequest[]> {
    const response = await request(
      `${this.url}${CONTROL_PREFIX}/requests?pathPrefix=${encodeURIComponent(pathPrefix)}`,
    );
    return (await response.body.json()) as RecordedRequest[];
  }

  /** The simulator's URLs: the HTTPS one only when it serves HTTPS. */
  async info(): Promise<{ url: string; httpsUrl?: string }> {
    const response = await request(`${this.url}${CONTROL_PREFIX}/info`);
    return (await response.body.json()) as { url: string; httpsUrl?: string };
  }
}
