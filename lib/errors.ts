/**
 * The one error convention of the project, in the style of undici's errors.js: every error class
 * extends IotcError, so its `name` is its class name and its `code` a stable `IOTC_*` string that
 * programs test instead of messages (`iotc` prints both). Errors that answer a protocol request
 * also carry the protocol's own status and error code (ThingsBoard's numeric `errorCode`, the HTTP
 * status), as members of their own.
 */
export type IotcErrorCode = `IOTC_${string}`;

export abstract class IotcError extends Error {
  abstract readonly code: IotcErrorCode;

  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
