// The planes' shared secrets (GATEWAY_ADMIN_TOKEN, GATEWAY_INTERNAL_TOKEN) are refused at start-up when
// they could be guessed: shorter than 32 characters, or still the deploy files' placeholder. A development
// setup (tests, a laptop) says GATEWAY_ALLOW_WEAK_TOKENS=true to use short ones; `pnpm start` needs no
// such flag, it generates its own (deploy/local/start-local.ts).
export const MIN_TOKEN_LENGTH = 32;

/** What deploy/k8s/secrets.yaml and deploy/compose/.env.example hold until an operator replaces it. */
const PLACEHOLDER = /REPLACE_ME/i;

const HOW_TO_MAKE_ONE = "Make one with `openssl rand -base64 32 | tr '+/' '-_'`";

/**
 * Why `value` cannot be the secret `name`, or undefined when it can. `allowShort` (GATEWAY_ALLOW_WEAK_TOKENS):
 * the length is not checked; the placeholder is refused all the same, it is never meant.
 */
export function weakTokenProblem(name: string, value: string, allowShort: boolean): string | undefined {
  if (PLACEHOLDER.test(value)) return `${name} is still the deploy files' placeholder (REPLACE_ME...). ${HOW_TO_MAKE_ONE}.`;
  if (!allowShort && value.length < MIN_TOKEN_LENGTH)
    return (
      `${name} is too short (${value.length} of at least ${MIN_TOKEN_LENGTH} characters). ${HOW_TO_MAKE_ONE}` +
      " (a development setup may set GATEWAY_ALLOW_WEAK_TOKENS=true instead)."
    );
  return undefined;
}
