/** An answer of the admin REST API that is not a success. The message never carries a credential. */
export class AdminApiError extends Error {
  readonly code = 'IOTC_ADMIN_API';

  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly errorCode: number | undefined,
    readonly serverMessage: string,
  ) {
    super(`${method} ${path} answered ${status}${errorCode === undefined ? '' : ` (errorCode ${errorCode})`}: ${serverMessage || '(empty body)'}`);
  }
}
