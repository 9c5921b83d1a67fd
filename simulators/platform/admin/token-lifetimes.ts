/** The lifetimes of the admin API's JWTs, in seconds, and ThingsBoard's defaults for them. */
export interface TokenLifetimes {
  accessSeconds: number;
  refreshSeconds: number;
}

/**
 * ThingsBoard's JWT lifetimes by default (thingsboard.yml JWT_TOKEN_EXPIRATION_TIME,
 * JWT_REFRESH_TOKEN_EXPIRATION_TIME).
 */
export const JWT_DEFAULTS: Readonly<TokenLifetimes> = {
  accessSeconds: 9000,
  refreshSeconds: 604800,
};
