/**
 * Access tokens the harness chooses for the devices it creates (steps/world.ts newDevice): given in
 * the creation request (`POST /api/device?accessToken=`, docs/reference/platform-facts.md §8
 * "Devices"; ThingsBoard DeviceController.java:189), they save the `GET
 * /api/device/{id}/credentials` that would otherwise follow every creation. Whether the target
 * takes a token so given is checked on the first device, against the credentials it holds; a
 * target that made one of its own is asked for each device's credentials from then on.
 */
import { randomInt } from 'node:crypto';

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random 20-character alphanumeric access token, of the shape ThingsBoard makes its own. */
export function randomAccessToken(): string {
  let token = '';
  for (let i = 0; i < 20; i++) token += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return token;
}

export class ChosenTokens {
  /** Whether the target gives a device the token named in its creation; unknown at first. */
  private honoured: boolean | undefined;

  /** The token to create the next device with; undefined once the target showed it ignores it. */
  next(): string | undefined {
    return this.honoured === false ? undefined : randomAccessToken();
  }

  /**
   * The access token of a device created with `chosen` (undefined: none was given): `chosen`
   * itself once the target has shown it takes one, else what `credentials` reads from the target
   * (the first answers whether it took it).
   */
  async tokenOf(chosen: string | undefined, credentials: () => Promise<string>): Promise<string> {
    if (chosen !== undefined && this.honoured === true) return chosen;
    const token = await credentials();
    if (chosen !== undefined) this.honoured = token === chosen;
    return token;
  }
}
