/** Where billing reports what it could not do at once (the data plane's logger). */
export interface BillingLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}
