/**
 * One error class per failure kind; each carries ThingsBoard's HTTP status and error code
 * (docs/reference/platform-facts.md §8).
 */
import { type StepFaults, withFaults } from '../../../faults/steps';
import { IotcError, type IotcErrorCode } from '../../../lib/errors';
/**
 * A failure of the reference platform answering a request, with its HTTP status and ThingsBoard
 * errorCode (general: 500, errorCode 2).
 */
export class PlatformError extends IotcError {
  /** Any other failure (ThingsBoard's general error 2, answered 500 unless given). */
  readonly code: IotcErrorCode = 'IOTC_PLATFORM_ERROR';
  constructor(
    message: string,
    readonly status: number,
    readonly errorCode: number,
  ) {
    super(message);
  }
}

/** The reference platform refuses a malformed request (400, errorCode 31). */
export class BadRequestError extends PlatformError {
  override readonly code = 'IOTC_PLATFORM_BAD_REQUEST';
  constructor(message: string) {
    super(message, 400, 31);
  }
}

/** The entity a request names does not exist on the reference platform (404, errorCode 32). */
export class NotFoundError extends PlatformError {
  override readonly code = 'IOTC_PLATFORM_NOT_FOUND';
  constructor(message = "Requested item wasn't found!") {
    super(message, 404, 32);
  }
}

/** The named step of a refused authentication: its HTTP status. */
const AUTHENTICATION_STEPS = { status: (): number => 401 };
/** Its planted fault (faults/catalogue/admin-auth.ts), a wrapper of that step. */
const AUTHENTICATION_FAULTS: StepFaults<typeof AUTHENTICATION_STEPS> = {
  'AUTH-05:refused-403': { status: () => () => 403 },
};

/**
 * The reference platform refuses a request without valid credentials (401, ThingsBoard errorCode 10
 * or 11).
 */
export class AuthenticationError extends PlatformError {
  override readonly code = 'IOTC_PLATFORM_AUTHENTICATION';
  constructor(message = 'Authentication failed', errorCode = 10) {
    super(message, withFaults(AUTHENTICATION_STEPS, AUTHENTICATION_FAULTS).status(), errorCode);
  }
}

/**
 * Quirks mode thingsboard-4.3: an unauthenticated request that ThingsBoard sends to its OAuth2
 * login entry point (302 to /oauth2Login) instead of refusing it with 401 (deviation AUTH-05).
 */
export class LoginRedirect extends PlatformError {
  override readonly code = 'IOTC_PLATFORM_AUTHENTICATION';
  constructor(readonly location: string) {
    super('redirected to the login page', 302, 10);
  }
}

/** The caller may not do this on the reference platform (403, errorCode 20). */
export class PermissionDeniedError extends PlatformError {
  override readonly code = 'IOTC_PLATFORM_PERMISSION_DENIED';
  constructor(message = "You don't have permission to perform this operation!") {
    super(message, 403, 20);
  }
}

/** The tenant's device limit (tenant profile maxDevices) is reached: no device is created. */
export class QuotaExceededError extends PlatformError {
  override readonly code = 'IOTC_PLATFORM_QUOTA_EXCEEDED';
  constructor(message = 'Maximum number of devices reached!') {
    super(message, 403, 20);
  }
}
